"""Separation between arms (no ROS): each arm publishes its occupancy, the link spheres
it could still sweep while braking (:class:`Occupancy`, stamped, in the cell frame), and
each supervisor keeps its own braking envelope out of its peers' by a margin that grows
with the measured age of what it last heard.

The rule (speed and separation monitoring, ISO/TS 15066 style): a peer's braking
envelope ``age`` seconds after its stamp lies inside balls the publisher bounded in
advance, from its own state and limits: the occupancy carries, besides each sphere's
envelope radius now (``radii``), its **reach** radii for a few ages (``horizons``,
:data:`HORIZONS`): sphere ``s`` of the peer, and everything it could still sweep while
braking, stays within ``reach[k, s]`` of the published centre for every age up to
``horizons[k]``, whatever the peer's supervisor commands meanwhile (:func:`reach_radii`:
every joint keeps within its acceleration limit ``A`` and speed limit ``V``, so over
``tau`` it travels at most ``|v| tau + A tau^2``, ends at most at ``|v| + A tau``, and
that stop travels at most ``stop_travel(|v| + A tau, A)``; the sphere Lipschitz bounds
turn joint travel into centre travel). The bound follows the peer's actual speed, not
the datasheet's: a peer at rest grows by 2 mm over 4 ms where the datasheet rate
(:data:`ENVELOPE_GROWTH`, about 20 m/s) grows it by 8 cm, enough for two arms working
side by side over the table's centre to keep each other out.
Occupancy without horizons (an older publisher) grows at ``growth`` x age as before.

Each arm's supervisor treats the peer's reach balls at the measured age (the first
horizon at or above it), grown by :attr:`SeparationConfig.margin`, as keep-out spheres
for its own link spheres and braking balls, with the same braking and blending as every
other zone: a command whose envelope would enter one is limited toward the braking
command, and stopped when even that cannot stay clear. Since each arm's own envelope
stays inside what it published (the bound holds for any command its supervisor lets
through) and each keeps its envelope out of the other's published bound, the two arms'
spheres stay the margin apart. An arm's own mounted links (0, 1) are published but not
checked by itself: they cannot move, and the peer keeps clear of them.

A peer whose occupancy is missing, older than ``max_age`` (or than its last horizon) or
stamped in the future stops the arm (a controlled stop, not a latch) until fresh
occupancy arrives; occupancy from an arm that is not a configured peer, malformed or out
of order is refused and logged.
"""

from __future__ import annotations

import bisect
import json
import logging
import math
from dataclasses import dataclass, field

import numpy as np
from numba import njit

from miles_ros.safety.shaping import AMAX, JMAX, VMAX
from miles_ros.safety.stopping import stop_travel
from sims.robots import panda
from sims.robots import panda_spheres as ps

LOG = logging.getLogger("miles_ros.safety")

ENVELOPE_GROWTH = 2.0 * float(np.max(ps.sphere_lipschitz @ panda.joint_velocity_limits))
"""Bound (m/s) on how fast a published envelope sphere's surface moves outward: twice
the fastest sphere centre at the datasheet joint speeds (the centre's speed plus the
braking radius's growth, which is no faster). Used for occupancy without horizons."""

HORIZONS: tuple[float, ...] = (
    0.002, 0.004, 0.006, 0.008, 0.012, 0.016, 0.024, 0.032, 0.048, 0.064, 0.096, 0.128,
    0.192, 0.256,
)  # fmt: skip
"""Ages (s) for which an arm publishes its reach radii: from one output period at 500 Hz
to past the 0.25 s ``peer_max_age`` of the one-process graph, each at most 1.5 times the
one before (above 4 ms), so a peer never reads a bound for much more than the age it
measured."""


