"""The resolvers of :mod:`~miles_ros.agent.references`' phrases: each takes a rule's match
and the world and returns ``(name, refusal)`` (a name, a tuple of names, or None), or raises
the question (:class:`~miles_ros.agent.reference_scene._Ambiguous`) when the phrase does not
say which thing it means. The patterns that call them are in
:mod:`~miles_ros.agent.reference_rules`.

Over 500 lines: one resolver for each of those rules, each a few lines over the scene's
orders and ties
(:mod:`~miles_ros.agent.reference_scene`); split further, a rule and its resolver would sit
in three modules instead of two.
"""

from __future__ import annotations

import math
import re

from miles_ros.agent.phrases import CUBE_NOUNS
from miles_ros.agent.reference_scene import (
    _COLOUR_WORDS,
    _COUNTS,
    _CUBE,
    _DESTINATION,
    _FAR,
    _NEAR,
    _PAD,
    _PLACE,
    _PLACING_VERBS,
    _PREPOSITIONS,
    ORDINALS,
    SYNONYMS,
    TIE_M,
    _bare,
    _beyond,
    _colour_cube,
    _cube_words,
    _cubes,
    _either,
    _from_base,
    _how_said,
    _named_cubes,
    _nth,
    _unique,
    _which,
    beyond_level,
    level,
    place_colours,
    place_named,
    spoken,
)


def _side(match, world):
    groups = ("side", "side2", "side3", "side4")
    side = next(match.group(g) for g in groups if match.group(g)).lower()
    sign = 1.0 if side == "left" else -1.0
    ranked = [(-sign * p[1], n) for n, p in _cubes(match, world).items()]
    return _unique(ranked, f"the {side}most cube")


def _depth(match, world):
    """ "the cube furthest back" / "at the back" / "the backmost cube": the largest x of the
    base frame (farthest along the table's depth from the robot's base); "furthest forward",
    "at the front", "nearest the front", "the frontmost cube": the smallest."""
    said = next(g for g in (match.group(f"end{i}") for i in ("", 2, 3, 4)) if g).lower()
    back = said in {"back", "rear", "backmost", "rearmost"}
    ranked = [((-1.0 if back else 1.0) * p[0], n) for n, p in _cubes(match, world).items()]
    return _unique(ranked, f"the cube furthest {'back' if back else 'forward'}")


def _robot_distance(match, world):
    how = _either(match, "how").lower()
    sign = 1.0 if re.match(_NEAR, how) else -1.0
    ranked = [(sign * math.hypot(p[0], p[1]), n) for n, p in _cubes(match, world).items()]
    return _nth(ranked, _either(match, "nth"), f"cube {_how_said(how)} the robot")


def _moved_there(match, world):
    """ "move the closest block to the grey pad": after a placing verb, with no other
    place said after it, the pad is where the cube goes and "closest" is to the robot;
    else left to the rule of distances from a place ("hover over the nearest cube to the
    left pad")."""
    before = re.findall(r"[a-z]+", match.string[: match.start()].lower())
    after = match.string[match.end() :].lower()
    place = re.match(r" (?:to|onto|on|into) the [a-z_]+(?: [a-z_]+)?", after)
    rest = re.split(r"[,;.]|\b(?:and|then)\b", after[place.end() :] if place else after)[0]
    if not before or before[-1] not in _PLACING_VERBS or re.search(_DESTINATION, rest):
        return None, None
    return _robot_distance(match, world)


def _place_distance(match, world):
    """A cube by its distance from a place or from another cube ("the cube nearest the
    green cube": of the others); "next to", "beside" and "near" a thing: the nearest."""
    if _placed_beside(match):
        return None, None
    said = match.group("place").lower()
    what = place_named(said, world)
    if what is None and re.search(rf"\b(?:{_CUBE}|one)$", said):
        what = _colour_cube(said.split()[0], world)
    if what is None:
        return None, f"the scene has no {match.group('place')}"
    how = _either(match, "how").lower()
    sign = -1.0 if re.match(_FAR, how) else 1.0
    px, py = world.position_of(what)[:2]
    if how in {"next to", "beside"} and not _either(match, "nth") and what in world.objects:
        _one_beside(world, what)
    ranked = [
        (sign * math.hypot(p[0] - px, p[1] - py), n)
        for n, p in _cubes(match, world).items()
        if n != what
    ]
    return _nth(ranked, _either(match, "nth"), f"cube {_how_said(how)} the {spoken(what)}")


