"""The grammar :func:`~miles_ros.agent.clauses.plain_clauses`'s rewrites share: the scene's
nouns and the prepositions as patterns, the verbs a clause opens with (:func:`verb_of`),
openers and asides said around a request (:func:`_openers_off`, :func:`_aside`,
:func:`_asks_nothing`), a noun phrase naming a scene thing (:func:`noun_phrase`), and the
small helpers every rewrite uses (a clause's first word or verb, a first letter's case).
"""

from __future__ import annotations

import re

from miles_ros.agent.phrases import CUBE_NOUNS, PAD_NOUNS
from miles_ros.agent.scene_colours import COLOUR
from miles_ros.agent.still import IDLE
from miles_ros.agent.vocabulary import COLOURS

_CUBE_NOUN = rf"(?:{'|'.join(CUBE_NOUNS)})"
_PAD_NOUN = rf"(?:{'|'.join(PAD_NOUNS)})"


def cube_noun(word: str) -> str:
    """A cube said by its noun ("block", "box") as said, "one" as "cube" ("the one on its
    own" -> "the cube on its own")."""
    return "cube" if word.lower() == "one" else word


_THING = rf"(?:{_CUBE_NOUN}|{_PAD_NOUN}|one|tower|stack|pile)s?"
_PREP = (
    r"(?:on top of|onto|on to|on|into|in|to|over to|across to|over|above|beside|next to|"
    r"near|toward|towards|against|at|by)"
)
_DANGLING = re.compile(rf"\b{_PREP}$", re.I)

VERBS = frozenset(
    "put place set move push slide shove nudge stack pile lift pick carry bring take drop "
    "lower raise hover reach go head return turn rotate spin twist tap touch poke leave keep "
    "grab get hold drag shift transfer position pop stick sit land end wind finish rest "
    "do make stay wait".split()
)
"""Base forms of the verbs a clause of a goal opens with (a noun phrase has none)."""
_PARTICIPLES = {
    "put": "put",
    "set": "set",
    "slid": "slide",
    "taken": "take",
    "brought": "bring",
    "held": "hold",
    "left": "leave",
    "kept": "keep",
    "spun": "spin",
}
"""Irregular participles; the rest are the base with -ed / -d (a doubled consonant)."""
_STATIVE = re.compile(
    r"^(?:go|goes|end up|ends up|wind up|winds up|land|lands|sit|sits|belong|belongs|rest|"
    r"rests|finish|finishes|finish up|be|stay|come to rest|get)\b",
    re.I,
)
"""A subject's verbs that say where it should be, not how it gets there (a placing)."""
_MODAL = (
    r"(?:should|must|needs? to|has to|have to|ought to|is to|are to|can|could|will|'ll|"
    r"would|is going to|shall|had better|has got to|needs|wants)"
)


def verb_of(word: str) -> str | None:
    """The base form of a verb said as a participle or gerund ("pushed", "moving",
    "placed", "slid", "dropped"), or None when ``word`` is none of :data:`VERBS`."""
    word = word.lower()
    if word in VERBS:
        return word
    if word in _PARTICIPLES:
        return _PARTICIPLES[word]
    for suffix in ("ed", "ing"):
        if word.endswith(suffix):
            stem = word[: -len(suffix)]
            for base in (stem, stem + "e", stem[:-1]):
                if base in VERBS:
                    return base
    return None


