"""Helpers shared by the ``miles train/eval/export`` commands."""

from __future__ import annotations

import logging
import sys


class _TqdmHandler(logging.Handler):
    """Log lines that do not tear the progress bar."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            from tqdm import tqdm

            tqdm.write(self.format(record), file=sys.stderr)
        except Exception:  # noqa: BLE001 - logging must never raise
            self.handleError(record)


def setup_logging(verbose: bool = False) -> None:
    handler = _TqdmHandler()
    handler.setFormatter(logging.Formatter("%(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.DEBUG if verbose else logging.INFO)


class stdout_to_stderr:
    """Send file descriptor 1 to stderr inside the block, so C libraries (pybullet prints
    its build time) cannot mix text into a ``--json`` answer on stdout."""

    def __enter__(self):
        import os

        sys.stdout.flush()
        self._saved = os.dup(1)
        os.dup2(2, 1)
        return self

    def __exit__(self, *exc):
        import os

        sys.stdout.flush()
        os.dup2(self._saved, 1)
        os.close(self._saved)
        return False
