"""Turning a cube in words: the angles a goal states, and the turn goals that cannot be
planned as said.

:func:`goal_angles` reads every angle a goal states, in order, as the ``turn`` skill's
``angle`` takes it (degrees, counter-clockwise seen from above, or
:data:`~miles_ros.runtime.goals.FACE_ROBOT`):

- "by 45 degrees", "45 deg", "45°", "forty-five degrees": 45; "30 degrees clockwise": -30;
  "counter-clockwise" / "anticlockwise" keep the number positive; "to the left" is
  counter-clockwise, "to the right" clockwise (docs/interfaces.md) (a direction word decides
  the sign of every number of its clause; without one the number is taken as written);
- "a quarter turn": 90, "half a turn": 180, "three quarters of a turn": 270, "a full turn",
  "all the way around", "spin it around": 360;
- "so a face points at the robot", "to face the robot", "square the green cube up with the
  robot", "line it up with you": :data:`FACE_ROBOT`.

Grounding offers these values, and only these, to a parameter that takes a number or the
keyword (:func:`stated_values`): the number a plan turns by always comes from the goal's
words. A cube looks the same every 90 degrees, so a turn by a multiple of 90 would change
nothing: such an angle is never offered, and :func:`turn_refusal` refuses a goal that asks
to turn a cube and states no angle ("twist the green cube a little": how far is for the
person to say, the arm does not guess), only multiples of 90 ("rotate the red cube by 90
degrees": it would look as it is), or an angle outside the range the turn skill was trained
on (its card's ``angle_deg``, on the turn it makes: 60 degrees is a turn by -30, 100 one by
10: :func:`angle_refusal`), each with the reason.

The adapter was trained before the turn skill existed, so :func:`turn_text` says a turn
in the words the plan line uses before the model reads the goal: every turn verb becomes
"turn" ("rotate", "spin", "twist" ...), a clause that turns a cube to face the robot
without a turn verb says it ("make the green cube face the robot" -> "turn the green cube
so a face points at the robot"), and a clause that drops the verb after a turn
("turn the red cube by 15 degrees, then the green one": how "every cube except ..." is
expanded) says it again with its angle ("..., then turn the green one by 15 degrees"); one
that drops the verb and the cube ("turn the red cube 45 degrees clockwise, then 30 degrees
counterclockwise") gets both back.
"""

from __future__ import annotations

import math
import re

from miles_ros.agent.phrases import COLOR_WORDS, CUBE_NOUNS
from miles_ros.agent.registry import SkillRegistry
from miles_ros.agent.repertoire import repertoire
from miles_ros.runtime.goals import FACE_ROBOT, GOAL_KEYWORDS, turn_made_deg
from policies.envelope import angle_range_violation

TURN = "turn"
"""The skill that turns a cube in place (its card: ``miles_ros/agent/cards/turn.yaml``)."""
SYMMETRY_DEG = 90.0
"""A cube looks the same after a turn by a multiple of this (degrees)."""

