"""A whole goal that asks for no motion, read once (:func:`miles_ros.agent.clauses.plain_clauses`
runs :func:`no_motion` on the whole goal first): "Cancel that, I don't need anything.",
"Scrap that last request; no need to move.", "All good, no action needed.", "Just checking
you're listening, no need to move.", "Please stand still while I adjust the camera.", "For now
just stay right where you are." -> "Don't do anything." (an empty plan).

The goal is split into its parts (at commas, semicolons, colons, full stops and dashes); every
part must be one of:

- a request taken back: "cancel / scrap / drop / forget (about) / ignore that / it / this (last /
  previous / whole) (request / instruction / idea / job)", "call that off", "never mind that
  request", "I've changed my mind / had second thoughts (about it)" (:data:`_TAKEN_BACK`);
- nothing needed: "I / we don't need / want anything (done)", "(there's) no need to move / do
  anything", "no (more / further) action / motion / moves (is) needed / required", "nothing
  needs doing", "nothing (more / else) to move / do", "you don't have to move", "(there's) no
  (other) task / job / work / errand / orders (for you / to do / on the list)", "nothing
  planned / on the list (for you)", "nothing (for you) to do", the work said done: "we're (all)
  done / finished (here)", "that's us done" (:data:`_NOT_NEEDED`);
- staying still: "stand / stay / keep / hold / remain / sit still / put / (right / exactly)
  where you are / as you are", holding off ("don't start / begin (yet)", "not (just) yet /
  now", "hold off"), "sit / stay / hold tight", "hold on", "hang on / about", "don't
  move (the arm / yourself) (at all)", "relax", "rest", "chill (out)", "take a break / it
  easy", "at ease" (:data:`_STAYING`);
- a part the clause reading already takes as no motion or an aside
  (:func:`~miles_ros.agent.clause_grammar._asks_nothing`);
- a check or a remark that asks nothing: "just checking (you're listening)", "only testing
  (the microphone)", "all good", "everything's fine (here)", "just seeing if you're awake", a
  hesitation ("eh", "ah", "um", "well")
  (:data:`_REMARK`);

each with leading "please / just / so / okay / for now / for the time being", leave given ("you
can / may", "feel free to", "you're free / fine to") and trailing "for now / for the moment /
right now / just now / yet / for a moment / at all / after all / please / thanks / where you
are / (right) there / here" (a bare "there" after staying names no place: where the arm is) or
a clause of
what the speaker does meanwhile ("while I adjust the camera", "until I say so");
and one part at least is one of the first three. Grammar, not goals: the parts are clause
frames (a withdrawal, a need denied, a posture kept) with their adverbials; a part naming a
thing ("forget the red cube", "no need to move it") is none of them, so a request beside them
keeps its reading.
"""

from __future__ import annotations

import re

from miles_ros.agent.clause_grammar import _CUBE_NOUN, _asks_nothing
from miles_ros.agent.vocabulary import COLOURS