def verb_led(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    """``pattern``'s match at the start of ``text`` (stripped) when the match's ``verb`` group
    is a verb (:func:`verb_of`), else None."""
    m = pattern.match(text.strip())
    return m if m is not None and verb_of(m["verb"]) else None


# -- openers, asides ----------------------------------------------------------------------
_OPENER = re.compile(
    r"^(?:(?:um+|uh+|er+m?|hmm+|ah|oh|please|kindly|just|go ahead and|"
    r"(?:could|can|would|will) you(?: please| kindly| maybe| just)?|"
    r"do you think you could|would you be able to|are you able to|"
    r"i(?:'d| would) (?:like|love|want) (?:for )?you to|i (?:need|want) you to|"
    r"i(?:'d| would) like it if you(?: could)?|if you could|maybe|perhaps|"
    r"what i(?:'d| would) like is (?:for you to|you to|if you(?: could)?))\b[,.:;!]?\s+|"
    r"(?:actually|wait|oops|sorry|no|nope|hang on|scratch that|no wait)(?:,?\s+no)?"
    r"(?:\s*[,:;!]|\s[-\u2013\u2014]+)\s*(?=\S)|"
    r"(?:okay|ok|alright|all right|right|right then|so|well|now|hey|robot|then|and)"
    r"\s*[,:;!]\s*|(?:okay|ok|alright|well|so|now) (?:so|then|now)\s*,?\s+)",
    re.I,
)
_REASON = re.compile(
    r"\s*(?:[,;(]|\s[-\u2013\u2014]+)\s*(?:because|'?cause|since|so that|so (?:i|we) can|"
    r"as i(?:'m| am)|to make room|if you (?:don'?t|do not) mind|if (?:that'?s|it'?s|that is|"
    r"it is) (?:ok|okay|alright|all right|fine)|if you can|when you (?:can|get a chance|have a "
    r"(?:moment|minute|sec|second))|(?:there'?s )?no (?:rush|hurry)|take your time|"
    r"(?:that|it)(?:'d| would) (?:really )?(?:help|be (?:great|nice|lovely|good))|"
    r"(?:would|could|will|can|won'?t) you(?: please)?(?=\s*\?\s*$))"
    r"\b[^.!?]*[.!?)]*\s*$",
    re.I,
)
_FIRST_PERSON = re.compile(
    r"^(?:i'?m|i am|we'?re|we are|i'?ll|i will|i'?ve been|i was|i have been|i need to|"
    r"i have to|let me)\b",
    re.I,
)
_COURTESY = re.compile(
    r"^(?:(?:there'?s )?no (?:rush|hurry)|take your time|thanks?(?: you)?(?: so much)?|"
    r"thank you(?: so much)?|cheers|much appreciated|appreciated|please|if you would|"
    r"(?:great|good|nice|lovely|excellent) (?:job|work)|well done|perfect|great|lovely|"
    r"excellent|brilliant|awesome|nope|nah|no thanks?|no thank you|go on|come on|go ahead|"
    r"that'?s (?:everything|all|it)(?: (?:for now|for today|i need(?:ed)?))?|"
    r"nothing(?: else)?(?: (?:for you|for me|to do))?(?: (?:right now|for now|at the moment|"
    r"today))?)$",
    re.I,
)
_SCENE_WORD = re.compile(
    rf"\b(?:{_THING}|it|its|there|them|they|home|gripper|arm|hand|{COLOUR}|left|right|\d+)\b",
    re.I,
)


_MIND = re.compile(r"^(?:would|do|will) you mind\s+(?P<verb>\w+ing)\b", re.I)


def _openers_off(sentence: str) -> str:
    """``sentence`` without the hesitations and polite frames before its verb ("um, okay,
    could you please", "I'd like you to", "would you mind moving" -> "move")."""
    while True:
        mind = _MIND.match(sentence)
        if mind and verb_of(mind["verb"]):
            sentence = verb_of(mind["verb"]) + sentence[mind.end() :]
            continue
        m = _OPENER.match(sentence)
        if m is None or m.end() >= len(sentence) or _MIND.match(sentence):
            return sentence
        sentence = sentence[m.end() :]


_LEFT_AS_IS = re.compile(
    r"^(?:cool|nice|fine|(?:it |that |this |everything |all )?looks? (?:good|fine|great|nice|"
    r"perfect|right)|(?:it|that|this|everything|the (?:\w+ )?\w+)(?:'s| is| looks)? (?:good|"
    r"fine|great|perfect|ok|okay)(?: (?:where it is|as it is|like that|there|now))?|"
    r"leave (?:it|them|everything|that|things) (?:like that|as it is|as they are|as is|be|"
    r"alone|the way (?:it is|they are))|keep (?:it all|it|everything|things|them) (?:like that|"
    r"as it is|as they are|the way (?:it is|they are))|all good|"
    r"never ?mind(?: about (?:it|that|the (?:\w+ )?\w+))?|"
    r"forget (?:what i (?:said|asked(?: for)?)|everything i said|all that|about it|it|that))$",
    re.I,
)
"""Small talk that leaves things as they are ("Cool, it looks good, leave it like that.",
"Never mind, forget what I said."): nothing asked, when the whole sentence is such talk."""


def _aside(sentence: str, whole: bool = False) -> bool:
    """A sentence that asks for nothing and names nothing: a first-person aside ("I'm
    tidying up", "I'll tell you when") or a courtesy ("no rush", "thanks"); ``whole``: the
    whole sentence, which small talk leaving things as they are may also make up."""
    bare = sentence.strip(" .!?,;")
    said = re.split(r"\s*[,;]\s*|\s[-\u2013\u2014]+\s", bare)
    if all(_COURTESY.match(p) or whole and _LEFT_AS_IS.match(p) for p in said):
        return True  # "great, thanks"
    return bool(_FIRST_PERSON.match(bare)) and not _SCENE_WORD.search(bare)


_STILL = re.compile(
    r"^(?:please\s+)?(?:(?:don'?t|do not)\s+(?:do|change|move|touch)\s+(?:anything|a thing)|"
    r"do nothing|nothing (?:more|else)(?: to do)?|no (?:more|further|other) (?:tasks?|moves?|"
    r"moving|steps?|jobs?|work|actions?|requests?)|"
    r"hold off(?: on (?:it|that|the (?:\w+ )?\w+))?|nothing (?:for|with) (?:it|that|the (?:\w+ )?"
    r"\w+)|let'?s (?:stop|pause|leave it)(?: (?:here|there))?|that'?s (?:perfect|enough|it|all|"
    r"plenty)|that'?ll (?:do|be all|be it|be everything)|not (?:now|yet|just yet)|"
    r"you can stop(?: (?:there|here|now))?)"
    r"(?:\s+(?:else|more|(?:just )?yet|for now|at all|for the moment|right now|today|"
    r"for today|for the time being|thanks|though))*$",
    re.I,
)
"""A clause asking for no motion ("don't do anything just yet", "do nothing for now", "no
more moves", "hold off on the red cube for now"): nothing asked when the whole goal is
such clauses, small talk and asides (a prohibition beside a request stays one)."""
_WAITING = re.compile(
    r"^(?:hmm+|um+|uh+|erm?|ah+|wait|hang on|hold on|one moment|just a (?:moment|sec|second|"
    r"minute)|give me a (?:moment|sec|second|minute))(?:\s+(?:a|one|just a)\s+(?:moment|sec|"
    r"second|minute|bit|while))?(?:\s+(?:please|for now|then))?$",
    re.I,
)
"""A request to wait, said alone ("hang on a sec", "wait a moment")."""


def _asks_nothing(sentence: str) -> bool:
    """Whether each part of ``sentence`` asks for no motion or is an aside (see
    :data:`_STILL`)."""
    bare = sentence.strip(" .!,;")
    parts = re.split(r"\s*[,;:]\s*|\s[-\u2013\u2014]+\s", bare)
    return all(
        _COURTESY.match(p)
        or _LEFT_AS_IS.match(p)
        or _STILL.match(p)
        or _WAITING.match(p)
        or IDLE.match(p)
        or (_FIRST_PERSON.match(p) and not _SCENE_WORD.search(p))
        for p in parts
        if p
    )


# -- noun phrases -------------------------------------------------------------------------
_NOT_NP = re.compile(
    r"\b(?:is|are|was|were|be|should|must|will|can|could|would|don'?t|do|not|no|never|"
    r"there|it|(?<!to )(?<!from )you|i|we|please|then|and|but|if|because)\b|'s\b",
    re.I,
)


_DETERMINER = re.compile(r"^(?:the|that|this|those|these|your|a|an)\b", re.I)
_MODIFIER = frozenset(
    "left right middle centre center front back top bottom leftmost rightmost nearest "
    "closest farthest furthest first second third last other big small".split()
)
"""Words a noun phrase said without a determiner may open with (besides colours)."""
_POSTMODIFIER = re.compile(
    r"(?:on|at|in|of|to|from|by|near|nearest|closest|farthest|furthest|next|beside|that|which|"
    r"counting|with|between|under|behind|nearer|further|farther|\w+ing|\w+most)$",
    re.I,
)
"""The words a noun's postmodifier opens with ("the cube nearest ...", "the block sitting
on ..."); anything else after the noun makes the words a clause."""
_ALLOWED_VERB = frozenset("left set stack pile rest top".split())
"""Words of :data:`VERBS` that are nouns or adjectives in a noun phrase."""


def noun_phrase(text: str) -> str | None:
    """``text`` as a noun phrase naming a scene thing ("the red cube", "grey pad", "that
    block nearest the robot"), with "the" before it; None when it is not one: it opens with
    no determiner, modifier or noun, has a finite verb or a clause word, names no thing,
    or is long."""
    text = text.strip(" ,")
    words = text.split()
    if not 1 <= len(words) <= 9 or _NOT_NP.search(text):
        return None
    if not re.search(rf"\b{_THING}\b", text, re.I):
        return None
    first = words[0].lower()
    opens = _DETERMINER.match(first) or first in _MODIFIER or first in COLOURS
    if not opens and not re.fullmatch(_THING, first, re.I):
        return None
    head = next(
        (i for i, w in enumerate(words) if re.fullmatch(_THING, w.strip(",.;:!?"), re.I)), None
    )
    if head is None:
        return None  # the thing's word runs on ("the cube-shaped ...")
    if head + 1 < len(words) and not _POSTMODIFIER.match(words[head + 1]):
        return None  # "the red cube belongs ...": a clause, not a noun phrase
    for word in (w.lower().strip(",") for w in words):
        if word in _ALLOWED_VERB or word.endswith("ing"):
            continue
        finite = word.endswith("s") and (verb_of(word[:-1]) or verb_of(word[:-2]))
        if verb_of(word) or finite:
            return None
    text = re.sub(r"^(?:the|that|this|those|these|your)\s+", "", text, flags=re.I)
    return f"the {text[:1].lower()}{text[1:]}"


def _is_place(np: str) -> bool:
    return bool(re.search(rf"\b{_PAD_NOUN}s?\b", np, re.I)) and not re.search(
        rf"\b{_CUBE_NOUN}s?\b", np, re.I
    )


def _there(verb: str) -> str:
    """The preposition "there" stands for after ``verb``."""
    base = verb_of(verb) or ""
    if base in {"hover", "reach", "go", "head", "hold", "move", "return"}:
        return "over"
    return "onto" if base in {"push", "slide", "shove", "nudge", "drag"} else "on"


def _first_verb(clause: str) -> str:
    for word in re.findall(r"[a-z']+", clause.lower()):
        if verb_of(word):
            return word
    return ""


# -- angles, separators, words ----------------------------------------------------------
_ANGLE = r"(?:by\s+)?\d+(?:\.\d+)?\s*(?:degrees?|deg|\u00b0)"
_WAY = r"(?:(?:anti|counter)[- ]?clockwise|clockwise)"
_ANGLE_ONLY = re.compile(rf"^(?:{_ANGLE}(?:\s+{_WAY})?|{_WAY},?\s+{_ANGLE})$", re.I)


def _first_word(text: str) -> str:
    words = re.findall(r"[a-z']+", text.lower())
    return words[0] if words else ""


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:]


_SEP = r"(?:(?:\s*[,.;:!]|\s[-\u2013\u2014]+)\s*)"


def _upper_first(text: str) -> str:
    return text[:1].upper() + text[1:]


def then_said(first: str, then: str, end: str) -> str:
    """Two steps in the order they are done, as one sentence: "A, then b" and ``end``."""
    return f"{_upper_first(first)}, then {_lower_first(then)}{end}"


_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Za-z])")