_NUMBER = r"[-+]?\d+(?:\.\d+)?"
_UNITS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen".split()
)
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()
_WORDS = (
    rf"(?:{'|'.join(_TENS)})(?:[ -](?:{'|'.join(_UNITS[1:10])}))?\b|"
    rf"(?:{'|'.join(sorted(_UNITS, key=len, reverse=True))})\b"
)
_DEGREES = re.compile(rf"({_NUMBER}|\b(?:{_WORDS}))\s*(?:degrees?\b|degs?\b|°|º)", re.I)
_FRACTIONS = (
    (re.compile(r"\bthree[ -]quarters? (?:of )?(?:a )?(?:turn|rotation|circle)\b", re.I), 270.0),
    (re.compile(r"\b(?:a |one )?quarter[ -]?(?:turn|rotation|circle)\b", re.I), 90.0),
    (re.compile(r"\bhalf (?:a )?(?:turn|rotation|circle)\b|\bhalf[ -]turn\b", re.I), 180.0),
    (
        re.compile(
            r"\b(?:a )?full (?:turn|rotation|circle)\b|\ball the way (?:a)?round\b|"
            r"\b(?:spin|turn|rotat|twist)\w* (?:\w+ ){0,3}(?:a)?round\b",
            re.I,
        ),
        360.0,
    ),
)
_COUNTER = re.compile(r"\b(?:counter|anti)[ -]?clockwise\b|\bccw\b", re.I)
_CLOCKWISE = re.compile(r"\bclockwise\b|\bcw\b", re.I)
_SIDEWAYS = re.compile(
    r"\b(?:to(?:wards?)?\s+(?:the|your|its)\s+(?P<side>left|right)\b(?!\s*(?:-\s*hand\b|hand\b|of\b|"
    r"side\b|pad|mat|cube|block|box|one\b)))|\b(?P<ward>left|right)wards?\b|"
    r"(?:\bdeg(?:ree)?s?\b\.?|\u00b0)(?:'\s*worth)?\s+(?P<bare>left|right)\b(?!\s*(?:-\s*hand\b|"
    r"hand\b|of\b|side\b|now\b|away\b|pad|mat|tile|spot|cube|block|box|brick|one\b))|"
    r"\b(?:cube|block|box|brick|one|it)\s+(?P<pre>left|right)(?:wards?)?\s+(?:by\s+)?(?=\d|"
    r"[a-z]+(?:[- ][a-z]+)?\s+(?:deg|\u00b0))",
    re.I,
)
"""A turn to a side ("35 degrees to the right", "35 degrees right": a side straight after
the amount's unit; "turn the blue block right by 35 degrees": a side straight after the cube,
before the amount): left counter-clockwise seen from above, right clockwise, as a knob or a
steering wheel turns (docs/interfaces.md)."""
_ROBOT = r"(?:the )?(?:robot|arm|base|you|yourself|me)"
_FACE = re.compile(
    rf"(?:\bso (?:that )?)?"  # said with its "so": rewritten whole, never "so so a face"
    rf"\b(?:an?|one|its|one of its) (?:(?:flat|square|straight|plain|whole) )?(?:face|side)s? "
    rf"(?:(?:is )?(?:points?|pointing|faces?|facing|"
    rf"looks?|looking|turned) |is (?=(?:to|towards?|toward) ))"
    rf"(?:(?:straight|directly|squarely|right|dead) )?"
    rf"(?:at|to|towards?|toward)? ?{_ROBOT}\b|"
    rf"\bto face {_ROBOT}\b|\bfacing {_ROBOT}\b|\bface {_ROBOT}\b|"
    rf"\bso (?:that )?it (?:faces|is facing|points at|looks at) {_ROBOT}\b",
    re.I,
)
_SQUARE_ON = re.compile(
    rf"\b(?:until|till|so)\s+(?:that\s+)?it(?:'s|\s+is)?\s+(?:faces|facing)\s+{_ROBOT}\s+"
    rf"square(?:ly)?(?:\s+on)?\b|\b(?:until|till|so)\s+(?:that\s+)?it(?:'s|\s+is)\s+square(?:ly)?"
    rf"\s+on(?:\s+(?:to|with)\s+{_ROBOT})?\b",
    re.I,
)
"""A turn until the cube is square on to the robot ("until it faces you square on", "till
it's square on to you"): a face pointing at it (the card's reading of square on)."""
_SQUARE = re.compile(
    r"(?<!the )(?<!a )(?<!that )\bsquare(?: up)?"
    rf"(?P<cube>(?: (?!up\b|to\b|with\b)[a-z]+){{0,3}}?)(?: up)? "
    rf"(?:to|with) {_ROBOT}\b",
    re.I,
)
"""A cube squared up with the robot ("square the green cube up with the robot", "square
it to the robot", "square up the red block with you"): its faces square to the robot,
which a turn so a face points at it does (:data:`FACE_ROBOT`); ``cube``: what is squared,
as said."""
_CLAUSE = re.compile(r",|;|\.\s|\bthen\b|\band\b|\bafter that\b", re.I)
_CUBE = re.compile(
    rf"\b(?:{'|'.join(CUBE_NOUNS)})s?\b|\b(?:it|one|them)\b|"
    rf"\b(?:{'|'.join(w for words in COLOR_WORDS.values() for w in words)})\b",
    re.I,
)