@dataclass(frozen=True)
class SeparationConfig:
    """Where this arm stands and how it keeps clear of its peers."""

    arm: str = "arm"
    """This arm's name (its namespace)."""
    peers: tuple[str, ...] = ()
    """Names of the arms to keep clear of; empty: a single arm, no separation check."""
    base_xyz: tuple[float, float, float] = (0.0, 0.0, 0.0)
    """This arm's base position in the cell frame (m)."""
    base_yaw: float = 0.0
    """This arm's base rotation about the cell's z axis (rad)."""
    margin: float = 0.05
    """Distance (m) kept between any two spheres of different arms."""
    max_age: float = 0.05
    """A peer's occupancy older than this (s) stops the arm until a fresh one arrives."""
    max_lead: float = 0.01
    """Occupancy stamped further than this (s) in the future is refused."""
    growth: float = ENVELOPE_GROWTH
    """How fast (m/s) a peer's envelope may grow between its stamp and now, for peer
    occupancy that carries no horizons."""
    horizons: tuple[float, ...] = HORIZONS
    """Ages (s) for which this arm publishes its reach radii (empty: none, the peers
    fall back to ``growth``)."""

    def validate(self) -> None:
        """Raise ValueError with a specific message for an unusable configuration."""
        if not self.arm or self.arm in self.peers:
            raise ValueError("arm: need a name that is not one of the peers")
        if len(set(self.peers)) != len(self.peers) or not all(self.peers):
            raise ValueError("peers: need distinct non-empty names")
        numbers = (*self.base_xyz, self.base_yaw, self.margin, self.max_age, self.growth)
        if len(self.base_xyz) != 3 or not all(map(math.isfinite, numbers)):
            raise ValueError("base_xyz, base_yaw, margin, max_age, growth must be finite")
        if self.margin < 0.0 or self.max_age <= 0.0 or self.growth < 0.0 or self.max_lead < 0:
            raise ValueError("margin, growth, max_lead must be >= 0 and max_age > 0")
        _check_horizons(self.horizons)

    def base_to_cell(self) -> tuple[np.ndarray, np.ndarray]:
        """Rotation [3, 3] and translation [3] from this arm's base frame to the cell."""
        c, s = math.cos(self.base_yaw), math.sin(self.base_yaw)
        rot = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
        return rot, np.asarray(self.base_xyz, dtype=np.float64)


@dataclass(frozen=True)
class Occupancy:
    """One arm's published occupancy (``/miles/safety/occupancy``)."""

    arm: str
    """The publishing arm."""
    stamp: float
    """When the spheres held (s, on the clock every supervisor of the cell uses)."""
    centres: np.ndarray = field(repr=False)
    """Sphere centres [S, 3] in the cell frame (m)."""
    radii: np.ndarray = field(repr=False)
    """Envelope radii [S] (m): each sphere's radius plus its braking radius."""
    horizons: tuple[float, ...] = ()
    """Ages (s) that ``reach`` is for, increasing (empty: no reach, an older publisher)."""
    reach: np.ndarray | None = field(default=None, repr=False)
    """Reach radii [K, S] (m): the envelope of sphere ``s`` stays within ``reach[k, s]``
    of its published centre for every age up to ``horizons[k]`` (:func:`reach_radii`)."""

    def to_json(self) -> str:
        """The JSON carried by the topic (std_msgs/String). Radii are rounded up to the
        micrometre and grown by one, so the rounding of the centres cannot shrink them;
        ``reach`` goes as ``reach_um``, whole micrometres."""
        data = {
            "arm": self.arm,
            "stamp": self.stamp,
            "centres": np.round(self.centres, 6).tolist(),
            "radii": _round_up(self.radii).tolist(),
        }
        if self.horizons:  # whole micrometres, rounded up: fast to write and to read
            data["horizons"] = list(self.horizons)
            data["reach_um"] = (np.ceil(self.reach * 1e6).astype(np.int64) + 1).tolist()
        return json.dumps(data)

    @staticmethod
    def from_json(text: str) -> Occupancy:
        """Parse and validate; ValueError says what is wrong."""
        try:
            data = json.loads(text)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"occupancy: not JSON ({exc})") from None
        keys = {"arm", "stamp", "centres", "radii"}
        if not isinstance(data, dict) or set(data) not in (keys, keys | {"horizons", "reach_um"}):
            raise ValueError(
                "occupancy: need exactly arm, stamp, centres, radii (+ horizons, reach_um)"
            )
        arm, stamp = data["arm"], data["stamp"]
        if not isinstance(arm, str) or not arm:
            raise ValueError("occupancy: arm must be a non-empty string")
        if isinstance(stamp, bool) or not isinstance(stamp, int | float):
            raise ValueError("occupancy: stamp must be a number")
        try:
            centres = np.asarray(data["centres"], dtype=np.float64)
            radii = np.asarray(data["radii"], dtype=np.float64)
            horizons, reach = (), None
            if "horizons" in data:
                if not isinstance(data["horizons"], list):
                    raise ValueError("occupancy: horizons must be a list of numbers")
                horizons = tuple(float(h) for h in data["horizons"])
                reach = np.asarray(data["reach_um"], dtype=np.float64) * 1e-6
        except (TypeError, ValueError) as exc:
            if str(exc).startswith("occupancy:"):
                raise
            raise ValueError(
                "occupancy: centres, radii, horizons, reach_um must be numbers"
            ) from None
        occ = Occupancy(arm, float(stamp), centres, radii, horizons, reach)
        occ.validate()
        return occ

    def validate(self) -> None:
        """Shapes [S, 3] / [S], finite numbers, non-negative radii."""
        c, r = self.centres, self.radii
        if c.ndim != 2 or c.shape[1] != 3 or r.shape != (c.shape[0],) or c.shape[0] == 0:
            raise ValueError("occupancy: centres [S, 3] and radii [S] with S > 0")
        if not (math.isfinite(self.stamp) and np.all(np.isfinite(c)) and np.all(np.isfinite(r))):
            raise ValueError("occupancy: non-finite number")
        if np.any(r < 0.0):
            raise ValueError("occupancy: negative radius")
        if not self.horizons:
            if self.reach is not None:
                raise ValueError("occupancy: reach without horizons")
            return
        try:
            _check_horizons(self.horizons)
        except ValueError as exc:
            raise ValueError(f"occupancy: {exc}") from None
        reach = self.reach
        if reach is None or reach.shape != (len(self.horizons), r.shape[0]):
            raise ValueError("occupancy: reach [K, S] for K horizons and S spheres")
        if not np.all(np.isfinite(reach)):
            raise ValueError("occupancy: non-finite number")
        if np.any(reach < r[None, :] - 1e-9) or np.any(np.diff(reach, axis=0) < 0.0):
            raise ValueError("occupancy: reach below the envelope or shrinking with age")


