"""The goal as a sequence: the order its steps are said in, cubes said together, and the
words that point back at a cube, said plainly before the model reads the goal.

The adapter was trained on goals said in the order they are done ("X, then Y"), one cube
per step ("X to the pad, then the green one") and a cube named where it is acted on. People
also say:

============================================================  =================================
the goal says                                                  the model reads
============================================================  =================================
"go home, but first put the red cube on the left pad" ("go     "put the red cube on the left
home, but put ... first", "go home. Before that, put ...")     pad, then go home"
"hover over X after you put / after putting / once you have    "put Y ..., then hover over X"
put Y ..." ("after ..., X" too); "X last, after Y"
"before you push / before pushing Y ..., X"; "X before Y"      "X, then push Y ..." / "X, then Y"
"before you push the blue cube ..., hover above it"            "hover above the blue cube, then
                                                               push the blue cube ..."
"once the blue cube is on the right pad, X"                    "put the blue cube on the right
                                                               pad, then X"
"put A on the left pad and B on the right pad, but do A last"  "put B on the right pad, then put
                                                               A on the left pad"
"X last; first Y", "X last; start by / begin with Y-ing ..."   "Y ..., then X"
"finish at home; first Y", "end by X-ing. First Y"             "Y ..., then go home" / "..., X"
"put A ... second and B ... first"                             "put B ..., then put A ..."
"A, then B, and after both / once all that is done C"          "A, then B, then C"
"pick up the red and the blue cube and put them on the right   "put the red cube on the right
pad"; "turn the red and the green cube by 20 degrees each"     pad, then the blue one"; "turn
                                                               the red cube by 20 degrees, then
                                                               the green one"
"..., then hover over it" / "reach for it"; "..., then put      "..., then hover over the green
the red cube next to it"                                       cube" (the cube acted on last)
"the one (cube) you just moved / pushed / placed"              that cube's name
"hover over X, then put that one / this block on ..."          "..., then put X on ..."
"..., then move it back" / "push the red cube back"            "put the red cube at (0.45, -0.1,
                                                               0.02)" / "push ... to ...":
                                                               where it stood before the goal
============================================================  =================================

:func:`said_in_order` applies them, after the goal's prohibitions are taken out
(:func:`miles_ros.agent.scope.read_scope`) and before "the cube" and "it" are asked
about (:func:`miles_ros.agent.references.resolve_references`): a pronoun with a cube to
point at is named here, one without is asked about there.

Its four passes (order, "the same", cubes said together, pointing back) run in one order
in :func:`said_in_order`, each reading what the one before said; the cube and verb words
are in :mod:`miles_ros.agent.cube_words`, the pointing back in
:mod:`miles_ros.agent.pointing`.
"""

from __future__ import annotations

import re

from miles_ros.agent.clause_grammar import then_said
from miles_ros.agent.cube_words import _NOUN, VERBS, CubePhrases, CubeWords, imperative
from miles_ros.agent.pointing import pointed
from miles_ros.agent.reference_scene import spoken
from miles_ros.agent.world import World


def said_in_order(goal: str, world: World) -> str:
    """``goal`` said as the plan does it (see the module): the steps in the order they are
    done, cubes said together one per step, pronouns that point back at a cube named."""
    if not world.objects:
        return goal
    cubes = CubePhrases(world)
    text = _in_order(goal.strip(), cubes)
    text = _the_same(text, cubes)
    text = _coordinated(text, cubes)
    text = pointed(text, cubes)
    return goal if text == goal.strip() else text[:1].upper() + text[1:]


# -- order ---------------------------------------------------------------------------------
_SUBJECT = re.compile(
    r"^(?:you(?:'ve|\s+have|\s+are\s+done|'re\s+done)?\s+|having\s+|you\s+)?(?:done\s+)?", re.I
)


_PUSHED = r"(?:pushed|slid|slidden|shoved|nudged|dragged)"
"""The participles of a push: a state reached by one ("once the red cube has been pushed
onto the left pad") is brought about by a push, not a placing."""
_STATE = re.compile(
    rf"^(?P<cube>the\s+\w+\s+{_NOUN})\s+(?:(?:is|has\s+been|'s\s+been|was|gets|got)\s+"
    rf"(?P<pushed>{_PUSHED})\s+(?:(?:over|across)\s+)?(?:to|onto|on\s+to)|(?:is|sits|stands|lies|"
    r"rests|has\s+been\s+\w+|was\s+\w+)\s+(?:on\s+top\s+of|onto|on))\s+(?P<where>the\s+.+)$",
    re.I,
)
"""A state said as the condition of a later step ("once the blue cube is on the right
pad, ..."): the step that brings it about comes first."""