def clause_angles(clause: str) -> list[float | str]:
    """The angles one clause states, in order (see the module docstring)."""
    found: list[tuple[int, float | str]] = []
    for match in _DEGREES.finditer(clause):
        found.append((match.start(), _number(match.group(1))))
    taken = [m.span() for m in _DEGREES.finditer(clause)]
    for pattern, degrees in _FRACTIONS:
        for match in pattern.finditer(clause):
            if not any(a < match.end() and match.start() < b for a, b in taken):
                found.append((match.start(), degrees))
                taken.append(match.span())
    found += [(m.start(), FACE_ROBOT) for m in _FACE.finditer(clause)]
    found += [(m.start(), FACE_ROBOT) for m in _SQUARE.finditer(clause)]
    found += [(m.start(), FACE_ROBOT) for m in _SQUARE_ON.finditer(clause)]
    sign = _direction(clause)
    out: list[float | str] = []
    for _, value in sorted(found, key=lambda item: item[0]):
        if isinstance(value, float) and sign is not None:
            value = sign * abs(value)
        out.append(value)
    return out


def _direction(clause: str) -> float | None:
    """The sign a direction word of ``clause`` gives its numbers (counter-clockwise or "to the
    left" 1, clockwise or "to the right" -1), None where it says none."""
    side = _SIDEWAYS.search(clause)
    if _COUNTER.search(clause):  # counter-clockwise first: "clockwise" is inside it
        return 1.0
    if _CLOCKWISE.search(clause):
        return -1.0
    if side:
        said = side["side"] or side["ward"] or side["bare"] or side["pre"]
        return 1.0 if said.lower() == "left" else -1.0
    return None


def _number(text: str) -> float:
    """``45``, ``-12.5``, ``twenty``, ``forty-five`` -> a float."""
    words = text.lower().replace("-", " ").split()
    if not words or words[0] not in [*_UNITS, *_TENS]:
        return float(text)
    units = _UNITS.index(words[-1]) if words[-1] in _UNITS else 0
    tens = 10 * (_TENS.index(words[0]) + 2) if words[0] in _TENS else 0
    return float(tens + units)


def goal_angles(goal: str) -> list[float | str]:
    """Every angle the goal states, in order, each once (see the module docstring)."""
    out: list[float | str] = []
    for clause in _CLAUSE.split(goal):
        for value in clause_angles(clause):
            if value not in out:
                out.append(value)
    return out


def changes_nothing(angle: float | str) -> bool:
    """True when turning a cube by ``angle`` leaves it looking as it was (a multiple of
    :data:`SYMMETRY_DEG`, within 1e-6 degree)."""
    if isinstance(angle, str):
        return False
    rest = math.remainder(float(angle), SYMMETRY_DEG)
    return abs(rest) < 1e-6


def turn_angles(goal: str) -> list[float | str]:
    """The angles grounding may offer a turn: the goal's (:func:`goal_angles`), less those
    that change nothing (:func:`changes_nothing`)."""
    return [a for a in goal_angles(goal) if not changes_nothing(a)]


def stated_values(spec: dict, values: list[float | str]) -> list[float | str]:
    """Of ``values`` (a goal's :func:`turn_angles`), those a parameter with the JSON schema
    ``spec`` takes: numbers where it takes a number, and the keywords it enumerates
    (:data:`~miles_ros.runtime.goals.GOAL_KEYWORDS`)."""
    options = [spec, *spec.get("oneOf", []), *spec.get("anyOf", [])]
    numbers = any(o.get("type") in ("number", "integer") for o in options)
    keywords = {e for o in options for e in o.get("enum", []) if e in GOAL_KEYWORDS}
    return [v for v in values if (v in keywords if isinstance(v, str) else numbers)]


