"""Run exported skills with onnxruntime: :class:`SkillPolicy`.

A skill is a directory with ``skill.yaml``, ``actor.onnx`` and ``critic.onnx``. Loading
checks the card (:func:`policies.cards.validate_card`: keys, parameter schema, the sha256
of both files, the task's layout) and the observation size the networks expect; acting
checks each observation's shape. A card's observation calibration
(:mod:`policies.calibration`) is applied here, the one place every observation meets a
version's networks. Sessions use one intra-op thread and sequential
execution, which is fastest for single observations (tens of microseconds).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from policies.calibration import (
    closed_gripper_reading,
    measured_fields,
    measured_offset,
    observation_calibration,
)
from policies.cards import SkillCard, SkillCardError, validate_card


class ObservationShapeError(ValueError):
    """An observation whose size does not match the skill's observation layout."""


def _session(path: Path, threads: int):
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    try:
        return ort.InferenceSession(
            str(path), sess_options=options, providers=["CPUExecutionProvider"]
        )
    except Exception as exc:  # noqa: BLE001 - onnxruntime raises its own exception types
        raise SkillCardError(f"{path}: onnxruntime cannot load it ({exc})") from exc


class SkillPolicy:
    """An exported skill: ``act(obs)`` gives deterministic actions, ``value(obs)`` the
    critic's value (an affordance score: higher means the skill expects to succeed).

    ``skill`` is a skill directory, its ``skill.yaml``, or a shipped skill's name
    (``policies/skills/NAME``). Raises :class:`SkillCardError` for a missing card or
    file, a sha256 mismatch or networks that disagree with the card.

    Single observations go through pre-bound buffers: use one instance per thread.
    """

    def __init__(self, skill: str | Path, threads: int = 1, check_hashes: bool = True):
        self.card: SkillCard = validate_card(skill, check_hashes=check_hashes)
        """The skill's card, checked against both files and its task."""
        self.path: Path = self.card.directory
        self.name: str = self.card.name
        self.task: str = self.card.task
        self.obs_dim: int = self.card.obs_dim
        self.action_dim: int = self.card.action_dim
        self._actor = _session(self.card.file_path("actor"), threads)
        self._critic = _session(self.card.file_path("critic"), threads)
        for role, sess, out_name in (
            ("actor", self._actor, "actions"),
            ("critic", self._critic, "value"),
        ):
            inputs, outputs = sess.get_inputs(), sess.get_outputs()
            if len(inputs) != 1 or inputs[0].name != "obs" or inputs[0].shape[-1] != self.obs_dim:
                raise SkillCardError(
                    f"{self.path}: {role} input must be 'obs' [batch, {self.obs_dim}], got "
                    f"{[(i.name, i.shape) for i in inputs]}"
                )
            if outputs[0].name != out_name:
                raise SkillCardError(
                    f"{self.path}: {role} output must be '{out_name}', got {outputs[0].name!r}"
                )
        self.measures: dict[str, str] = measured_fields(self.card)
        """The fields whose offset the card has the cell measure (:meth:`calibrate`)."""
        self.measured: dict[str, float] = {}
        """What :meth:`calibrate` measured: each such field's offset (m)."""
        self._calibration = None if self.measures else observation_calibration(self.card)
        """The card's observation calibration (:mod:`policies.calibration`), applied to every
        observation before either network sees it; None: none."""
        self._binding = None
        self._single_shape = (self.obs_dim,)
        actions_shape = self._actor.get_outputs()[0].shape
        if actions_shape[-1] != self.action_dim:
            raise SkillCardError(
                f"{self.path}: actor outputs {actions_shape[-1]} actions, the "
                f"card says {self.action_dim}"
            )

    def calibrate(self, env) -> dict[str, float]:
        """Measure on the cell ``env`` (a batched env of this task) the offsets the card has
        a cell measure (``calibration: {finger_width: {measure: closed_gripper}}``) and read
        every later observation through them; nothing (an empty dict) for a card without
        one. The env's next episodes must start with a reset."""
        if not self.measures:
            return {}
        starts = {f["name"]: int(f["start"]) for f in self.card.observation.get("layout") or []}
        measured = {}
        for name in self.measures:  # closed_gripper, the one measure there is
            measured[name] = measured_offset(name, closed_gripper_reading(env, starts[name]))
        return self.use_measured(measured)

    def use_measured(self, measured: Mapping[str, float]) -> dict[str, float]:
        """Read every later observation through offsets (m) by field that the cell was
        measured to have elsewhere (a scene file's ``gripper.calibration``, which ``miles
        calibrate gripper`` writes and the skill node reads), for each field the card has a
        cell measure; nothing (an empty dict) for a card without one. ValueError, naming
        the field, where ``measured`` lacks one."""
        if not self.measures:
            return {}
        missing = [f"{n} ({how})" for n, how in self.measures.items() if n not in measured]
        if missing:
            raise ValueError(
                f"skill {self.name!r}: its card measures the {', '.join(missing)} offset "
                "on the cell, and no measurement was given"
            )
        values = {name: float(measured[name]) for name in self.measures}
        self._calibration = observation_calibration(self.card, values)
        self.measured = values
        logging.getLogger(__name__).info("skill %s: measured offsets (m) %s", self.name, values)
        return dict(values)

    def _check_measured(self) -> None:
        if self.measures and not self.measured:
            observation_calibration(self.card)  # raises, naming the field to measure

    def _batch(self, obs) -> tuple[np.ndarray, bool]:
        self._check_measured()
        x = np.asarray(obs, dtype=np.float32)
        single = x.ndim == 1
        if single:
            x = x[None, :]
        if x.ndim != 2 or x.shape[1] != self.obs_dim:
            raise ObservationShapeError(
                f"skill {self.name!r} expects observations of shape ({self.obs_dim},) or "
                f"(batch, {self.obs_dim}) laid out as task {self.task!r}, got "
                f"{np.shape(obs)}"
            )
        if not np.all(np.isfinite(x)):
            raise ValueError(f"skill {self.name!r}: non-finite observation")
        if self._calibration is not None:
            x = self._calibration.apply(np.array(x, dtype=np.float32))  # a copy: obs stays
        return np.ascontiguousarray(x), single

    def _bind_single(self) -> None:
        """Pre-bound input/output buffers for one observation: onnxruntime's run() spends
        more time converting arguments than computing a small MLP (measured here: p50 32 us
        with run(), 11 us for a pre-bound IOBinding)."""
        import onnxruntime as ort

        self._obs_buf = np.zeros((1, self.obs_dim), dtype=np.float32)
        self._act_buf = np.zeros((1, self.action_dim), dtype=np.float32)
        binding = self._actor.io_binding()
        binding.bind_input(
            "obs", "cpu", 0, np.float32, [1, self.obs_dim], self._obs_buf.ctypes.data
        )
        binding.bind_output(
            "actions", "cpu", 0, np.float32, [1, self.action_dim], self._act_buf.ctypes.data
        )
        self._binding = binding
        c_session = getattr(self._actor, "_sess", None)
        c_binding = getattr(binding, "_iobinding", None)
        if c_session is not None and c_binding is not None:
            # The C call without the Python wrapper: ~4 us less per call.
            run, options = c_session.run_with_iobinding, ort.RunOptions()
            self._run_bound = lambda: run(c_binding, options)
        else:
            self._run_bound = lambda: self._actor.run_with_iobinding(binding)

    def act(self, obs) -> np.ndarray:
        """Actions [A] for one observation [D], or [B, A] for [B, D]; in [-1, 1]."""
        if type(obs) is np.ndarray and obs.shape == self._single_shape:
            self._check_measured()
            if self._binding is None:
                self._bind_single()
            self._obs_buf[0] = obs
            if not math.isfinite(self._obs_buf.sum()):  # NaN and inf both propagate
                raise ValueError(f"skill {self.name!r}: non-finite observation")
            if self._calibration is not None:
                self._calibration.apply(self._obs_buf)
            self._run_bound()
            return self._act_buf[0].copy()
        x, single = self._batch(obs)
        actions = self._actor.run(None, {"obs": x})[0]
        return actions[0] if single else actions

    def value(self, obs) -> np.ndarray | float:
        """Critic value: a float for one observation, [B] for a batch."""
        x, single = self._batch(obs)
        value = self._critic.run(None, {"obs": x})[0].reshape(-1)
        return float(value[0]) if single else value

    __call__ = act

    def __repr__(self) -> str:
        return (
            f"SkillPolicy({self.name!r}, task={self.task!r}, obs_dim={self.obs_dim}, "
            f"action_dim={self.action_dim})"
        )
