"""Constrained decoding of a JSON plan: the registry's schema decides every character.

:class:`PlanGrammar` is a character-level automaton for the canonical JSON form of a
plan (``json.dumps`` separators)::

    {"steps": [{"skill": "NAME", "params": {"p1": V1, "p2": V2}}, ...]}

Skill names come from the registry, parameter names from each skill's schema (in schema
order), values from the schema's enums narrowed to the scene's names, and for parameters
whose schema accepts an array, ``[x, y, z]`` with numbers of the form
``-?0(.[0-9]{1,4})?`` (metres, base frame) inside the planning workspace box. A skill
with a parameter that takes neither a scene name nor a point (turn's ``angle``: numbers
come from the goal's words, which only the grounded mode reads) is left out.
A step never names the same thing twice (no cube moved onto itself), a cube an earlier
step left in the air, covered, or put at a tower's third level is never a later step's
target, a covered cube is never moved, and a cube off the table is never pushed. At most
``max_steps`` steps. Every string the automaton accepts is schema-valid JSON by
construction (tests check it over many seeds).

:class:`TokenIndex` maps the automaton to a tokenizer: a character trie over the
vocabulary's tokens; :meth:`TokenIndex.allowed` walks it together with the automaton, so
only tokens that keep the text a valid prefix are offered. This is the same idea as
lm-format-enforcer's prefix-allowed-tokens function, written over our own grammar (small,
no extra dependency, exact for the schema's shape).
"""

from __future__ import annotations

import json
import re
from collections.abc import Generator
from dataclasses import dataclass

from miles_ros.agent.registry import SkillRegistry
from miles_ros.agent.world import WORKSPACE_MAX, WORKSPACE_MIN
from miles_ros.runtime.goals import ON_TABLE_TASKS, resting_on_table
from sims.tasks.pick_place import TOWER_LEVELS

_NUM_PREFIX = re.compile(r"^-?$|^-?0(\.[0-9]{0,4})?$")
_NUM_FULL = re.compile(r"^-?0(\.[0-9]{1,4})?$")


@dataclass(frozen=True)
class Lit:
    """One fixed string."""

    text: str


@dataclass(frozen=True)
class Choice:
    """Exactly one of several strings (no option is a prefix of another)."""

    options: tuple[str, ...]


@dataclass(frozen=True)
class Number:
    """A JSON number of the restricted form above, inside ``[lo, hi]``; it ends at the
    first character that cannot continue it."""

    lo: float = -1.0
    hi: float = 1.0


def _number_interval(prefix: str) -> tuple[float, float] | None:
    """The values a number starting with ``prefix`` can still take (None: none)."""
    if not _NUM_PREFIX.match(prefix):
        return None
    sign = -1.0 if prefix.startswith("-") else 1.0
    body = prefix.lstrip("-")
    digits = body[2:] if body.startswith("0.") else ""
    if not digits:
        low, high = 0.0, 0.9999
    else:  # up to 4 decimals: "0.5" can still become anything in [0.5, 0.5999]
        low = float("0." + digits)
        high = round(low + 10.0 ** -len(digits) - 1e-4, 4)
    return (min(sign * low, sign * high), max(sign * low, sign * high))