def turn_verbs(registry: SkillRegistry) -> frozenset[str]:
    """The verbs that ask for the turn skill (its repertoire: card and generator); none
    when the registry has no turn skill."""
    return repertoire(registry).get(TURN, frozenset()) if TURN in registry else frozenset()


def turning_clauses(clauses: list[str], registry: SkillRegistry) -> list[str]:
    """The clauses that ask to turn a cube: a turn verb and a cube (or "it"), or a cube
    told to face the robot ("make the green cube face the robot"); none without a turn
    skill. ``clauses``: lower case (:func:`miles_ros.agent.goal_clauses.split_clauses`)."""
    verbs = turn_verbs(registry)
    if not verbs:
        return []
    verb = _verb_pattern(verbs)
    return [
        c
        for c in clauses
        if (verb.search(c) and _CUBE.search(c))
        or (FACE_ROBOT in clause_angles(c) and _FACING.match(c.strip()))
    ]


def missing_turn(turning: list[str], steps: list) -> str | None:
    """Why a plan of ``steps`` does not serve a goal whose ``turning`` clauses ask to turn
    a cube: it has steps and none of them turns (the model chose another skill, or the
    skill node refused the turn skill and the replan left it out); None otherwise."""
    if not turning or not steps or any(s.skill == TURN for s in steps):
        return None
    return (
        f"the goal asks to turn a cube ({turning[0]!r}) and no turn step could be planned "
        "for it: another skill would not do what it asks"
    )


def turn_refusal(goal: str, clauses: list[str], registry: SkillRegistry) -> str | None:
    """Why a goal that asks to turn a cube cannot be planned as said, or None: it states
    no angle, or only angles that change nothing (multiples of 90 degrees). ``clauses``:
    the goal's clauses, lower case (:func:`miles_ros.agent.goal_clauses.split_clauses`)."""
    turning = turning_clauses(clauses, registry)
    if not turning:
        return None
    angles = goal_angles(goal)
    if not angles:
        return (
            f"the goal does not say how far to turn ({turning[0]!r}): give an angle in "
            "degrees ('by 30 degrees', '30 degrees clockwise') or ask for a face to point "
            "at the robot"
        )
    if all(changes_nothing(a) for a in angles):
        said = ", ".join(f"{a:g} degrees" for a in angles if isinstance(a, float))
        return (
            f"a cube looks the same every {SYMMETRY_DEG:g} degrees: turning it by {said} "
            "leaves it looking as it is, so there is nothing to do"
        )
    return angle_refusal(angles, registry)


def angle_refusal(angles: list[float | str], registry: SkillRegistry) -> str | None:
    """Why a turn by one of ``angles`` is outside the turn skill's trained range (its
    card's ``angle_deg`` envelope, checked on the turn the skill makes:
    :func:`~miles_ros.runtime.goals.turn_made_deg`, 60 degrees being a turn by -30), or
    None (inside, or a card without the range)."""
    envelope = registry[TURN].card.envelope if TURN in registry else None
    allowed = envelope.angle_deg if envelope is not None else None
    if allowed is None:
        return None
    for angle in angles:
        if isinstance(angle, str) or changes_nothing(angle):
            continue
        made = turn_made_deg(angle)
        why = angle_range_violation(made, allowed)
        if why:
            said = f"turn by {angle:g} deg"
            if abs(abs(made) - abs(angle)) > 1e-6:
                said += (
                    f" (a turn by {abs(made):g} deg: a cube looks the same every "
                    f"{SYMMETRY_DEG:g} deg)"
                )
            return (
                f"{said}: {why} (the turn skill was trained on turns of {allowed.min:g} to "
                f"{allowed.max:g} deg)"
            )
    return None


