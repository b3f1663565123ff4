"""Every relative link in README.md and docs/*.md resolves: to an existing file and, for a
``#anchor``, to a heading of that file (GitHub's slugs), so moving or renaming a file or a
heading breaks here, not for a reader. The README stays a short front door that links every
page of docs/."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README_MAX_LINES = 200

_FENCE = re.compile(r"^\s*(```|~~~)")
_INLINE_CODE = re.compile(r"(`+).*?\1")
_LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_REFERENCE = re.compile(r"^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$")
_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:|^//")


def markdown_files(root: Path = ROOT) -> list[Path]:
    return [root / "README.md", *sorted((root / "docs").glob("*.md"))]


def _prose_lines(text: str) -> list[str]:
    """The lines outside fenced code blocks."""
    lines, fenced = [], False
    for line in text.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            lines.append(line)
    return lines


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: links reduced to their text, inline markup and
    punctuation dropped, lower case, spaces to hyphens."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = re.sub(r"<[^>]+>", "", text).replace("`", "")
    text = re.sub(r"[^\w\- ]", "", text.lower())
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every heading anchor of a markdown file, duplicates numbered as GitHub does."""
    seen: dict[str, int] = {}
    found = set()
    for line in _prose_lines(path.read_text()):
        match = _HEADING.match(line)
        if not match:
            continue
        base = slug(match.group(2))
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def links(path: Path) -> list[str]:
    """The link targets of a markdown file, outside code blocks and code spans."""
    targets = []
    for line in _prose_lines(path.read_text()):
        reference = _REFERENCE.match(line)
        if reference:
            targets.append(reference.group(1))
            continue
        targets.extend(_LINK.findall(_INLINE_CODE.sub("", line)))
    return targets


def broken_links(path: Path, root: Path = ROOT) -> list[str]:
    """The relative links of ``path`` that lead nowhere, each with the reason."""
    broken = []
    for target in links(path):
        if _SCHEME.match(target):
            continue
        file_part, _, anchor = target.partition("#")
        dest = (path.parent / file_part).resolve() if file_part else path
        if not dest.is_relative_to(root.resolve()):
            broken.append(f"{target}: outside the repository")
        elif not dest.exists():
            broken.append(f"{target}: no such file")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            broken.append(f"{target}: no heading #{anchor} in {dest.name}")
    return broken


@pytest.mark.parametrize("path", markdown_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(path):
    assert broken_links(path) == []


def test_a_moved_file_or_heading_breaks_a_link(tmp_path):
    (tmp_path / "docs").mkdir()
    readme = tmp_path / "README.md"
    readme.write_text(
        "```\n[in a code block](docs/none.md)\n```\n"
        "See [the page](docs/page.md#the-arms-command-path), [here](#top) and "
        "[a site](https://example.org/x.md); `[code](docs/none.md)`.\n\n# Top\n"
    )
    assert broken_links(readme, tmp_path) == ["docs/page.md#the-arms-command-path: no such file"]
    page = tmp_path / "docs" / "page.md"
    page.write_text("# Page\n\n## The arm's command path\n")
    assert broken_links(readme, tmp_path) == []
    page.write_text("# Page\n\n## The command path\n")
    assert broken_links(readme, tmp_path) == [
        "docs/page.md#the-arms-command-path: no heading #the-arms-command-path in page.md"
    ]


@pytest.mark.parametrize(
    "heading, expected",
    [
        ("Isaac Lab (Newton physics, CPU or CUDA)", "isaac-lab-newton-physics-cpu-or-cuda"),
        ("`make demo`", "make-demo"),
        ("Envelopes: the scene's distances and areas", "envelopes-the-scenes-distances-and-areas"),
        ("Two-arm demo", "two-arm-demo"),
        ("The [planner](planner.md) and plan_cache", "the-planner-and-plan_cache"),
    ],
)
def test_slugs_are_githubs(heading, expected):
    assert slug(heading) == expected


def test_duplicate_headings_are_numbered(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("# A\n## Measured\n```\n# not a heading\n```\n## Measured\n")
    assert anchors(page) == {"a", "measured", "measured-1"}


def test_the_readme_is_a_short_front_door():
    text = (ROOT / "README.md").read_text()
    assert len(text.splitlines()) <= README_MAX_LINES
    first_block = text.split("```")[1]
    assert "make demo" in first_block and "make test" in first_block
    linked = {(ROOT / t.partition("#")[0]).resolve() for t in links(ROOT / "README.md")}
    orphans = [p.name for p in markdown_files()[1:] if p.resolve() not in linked]
    assert orphans == [], "docs pages the README does not link"
