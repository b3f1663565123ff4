"""bench/paired_eval.py's exact McNemar test: twice the binomial(n, 1/2) tail of the rarer
discordant count, symmetric, 1 where nothing is discordant, at most 1."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bench import paired_eval


def test_known_values():
    assert paired_eval.mcnemar_exact(17, 9) == pytest.approx(0.1686, abs=1e-4)
    assert paired_eval.mcnemar_exact(0, 0) == 1.0
    assert paired_eval.mcnemar_exact(0, 6) == pytest.approx(2 / 64)
    assert paired_eval.mcnemar_exact(5, 5) == 1.0


@given(st.integers(0, 60), st.integers(0, 60))
def test_symmetric_bounded_and_the_doubled_tail(a, b):
    p = paired_eval.mcnemar_exact(a, b)
    assert p == paired_eval.mcnemar_exact(b, a)
    assert 0.0 < p <= 1.0
    n, k = a + b, min(a, b)
    if n:
        tail = sum(math.comb(n, i) for i in range(k + 1)) / 2**n
        assert p == pytest.approx(min(1.0, 2 * tail))
