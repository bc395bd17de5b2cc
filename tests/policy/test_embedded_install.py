"""Without llama-cpp-python (a lean cluster install), an embedded run says in one line what to install."""

from __future__ import annotations

import subprocess
import sys

from spadework.cli import main


def test_an_embedded_run_without_the_engine_names_the_extra(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "llama_cpp", None)  # as if it were not installed
    code = main(["run", "--run-dir", str(tmp_path / "run"), "--iterations", "1"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "pip install 'spadework[embedded]'" in err and "llama-cpp-python" in err


def test_the_package_and_its_cli_import_without_the_engine():
    code = ("import sys; sys.modules['llama_cpp'] = None; "
            "import spadework, spadework.cli, spadework.policy.embedded")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
