"""Test modules are imported by their file name (tests/ has no packages), so two files of
one name in different folders collide at collection: the second fails with "import file
mismatch" in the suite, though each passes alone."""

from collections import Counter
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def test_no_two_test_modules_share_a_file_name():
    names = Counter(p.name for p in TESTS.rglob("test_*.py"))
    assert [name for name, n in names.items() if n > 1] == []
