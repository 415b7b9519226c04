"""SCXML's ECMAScript datamodel (Appendix B.2) in one persistent QuickJS context per session.

Everything the document says (data expressions, conditions, locations, scripts) runs inside
QuickJS with the same per-call time, memory and stack limits as the engine's sandbox
(`statekit.engine.sandbox`), and with a budget for all calls of one session. Nothing from the
document is ever evaluated by Python. Declared data and `<script>` functions are globals of the
context, so they live as long as the session; `_event`, `_sessionid`, `_name`, `_ioprocessors`
and `In()` are read-only globals (assigning one throws, which is `error.execution`).

Values cross the boundary as JSON, boxed as `{"v": value}` so that `undefined` (an empty box)
survives the trip.
"""

from __future__ import annotations

import json
import secrets
import threading
import time
from collections.abc import Callable
from typing import Any

from statekit.budget import check_budget
from statekit.engine.sandbox import (
    _ON_WORKER,
    DEFAULT_MEMORY_LIMIT,
    DEFAULT_STACK_LIMIT,
    DEFAULT_TIME_LIMIT,
    DEFAULT_TOTAL_TIME_LIMIT,
    MAX_SOURCE_CHARS,
    _describe,
    _is_fatal,
    _js_thread,
    _main_thread_stack_is_large,
)
from statekit.scxml.content import XML_KEY
from statekit.scxml.datamodel import (
    UNDEFINED,
    DatamodelLimitError,
    Event,
    ExecutionError,
    SystemVariables,
)