def _one_beside(world, what: str) -> None:
    """Asks which cube "the cube next to / beside X" is when X has a cube on each side
    along the table's width (by more than :data:`TIE_M`), the farther of the two no more
    than twice as far from X as the nearer: both are next to it."""
    p = world.objects[what]
    sides = [_beyond(world, what, 1, sign) for sign in (1.0, -1.0)]
    if not all(sides):
        return
    near = [min((math.dist(p[:2], world.objects[n][:2]), n) for _, n in side) for side in sides]
    (d1, a), (d2, b) = sorted(near)
    if d2 <= 2.0 * d1:
        raise _which(f"cube (two are next to the {spoken(what)})", sorted([a, b]))


def _underneath(match, world):
    """ "the cube underneath / beneath / under X": the cube X stands on (within :data:`TIE_M`
    in the table's plane, lower); refused when X stands on the table."""
    ref = _colour_cube(match.group("ref"), world)
    if ref is None:
        return None, f"the scene has no {match.group('ref').lower()} cube"
    p = world.objects[ref]
    below = [
        (p[2] - q[2], n)
        for n, q in world.objects.items()
        if n != ref and math.dist(p[:2], q[:2]) < 2 * TIE_M and q[2] < p[2] - TIE_M
    ]
    if not below:
        return None, f"no cube is underneath the {spoken(ref)}: it stands on the table"
    return min(below)[1], None


def _on_its_own(match, world):
    """ "the cube on its own / by itself": the cube whose nearest other cube is farther than
    1.3 times every other cube's nearest; asked which when none is."""
    cubes = world.objects
    if len(cubes) < 3:
        return None, "no cube is on its own: the scene has fewer than three cubes"
    alone = {
        n: min(math.dist(p[:2], q[:2]) for m, q in cubes.items() if m != n)
        for n, p in cubes.items()
    }
    first, *rest = sorted(alone, key=lambda n: -alone[n])
    if all(alone[first] > 1.3 * alone[n] for n in rest):
        return first, None
    raise _which("cube (none stands apart from the others)", sorted(cubes))


def _placed_beside(match: re.Match) -> bool:
    """Whether "the cube next to / beside / near X" is where a placing verb puts the cube
    ("put the cube next to the blue cube": which cube is asked), not which cube it is
    ("put the cube next to the blue cube on the left pad")."""
    how = (_either(match, "how") or "").lower()
    if re.match(rf"{_NEAR}|{_FAR}", how):
        return False
    before = re.findall(r"[a-z]+", match.string[: match.start()].lower())
    if not before or before[-1] not in _PLACING_VERBS:
        return False
    after = re.split(r"[,;.]|\b(?:and|then)\b", match.string[match.end() :].lower())[0]
    return not re.search(r"\b(?:on|onto|to|into|at|over|above|in|toward|towards)\b", after)


def _middle(match, world):
    cubes = sorted((p[1], n) for n, p in world.objects.items())
    k = len(cubes) // 2
    if len(cubes) % 2 == 0:
        raise _which(f"cube (of {len(cubes)}, none is in the middle)", [n for _, n in cubes])
    if k and (level(cubes[k - 1][0], cubes[k][0]) or level(cubes[k][0], cubes[k + 1][0])):
        raise _which("cube (two are level in the middle)", [n for _, n in cubes])
    return cubes[k][1], None


