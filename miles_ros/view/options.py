"""The view's options and their defaults, light to import (no Rerun): what ``miles up``
needs to parse its flags and decide what to start."""

from __future__ import annotations

DEFAULT_RATE_HZ = 30.0
"""How often the view draws the arms (updates per second)."""
HOST = "127.0.0.1"
"""The view's servers listen on loopback."""
DEFAULT_WEB_PORT = 9090
"""Rerun's default web viewer port (``--view-port``)."""
DEFAULT_GRPC_PORT = 9876
"""Rerun's default gRPC port (the native viewer's)."""
RRD_SUFFIX = ".rrd"
"""``--record`` files with this suffix are Rerun recordings (others: MCAP)."""


def is_rerun_recording(path: str | None) -> bool:
    """Whether ``--record PATH`` asks for a Rerun recording (``.rrd``)."""
    return bool(path) and str(path).lower().endswith(RRD_SUFFIX)
