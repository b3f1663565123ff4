"""An MCAP recording (``miles up --record``) -> one dataset of a skill's episodes
(:mod:`policies.logs`), without ROS.

The recorder writes each message as CDR bytes (:mod:`miles_ros.ros.recording`); this
reads them back with the ``mcap`` reader and a small CDR decoder of the two message types
it needs (``sensor_msgs/JointState``, ``std_msgs/String``), so converting logs needs no
ROS install.

One episode per request of the skill: the observation of each control period its policy
ran is rebuilt the way the skill node builds it (one source of truth: the executor's own
:func:`~miles_ros.runtime.observation.sim_state`, :func:`~miles_ros.runtime.goals.
resolve_goal` and the task's ``observe``) from the inputs that period's ``running`` status
carries (:data:`~miles_ros.interfaces.SKILL_INPUTS`: the joint reading and cube poses it
used). Rebuilding from the recorded ``/joint_states`` instead is not exact: the recorder
reads them best effort and misses many (171 of about 300 in a 1.2 s reach run), so the
latest one recorded before a status was up to 0.015 rad and 0.32 rad/s off the executor's
(tests/nodes/test_logs_recorded.py measured it); a status without inputs (an older
recording) still falls back to that. Periods without inputs (the home lead-in, a stall
restart, the release hold of a gripper skill) ran no policy and are left out. A cell's
arm (``arm``) reads its own namespaced topics.
"""

from __future__ import annotations

import json
import math
import struct
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from miles_ros.interfaces import (
    FINAL_SKILL_STATES,
    JOINT_STATES,
    RUNNING,
    SCENE_OBJECTS,
    SCENE_OBJECTS_TRUTH,
    SKILL_COMMAND,
    SKILL_COMMAND_STAMP,
    SKILL_INPUTS,
    SKILL_REQUEST,
    SKILL_RETURN,
    SKILL_STATUS,
    arm_scoped,
)
from miles_ros.runtime.goals import Goal, GoalError, resolve_goal, stack_state
from miles_ros.runtime.gripper_calibration import scene_measurements
from miles_ros.runtime.library import RunnableSkill, load_skill
from miles_ros.runtime.observation import (
    GOAL_YAW,
    JointReading,
    ObjectPose,
    decode_inputs,
    parse_joint_state,
    parse_objects,
    sim_state,
)
from policies.logs import dataset_header, write_dataset
from sims.robots import panda
from sims.scene import Scene, load_scene


class CdrReader:
    """Little- or big-endian XCDR1 reading of one message's bytes (alignment counted
    from the end of the 4-byte encapsulation header)."""

    def __init__(self, data: bytes):
        if len(data) < 4 or data[1] not in (0, 1):
            raise ValueError("not a CDR message (unknown encapsulation)")
        self.data, self.pos = memoryview(data)[4:], 0
        self.endian = "<" if data[1] == 1 else ">"

    def _align(self, size: int) -> None:
        self.pos += -self.pos % size

    def _unpack(self, fmt: str, size: int):
        self._align(size)
        value = struct.unpack_from(self.endian + fmt, self.data, self.pos)[0]
        self.pos += size
        return value

    def uint32(self) -> int:
        return self._unpack("I", 4)

    def int32(self) -> int:
        return self._unpack("i", 4)

    def string(self) -> str:
        size = self.uint32()  # with the terminating NUL
        text = bytes(self.data[self.pos : self.pos + max(size - 1, 0)]).decode("utf-8")
        self.pos += size
        return text

    def strings(self) -> list[str]:
        return [self.string() for _ in range(self.uint32())]

    def float64s(self) -> np.ndarray:
        count = self.uint32()
        if count == 0:
            return np.zeros(0)
        self._align(8)
        out = np.frombuffer(self.data, dtype=self.endian + "f8", count=count, offset=self.pos)
        self.pos += 8 * count
        return out.astype(np.float64)


@dataclass(frozen=True)
class JointStateMsg:
    """The fields of a decoded ``sensor_msgs/JointState``."""

    stamp: float
    name: list[str]
    position: np.ndarray
    velocity: np.ndarray


def decode_joint_state(data: bytes) -> JointStateMsg:
    r = CdrReader(data)
    sec, nanosec = r.int32(), r.uint32()
    r.string()  # frame_id
    name = r.strings()
    position, velocity = r.float64s(), r.float64s()
    return JointStateMsg(sec + nanosec * 1e-9, name, position, velocity)


def decode_string(data: bytes) -> str:
    return CdrReader(data).string()


def recorded_messages(path: str | Path) -> Iterator[tuple[str, int, bytes]]:
    """(topic, log time in ns, CDR bytes) of every message of a recording, in log time order."""
    from mcap.reader import make_reader

    with open(path, "rb") as f:
        for _, channel, message in make_reader(f).iter_messages(log_time_order=True):
            yield channel.topic, message.log_time, message.data


