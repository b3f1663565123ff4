"""Where the worlds run: in subprocess workers over pipes, or all in this process.

A worker process (:func:`serve`, driven through a :class:`WorkerProcess`) builds one
object and answers calls on it over a pipe. The protocol: the parent sends ``(method,
args)``, a method name and its arguments; the worker answers ``("ok", result)`` or
``("error", traceback text)`` (once after start-up too); ``("close", ())`` or a closed
pipe ends it. For the envs the object is a :class:`WorldGroup` (a contiguous block of
the worlds): :class:`SubprocessWorlds` is the parent's side, :class:`InProcessWorlds` the
same calls without processes, :func:`open_worlds` picks one.

Like :mod:`sims.backends.pybullet.world`, this stays light (a spawned worker imports it).
"""

from __future__ import annotations

import logging
import multiprocessing as mp
import os
import traceback

import numpy as np

from sims.backends.pybullet.spec import STATE_DIM, WorldSpec
from sims.backends.pybullet.world import BulletWorld

logger = logging.getLogger(__name__)


class WorldGroup:
    """Several worlds in one process; the unit a subprocess worker serves."""

    def __init__(self, specs: list[WorldSpec]):
        self.worlds: list[BulletWorld] = []
        try:
            for spec in specs:
                self.worlds.append(BulletWorld(spec))
        except Exception:
            self.close()
            raise
        self._out = np.zeros((len(specs), STATE_DIM))

    def step(
        self, arm_targets: np.ndarray, finger_targets: np.ndarray, filters=None
    ) -> np.ndarray:
        out = self._out
        for k, world in enumerate(self.worlds):
            f = None if filters is None else filters[k]
            out[k] = world.step(arm_targets[k], finger_targets[k], f)
        return out

    def reset(self, local_indices, rows: np.ndarray) -> np.ndarray:
        out = np.empty((len(local_indices), STATE_DIM))
        for k, i in enumerate(local_indices):
            out[k] = self.worlds[i].reset(rows[k])
        return out

    def read_state(self) -> np.ndarray:
        for k, world in enumerate(self.worlds):
            self._out[k] = world.read_state()
        return self._out

    def set_goal(self, goals: np.ndarray) -> None:
        for k, world in enumerate(self.worlds):
            world.set_goal(goals[k])

    def render(self, local_index: int, width: int, height: int, camera: dict) -> np.ndarray:
        return self.worlds[local_index].render(width, height, camera)

    def render_rgbd(self, local_index: int, intrinsics, pose):
        return self.worlds[local_index].render_rgbd(intrinsics, pose)

    def body_positions(self, local_index: int) -> dict:
        return self.worlds[local_index].body_positions()

    def close(self) -> None:
        for world in self.worlds:
            world.close()
        self.worlds = []


def serve(conn, build, *args) -> None:
    """Subprocess loop: ``target = build(*args)``, then answer ``(method, args)`` requests
    with ``getattr(target, method)(*args)``, in order.

    Replies are ``("ok", result)`` or ``("error", traceback text)``, the first one once the
    target is built; ``("close", ())`` or a closed pipe ends the loop and closes the target.
    """
    try:
        target = build(*args)
    except Exception:
        _answer(conn, ("error", traceback.format_exc()))
        conn.close()
        return
    try:
        if not _answer(conn, ("ok", None)):
            return
        while True:
            try:
                method, args = conn.recv()
            except (EOFError, OSError):
                break
            if method == "close":
                reply = ("ok", None)
            else:
                try:
                    reply = ("ok", getattr(target, method)(*args))
                except Exception:
                    reply = ("error", traceback.format_exc())
            if not _answer(conn, reply) or method == "close":
                break
    finally:
        target.close()
        conn.close()


def _answer(conn, reply) -> bool:
    """Send ``reply``; False when the parent has gone (a broken pipe: it shut down while a
    request was being served), which ends the loop quietly instead of with a traceback."""
    try:
        conn.send(reply)
    except OSError:
        return False
    return True