def _height(match, world):
    """ "the highest / topmost cube", "the lowest cube": the largest / smallest height of
    a cube's centre (a cube on another is higher); asked when two are level."""
    sign = 1.0 if re.match(r"(?:high|top|upper)", match.group("how"), re.I) else -1.0
    ranked = [(-sign * p[2], n) for n, p in world.objects.items()]
    return _unique(ranked, f"{match.group('how').lower()} cube")


def _ordinal(match, world):
    """ "the second cube (from the left / right)": the k-th in y from that side, asked when
    any two cubes are :func:`level` in y; with no side, the k-th from the left, from the
    right and from the robot, each with the cubes level with it on its order, asked where
    that is more than one cube."""
    nth = match.group("nth").lower()
    k, cubes = ORDINALS[nth], world.objects
    if k > len(cubes):
        return None, f"the scene has {len(cubes)} cubes: there is no {nth} cube"
    side = (match.group("side") or "").lower()
    if not side:  # from the left, from the right or from the robot: asked where they differ
        orders = [
            sorted((-p[1], n) for n, p in cubes.items()),
            sorted((p[1], n) for n, p in cubes.items()),
            sorted((math.hypot(p[0], p[1]), n) for n, p in cubes.items()),
        ]
        options = sorted({n for o in orders for v, n in o if level(v, o[k - 1][0])})
        if len(options) == 1:
            return options[0], None
        raise _which(f"cube (the {nth} from the left, from the right or from the robot?)", options)
    sign = 1.0 if side == "left" else -1.0
    ranked = sorted((-sign * p[1], n) for n, p in cubes.items())
    keys = [key for key, _ in ranked]
    if any(level(a, b) for a, b in zip(keys, keys[1:], strict=False)):
        raise _which(f"cube (the {nth} from the {side}: some are level)", sorted(cubes))
    return ranked[k - 1][1], None


def _container(match, world):
    """ "put the green cube in the box": a cube noun with no colour after "in" / "into" is
    a container, and the scene has none (a target is a pad, a cube to stack on or a
    point): refused, not asked which cube."""
    noun = match.group("noun").lower()
    return None, f"the scene has no {noun} to put things in: a cube goes on a pad or a cube"


def _counted(match, world):
    """ "all four cubes" among three: refused; the scene's own count is every cube
    (:func:`~miles_ros.agent.scope.read_scope`); "the two cubes" among three with nothing
    said after it of which: asked which."""
    said = match.group("n").lower()
    n = int(said) if said.isdigit() else _COUNTS.index(said)
    if n == len(world.objects):
        return None, None
    definite = re.match(r"th(?:e|ese|ose)\b", match.group(0), re.I)
    after = match.string[match.end() :]
    if definite and 1 < n < len(world.objects) and not _QUALIFIED.match(after):
        raise _which(
            f"cubes (the scene has {len(world.objects)}, not {said})", sorted(world.objects)
        )
    return None, f"the scene has {len(world.objects)} cubes, not {said}"


_QUALIFIED = re.compile(
    r"\s+(?:on(?!\s+top\s+of\s+(?:each\s+other|one\s+another))|at|in|near|nearest|closest|"
    r"farthest|furthest|to|that|which|from|beside|by)\b",
    re.I,
)
"""What a count's noun phrase may go on with that says which cubes it means ("the two cubes
at the back"): not asked which."""


def _coloured_cube(match, world):
    """ "the cube that is red": the red cube; else left alone (the reading refuses a colour
    no cube has)."""
    return _colour_cube(match.group("colour"), world), None


def _coloured_place(match, world, said_as_place: bool = True):
    """The one place of that colour. A place said with a colour only a cube has ("the blue
    pad") is refused; else left alone (the goal's reading
    refuses a colour the scene lacks)."""
    colour = (match.group("colour") or match.groupdict().get("colour2")).lower()
    colour = SYNONYMS.get(colour, colour)
    colours = place_colours(world)
    named = [n for n, c in colours.items() if c == colour]
    if not named and said_as_place and colours and _colour_cube(colour, world):
        return None, f"the scene has no {colour} {match.group(0).split()[-1]}"
    return (named[0] if len(named) == 1 else None), None


