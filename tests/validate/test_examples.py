"""The bundled example environments: each is valid on the real sandbox, and well kept."""

from __future__ import annotations

import ast
import doctest
import importlib

import pytest

from spadework.envs.examples import example_paths
from spadework.sandbox import InProcessSandbox
from spadework.validate import ValidatorConfig, validate

EXAMPLES = example_paths()


def test_example_paths_lists_the_example_modules_sorted():
    assert [path.name for path in EXAMPLES] == [
        "caesar_cipher.py", "coin_purse.py", "grid_walls.py", "library_lending.py", "number_guess.py"]
    assert all(path.is_absolute() and path.is_file() for path in EXAMPLES)


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_example_is_valid_on_the_real_sandbox(path, sandbox):
    verdict = validate(path.read_text(), sandbox)
    assert verdict.valid, verdict.reason
    assert verdict.isolation == sandbox.isolation.value != "none"
    assert verdict.tolerances == ()
    assert verdict.hint


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_example_is_valid_on_many_seeds(path):
    source = path.read_text()
    for first in range(0, 60, 3):
        verdict = validate(source, InProcessSandbox(),
                           ValidatorConfig(seeds=(first, first + 1, first + 2)))
        assert verdict.valid, f"seeds from {first}: {verdict.reason}"


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_example_has_a_one_line_module_docstring(path):
    docstring = ast.get_docstring(ast.parse(path.read_text()))
    assert docstring and "\n" not in docstring and docstring.endswith(".")


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_example_doctests_pass(path):
    module = importlib.import_module(f"spadework.envs.examples.{path.stem}")
    assert doctest.testmod(module).failed == 0
