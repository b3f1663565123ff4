"""What a goal leaves still, said plainly before the rest of the clause reading
(:func:`miles_ros.agent.clauses.plain_clauses` runs these on each sentence):

- a thing set aside, "never mind X", "forget (about) X", "leave X be": nothing is planned
  for it; beside a request the request alone is read ("Forget the blue block; hover over
  the red cube." -> "hover over the red cube."), and alone nothing is asked
  (:func:`set_aside`);
- no motion in other words ("hold your horses", "you can stay put", "that's all for
  now", "no need to move"): :data:`IDLE`, one more kind of clause asking for no motion;
- a referent, then a wait above it ("go to the left pad and wait above it", "move over
  the blue cube and hold there", "find X and stay right above it", "move your gripper to X
  and stay above it", "go over to X with the gripper and keep above it"): a hover over it
  (:func:`wait_at`).

Grammar, not goals: each pattern is a verb frame with a noun phrase slot, its particles
and its adverbs.
"""

from __future__ import annotations

import re
from collections.abc import Callable

_NP = (
    r"(?:the|that|this|your)\s+(?:[a-z'-]+\s+){0,3}?"
    r"(?:cube|block|box|brick|one|pad|mat|square|tower|stack)s?"
)
_LEAD = r"(?:(?:oh|ok(?:ay)?|actually|and|but|just|no|hmm|right|so|wait)\s*,?\s+)*"
_TAIL = r"(?:\s*,?\s+(?:after all|for now|then|actually|now|too|as well|please|thanks))*"
_SET_ASIDE = re.compile(
    rf"^{_LEAD}(?:(?:never\s*mind|forget)(?:\s+about)?\s+(?:{_NP})|"
    rf"leave\s+(?:{_NP}|it|them)\s+be){_TAIL}[.!]?$",
    re.I,
)
"""A thing set aside: "never mind the red cube", "forget about the blue block after all",
"leave the green one be"."""
_PARTS = re.compile(r"(\s*[,;:]\s*|\s+[-\u2013\u2014]+\s+|\s+and\s+(?:then\s+)?)", re.I)


def set_aside(sentence: str, nothing: Callable[[str], bool]) -> str:
    """``sentence`` without its parts that set a thing aside (see the module): "do nothing
    for now." when no part is left but ones ``nothing`` says ask for no motion, the
    sentence unchanged when no part sets a thing aside."""
    pieces = _PARTS.split(sentence.strip())
    parts, seps = pieces[::2], [""] + pieces[1::2]
    kept = [(s, p) for s, p in zip(seps, parts, strict=False) if not _SET_ASIDE.match(p)]
    if len(kept) == len(parts):
        return sentence
    if all(nothing(p) or IDLE.match(p.strip(" .!")) for _, p in kept if p.strip(" .!")):
        return "do nothing for now."
    text = kept[0][1] + "".join(f"{s}{p}" for s, p in kept[1:])
    text = re.sub(r"^(?:just|then|so)\s+", "", text.strip(), flags=re.I)
    return text[:1].upper() + text[1:]


IDLE = re.compile(
    r"^(?:(?:oh|ok(?:ay)?|hey|right|no|so|just)\s*,?\s+)*(?:hold your horses|"
    r"(?:you can |you'?re (?:fine|free|ok|okay|good) to |just )?(?:stay (?:put|where you are)|"
    r"stay right where you are|stay as you are)|(?:easy|whoa+|woah+)(?: there| now)?|not so fast|"
    r"ok(?:ay)?|alright|all right|right|so|well|actually|then|"
    r"(?:i'?m|i am|we'?re|we are) not ready(?: (?:for you )?to (?:move|start|go))?|"
    r"(?:that'?s|that is) (?:everything|all|it)(?: for (?:now|today|the moment))?|"
    r"we'?re (?:finished|done|all done)(?: here)?|no need to (?:move|do anything)|"
    r"(?:you )?(?:don'?t|do not) (?:need|have) to (?:move|do anything)|"
    r"(?:sit|hang|stay) tight|sit still|(?:don'?t|do not) go anywhere|"
    r"(?:just )?(?:wait|stay|remain|hold|keep|freeze)(?: right| just)?(?: (?:there|here|"
    r"where you are|still|put))?(?: and (?:don'?t|do not) move)?|(?:don'?t|do not) move|"
    r"(?:wait|stay|hold|sit)(?: (?:there|here|put|still|where you are))? (?:until|till|'?til) "
    r"(?:i|we) (?:tell you|say|give (?:you )?the word|give the signal)(?: (?:so|go|when))?"
    r"(?: to (?:go|start|move|begin))?)"
    r"(?:\s*,?\s+(?:yet|just yet|for now|at the moment|right now|today|for today|then|"
    r"thanks|thank you|cheers|please|here|for the moment|robot|will you|"
    r"(?:for )?(?:a|one) (?:minute|moment|"
    r"sec|second|bit|while)|while (?:i|we) (?:think|decide|check)(?: about it)?|would you))*$",
    re.I,
)
"""A clause asking for no motion in other words ("hold your horses", "you can stay put",
"whoa, not so fast", "I'm not ready for you to move yet", "that's everything for now", "sit
tight a minute", "wait until I tell you to go")."""