# One dispatcher global, `__statekit(secret, op, a, b, c)`, non-writable, that closes over the
# real helpers, so a document that rewrites JSON, eval or Set cannot change what the interpreter
# sees; `__SECRET__` is replaced by a random token per context.
_PRELUDE = r"""
(function () {
  "use strict";
  const globalEval = globalThis.eval;
  const FunctionConstructor = Function;
  const parse = JSON.parse;
  const stringify = JSON.stringify;
  const isArray = Array.isArray;
  const defineProperty = Object.defineProperty;
  const hasOwn = Object.prototype.hasOwnProperty;
  const identifier = /^[A-Za-z_$][\w$]*$/;
  const configuration = new Set();
  const loops = [];
  const assigners = Object.create(null);
  let currentEvent, sessionid, sessionName, ioprocessors;
  const box = function (value) { return stringify({ v: value }); };
  // XML content crosses as {"__statekit_xml__": {tag, ns, attrs, children}} and becomes a small
  // read-mostly DOM here (Appendix B.2: XML content is a DOM); it goes back as the same marker.
  // The DOM code (_DOM below) is compiled the first time XML arrives: most documents have none,
  // and a session's context starts faster without it.
  const XML_KEY = "__statekit_xml__";
  let revive = null;
  // The reviver costs a call per value: only documents that carry XML pay it.
  const parseData = function (json) {
    if (json.indexOf(XML_KEY) < 0) return parse(json);
    if (revive === null) throw new Error("statekit: the DOM was not loaded");
    return parse(json, revive);
  };
  const unbox = function (json) { return parseData(json).v; };
  // An expression is evaluated in brackets (so `{...}` is an object, not a block); a trailing
  // `;` some documents write (`new Foo();`) is not part of it.
  const trailing = /[\s;]+$/;
  const expression = function (source) { return globalEval("(" + source.replace(trailing, "") + "\n)"); };
  const readOnly = function (name, get) {
    defineProperty(globalThis, name, {
      get: get,
      set: function () { throw new TypeError(name + " is a read-only system variable"); },
      enumerable: false, configurable: false,
    });
  };
  readOnly("_event", function () { return currentEvent; });
  readOnly("_sessionid", function () { return sessionid; });
  readOnly("_name", function () { return sessionName; });
  readOnly("_ioprocessors", function () { return ioprocessors; });
  defineProperty(globalThis, "In", {
    value: function (id) { return configuration.has(id); }, writable: false, configurable: false,
  });
  const legalName = function (name, what) {
    if (!identifier.test(name)) throw new SyntaxError(what + " '" + name + "' is not a legal variable name");
  };
  // Strict mode: assigning to an undeclared name throws instead of creating a global.
  const assignTo = function (location, value) {
    let assign = assigners[location];
    if (assign === undefined) {
      assign = new FunctionConstructor("__statekit_value", "'use strict'; (" + location + "\n) = __statekit_value;");
      assigners[location] = assign;
    }
    assign(value);
  };
  const declare = function (name) {
    legalName(name, "data id");
    if (!(name in globalThis)) globalEval("var " + name + ";");
  };
  const ops = {
    dom: function (source) {
      if (revive === null) revive = new FunctionConstructor("hasOwn", "XML_KEY", source)(hasOwn, XML_KEY);
      return null;
    },
    start: function (json) {
      const system = parse(json);
      sessionid = system.sessionid;
      sessionName = system.name === null ? undefined : system.name;
      ioprocessors = system.ioprocessors;
      return null;
    },
    declare: function (name, source, valueJson) {
      declare(name);
      if (source !== null) globalThis[name] = expression(source);
      else if (valueJson !== null) globalThis[name] = unbox(valueJson);
      return null;
    },
    value: function (source) { return box(expression(source)); },
    cond: function (source) { return !!expression(source); },
    assign: function (location, source, valueJson) {
      assignTo(location, source !== null ? expression(source) : unbox(valueJson));
      return null;
    },
    script: function (source) { globalEval(source); return null; },
    event: function (json) {
      const e = parseData(json);
      currentEvent = {
        name: e.name, type: e.type, sendid: e.sendid, origin: e.origin,
        origintype: e.origintype, invokeid: e.invokeid, data: e.data,
      };
      return null;
    },
    foreach: function (source, item, index) {
      const collection = expression(source);
      if (!isArray(collection)) throw new TypeError("foreach array '" + source + "' is not an array");
      legalName(item, "foreach item");
      if (index !== null) legalName(index, "foreach index");
      declare(item);
      if (index !== null) declare(index);
      loops.push({ copy: collection.slice(), item: item, index: index });
      return collection.length;
    },
    step: function (position) {
      const loop = loops[loops.length - 1];
      assignTo(loop.item, loop.copy[position]);
      if (loop.index !== null) assignTo(loop.index, position);
      return null;
    },
    end: function () { loops.pop(); return null; },
    enter: function (id) { configuration.add(id); return null; },
    exit: function (id) { configuration.delete(id); return null; },
    variables: function (namesJson) {
      const result = {};
      for (const name of parse(namesJson)) {
        if (!hasOwn.call(globalThis, name)) continue;
        const value = globalThis[name];
        if (typeof value !== "function") result[name] = value;
      }
      return box(result);
    },
  };
  // Only the interpreter may call the dispatcher: it passes the session's secret, which lives
  // in this closure alone (a document calling __statekit("start", ...) or ("enter", ...) could
  // otherwise rewrite _sessionid or fake In()).
  const secret = "__SECRET__";
  defineProperty(globalThis, "__statekit", {
    value: function (token, op, a, b, c) {
      if (token !== secret) throw new TypeError("__statekit is the interpreter's, not the document's");
      return ops[op](a, b, c);
    },
    writable: false, configurable: false,
  });
})();
"""