class WorkerProcess:
    """The parent's side of one :func:`serve` subprocess (daemonic) and its pipe."""

    def __init__(self, ctx, build, args: tuple, name: str, label: str):
        self.label = label
        """Names the worker in errors, e.g. ``pybullet worker 2``."""
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=serve, args=(child, build, *args), daemon=True, name=name)
        self.proc.start()
        child.close()

    def send(self, method: str, *args) -> None:
        """Ask for ``method(*args)``; the answer comes back through :meth:`receive`."""
        try:
            self.conn.send((method, args))
        except OSError as exc:  # the pipe is broken: the worker is gone
            raise RuntimeError(f"{self.label} died (exit code {self.proc.exitcode})") from exc

    def receive(self, timeout: float | None = None):
        """The next answer's result; RuntimeError when it is an error, when the worker has
        died, or when no answer comes within ``timeout`` seconds (None: wait)."""
        try:
            if timeout is not None and not self.conn.poll(timeout):
                raise RuntimeError(f"{self.label} did not answer within {timeout:g} s")
            status, payload = self.conn.recv()
        except (EOFError, OSError) as exc:
            code = self.proc.exitcode
            raise RuntimeError(f"{self.label} died (exit code {code})") from exc
        if status != "ok":
            raise RuntimeError(f"{self.label} failed:\n{payload}")
        return payload

    def ask_to_close(self) -> None:
        """Send ``close`` (the worker may be gone already)."""
        try:
            self.conn.send(("close", ()))
        except (OSError, ValueError):
            pass

    def join(self) -> None:
        """Wait for the worker to exit (terminated after 5 s) and close the pipe."""
        self.proc.join(timeout=5.0)
        if self.proc.is_alive():
            logger.warning("%s (%s) did not exit; terminating it", self.label, self.proc.name)
            self.proc.terminate()
            self.proc.join(timeout=1.0)
        self.conn.close()

    def close(self) -> None:
        """:meth:`ask_to_close`, then :meth:`join`."""
        self.ask_to_close()
        self.join()


class SubprocessWorlds:
    """Worlds in subprocesses: worker w serves the envs ``blocks[w]`` (a :class:`WorldGroup`)."""

    def __init__(self, specs: list[WorldSpec], num_workers: int, start_method: str):
        ctx = mp.get_context(start_method)
        self.blocks = [b for b in np.array_split(np.arange(len(specs)), num_workers) if b.size]
        self.owner = np.empty(len(specs), dtype=np.int64)
        self.local = np.empty(len(specs), dtype=np.int64)
        for w, block in enumerate(self.blocks):
            self.owner[block] = w
            self.local[block] = np.arange(block.size)
        self.workers: list[WorkerProcess] = []
        try:
            for w, block in enumerate(self.blocks):
                self.workers.append(
                    WorkerProcess(
                        ctx,
                        WorldGroup,
                        ([specs[i] for i in block],),
                        name=f"miles-pybullet-{block[0]}-{block[-1]}",
                        label=f"pybullet worker {w}",
                    )
                )
            for worker in self.workers:
                try:
                    worker.receive()
                except RuntimeError as exc:
                    raise RuntimeError(
                        f"{exc}\nA pybullet worker failed to start. With the '{start_method}' "
                        "start method each worker re-imports the main script: guard its entry "
                        "point with `if __name__ == '__main__':`, or pass num_workers=0 to keep "
                        "the worlds in this process."
                    ) from exc
        except BaseException:
            self.close()
            raise
        self._out = np.zeros((len(specs), STATE_DIM))

    def step(self, arm_targets: np.ndarray, finger_targets: np.ndarray) -> np.ndarray:
        for worker, block in zip(self.workers, self.blocks, strict=True):
            sl = slice(block[0], block[-1] + 1)
            worker.send("step", arm_targets[sl], finger_targets[sl])
        for worker, block in zip(self.workers, self.blocks, strict=True):
            self._out[block[0] : block[-1] + 1] = worker.receive()
        return self._out

    def reset(self, env_ids: np.ndarray, rows: np.ndarray) -> np.ndarray:
        out = np.empty((len(env_ids), STATE_DIM))
        busy = []
        for w in np.unique(self.owner[env_ids]):
            mask = self.owner[env_ids] == w
            self.workers[w].send("reset", self.local[env_ids[mask]].tolist(), rows[mask])
            busy.append((w, mask))
        for w, mask in busy:
            out[mask] = self.workers[w].receive()
        return out

    def set_goal(self, goals: np.ndarray) -> None:
        for worker, block in zip(self.workers, self.blocks, strict=True):
            worker.send("set_goal", goals[block[0] : block[-1] + 1])
        for worker in self.workers:
            worker.receive()

    def _one(self, method: str, env_index: int, *args):
        worker = self.workers[int(self.owner[env_index])]
        worker.send(method, int(self.local[env_index]), *args)
        return worker.receive()

    def render(self, env_index: int, width: int, height: int, camera: dict) -> np.ndarray:
        return self._one("render", env_index, width, height, camera)

    def render_rgbd(self, env_index: int, intrinsics, pose):
        return self._one("render_rgbd", env_index, intrinsics, pose)

    def body_positions(self, env_index: int) -> dict:
        return self._one("body_positions", env_index)

    def close(self) -> None:
        for worker in self.workers:
            worker.ask_to_close()
        for worker in self.workers:
            worker.join()
        self.workers = []


