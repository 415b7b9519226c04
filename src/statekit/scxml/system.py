"""The sessions of one run, the SCXML event I/O processor between them, and the virtual clock.

All sessions run on one thread. An event sent to a session goes to its external queue and the
session joins `ready`, a first-in first-out list, so sessions take their external events in the
order they were sent, whichever session sent them. Delayed sends are timers on a
`VirtualClock`: time moves only when `advance()` or `run_until_idle()` says so, and each timer
that falls due is delivered and processed before the next one fires (a delayed event may cancel
a later one).

`file:` sources (`<invoke src>`, `<data src>`, `<script src>`) are read only from under an
explicit base directory: without one they are refused with `error.execution`.
"""

from __future__ import annotations

import itertools
import json
import re
import xml.etree.ElementTree as ET
from collections import deque
from pathlib import Path
from typing import Any

from statekit.budget import check_budget
from statekit.engine.clock import VirtualClock
from statekit.formats.scxml_read import MAX_XML_CHARS
from statekit.scxml.datamodel import UNDEFINED, Event, ExecutionError
from statekit.scxml.document import read_document
from statekit.scxml.session import Session

#: Virtual time `run_until_idle` lets pass at most (a document that keeps sending itself
#: delayed events never idles).
DEFAULT_MAX_VIRTUAL_MS = 24 * 60 * 60 * 1000
#: External events one run may process in all (a ping-pong between sessions never ends).
MAX_EXTERNAL_EVENTS = 100_000
#: Sessions alive at once, and how deep invocations may nest (a document invoking itself).
MAX_LIVE_SESSIONS = 100
MAX_INVOKE_DEPTH = 20
#: Bytes of event data (of `<send>`s and `done.invoke` events) one run may make in all. Sent
#: events wait in queues and timers with their data, so a `<foreach>` sending 10 MB each time
#: would otherwise hold gigabytes before anything is processed.
MAX_EVENT_DATA_BYTES = 64 * 1024 * 1024


_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


class ScxmlRunError(Exception):
    """The run was stopped: too many events, or a session that hit a limit."""