def _colour_alone(match, world):
    """ "onto the grey", "to the yellow one" after a preposition: the one place of that
    colour, when no cube has it (else left alone: "put the red one on the blue one")."""
    before = re.findall(r"[a-z]+", match.string[: match.start()].lower())
    colour = match.group("colour").lower()
    if not before or _colour_cube(colour, world):
        return None, None
    if before[-1] not in _PREPOSITIONS and not _after_a_place(before):
        return None, None
    return _coloured_place(match, world, said_as_place=False)


def _after_a_place(before: list[str]) -> bool:
    """ "hover over the yellow pad, then the grey one": "the C one" after "then" / "and"
    where the last thing said is a place (the list goes on with places)."""
    if before[-1] not in {"then", "and"}:
        return False
    nouns = [w for w in before if re.fullmatch(rf"{_PLACE}|{_CUBE}", w)]
    return bool(nouns) and re.fullmatch(_PLACE, nouns[-1]) is not None


def _beside(match, world):
    """ "the cube (to the) left of the blue one": the one cube on that side of it (by y, more
    than :data:`TIE_M` beyond it), or the nearest of more when it stands in line between it
    and the others (within :data:`TIE_M` of each segment: a row); asked which otherwise
    ("directly / just / immediately left of": the nearest); refused when none is."""
    side, ref = match.group("side").lower(), _colour_cube(match.group("ref"), world)
    if ref is None:
        return None, f"the scene has no {match.group('ref').lower()} cube"
    ranked = sorted(_beyond(world, ref, 1, 1.0 if side == "left" else -1.0))
    if not ranked:
        return None, f"no cube is to the {side} of the {spoken(ref)}"
    near = ranked[0][1]
    in_row = all(
        any(n == near and d < TIE_M for d, n in _on_segment(world, ref, far))
        for _, far in ranked[1:]
    )
    if not in_row and not re.search(r"\b(?:directly|just|immediately)\b", match[0], re.I):
        names = sorted(n for _, n in ranked)
        raise _which(f"cube ({len(ranked)} are to the {side} of the {spoken(ref)})", names)
    return _unique(ranked, f"the cube {side} of the {spoken(ref)}")


def _before_or_behind(match, world):
    """ "the cube in front of / behind the blue one", seen from the robot: of the cubes
    nearer to / farther from the base along x (by more than :data:`TIE_M`), the nearest in
    x, of those in line with it where any is (45 degrees; "directly / just ..." 27); refused
    when none is."""
    side, ref = match.group("side").lower(), _colour_cube(match.group("ref"), world)
    if ref is None:
        return None, f"the scene has no {match.group('ref').lower()} cube"
    cone = 0.5 if match.group("straight") else 1.0
    ranked = _beyond(world, ref, 0, -1.0 if side == "in front of" else 1.0, cone)
    if not ranked:
        return None, f"no cube is {side} the {spoken(ref)} (seen from the robot)"
    return _unique(ranked, f"the cube {side} the {spoken(ref)}")


def _than_cube(match, world):
    """ "the cube closer to you / further from you than the red one": of the cubes nearer
    to / farther from the base than it (by more than :data:`TIE_M`), the nearest to it in
    that distance, as "to the left of" picks; refused when none is."""
    ref = _colour_cube(match.group("ref"), world)
    if ref is None:
        return None, f"the scene has no {match.group('ref').lower()} cube"
    sign = -1.0 if match.group("near") else 1.0
    start = _from_base(world.objects[ref])
    ranked = [(sign * (_from_base(p) - start), n) for n, p in world.objects.items() if n != ref]
    ranked = [(d, n) for d, n in ranked if beyond_level(d)]
    said = "closer to the robot" if sign < 0 else "farther from the robot"
    if not ranked:
        return None, f"no cube is {said} than the {spoken(ref)}"
    return _unique(ranked, f"the cube {said} than the {spoken(ref)}")