class InProcessWorlds:
    """All worlds in this process (``num_workers=0``); the calls of :class:`SubprocessWorlds`."""

    def __init__(self, specs: list[WorldSpec], motor_filters=None):
        self.group = WorldGroup(specs)
        self.filters = motor_filters

    def step(self, arm_targets, finger_targets):
        return self.group.step(arm_targets, finger_targets, self.filters)

    def reset(self, env_ids, rows):
        return self.group.reset(env_ids.tolist(), rows)

    def set_goal(self, goals):
        self.group.set_goal(goals)

    def render(self, env_index, width, height, camera):
        return self.group.render(env_index, width, height, camera)

    def render_rgbd(self, env_index, intrinsics, pose):
        return self.group.render_rgbd(env_index, intrinsics, pose)

    def body_positions(self, env_index):
        return self.group.body_positions(env_index)

    def close(self):
        self.group.close()


def worker_count(num_workers: int | None, num_envs: int, motor_filters: list | None) -> int:
    """Subprocess workers to serve ``num_envs`` worlds (0: every world in this process).

    None picks min(num_envs, CPU count) when num_envs > 1, else 0; motor filters run in
    this process, so they take one per env and num_workers 0 (or None).
    """
    if motor_filters is not None:
        if len(motor_filters) != num_envs:
            raise ValueError(f"motor_filters: one per env ({num_envs}), got {len(motor_filters)}")
        if num_workers:
            raise ValueError("motor_filters run in this process: use num_workers=0")
        num_workers = 0
    if num_workers is None:
        num_workers = min(num_envs, os.cpu_count() or 1) if num_envs > 1 else 0
    if not isinstance(num_workers, (int, np.integer)) or num_workers < 0:
        raise ValueError(f"num_workers must be an integer >= 0, got {num_workers!r}")
    return int(min(num_workers, num_envs))


def open_worlds(
    specs: list[WorldSpec],
    num_workers: int,
    start_method: str = "spawn",
    motor_filters: list | None = None,
) -> SubprocessWorlds | InProcessWorlds:
    """The worlds of ``specs``: in ``num_workers`` subprocesses, or here when it is 0."""
    if num_workers == 0:
        return InProcessWorlds(specs, motor_filters)
    return SubprocessWorlds(specs, num_workers, start_method)