_REQUEST = (
    r"(?:request|instruction|order|command|task|job|errand|one|ask|idea|thought|suggestion|plan)"
)
_TAKEN_BACK = (
    r"(?:(?:cancel|scrap|scratch|drop|forget(?:\s+about)?|ignore|disregard|call\s+off)\s+(?:(?:that|it|this)"
    rf"(?:\s+(?:last|previous|earlier))?(?:\s+(?:whole|entire))?(?:\s+{_REQUEST})?|(?:my|the|your)\s+(?:(?:last|previous"
    rf"|earlier)\s+)?{_REQUEST})|call\s+(?:that|it|this)\s+off|never\s+mind(?:\s+(?:that|then|(?:that|this|the|my)\s+"
    rf"{_REQUEST}))?|"
    r"(?:never|don'?t|do\s+not)\s+mind\s+me|forget\s+(?:what|everything)\s+(?:i|we)\s+(?:just\s+)?"
    r"(?:said|asked(?:\s+for)?)(?:\s+(?:just\s+then|just\s+now|a\s+(?:moment|minute|second)\s+ago|"
    r"earlier|before))?|"
    r"forget\s+(?:that\s+)?(?:i|we)\s+(?:ever\s+)?(?:asked|said\s+(?:anything|that|it)|mentioned\s+it)|"
    r"(?:i|we)(?:'ve|\s+have)?\s+(?:changed\s+(?:my|our)\s+minds?|had\s+(?:second|other)\s+thoughts)"
    r"(?:\s+about\s+(?:it|that|this))?|change\s+of\s+plans?)"
)
"""A request taken back ("scrap that last request / idea", "forget my previous instruction",
"forget what I said just then", "never mind me")."""
_DO_NOTHING = (
    r"(?:(?:do|doing)\s+(?:nothing|anything|a\s+(?:single\s+)?thing)|(?:don'?t|do\s+not)\s+(?:do|try)\s+"
    r"(?:anything|a\s+(?:single\s+)?thing))"
)
"""Doing nothing said with the verb "do" ("do nothing", "don't do a thing"; "no need to" before
it): a frame whose object is the indefinite "nothing / anything / a thing", never a thing of
the scene."""
_HERE = r"(?:\s+(?:right\s+)?(?:there|here))?"
"""A bare "there / here" after a verb of waiting or staying: where the arm is now (it names
no pad: the frame has no place to go to)."""
_IDLING = (
    r"(?:stand(?:ing)?\s+by|stand-?by|idl(?:e|ing)|wait(?:ing)?(?:\s+(?:up|around|about))?|pause|"
    r"hold\s+(?:up|off)|(?:don'?t|do\s+not)\s+(?:start|begin)(?:\s+(?:anything|yet|just\s+yet))?|"
    r"not\s+(?:just\s+)?(?:yet|now)|"
    r"(?:stay|sit|stand|remain|rest|idle|wait|pause|stop|halt|freeze|be)(?:ing)?\s+(?:right\s+)?"
    r"(?:there|here)|(?:keep|carry\s+on|go\s+on)\s+(?:sitting|waiting|standing|staying|idling|"
    r"resting|hovering))"
    rf"{_HERE}(?:\s+(?:for\s+(?:me|my\s+(?:word|signal|go|cue|call)|(?:a|one)\s+(?:moment|bit|"
    r"second|sec|minute|while)|further\s+(?:instructions|orders)|now)|until\s+(?:further\s+notice|"
    r"i\s+(?:say|tell\s+you)(?:\s+so)?|told)))*"
)
"""Waiting said as a verb of waiting or staying ("stand by", "wait up", "wait for me", "pause
there", "carry on sitting there"), a bare "there / here" where the arm is, and what it waits
for: no motion, no place."""
_WORK = r"(?:tasks?|jobs?|work|errands?|orders|assignments?|chores?|instructions)"
"""The nouns of work given ("no task / job / errand / orders (for you)"): the frame "no N"
with no thing of the scene."""
_NOT_NEEDED = (
    r"(?:(?:i|we)\s+(?:don'?t|do\s+not)\s+(?:need|want)\s+anything(?:\s+(?:done|else))?|"
    r"(?:there'?s\s+|there\s+is\s+)?no\s+(?:need|reason)\s+(?:for\s+you\s+)?to\s+(?:move|act|"
    rf"{_DO_NOTHING})|{_DO_NOTHING}|(?:do\s+)?nothing\s+(?:at\s+all|whatsoever)|(?:there'?s\s+|there\s+is\s+)?no\s+(?:more\s+|further\s+|other\s+)?(?:action|motion|movement|moves?)\s+"
    r"(?:is\s+)?(?:needed|required|necessary|wanted)|nothing\s+(?:(?:more|else|further)\s+)?(?:to\s+"
    r"(?:move|do)\b(?:\s+here)?|needs\s+(?:doing|to\s+be\s+"
    r"done)|(?:is\s+)?(?:needed|required))|you\s+(?:don'?t|do\s+not)\s+(?:have|need)\s+to\s+"
    r"(?:move|do\s+anything)|(?:there'?s\s+|there\s+is\s+|there\s+are\s+|you\s+have\s+)?no\s+(?:more\s+|"
    rf"further\s+|other\s+)?{_WORK}(?:\s+(?:for\s+you|to\s+do|(?:planned|lined\s+up|on\s+the\s+list)"
    r"(?:\s+for\s+you)?))?|(?:there'?s\s+|there\s+is\s+)?nothing\s+(?:(?:planned|lined\s+up|scheduled|"
    r"on\s+the\s+(?:list|agenda|cards))(?:\s+for\s+you)?)|(?:there'?s\s+|there\s+is\s+)?nothing\s+(?:(?:more|else|further)\s+)?(?:(?:for\s+you\s+)?to\s+do|"
    r"for\s+you)|(?:we(?:'re|\s+are)|i'?m|i\s+am)\s+(?:all\s+)?(?:done|finished|through)(?:\s+here)?|"
    r"that'?s\s+us\s+(?:done|finished)|(?:nothing|not)\s+(?:just\s+)?yet|that'?s\s+(?:all|it|everything)(?:\s+(?:i\s+(?:need|wanted)|"
    r"from\s+me))?|no\s+(?:changes?|change)(?:\s+(?:needed|required|necessary|"
    r"wanted|to\s+make))?)"
)
"""Nothing needed ("no action needed", "there's no need to do anything")."""
_STAYING = (
    r"(?:don'?t|do\s+not)\s+move(?:\s+(?:anything|a\s+thing|yourself|(?:the|your)\s+(?:arm|"
    r"gripper|hand|robot)))?(?:\s+at\s+all)?|no\s+moving|(?:sit|stay|hold)\s+tight|hold\s+on|"
    r"hang\s+(?:on|about|around|tight)|(?:stand|stay|keep|hold|remain|sit|be)\s+(?:perfectly\s+|completely\s+|very\s+|totally\s+)?"
    r"(?:still|put|motionless|(?:right\s+|exactly\s+|just\s+)?(?:where|as)\s+you\s+are)"
    r"(?:\s+(?:right\s+|exactly\s+|just\s+)?where\s+you\s+are)?|relax|rest|chill(?:\s+out)?|"
    r"take\s+(?:a\s+(?:break|rest|breather)|it\s+easy|five)|(?:stand\s+)?at\s+ease|"
    r"(?:stop|halt|freeze|pause)(?:\s+(?:moving|there|here|right\s+there|everything|"
    r"what\s+you'?re\s+doing))?|hold\s+it|no\s+(?:more\s+|further\s+)?(?:action|motion|movements?|"
    r"moves?|moving)(?:\s+at\s+all)?|"
    rf"{_IDLING}"
)
"""Staying still ("stand still", "stay exactly where you are")."""
_THINGS = r"(?:cubes|blocks|boxes|bricks|stack|tower|pile|things|everything)"
_LIE = (
    r"(?:(?:as|where|how|the\s+way)\s+(?:(?:they|it)\s+(?:are|is|were|was|stand|stands|stood|sit|"
    r"sits|sat|lie|lies|lay|rest|rests)|they'?re|it'?s)|as\s+is)(?:\s+(?:now|right\s+now|at\s+the\s+moment"
    r"|currently))?"
)
"""Any manner or place the things are in now ("as they are", "where it sits", "how they lie",
"the way they were"): one grammar of a conjunction, a pronoun and a verb of position."""
_AS_IS = (
    rf"(?:leave|keep|let)\s+(?:(?:all\s+)?(?:the|your|those|these)\s+(?:(?:three|two)\s+)?{_THINGS}|"
    rf"(?:all|both)\s+(?:of\s+)?(?:the\s+)?(?:(?:three|two)\s+)?{_THINGS}|"
    rf"every\s+(?:{_CUBE_NOUN})|everything)(?:\s+(?:on|in)\s+the\s+(?:table|scene|workspace))?"
    r"(?:\s+(?:be|stay|remain|sit))?"
    rf"(?:\s*,?\s*(?:just|exactly|precisely|right)?\s*{_LIE})?|"
    rf"(?:don'?t|do\s+not|never)\s+(?:move|shift|touch)\s+the\s+[a-z]+\s+(?:{_CUBE_NOUN}|one)|"
    r"(?:there'?s\s+|there\s+is\s+)?no\s+need\s+to\s+(?:move|shift|touch)\s+(?:the\s+[a-z]+\s+"
    rf"(?:{_CUBE_NOUN}|one))|you\s+(?:needn'?t|need\s+not|don'?t\s+(?:have|need)\s+to)\s+(?:move|"
    rf"shift|touch)\s+the\s+[a-z]+\s+(?:{_CUBE_NOUN}|one)|the\s+[a-z]+\s+(?:{_CUBE_NOUN}|one)\s+"
    r"(?:doesn'?t|does\s+not)\s+need\s+(?:moving|to\s+(?:be\s+)?mov(?:e|ed))"
)
"""Things kept as they are ("leave the cubes exactly as they are", "keep the stack as it is",
"no need to move the blue cube")."""
_FINE = (
    r"(?:nice|lovely|neat|tidy|clean|great|good|fine|perfect|beautiful|wonderful|brilliant|"
    r"excellent|splendid|ok(?:ay)?)"
)
"""A word of praise, said of the table or alone."""
_REMARK = (
    r"(?:hey\s+)?(?:robot|arm)|"  # said to the robot ("Hold still a moment, arm.")
    r"ta|cheers|thanks(?:\s+a\s+lot)?|thank\s+you|"  # thanks said alone after a comma
    r"(?:(?:just|only)\s+)?(?:(?:checking|testing|making\s+sure|seeing)(?:\s+(?:that|if|whether))?"
    r"\s+you(?:'re|\s+are|\s+can)\s+[a-z' ]+|(?:checking|testing)(?:\s+(?:the|my|your)\s+[a-z]+|"
    r"\s+in)?)|eh|ah|oh|nah|nope|uh+|um+|hm+|er+|well|(?:i'?m|i\s+am|we'?re|we\s+are)\s+(?:still\s+)?"
    r"(?:thinking|deciding|considering)(?:\s+(?:it\s+over|about\s+it))?|(?:right\s+|exactly\s+|"
    r"just\s+)?(?:where|as)\s+you\s+are|let\s+me\s+(?:think|"
    r"decide)(?:\s+(?:it\s+over|about\s+it|for\s+a\s+(?:moment|bit|second|sec|minute)))?|(?:that'?s\s+|that\s+is\s+|it'?s\s+|it\s+is\s+)?all\s+"
    r"(?:good|fine|ok(?:ay)?)(?:\s+(?:here|there|(?:as|where|how)\s+(?:it\s+is|they\s+are|things\s+are)))?|everything'?s\s+(?:fine|ok(?:ay)?|good|alright|all\s+"
    r"right)(?:\s+here)?|it'?s\s+(?:fine|ok(?:ay)?|alright|all\s+right|good)(?:\s+(?:where|as)\s+it\s+is|"
    rf"\s+there)?|(?:just|exactly|precisely)\s+{_LIE}|for\s+now|for\s+the\s+time\s+being|right\s+now|at\s+the\s+moment|"
    # praise of the table, said of nothing to change ("What a nice tidy table.", "Lovely.")
    rf"what\s+an?\s+(?:{_FINE}\s+)*(?:table|scene|set-?up|workspace|layout|arrangement|sight|job)|"
    rf"(?:(?:the|this|your)\s+)?(?:table|scene|set-?up|workspace|layout|everything)\s+(?:looks|seems|is)"
    rf"\s+(?:(?:so|very|really|quite|all|pretty)\s+)?{_FINE}|{_FINE}"
)
"""A check or a remark that asks nothing ("just checking you're listening", "all good")."""
_LEAD = (
    r"(?:(?:please|just|simply|so|ok(?:ay)?|actually|alright|all\s+right|right|hey|robot|arm|now|for\s+now|for\s+the\s+time\s+being|"
    r"right\s+now|at\s+the\s+moment|you\s+(?:can|may|could|might)|feel\s+free\s+to|"
    r"you(?:'re|\s+are)\s+(?:free|fine|welcome|ok(?:ay)?)\s+to)\s*,?\s+)*"
)
_TAIL = (
    r"(?:\s*,?\s+(?:for\s+now|for\s+the\s+(?:time\s+being|moment)|(?:right|just)\s+now|now|yet|"
    r"(?:right\s+|just\s+)?at\s+(?:the|this)\s+(?:moment|minute|point|time)|at\s+present|today|"
    r"at\s+all|"
    r"after\s+all|"
    r"please|thanks|thank\s+you|ta|cheers|whatsoever|(?:for\s+)?(?:a|one)\s+(?:moment|bit|second|sec|minute|while)|"
    r"robot|arm|(?:right\s+|exactly\s+|just\s+)?(?:where|as)\s+you\s+are|(?:right\s+|just\s+)?"
    r"(?:there|here)|"
    r"(?:while|whilst|as|until|till)\s+(?:i|we)\s+[a-z' ]+))*"
)
_ASKED = re.compile(rf"^{_LEAD}(?:{_TAKEN_BACK}|{_NOT_NEEDED}|{_STAYING}|{_AS_IS}){_TAIL}$", re.I)
_REMARKED = re.compile(rf"^{_LEAD}(?:{_REMARK}){_TAIL}$", re.I)
_PARTS = re.compile(
    r"\s*[,;:.!?]+\s*(?:and\s+)?|\s+[-\u2013\u2014]+\s+|\s+and\s+(?=(?:don'?t|do\s+not|stay|keep|"
    r"remain|stand|hold|no|wait|pause|sit)\b)",
    re.I,
)