def _step(clause: str) -> str:
    """A clause said after "after" / "before" / "once" as an imperative: "you have pushed
    the red cube ..." -> "push the red cube ..."."""
    clause = _SUBJECT.sub("", clause.strip(" ,.")).strip()
    state = _STATE.match(clause)
    if state:  # "once the blue cube is on the right pad": the step that makes it so
        verb = "push" if state["pushed"] else "put"
        return f"{verb} {state['cube']} on{'to' if state['pushed'] else ''} {state['where']}"
    first, _, rest = clause.partition(" ")
    verb = imperative(first)
    return f"{verb} {rest}".strip() if verb != first else clause


def _tidy(clause: str) -> str:
    clause = re.sub(r"\s*,?\s*\blast\b\s*$", "", clause.strip(" ,."), flags=re.I)
    return re.sub(r"^(?:and\s+|then\s+)+", "", clause, flags=re.I).strip()


def _join(first: str, then: str, end: str, cubes: CubeWords) -> str:
    """The two steps in the order they are done. An "it" in the first that names no cube
    of its own points forward, at the cube of the step said with it ("before you push the
    blue cube to the left pad, hover above it"): said by name, now that it comes first."""
    first, then = _tidy(first), _tidy(then)
    ahead = cubes.name(then)
    if ahead and not cubes.name(first) and re.search(r"\bit\b", first, re.I):
        first = re.sub(r"\bit\b", "the " + spoken(ahead), first, count=1, flags=re.I)
    return then_said(first, then, end)


_BUT_FIRST = re.compile(r"^(?P<a>.+?)\s*,?\s*\b(?:but|and)\s+first\b\s*,?\s*(?P<b>.+)$", re.I)
_FIRST_AT_END = re.compile(r"^(?P<a>.+?)\s*,?\s*\bbut\s+(?P<b>.+?)\s+first$", re.I)
_BEFORE_THAT = re.compile(
    r"^(?P<a>[^.;]+?)\s*[,.;]?\s+(?:but\s+|and\s+)?before\s+(?:that|this|doing\s+(?:so|that|this)|"
    r"you\s+do\s+(?:that|this|so))\s*,?\s+(?P<b>[^.;]+)$",
    re.I,
)
_LAST_THEN_FIRST = re.compile(
    r"^(?P<a>[^.;]+?)\s*,?\s+(?:last|at the end|in the end)\s*[,.;]\s*(?:but\s+|and\s+)?"
    r"(?:first of all|firstly|first|to begin with|to start with|(?:start|begin)(?: off)? "
    r"(?:by|with))\s*,?\s+(?P<b>[^.;]+)$",
    re.I,
)
"""A step said with "last", then the one said with "first" ("start by ...", "begin with
..."): done the other way round."""
_LEAD_AFTER = re.compile(
    rf"^(?:after|once|when(?=\s+the\s+\w+\s+{_NOUN}\s+(?:has|have|is|'s)\s+(?:been\s+)?{_PUSHED}\b))"
    r"\s+(?P<b>(?!that\b|this\b).+?)\s*,\s*(?P<a>.+)$",
    re.I,
)
"""A step said after the one it follows ("once / after X, Y"; "when" only before a state a
push brings about: "when the red cube has been pushed onto P, Y")."""
_TAIL_AFTER = re.compile(
    r"^(?P<a>.+?)\s*,?\s+(?:but\s+)?(?:only\s+)?(?:after|once)\s+"
    r"(?P<b>(?!that\b|this\b|which\b|wards\b).+)$",
    re.I,
)
_LEAD_BEFORE = re.compile(r"^before\s+(?P<b>.+?)\s*,\s*(?P<a>.+)$", re.I)
_TAIL_BEFORE = re.compile(r"^(?P<a>.+?)\s*,?\s+before\s+(?P<b>(?!that\b|this\b).+)$", re.I)