def envelope(js: np.ndarray, q: np.ndarray, v: np.ndarray, a: np.ndarray) -> np.ndarray:
    """Envelope radii [S]: each link sphere's radius plus its braking radius for the
    joint state (``js`` the supervisor's per-joint kernel state for the limits)."""
    travel = np.array([stop_travel(v[j], a[j], js[j, AMAX], js[j, JMAX]) for j in range(7)])
    return ps.sphere_radii + ps.sphere_lipschitz @ travel


def reach_radii(js: np.ndarray, v: np.ndarray, horizons: tuple[float, ...]) -> np.ndarray:
    """Reach radii [K, S]: how far from its centre at ``q`` sphere ``s``'s braking
    envelope may be at any age up to ``horizons[k]``, for a joint velocity ``v`` now and
    the supervisor's kernel limits ``js`` (any acceleration within ``A``, any jerk).

    Per joint over ``tau``, in the supervisor's discrete steps ``v' = v + a' h``,
    ``q' = q + v' h`` with ``|a'| <= A``, ``|v'| <= V``: it travels at most
    ``min(|v| tau + A tau^2, V tau)`` (``|v| tau + A tau (tau + h) / 2`` with ``h <=
    tau``), ends at a speed of at most ``min(|v| + A tau, V)`` with an acceleration of at
    most ``A``, and that stop travels at most ``stop_travel(min(|v| + A tau, V), A)`` (the
    stop's travel grows with speed and with acceleration along the motion:
    ``tests/safety/test_safety_separation.py`` checks it). Non-decreasing in ``k``."""
    speed = np.abs(np.asarray(v, dtype=np.float64))
    taus = np.asarray(horizons, dtype=np.float64)
    travel = _reach_travel(
        speed, js[:7, AMAX].copy(), js[:7, JMAX].copy(), js[:7, VMAX].copy(), taus
    )
    out = ps.sphere_radii[None, :] + travel @ ps.sphere_lipschitz.T
    return np.maximum.accumulate(out, axis=0) if len(horizons) else out


@njit(cache=True)
def _reach_travel(speed, amax, jmax, vmax, taus):
    """Per horizon and joint [K, 7]: the joint travel bound of :func:`reach_radii`."""
    out = np.empty((taus.shape[0], speed.shape[0]))
    for k in range(taus.shape[0]):
        tau = taus[k]
        for j in range(speed.shape[0]):
            top = min(speed[j] + amax[j] * tau, vmax[j])
            moved = min(speed[j] * tau + amax[j] * tau * tau, vmax[j] * tau)
            out[k, j] = moved + stop_travel(top, amax[j], amax[j], jmax[j])
    return out


def occupancy(
    config: SeparationConfig, stamp: float, js: np.ndarray, q: np.ndarray, v, a
) -> Occupancy:
    """This arm's occupancy (cell frame) for its output state ``q``/``v``/``a``, with
    its reach radii for ``config.horizons``."""
    rot, trans = config.base_to_cell()
    centres = ps.link_spheres(q)[0] @ rot.T + trans
    radii = envelope(js, q, v, a)
    horizons = tuple(config.horizons)
    reach = np.maximum(reach_radii(js, v, horizons), radii[None, :]) if horizons else None
    return Occupancy(config.arm, float(stamp), centres, radii, horizons, reach)