_COLOURS = "|".join(w for words in COLOR_WORDS.values() for w in words)
"""Every colour word of the scene's cubes, as a regex alternation."""
_SEPARATORS = re.compile(r"(,\s*|;\s*|\.\s+|\s+then\s+|\s+and\s+)", re.I)
_FACING = re.compile(
    r"^(?:(?:please |now |then |and |also )*(?:make|have|let|get) )?(?P<cube>(?:the |that )?(?:"
    + _COLOURS
    + rf")(?: (?:{'|'.join(CUBE_NOUNS)}|one))?) (?:should |must |to )?(?:face|faces|facing)\b",
    re.I,
)
"""A clause whose cube is to face something, with no verb of its own ("make the green
cube face the robot", "the red cube should face the robot")."""
_LEAD = re.compile(r"^((?:and\s+)?(?:then\s+)?(?:also\s+)?)(.*)$", re.I | re.S)
_ELIDED = re.compile(
    r"^(?:and\s+)?(?:then\s+)?(?:also\s+)?(?:the\s+|that\s+)?(?:" + _COLOURS + r")\b",
    re.I,
)


_AMOUNT = re.compile(
    r"^(?P<so>(?:so|that\s+is|i\.\s?e\.|ie|meaning|or|which\s+is|making\s+(?:it|that))\s*,?\s+)?"
    r"(?:by\s+)?(?:(?:about|around|roughly|exactly|precisely|some|just)\s+)?"
    rf"(?:{_NUMBER}|(?:{_WORDS}))\s*(?:degrees?\b|degs?\b|°|º)(?:'s?)?(?:\s+(?:worth|of\s+turn))?"
    r"(?:\s+(?:counter[ -]?clockwise|anti[ -]?clockwise|clockwise|to\s+the\s+(?:left|right)))?"
    r"(?:\s+(?:in\s+all|in\s+total|total|or\s+so))?\s*[.!]?\s*$",
    re.I,
)
"""An amount said alone after a turn clause, as its own part ("..., twenty-five degrees'
worth", "..., so 22.5 degrees"): the amount of that turn (``so``: said again in numbers, it
stands for the words before it)."""
_NAMED = re.compile(
    r"\b(?:the\s+)?(?:" + _COLOURS + rf")(?:\s+(?:{'|'.join(CUBE_NOUNS)}))\b",
    re.I,
)
"""A cube named by its colour and noun ("the red cube"): the cube a turn clause turns."""
_TURN_CLAUSE = re.compile(r"^(?:(?:and|then|also|now|first|next|finally)\s+)*turn\b", re.I)
"""A clause that turns a cube, as :func:`turn_text` says it."""
_NAMED_ONE = re.compile(
    r"\b(?P<colour>" + _COLOURS + rf")(?:\s+(?:{'|'.join(CUBE_NOUNS)}|one))\b",
    re.I,
)


def turn_text(goal: str, registry: SkillRegistry) -> str:
    """``goal`` with its turns said as the plan says them (see the module docstring);
    unchanged when the registry has no turn skill or the goal turns nothing."""
    verbs = turn_verbs(registry)
    if not verbs:
        return goal
    verb = _verb_pattern(verbs)
    parts = _SEPARATORS.split(goal)
    said = None  # the angle of the last turn clause, in words
    turned = None  # the cube it turns, as said
    last = None  # the index of the last part, where it is a turn clause
    for i in range(0, len(parts), 2):
        amount = _AMOUNT.match(parts[i].strip())
        if amount and last == i - 2 and (not clause_angles(parts[last]) or amount["so"]):
            # "turn the red cube clockwise, 25 degrees' worth": the amount of that turn
            sign = _direction(parts[i]) or _direction(parts[last]) or 1.0
            angle = sign * abs(clause_angles(re.sub(r"'s?\b", "", parts[i]))[0])
            lead, _ = _LEAD.match(parts[last].strip()).groups()
            cube = turned or "it"
            parts[last] = f"{lead}turn {cube} {_in_words(angle)}"
            parts[i - 1] = parts[i] = ""
            said = _in_words(angle)
            last = None
            continue
        last = None
        part = _SQUARE_ON.sub("so a face points at the robot", parts[i])
        part = _SQUARE.sub(lambda m: f"turn{m['cube']} to face the robot", part)
        part = re.sub(r"\bsquare up\b(?= (?:the|it|this|that)\b)", "square", part, flags=re.I)
        angles = clause_angles(part)
        if verb.search(part) and _CUBE.search(part):
            parts[i] = verb.sub("turn", part)
            if FACE_ROBOT in angles:  # "so it faces you" -> "so a face points at the robot"
                parts[i] = _FACE.sub(_in_words(FACE_ROBOT), parts[i])
            said = _in_words(angles[0]) if angles else said
            named = _NAMED.search(part)
            turned = named.group(0) if named else None
            last = i
        elif turned and angles and not _CUBE.search(part) and not verb.search(part):
            lead, _ = _LEAD.match(part.strip()).groups()  # "..., then 30 degrees clockwise"
            parts[i] = f"{lead}turn {turned} {_in_words(angles[0])}"
        elif FACE_ROBOT in angles and (facing := _FACING.match(part.strip())):
            parts[i] = f"turn {facing.group('cube')} {_in_words(FACE_ROBOT)}"
            said = _in_words(FACE_ROBOT)
        elif said and _ELIDED.match(part.strip()):
            lead, rest = _LEAD.match(part.strip()).groups()
            rest = re.sub(r"\s+(?:too|as well)$", "", rest)
            parts[i] = f"{lead}turn {rest}" + ("" if angles else " " + said)
        else:
            said = None
    return "".join(parts)