@dataclass
class _Episode:
    request: dict
    goal: Goal
    rows: list[dict] = field(default_factory=list)
    final: dict | None = None


@dataclass
class RecordingEpisodes:
    """The episodes of one skill in a recording: the executor's inputs replayed."""

    skill: RunnableSkill
    scene: Scene
    arm: str = ""
    joints: JointReading | None = None
    objects: dict[str, ObjectPose] = field(default_factory=dict)
    truth: dict[str, ObjectPose] = field(default_factory=dict)
    open: dict[str, _Episode] = field(default_factory=dict)
    done: list[_Episode] = field(default_factory=list)
    commands: list[tuple[int, float, np.ndarray]] = field(default_factory=list)
    """(log time in ns, header stamp in s, arm targets) of every recorded
    ``/miles/skill_command``."""

    def feed(self, topic: str, log_time: int, data: bytes) -> None:
        """One recorded message (its log time in ns)."""
        scoped = {
            t: arm_scoped(self.arm, t)
            for t in (JOINT_STATES, SKILL_COMMAND, SKILL_REQUEST, SKILL_STATUS)
        }
        if topic == scoped[JOINT_STATES]:
            msg = decode_joint_state(data)
            try:
                self.joints = parse_joint_state(msg.name, msg.position, msg.velocity, msg.stamp)
            except ValueError:
                pass  # the executor drops such a message too
        elif topic == SCENE_OBJECTS:
            self.objects = parse_objects(json.loads(decode_string(data)))
        elif topic == SCENE_OBJECTS_TRUTH:
            self.truth = parse_objects(json.loads(decode_string(data)))
        elif topic == scoped[SKILL_REQUEST]:
            self._request(json.loads(decode_string(data)))
        elif topic == scoped[SKILL_STATUS]:
            self._status(json.loads(decode_string(data)), log_time)
        elif topic == scoped[SKILL_COMMAND]:
            msg = decode_joint_state(data)
            index = {n: i for i, n in enumerate(msg.name)}
            if all(n in index for n in panda.JOINT_NAMES):
                arm = msg.position[[index[n] for n in panda.JOINT_NAMES]]
                self.commands.append((log_time, msg.stamp, arm))

    def match_commands(self) -> None:
        """Give each row the command its period sent: the one whose header stamp the
        period's status names (:data:`SKILL_COMMAND_STAMP`), within a microsecond (JSON's
        float seconds; a skill's commands lie milliseconds apart). A status without it
        (older recordings) takes the recorded command nearest it in log time, within half
        a control period: the skill node publishes the command just before the status,
        but a loaded recorder can log the two further apart. Else the command stays NaN."""
        if not self.commands:
            return
        times = np.array([t for t, _, _ in self.commands], dtype=np.int64)
        stamps = np.array([s for _, s, _ in self.commands], dtype=np.float64)
        window = 0.5e9 / self.skill.control_rate_hz
        for episode in self.done:
            for row in episode.rows:
                if row["command_stamp"] is not None:
                    k = int(np.argmin(np.abs(stamps - row["command_stamp"])))
                    matched = abs(stamps[k] - row["command_stamp"]) <= 1e-6
                else:
                    k = int(np.argmin(np.abs(times - row["log_time"])))
                    matched = abs(int(times[k]) - row["log_time"]) <= window
                if matched:
                    row["command"] = self.commands[k][2]

    def _request(self, request: Mapping) -> None:
        if request.get("cancel") or request.get("skill") != self.skill.card.name:
            return
        try:
            goal = resolve_goal(
                self.skill.task.CONFIG.name, request.get("params") or {}, self.scene, self.objects
            )
        except (GoalError, KeyError, TypeError, ValueError):
            return  # refused by the executor too: no motion, no episode
        self.open[str(request.get("id", ""))] = _Episode(dict(request), goal)

    def _status(self, status: Mapping, log_time: int) -> None:
        episode = self.open.get(str(status.get("id", "")))
        if episode is None:
            return
        if status.get("state") in FINAL_SKILL_STATES:
            episode.final = dict(status)
            if any(row["exact"] for row in episode.rows):  # periods without inputs ran no policy
                episode.rows = [row for row in episode.rows if row["exact"]]
            self.done.append(self.open.pop(str(status["id"])))
            return
        if status.get("state") != RUNNING or "step" not in status or "phase" in status:
            return
        row = self._observe(episode, status)
        if row is not None:
            row["log_time"] = log_time
            row["command_stamp"] = status.get(SKILL_COMMAND_STAMP)
            episode.rows.append(row)

    def _inputs(self, status: Mapping, goal: Goal):
        """The joint reading and object poses a ``running`` status carries
        (:data:`SKILL_INPUTS`); the latest recorded ones for a status without them."""
        inputs = status.get(SKILL_INPUTS)
        if inputs is None:
            return self.joints, self.objects
        joints, _, poses = decode_inputs(inputs)
        objects = dict(self.objects)
        for role, name in (("object", goal.object_name), ("stack_on", goal.stack_on)):
            if name is not None and role in poses:
                objects[name] = poses[role]
        return joints, objects

    def _observe(self, episode: _Episode, status: Mapping) -> dict | None:
        skill, goal = self.skill, episode.goal
        joints, objects = self._inputs(status, goal)
        if joints is None:
            return None
        inputs = status.get(SKILL_INPUTS) or {}
        if "goal" in inputs:  # the executor's, resolved at its start
            goal = replace(goal, goal_pos=decode_inputs(inputs)[1])
        if GOAL_YAW in inputs:
            goal = replace(goal, goal_yaw=float(inputs[GOAL_YAW]))
        obj = truth = None
        if goal.object_name is not None:
            obj, truth = objects.get(goal.object_name), self.truth.get(goal.object_name)
            if obj is None:
                return None
        state = sim_state(joints, goal.goal_pos, obj, goal.goal_yaw)
        if goal.stack_on is not None:
            state = stack_state(state, objects.get(goal.stack_on))
        if SKILL_INPUTS not in status and bool(skill.task.success(state, skill.cfg)[0]):
            return None  # the release hold of a gripper skill: no policy period
        nan3 = np.full(3, np.nan)
        return {
            "obs": skill.task.observe(state)[0],
            "object_pos": nan3 if obj is None else obj.position,
            "truth_object_pos": nan3 if truth is None else truth.position,
            "command": np.full(7, np.nan),
            "exact": SKILL_INPUTS in status,
        }