def _pad_than(match, world):
    """ "whichever pad is farther from / closer to the red cube": of the places, the one
    farthest from / nearest to that cube; asked when two are level."""
    ref = _colour_cube(match.group("ref"), world)
    if ref is None:
        return None, f"the scene has no {match.group('ref').lower()} cube"
    sign = 1.0 if match.group("near") else -1.0
    at = world.objects[ref][:2]
    ranked = [(sign * math.dist(p[:2], at), n) for n, p in world.places.items()]
    said = "nearer to" if sign > 0 else "farther from"
    return _unique(ranked, f"the place {said} the {spoken(ref)}")


def _between(match, world):
    """ "the cube between the red and the blue cube": a cube whose centre projects inside
    the segment between theirs (in the table plane), the nearest to that segment; refused
    when none does."""
    a, b = (_colour_cube(match.group(k), world) for k in ("a", "b"))
    for cube, said in ((a, match.group("a")), (b, match.group("b"))):
        if cube is None:
            return None, f"the scene has no {said.lower()} cube"
    if a == b:
        return None, f"a cube cannot be between the {spoken(a)} and itself"
    ranked = _on_segment(world, a, b)
    if not ranked:
        return None, f"no cube is between the {spoken(a)} and the {spoken(b)}"
    return _unique(ranked, f"the cube between the {spoken(a)} and the {spoken(b)}")


def _on_segment(world, a: str, b: str) -> list[tuple[float, str]]:
    """The other cubes whose centre projects inside the segment between cubes ``a`` and
    ``b`` (table plane), each with its distance from that segment."""
    (ax, ay), (bx, by) = world.objects[a][:2], world.objects[b][:2]
    dx, dy = bx - ax, by - ay
    length2 = dx * dx + dy * dy
    ranked = []
    for name, p in world.objects.items():
        if name in (a, b) or length2 == 0.0:
            continue
        t = ((p[0] - ax) * dx + (p[1] - ay) * dy) / length2
        if 0.0 < t < 1.0:
            ranked.append((abs((p[0] - ax) * dy - (p[1] - ay) * dx) / math.sqrt(length2), name))
    return ranked


def _between_others(match, world):
    """ "the cube between the other two": among three cubes, the one inside the circle
    whose diameter joins the other two (the angle they make at it is obtuse: at most one
    cube of three); asked when the scene has not three cubes; where no cube lies inside that
    circle (their triangle has no obtuse angle), the middle one left to right, as "the middle
    cube" (docs/interfaces.md, "Default scene": "the cube between the others" among three),
    asked where two stand level in the middle left to right."""
    cubes = sorted(world.objects)
    if len(cubes) != 3:
        raise _which(f'cube (of {len(cubes)}, "the other two" is not two)', cubes)
    for name in cubes:
        x, y = world.objects[name][:2]
        (ax, ay), (bx, by) = (world.objects[c][:2] for c in cubes if c != name)
        if (ax - x) * (bx - x) + (ay - y) * (by - y) < 0.0:
            return name, None
    return _middle(match, world)  # asks where two stand level left to right


def _pointed_at(match, world):
    """ "that cube" / "this one" with no cube named before it, or "that" / "this" moved
    ("move that to the right pad"): which one is asked; after a named cube, left as it is
    (it points back at that one)."""
    before = match.string[: match.start()].lower()
    if match.group(0).lower() in ("that", "this"):
        words = re.findall(r"[a-z]+", before)
        if not words or words[-1] not in _PLACING_VERBS:
            return None, None
    if set(re.findall(r"[a-z_]+", before)) & _cube_words(world) - set(CUBE_NOUNS):
        return None, None
    return _bare("cube")(match, world)


def _others(match, world):
    """ "the other cubes", "the others", "the rest of the cubes": every cube the goal does
    not name."""
    named = _named_cubes(match.string, world)
    others = tuple(n for n in world.objects if n not in named)
    if not named or not others:
        return None, None
    return others, None


