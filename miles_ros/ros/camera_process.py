"""The sim camera's own process: it renders, noises, encodes and publishes the RGB-D frames,
so the sim node's process never holds an image (its 250 Hz physics, and in ``miles up`` the
safety and skill loops, share that interpreter).

The sim node keeps what is about time and the world (:class:`~miles_ros.ros.sim_camera.
SimCamera`: the rate, the drops, the world read at each exposure) and sends each frame's
exposure to this process over a pipe: a few hundred bytes (the joints, the cubes' poses,
the stamp, when to publish). Here, :data:`RENDER_WORKERS` render processes
(:class:`~miles_ros.runtime.scene_world.CameraProcess`, each its own copy of the scene)
take the frames as they come, whichever is free: a 640x480 frame takes ~55 ms of
TinyRenderer (the arms drawn as :data:`sims.camera.CAMERA_ARM_MESHES`) and ~9 ms of
noise on one core.
The frames are published by a node of this process (``sim_camera``, the sim node's
namespace) in the order they were exposed, each ``latency_s`` after its exposure (never
earlier), on the RealSense topics with the same QoS as before. The process runs at a lower
CPU priority than the sim (:data:`CAMERA_NICE`), and with Fast DDS a shared-memory segment
that holds several frames (:func:`camera_environment`).

Protocol (pickled tuples over a :mod:`multiprocessing` connection, the child's end passed
as a file descriptor): the parent sends ``("setup", dict)`` first, then ``("frame", seq,
joints, poses, stamp, publish_at)`` (``publish_at``: :func:`time.monotonic`, one clock for
both processes on a host) and finally ``("close",)``; the child answers ``("ready",)``,
then per frame ``("rendered", seq)`` (a renderer is free again), and ``("published",
seq)`` or ``("failed", seq, reason)``. A closed pipe (the sim died, even by SIGKILL) ends
the child, and its renderers see theirs close: nothing outlives the sim.

Run as ``python -m miles_ros.ros.camera_process FD`` by :class:`CameraPublisher`.
"""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
import time
import traceback
from multiprocessing.connection import Connection, Pipe
from pathlib import Path

from miles_ros.ros.processes import SOURCE_ROOT
from sims.camera import CAMERA_ARM_MESHES

RENDER_WORKERS = 2
"""Render processes taking frames in turn (two: each renders at most every other frame,
~65 ms of a 200 ms slot at 10 Hz, so a slow frame does not hold up the next)."""
CAMERA_NICE = 5
"""How much lower than the sim's the camera process's CPU priority is (``os.nice``; its
renderers inherit it): on a busy machine the 250 Hz loops come first, and the camera's
rate drops (its stamps stay true) instead of the loops' periods stretching."""
CLOSE_TIMEOUT_S = 10.0
"""How long :meth:`CameraPublisher.close` waits for the process to exit (s)."""


FASTDDS_PROFILE = Path(__file__).with_name("camera_fastdds.xml")
"""The camera process's Fast DDS profile: a 16 MB shared-memory segment (see the file)."""
PROFILE_VARIABLES = ("FASTDDS_DEFAULT_PROFILES_FILE", "FASTRTPS_DEFAULT_PROFILES_FILE")


def camera_environment(environ) -> dict[str, str]:
    """The camera process's environment: this checkout first on ``PYTHONPATH`` and, with
    Fast DDS (the default RMW) and no profile of the user's own, :data:`FASTDDS_PROFILE`:
    a frame's images cross to a reader in another process through Fast DDS's shared
    memory, whose default 512 kB segment cannot hold them while a busy best-effort reader
    catches up (two frames in three were lost to perception_node on 2 loaded cores)."""
    env = dict(environ)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(SOURCE_ROOT), env.get("PYTHONPATH", "")) if p
    )
    fast_dds = env.get("RMW_IMPLEMENTATION", "rmw_fastrtps_cpp") == "rmw_fastrtps_cpp"
    if fast_dds and not any(env.get(name) for name in PROFILE_VARIABLES):
        env["FASTDDS_DEFAULT_PROFILES_FILE"] = str(FASTDDS_PROFILE)
    return env


