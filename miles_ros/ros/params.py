"""The one parameter helper of the nodes: ROS parameters declared from a typed dataclass.

:func:`declare_params` declares one parameter per field (typed default, the field's
docstring as description, read-only unless listed as dynamic) and, given a ``check``,
adds an on-set callback that refuses invalid values with a reason. The dataclasses
themselves (one module per node, and reading ``config/*.yaml``) are ROS-free:
:mod:`miles_ros.params`.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import MISSING, fields
from typing import Any, get_args, get_type_hints

from rcl_interfaces.msg import ParameterDescriptor, SetParametersResult
from rclpy.node import Node
from rclpy.parameter import Parameter

from miles_ros.params import field_docs

_SCALARS = {
    bool: Parameter.Type.BOOL,
    int: Parameter.Type.INTEGER,
    float: Parameter.Type.DOUBLE,
    str: Parameter.Type.STRING,
}
_ARRAYS = {
    bool: Parameter.Type.BOOL_ARRAY,
    int: Parameter.Type.INTEGER_ARRAY,
    float: Parameter.Type.DOUBLE_ARRAY,
    str: Parameter.Type.STRING_ARRAY,
}


def _param_type(hint: Any) -> Parameter.Type:
    args = get_args(hint)
    if args:  # tuple[X, ...]
        return _ARRAYS[args[0]]
    return _SCALARS[hint]


def declare_params(
    node: Node,
    cls: type,
    dynamic: Collection[str] = (),
    check: Callable[[str, Any], str | None] | None = None,
) -> Any:
    """Declare one parameter per field of dataclass ``cls`` on ``node`` and return ``cls``
    built from their values (arrays as tuples). Fields not in ``dynamic`` are read-only.
    With ``check``, an on-set callback (added before declaring, so initial values from
    parameter files are checked too) refuses a value when ``check(name, value)`` returns
    a reason."""
    if check is not None:
        node.add_on_set_parameters_callback(validating_callback(check))
    hints = get_type_hints(cls)
    docs = field_docs(cls)
    values = {}
    for f in fields(cls):
        default = f.default if f.default is not MISSING else f.default_factory()  # type: ignore[misc]
        ptype = _param_type(hints[f.name])
        descriptor = ParameterDescriptor(
            name=f.name,
            type=int(ptype),
            description=docs.get(f.name, ""),
            read_only=f.name not in dynamic,
        )
        initial = list(default) if isinstance(default, tuple) else default
        param = node.declare_parameter(f.name, initial if initial != [] else ptype, descriptor)
        value = param.value
        if value is None:
            value = default
        values[f.name] = tuple(value) if isinstance(value, list | tuple) else value
    return cls(**values)


def validating_callback(
    check: Callable[[str, Any], str | None],
) -> Callable[[list[Parameter]], SetParametersResult]:
    """An on-set-parameters callback that refuses a value when ``check(name, value)``
    returns a reason (arrays are passed as tuples)."""

    def callback(params: list[Parameter]) -> SetParametersResult:
        for param in params:
            value = param.value
            if isinstance(value, list | tuple) or hasattr(value, "tolist"):
                value = tuple(value)
            reason = check(param.name, value)
            if reason:
                return SetParametersResult(successful=False, reason=reason)
        return SetParametersResult(successful=True)

    return callback