def _other(match, world):
    """ "the other cube", "another cube": the one cube the goal does not name; asked among
    them when it leaves several ("lift the green cube and put it on another cube"). "The
    other pad": the one place the goal does not name; "the other one" is a place when no
    single cube is left and the goal names one place of two."""
    text = match.string.lower()
    named = _named_cubes(text, world)
    others = sorted(set(world.objects) - named)
    said_places = {n for n in world.places if n in text or spoken(n) in text}
    other_places = sorted(set(world.places) - said_places)
    noun = match.group(0).lower().split()[-1]
    is_pad = noun != "one" and re.fullmatch(_PAD, noun) is not None
    one = noun == "one" and len(others) != 1 and said_places and len(other_places) == 1
    if is_pad or one:
        if len(other_places) == 1 and said_places:
            return other_places[0], None
        if not other_places:
            return None, "the goal names every place: there is no other one"
        raise _which("other place", other_places)
    if len(others) == 1:
        return others[0], None
    if not others:
        return None, "the goal names every cube: there is no other one"
    raise _which("other cube", others)


def _nth_of_colour(match, world):
    """ "the second green cube": the nth cube of that colour, refused where the scene has
    fewer (each cube of the scene has a colour of its own, so any ordinal past the first
    names a cube it lacks)."""
    colour = SYNONYMS.get(match.group("colour").lower(), match.group("colour").lower())
    nth = ORDINALS[match.group("nth").lower()]
    same = sorted(n for n in world.objects if n.split("_")[0] == colour)
    if len(same) >= nth:
        return None, None
    has = f"one {colour} cube" if len(same) == 1 else f"no {colour} cube"
    return None, f"the scene has {has}: there is no {match.group('nth').lower()} one"


def _not_coloured(match, world):
    """ "the pad that isn't yellow", "the non-red cube": of that kind, the things of
    another colour; asked when several are left, refused when none is. "The one that isn't
    C": a place where C is a place's colour and no cube's, else a cube."""
    colour = SYNONYMS.get(match.group("colour").lower(), match.group("colour").lower())
    said = match.group("kind").lower()
    kind = "place" if re.fullmatch(_PLACE, said) else "cube"
    if said == "one" and colour in place_colours(world).values():
        kind = "cube" if any(n.split("_")[0] == colour for n in world.objects) else "place"
    if kind == "place":
        left = sorted(n for n, c in place_colours(world).items() if c != colour)
    else:
        left = sorted(n for n in world.objects if n.split("_")[0] != colour)
    if not left:
        return None, f"every {kind} in the scene is {colour}"
    if len(left) > 1:
        raise _which(f"{kind} (more than one is not {colour})", left)
    return left[0], None


def _same_colour(match, world):
    """ "the pad of the same colour (as it / as the blue cube)": the thing of that kind
    with the colour of the thing said (or else of the cube named last before the phrase);
    refused when none has it."""
    kind = "place" if re.fullmatch(_PLACE, match.group("kind").lower()) else "cube"
    said = (match.group("ref") or "").lower()
    ref = None
    if said and said != "it":
        ref = place_named(said, world) or _colour_cube(said.split()[0], world)
    else:
        before = match.string[: match.start()].lower()
        colours = re.findall(rf"\b({_COLOUR_WORDS}) (?:{_CUBE}|one)\b", before)
        said = f"{colours[-1]} cube" if colours else ""
        ref = _colour_cube(colours[-1], world) if colours else None
    if ref is None:
        return None, f"the scene has no {said}" if said else None
    colours = {**{n: n.split("_")[0] for n in world.objects}, **place_colours(world)}
    colour = colours.get(ref)
    pool = world.places if kind == "place" else world.objects
    same = sorted(n for n in pool if n != ref and colours.get(n) == colour)
    if not same:
        what = "pad" if kind == "place" else "other cube"
        return None, f"no {what} in the scene is {colour} (the colour of the {spoken(ref)})"
    if len(same) > 1:
        raise _which(f"{kind} (more than one is {colour})", same)
    return same[0], None
