"""A guard for llama.cpp on CPUs with AMX tiles.

llama.cpp repacks model weights for Intel AMX when the CPU reports it (``amx_tile`` in
``/proc/cpuinfo``), and on the 2-core AMX machines of this project its AMX kernels crash the
whole process with a segmentation fault at the first decode (measured: llama-cpp-python 0.3.36,
both bundled models). Loading the weights into plain CPU buffers (llama.cpp's model parameter
``use_extra_bufts = false``) avoids it; on CPUs without AMX nothing changes.

llama-cpp-python does not take that parameter, so ``avoid_amx_repack`` sets it in the defaults
its ``Llama`` starts from, once per process.
"""

from __future__ import annotations

from pathlib import Path

CPUINFO = Path("/proc/cpuinfo")


def has_amx(cpuinfo: str) -> bool:
    """Whether a ``/proc/cpuinfo`` text lists the AMX tile flag.

    >>> has_amx("flags : fpu avx2 avx512f amx_tile amx_int8"), has_amx("flags : fpu avx2")
    (True, False)
    """
    return any(line.startswith("flags") and "amx_tile" in line.split() for line in cpuinfo.splitlines())


def avoid_amx_repack(cpuinfo: Path = CPUINFO) -> bool:
    """On an AMX CPU, make every ``llama_cpp.Llama`` of this process load its weights into plain
    CPU buffers; returns whether it did. Safe to call again; does nothing without llama-cpp-python."""
    try:
        text = cpuinfo.read_text(encoding="utf-8", errors="replace")
        import llama_cpp.llama_cpp as bindings
    except (OSError, ImportError):
        return False
    if not has_amx(text):
        return False
    defaults = bindings.llama_model_default_params
    if getattr(defaults, "plain_buffers", False):
        return True

    def plain_buffers():
        params = defaults()
        params.use_extra_bufts = False
        return params

    plain_buffers.plain_buffers = True  # type: ignore[attr-defined]
    bindings.llama_model_default_params = plain_buffers
    return True


def serve() -> None:
    """``python -m llama_cpp.server`` with the guard applied (the arguments are the server's)."""
    import runpy

    avoid_amx_repack()
    runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    serve()
