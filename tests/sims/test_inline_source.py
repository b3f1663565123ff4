"""Source-level inlining (sims.kernels.inline_source): the pasted source computes what the
calls did, names stay apart, and what cannot be pasted stays a call."""

from __future__ import annotations

import math

from sims.kernels.inline_source import inline_source, pasted

SCALE = 3.0


def norm2(x, y):
    d = math.sqrt(x * x + y * y)
    return d * SCALE, d > 1.0


def fill(out, i, x):
    """Writes a row (docstring dropped when pasted)."""
    d = x + 1.0
    for j in range(2):
        out[i][j] = d + j


def early(x):
    if x > 0.0:
        return 1.0
    return -1.0


@pasted
def marked(out, x):
    out.append(x * 2.0)


def caller(xs, out, log):
    for i in range(len(xs)):
        d = xs[i]  # the same local name as norm2's
        (r, big) = norm2(d, 1.0)
        fill(out, i, r)
        s = early(d)
        marked(log, s)
        log.append((d, r, big))


def build():
    namespace: dict = {}
    source = inline_source(caller, (norm2, fill, early), namespace, name="generated")
    exec(compile(source, "<generated>", "exec"), namespace)
    return source, namespace["generated"]


def test_pasted_source_computes_what_the_calls_did():
    xs = [0.5, -2.0, 3.0]
    want_out, want_log = [[0.0, 0.0] for _ in xs], []
    caller(xs, want_out, want_log)
    source, generated = build()
    got_out, got_log = [[0.0, 0.0] for _ in xs], []
    generated(xs, got_out, got_log)
    assert got_out == want_out
    assert got_log == want_log


def test_bodies_are_pasted_and_an_early_return_stays_a_call():
    source, _ = build()
    assert "norm2(" not in source and "fill(" not in source and "marked(" not in source
    assert "math.sqrt(" in source  # norm2's body, its module's names bound
    assert "early(" in source  # returns before its end: a call
    assert "Writes a row" not in source
    assert "d__1 = math.sqrt" in source  # norm2's local d apart from the caller's d


def moded(xs, scaled, out):
    for x in xs:
        if scaled:
            out.append(x * SCALE)
        else:
            out.append(x)


def test_a_bound_parameter_leaves_the_signature():
    for bound, want in (("True", [3.0, 6.0]), ("False", [1.0, 2.0]), ("len(xs) > 2", [1.0, 2.0])):
        namespace: dict = {}
        source = inline_source(moded, (), namespace, name="g", bound={"scaled": bound})
        exec(compile(source, "<generated>", "exec"), namespace)
        out: list = []
        namespace["g"]([1.0, 2.0], out)
        assert out == want, source
    constant = inline_source(moded, (), {}, bound={"scaled": "False"})
    assert "if False:" in constant and "scaled" not in constant  # a constant: in place
    expression = inline_source(moded, (), {}, bound={"scaled": "len(xs) > 2"})
    assert "scaled = len(xs) > 2" in expression  # an expression: assigned first
