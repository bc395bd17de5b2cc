"""The sandbox spread over a Ray cluster (``--executor ray``).

``RaySandbox.open`` starts a Ray actor somewhere in the cluster; the actor opens the
environment in an ordinary local ``Sandbox`` on its node (same isolation, same limits) and
serves its calls. Validation and plays use it exactly as they use a local sandbox, so
designs are validated and episodes stepped on whichever nodes have room, while the driver
only waits. Ray is imported only when a ``RaySandbox`` is built.
"""

from __future__ import annotations

from typing import Any

from spadework.errors import SandboxError
from spadework.sandbox.config import Isolation, SandboxConfig
from spadework.sandbox.env import ForwardingEnv

INSTALL_HINT = "pip install 'spadework[ray]'"


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        raise SandboxError(f"--executor ray needs Ray; install it with: {INSTALL_HINT}") from None
    return ray


class _EnvHost:
    """Lives in a Ray actor: one environment in a local sandbox on the actor's node."""

    def __init__(self, config: SandboxConfig):
        from spadework.sandbox.pool import Sandbox

        self.sandbox = Sandbox(config)
        self.env: Any = None

    def load(self, source: str, difficulty: int | None = None) -> dict[str, Any]:
        self.env = self.sandbox.open(source, difficulty)
        return {"isolation": self.env.isolation, "class_name": self.env.class_name,
                "max_turns": self.env.max_turns, "difficulties": self.env.difficulties,
                "tolerances": list(self.env.tolerances)}

    def call(self, name: str, *args: Any) -> tuple[Any, list[str]]:
        return getattr(self.env, name)(*args), list(self.env.tolerances)

    def close(self) -> None:
        if self.env is not None:
            self.env.close()
        self.sandbox.close()


class RayEnv(ForwardingEnv):
    """A handle on an environment hosted by a Ray actor; the same methods as ``SandboxedEnv``.

    An ``EnvError`` raised in the actor is raised here as itself, message unchanged, so
    callers (and the designer's repair prompts) see what they see locally.
    """

    def __init__(self, ray: Any, actor: Any, source: str, difficulty: int | None = None):
        self._ray, self._actor = ray, actor
        info = self._get(actor.load.remote(source, difficulty))
        self.isolation = info["isolation"]
        self.class_name = info["class_name"]
        self.max_turns = info["max_turns"]
        self.difficulties = info["difficulties"]
        self.tolerances: list[str] = info["tolerances"]

    def _get(self, ref: Any) -> Any:
        try:
            return self._ray.get(ref)
        except self._ray.exceptions.RayTaskError as exc:
            cause = getattr(exc, "cause", None)  # the environment's own error, message unchanged
            raise (cause if isinstance(cause, Exception) else exc.as_instanceof_cause()) from None
        except self._ray.exceptions.RayActorError as exc:
            raise SandboxError(f"the Ray actor hosting this environment died ({exc})") from None

    def _call(self, what: str, *args: Any) -> Any:
        value, self.tolerances = self._get(self._actor.call.remote(what, *args))
        return value

    def close(self) -> None:
        """End the environment's actor."""
        try:
            self._ray.get(self._actor.close.remote(), timeout=30)
        except Exception:  # noqa: BLE001 - the actor is killed below either way
            pass
        self._ray.kill(self._actor)


class RaySandbox:
    """Opens each environment in a Ray actor of its own.

    Args:
        config: the sandbox settings every actor's local sandbox uses (its pool size is 0), and
            where the actors run: ``ray_address``, a running cluster (``"auto"`` or
            ``ray://...``), or None to start a local Ray; ``ray_cpus_per_env``, the CPU share
            each environment actor reserves. 0 never blocks: a rollout keeps every play's
            environment open at once, and these actors mostly wait for the policy; actors are
            spread over the cluster's nodes.
        init_options: more ``ray.init`` options (e.g. ``num_cpus`` for a local instance).
    """

    def __init__(self, config: SandboxConfig | None = None, **init_options: Any):
        self.config = (config or SandboxConfig()).model_copy(update={"pool_size": 0})
        self.ray = _ray()
        self._started = not self.ray.is_initialized()
        if self._started:
            self.ray.init(address=self.config.ray_address, include_dashboard=False, log_to_driver=False,
                          **init_options)
        host = self.ray.remote(num_cpus=self.config.ray_cpus_per_env, max_restarts=0,
                               scheduling_strategy="SPREAD")
        self._host = host(_EnvHost)

    @property
    def isolation(self) -> Isolation:
        """How the Ray workers isolate environments (``sandbox.isolation``)."""
        from spadework.sandbox.isolation import choose_isolation

        return choose_isolation(self.config.isolation)

    def open(self, source: str, difficulty: int | None = None) -> RayEnv:
        """Load ``source`` (at ``difficulty``) in a new actor; raises ``EnvError`` as ``Sandbox.open``."""
        actor = self._host.remote(self.config)
        try:
            return RayEnv(self.ray, actor, source, difficulty)
        except BaseException:
            self.ray.kill(actor)
            raise

    def check(self, code: Any, timeout_s: float | None = None) -> Any:
        """A code verdict from local workers on this node (a moment's work: a code task's tests),
        with the same limits; see ``Sandbox.check``."""
        from spadework.sandbox.pool import Sandbox

        with Sandbox(self.config) as local:
            return local.check(code, timeout_s)

    def call(self, calls: Any, timeout_s: float | None = None) -> Any:
        """A function's results from a local worker on this node (a moment's work), with the same
        limits; see ``Sandbox.call``."""
        from spadework.sandbox.pool import Sandbox

        with Sandbox(self.config) as local:
            return local.call(calls, timeout_s)

    def close(self) -> None:
        """Shut down the Ray instance this sandbox started (a cluster it joined is left running)."""
        if self._started and self.ray.is_initialized():
            self.ray.shutdown()
        self._started = False

    def __enter__(self) -> RaySandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