class CameraPublisher:
    """The sim node's end of the camera process (see the module docstring).

    ``setup``: ``scene_file``, ``domain_id``, ``namespace``, ``topics`` (colour, depth,
    info), ``frame_id``, ``intrinsics``, ``true_pose``, ``noise``, ``seed`` (the noise
    streams', one per renderer). ``on_message(message)`` gets each answer on a thread of
    this object."""

    def __init__(self, setup: dict, on_message) -> None:
        self.conn, child = Pipe()
        env = camera_environment(os.environ)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", __name__, str(child.fileno())],
            env=env,
            pass_fds=(child.fileno(),),
            process_group=0,  # a Ctrl-C reaches the sim, which closes this
        )
        child.close()
        self.send_lock = threading.Lock()
        self.on_message = on_message
        self.send(("setup", setup))
        self.reader = threading.Thread(target=self._read, daemon=True, name="sim_rgbd_in")
        self.reader.start()

    def send(self, message: tuple) -> bool:
        """Send ``message``; False when the process is gone."""
        try:
            with self.send_lock:
                self.conn.send(message)
        except (OSError, ValueError):
            return False
        return True

    def _read(self) -> None:
        while True:
            try:
                message = self.conn.recv()
            except (EOFError, OSError):
                self.on_message(("exited", self.proc.poll()))
                return
            self.on_message(message)

    def close(self) -> None:
        """Ask the process to finish (a frame in work is dropped) and wait for it."""
        self.send(("close",))
        try:
            self.proc.wait(CLOSE_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.reader.join(timeout=CLOSE_TIMEOUT_S)
        self.conn.close()


class _Child:
    """This process's side: the renderers, the ordered outbox and the publishing node."""

    def __init__(self, conn: Connection, setup: dict) -> None:
        import rclpy
        from rclpy.signals import SignalHandlerOptions
        from sensor_msgs.msg import CameraInfo, Image

        from miles_ros.ros.qos import IMAGE_QOS
        from miles_ros.runtime.scene_world import CameraProcess

        self.conn, self.setup = conn, setup
        self.send_lock = threading.Lock()
        self.context = rclpy.Context()
        rclpy.init(
            context=self.context,
            domain_id=setup["domain_id"],
            signal_handler_options=SignalHandlerOptions.NO,
        )
        kwargs = {"namespace": setup["namespace"]} if setup["namespace"] else {}
        self.node = rclpy.create_node("sim_camera", context=self.context, **kwargs)
        color, depth, info = setup["topics"]
        self.publishers = (
            self.node.create_publisher(CameraInfo, info, IMAGE_QOS),
            self.node.create_publisher(Image, depth, IMAGE_QOS),
            self.node.create_publisher(Image, color, IMAGE_QOS),
        )
        self.renderers = [
            CameraProcess(setup["scene_file"], arm_meshes=CAMERA_ARM_MESHES)
            for _ in range(RENDER_WORKERS)
        ]
        self.jobs: queue.Queue = queue.Queue()
        """Frames to render, taken by whichever renderer is free."""
        self.outbox: dict[int, tuple[float, tuple | None]] = {}
        self.outbox_ready = threading.Condition()
        self.next_seq = 0
        self.stopping = threading.Event()
        self.threads = [
            threading.Thread(target=self._render, args=(k,), daemon=True, name=f"render{k}")
            for k in range(RENDER_WORKERS)
        ]
        self.threads.append(threading.Thread(target=self._send, daemon=True, name="publish"))
        for thread in self.threads:
            thread.start()

    def answer(self, message: tuple) -> None:
        try:
            with self.send_lock:
                self.conn.send(message)
        except (OSError, ValueError):  # the sim is gone: the main loop ends too
            self.stopping.set()

    def run(self) -> None:
        """Take the sim's frames until it closes the pipe or says ``close``."""
        self.answer(("ready",))
        while not self.stopping.is_set():
            try:
                message = self.conn.recv()
            except (EOFError, OSError):
                break
            if message[0] == "close":
                break
            self.jobs.put(message[1:])

    def _render(self, k: int) -> None:
        from miles_ros.perception.images import encode_depth_mm
        from miles_ros.ros.sim_camera import camera_info_message, image_message

        s = self.setup
        renderer = self.renderers[k]
        seed = (*s["seed"], k)  # each renderer's own noise stream
        while True:
            job = self.jobs.get()
            if job is None:
                return
            seq, joints, poses, stamp, publish_at = job
            try:
                rgb, depth = renderer.render_rgbd(
                    joints, poses, s["intrinsics"], s["true_pose"], s["noise"], seed
                )
                messages = (
                    camera_info_message(s["intrinsics"], stamp, s["frame_id"]),
                    image_message(encode_depth_mm(depth), "16UC1", stamp, s["frame_id"]),
                    image_message(rgb, "rgb8", stamp, s["frame_id"]),
                )
            except Exception:
                messages = None
                self.answer(("failed", seq, traceback.format_exc(limit=3)))
            self.answer(("rendered", seq))
            with self.outbox_ready:
                self.outbox[seq] = (publish_at, messages)
                self.outbox_ready.notify_all()

    def _send(self) -> None:
        """Publish the frames in their order, each at its time (never earlier)."""
        while True:
            with self.outbox_ready:
                self.outbox_ready.wait_for(
                    lambda: self.next_seq in self.outbox or self.stopping.is_set()
                )
                if self.stopping.is_set():
                    return
                publish_at, messages = self.outbox.pop(self.next_seq)
            wait = publish_at - time.monotonic()
            if wait > 0 and self.stopping.wait(wait):
                return
            if messages is not None:
                for publisher, msg in zip(self.publishers, messages, strict=True):
                    publisher.publish(msg)
                self.answer(("published", self.next_seq))
            self.next_seq += 1

    def close(self) -> None:
        import rclpy

        self.stopping.set()
        with self.outbox_ready:
            self.outbox_ready.notify_all()
        for _ in self.renderers:
            self.jobs.put(None)
        for thread in self.threads:
            thread.join(timeout=CLOSE_TIMEOUT_S)  # a frame being rendered finishes first
        for renderer in self.renderers:
            renderer.close()
        self.node.destroy_node()
        rclpy.try_shutdown(context=self.context)


def main(argv: list[str] | None = None) -> int:
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the sim stops this process, in order
    os.nice(CAMERA_NICE)
    fd = int((argv if argv is not None else sys.argv[1:])[0])
    conn = Connection(fd)
    try:
        kind, setup = conn.recv()
    except (EOFError, OSError):
        return 0
    if kind != "setup":
        raise ValueError(f"the camera process expected its setup first, not {kind!r}")
    child = _Child(conn, setup)
    try:
        child.run()
    finally:
        child.close()
        conn.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