class PeerMonitor:
    """The latest occupancy of every peer, and the keep-out spheres they imply now."""

    def __init__(self, config: SeparationConfig) -> None:
        config.validate()
        self.config = config
        self.latest: dict[str, Occupancy] = {}
        """Newest accepted occupancy per peer."""
        self.refused = 0
        """Occupancy messages refused (unknown arm, malformed, out of order, future)."""
        self.ages: list[float] = []
        """Measured age (s) of the peer data at each :meth:`keepout` (for reports)."""

    def offer(self, occ: Occupancy | str, now: float) -> bool:
        """Accept a peer's occupancy (or its JSON). False (logged) when refused."""
        try:
            if isinstance(occ, str):
                occ = Occupancy.from_json(occ)
            occ.validate()
        except ValueError as exc:
            return self._refuse(str(exc))
        if occ.arm not in self.config.peers:
            return self._refuse(f"occupancy from {occ.arm!r}, not a peer of {self.config.arm!r}")
        if occ.stamp > now + self.config.max_lead:
            return self._refuse(
                f"occupancy from {occ.arm!r} stamped {occ.stamp - now:.3f} s ahead"
            )
        held = self.latest.get(occ.arm)
        if held is not None and occ.stamp <= held.stamp:
            return self._refuse(f"occupancy from {occ.arm!r} out of order")
        self.latest[occ.arm] = occ
        return True

    def keepout(self, now: float) -> tuple[np.ndarray, str]:
        """Keep-out spheres [k, 4] (centre, radius) in this arm's base frame, and why the
        arm must stop instead ('' when every peer is fresh)."""
        cfg = self.config
        rot, trans = cfg.base_to_cell()
        parts = []
        for peer in cfg.peers:
            occ = self.latest.get(peer)
            if occ is None:
                return np.zeros((0, 4)), f"no occupancy from peer {peer!r}"
            age = now - occ.stamp
            if age > cfg.max_age:
                return np.zeros((0, 4)), f"occupancy from peer {peer!r} is {age:.3f} s old"
            self.ages.append(age)
            if occ.horizons:
                k = bisect.bisect_left(occ.horizons, age)  # first horizon >= age
                if k == len(occ.horizons):
                    why = f"occupancy from peer {peer!r} is {age:.3f} s old, past its horizon"
                    return np.zeros((0, 4)), why
                radii = occ.reach[k] + cfg.margin
            else:
                radii = occ.radii + cfg.margin + cfg.growth * max(age, 0.0)
            centres = (occ.centres - trans) @ rot  # cell -> this arm's base frame
            parts.append(np.column_stack([centres, radii]))
        spheres = np.vstack(parts) if parts else np.zeros((0, 4))
        return spheres, ""

    def _refuse(self, why: str) -> bool:
        self.refused += 1
        LOG.warning("peer occupancy refused: %s", why)
        return False


def _check_horizons(horizons: tuple[float, ...]) -> None:
    hs = tuple(horizons)
    if len(hs) > 32 or not all(isinstance(h, float | int) and math.isfinite(h) for h in hs):
        raise ValueError("horizons: at most 32 finite numbers")
    if any(h <= 0.0 for h in hs) or any(b <= a for a, b in zip(hs[:-1], hs[1:], strict=True)):
        raise ValueError("horizons: positive and increasing")


def _round_up(x: np.ndarray) -> np.ndarray:
    """Radii for the JSON: up to the micrometre, plus one (the centres' rounding)."""
    return np.ceil(np.asarray(x) * 1e6) / 1e6 + 1e-6


def separation(a: Occupancy, b: Occupancy, skip_a: np.ndarray | None = None) -> float:
    """Smallest surface distance (m) between the spheres of ``a`` and ``b`` (negative
    when they overlap); ``skip_a`` masks spheres of ``a`` out."""
    ca, ra = a.centres, a.radii
    if skip_a is not None:
        ca, ra = ca[~skip_a], ra[~skip_a]
    d = np.linalg.norm(ca[:, None, :] - b.centres[None, :, :], axis=2)
    return float(np.min(d - ra[:, None] - b.radii[None, :]))


def decide(candidate: Occupancy, braking: Occupancy, keepout: np.ndarray, why: str) -> str:
    """The separation decision for one output period, in the cell or base frame of
    ``keepout`` ([k, 4], as :meth:`PeerMonitor.keepout` gives it): 'stop' when a peer is
    stale/missing (``why``) or even the braking envelope enters a keep-out sphere;
    'limited' when only the candidate does (the supervisor blends toward braking);
    'allowed' otherwise. Mounted links are not this arm's to move: not counted."""
    if why:
        return "stop"
    if keepout.shape[0] == 0:
        return "allowed"
    zone = Occupancy("peers", 0.0, keepout[:, :3], keepout[:, 3])
    mounted = ps.link_mask(ps.MOUNTED_LINKS)
    if separation(candidate, zone, mounted) >= 0.0:
        return "allowed"
    if separation(braking, zone, mounted) >= 0.0:
        return "limited"
    return "stop"