def turn_sequence(text: str, world) -> list[tuple[str | None, float | str]]:
    """The turns ``text`` (as :func:`turn_text` says it) asks for, in order: (the cube its
    clause names, or None for "it"; the angle), one per turn clause. Empty when a turn
    clause states no angle or several: then the clauses do not pair cubes with angles."""
    out: list[tuple[str | None, float | str]] = []
    for part in _SEPARATORS.split(text)[::2]:
        if not _TURN_CLAUSE.match(part.strip()):
            continue
        angles = clause_angles(part)
        if len(angles) != 1:
            return []
        named = _NAMED_ONE.search(part)
        cube = _cube_named(named.group("colour"), world) if named else None
        out.append((cube, angles[0]))
    return out


def only_turns(text: str) -> bool:
    """Whether every clause of ``text`` (as :func:`turn_text` says it) is a turn."""
    parts = [p.strip() for p in _SEPARATORS.split(text)[::2] if p.strip(" .")]
    return bool(parts) and all(_TURN_CLAUSE.match(p) for p in parts)


def off_sequence(
    step, sequence: list[tuple[str | None, float | str]], turned: int, only: bool = False
) -> bool:
    """Whether ``step`` would break the order the goal's turns are said in: the
    ``turned``-th turn (0 first) must turn the cube and by the angle its clause says; with
    ``only`` (a goal of turns only, :func:`only_turns`), no other step (``home``, ``done``)
    serves it until its turns are done."""
    if turned >= len(sequence):
        return False
    if step.skill != TURN:
        return only
    cube, angle = sequence[turned]
    if cube is not None and step.params.get("object") != cube:
        return True
    said = step.params.get("angle")
    if isinstance(angle, str) or isinstance(said, str):
        return said != angle
    return abs(float(said) - float(angle)) > 1e-6


def _cube_named(colour: str, world) -> str | None:
    colour = colour.lower()
    for name in world.objects:
        head = name.split("_")[0]
        if colour == head or colour in COLOR_WORDS.get(head, []):
            return name
    return None


def _in_words(angle: float | str) -> str:
    """An angle as a turn clause says it: ``by 15 degrees``, ``by 30 degrees clockwise``,
    ``so a face points at the robot``."""
    if angle == FACE_ROBOT:
        return "so a face points at the robot"
    return f"by {abs(angle):g} degrees" + (" clockwise" if angle < 0 else "")


def _verb_pattern(verbs: frozenset[str]) -> re.Pattern:
    return re.compile(r"\b(?:" + "|".join(sorted(_stem(v) for v in verbs)) + r")\w*\b", re.I)


def _stem(verb: str) -> str:
    """``rotate`` -> ``rotat`` (rotates, rotated, rotating), ``turn`` -> ``turn``."""
    return verb[:-1] if verb.endswith("e") else verb