_WAIT_AT = re.compile(
    r"^(?:(?:(?:go|move|head|get|come|travel)(?:\s+(?:your|the)\s+(?:gripper|hand|arm))?|"
    r"(?:take|bring)\s+(?:your|the)\s+(?:gripper|hand|arm))(?:\s+(?:over|across|up|right))?"
    r"(?:\s+(?:to|over|above|towards?|on top of))?|find|locate|reach)\s+"
    r"(?P<np>(?:the|that|this)\s+[^,;.!?]+?)(?:\s+with\s+(?:your|the)\s+(?:gripper|hand))?"
    r"\s*,?\s+and\s+(?:then\s+)?(?:wait|hold(?:\s+(?:still|position|steady))?|stay|remain|"
    r"pause|hang|keep)(?:\s+(?:right|directly|just))?(?:\s+(?:above|over|on top of)\s+"
    r"(?:it|that one|this one)|\s+there)?(?:\s+(?:for\s+)?(?:a|one)\s+(?:sec|second|moment|bit|"
    r"while))?(?:\s*,?\s+please)?\s*(?P<end>[.!?]?)$",
    re.I,
)


def wait_at(sentence: str) -> str:
    """A referent, then a wait above it ("go to the left pad and wait above it", "move over
    the blue cube and hold there"): "hover over <it>"; anything else unchanged."""
    m = _WAIT_AT.match(sentence.strip())
    if m is None or re.search(r"\b(?:and|then|but)\b", m["np"], re.I):
        return sentence
    return f"hover over {m['np']}{m['end'] and '.'}"


_KEPT = re.compile(
    rf"^(?P<kept>(?:(?:don'?t|do not|never)\s+(?:move|shift|budge|disturb|lift|push)\s+"
    rf"(?P<np>{_NP})(?:\s+(?:at all|an inch))?|(?:keep|leave)\s+(?P<np2>{_NP})\s+(?:where it is|"
    rf"in place|still|put|as it is)|(?P<np3>{_NP})\s+(?:stays|remains|is staying)"
    rf"(?:\s+(?:put|still|where it is|in place))?)\s*(?:[,;:]\s*|\s+[-\u2013\u2014]+\s+|"
    rf"[.!]\s+)(?:(?:but|just|and|now|then)\s+)*)(?P<rest>\w[^.!?]*?\b(?:on top of|onto|on))"
    rf"\s+(?:it|that one)\b(?P<after>[^.!?]*[.!?]?)$",
    re.I,
)
"""A cube kept still, then another put on it ("don't move the blue cube, but put the red
cube on top of it"; "Leave the blue block where it is. Set the red one on it.", "The blue cube
stays put. Stack the red cube on it.": the next sentence's "it" is the kept cube)."""


def kept_under(sentence: str) -> str:
    """A cube kept still, then another put on it: "it" said as the kept cube ("Don't move
    the blue cube, but put the red cube on top of the blue cube"; the prohibition stays,
    and a placing on a cube moves only the cube placed); anything else unchanged."""
    m = _KEPT.match(sentence.strip())
    if m is None:
        return sentence
    np = m["np"] or m["np2"] or m["np3"]
    return f"{m['kept']}{m['rest']} {np[:1].lower()}{np[1:]}{m['after']}"


_LEAVING = re.compile(
    r"(?:\s*,\s*|\s+)(?:(?:while|whilst|but)\s+)?leaving\s+(?P<np>(?:the|that|this|those|these|"
    r"both|all|everything|it\b|them\b)[a-z' -]{0,60}?)\s+(?P<how>alone|be|untouched|in\s+place|"
    r"(?:just\s+|exactly\s+)?(?:where|as)\s+(?:it\s+is|they\s+are|it\s+was|they\s+were))"
    r"(?=\s*[.!;,]|\s*$)",
    re.I,
)
"""A request, then what it leaves still said as a participle ("lift X onto P, leaving the
other two alone", "..., leaving the others where they are")."""


def left_alone(sentence: str) -> str:
    """What a request leaves still, said as a participle, said as its own clause: "lift X
    onto P, leaving the other two alone" -> "lift X onto P, and leave the other two alone"
    (read as a thing kept still beside the request)."""
    return _LEAVING.sub(lambda m: f", and leave {m['np']} {m['how']}", sentence)
