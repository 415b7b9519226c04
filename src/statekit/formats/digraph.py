"""Legacy Stately DigraphDef (`ExtractorDigraphDef` of `@xstate/ts-project`): read only.

Shape: `{root, nodes: {uniqueId: Node}, edges: {uniqueId: Edge}, blocks: {uniqueId: Block},
implementations, data: {context}}`. Nodes carry `data.key`, `type` (`normal` | `parallel` |
`final` | `history`), `initial` (a child's uniqueId), `entry`/`exit`/`invoke` (block ids),
`tags`, `metaEntries`, `description`; edges carry `source`, `targets` (uniqueIds) and
`data.eventTypeData` (`named`, `after`, `always`, `wildcard`, `state.done`,
`invocation.done`/`invocation.error`, `init`), `actions`/`guard` (block ids), `internal`.
Blocks hold the action, actor, guard and tag references (`properties`).

Targets become sibling keys or `#<state id>`; what the model cannot take (context given as
code, unknown block kinds) is reported as a warning.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from statekit.errors import MachineDefinitionError, ToolError
from statekit.formats import FormatWarning, Source, register_format, warning
from statekit.formats.documents import load_text
from statekit.model import MachineModel, parse_machine
from statekit.model.parse import DEFAULT_MACHINE_ID


def _document(value: Any) -> Mapping[str, Any]:
    document = load_text(value) if isinstance(value, str) else value
    if isinstance(document, Mapping) and isinstance(document.get("digraph"), Mapping):
        document = document["digraph"]
    if not isinstance(document, Mapping) or not isinstance(document.get("root"), str):
        raise ToolError("invalid_input", "a DigraphDef is an object with `root`, `nodes`, `edges` and `blocks`")
    for field_name in ("nodes", "edges"):
        if not isinstance(document.get(field_name), Mapping):
            raise ToolError("invalid_input", f"a DigraphDef needs a `{field_name}` object")
    if document["root"] not in document["nodes"]:
        raise ToolError("invalid_input", f"the root {document['root']!r} is not one of the nodes")
    return document


class _DigraphReader:
    def __init__(self, document: Mapping[str, Any]) -> None:
        self.doc = document
        self.nodes: Mapping[str, Any] = document["nodes"]
        self.blocks: Mapping[str, Any] = _mapping(document.get("blocks"))
        self.warnings: list[FormatWarning] = []
        self.children: dict[str, list[str]] = {}
        self.keys: dict[str, str] = {}
        self.ids: dict[str, str] = {}

    def warn(self, code: str, message: str, path: str) -> None:
        self.warnings.append(warning(code, message, path))

    def config(self) -> dict[str, Any]:
        for unique_id, node in self.nodes.items():
            if not isinstance(node, Mapping):
                raise ToolError("invalid_input", f"nodes.{unique_id} must be an object")
            parent = node.get("parentId")
            if unique_id != self.doc["root"]:
                if not isinstance(parent, str) or parent not in self.nodes:
                    raise ToolError("invalid_input", f"nodes.{unique_id} has an unknown parentId {parent!r}")
                self.children.setdefault(parent, []).append(unique_id)
        root_id = self.doc["root"]
        root_key = self._data(root_id).get("key")
        machine_key = root_key if isinstance(root_key, str) and root_key else DEFAULT_MACHINE_ID
        self._assign(root_id, machine_key, (), set())
        if len(self.keys) != len(self.nodes):
            raise ToolError("invalid_input", "some nodes are not reachable from the root (a parentId cycle)")
        edges: dict[str, list[tuple[str, Mapping[str, Any]]]] = {}
        for edge_id, edge in self.doc["edges"].items():
            if not isinstance(edge, Mapping) or not isinstance(edge.get("source"), str) or edge["source"] not in self.nodes:
                raise ToolError("invalid_input", f"edges.{edge_id} must be an object whose `source` is a node")
            edges.setdefault(edge["source"], []).append((edge_id, edge))
        config = self._state(root_id, edges, "")
        if machine_key != DEFAULT_MACHINE_ID:
            config = {"id": machine_key, **config}
        context = _mapping(self.doc.get("data")).get("context")
        if isinstance(context, Mapping):
            if context:
                config["context"] = dict(context)
        elif context is not None:
            self.warn("context_lost", f"the context is code ({str(context)[:80]!r}), not data; dropped", "data.context")
        return config

    def _data(self, unique_id: str) -> Mapping[str, Any]:
        data = self.nodes[unique_id].get("data")
        return data if isinstance(data, Mapping) else {}

    def _assign(self, unique_id: str, key: str, path: tuple[str, ...], seen: set[str]) -> None:
        if unique_id in seen:
            return
        seen.add(unique_id)
        self.keys[unique_id] = key
        self.ids[unique_id] = ".".join((self.keys[self.doc["root"]], *path)) if path else key
        used: set[str] = set()
        for child in self.children.get(unique_id, []):
            child_key = self._data(child).get("key")
            if not isinstance(child_key, str) or not child_key:
                child_key = child
                self.warn("assumed_key", f"node {child!r} has no key; its key is its uniqueId", f"nodes.{child}")
            unique, number = child_key, 2
            while unique in used:
                unique, number = f"{child_key}_{number}", number + 1
            used.add(unique)
            self._assign(child, unique, (*path, unique), seen)

    def _block(self, block_id: Any, kind: str, where: str) -> Mapping[str, Any] | None:
        block = self.blocks.get(block_id) if isinstance(block_id, str) else None
        if not isinstance(block, Mapping) or block.get("blockType") != kind:
            self.warn("unknown_block", f"{kind} block {block_id!r} is missing", where)
            return None
        properties = block.get("properties")
        return properties if isinstance(properties, Mapping) else {}

    def _action(self, block_id: Any, where: str) -> Any:
        properties = self._block(block_id, "action", where)
        if properties is None:
            return None
        action_type = properties.get("type") or self.blocks[block_id].get("sourceId")
        if not isinstance(action_type, str):
            self.warn("unknown_block", f"action block {block_id!r} has no type", where)
            return None
        params = properties.get("params")
        return {"type": action_type, "params": params} if params else action_type

    def _actions(self, block_ids: Any, where: str) -> list[Any]:
        items = [self._action(block_id, where) for block_id in _list(block_ids)]
        return [item for item in items if item is not None]

    def _target(self, source: str, target: Any, where: str) -> str | None:
        if not isinstance(target, str) or target not in self.nodes:
            self.warn("unknown_target", f"target {target!r} is not a node", where)
            return None
        if self.nodes[target].get("parentId") == self.nodes[source].get("parentId") and target != self.doc["root"]:
            return self.keys[target]
        source_id = self.ids[source]
        if self.ids[target].startswith(source_id + ".") and source != self.doc["root"]:
            return self.ids[target][len(source_id):]  # `.child.path`, relative to the source
        return "#" + self.ids[target]

    def _state(self, unique_id: str, edges: dict[str, list[tuple[str, Mapping[str, Any]]]], where: str) -> dict[str, Any]:
        data = self._data(unique_id)
        config: dict[str, Any] = {}
        state_type = data.get("type", "normal")
        if state_type in ("parallel", "final", "history"):
            config["type"] = state_type
        elif state_type != "normal":
            self.warn("unknown_type", f"unknown node type {state_type!r}; treated as normal", where)
        if state_type == "history" and data.get("history") in ("shallow", "deep"):
            config["history"] = data["history"]
        initial = data.get("initial")
        if isinstance(initial, str) and initial in self.keys:
            config["initial"] = self.keys[initial]
        elif self.children.get(unique_id) and state_type != "parallel":
            first = self.keys[self.children[unique_id][0]]
            config["initial"] = first
            self.warn("assumed_initial", f"no initial child given; the first child {first!r} is the initial state", where)
        if isinstance(data.get("description"), str):
            config["description"] = data["description"]
        meta = data.get("metaEntries")
        if isinstance(meta, list) and meta:
            config["meta"] = {str(entry[0]): entry[1] for entry in meta if isinstance(entry, list) and len(entry) == 2}
        tags = [self._tag(tag, where) for tag in _list(data.get("tags"))]
        if any(tags):
            config["tags"] = [tag for tag in tags if tag]
        for field_name in ("entry", "exit"):
            actions = self._actions(data.get(field_name), f"{where}.{field_name}" if where else field_name)
            if actions:
                config[field_name] = actions
        invokes: list[dict[str, Any]] = []
        for block_id in _list(data.get("invoke")):
            properties = self._block(block_id, "actor", where)
            if properties is not None and isinstance(properties.get("src"), str):
                invoke: dict[str, Any] = {"src": properties["src"]}
                if isinstance(properties.get("id"), str) and properties["id"]:
                    invoke["id"] = properties["id"]
                invokes.append(invoke)
        self._edges(unique_id, config, invokes, edges.get(unique_id, []), where)
        if invokes:
            config["invoke"] = invokes
        kids = self.children.get(unique_id, [])
        if kids:
            config["states"] = {
                self.keys[kid]: self._state(kid, edges, f"{where}.states.{self.keys[kid]}" if where else
                                            f"states.{self.keys[kid]}")
                for kid in kids
            }
        return config

    def _tag(self, tag: Any, where: str) -> str | None:
        if isinstance(tag, str) and tag in self.blocks:
            properties = self._block(tag, "tag", where)
            name = properties.get("name") if properties is not None else None
            return name if isinstance(name, str) else None
        return tag if isinstance(tag, str) else None

    def _edges(
        self, source: str, config: dict[str, Any], invokes: list[dict[str, Any]],
        edges: list[tuple[str, Mapping[str, Any]]], where: str,
    ) -> None:
        for edge_id, edge in edges:
            edge_where = f"edges.{edge_id}"
            data: Mapping[str, Any] = _mapping(edge.get("data"))
            item: dict[str, Any] = {}
            targets = [self._target(source, t, edge_where) for t in _list(edge.get("targets"))]
            written = [t for t in targets if t is not None]
            if written:
                item["target"] = written[0] if len(written) == 1 else written
            if data.get("guard") is not None:
                guard = self._block(data["guard"], "guard", edge_where)
                if guard is not None and isinstance(guard.get("type"), str):
                    item["guard"] = {"type": guard["type"], "params": guard["params"]} if guard.get("params") else guard["type"]
            actions = self._actions(data.get("actions"), edge_where)
            if actions:
                item["actions"] = actions
            if data.get("internal") is False:
                item["reenter"] = True
            if isinstance(data.get("description"), str):
                item["description"] = data["description"]
            event = _mapping(data.get("eventTypeData"))
            kind = event.get("type")
            if kind == "named" and isinstance(event.get("eventType"), str):
                config.setdefault("on", {}).setdefault(event["eventType"], []).append(item)
            elif kind == "wildcard":
                config.setdefault("on", {}).setdefault("*", []).append(item)
            elif kind == "after":
                config.setdefault("after", {}).setdefault(str(event.get("delay")), []).append(item)
            elif kind == "always":
                config.setdefault("always", []).append(item)
            elif kind == "state.done":
                config.setdefault("onDone", []).append(item)
            elif kind in ("invocation.done", "invocation.error"):
                handler = "onDone" if kind == "invocation.done" else "onError"
                matching = [i for i in invokes if i.get("id") == event.get("invocationId")]
                if matching:
                    matching[0].setdefault(handler, []).append(item)
                else:
                    self.warn("unknown_invoke", f"invocation {event.get('invocationId')!r} is not invoked here; the "
                              "edge is kept as an event transition", edge_where)
                    prefix = "xstate.done.actor." if handler == "onDone" else "xstate.error.actor."
                    config.setdefault("on", {}).setdefault(f"{prefix}{event.get('invocationId')}", []).append(item)
            elif kind == "init":
                self.warn("init_edge_skipped", "the init edge is given by the state's `initial`", edge_where)
            else:
                self.warn("unknown_event", f"edge event data {dict(event)!r} is not understood; dropped", edge_where)


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def read_digraph(value: Any) -> tuple[MachineModel, list[FormatWarning]]:
    """A DigraphDef (object or JSON text) -> (model, warnings)."""
    reader = _DigraphReader(_document(value))
    config = reader.config()
    try:
        return parse_machine(config), reader.warnings
    except MachineDefinitionError as error:
        raise ToolError("invalid_input", f"the DigraphDef does not make a valid machine: {error}") from None


def detect(source: Source) -> float:
    data = source.data
    if isinstance(data, Mapping) and isinstance(data.get("digraph"), Mapping):
        data = data["digraph"]
    if isinstance(data, Mapping) and isinstance(data.get("root"), str) and isinstance(data.get("nodes"), Mapping) and (
            isinstance(data.get("edges"), Mapping)):
        return 1.0
    return 0.0


register_format(
    "digraph",
    read=read_digraph,
    detect=detect,
    aliases=("digraphdef", "stately-digraph", "extractor-digraph"),
    media_type="application/json",
    description="legacy Stately DigraphDef (ExtractorDigraphDef), read only",
    title="DigraphDef",
    reads_document=True,
)
