"""Run SCXML documents: the W3C recommendation's algorithm (Appendix D), ECMAScript in QuickJS."""

from statekit.scxml.datamodel import UNDEFINED, Event, ExecutionError
from statekit.scxml.document import Document, DocumentError, read_document
from statekit.scxml.session import Session, SessionError
from statekit.scxml.system import ScxmlRunError, ScxmlSystem

__all__ = [
    "UNDEFINED",
    "Document",
    "DocumentError",
    "Event",
    "ExecutionError",
    "ScxmlRunError",
    "ScxmlSystem",
    "Session",
    "SessionError",
    "read_document",
]
