"""The prohibitions a goal says (:func:`miles_ros.agent.scope.read_scope` reads them): a
cube kept out of the plan, how (:data:`TOUCH`, :data:`MOVE`, :data:`AVOID`, :data:`SKILL`),
and whether a step breaks it."""

from __future__ import annotations

import re
from dataclasses import dataclass

from miles_ros.agent.grounding import Step
from miles_ros.agent.registry import SkillRegistry

TOUCH = "touch"
"""A prohibition on any step that touches the cube (moves it, or puts something on it)."""
MOVE = "move"
"""A prohibition on any step that moves the cube (something may still be put on it)."""
AVOID = "avoid"
"""A prohibition on any step that acts on the cube or goes to it (a reach too)."""
PLACE = "place"
"""A prohibition on one placement: the cube put or pushed onto :attr:`Prohibition.target`
("don't put the red cube on the grey pad"); the cube may still go elsewhere."""
SKILL = "skill"
"""A prohibition on every call of a parameter-free skill ("don't go home"): its
:attr:`Prohibition.cube` holds the skill's name."""


@dataclass(frozen=True)
class Prohibition:
    """A cube the goal keeps out of the plan."""

    cube: str
    """The cube's scene name."""
    what: str
    """:data:`TOUCH` or :data:`MOVE`."""
    phrase: str
    """The goal's words that say so."""
    scope: str = "goal"
    """``goal``: every step; ``clause``: the clause it stands in only (not checked on steps)."""
    target: str | None = None
    """:data:`PLACE` only: the scene thing the cube may not be put or pushed onto."""

    def forbids(self, step: Step, registry: SkillRegistry) -> str | None:
        """Why ``step`` breaks this prohibition (None: it does not, or it holds in one
        clause only). A step acting on the cube (its ``object``) breaks either kind; one
        whose target is the cube breaks :data:`TOUCH` when its skill has ``contact`` (a
        stack, a push against it) and :data:`MOVE` when it pushes against it (contact
        without grasping); a reach never touches. :data:`AVOID`: any step naming the
        cube."""
        if self.scope != "goal" or step.skill not in registry:
            return None
        if self.what == SKILL:
            said = f"the goal forbids {self.cube} ({self.phrase!r})"
            return said if step.skill == self.cube else None
        if self.what == PLACE:
            if step.params.get("object") == self.cube and step.params.get("target") == self.target:
                said = f"the goal forbids ({self.phrase!r})"
                return f"it puts {self.cube} on {self.target}, which {said}"
            return None
        perms = registry[step.skill].permissions
        if self.what == AVOID and self.cube in (
            step.params.get("object"),
            step.params.get("target"),
        ):
            verb = "goes to"
        elif step.params.get("object") == self.cube:
            verb = "touches" if self.what == TOUCH else "moves"
        elif step.params.get("target") == self.cube and "contact" in perms:
            if self.what == MOVE and "grasps" in perms:
                return None  # a cube put on top of it does not move it
            verb = "touches" if self.what == TOUCH else "pushes against"
        else:
            return None
        return f"it {verb} {self.cube}, which the goal forbids ({self.phrase!r})"


@dataclass(frozen=True)
class Scope:
    """What :func:`read_scope` found."""

    text: str
    """The goal with "every/all cubes" expanded and the prohibitions taken out (the part
    the model plans); the goal itself when it has neither."""
    prohibitions: tuple[Prohibition, ...] = ()
    refusal: str | None = None
    """Why the goal cannot be done ("every cube except" all of them)."""

    @property
    def nothing(self) -> bool:
        """The goal only forbids ("don't touch the red cube"): no motion is asked."""
        said = _FILLER.sub(" ", self.text.lower())
        return bool(self.prohibitions) and not re.search(r"[a-z0-9]", said)


_FILLER = re.compile(
    r"\b(?:actually|on second thoughts?|ok|okay|please|just|now|so|well|sorry|for now|"
    r"thanks|thank you|robot|hey|instead|either|too|as well|whatever happens|no matter what|"
    r"under any circumstances?|at any point|ever)\b"
)
"""Words that ask for nothing by themselves (left when the prohibitions are taken out)."""