# The small DOM of XML content: the body of a function of (hasOwn, XML_KEY) returning the
# JSON.parse reviver that turns the XML marker into a document.
_DOM = r"""
  const textOf = function (node) {
    if (node.nodeType === 3) return node.data;
    let text = "";
    for (const child of node.childNodes) text += textOf(child);
    return text;
  };
  const elementsByTagName = function (node, name, found) {
    for (const child of node.childNodes) {
      if (child.nodeType !== 1) continue;
      if (name === "*" || child.tagName === name) found.push(child);
      elementsByTagName(child, name, found);
    }
    return found;
  };
  const Text = function (data, parent) { this.nodeType = 3; this.nodeName = "#text"; this.data = data; this.parentNode = parent; };
  Object.defineProperty(Text.prototype, "textContent", { get: function () { return this.data; } });
  Object.defineProperty(Text.prototype, "nodeValue", { get: function () { return this.data; } });
  Text.prototype.toJSON = function () { return this.data; };
  const Element = function (tree, parent) {
    this.nodeType = 1;
    this.tagName = this.nodeName = this.localName = tree.tag;
    this.namespaceURI = tree.ns === undefined ? null : tree.ns;
    this.parentNode = parent;
    this.attributes = Object.assign(Object.create(null), tree.attrs);
    const self = this;
    this.childNodes = tree.children.map(function (c) { return typeof c === "string" ? new Text(c, self) : new Element(c, self); });
  };
  Element.prototype.getAttribute = function (name) { return name in this.attributes ? this.attributes[name] : null; };
  Element.prototype.hasAttribute = function (name) { return name in this.attributes; };
  Element.prototype.setAttribute = function (name, value) { this.attributes[name] = String(value); };
  Element.prototype.getElementsByTagName = function (name) { return elementsByTagName(this, name, []); };
  Object.defineProperty(Element.prototype, "textContent", { get: function () { return textOf(this); } });
  Object.defineProperty(Element.prototype, "firstChild", { get: function () { return this.childNodes[0] || null; } });
  Object.defineProperty(Element.prototype, "children", {
    get: function () { return this.childNodes.filter(function (c) { return c.nodeType === 1; }); },
  });
  Element.prototype.tree = function () {
    return { tag: this.tagName, ns: this.namespaceURI === null ? undefined : this.namespaceURI,
             attrs: Object.assign({}, this.attributes),
             children: this.childNodes.map(function (c) { return c.nodeType === 3 ? c.data : c.tree(); }) };
  };
  Element.prototype.toJSON = function () { const box = {}; box[XML_KEY] = this.tree(); return box; };
  const XmlDocument = function (tree) {
    this.nodeType = 9;
    this.nodeName = "#document";
    this.documentElement = new Element(tree, this);
    this.childNodes = [this.documentElement];
  };
  XmlDocument.prototype.getElementsByTagName = function (name) { return elementsByTagName(this, name, []); };
  Object.defineProperty(XmlDocument.prototype, "textContent", { get: function () { return null; } });
  XmlDocument.prototype.toJSON = function () { return this.documentElement.toJSON(); };
  return function (key, value) {
    if (value !== null && typeof value === "object" && hasOwn.call(value, XML_KEY)) return new XmlDocument(value[XML_KEY]);
    return value;
  };
"""

#: Operations whose first argument is JSON data (an event, the system variables), not document
#: source: the source length limit does not apply (event data is bounded by the context's memory).
#: Before, a 100 KB event reaching `set_event` escaped as an uncoded ExecutionError.
_DATA_OPS = frozenset({"event", "start", "variables", "dom"})