class ScxmlSystem:
    def __init__(self, *, base_dir: str | Path | None = None, record_steps: bool = False,
                 max_external_events: int = MAX_EXTERNAL_EVENTS) -> None:
        self.max_external_events = max_external_events
        self.clock = VirtualClock()
        self.base_dir = Path(base_dir).resolve() if base_dir is not None else None
        self.record_steps = record_steps
        self.sessions: dict[str, Session] = {}
        self.ready: deque[Session] = deque()
        self._session_numbers = itertools.count(1)
        self._timer_numbers = itertools.count(1)
        self._timers: dict[tuple[str, str], str] = {}
        self._processed = 0
        self._event_data_bytes = 0

    # -- sessions -----------------------------------------------------------------------------
    def create_session(self, source: str | bytes | ET.Element, *, parent: Session | None = None,
                       invokeid: str | None = None, initial_values: dict[str, Any] | None = None,
                       base: str | None = None) -> Session:
        check_budget(force=True)  # a session costs a datamodel: invoke loops stop at the deadline
        if len(self.sessions) >= MAX_LIVE_SESSIONS:
            raise ExecutionError(f"over {MAX_LIVE_SESSIONS} sessions would be alive at once")
        depth = 0
        ancestor = parent
        while ancestor is not None:
            depth, ancestor = depth + 1, ancestor.parent
        if depth > MAX_INVOKE_DEPTH:
            raise ExecutionError(f"invocations nest deeper than {MAX_INVOKE_DEPTH} levels")
        document = read_document(source)
        sessionid = f"session{next(self._session_numbers)}"
        session = Session(self, document, sessionid, parent=parent, invokeid=invokeid,
                          initial_values=initial_values, base=base)
        self.sessions[sessionid] = session
        return session

    def start_session(self, session: Session) -> None:
        session.start()

    def session_ended(self, session: Session) -> None:
        self.sessions.pop(session.sessionid, None)
        for key in [k for k in self._timers if k[0] == session.sessionid]:
            self.clock.cancel(self._timers.pop(key))

    def close(self) -> None:
        """Free the datamodel of every session still alive (a run stopped midway, by its budget or
        an error, leaves invoked sessions running; their QuickJS contexts go now, not at the
        next garbage collection)."""
        for session in list(self.sessions.values()):
            session.running = False
            session.datamodel.close()
        self.sessions.clear()
        self.ready.clear()

    def start(self, source: str | bytes | ET.Element, *, base: str | None = None) -> Session:
        """Create and start a top-level session and run it (and whatever it invokes) to quiescence."""
        session = self.create_session(source, base=base)
        self.start_session(session)
        self.run_until_quiescent()
        return session

    # -- the SCXML event I/O processor --------------------------------------------------------
    def deliver(self, session: Session, event: Event) -> None:
        if session.running:
            session.external.append(event)
            self.ready.append(session)

    def _count_event_data(self, data: Any) -> None:
        if data is UNDEFINED or data is None:
            return
        self._event_data_bytes += len(json.dumps(data, ensure_ascii=False, default=str))
        if self._event_data_bytes > MAX_EVENT_DATA_BYTES:
            raise ScxmlRunError(f"the run's events carried over {MAX_EVENT_DATA_BYTES} bytes of data")

    def send(self, sender: Session, event: Event, target: str | None, delay: float) -> None:
        self._count_event_data(event.data)
        if delay <= 0:
            self._dispatch(sender, event, target)
            return
        key = f"{sender.sessionid}/{next(self._timer_numbers)}"
        if event.sendid is not None:
            self._timers[(sender.sessionid, event.sendid)] = key

        def fire() -> None:
            if event.sendid is not None and self._timers.get((sender.sessionid, event.sendid)) == key:
                del self._timers[(sender.sessionid, event.sendid)]
            if sender.running:
                self._dispatch(sender, event, target)
                self.run_until_quiescent()

        self.clock.schedule(key, delay, fire)

    def cancel_send(self, sender: Session, sendid: str) -> None:
        key = self._timers.pop((sender.sessionid, sendid), None)
        if key is not None:
            self.clock.cancel(key)

    def _dispatch(self, sender: Session, event: Event, target: str | None) -> None:
        if target is None:
            self.deliver(sender, event)
            return
        if target == "#_internal":
            sender.internal.append(Event(event.name, "internal", event.sendid, event.origin,
                                         event.origintype, None, event.data))
            self.ready.append(sender)  # processed now if the sender is waiting (a delayed send)
            return
        receiver: Session | None = None
        if target == "#_parent":
            parent = sender.parent
            if parent is not None and (sender.cancelled or sender.invokeid not in parent.invocations):
                return  # a cancelled child: its parent takes no more events from it (SCXML 6.4)
            receiver = parent
            event.invokeid = sender.invokeid
        elif target.startswith("#_scxml_"):
            receiver = self.sessions.get(target[len("#_scxml_"):])
        else:
            invocation = sender.invocations.get(target[2:])
            receiver = invocation.child if invocation is not None else None
        if receiver is None or not receiver.running:
            sender.raise_error("error.communication", f"<send> target {target!r}: no such session",
                               event.sendid)
            self.ready.append(sender)
            return
        self.deliver(receiver, event)

    def return_done_event(self, child: Session, data: Any) -> None:
        parent, invokeid = child.parent, child.invokeid
        if parent is None or invokeid is None or invokeid not in parent.invocations:
            return
        self._count_event_data(data)
        self.deliver(parent, Event(f"done.invoke.{invokeid}", "external", invokeid=invokeid,
                                   origin=f"#_scxml_{child.sessionid}", data=data if data is not None else UNDEFINED))

    # -- running ------------------------------------------------------------------------------
    def run_until_quiescent(self) -> None:
        """Process external events until no session has one left (delayed ones stay pending)."""
        while self.ready:
            check_budget(force=True)  # each event may run a macrostep of sandboxed JavaScript
            session = self.ready.popleft()
            self._processed += 1
            if self._processed > self.max_external_events:
                raise ScxmlRunError(f"the run processed over {self.max_external_events} external events")
            if session.external:
                session.process_external()
            elif session.internal and session.running:
                session.run_internal()

    def advance(self, ms: float) -> None:
        """Let `ms` of virtual time pass, delivering every delayed event that falls due."""
        self.clock.advance(ms)
        self.run_until_quiescent()

    def next_due(self) -> float | None:
        pending = self.clock.pending()
        return pending[0][0] if pending else None

    def run_until_idle(self, root: Session | None = None, *, max_virtual_ms: float = DEFAULT_MAX_VIRTUAL_MS) -> None:
        """Advance the clock from one delayed event to the next until none is pending (or `root`
        has ended, or `max_virtual_ms` has passed)."""
        limit = self.clock.now + max_virtual_ms
        self.run_until_quiescent()
        while root is None or root.running:
            check_budget(force=True)
            due = self.next_due()
            if due is None or due > limit:
                break
            self.advance(due - self.clock.now)

    def load(self, src: str, base: str | None) -> str:
        """The text of a `file:` source under the base directory; ExecutionError otherwise."""
        path = self._resolve(src, base)
        try:
            data = path.read_bytes()
        except OSError as error:
            raise ExecutionError(f"cannot read {src!r}: {error.strerror}") from None
        if len(data) > MAX_XML_CHARS:
            raise ExecutionError(f"{src!r} is larger than {MAX_XML_CHARS} bytes")
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            raise ExecutionError(f"{src!r} is not UTF-8 text") from None

    def base_of(self, src: str, base: str | None) -> str:
        return str(self._resolve(src, base).parent)

    def _resolve(self, src: str, base: str | None) -> Path:
        if self.base_dir is None:
            raise ExecutionError(f"{src!r} was not read: file sources are off unless a base directory is "
                                 "given (ScxmlSystem(base_dir=...), simulate_machine's baseDir)")
        if src.startswith("file:"):
            relative = src[len("file:"):]
            if relative.startswith("//"):
                relative = relative[2:]
        elif _SCHEME.match(src):
            raise ExecutionError(f"{src!r}: only file: sources are supported")
        else:
            relative = src
        directory = Path(base) if base is not None else self.base_dir
        path = (directory / relative).resolve()
        if not path.is_relative_to(self.base_dir):
            raise ExecutionError(f"{src!r} is outside the base directory {str(self.base_dir)!r}")
        return path