def recording_episodes(
    recording: str | Path,
    skill_dir: str | Path,
    scene_file: str | Path | None = None,
    arm: str = "",
) -> tuple[RunnableSkill, list[_Episode]]:
    """The finished episodes of the skill in ``skill_dir`` in ``recording`` (a scene's
    ``arm`` for a cell's recording)."""
    scene = load_scene(str(scene_file) if scene_file else None)
    # a card that measures its finger offset reads through the scene's gripper.calibration
    # (None where it has none: such a policy then refuses to act, naming the measurement)
    skill = load_skill(skill_dir, measured=scene_measurements(scene) or None)
    replay = RecordingEpisodes(skill, scene, arm)
    for topic, log_time, data in recorded_messages(recording):
        replay.feed(topic, log_time, data)
    replay.match_commands()
    return skill, replay.done


def convert_recording(
    recording: str | Path,
    out: str | Path,
    skill_dir: str | Path,
    scene_file: str | Path | None = None,
    arm: str = "",
) -> Path | None:
    """Write the dataset (:mod:`policies.logs`) of ``recording``'s episodes of the skill in
    ``skill_dir`` to ``out``; None when the recording has none."""
    skill, episodes = recording_episodes(recording, skill_dir, scene_file, arm)
    episodes = [e for e in episodes if e.rows]
    if not episodes:
        return None
    card = skill.card
    rows = [row for e in episodes for row in e.rows]
    obs = np.stack([r["obs"] for r in rows]).astype(np.float32)
    arrays = {
        "obs": obs,
        "actions": np.asarray(skill.policy.act(obs), dtype=np.float32).reshape(len(rows), -1),
        "commands": np.stack([r["command"] for r in rows]).astype(np.float32),
        "object_pos": np.stack([r["object_pos"] for r in rows]).astype(np.float32),
        "truth_object_pos": np.stack([r["truth_object_pos"] for r in rows]).astype(np.float32),
        "episode": np.concatenate(
            [np.full(len(e.rows), i, np.int32) for i, e in enumerate(episodes)]
        ),
    }
    header = dataset_header(card, str(recording), [_episode_entry(e) for e in episodes])
    return write_dataset(out, header, arrays)


def _episode_entry(episode: _Episode) -> dict:
    request, final = episode.request, episode.final or {}
    ret = final.get(SKILL_RETURN)
    return {
        "id": str(request.get("id", "")),
        "trace_id": request.get("trace_id") or "",
        "skill": request.get("skill"),
        "params": request.get("params") or {},
        "state": final.get("state"),
        "reason": final.get("reason", ""),
        "return": None if ret is None or not math.isfinite(ret) else float(ret),
        "steps": len(episode.rows),
        "goal_pos": [float(v) for v in episode.goal.goal_pos],
    }
