"""The gripper's finger offset measured on the cell (``miles calibrate gripper``): the arm
held still, the empty gripper commanded closed for
:data:`policies.calibration.CLOSE_PERIODS` control periods, its reading turned into an
offset by :func:`policies.calibration.measured_offset` (the one place that maths lives),
written into a scene file's ``gripper.calibration`` (:class:`sims.scene.GripperCalibration`).

In simulation the cell is the scene's PyBullet world (:class:`~miles_ros.runtime.
scene_world.SceneWorld`, what ``sim_node`` runs), whose gripper reads the scene's
``gripper.finger_reading`` wide. A skill whose card has
``calibration.finger_width.measure: closed_gripper`` reads its finger width through the
measured offset in the skill node (:func:`scene_measurements`). Where the scene has none,
the skill node measures at bring-up on the robot it drives (:class:`BringUpMeasurement`):
the empty gripper closed through its own command path (so the safety supervisor sees
every command), the reading taken once it settles, with the same :func:`measured_offset`.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np

from miles_ros.interfaces import (
    CALIBRATION_MEASURED,
    CALIBRATION_MEASURING,
    CALIBRATION_OPENING,
    CALIBRATION_REFUSED,
    CALIBRATION_SCENE,
    CALIBRATION_WAITING,
)
from miles_ros.runtime.actions import JointTargets
from miles_ros.runtime.observation import JointReading
from policies.calibration import (
    CLOSE_PERIODS,
    FIELDS,
    MEASURE_RESOLUTION_M,
    MEASURE_STEP_M,
    measured_offset,
)
from sims.control import FINGER_OPEN
from sims.scene import Scene

logger = logging.getLogger(__name__)

FIELD = "finger_width"
"""The observation field whose offset the closed gripper measures."""


@dataclass(frozen=True)
class GripperMeasurement:
    """One closed-gripper measurement."""

    reading_m: float
    """What the closed empty gripper read (m, both fingers)."""
    offset_m: float
    """The offset it gives (:func:`policies.calibration.measured_offset`)."""
    periods: int
    """Control periods the gripper was commanded closed."""


def close_period_s() -> float:
    """The control period (s) the empty gripper is commanded closed at: pick_place's, the
    task that grasps."""
    import sims

    return float(sims.get_task("pick_place").CONFIG.control_dt)


def measure_in_sim(
    scene: Scene, periods: int = CLOSE_PERIODS, control_dt: float | None = None
) -> GripperMeasurement:
    """Close the empty gripper of the scene's (first) arm in its PyBullet world for
    ``periods`` control periods of ``control_dt`` s (None: pick_place's, the task that
    grasps), the arm held where it starts, and read it as ``sim_node`` publishes it (the
    scene's ``gripper.finger_reading`` on it)."""
    from miles_ros.runtime.scene_world import SceneWorld

    if control_dt is None:
        control_dt = close_period_s()

    if periods < 1:
        raise ValueError(f"periods must be >= 1, got {periods}")
    world = SceneWorld(scene)
    try:
        world.set_targets(arm=np.array(world.arm_target), finger=0.0)
        per_period = max(1, round(control_dt / world.physics_dt))
        for _ in range(periods):
            world.step(per_period)
        reading = world.finger_reading()
    finally:
        world.close()
    return GripperMeasurement(reading, measured_offset(FIELD, reading), periods)


def gripper_section(measurement: GripperMeasurement, date: str, command: str) -> dict:
    """``gripper.calibration`` of a scene file (the keys :func:`sims.scene.load_scene`
    reads), plain YAML types."""
    return {
        "finger_offset_m": float(measurement.offset_m),
        "periods": int(measurement.periods),
        "date": date,
        "command": command,
    }


def scene_measurements(scene: Scene) -> dict[str, float]:
    """The offsets (m) by observation field that the scene's cell has measured (its
    ``gripper.calibration``), as :meth:`policies.runtime.SkillPolicy.use_measured` takes
    them; {} when nothing was measured."""
    calibration = scene.gripper.calibration
    return {} if calibration is None else {FIELD: float(calibration.finger_offset_m)}


SETTLE_TIMEOUT_S = 3.0
"""How long (s) after its :data:`CLOSE_PERIODS` closed periods the skill node's bring-up
measurement waits for the reading to settle before it refuses the cards that wait for it."""

WAIT_TIMEOUT_S = 30.0
"""How long (s, from its first control period) the skill node's bring-up measurement waits
for its first joint state and the safety state before it refuses the cards that wait for
it (skill_node's ``measure_wait_s``; the node's clock, which runs its timer too)."""


class BringUpMeasurement:
    """The skill node's closed-gripper measurement at bring-up, period by period (no ROS).

    Once the node has a joint state and the safety state (not latched), every control
    period commands the arm to hold where its command stood and each finger to 0 (closed),
    for at least :data:`CLOSE_PERIODS` periods (as ``miles calibrate gripper``); then the
    reading (the joint state's finger width, both fingers) is taken once two consecutive
    readings (distinct stamps) lie within :data:`~policies.calibration.MEASURE_STEP_M`
    (0.1 mm), and :func:`measured_offset` turns it into the offset. Then the fingers are
    commanded open (:data:`sims.control.FINGER_OPEN`) for :data:`CLOSE_PERIODS` periods.
    Refused (:attr:`refusal`, and no offset): no joint state or no safety state
    ``wait_s`` after its first period (:data:`WAIT_TIMEOUT_S`), the e-stop latched before
    the reading, a reading that has not settled :data:`SETTLE_TIMEOUT_S` after the closed
    periods, or a closed reading wider than the largest offset a card takes (plus the 0.5
    mm resolution): the gripper did not close (a supervisor that held it). It runs once
    per node start: a measured offset is the gripper's and stays through an e-stop and
    its reset; a refused one stays refused until the node starts again."""

    def __init__(
        self,
        skills: list[str],
        period_s: float,
        periods: int = CLOSE_PERIODS,
        wait_s: float = WAIT_TIMEOUT_S,
    ):
        if periods < 1:
            raise ValueError(f"periods must be >= 1, got {periods}")
        if not wait_s > 0:
            raise ValueError(f"wait_s must be > 0, got {wait_s}")
        self.wait_s = float(wait_s)
        """How long (s) it waits for the first joint state and safety state."""
        self.waiting_since: float | None = None
        """The time of its first control period (where :attr:`wait_s` counts from)."""
        self.skills = list(skills)
        """The skills whose cards wait for the measurement."""
        self.period_s = float(period_s)
        self.periods = int(periods)
        self.state = CALIBRATION_WAITING
        self.hold: np.ndarray | None = None
        """Where the arm is held (its command when the measurement started)."""
        self.closed = 0
        """Control periods commanded closed so far."""
        self.opened = 0
        self.started: float | None = None
        self.last: tuple[float, float] | None = None
        """(stamp, reading) of the latest distinct joint state after the closed periods."""
        self.measurement: GripperMeasurement | None = None
        self.refusal = ""
        self.changed = True
        """Set when :meth:`report` changed (the node publishes it and clears this)."""

    @property
    def finished(self) -> bool:
        return self.state in (CALIBRATION_MEASURED, CALIBRATION_REFUSED)

    @property
    def holds_arm(self) -> bool:
        """Whether it commands the arm now (closing or opening)."""
        return self.state in (CALIBRATION_MEASURING, CALIBRATION_OPENING)

    def tick(
        self,
        joints: JointReading | None,
        hold: np.ndarray | None,
        estop: str | None,
        now: float,
    ) -> JointTargets | None:
        """One control period: the targets to publish (None: none). ``joints``: the latest
        joint state (None: none yet); ``hold``: the arm's command now (where it is held;
        None: no state yet); ``estop``: None while the safety state is not known, '' when
        not latched, else why it latched."""
        if self.finished:
            return None
        if self.state == CALIBRATION_WAITING:
            if self.waiting_since is None:
                self.waiting_since = now
            if joints is None or hold is None or estop is None:
                if now - self.waiting_since > self.wait_s:
                    missing = [
                        what
                        for what, absent in (
                            ("joint state", joints is None or hold is None),
                            ("safety state", estop is None),
                        )
                        if absent
                    ]
                    return self._refuse(
                        f"no {' and no '.join(missing)} within {self.wait_s:.1f} s of bring-up"
                    )
                return None
            if estop:
                return self._refuse(f"e-stop latched ({estop}) before the gripper was measured")
            self.state, self.started, self.changed = CALIBRATION_MEASURING, now, True
            self.hold = np.array(hold, dtype=np.float64)
        if self.state == CALIBRATION_MEASURING:
            if estop:
                return self._refuse(f"e-stop latched ({estop}) while the gripper closed")
            if self.closed >= self.periods and self._settled(joints, now):
                if self.finished:
                    return None
                self.state, self.changed = CALIBRATION_OPENING, True
            else:
                self.closed += 1
                return JointTargets(self.hold.copy(), 0.0)
        # opening: the reading is taken; the fingers open again (an e-stop stops that)
        if estop or self.opened >= self.periods:
            self.state, self.changed = CALIBRATION_MEASURED, True
            return None
        self.opened += 1
        return JointTargets(self.hold.copy(), float(FINGER_OPEN))

    def _settled(self, joints: JointReading, now: float) -> bool:
        """Whether the reading has settled (then taken); refuses past the timeout."""
        reading = (float(joints.stamp), float(joints.finger_width))
        last, self.last = self.last, reading
        if (
            last is not None
            and reading[0] != last[0]
            and abs(reading[1] - last[1]) <= MEASURE_STEP_M
        ):
            hi = FIELDS[FIELD][1][1]
            if reading[1] > hi + MEASURE_RESOLUTION_M:
                self._refuse(
                    f"the closed gripper read {reading[1] * 1e3:.1f} mm, wider than the "
                    f"largest offset a card takes ({hi * 1e3:.0f} mm): it did not close"
                )
                return True
            offset = measured_offset(FIELD, reading[1])
            self.measurement = GripperMeasurement(reading[1], offset, self.closed)
            return True
        timeout = self.periods * self.period_s + SETTLE_TIMEOUT_S
        if self.started is not None and now - self.started > timeout:
            shown = (
                "none"
                if last is None
                else f"{last[1] * 1e3:.2f} mm then {reading[1] * 1e3:.2f} mm"
            )
            self._refuse(
                f"the closed gripper's reading did not settle within {timeout:.1f} s "
                f"(two readings within {MEASURE_STEP_M * 1e3:.1f} mm; last: {shown})"
            )
            return True
        return False

    def _refuse(self, why: str) -> None:
        self.state, self.refusal, self.changed = CALIBRATION_REFUSED, why, True
        self.measurement = None
        return None

    def reason(self) -> str:
        """The refusal of the cards that waited for it (a skill's load error)."""
        return (
            f"its card measures the {FIELD} offset on the cell (closed_gripper) and the "
            f"skill node's bring-up measurement was refused: {self.refusal}"
        )

    def report(self) -> dict:
        """What ``/miles/skill/calibration`` says of it (JSON)."""
        out = {"state": self.state, "field": FIELD, "measure": "closed_gripper"}
        out["skills"] = list(self.skills)
        if self.measurement is not None:
            out.update(
                reading_m=self.measurement.reading_m,
                offset_m=self.measurement.offset_m,
                periods=self.measurement.periods,
            )
        out["reason"] = self.refusal
        return out


def scene_report(scene: Scene, skills: list[str]) -> dict:
    """``/miles/skill/calibration`` where the scene file's ``gripper.calibration`` gives the
    offset (``state: scene``)."""
    calibration = scene.gripper.calibration
    return {
        "state": CALIBRATION_SCENE,
        "field": FIELD,
        "measure": "closed_gripper",
        "skills": list(skills),
        "offset_m": float(calibration.finger_offset_m),
        "periods": int(calibration.periods),
        "reason": "",
    }


def unmeasured_versions(library, rollout=None) -> list:
    """The loaded versions of a :class:`~miles_ros.runtime.library.SkillLibrary` (active,
    routed) and of a :class:`~miles_ros.runtime.rollout.Rollout` (its candidates) whose
    card has the cell measure an offset not given yet."""
    versions = [*library.skills.values()]
    versions += [skill for routes in library.routes.values() for skill in routes.values()]
    if rollout is not None:
        versions += [*rollout.shadows.values()]
        versions += [candidate for _, candidate in rollout.canaries.values()]
    return [
        skill
        for skill in versions
        if skill.policy is not None and skill.policy.measures and not skill.policy.measured
    ]


def apply_measurement(measure: BringUpMeasurement, library, rollout=None) -> None:
    """The end of a bring-up measurement: the versions that waited for it read through its
    offset (and so does every version the library loads later), or, refused, they are left
    out: an active version as one that failed to load (``library.errors``, the reason its
    requests are refused with), a route or a rollout candidate dropped (their goals run the
    active version), and a version loaded later is refused as unmeasured."""
    waiting = unmeasured_versions(library, rollout)
    if measure.measurement is not None:
        library.measured = {FIELD: measure.measurement.offset_m}
        for skill in waiting:
            skill.policy.use_measured(library.measured)
        logger.info(
            "gripper measured at bring-up: the closed gripper read %.2f mm, offset %.1f mm (%s)",
            measure.measurement.reading_m * 1e3,
            measure.measurement.offset_m * 1e3,
            ", ".join(measure.skills),
        )
        return
    ids = {id(skill) for skill in waiting}
    library.measured = {}
    reason = measure.reason()
    for name, skill in list(library.skills.items()):
        if id(skill) in ids:
            del library.skills[name]
            folder = library.folders.get(name)
            library.errors[folder.name if folder is not None else name] = reason
            library.routes.pop(name, None)
    for routes in library.routes.values():
        for target, skill in list(routes.items()):
            if id(skill) in ids:
                del routes[target]
    if rollout is not None:
        for name, skill in list(rollout.shadows.items()):
            if id(skill) in ids:
                del rollout.shadows[name]
        for name, (_, skill) in list(rollout.canaries.items()):
            if id(skill) in ids:
                del rollout.canaries[name]
    logger.error(
        "gripper measurement refused: %s (%s)", measure.refusal, ", ".join(measure.skills)
    )