_KEEP_WORD = re.compile(
    r"\b(?:leave|keep|let|stay|stays|remain|remains|stop|halt|freeze)\b|\bno\s+(?:more|further)\b",
    re.I,
)
_COLOURED = re.compile(rf"\b(?:{'|'.join(sorted(COLOURS, key=len, reverse=True))})\b", re.I)
_DENIED = re.compile(r"\b(?:no\s+(?:more|further)|don'?t|do\s+not|not|never)\s+[a-z]+", re.I)
_MOTION_WORD = re.compile(
    r"\b(?:put|place|set|move|moving|stack|pick|lift|raise|grab|grasp|take|carry|bring|push|shove|"
    r"slide|nudge|drag|pull|turn|rotate|twist|spin|swivel|reach|hover|go|come|point|touch|tap|"
    r"home|return|drop|lower|hold|swap|sort|arrange|line|build|make|shift|tip|flip|knock|throw|"
    r"toss|get|fetch|hand|give|pass|poke|press|stow|tidy|clean|gather|collect|wave|show|unstack|"
    r"restack|balance|cent(?:er|re)|align|square|face|head|tuck|park|drive|swing|lay|stand|"
    r"rest|sit|seat)[a-z]*|\b(?:on|onto|to|toward|towards|into|in|over|above|under|below|"
    r"beside|next|near|left|right|front|behind|between|at|from|up|down|off|top|air|pad|mat|"
    r"tile|spot|degrees?|side|face)\b|[0-9\u00b0]",
    re.I,
)


