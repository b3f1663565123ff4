"""The ``miles`` subcommands, and what their parsers share."""

from __future__ import annotations

import argparse


def doc_parser(prog: str, doc: str) -> argparse.ArgumentParser:
    """A command's parser that its module docstring ``doc`` describes: the first paragraph
    above the options, the rest below them, as written."""
    description, _, epilog = doc.partition("\n\n")
    return argparse.ArgumentParser(
        prog=prog,
        description=description,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=epilog,
    )


def check_scene(parser: argparse.ArgumentParser, path: str | None) -> None:
    """Refuse (``parser.error``, exit 2) a ``--scene`` that does not load, before anything
    starts; nothing for None (the default scene)."""
    if not path:
        return
    from sims.scene import load_scene

    try:
        load_scene(path)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        parser.error(f"--scene {path}: {exc}")
