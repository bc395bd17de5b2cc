"""Static checks on the source, before any of it runs (defence in depth, not the boundary)."""

from __future__ import annotations

import ast

from spadework import pysyntax
from spadework.envs.contract import ALLOWED_MODULES, BASE_CLASS_METHODS, REQUIRED_METHODS, written_as_game
from spadework.errors import CheckFailed
from spadework.sandbox.loader import BASE_MODULES, bound_names, env_class_names, misplaced_base_imports

FORBIDDEN_CALLS = frozenset({
    "__import__", "breakpoint", "compile", "eval", "exec", "globals", "input", "open",
})
CALL_ADVICE = {
    "__import__": "import allowed modules at the top of the module",
    "compile": "write the logic as plain Python",
    "eval": "write the logic as plain Python",
    "exec": "write the logic as plain Python",
    "globals": "keep the state on self",
    "input": "read the agent's action from step(action)",
    "open": "keep data in the module (a list or a dict), not in files",
}
"""What to do instead of each forbidden call (anything else: remove it)."""
FORBIDDEN_ATTRIBUTES = frozenset({
    "__builtins__", "__closure__", "__code__", "__globals__", "__subclasses__", "__mro__",
    "__bases__", "f_back", "f_globals", "gi_frame", "tb_frame",
})
ALLOWED_OWN_MODULES = frozenset({"spadework.envs"} | BASE_MODULES)
TEXTENV_REPLACED = {"reset": "new_episode", "step": "apply"}
"""A TextEnv subclass that writes its own reset() or step() needs no new_episode() or apply()."""


def parse_module(code: str) -> ast.Module:
    """The module's syntax tree.

    >>> parse_module("def f(:")
    Traceback (most recent call last):
    ...
    spadework.errors.CheckFailed: syntax error at line 1: invalid syntax
    """
    try:
        return pysyntax.parse(pysyntax.join_continued_strings(code)[0])  # as the loader mends it
    except SyntaxError as exc:
        raise CheckFailed(f"syntax error at line {exc.lineno}: {exc.msg}") from None
    except ValueError as exc:  # e.g. null bytes
        raise CheckFailed(f"the source cannot be parsed: {exc}") from None


def the_env_class(tree: ast.Module) -> ast.ClassDef:
    """The one top-level class whose name ends in ``Env``."""
    names = env_class_names(tree)
    if not names:
        raise CheckFailed("no class whose name ends in 'Env'; name the environment class like MazeEnv")
    if len(names) > 1:
        raise CheckFailed(f"found {len(names)} classes whose names end in 'Env' "
                          f"({', '.join(names)}); keep exactly one")
    return next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == names[0])


def _base_names(cls: ast.ClassDef) -> list[str]:
    names = []
    for base in cls.bases:
        if isinstance(base, ast.Name):
            names.append(base.id)
        elif isinstance(base, ast.Attribute):
            names.append(base.attr)
    return names


def methods_of(cls: ast.ClassDef, tree: ast.Module) -> tuple[set[str], str | None]:
    """Methods defined by the class and its same-module bases; and the base class it extends.

    >>> tree = ast.parse("class A(AnswerEnv):\\n    def hint(self): pass\\nclass BEnv(A): pass")
    >>> methods_of(tree.body[1], tree)
    ({'hint'}, 'AnswerEnv')
    """
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    methods: set[str] = set()
    extended, todo, seen = None, [cls], set()
    while todo:
        current = todo.pop()
        if current.name in seen:
            continue
        seen.add(current.name)
        methods.update(n.name for n in current.body
                       if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))
        for base in _base_names(current):
            if base in BASE_CLASS_METHODS:
                extended = extended or base
            elif base in classes:
                todo.append(classes[base])
    return methods, extended


def check_methods(cls: ast.ClassDef, tree: ast.Module) -> None:
    """The class has every method the contract needs."""
    methods, base = methods_of(cls, tree)
    game = written_as_game(cls)
    base = "TextEnv" if game else base
    required = BASE_CLASS_METHODS[base] if base else REQUIRED_METHODS
    if base:
        methods |= {TEXTENV_REPLACED[m] for m in TEXTENV_REPLACED if m in methods}
    missing = [m for m in required if m not in methods]
    if missing:
        needed = ", ".join(f"{m}()" for m in required)
        kind = f"a subclass of {base}" if base else "the contract"
        if game:
            kind = "it writes apply(), so it is read as a game (a TextEnv subclass), which"
        raise CheckFailed(f"{cls.name} has no {', '.join(m + '()' for m in missing)}; "
                          f"{kind} needs {needed}")


def check_imports(tree: ast.Module) -> None:
    """Only allowed modules are imported (the base class from a wrong submodule is tolerated: the
    loader imports it from its package)."""
    tolerated = {id(node) for node in misplaced_base_imports(tree)}
    for node in ast.walk(tree):
        if id(node) in tolerated:
            continue
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            modules = [node.module or ""] if node.level == 0 else ["(relative import)"]
        else:
            continue
        for module in modules:
            root = module.split(".")[0]
            allowed = module in ALLOWED_OWN_MODULES if root == "spadework" else root in ALLOWED_MODULES
            if not allowed:
                raise CheckFailed(
                    f"line {node.lineno}: imports '{module}', which environments may not use; "
                    "use pure standard modules such as random, math, re, collections"
                )


def check_forbidden(tree: ast.Module) -> None:
    """No calls that reach outside the game (eval, open, __import__) or into interpreter internals.

    >>> try:
    ...     check_forbidden(ast.parse("breakpoint()"))
    ... except CheckFailed as exc:
    ...     print(exc)
    line 1: uses breakpoint(), which environments may not use; remove it
    >>> check_forbidden(ast.parse("input = 'up'\\nprint(input)"))  # its own variable
    """
    forbidden = FORBIDDEN_CALLS - bound_names(tree)  # a module's own `input = ...` is fine
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in forbidden:
            advice = CALL_ADVICE.get(node.id, "remove it")
            raise CheckFailed(f"line {node.lineno}: uses {node.id}(), which environments may not "
                              f"use; {advice}")
        if isinstance(node, ast.Attribute) and node.attr in FORBIDDEN_ATTRIBUTES:
            raise CheckFailed(f"line {node.lineno}: uses .{node.attr}, which environments may not "
                              "use; keep to the game's own objects")