def kept_only(goal: str) -> bool:
    """The safety net: a goal whose words are only of keeping and stopping ("leave", "keep",
    "let", "stay", "remain", "stop", "halt", "freeze", "no more") with no verb of motion, no
    place, no side, no angle and no number anywhere (a denied verb, "no more moves" or "don't
    move", is not one) asks for no motion, whatever its other words: a goal to do nothing
    never reaches the language model as a motion plan. A thing said by colour ("leave the red
    cube where it is") is left to the reading of prohibitions (:mod:`~miles_ros.agent.negation`),
    which already plans nothing for it and keeps the goal's words."""
    if not _KEEP_WORD.search(goal) or _COLOURED.search(goal):
        return False
    rest = _DENIED.sub(" ", _KEEP_WORD.sub(" ", goal))
    return not _MOTION_WORD.search(rest)


def asks_no_motion(goal: str) -> bool:
    """Whether every part of ``goal`` asks for no motion or is a remark, one at least taking a
    request back, denying a need or keeping still (see the module), or the goal says only
    keeping and stopping (:func:`kept_only`)."""
    if kept_only(goal):
        return True
    parts = [p for p in _PARTS.split(goal.strip()) if p]
    asked = [bool(_ASKED.match(p)) for p in parts]
    if not any(asked):
        return False
    return all(
        a or _REMARKED.match(p) or _asks_nothing(p) for a, p in zip(asked, parts, strict=True)
    )