class PlanGrammar:
    """Automaton over the canonical JSON plans the registry and scene allow.

    A state is ``(history, partial)``: the strings chosen for the completed slots and the
    characters typed into the current slot. States are hashable and cheap to copy.
    """

    def __init__(
        self, registry: SkillRegistry, names: list[str], max_steps: int = 6, prefix: str = ""
    ):
        """``prefix``: text typed before the JSON (a space after ``JSON:``)."""
        self.registry = registry
        self.prefix = prefix
        self.names = list(names)
        self.cubes = {
            e
            for skill in (registry[n] for n in registry.names)
            if "object" in skill.param_names
            for e in skill.card.param_choices("object", self.names)[0]
        }
        """The names a skill can move (its ``object`` choices): the cubes."""
        self.skills = [
            n
            for n in registry.names
            if all(
                any(registry[n].card.param_choices(p, self.names)) for p in registry[n].param_names
            )
        ]
        """The skills whose every parameter takes a scene name or a point."""
        self.max_steps = max_steps
        self._slots: dict[tuple, object] = {}
        self.initial = ((), "")

    # -- the grammar as a program: yields slots, receives what was matched -----------------
    def _program(self) -> Generator[object, str, None]:
        yield Lit(self.prefix + '{"steps": [')
        # Cubes an earlier step left in the air, covered (a cube put on them: a plan names
        # the top of a stack) or put at the third level are never a later step's target,
        # and a covered cube is never its object, nor a cube off the table a push's
        # (validate_plan's rules, miles_ros.runtime.goals.stack_target_error,
        # covered_error and off_table_error).
        in_air: set[str] = set()
        under: dict[str, str] = {}  # cube -> the cube a step put it on

        def level(cube: str) -> int:
            return 1 + level(under[cube]) if cube in under else 1

        def not_moved(skill) -> set[str]:
            """Cubes that are no object of ``skill`` now: covered, and for a push off the
            table."""
            banned = set(under.values())
            if skill.card.task in ON_TABLE_TASKS:  # a push moves a cube on the table only
                banned |= in_air | set(under)
            return banned

        def has_object(name: str) -> bool:
            skill = self.registry[name]
            if "object" not in skill.param_names:
                return True
            enums, array = skill.card.param_choices("object", self.names)
            return array or any(e not in not_moved(skill) for e in enums)

        for n in range(self.max_steps):
            yield Lit('{"skill": "')
            name = (yield Choice(tuple(s + '"' for s in self.skills if has_object(s))))[:-1]
            skill = self.registry[name]
            yield Lit(', "params": {')
            chosen: set[str] = set()
            values: dict[str, object] = {}  # the step's params: names, or [x, y, z]
            for i, param in enumerate(skill.param_names):
                yield Lit(("" if i == 0 else ", ") + json.dumps(param) + ": ")
                enums, array = skill.card.param_choices(param, self.names)
                # one step never names the same thing twice (no cube onto itself)
                covered = set(under.values())
                banned = chosen | (not_moved(skill) if param == "object" else set())
                if param == "target":
                    full = {c for c in under if level(c) >= TOWER_LEVELS}
                    banned |= in_air | covered | full
                options = tuple(json.dumps(e) for e in enums if e not in banned) + (
                    ("[",) if array else ()
                )
                value = yield Choice(options)
                values[param] = json.loads(value) if value != "[" else None
                chosen.add(json.loads(value) if value != "[" else "")
                if value == "[":
                    point = []
                    for k in range(3):
                        point.append(float((yield Number(WORKSPACE_MIN[k], WORKSPACE_MAX[k]))))
                        yield Lit(", " if k < 2 else "]")
                    values[param] = point
            moved, target = values.get("object"), values.get("target", "")
            if isinstance(moved, str):
                under.pop(moved, None)
                in_air.discard(moved)
                if isinstance(target, list) and not resting_on_table(target[2]):
                    in_air.add(moved)  # left in the air (or on a cube)
                elif isinstance(target, str) and target in self.cubes:
                    under[moved] = target
            yield Lit("}}")
            if n == self.max_steps - 1:
                yield Lit("]}")
                return
            sep = yield Choice((", ", "]}"))
            if sep == "]}":
                return

    def slot(self, history: tuple):
        """The slot after ``history`` (None when the plan is complete)."""
        if history not in self._slots:
            program = self._program()
            slot = next(program)
            try:
                for value in history:
                    slot = program.send(value)
            except StopIteration:
                slot = None
            self._slots[history] = slot
        return self._slots[history]

    # -- automaton --------------------------------------------------------------------------
    def advance(self, state: tuple, ch: str):
        """The state after typing ``ch``, or None if ``ch`` is not allowed."""
        history, partial = state
        slot = self.slot(history)
        if slot is None:
            return None
        if isinstance(slot, Number):
            span = _number_interval(partial + ch)
            if span is not None and span[1] >= slot.lo and span[0] <= slot.hi:
                return (history, partial + ch)
            if _NUM_FULL.match(partial) and slot.lo <= float(partial) <= slot.hi:
                return self.advance((history + (partial,), ""), ch)
            return None
        options = (slot.text,) if isinstance(slot, Lit) else slot.options
        typed = partial + ch
        live = [o for o in options if o.startswith(typed)]
        if not live:
            return None
        if typed in live:
            return (history + (typed,), "")
        return (history, typed)

    def feed(self, state: tuple, text: str):
        """The state after typing ``text`` (None if any character is refused)."""
        for ch in text:
            state = self.advance(state, ch)
            if state is None:
                return None
        return state

    def is_complete(self, state: tuple) -> bool:
        """True when the typed text is a whole plan."""
        return state[1] == "" and self.slot(state[0]) is None

    def forced(self, state: tuple) -> str:
        """The characters that must come next, up to the next real choice."""
        out = []
        while True:
            history, partial = state
            slot = self.slot(history)
            if isinstance(slot, Lit):
                rest = slot.text[len(partial) :]
                out.append(rest)
                state = (history + (slot.text,), "")
                continue
            if isinstance(slot, Choice):
                live = [o[len(partial) :] for o in slot.options if o.startswith(partial)]
                common = _common_prefix(live)
                if len(live) == 1:
                    out.append(live[0])
                    state = (history + (partial + live[0],), "")
                    continue
                out.append(common)
            return "".join(out)


