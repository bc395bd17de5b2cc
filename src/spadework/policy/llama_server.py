"""llama-cpp-python's OpenAI-compatible server, run by spadework itself on loopback.

Used where spadework owns the server: weight sync with llama.cpp (which reads adapter files
only when it starts, so each new adapter means a restart) and the tests of the openai policy.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import httpx

from spadework.errors import PolicyError


class LlamaServer:
    """llama.cpp's server (``llama_cpp.server``, behind ``llama_cpu.serve``'s AMX guard) serving one GGUF
    model on ``127.0.0.1:port`` as ``alias``.

    Args:
        model_path: the GGUF model.
        port: the loopback port.
        alias: the model name the server answers to.
        n_ctx: the context window.
        log: where the server's output goes (appended); None discards it.
        start_timeout_s: how long a (re)start may take.
    """

    def __init__(self, model_path: Path, port: int, alias: str, *, n_ctx: int = 4096, log: Path | None = None,
                 start_timeout_s: float = 180.0):
        self.model_path, self.port, self.alias, self.n_ctx = model_path, port, alias, n_ctx
        self.log, self.start_timeout_s = log, start_timeout_s
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """The OpenAI base URL, up to and including ``/v1``."""
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self, adapter: Path | None = None) -> None:
        """(Re)start the server, with the GGUF LoRA ``adapter`` applied when given; returns once it
        answers.

        Raises:
            PolicyError: the server exited, or did not answer within ``start_timeout_s``.
        """
        self.close()
        command = [sys.executable, "-m", "spadework.policy.llama_cpu", "--model", str(self.model_path),
                   "--host", "127.0.0.1", "--port", str(self.port), "--n_ctx", str(self.n_ctx),
                   "--model_alias", self.alias]
        command += ["--lora_path", str(adapter)] if adapter is not None else []
        sink = self.log.open("ab") if self.log else subprocess.DEVNULL
        self.process = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + self.start_timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise PolicyError(f"llama.cpp's server exited with code {self.process.returncode} while "
                                  f"starting{f'; see {self.log}' if self.log else ''}")
            try:
                if httpx.get(f"{self.url}/models", timeout=1.0).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.2)
        self.close()
        raise PolicyError(f"llama.cpp's server did not answer within {self.start_timeout_s:.0f} s"
                          f"{f'; see {self.log}' if self.log else ''}")

    def close(self) -> None:
        """Stop the server (politely, then by force)."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None
