"""The QoS profiles of the Miles graph, in one place (STYLE.md 4: QoS on purpose).

Every node, client, probe and recorder takes its profile from here: sensor streams
best-effort with a small depth, commands and events reliable, state that late joiners
must see reliable + transient-local. The reader profiles are the same policies with a
deeper queue, for clients that must not lose a burst while they wait (the demo, tests).
"""

from __future__ import annotations

from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy


def keep_last(depth: int, reliable: bool = True, latched: bool = False) -> QoSProfile:
    """The newest ``depth`` messages: reliable (else best effort), transient-local for late
    joiners when ``latched`` (else volatile). Every profile below is one."""
    return QoSProfile(
        history=HistoryPolicy.KEEP_LAST,
        depth=depth,
        reliability=ReliabilityPolicy.RELIABLE if reliable else ReliabilityPolicy.BEST_EFFORT,
        durability=DurabilityPolicy.TRANSIENT_LOCAL if latched else DurabilityPolicy.VOLATILE,
    )


SENSOR_QOS = keep_last(5, reliable=False)
"""Sensor streams (/joint_states): best effort, small depth (a reliable publisher still
connects). The same policies as rclpy's ``qos_profile_sensor_data``."""
COMMAND_QOS = keep_last(10)
"""Commands, requests, statuses and events: reliable."""
LATCHED_QOS = keep_last(1, latched=True)
"""State that late joiners must see (e-stop state, plan, manager status): reliable +
transient-local."""
IMAGE_QOS = keep_last(1)
"""Camera frames (one per capture request): reliable, only the newest kept."""
READER_QOS = keep_last(50)
"""A client's reader of reliable streams (statuses, events): :data:`COMMAND_QOS` with a
deeper queue."""
LATCHED_READER_QOS = keep_last(50, latched=True)
"""A client's reader of latched state that must also see what follows (``miles goal``):
the latest message, then every later one."""
OCCUPANCY_QOS = keep_last(10, reliable=False)
"""The arms' occupancy (``/miles/safety/occupancy``, one shared topic, every output
period): best effort and volatile like a sensor stream, since a lost or late message is
caught by its stamp (a stale peer stops the arm) and a resent old one is worth nothing.
This depth is for listeners (probes, tests); a safety node reads with
:func:`occupancy_reader_qos`."""


def occupancy_reader_qos(arms: int) -> QoSProfile:
    """A safety node's reader of ``/miles/safety/occupancy`` in a cell of ``arms`` arms:
    :data:`OCCUPANCY_QOS` with depth ``arms``. Every arm writes into the one reader
    queue and the executor takes one message per wake-up, so a deeper queue is read
    oldest-first ten messages behind (in the one-process graph on 2 loaded cores a
    peer's occupancy was 26-31 ms old at the median with depth 10); with one slot per
    arm the newest of each is normally there, and a dropped one only ages the peer's."""
    return QoSProfile(
        history=HistoryPolicy.KEEP_LAST,
        depth=max(1, int(arms)),
        reliability=ReliabilityPolicy.BEST_EFFORT,
        durability=DurabilityPolicy.VOLATILE,
    )