def _common_prefix(strings: list[str]) -> str:
    if not strings:
        return ""
    first, last = min(strings), max(strings)
    i = 0
    while i < len(first) and i < len(last) and first[i] == last[i]:
        i += 1
    return first[:i]


class TokenIndex:
    """A character trie over a tokenizer's vocabulary (tokens of printable JSON text)."""

    ALPHABET = set('{}[]":,._- 0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ')

    def __init__(self, tokenizer):
        self.root: dict = {}
        self.text: dict[int, str] = {}
        """Token id -> its text, for the tokens in the trie."""
        vocab = tokenizer.get_vocab()
        special = set(getattr(tokenizer, "all_special_ids", []) or [])
        for piece, token_id in vocab.items():
            if token_id in special:
                continue
            text = piece.replace("\u2581", " ")  # SentencePiece's word-start marker
            if not text or not set(text) <= self.ALPHABET:
                continue
            self.text[token_id] = text
            node = self.root
            for ch in text:
                node = node.setdefault(ch, {})
            node.setdefault(None, []).append(token_id)

    def allowed(self, grammar: PlanGrammar, state: tuple) -> dict[int, tuple]:
        """token id -> state after it, for every token the grammar accepts from ``state``."""
        out: dict[int, tuple] = {}
        stack = [(self.root, state)]
        while stack:
            node, st = stack.pop()
            for key, child in node.items():
                if key is None:
                    for token_id in child:
                        out[token_id] = st
                    continue
                nxt = grammar.advance(st, key)
                if nxt is not None:
                    stack.append((child, nxt))
        return out


def constrained_decode(
    grammar: PlanGrammar,
    index: TokenIndex,
    encode,
    next_logits,
    seed: int | None = None,
    temperature: float = 0.0,
    max_tokens: int = 400,
) -> str:
    """Decode one plan under ``grammar``.

    ``encode(text) -> list[int]`` tokenizes forced text; ``next_logits(new_ids, candidates)
    -> sequence of float`` feeds ``new_ids`` to the model and returns the logits of the
    ``candidates`` token ids for the next position. Forced stretches (literal JSON between
    choices) are fed without asking the model; at each choice only the tokens the grammar
    allows are scored. ``temperature`` 0 is greedy; otherwise sampling with ``seed``.
    """
    import numpy as np

    rng = np.random.default_rng(seed)
    state = grammar.initial
    pieces: list[str] = []
    pending: list[int] = []
    for _ in range(max_tokens):
        forced = grammar.forced(state)
        if forced:
            state = grammar.feed(state, forced)
            pieces.append(forced)
            pending += encode(forced)
            if grammar.is_complete(state):
                return "".join(pieces)
        allowed = index.allowed(grammar, state)
        if not allowed:
            raise RuntimeError("no token of the vocabulary continues the plan: " + "".join(pieces))
        ids = list(allowed)
        logits = np.asarray(next_logits(pending, ids), dtype=np.float64)
        if temperature and temperature > 0:
            z = logits / temperature
            p = np.exp(z - z.max())
            choice = int(rng.choice(len(ids), p=p / p.sum()))
        else:
            choice = int(np.argmax(logits))
        token = ids[choice]
        new_state = allowed[token]
        pieces.append(index.text[token])
        state = new_state
        pending = [token]
        if grammar.is_complete(state):
            return "".join(pieces)
    raise RuntimeError("plan did not finish within max_tokens")
