"""The datamodel seam of the SCXML interpreter, its events, and the null datamodel.

The interpreter never evaluates anything itself: every expression, location and script goes
through a `Datamodel`. Values that leave the datamodel (event data, send targets, delays) are
JSON values in Python (the engine's `UNDEFINED` for ECMAScript's `undefined`), because events cross from one
session to another and each session has its own datamodel.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from statekit.engine.evaluation import UNDEFINED as UNDEFINED

SCXML_PROCESSOR = "http://www.w3.org/TR/scxml/#SCXMLEventProcessor"
SCXML_PROCESSOR_ALIASES = (SCXML_PROCESSOR, "scxml")




class ExecutionError(Exception):
    """An expression, location or script failed: the interpreter raises `error.execution`
    (with `sendid` when a `<send>` failed)."""

    def __init__(self, message: str, sendid: str | None = None) -> None:
        super().__init__(message)
        self.sendid = sendid


class DatamodelLimitError(Exception):
    """The datamodel ran out of time, memory or stack: the session stops (fail closed)."""


@dataclass
class Event:
    name: str
    type: Literal["platform", "internal", "external"] = "external"
    sendid: str | None = None
    origin: str | None = None
    origintype: str | None = None
    invokeid: str | None = None
    data: Any = UNDEFINED

    def to_json(self) -> dict[str, Any]:
        """The `_event` fields as JSON; absent fields are left out (they read as undefined)."""
        result: dict[str, Any] = {"name": self.name, "type": self.type}
        for key in ("sendid", "origin", "origintype", "invokeid"):
            value = getattr(self, key)
            if value is not None:
                result[key] = value
        if self.data is not UNDEFINED:
            result["data"] = self.data
        return result


@dataclass
class SystemVariables:
    sessionid: str
    name: str | None
    ioprocessors: dict[str, Any] = field(default_factory=dict)


class Datamodel(Protocol):
    """What the interpreter asks of a datamodel (SCXML 5 and Appendix B)."""

    def start(self, system: SystemVariables) -> None:
        """Create the (empty) datamodel with the read-only system variables."""

    def declare(self, name: str, *, expr: str | None = None, value: Any = UNDEFINED) -> None:
        """Create variable `name` (undefined, or from `expr`/`value`); ExecutionError on failure
        (the variable then exists, undefined)."""

    def evaluate(self, expr: str) -> Any:
        """The JSON value of an expression; ExecutionError if it cannot be evaluated."""

    def condition(self, expr: str) -> bool:
        """A conditional expression as a boolean; ExecutionError if it cannot be evaluated."""

    def assign(self, location: str, *, expr: str | None = None, value: Any = UNDEFINED) -> None:
        """Assign to a location that must already exist; ExecutionError otherwise."""

    def script(self, source: str) -> None:
        """Run a script at global scope; ExecutionError if it throws."""

    def set_event(self, event: Event) -> None:
        """Make `event` the value of `_event`."""

    def foreach(self, array: str, item: str, index: str | None) -> int:
        """Start a `<foreach>`: a shallow copy of `array`; its length. ExecutionError if `array`
        is no array or `item`/`index` are no legal variable names."""

    def foreach_step(self, position: int) -> None:
        """Set `item` (and `index`) of the innermost `<foreach>` to the copy's element `position`."""

    def foreach_end(self) -> None:
        """End the innermost `<foreach>`."""

    def configuration_changed(self, entered: str | None, exited: str | None) -> None:
        """A state entered or left the configuration (for `In()`)."""

    def variables(self) -> dict[str, Any]:
        """The declared variables and their JSON values (for reports; functions are left out)."""

    def close(self) -> None:
        """Release the datamodel's resources."""


_IN = re.compile(r"""^\s*In\(\s*(?:'([^']*)'|"([^"]*)")\s*\)\s*$""")


class NullDatamodel:
    """SCXML's null datamodel (Appendix B.1): no data; `In('id')` is the only condition."""

    def __init__(self) -> None:
        self._configuration: set[str] = set()

    def start(self, system: SystemVariables) -> None:
        return None

    def declare(self, name: str, *, expr: str | None = None, value: Any = UNDEFINED) -> None:
        raise ExecutionError("the null datamodel holds no data")

    def evaluate(self, expr: str) -> Any:
        raise ExecutionError(f"the null datamodel evaluates no expressions ({expr!r})")

    def condition(self, expr: str) -> bool:
        match = _IN.match(expr)
        if match is None:
            raise ExecutionError(f"the null datamodel knows only In('state') as a condition, not {expr!r}")
        return (match.group(1) if match.group(1) is not None else match.group(2)) in self._configuration

    def assign(self, location: str, *, expr: str | None = None, value: Any = UNDEFINED) -> None:
        raise ExecutionError("the null datamodel holds no data to assign")

    def script(self, source: str) -> None:
        raise ExecutionError("the null datamodel runs no scripts")

    def set_event(self, event: Event) -> None:
        return None

    def foreach(self, array: str, item: str, index: str | None) -> int:
        raise ExecutionError("the null datamodel has no arrays to iterate")

    def foreach_step(self, position: int) -> None:
        raise ExecutionError("the null datamodel has no arrays to iterate")

    def foreach_end(self) -> None:
        return None

    def configuration_changed(self, entered: str | None, exited: str | None) -> None:
        if entered is not None:
            self._configuration.add(entered)
        if exited is not None:
            self._configuration.discard(exited)

    def variables(self) -> dict[str, Any]:
        return {}

    def close(self) -> None:
        return None