_WAITED = re.compile(
    rf"^{_LEAD}(?:{_IDLING}|hold\s+on|hang\s+(?:on|about|tight)|(?:sit|stay|hold)\s+tight){_TAIL}$",
    re.I,
)
"""A part that only waits (not "don't move anything": a prohibition that holds for the step
after it)."""
_WAIT_FIRST = re.compile(
    r"^\s*(?P<part>[^,;:.!?\-\u2013\u2014]+?)\s*(?:[,;:.!]+|\s[-\u2013\u2014]+)\s*(?:and\s+)?"
    r"(?:then|after\s+that|afterwards|next)\b\s*,?\s*(?=\w)",
    re.I,
)


def waited_first(text: str) -> str:
    """ "Wait a second, then put X on P" / "Stand by; after that, lift X ...": a first part
    that only waits or keeps still, then a step, is the step (the wait asks for no motion of
    its own; the model, left to read it, planned home first)."""
    m = _WAIT_FIRST.match(text)
    if m is None or not _WAITED.match(m["part"]):
        return text
    rest = text[m.end() :]
    return rest[:1].upper() + rest[1:]


def no_motion(text: str) -> str:
    """``text`` as "Don't do anything." when the whole goal asks for no motion (see the
    module); a wait said before a step, the step alone (:func:`waited_first`); else
    unchanged."""
    return "Don't do anything." if asks_no_motion(text) else waited_first(text)
