"""Paths of the wrong kind, unreadable files and a full disk: one line on stderr naming the path,
exit status 2, no traceback. (Tests run as root, who reads chmod-000 files, so an unreadable file
and a full disk are simulated by raising the operating system's error where it would arise.)"""

from __future__ import annotations

import errno
import pathlib
from pathlib import Path

import pytest

import spadework.cli
import spadework.report.command
from spadework.archive import Archive
from spadework.cli import main
from spadework.paths import describe_os_error


def one_line(capsys) -> str:
    """The single stderr line (after checking that it is one and no traceback)."""
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.splitlines()) == 1, err
    return err.strip()


@pytest.fixture
def paths(tmp_path: Path) -> dict[str, Path]:
    file = tmp_path / "a-file"
    file.write_text("not a folder\n")
    run_dir = tmp_path / "run"
    Archive.open(run_dir).close()
    return {"tmp": tmp_path, "file": file, "folder": tmp_path, "run": run_dir}


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["run", "--policy", "scripted", "--run-dir", "{file}"],
         "{file}: is a file, not a folder; give --run-dir a folder (it is created when missing)"),
        (["run", "--policy", "scripted", "--run-dir", "{file}/run"],
         "{file}/run: {file} is a file, not a folder; give --run-dir another path"),
        (["run", "--resume", "{file}"], "{file}: is a file, not a folder; give --resume the run directory"),
        (["ablate", "--policy", "scripted", "--out", "{file}"],
         "{file}: is a file, not a folder; give --out"),
        (["validate", "--run-dir", "{file}", "{file}"], "{file}: is a file, not a folder; give --run-dir"),
        (["archive", "ls", "{file}"], "{file} is a file, not a run directory"),
        (["archive", "export", "{file}"], "{file} is a file, not a run directory"),
        (["report", "{file}"], "{file} is a file; pass the run directory"),
        (["run", "--policy", "scripted", "--config", "{folder}", "--run-dir", "{tmp}/r"],
         "{folder}: is a folder, not a config file; give a .toml file"),
        (["ablate", "--config", "{folder}", "--out", "{tmp}/r"],
         "{folder}: is a folder, not a config file; give a .toml file"),
        (["eval", "--config", "{folder}"], "{folder}: is a folder, not a config file; give a .toml file"),
        (["calibrate", "--config", "{folder}"],
         "{folder}: is a folder, not a config file; give a .toml file"),
        (["report", "{run}", "--out", "{folder}"],
         "{folder}: is a folder where a file is needed; give a file"),
        (["report", "{run}", "--out", "{file}/report.html"],
         "{file}: is a file where a folder is needed; move it away or give another path"),
    ],
)
def test_a_path_of_the_wrong_kind_is_one_line_naming_it(paths, capsys, argv, message):
    assert main([a.format(**paths) for a in argv]) == 2
    assert one_line(capsys).startswith("spadework: " + message.format(**paths))


def test_validate_reports_a_folder_on_its_own_line_and_goes_on(paths, capsys):
    assert main(["validate", "--json", str(paths["folder"])]) == 1
    assert capsys.readouterr().err == f"spadework: {paths['folder']}: not a file\n"


def test_an_unreadable_config_is_one_line(paths, capsys, monkeypatch):
    config = paths["tmp"] / "secret.toml"
    config.write_text("[run]\nseed = 1\n")
    read_text = pathlib.Path.read_text

    def refuse(self, *args, **kwargs):
        if self == config:
            raise PermissionError(errno.EACCES, "Permission denied", str(self))
        return read_text(self, *args, **kwargs)

    monkeypatch.setattr(pathlib.Path, "read_text", refuse)
    assert main(["run", "--config", str(config), "--run-dir", str(paths["tmp"] / "r")]) == 2
    assert one_line(capsys) == f"spadework: {config}: cannot read it: permission denied; fix its permissions"


def test_a_full_disk_during_a_run_names_the_file_and_how_to_resume(paths, capsys, monkeypatch):
    run_dir = paths["tmp"] / "r"
    metrics = run_dir / "metrics.jsonl"

    def full(config, target, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device", str(metrics))

    monkeypatch.setattr(spadework.cli, "run", full)
    assert main(["run", "--policy", "scripted", "--run-dir", str(run_dir)]) == 2
    assert one_line(capsys) == (f"spadework: {metrics}: no space left on the device; free some space and "
                                f"resume with: spadework run --resume {run_dir}")


def test_a_full_disk_on_a_real_write_of_a_run_names_the_run(paths, capsys, monkeypatch):
    run_dir = paths["tmp"] / "r"
    write_bytes = pathlib.Path.write_bytes

    def full(self, data):
        if run_dir in self.parents:  # a write() on a full disk names no file
            raise OSError(errno.ENOSPC, "No space left on device")
        return write_bytes(self, data)

    monkeypatch.setattr(pathlib.Path, "write_bytes", full)
    assert main(["run", "--policy", "scripted", "--iterations", "1", "--designs", "1", "--plays", "1",
                 "--run-dir", str(run_dir)]) == 2
    assert one_line(capsys) == (f"spadework: {run_dir}: no space left on the device; free some space and "
                                f"resume with: spadework run --resume {run_dir}")


def test_an_os_error_in_any_command_is_one_line(paths, capsys, monkeypatch):
    target = paths["tmp"] / "report.html"

    def refuse(run_dir, out=None):
        raise PermissionError(errno.EACCES, "Permission denied", str(out))

    monkeypatch.setattr(spadework.report.command, "build_report", refuse)
    assert main(["report", str(paths["run"]), "--out", str(target)]) == 2
    assert one_line(capsys) == (f"spadework: {target}: permission denied; fix its permissions or give "
                                "another path")


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        (OSError(errno.ENOSPC, "No space left on device", "x"),
         "x: no space left on the device; free some space and try again"),
        (OSError(errno.EROFS, "Read-only file system", "x"), "x: on a read-only file system; give a path on"),
        (OSError(errno.EISDIR, "Is a directory", ".tmp", None, "target"),
         "target: is a folder where a file is needed"),
        (OSError(errno.EIO, "Input/output error", "x"), "x: input/output error"),
        (OSError(errno.EPIPE, "Broken pipe"), "broken pipe"),
    ],
)
def test_describe_os_error(error, expected):
    assert describe_os_error(error).startswith(expected)


def test_describe_os_error_names_the_file_in_the_way(paths):
    error = NotADirectoryError(errno.ENOTDIR, "Not a directory", str(paths["file"] / "a" / "b"))
    assert describe_os_error(error) == (f"{paths['file']}: is a file where a folder is needed; "
                                        "move it away or give another path")


def test_only_a_full_disk_falls_back_to_the_run_directory():
    refused = ConnectionRefusedError(errno.ECONNREFUSED, "Connection refused")
    assert describe_os_error(refused, where=Path("runs/a")) == "connection refused"
    full = OSError(errno.ENOSPC, "No space left on device")
    assert describe_os_error(full, where=Path("runs/a")).startswith("runs/a: no space left on the device")
