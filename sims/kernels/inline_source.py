"""Source-level inlining: one Python function's source with the bodies of the functions it
calls pasted in, for numba to compile as one function.

Numba's own inlining (``inline="always"``) compiles an inlined function on its own and then
re-types its caller at every call site and level; pasting source gives numba one function
to type once. :func:`inline_source` pastes, into a function's body, every call of a function
in ``paste`` that stands as a statement of its own (``f(...)`` or ``target = f(...)``),
and every call of a function marked :func:`pasted`, recursively: the arguments become
assignments to the callee's parameters (a variable or a constant the callee does not assign
to is used in place), the callee's local names get a suffix of their own per call site
(``name__3``), its final ``return value`` becomes ``target = value``, and every other name
it reads from its module (a constant, a helper it calls) is bound in the namespace the
source is executed in. A callee that cannot be pasted (no source, a ``return`` before its
end, a nested function, keyword arguments) stays a call. The arithmetic and its order are
the callee's own: the results are bit for bit those of the calls.
"""

from __future__ import annotations

import ast
import builtins
import copy
import inspect
import itertools
import textwrap

PASTE_MARK = "__paste_into_generated_source__"


def pasted(fn):
    """Mark ``fn`` (a kernel helper) to be pasted wherever generated source calls it; a
    call everywhere else."""
    setattr(fn, PASTE_MARK, True)
    return fn


class NotPasteable(Exception):
    """A function whose body cannot be pasted in place of a call."""


def _function_def(fn) -> ast.FunctionDef:
    try:
        source = textwrap.dedent(inspect.getsource(fn))
    except (OSError, TypeError) as exc:
        raise NotPasteable(f"{fn.__qualname__}: no source") from exc
    node = ast.parse(source).body[0]
    if not isinstance(node, ast.FunctionDef):
        raise NotPasteable(f"{fn.__qualname__}: not a def")
    node.decorator_list = []
    body = node.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # the docstring
    node.body = body or [ast.Pass()]
    return node


def _free_value(fn, name: str):
    """What ``name`` means in ``fn``'s body where it is not a local: a closure cell, a
    global of its module or a builtin."""
    code = fn.__code__
    if name in code.co_freevars:
        return fn.__closure__[code.co_freevars.index(name)].cell_contents
    if name in fn.__globals__:
        return fn.__globals__[name]
    if hasattr(builtins, name):
        return getattr(builtins, name)
    raise NotPasteable(f"{fn.__qualname__}: unknown name {name!r}")


def _local_names(node: ast.FunctionDef) -> set[str]:
    names = {a.arg for a in node.args.args}
    for sub in ast.walk(node):
        if isinstance(sub, (ast.FunctionDef, ast.Lambda, ast.AsyncFunctionDef, ast.ClassDef)):
            if sub is not node:
                raise NotPasteable(f"{node.name}: nested function or class")
        if isinstance(sub, (ast.Global, ast.Nonlocal, ast.Yield, ast.YieldFrom)):
            raise NotPasteable(f"{node.name}: {type(sub).__name__}")
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, (ast.Store, ast.Del)):
            names.add(sub.id)
    return names


def _assigned(node: ast.FunctionDef) -> set[str]:
    """The names ``node`` assigns to or deletes: a parameter among them is not used in place
    of its argument."""
    return {
        sub.id
        for sub in ast.walk(node)
        if isinstance(sub, ast.Name) and not isinstance(sub.ctx, ast.Load)
    }


