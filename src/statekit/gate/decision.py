"""The gate's decision: may this `tools/call` run? Every call on every server kind asks here first.

The FastMCP middleware (`fastmcp_middleware.GateMiddleware.on_call_tool`) and the SDK
servers' `tools/call` handler (`Gate.call_tool`, for a low-level `Server` and an
`MCPServer`) both enter the gate through `Gate.handle_call`, whose first step is `admit`:
no handler, bound or not, runs before it answers allow.

The rules, in the order they are asked:

1. **A closed world.** The bindings must name tools the server serves. A bound name the
   server does not serve gates nothing, and it is usually a typo (`aprove` beside
   `approve`, `check_balance_default` beside `check_balance`) that leaves the real tool
   ungated. Until every bound name has been seen in the server's catalog, **no** call
   runs, bound or not: the refusal (`GATE_MISCONFIGURED`) names the bound names the
   server does not serve and the names it does. The catalog is read on the first call (or
   the first `tools/list`), so a raw `tools/call` with no listing before it is checked too.
2. **Unbound tools are ungated, and only in a matching world.** A tool the gate does not
   bind is always allowed (as MCP Fusion's tools without `bindState`), so a gate can guard a
   few tools of a large server. Declare it with `gate.bind(name)` (no states) to make the
   intent visible; either way it runs only once rule 1 holds.
3. **The state.** A state-bound tool runs only while the workflow is in one of its states
   (`in_state`); the call pipeline asks it under the workflow's lock, after loading the
   record, and refuses with `FORBIDDEN` otherwise.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Collection, Iterable
from dataclasses import dataclass

from statekit.gate.errors import GATE_MISCONFIGURED, GateResultCode

logger = logging.getLogger("statekit.gate")


@dataclass
class Catalog:
    """The names the caller can list (before any gate's state filter), fetched at most once per call."""

    fetch: Callable[[], Awaitable[list[str]]]
    names: list[str] | None = None

    async def get(self) -> list[str]:
        if self.names is None:
            self.names = await self.fetch()
        return self.names


@dataclass(frozen=True)
class Allow:
    """The call may proceed; `bound` calls go on through the gate's state check and transition."""

    bound: bool


@dataclass(frozen=True)
class Refuse:
    """The call must not run; `code` is one of the gate's result codes."""

    code: GateResultCode
    message: str
    #: The bound names the server does not serve.
    unmatched: tuple[str, ...] = ()


Decision = Allow | Refuse


class World:
    """The gate's bindings against the tools the server serves (rule 1 of the module docstring)."""

    def __init__(self, workflow_id: str) -> None:
        self.workflow_id = workflow_id
        self.bound: set[str] = set()
        #: Tools the gate serves itself (`@gate.tool`): always in the catalog.
        self.own: set[str] = set()
        self.listed: set[str] = set()
        self.matched = False
        self.problem: str | None = None
        self.unmatched: tuple[str, ...] = ()

    def observe(self, listed: Iterable[str]) -> str | None:
        """Add names the server lists; returns the mismatch, or None once every bound name was seen.

        Names accumulate over listings, so a server that hides some tools from some callers
        matches once every bound name has been listed to someone; a match is final.
        """
        if self.matched:
            return None
        self.listed.update(listed)
        served = self.listed | self.own
        missing = tuple(sorted(name for name in self.bound if name not in served))
        if not missing:
            if self.problem is not None:
                logger.warning(
                    "statekit.gate: bindings of %s now match the server", self.workflow_id
                )
            self.matched, self.problem, self.unmatched = True, None, ()
            return None
        problem = (
            f"workflow {self.workflow_id!r} binds {list(missing)}, which the server does not serve "
            f"(it serves {sorted(served)}); fix the names passed to gate.bind"
        )
        if self.problem != problem:
            logger.error("statekit.gate: %s", problem)
        self.problem, self.unmatched = problem, missing
        return problem

    def assume_matched(self) -> None:
        """The gate serves every bound tool itself: nothing to compare."""
        if not (self.bound - self.own):
            self.matched = True


async def admit(world: World, name: str, catalog: Catalog) -> Decision:
    """Rules 1 and 2: whether a call of `name` may go on, before anything else is looked at."""
    if not world.matched:
        world.observe(await catalog.get())
    if world.problem is not None or not world.matched:
        return Refuse(
            GATE_MISCONFIGURED,
            "The server's workflow gate is misconfigured, so no tool call runs until it is "
            f"fixed: {world.problem}.",
            world.unmatched,
        )
    return Allow(bound=name in world.bound)


def in_state(name: str, bound_visible: Collection[str], state_bound: bool) -> bool:
    """Rule 3: a state-bound tool runs only while it is visible in the current state."""
    return not state_bound or name in bound_visible
