"""Trajectory requests: a request that carries the joints' velocities is a point of a
trajectory, tracked in time between its points (miles_ros.safety.inputs._reference);
without them it is a target, approached and stopped at. A feasible trajectory is followed
closely and without interventions; the same positions as targets lag behind and are shaped.
The limits hold for either kind (test_safety_properties, with arbitrary velocities)."""

import numpy as np
import pytest
from safety_harness import HOME, NAMES, PERIOD, make_run

from miles_ros.safety import SafetyConfig
from miles_ros.safety.requests import JointRequest

STREAM_PERIOD = 0.04
"""A skill's control period (25 Hz)."""
DISTANCE = np.array([0.6, -0.5, 0.4, 0.5, -0.6, 0.5, 0.6])
"""rad: the move, every joint at once."""
DURATION = 1.4
"""s: a minimum-jerk move of DISTANCE (peak speed 1.875 x 0.6 / 1.4 = 0.8 rad/s)."""


def min_jerk(t: float) -> tuple[np.ndarray, np.ndarray]:
    """(position, velocity) of the move at ``t`` (at rest before and after)."""
    tau = min(max(t / DURATION, 0.0), 1.0)
    s = tau**3 * (10 - 15 * tau + 6 * tau**2)
    ds = 30 * tau**2 * (1 - tau) ** 2 / DURATION
    return HOME + s * DISTANCE, ds * DISTANCE


def play(with_velocities: bool) -> tuple:
    """Stream the move at 25 Hz, each point stamped one period ahead; returns the run and
    the largest distance (rad) of the output from the move at the output's time."""
    run = make_run(SafetyConfig(fault_violations=0))
    run.tick()
    start = run.t
    worst = 0.0
    next_request = run.t
    while run.t - start < DURATION + 0.5:
        if run.t >= next_request - 1e-9:
            q, v = min_jerk(run.t - start + STREAM_PERIOD)
            vel = list(v) if with_velocities else None
            assert run.request(q, stamp_offset=STREAM_PERIOD, velocities=vel)
            next_request += STREAM_PERIOD
        run.tick()
        worst = max(worst, float(np.max(np.abs(run.positions[-1] - min_jerk(run.t - start)[0]))))
    return run, worst


def test_a_feasible_trajectory_is_tracked_in_time_without_interventions():
    run, worst = play(with_velocities=True)
    assert run.sup.audit.count == 0
    assert worst < 2e-3  # within 2 mrad of the move all along
    assert np.max(np.abs(run.positions[-1] - (HOME + DISTANCE))) < 1e-3
    # the same positions as targets: each approached and stopped at, so the output lags
    # the stream by its braking distance, and the supervisor shapes it off schedule
    run, worst = play(with_velocities=False)
    assert worst > 0.01
    assert run.sup.audit.count > 20


def test_a_trajectory_that_stops_coming_ends_at_rest_near_its_last_point():
    """After the last point the reference runs on at its velocity (a late point) until the
    watchdog stops the silent stream: the output comes to rest a little past the last
    point and holds."""
    run = make_run(SafetyConfig(fault_violations=0))
    run.tick()
    v = np.full(7, 0.2)
    for k in range(10):  # a constant-velocity stream
        q = HOME + v * (k + 1) * STREAM_PERIOD
        assert run.request(q, stamp_offset=STREAM_PERIOD, velocities=list(v))
        for _ in range(round(STREAM_PERIOD / PERIOD)):
            run.tick()
    last = HOME + v * 10 * STREAM_PERIOD
    for _ in range(150):
        run.tick()
    assert np.all(np.abs(run.velocity[-1]) < 1e-6) and run.sup.mode == "hold"
    past = run.positions[-1] - last  # on in the direction of motion, then stopped
    assert np.all(past > 0.0) and np.max(past) < 0.2 * (0.1 + 0.05)


@pytest.mark.parametrize(
    ("velocities", "kind"),
    [([0.1] * 5, "wrong_length"), ([0.1] * 6 + [float("nan")], "non_finite")],
)
def test_a_request_with_unusable_velocities_is_refused(velocities, kind):
    run = make_run()
    run.tick()
    request = JointRequest(NAMES, list(HOME), run.t, velocities)
    assert not run.sup.submit(request, run.t)
    assert run.sup.stats[f"rejected:{kind}"] == 1