class _Paster:
    def __init__(self, paste, namespace: dict):
        self.paste = tuple(paste)
        self.namespace = namespace
        self.reserved: set[str] = set()
        self.sites = itertools.count(1)

    def pasteable(self, value) -> bool:
        """Whether a call of ``value`` is to be pasted."""
        return getattr(value, PASTE_MARK, False) or any(value is fn for fn in self.paste)

    def bind(self, name: str, value) -> str:
        """The namespace's name for ``value`` (``name``, or ``name_2`` ... when taken)."""
        if hasattr(builtins, name) and getattr(builtins, name) is value:
            return name
        for candidate in itertools.chain([name], (f"{name}_{i}" for i in itertools.count(2))):
            if candidate in self.reserved:
                continue
            if candidate not in self.namespace and not hasattr(builtins, candidate):
                self.namespace[candidate] = value
                return candidate
            if self.namespace.get(candidate) is value:
                return candidate
        raise AssertionError("unreachable")

    def body(self, fn, node: ast.FunctionDef, suffix: str) -> list[ast.stmt]:
        """``node``'s body (the source of ``fn``) with its locals renamed by ``suffix``,
        its free names bound, and the calls of pasteable functions pasted."""
        local = _local_names(node)
        renames: dict[str, str] = {n: n + suffix for n in local}
        pasted_calls: dict[str, object] = {}
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name) and sub.id not in local and sub.id not in renames:
                value = _free_value(fn, sub.id)
                if self.pasteable(value):
                    pasted_calls[sub.id] = value
                renames[sub.id] = self.bind(sub.id, value)
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name):
                sub.id = renames[sub.id]
        return self.expand(node.body, {renames[n]: f for n, f in pasted_calls.items()})

    def expand(self, stmts: list[ast.stmt], calls: dict[str, object]) -> list[ast.stmt]:
        """``stmts`` with each statement call ``[target =] name(...)`` of a function in
        ``calls`` (name -> function) replaced by its pasted body, in nested blocks too."""
        out: list[ast.stmt] = []
        for stmt in stmts:
            target, call = None, None
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
                call = stmt.value
            elif (
                isinstance(stmt, ast.Assign)
                and len(stmt.targets) == 1
                and isinstance(stmt.value, ast.Call)
            ):
                target, call = stmt.targets[0], stmt.value
            if call is not None and isinstance(call.func, ast.Name) and call.func.id in calls:
                pasted = self.call(calls[call.func.id], call, target)
                if pasted is not None:
                    out.extend(pasted)
                    continue
            for field in ("body", "orelse"):
                if isinstance(getattr(stmt, field, None), list):
                    setattr(stmt, field, self.expand(getattr(stmt, field), calls))
            out.append(stmt)
        return out

    def call(self, fn, call: ast.Call, target) -> list[ast.stmt] | None:
        """The statements of ``target = fn(args)`` with ``fn``'s body pasted, or None where
        ``fn`` stays a call."""
        try:
            node = _function_def(fn)
            params = [a.arg for a in node.args.args]
            plain = not (node.args.vararg or node.args.kwarg or node.args.kwonlyargs)
            if call.keywords or len(call.args) != len(params) or not plain:
                raise NotPasteable(f"{fn.__qualname__}: not a plain positional call")
            returns = [s for s in ast.walk(node) if isinstance(s, ast.Return)]
            if returns and (len(returns) > 1 or node.body[-1] is not returns[0]):
                raise NotPasteable(f"{fn.__qualname__}: returns before its end")
            suffix = f"__{next(self.sites)}"
            stored = _assigned(node)
            header, substitute = [], {}
            for p, arg in zip(params, call.args, strict=True):
                if isinstance(arg, (ast.Name, ast.Constant)) and p not in stored:
                    substitute[p + suffix] = arg  # a variable or constant: used in place
                else:
                    name = ast.Name(p + suffix, ast.Store())
                    header.append(ast.Assign(targets=[name], value=arg))
            body = self.body(fn, node, suffix)
        except NotPasteable:
            return None
        _substitute(ast.Module(body=body, type_ignores=[]), substitute)
        last = body[-1]
        if isinstance(last, ast.Return):
            body = body[:-1]
            if target is not None:
                body.append(ast.Assign(targets=[target], value=last.value or ast.Constant(None)))
            elif last.value is not None:
                body.append(ast.Expr(last.value))
        elif target is not None:
            body.append(ast.Assign(targets=[target], value=ast.Constant(None)))
        return header + (body or [ast.Pass()])


def _substituted(node, substitute: dict):
    if isinstance(node, ast.Name) and node.id in substitute:
        return copy.deepcopy(substitute[node.id])
    return node


def _substitute(tree: ast.AST, substitute: dict) -> None:
    """Every name in ``substitute`` (name -> expression node) replaced in ``tree``."""
    for sub in ast.walk(tree):
        for field, value in ast.iter_fields(sub):
            if isinstance(value, list):
                value[:] = [_substituted(v, substitute) for v in value]
            else:
                setattr(sub, field, _substituted(value, substitute))


def _bind(node: ast.FunctionDef, bound: dict[str, str]) -> None:
    """``node`` without the parameters named in ``bound`` (name -> source of its value),
    each given its value as an argument of a pasted call is: a constant the body does not
    assign to is used in place (the compiler folds a branch on it), else it is assigned
    first."""
    params = [a.arg for a in node.args.args]
    unknown = set(bound) - set(params)
    if unknown or node.args.defaults:
        raise ValueError(f"{node.name}: cannot bind {sorted(bound)} (parameters {params})")
    stored = _assigned(node)
    header, substitute = [], {}
    for param, source in bound.items():
        value = ast.parse(source, mode="eval").body
        if isinstance(value, ast.Constant) and param not in stored:
            substitute[param] = value
        else:
            header.append(ast.Assign(targets=[ast.Name(param, ast.Store())], value=value))
    node.args.args = [a for a in node.args.args if a.arg not in bound]
    _substitute(node, substitute)
    node.body = header + node.body


def inline_source(
    fn, paste, namespace: dict, name: str | None = None, bound: dict[str, str] | None = None
) -> str:
    """The source of ``fn`` (named ``name``) with the functions in ``paste`` (and those
    marked :func:`pasted`) pasted in at their statement calls, recursively; the names it
    reads are bound in ``namespace``, where the source is to be executed. ``bound``
    (parameter -> source of its value, e.g. ``"False"``) drops parameters from the
    signature: one source, compiled once per value (a constant mode, a mode read at run
    time)."""
    node = _function_def(fn)
    _bind(node, bound or {})
    paster = _Paster(paste, namespace)
    paster.reserved = _local_names(node)
    node.body = paster.body(fn, node, "")
    node.name = name or node.name
    return ast.unparse(ast.fix_missing_locations(node)) + "\n"