_AFTER_ALL = re.compile(
    r"\s*,?\s*\b(?:and\s+)?(?:only\s+)?(?:after|once)\s+(?:both(?:\s+of\s+(?:them|those|these))?|"
    r"all\s+(?:of\s+)?(?:that|this|those|these|them)|everything(?:\s+else)?|those|these|them)"
    r"(?:\s+(?:is|are)\s+(?:done|finished|over))?\s*,?\s+",
    re.I,
)
"""A step said after the steps before it as a whole ("..., and after both hover over the
blue cube"): it comes next, as "then" says."""
_FINISH = re.compile(
    r"^(?:finish|end)(?:\s+up|\s+off)?\s+(?:(?P<home>(?:at|in)\s+(?:your\s+|the\s+)?home"
    r"(?:\s+(?:position|pose))?)|(?:by|with)\s+(?P<step>[^.;,]+?))"
    r"(?=\s*[,.;]\s*(?:but\s+|and\s+)?(?:first|firstly|to begin with|to start with|"
    r"(?:start|begin)(?:\s+off)?\s+(?:by|with))\b)",
    re.I,
)
"""A step said as how the goal ends ("finish at home; first ...", "end by hovering over
the left pad. First ..."): the last step, said with "last"."""
_RANK = {"first": 0, "firstly": 0, "second": 1, "secondly": 1, "third": 2, "thirdly": 2}
_RANKED = re.compile(
    r"\s*,?\s*\b(?P<rank>first|firstly|second|secondly|third|thirdly|last)$", re.I
)


def _ranked(body: str, end: str) -> str | None:
    """ "put A on the left pad second and B on the right pad first": steps each said with
    its place in the order at its end, done in that order ("last" after the others); a verb
    said once serves the steps that drop it."""
    parts = [
        p for p in re.split(r"\s*,\s*(?:and\s+)?(?:then\s+)?|\s+and\s+(?:then\s+)?", body) if p
    ]
    marks = [_RANKED.search(p) for p in parts]
    if len(parts) < 2 or None in marks:
        return None
    ranks = [_RANK.get(m["rank"].lower(), len(parts)) for m in marks]
    if len(set(ranks)) != len(ranks) or ranks == sorted(ranks):
        return None
    verb, said = "", []
    for part, mark in zip(parts, marks, strict=True):
        step = part[: mark.start()].strip()
        first = step.split()[0].lower() if step else ""
        if first in VERBS:
            verb = step.split()[0]
        elif verb and first in ("the", "a"):
            step = f"{verb.lower()} {step}"
        said.append(step)
    steps = [s for _, s in sorted(zip(ranks, said, strict=True))]
    out = ", then ".join(s[:1].lower() + s[1:] for s in steps)
    return out[:1].upper() + out[1:] + end


def _in_order(text: str, cubes: CubePhrases) -> str:
    end = re.search(r"[.!?]*$", text).group(0)
    body = text[: len(text) - len(end)] if end else text
    body = _AFTER_ALL.sub(", then ", body)
    finish = _FINISH.match(body)
    if finish:  # "finish at home; first ...": the step said last
        last = "go home" if finish["home"] else _step(finish["step"])
        body = f"{last} last{body[finish.end() :]}"
    ranked = _ranked(body, end)
    if ranked:
        return ranked
    match = _BEFORE_THAT.match(body) or _LAST_THEN_FIRST.match(body)
    if match:  # "start by pushing ...": the step said as an imperative
        return _join(_step(match["b"]), match["a"], end, cubes)
    if re.search(r"[.;]\s", body):  # several sentences: each is said in order already
        return body + end
    match = _BUT_FIRST.match(body) or _FIRST_AT_END.match(body)
    if match:
        return _join(match["b"], match["a"], end, cubes)
    for pattern in (_LEAD_AFTER, _TAIL_AFTER):
        match = pattern.match(body)
        if match:
            return _join(_step(match["b"]), match["a"], end, cubes)
    match = _LEAD_BEFORE.match(body)
    if match:
        return _join(match["a"], _step(match["b"]), end, cubes)
    match = _TAIL_BEFORE.match(body)
    if match:
        return _join(match["a"], _step(match["b"]), end, cubes)
    return _last(body, end, cubes) or body + end


