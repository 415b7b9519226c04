"""One SCXML session: the algorithm of the W3C recommendation's Appendix D.

The recommendation's main loop blocks on the external queue; here the loop is cut at that
point instead: `start()` runs the first macrostep, `process_external()` runs one external event
and the macrostep it causes, and the `ScxmlSystem` that owns the sessions decides when (on a
virtual clock). Function names follow Appendix D so the two can be read side by side.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from statekit.budget import charge_output, check_budget, current_budget
from statekit.formats.scxml_read import is_scxml, local
from statekit.scxml.content import (
    content_value,
    delay_ms,
    inline_value,
    namelist_values,
    param_values,
    text_value,
    xml_element,
)
from statekit.scxml.datamodel import (
    SCXML_PROCESSOR,
    SCXML_PROCESSOR_ALIASES,
    UNDEFINED,
    Datamodel,
    DatamodelLimitError,
    Event,
    ExecutionError,
    NullDatamodel,
    SystemVariables,
)
from statekit.scxml.document import Document, DocumentError, State, Transition, name_matches
from statekit.scxml.ecmascript import EcmascriptDatamodel

if TYPE_CHECKING:
    from statekit.scxml.system import ScxmlSystem

#: Microsteps one macrostep may take before the session is stopped (an eventless or raise loop).
MAX_MICROSTEPS = 10_000
INVOKE_TYPES = ("http://www.w3.org/TR/scxml/", "http://www.w3.org/TR/scxml", "scxml", SCXML_PROCESSOR)


class SessionError(Exception):
    """The session cannot go on faithfully (a limit, a loop without end); it is stopped."""


def make_datamodel(name: str) -> Datamodel:
    if name == "ecmascript":
        return EcmascriptDatamodel()
    if name == "null":
        return NullDatamodel()
    raise DocumentError(f"datamodel={name!r} is not supported (only 'ecmascript' and 'null' are)")


@dataclass(eq=False)
class Invocation:
    invokeid: str
    state: State
    element: ET.Element
    child: Session
    autoforward: bool
    finalize: list[ET.Element] = field(default_factory=list)


@dataclass
class Step:
    """One processed event (or eventless step) of a session, for reports."""

    event: str | None
    transitions: list[str]
    configuration: list[str]


class Session:
    def __init__(self, system: ScxmlSystem, document: Document, sessionid: str, *,
                 parent: Session | None = None, invokeid: str | None = None,
                 initial_values: dict[str, Any] | None = None, base: str | None = None) -> None:
        self.system = system
        self.doc = document
        self.sessionid = sessionid
        self.parent = parent
        self.invokeid = invokeid
        self.base = base
        self.initial_values = initial_values or {}
        self.datamodel = make_datamodel(document.datamodel)
        self.configuration: set[State] = set()
        #: The configuration the session was in when it ended (it is empty after the end).
        self.ended_configuration: set[State] = set()
        self.states_to_invoke: set[State] = set()
        self.history: dict[State, list[State]] = {}
        self.internal: deque[Event] = deque()
        self.external: deque[Event] = deque()
        self.invocations: dict[str, Invocation] = {}
        self.first_entry: set[State] = set(document.ordered)
        self.running = False
        self.cancelled = False
        #: An invoked session that ended frees its datamodel; a top-level one keeps it readable
        #: (`session.datamodel.variables()`) until the caller closes it or drops the session.
        self.close_datamodel_on_exit = parent is not None
        #: The id of the top-level final state the session ended in, if it did.
        self.final: str | None = None
        self.error: str | None = None
        self.logs: list[tuple[str | None, Any]] = []
        self.steps: list[Step] = []
        self.raised: list[str] = []
        self.errors: list[str] = []
        self.sent: list[dict[str, Any]] = []
        self._ids = 0

    # -- life cycle ---------------------------------------------------------------------------
    def system_variables(self) -> SystemVariables:
        location = {"location": f"#_scxml_{self.sessionid}"}
        return SystemVariables(self.sessionid, self.doc.name,
                               {SCXML_PROCESSOR: location, "scxml": location})

    def start(self) -> None:
        self.running = True
        try:
            self.datamodel.start(self.system_variables())
            for state in self.doc.ordered:
                if self.doc.binding == "early" or state is self.doc.root:
                    self.initialize_data(state)
                else:
                    for data in state.data:
                        self._declare(data.get("id", ""))
            for script in self.doc.scripts:
                self.execute_block([script])
            root_initial = self.doc.root.initial
            if root_initial is None:
                raise DocumentError("the document has no state to start in")
            self.enter_states([root_initial])
            self.macrostep()
        except (SessionError, DatamodelLimitError) as error:
            self.stop_with_error(str(error))

    def stop_with_error(self, message: str) -> None:
        self.error = message
        self.running = False
        self.system.session_ended(self)

    def _declare(self, name: str) -> None:
        try:
            self.datamodel.declare(name)
        except ExecutionError as error:
            self.raise_error("error.execution", str(error))

    def initialize_data(self, state: State) -> None:
        for data in state.data:
            name = data.get("id", "")
            try:
                if state is self.doc.root and name in self.initial_values:
                    self.datamodel.declare(name, value=self.initial_values[name])
                elif data.get("expr") is not None:
                    self.datamodel.declare(name, expr=data.get("expr"))
                elif data.get("src") is not None:
                    text = self.system.load(data.get("src", ""), self.base)
                    self.datamodel.declare(name, value=text_value(text))
                else:
                    self.datamodel.declare(name, value=inline_value(data))
            except ExecutionError as error:
                self._declare(name)
                self.raise_error("error.execution", f"<data id={name!r}>: {error}")
        self.first_entry.discard(state)

    def process_external(self) -> None:
        """Take one event from the external queue and run the macrostep it causes."""
        if not self.running or not self.external:
            return
        event = self.external.popleft()
        try:
            self.datamodel.set_event(event)
            for invocation in list(self.invocations.values()):
                if invocation.invokeid == event.invokeid:
                    self.execute_block(invocation.finalize)
                if invocation.autoforward:
                    self.system.deliver(invocation.child, _forwarded(event))
            enabled = self.select_transitions(event)
            self._record(event.name, enabled)
            if enabled:
                self.microstep(enabled)
            self.macrostep()
        except (SessionError, DatamodelLimitError) as error:
            self.stop_with_error(str(error))

    def run_internal(self) -> None:
        """Process internal events placed while the session was waiting (a failed delayed send)."""
        try:
            self.macrostep()
        except (SessionError, DatamodelLimitError) as error:
            self.stop_with_error(str(error))

    def macrostep(self) -> None:
        """Appendix D's mainEventLoop up to where it waits for an external event."""
        microsteps = 0
        while True:
            while self.running:
                check_budget()  # every microstep: an eventless or raise loop stops at the call's deadline
                enabled = self.select_eventless_transitions()
                name: str | None = None
                if not enabled:
                    if not self.internal:
                        break
                    event = self.internal.popleft()
                    name = event.name
                    self.datamodel.set_event(event)
                    enabled = self.select_transitions(event)
                if enabled or name is not None:
                    self._record(name, enabled)
                if enabled:
                    microsteps += 1
                    if microsteps > MAX_MICROSTEPS:
                        raise SessionError(f"session {self.sessionid} took over {MAX_MICROSTEPS} microsteps "
                                           "without reaching a stable configuration")
                    self.microstep(enabled)
            if not self.running:
                self.exit_interpreter()
                return
            for state in sorted(self.states_to_invoke, key=_order):
                for element in state.invokes:
                    self.invoke(state, element)
            self.states_to_invoke.clear()
            if not self.internal:
                return

    def cancel(self) -> None:
        """The invoking state was left: stop this session; it runs its exit handlers, and
        sends no done.invoke (SCXML 6.4)."""
        if not self.running:
            return
        self.cancelled = True
        self.running = False
        try:
            self.exit_interpreter()
        except (SessionError, DatamodelLimitError) as error:
            self.error = str(error)

    def exit_interpreter(self) -> None:
        self.ended_configuration = set(self.configuration)
        for state in sorted(self.configuration, key=_order, reverse=True):
            for block in state.onexit:
                self.execute_block(block)
            self._cancel_invokes(state)
            self._leave(state)
            if state.kind == "final" and state.parent is self.doc.root and not self.cancelled:
                self.system.return_done_event(self, self.done_data(state))
        self.system.session_ended(self)
        if self.close_datamodel_on_exit:
            self.datamodel.close()

    # -- selecting transitions ----------------------------------------------------------------
    def _atomic_states(self) -> list[State]:
        return sorted((s for s in self.configuration if s.is_atomic), key=_order)

    def select_eventless_transitions(self) -> list[Transition]:
        return self._select(None)

    def select_transitions(self, event: Event) -> list[Transition]:
        return self._select(event.name)

    def _select(self, name: str | None) -> list[Transition]:
        enabled: list[Transition] = []
        for atomic in self._atomic_states():
            for state in [atomic, *atomic.proper_ancestors()]:
                found = next((t for t in state.transitions if self._enabled(t, name)), None)
                if found is not None:
                    if found not in enabled:
                        enabled.append(found)
                    break
        return self.remove_conflicting_transitions(enabled)

    def _enabled(self, transition: Transition, name: str | None) -> bool:
        if name is None:
            if transition.events:
                return False
        elif not transition.events or not name_matches(transition.events, name):
            return False
        return self.condition(transition.cond)

    def condition(self, cond: str | None) -> bool:
        if cond is None:
            return True
        try:
            return self.datamodel.condition(cond)
        except ExecutionError as error:
            self.raise_error("error.execution", f"cond {cond!r}: {error}")
            return False

    def remove_conflicting_transitions(self, enabled: list[Transition]) -> list[Transition]:
        filtered: list[Transition] = []
        exit_sets: dict[int, set[State]] = {}

        def exits(t: Transition) -> set[State]:
            if id(t) not in exit_sets:
                exit_sets[id(t)] = self.compute_exit_set([t])
            return exit_sets[id(t)]

        for t1 in enabled:
            preempted = False
            to_remove: list[Transition] = []
            for t2 in filtered:
                if exits(t1) & exits(t2):
                    if t1.source.is_descendant(t2.source):
                        to_remove.append(t2)
                    else:
                        preempted = True
                        break
            if not preempted:
                filtered = [t for t in filtered if t not in to_remove]
                filtered.append(t1)
        return filtered

    # -- microstep ----------------------------------------------------------------------------
    def microstep(self, enabled: list[Transition]) -> None:
        self.exit_states(enabled)
        for transition in enabled:
            self.execute_block(transition.content)
        self.enter_states(enabled)

    def compute_exit_set(self, transitions: Iterable[Transition]) -> set[State]:
        result: set[State] = set()
        for transition in transitions:
            if transition.targets:
                domain = self.transition_domain(transition)
                for state in self.configuration:
                    if domain is None or state.is_descendant(domain):
                        result.add(state)
        return result

    def exit_states(self, enabled: list[Transition]) -> None:
        to_exit = sorted(self.compute_exit_set(enabled), key=_order, reverse=True)
        for state in to_exit:
            self.states_to_invoke.discard(state)
        for state in to_exit:
            for history in state.children:
                if history.kind != "history":
                    continue
                if history.deep:
                    self.history[history] = [s for s in self.configuration if s.is_atomic and s.is_descendant(state)]
                else:
                    self.history[history] = [s for s in self.configuration if s.parent is state]
        for state in to_exit:
            for block in state.onexit:
                self.execute_block(block)
            self._cancel_invokes(state)
            self._leave(state)

    def _leave(self, state: State) -> None:
        self.configuration.discard(state)
        self.datamodel.configuration_changed(None, state.id)

    def enter_states(self, enabled: list[Transition]) -> None:
        to_enter: list[State] = []
        default_entry: set[State] = set()
        default_history_content: dict[State, list[ET.Element]] = {}
        self.compute_entry_set(enabled, to_enter, default_entry, default_history_content)
        for state in sorted(to_enter, key=_order):
            self.configuration.add(state)
            self.datamodel.configuration_changed(state.id, None)
            self.states_to_invoke.add(state)
            if self.doc.binding == "late" and state in self.first_entry:
                self.initialize_data(state)
            for block in state.onentry:
                self.execute_block(block)
            if state in default_entry and state.initial is not None:
                self.execute_block(state.initial.content)
            if state in default_history_content:
                self.execute_block(default_history_content[state])
            if state.kind == "final":
                parent = state.parent
                assert parent is not None
                if parent is self.doc.root:
                    self.running = False
                    self.final = state.id
                else:
                    self.internal.append(Event(f"done.state.{parent.id}", "internal", data=self.done_data(state)))
                    self._keep(self.raised, f"done.state.{parent.id}")
                    grandparent = parent.parent
                    if grandparent is not None and grandparent.kind == "parallel" and all(
                            self.is_in_final_state(child) for child in _child_states(grandparent)):
                        self.internal.append(Event(f"done.state.{grandparent.id}", "internal"))
                        self._keep(self.raised, f"done.state.{grandparent.id}")

    def compute_entry_set(self, transitions: list[Transition], to_enter: list[State], default_entry: set[State],
                          default_history_content: dict[State, list[ET.Element]]) -> None:
        for transition in transitions:
            for state in transition.targets:
                self.add_descendant_states_to_enter(state, to_enter, default_entry, default_history_content)
            ancestor = self.transition_domain(transition)
            for state in self.effective_target_states(transition):
                self.add_ancestor_states_to_enter(state, ancestor, to_enter, default_entry, default_history_content)

    def add_descendant_states_to_enter(self, state: State, to_enter: list[State], default_entry: set[State],
                                       default_history_content: dict[State, list[ET.Element]]) -> None:
        if state.kind == "history":
            parent = state.parent
            assert parent is not None
            if state in self.history:
                targets = self.history[state]
            else:
                if state.initial is None:
                    raise SessionError(f"history state {state.id!r} has no default transition")
                default_history_content[parent] = state.initial.content
                targets = state.initial.targets
            for target in targets:
                self.add_descendant_states_to_enter(target, to_enter, default_entry, default_history_content)
            for target in targets:
                self.add_ancestor_states_to_enter(target, parent, to_enter, default_entry, default_history_content)
            return
        if state not in to_enter:
            to_enter.append(state)
        if state.is_compound:
            default_entry.add(state)
            assert state.initial is not None
            for target in state.initial.targets:
                self.add_descendant_states_to_enter(target, to_enter, default_entry, default_history_content)
            for target in state.initial.targets:
                self.add_ancestor_states_to_enter(target, state, to_enter, default_entry, default_history_content)
        elif state.kind == "parallel":
            for child in _child_states(state):
                if not any(s.is_descendant(child) or s is child for s in to_enter):
                    self.add_descendant_states_to_enter(child, to_enter, default_entry, default_history_content)

    def add_ancestor_states_to_enter(self, state: State, ancestor: State | None, to_enter: list[State],
                                     default_entry: set[State],
                                     default_history_content: dict[State, list[ET.Element]]) -> None:
        for anc in state.proper_ancestors(ancestor):
            if anc is self.doc.root:
                break
            if anc not in to_enter:
                to_enter.append(anc)
            if anc.kind == "parallel":
                for child in _child_states(anc):
                    if not any(s.is_descendant(child) or s is child for s in to_enter):
                        self.add_descendant_states_to_enter(child, to_enter, default_entry, default_history_content)

    def is_in_final_state(self, state: State) -> bool:
        if state.is_compound:
            return any(c.kind == "final" and c in self.configuration for c in _child_states(state))
        if state.kind == "parallel":
            return all(self.is_in_final_state(c) for c in _child_states(state))
        return False

    def effective_target_states(self, transition: Transition) -> list[State]:
        result: list[State] = []
        for state in transition.targets:
            if state.kind == "history":
                if state in self.history:
                    found = self.history[state]
                elif state.initial is not None:
                    found = self.effective_target_states(state.initial)
                else:
                    found = []
                result.extend(s for s in found if s not in result)
            elif state not in result:
                result.append(state)
        return result

    def transition_domain(self, transition: Transition) -> State | None:
        targets = self.effective_target_states(transition)
        source = transition.source
        if not targets:
            return None
        if transition.internal and source.is_compound and all(s.is_descendant(source) for s in targets):
            return source
        return self.find_lcca([source, *targets])

    def find_lcca(self, states: list[State]) -> State:
        head, tail = states[0], states[1:]
        for anc in head.proper_ancestors():
            if (anc.is_compound or anc.kind == "scxml") and all(s.is_descendant(anc) for s in tail):
                return anc
        return self.doc.root

    # -- executable content -------------------------------------------------------------------
    def raise_error(self, name: str, message: str, sendid: str | None = None, tagname: str | None = None) -> None:
        data = {"message": message} if tagname is None else {"message": message, "tagname": tagname}
        self.internal.append(Event(name, "platform", sendid=sendid, data=data))
        self._keep(self.raised, name)
        self._keep(self.errors, f"{name}: {message}")

    def execute_block(self, elements: list[ET.Element]) -> None:
        """Run one block; the first element that fails ends it with error.execution (SCXML 4.9)."""
        element: ET.Element | None = None
        try:
            for element in elements:
                self.execute(element)
        except ExecutionError as error:
            tagname = local(element.tag) if element is not None else None
            self.raise_error("error.execution", str(error), error.sendid, tagname)

    def execute(self, element: ET.Element) -> None:
        if not isinstance(element.tag, str):
            return
        check_budget()  # every executable element: a <foreach> or a long block stops at its deadline
        name = local(element.tag)
        if not is_scxml(element, name):
            # Executable content of another namespace: statekit runs none, and says so.
            raise ExecutionError(f"<{element.tag}> is executable content statekit does not run")
        datamodel = self.datamodel
        if name == "raise":
            event = element.get("event")
            if not event:
                raise ExecutionError("<raise> has no event")
            self.internal.append(Event(event, "internal"))
            self._keep(self.raised, event)
        elif name == "log":
            expr = element.get("expr")
            self._keep(self.logs, (element.get("label"), datamodel.evaluate(expr) if expr is not None else UNDEFINED))
        elif name == "assign":
            location = element.get("location")
            if not location:
                raise ExecutionError("<assign> has no location")
            expr = element.get("expr")
            if expr is not None:
                datamodel.assign(location, expr=expr)
            else:
                datamodel.assign(location, value=inline_value(element))
        elif name == "if":
            self._if(element)
        elif name == "foreach":
            self._foreach(element)
        elif name == "script":
            source = element.text or ""
            if element.get("src") is not None:
                source = self.system.load(element.get("src", ""), self.base)
            datamodel.script(source)
        elif name == "send":
            self.send(element)
        elif name == "cancel":
            sendid = element.get("sendid")
            if element.get("sendidexpr") is not None:
                sendid = _string(datamodel.evaluate(element.get("sendidexpr", "")), "sendidexpr")
            if not sendid:
                raise ExecutionError("<cancel> has no sendid")
            self.system.cancel_send(self, sendid)
        else:
            raise ExecutionError(f"<{name}> is not executable content")

    def _if(self, element: ET.Element) -> None:
        """Run the partition of the first true condition (`<elseif>`/`<else>` split the children)."""
        taken = self.condition(element.get("cond"))
        branch: list[ET.Element] = []
        for child in element:
            if not isinstance(child.tag, str):
                continue
            if is_scxml(child, "elseif") or is_scxml(child, "else"):
                if taken:
                    break
                taken = is_scxml(child, "else") or self.condition(child.get("cond"))
            elif taken:
                branch.append(child)
        for child in branch:
            self.execute(child)

    def _foreach(self, element: ET.Element) -> None:
        array, item = element.get("array"), element.get("item")
        if not array or not item:
            raise ExecutionError("<foreach> needs array and item")
        count = self.datamodel.foreach(array, item, element.get("index"))
        try:
            for position in range(count):
                self.datamodel.foreach_step(position)
                for child in element:
                    if isinstance(child.tag, str):
                        self.execute(child)
        finally:
            self.datamodel.foreach_end()

    def new_id(self, prefix: str) -> str:
        self._ids += 1
        return f"{prefix}.{self.sessionid}.{self._ids}"

    def send(self, element: ET.Element) -> None:
        datamodel = self.datamodel
        sendid = element.get("id")
        if sendid is None and element.get("idlocation") is not None:
            sendid = self.new_id("send")
            datamodel.assign(element.get("idlocation", ""), value=sendid)
        try:
            event = element.get("event")
            if element.get("eventexpr") is not None:
                event = _string(datamodel.evaluate(element.get("eventexpr", "")), "eventexpr")
            target = element.get("target")
            if element.get("targetexpr") is not None:
                target = _string(datamodel.evaluate(element.get("targetexpr", "")), "targetexpr")
            kind = element.get("type")
            if element.get("typeexpr") is not None:
                kind = _string(datamodel.evaluate(element.get("typeexpr", "")), "typeexpr")
            delay = 0.0
            if element.get("delayexpr") is not None:
                delay = delay_ms(datamodel.evaluate(element.get("delayexpr", "")))
            elif element.get("delay") is not None:
                delay = delay_ms(element.get("delay"))
            data: Any = UNDEFINED
            contents = [c for c in element if is_scxml(c, "content")]
            if contents:
                data = content_value(contents[0], datamodel)
            else:
                values: dict[str, Any] = {}
                namelist_values(element.get("namelist"), datamodel, values)
                param_values(element, datamodel, values)
                if values:
                    data = values
        except ExecutionError as error:
            raise ExecutionError(f"<send>: {error}", sendid) from None
        if kind is not None and kind not in SCXML_PROCESSOR_ALIASES:
            raise ExecutionError(f"<send type={kind!r}>: only the SCXML event I/O processor is supported", sendid)
        if target is not None and not _valid_target(target):
            raise ExecutionError(f"<send target={target!r}> is not a target of the SCXML event I/O processor",
                                 sendid)
        message = Event(event or "", "external", sendid=sendid, origin=f"#_scxml_{self.sessionid}",
                        origintype=SCXML_PROCESSOR, data=data)
        self._keep(self.sent, {"event": message.name, "target": target, "delay": delay, "sendid": sendid})
        self.system.send(self, message, target, delay)

    def done_data(self, final: State) -> Any:
        donedata = final.donedata
        if donedata is None:
            return UNDEFINED
        try:
            contents = [c for c in donedata if is_scxml(c, "content")]
            if contents:
                return content_value(contents[0], self.datamodel)
            values: dict[str, Any] = {}
            param_values(donedata, self.datamodel, values)
            return values
        except ExecutionError as error:
            self.raise_error("error.execution", f"<donedata>: {error}")
            return UNDEFINED

    # -- invoke -------------------------------------------------------------------------------
    def invoke(self, state: State, element: ET.Element) -> None:
        datamodel = self.datamodel
        invokeid = element.get("id")
        try:
            if invokeid is None:
                invokeid = f"{state.id}.{self.new_id('invoke')}"
                if element.get("idlocation") is not None:
                    datamodel.assign(element.get("idlocation", ""), value=invokeid)
            kind = element.get("type", "scxml")
            if element.get("typeexpr") is not None:
                kind = _string(datamodel.evaluate(element.get("typeexpr", "")), "typeexpr")
            if kind.rstrip("/") not in {t.rstrip("/") for t in INVOKE_TYPES}:
                raise ExecutionError(f"invoke type {kind!r} is not supported (only SCXML sessions are)")
            values: dict[str, Any] = {}
            namelist_values(element.get("namelist"), datamodel, values)
            param_values(element, datamodel, values)
            source: str | ET.Element
            base = self.base
            contents = [c for c in element if is_scxml(c, "content")]
            src = element.get("src")
            if element.get("srcexpr") is not None:
                src = _string(datamodel.evaluate(element.get("srcexpr", "")), "srcexpr")
            if src is not None:
                source, base = self.system.load(src, self.base), self.system.base_of(src, self.base)
            elif contents:
                inline = [c for c in contents[0] if is_scxml(c, "scxml")]
                if inline:
                    source = inline[0]
                else:
                    value = content_value(contents[0], datamodel)
                    document = xml_element(value)
                    if isinstance(value, str):
                        source = value
                    elif document is not None and is_scxml(document, "scxml"):
                        source = document
                    else:
                        raise ExecutionError("invoke <content> is no SCXML document")
            else:
                raise ExecutionError("<invoke> has no src, srcexpr or content")
            finalize = next((c for c in element if is_scxml(c, "finalize")), None)
            child = self.system.create_session(source, parent=self, invokeid=invokeid, initial_values=values,
                                               base=base)
        except (ExecutionError, DocumentError) as error:
            self.raise_error("error.execution", f"<invoke> in state {state.id!r}: {error}")
            return
        except Exception as error:  # a child document that does not parse (ToolError from parse_xml)
            self.raise_error("error.execution", f"<invoke> in state {state.id!r}: {error}")
            return
        invocation = Invocation(invokeid, state, element, child, element.get("autoforward") == "true",
                                list(finalize) if finalize is not None else [])
        self.invocations[invokeid] = invocation
        self.system.start_session(child)

    def _cancel_invokes(self, state: State) -> None:
        for invokeid, invocation in list(self.invocations.items()):
            if invocation.state is state:
                del self.invocations[invokeid]
                invocation.child.cancel()

    def child_done(self, invokeid: str) -> None:
        self.invocations.pop(invokeid, None)

    def _keep(self, kept: list[Any], item: Any) -> None:
        """Keep `item` for the session's report (`logs`, `raised`, `sent`, `errors`), counting it
        toward the call's output limit as it is made (`statekit.budget.charge_output`): a
        document that logs megabytes on every step stops with `output_too_large` at the limit
        instead of building gigabytes. Invoked sessions' reports count too: they are kept as
        long as the run lasts, whether or not a report shows them."""
        if current_budget() is not None:  # plain library use has no limit: nothing to measure
            charge_output(len(json.dumps(item, ensure_ascii=False, default=str)))
        kept.append(item)

    def _record(self, event: str | None, enabled: list[Transition]) -> None:
        if self.system.record_steps:
            self.steps.append(Step(event, [repr(t) for t in enabled], self.active_state_ids()))

    def active_state_ids(self) -> list[str]:
        return [s.id for s in sorted(self.configuration, key=_order)]

    def reported_configuration(self) -> set[State]:
        """The configuration, or the one the session ended in."""
        return self.configuration if self.running else self.ended_configuration


def _order(state: State) -> int:
    return state.order


def _child_states(state: State) -> list[State]:
    return [c for c in state.children if c.kind != "history"]


def _string(value: Any, what: str) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    raise ExecutionError(f"{what} did not evaluate to a string")


def _valid_target(target: str) -> bool:
    return target == "#_internal" or target == "#_parent" or target.startswith("#_")


def _forwarded(event: Event) -> Event:
    return Event(event.name, event.type, event.sendid, event.origin, event.origintype, event.invokeid, event.data)