class EcmascriptDatamodel:
    """A `Datamodel` whose state lives in one QuickJS context for the whole session."""

    def __init__(self, *, time_limit: float = DEFAULT_TIME_LIMIT, memory_limit: int = DEFAULT_MEMORY_LIMIT,
                 stack_limit: int = DEFAULT_STACK_LIMIT, total_time_limit: float = DEFAULT_TOTAL_TIME_LIMIT) -> None:
        self.time_limit = time_limit
        self.memory_limit = memory_limit
        self.stack_limit = stack_limit
        self.total_time_limit = total_time_limit
        self._spent = 0.0
        self._context: Any = None
        self._dispatch: Any = None
        self._secret = ""
        self._owner: int | None = None
        self._declared: list[str] = []
        self._broken: str | None = None
        self._closed = False
        self._dom_loaded = False

    # -- the QuickJS context, on the thread that owns it -------------------------------------
    def _create(self) -> None:
        try:
            import quickjs
        except ImportError:  # pragma: no cover - a dependency of the package
            raise DatamodelLimitError("the JavaScript sandbox (quickjs-ng) is not installed") from None
        context = quickjs.Context()
        context.set_memory_limit(self.memory_limit)
        context.set_max_stack_size(self.stack_limit)
        context.set_time_limit(self.time_limit)
        self._secret = secrets.token_hex(16)
        context.eval(_PRELUDE.replace("__SECRET__", self._secret))
        self._context = context
        self._dispatch = context.get("__statekit")

    def _run(self, op: str, a: Any, b: Any, c: Any) -> Any:
        if self._dispatch is None:
            self._create()
        if self._spent > self.total_time_limit:
            raise DatamodelLimitError(f"the session's ECMAScript used up its {self.total_time_limit:g} s budget")
        started = time.monotonic()
        try:
            return self._dispatch(self._secret, op, a, b, c)
        except Exception as error:  # quickjs.JSException, quickjs.StackOverflow
            text = _describe(error)
            if _is_fatal(error):
                # A context that hit a limit may be half-updated: the session cannot go on.
                self._broken = text
                raise DatamodelLimitError(f"ECMAScript stopped: {text}") from None
            raise ExecutionError(text) from None
        finally:
            self._spent += time.monotonic() - started

    def _call(self, op: str, a: Any = None, b: Any = None, c: Any = None) -> Any:
        # Before every operation, on the caller's thread (the call's budget is a context variable
        # there, not on the shared QuickJS thread): one operation may run for `time_limit`, so a
        # call past its deadline stops before the next one, not 32 operations later.
        check_budget(force=True)
        if not self._dom_loaded and any(isinstance(x, str) and XML_KEY in x for x in (a, b, c)):
            self._dom_loaded = True
            self._call("dom", _DOM)
        if self._closed:
            raise DatamodelLimitError("the session's ECMAScript datamodel was closed")
        if self._broken is not None:
            raise DatamodelLimitError(f"ECMAScript stopped earlier: {self._broken}")
        for source in () if op in _DATA_OPS else (a, b):
            if isinstance(source, str) and len(source) > MAX_SOURCE_CHARS:
                raise ExecutionError(f"an expression or script is longer than {MAX_SOURCE_CHARS} characters")
        here = threading.get_ident()
        if self._owner is None:
            on_main = threading.current_thread() is threading.main_thread()
            self._owner = here if on_main and _main_thread_stack_is_large() else _ON_WORKER
        elif self._owner not in (here, _ON_WORKER):
            raise DatamodelLimitError("an ECMAScript datamodel was used from a second thread")
        if self._owner == here:
            return self._run(op, a, b, c)
        run: Callable[[], Any] = lambda: self._run(op, a, b, c)  # noqa: E731
        return _js_thread().submit(run).result()

    # -- the Datamodel protocol ---------------------------------------------------------------
    def start(self, system: SystemVariables) -> None:
        self._call("start", _dumps({"sessionid": system.sessionid, "name": system.name,
                                    "ioprocessors": system.ioprocessors}))

    def declare(self, name: str, *, expr: str | None = None, value: Any = UNDEFINED) -> None:
        if name not in self._declared:
            self._declared.append(name)
        self._call("declare", name, expr, None if value is UNDEFINED else _box(value))

    def evaluate(self, expr: str) -> Any:
        return _unbox(self._call("value", expr))

    def condition(self, expr: str) -> bool:
        return bool(self._call("cond", expr))

    def assign(self, location: str, *, expr: str | None = None, value: Any = UNDEFINED) -> None:
        self._call("assign", location, expr, _box(value) if expr is None else None)

    def script(self, source: str) -> None:
        self._call("script", source)

    def set_event(self, event: Event) -> None:
        self._call("event", _dumps(event.to_json()))

    def foreach(self, array: str, item: str, index: str | None) -> int:
        return int(self._call("foreach", array, item, index))

    def foreach_step(self, position: int) -> None:
        self._call("step", position)

    def foreach_end(self) -> None:
        self._call("end")

    def configuration_changed(self, entered: str | None, exited: str | None) -> None:
        if entered is not None:
            self._call("enter", entered)
        if exited is not None:
            self._call("exit", exited)

    def variables(self) -> dict[str, Any]:
        value = _unbox(self._call("variables", json.dumps(self._declared)))
        return value if isinstance(value, dict) else {}

    def close(self) -> None:
        self._closed = True
        self._dispatch = None
        self._context = None


def _dumps(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, allow_nan=False, default=_undefined_as_null)
    except (TypeError, ValueError) as error:
        raise ExecutionError(f"a value is not JSON: {error}") from None


def _undefined_as_null(value: Any) -> Any:
    if value is UNDEFINED:
        return None
    raise TypeError(f"{type(value).__name__} is not JSON")


def _box(value: Any) -> str:
    return "{}" if value is UNDEFINED else _dumps({"v": value})


def _unbox(text: Any) -> Any:
    if not isinstance(text, str):
        raise ExecutionError("the datamodel returned a value that is not JSON")
    boxed = json.loads(text)
    return boxed.get("v", UNDEFINED) if isinstance(boxed, dict) else UNDEFINED