def _last(body: str, end: str, cubes: CubePhrases) -> str | None:
    """ "put A ... and B ..., but do A last" -> "put B ..., then put A ..."."""
    last = re.search(
        rf"\s*,?\s*(?:but\s+|and\s+)?(?:do|with|leave|doing|save)\s+(?P<cube>{cubes.one})\s+"
        rf"(?:for\s+)?(?:until\s+)?(?:the\s+)?last\b\s*",
        body,
        re.I,
    )
    if last is None:
        return None
    cube = cubes.name(last["cube"])
    rest = body[: last.start()] + body[last.end() :]
    parts = [
        p for p in re.split(r"\s*,\s*(?:and\s+|then\s+)*|\s+(?:and\s+then|then|and)\s+", rest) if p
    ]
    if len(parts) < 2:
        return None
    verb = ""
    said: list[str] = []
    for part in parts:
        first = part.split()[0].lower()
        if first in VERBS:
            verb = part.split()[0]
        elif verb and re.match(cubes.one, part, re.I):
            part = f"{verb.lower()} {part}"
        said.append(part)
    first = [p for p in said if cubes.name(p) != cube]
    later = [p for p in said if cubes.name(p) == cube]
    if not first or not later:
        return None
    steps = [_tidy(s) for s in (*first, *later)]
    out = ", then ".join(s[:1].lower() + s[1:] for s in steps)
    return out[:1].upper() + out[1:] + end


# -- cubes said together -------------------------------------------------------------------
def _coordinated(text: str, cubes: CubePhrases) -> str:
    """ "VERB the red and the blue cube REST" -> "VERB the red cube REST, then the blue one";
    "VERB1 the red and blue cubes and VERB2 them REST" -> "VERB2 the red cube REST, then the
    blue one"; "each" after an angle or a place goes."""
    verbs = "|".join(sorted(VERBS, key=len, reverse=True))
    pattern = re.compile(
        rf"\b(?P<verb>(?:{verbs})\w*(?:\s+up)?)\s+(?:both\s+|each\s+of\s+)?"
        rf"(?P<list>{cubes.one}(?:\s*,\s*{cubes.one})*\s*,?\s+and\s+{cubes.one})",
        re.I,
    )
    match = pattern.search(text)
    if match is None:
        return text
    names = cubes.named(match["list"])
    if len(names) < 2:
        return text
    after = text[match.end() :]
    them = re.match(r"\s*,?\s*and\s+(?:then\s+)?(?P<verb>[a-z]+)\s+them\b", after, re.I)
    verb = match["verb"]
    if them:
        verb, after = them["verb"], after[them.end() :]
    after = re.sub(r"\s+(?:each|both)\b", "", after, count=1, flags=re.I)
    stop = re.search(r"\s*(?:[,;:]|\.\s|[.!?]+$|\b(?:and|then|but)\b)", after)
    clause, rest = (after[: stop.start()], after[stop.start() :]) if stop else (after, "")
    if not clause.strip():
        return text  # "stack the red and blue cubes": the cubes are not steps of their own
    others = "".join(f", then the {n.split('_')[0]} one" for n in names[1:])
    first = "the " + spoken(names[0])
    return text[: match.start()] + f"{verb} {first}{clause}{others}{rest}"


def _the_same(text: str, cubes: CubePhrases) -> str:
    """ "push the red cube to the left pad and do the same with the green one" -> "push the
    red cube to the left pad, then push the green cube to the left pad": the step before,
    said again for the cube named."""
    match = re.search(
        rf"(?P<sep>\s*[,;.]?\s*(?:and\s+)?(?:then\s+)?)\bdo\s+the\s+same\s+(?:thing\s+)?"
        rf"(?:with|for|to)\s+(?P<cube>{cubes.one})",
        text,
        re.I,
    )
    if match is None:
        return text
    before = text[: match.start()]
    clause = re.split(r"[.;]\s+|,\s*(?:and\s+)?then\s+|\s+and\s+then\s+", before)[-1]
    said = re.search(cubes.one, clause, re.I)
    cube = cubes.name(match["cube"])
    if said is None or cube is None:
        return text
    again = clause[: said.start()] + "the " + spoken(cube) + clause[said.end() :]
    again = again.strip(" ,")
    return f"{before.rstrip(' ,;.')}, then {again[:1].lower()}{again[1:]}{text[match.end() :]}"
