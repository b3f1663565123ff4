"""A local language model served from a child process.

Why: a one-process ROS graph (``miles up``, ``miles demo``) runs the 250 Hz sim, safety
and skill nodes on executor threads of the process that also plans. Every torch op of
a forward pass releases the GIL and then waits for it behind those threads (up to the
5 ms switch interval each time, hundreds of ops per pass), so planning slows down many
times over and the nodes themselves stall. Measured on 2 cores: the demo's 4-step
grounded plan took 66 s inside the graph's process and 2.5 s in ``miles plan``. In a
child process the model competes for CPU time only, not for the GIL.

:class:`ProcessLanguageModel` is a :class:`~miles_ros.agent.lm.LanguageModel` (``name``,
``score``, ``generate_json``); calls are pickled over the child's stdin/stdout (``python
-m miles_ros.agent.lm_process``). The child ignores SIGINT (the parent decides when to
stop) and exits when its stdin closes, so it never outlives the parent.
"""

from __future__ import annotations

import os
import pickle
import signal
import subprocess
import sys
import threading
import time
import traceback
import weakref
from pathlib import Path

import numpy as np

from miles_ros.agent.constrained import PlanGrammar
from miles_ros.agent.lm import LanguageModel
from miles_ros.agent.models import ModelUnavailable

METHODS = ("score", "generate_json")
"""What the parent may call in the child."""


class LanguageModelProcessError(RuntimeError):
    """The child process failed (died, or raised while answering a call)."""


def _stop(proc: subprocess.Popen, timeout: float) -> None:
    """Close the child's stdin (it exits on EOF); kill it if it does not."""
    try:
        if proc.stdin and not proc.stdin.closed:
            proc.stdin.close()
    except OSError:
        pass
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    if proc.stdout:
        proc.stdout.close()


class ProcessLanguageModel(LanguageModel):
    """:class:`~miles_ros.agent.lm.HFLanguageModel` in a child process.

    Arguments are those of :func:`miles_ros.agent.models.load_model`. The constructor
    returns once the child has loaded the model (or raises what loading raised: a
    :class:`~miles_ros.agent.models.ModelUnavailable` stays one). Calls are serialized
    with a lock; a dead child raises :class:`LanguageModelProcessError`.
    """

    def __init__(
        self,
        model: str | None = None,
        adapter: str | os.PathLike | None = None,
        cache: str | os.PathLike | None = None,
        threads: int | None = None,
        dtype: str = "float32",
    ):
        t0 = time.perf_counter()
        env = dict(os.environ)
        root = str(Path(__file__).resolve().parents[2])  # the folder holding miles_ros/
        env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "miles_ros.agent.lm_process"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
        )
        self._lock = threading.Lock()
        self._finalizer = weakref.finalize(self, _stop, self._proc, 5.0)
        spec = {
            "model": model,
            "adapter": None if adapter is None else str(adapter),
            "cache": None if cache is None else str(cache),
            "threads": threads,
            "dtype": dtype,
        }
        try:
            info = self._exchange(spec)
        except BaseException:
            self.close()
            raise
        self.name: str = info["name"]
        self.load_s: float = time.perf_counter() - t0
        """Seconds from starting the child to the model being ready in it."""
        self.pid: int = self._proc.pid

    # -- the LanguageModel interface, answered in the child ----------------------------------
    def _score(
        self, segments: list[str], continuations: list[str], penalties: np.ndarray | None
    ) -> np.ndarray:
        return self._call("score", list(segments), list(continuations), penalties=penalties)

    def _generate(
        self, prompt: str, grammar: PlanGrammar, seed: int | None, temperature: float
    ) -> str:
        return self._call("generate_json", prompt, grammar, seed=seed, temperature=temperature)

    # -- plumbing ---------------------------------------------------------------------
    def close(self, timeout: float = 5.0) -> None:
        """Stop the child (idempotent)."""
        if self._finalizer.detach() is not None:
            _stop(self._proc, timeout)

    @property
    def alive(self) -> bool:
        return self._finalizer.alive and self._proc.poll() is None

    def _call(self, method: str, *args, **kwargs):
        if not self._finalizer.alive:
            raise LanguageModelProcessError("the language model process was closed")
        return self._exchange((method, args, kwargs))

    def _exchange(self, message):
        with self._lock:
            try:
                pickle.dump(message, self._proc.stdin, protocol=pickle.HIGHEST_PROTOCOL)
                self._proc.stdin.flush()
                reply = pickle.load(self._proc.stdout)
            except (EOFError, OSError, pickle.UnpicklingError) as exc:
                code = self._proc.poll()
                raise LanguageModelProcessError(
                    f"the language model process exited (code {code}); its stderr above "
                    f"says why ({type(exc).__name__})"
                ) from exc
        if reply[0] == "ok":
            return reply[1]
        _, kind, text, trace = reply
        if kind == "ModelUnavailable":
            raise ModelUnavailable(text)
        raise LanguageModelProcessError(f"{kind} in the language model process: {text}\n{trace}")


def _serve() -> int:
    """The child: load the model from the first message, then answer calls until EOF."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # stray prints never reach the pipe
    inp = sys.stdin.buffer

    def send(reply) -> None:
        pickle.dump(reply, out, protocol=pickle.HIGHEST_PROTOCOL)
        out.flush()

    def failure(exc: BaseException):
        return ("error", type(exc).__name__, str(exc), traceback.format_exc(limit=8))

    try:
        spec = pickle.load(inp)
    except EOFError:
        return 0
    try:
        from miles_ros.agent.lm import HFLanguageModel
        from miles_ros.agent.models import load_model

        lm = HFLanguageModel(load_model(**spec))
    except Exception as exc:
        send(failure(exc))
        return 1
    send(("ok", {"name": lm.name}))
    while True:
        try:
            method, args, kwargs = pickle.load(inp)
        except EOFError:
            return 0
        try:
            if method not in METHODS:
                raise ValueError(f"unknown method {method!r}")
            send(("ok", getattr(lm, method)(*args, **kwargs)))
        except Exception as exc:
            send(failure(exc))


if __name__ == "__main__":
    sys.exit(_serve())
