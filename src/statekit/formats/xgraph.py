"""XGraph: statekit's canonical graph JSON of a machine (format `xgraph`).

Shaped like the `@statelyai/graph` Graph (`{id, type, initialNodeId, nodes, edges, data}`,
nodes `{type:'node', id, parentId, initialNodeId, label, data}`, edges `{type:'edge', id,
sourceId, targetId, label, data}`), with every model field in node and edge `data`, so that
`read(write(model)) == model`. The JSON Schema is `statekit/schemas/xgraph.schema.json`
(`SCHEMA_VERSION`).

* Nodes are the state nodes, root included, in document order; a node's id is the model's
  state id (`player.playing`), its `data` holds the node's own fields (`key`, `type`, entry
  and exit actions, invokes, tags, ...). The graph's `initialNodeId` is the root's initial child.
* Edges are the transitions, one per transition, in the model's order; `targetId` is the
  first resolved target (the source itself when targetless), `data.targets` the targets as
  written.

An "XGraph without semantics" (no `data.schema`, e.g. a `@statelyai/graph` document or one
written by hand) is read structurally: node keys from ids, types from nesting, events from
edge labels; every default filled in is reported as an `assumed_*` warning.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from importlib import resources
from typing import Any

from statekit.errors import MachineDefinitionError, ToolError
from statekit.formats import FormatWarning, Source, register_format, warning
from statekit.formats.documents import load_text
from statekit.model import MachineModel, StateNode, Transition, parse_machine
from statekit.model.parse import DEFAULT_MACHINE_ID
from statekit.model.resolve import Resolver
from statekit.model.write import action_to_config, guard_to_config, invoke_config

SCHEMA_VERSION = "statekit-xgraph@1"
_TRANSITION_FIELDS = ("on", "always", "after", "onDone")
_STATE_TYPES = frozenset({"atomic", "compound", "parallel", "final", "history"})


def schema() -> dict[str, Any]:
    """The XGraph JSON Schema shipped with the package."""
    text = resources.files("statekit.schemas").joinpath("xgraph.schema.json").read_text(encoding="utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


# --- write --------------------------------------------------------------------------------


def write_xgraph(model: MachineModel) -> tuple[str | dict[str, Any], list[FormatWarning]]:
    """The model as an XGraph object (lossless; warnings only for non-JSON Python values)."""
    from statekit.formats.xstate_json import to_plain_data

    warnings: list[FormatWarning] = []
    root = model.root
    initial_child = root.child(root.initial) if root.initial else None
    data: dict[str, Any] = {"schema": SCHEMA_VERSION}
    if model.root.explicit_id is not None:
        data["machineId"] = model.root.explicit_id
    if model.has_context:
        data["context"] = model.context
    if model.extra:
        data["extra"] = dict(model.extra)
    graph_ids = _graph_ids(model)
    resolver = Resolver(model)
    edges: list[dict[str, Any]] = []
    used_ids: set[str] = set()
    for node in root.walk():
        for transition in node.transitions:
            edges.append(_edge(resolver, node, transition, graph_ids, used_ids))
    graph = {
        "id": model.id,
        "type": "directed",
        "initialNodeId": graph_ids[initial_child.path] if initial_child is not None else None,
        "nodes": [_node(node, graph_ids) for node in root.walk()],
        "edges": edges,
        "data": data,
    }
    plain: dict[str, Any] = to_plain_data(graph, "", warnings)
    return plain, warnings


def _graph_ids(model: MachineModel) -> dict[tuple[str, ...], str]:
    """Node ids by state path: the state id, unless another state already has it (the model
    allows duplicate explicit ids and leaves them to the validator); then the path id."""
    result: dict[tuple[str, ...], str] = {}
    used: set[str] = set()
    for node in model.root.walk():
        candidate = node.id
        if candidate in used:
            candidate = ".".join((model.root.key, *node.path))
        unique, number = candidate, 2
        while unique in used:
            unique, number = f"{candidate}~{number}", number + 1
        used.add(unique)
        result[node.path] = unique
    return result


def _node(node: StateNode, graph_ids: dict[tuple[str, ...], str]) -> dict[str, Any]:
    initial = node.child(node.initial) if node.initial else None
    data: dict[str, Any] = {"key": node.key, "type": node.type}
    if node.type_given:
        data["typeGiven"] = True
    if node.explicit_id is not None and node.parent_id is not None:
        data["id"] = node.explicit_id
    if node.initial is not None:
        data["initial"] = node.initial
    if node.type == "history" and node.history_given is not None:
        data["history"] = node.history_given
    if node.target is not None:
        data["target"] = list(node.target)
    data["entry"] = [action_to_config(a) for a in node.entry]
    data["exit"] = [action_to_config(a) for a in node.exit]
    data["invoke"] = [invoke_config(i) for i in node.invoke]
    data["tags"] = list(node.tags)
    if node.meta is not None:
        data["meta"] = node.meta
    if node.description is not None:
        data["description"] = node.description
    if node.has_output:
        data["output"] = node.output
    if node.extra:
        data["extra"] = dict(node.extra)
    return {
        "type": "node",
        "id": graph_ids[node.path],
        "parentId": graph_ids[node.path[:-1]] if node.path else None,
        "initialNodeId": graph_ids[initial.path] if initial is not None else None,
        "label": node.description or node.key,
        "data": data,
    }


def _resolved_targets(resolver: Resolver, source: StateNode, transition: Transition) -> list[StateNode]:
    if not transition.targets:
        return []
    result: list[StateNode] = []
    for target in transition.targets:
        try:
            result.append(resolver.resolve_target(source, target))
        except MachineDefinitionError:
            continue  # an unresolvable target stays in data.targets; the validator reports it
    return result


def _edge_label(source: StateNode, transition: Transition) -> str:
    if transition.kind == "on":
        return transition.event
    if transition.kind == "always":
        return "always"
    if transition.kind == "after":
        return f"after {transition.delay}"
    if transition.kind == "onDone":
        return "done"
    invoke = source.invoke[transition.invoke_index or 0]
    return f"{invoke.src}.{transition.kind.split('.', 1)[1]}"


def _edge(
    resolver: Resolver, source: StateNode, transition: Transition, graph_ids: dict[tuple[str, ...], str],
    used_ids: set[str],
) -> dict[str, Any]:
    resolved = _resolved_targets(resolver, source, transition)
    data: dict[str, Any] = {"kind": transition.kind, "event": transition.event}
    if transition.kind == "after":
        data["delay"] = transition.delay
    if transition.invoke_index is not None:
        data["invokeIndex"] = transition.invoke_index
    data["targets"] = list(transition.targets) if transition.targets is not None else None
    if transition.guard is not None:
        data["guard"] = guard_to_config(transition.guard)
    data["actions"] = [action_to_config(a) for a in transition.actions]
    if transition.reenter_given:
        data["reenter"] = transition.reenter
    if transition.description is not None:
        data["description"] = transition.description
    if transition.meta is not None:
        data["meta"] = transition.meta
    if transition.extra:
        data["extra"] = dict(transition.extra)
    source_id = graph_ids[source.path]
    label = transition.event if transition.kind in ("on", "after") else transition.kind
    if transition.invoke_index is not None:
        label = f"{label}[{transition.invoke_index}]"
    edge_id = f"{source_id}:{label}:{transition.index}"
    unique, number = edge_id, 2
    while unique in used_ids:
        unique, number = f"{edge_id}#{number}", number + 1
    used_ids.add(unique)
    return {
        "type": "edge",
        "id": unique,
        "sourceId": source_id,
        "targetId": graph_ids[resolved[0].path] if resolved else source_id,
        "label": _edge_label(source, transition),
        "data": data,
    }


# --- read ---------------------------------------------------------------------------------


def _document(value: Any) -> Mapping[str, Any]:
    document = load_text(value) if isinstance(value, str) else value
    if not isinstance(document, Mapping):
        raise ToolError("invalid_input", "an XGraph must be a JSON object with `nodes` and `edges`")
    nodes, edges = document.get("nodes"), document.get("edges")
    if not isinstance(nodes, list) or not isinstance(edges, list):
        raise ToolError("invalid_input", "an XGraph needs `nodes` and `edges` arrays")
    for index, node in enumerate(nodes):
        if not isinstance(node, Mapping) or not isinstance(node.get("id"), str):
            raise ToolError("invalid_input", f"nodes[{index}] must be an object with a string `id`")
    for index, edge in enumerate(edges):
        if not isinstance(edge, Mapping) or not isinstance(edge.get("sourceId"), str) or not isinstance(
                edge.get("targetId"), str):
            raise ToolError("invalid_input", f"edges[{index}] must be an object with string `sourceId` and `targetId`")
    return document


def read_xgraph(value: Any) -> tuple[MachineModel, list[FormatWarning]]:
    """An XGraph (object or JSON text) -> (model, warnings)."""
    document = _document(value)
    data = document.get("data")
    if isinstance(data, Mapping) and data.get("schema") == SCHEMA_VERSION:
        _check_semantic_shapes(document)
        config = _semantic_config(document)
        warnings: list[FormatWarning] = []
    else:
        config, warnings = _StructuralReader(document).config()
    try:
        return parse_machine(config), warnings
    except MachineDefinitionError as error:
        raise ToolError("invalid_input", f"the XGraph does not make a valid machine: {error}") from None


_NODE_LISTS = ("entry", "exit", "invoke", "tags", "target")
_EDGE_KINDS = frozenset({"on", "always", "after", "onDone", "invoke.onDone", "invoke.onError", "invoke.onSnapshot"})


def _check_semantic_shapes(document: Mapping[str, Any]) -> None:
    """The shapes the schema gives node and edge data (statekit XGraph), as `invalid_input`."""

    def fail(where: str, what: str) -> None:
        raise ToolError("invalid_input", f"{where}: {what} (see the statekit XGraph schema)")

    for index, node in enumerate(document["nodes"]):
        data = node.get("data")
        if not isinstance(data, Mapping):
            fail(f"nodes[{index}].data", "must be an object")
        if not isinstance(data.get("key"), str):
            fail(f"nodes[{index}].data.key", "must be a string")
        if not isinstance(data.get("type"), str) or data["type"] not in _STATE_TYPES:
            fail(f"nodes[{index}].data.type", f"must be one of {', '.join(sorted(_STATE_TYPES))}")
        for key in _NODE_LISTS:
            if key in data and not isinstance(data[key], list):
                fail(f"nodes[{index}].data.{key}", "must be an array")
        if not all(isinstance(item, Mapping) for item in data.get("invoke") or []):
            fail(f"nodes[{index}].data.invoke", "items must be objects")
        for key in ("extra",):
            if key in data and not isinstance(data[key], Mapping):
                fail(f"nodes[{index}].data.{key}", "must be an object")
    for index, edge in enumerate(document["edges"]):
        data = edge.get("data")
        if not isinstance(data, Mapping):
            fail(f"edges[{index}].data", "must be an object")
        kind = data.get("kind", "on")
        if not isinstance(kind, str) or kind not in _EDGE_KINDS:
            fail(f"edges[{index}].data.kind", f"must be one of {', '.join(sorted(_EDGE_KINDS))}")
        if data.get("targets") is not None and not isinstance(data["targets"], list):
            fail(f"edges[{index}].data.targets", "must be an array or null")
        if "actions" in data and not isinstance(data["actions"], list):
            fail(f"edges[{index}].data.actions", "must be an array")
        if "extra" in data and not isinstance(data["extra"], Mapping):
            fail(f"edges[{index}].data.extra", "must be an object")
        if "invokeIndex" in data and (not isinstance(data["invokeIndex"], int) or isinstance(data["invokeIndex"], bool)):
            fail(f"edges[{index}].data.invokeIndex", "must be an integer")
    graph_data = document["data"]
    if "extra" in graph_data and not isinstance(graph_data["extra"], Mapping):
        fail("data.extra", "must be an object")
    if "machineId" in graph_data and not isinstance(graph_data["machineId"], str):
        fail("data.machineId", "must be a string")


def _data(item: Mapping[str, Any]) -> Mapping[str, Any]:
    data = item.get("data")
    return data if isinstance(data, Mapping) else {}


def _children_by_parent(nodes: list[Mapping[str, Any]]) -> dict[str | None, list[Mapping[str, Any]]]:
    children: dict[str | None, list[Mapping[str, Any]]] = {}
    known = {node["id"] for node in nodes}
    seen: set[str] = set()
    for node in nodes:
        if node["id"] in seen:
            raise ToolError("invalid_input", f"duplicate node id {node['id']!r}")
        seen.add(node["id"])
        parent = node.get("parentId")
        if parent is not None and (not isinstance(parent, str) or parent not in known):
            raise ToolError("invalid_input", f"node {node['id']!r} has an unknown parentId {parent!r}")
        children.setdefault(parent, []).append(node)
    return children


def _check_tree(children: dict[str | None, list[Mapping[str, Any]]], total: int) -> None:
    reached, stack = 0, [None]
    visited: set[str | None] = set()
    while stack:
        parent = stack.pop()
        for child in children.get(parent, []):
            if child["id"] in visited:
                continue
            visited.add(child["id"])
            reached += 1
            stack.append(child["id"])
    if reached != total:
        raise ToolError("invalid_input", "the nodes' parentId links form a cycle")


def _semantic_config(document: Mapping[str, Any]) -> dict[str, Any]:
    nodes: list[Mapping[str, Any]] = document["nodes"]
    children = _children_by_parent(nodes)
    _check_tree(children, len(nodes))
    roots = children.get(None, [])
    if len(roots) != 1:
        raise ToolError("invalid_input", f"a statekit XGraph has exactly one root node (parentId null); found {len(roots)}")
    edges_by_source: dict[str, list[Mapping[str, Any]]] = {}
    for edge in document["edges"]:
        edges_by_source.setdefault(edge["sourceId"], []).append(edge)
    graph_data = _data(document)
    root_key = _data(roots[0]).get("key")
    machine_id = graph_data.get("machineId")
    if not isinstance(machine_id, str) and isinstance(root_key, str) and root_key != DEFAULT_MACHINE_ID:
        machine_id = root_key  # a hand-written graph: the root node's key is the machine id
    # The model's state ids, for sparse edges that give only a target node.
    model_ids: dict[str, str] = {}

    def assign(node: Mapping[str, Any], path: tuple[str, ...]) -> None:
        data = _data(node)
        own_id = data.get("id") if path and isinstance(data.get("id"), str) else None
        model_ids[node["id"]] = own_id or ".".join((machine_id or DEFAULT_MACHINE_ID, *path))
        for kid in children.get(node["id"], []):
            assign(kid, (*path, str(_data(kid).get("key", kid["id"]))))

    assign(roots[0], ())

    def build(node: Mapping[str, Any], is_root: bool) -> dict[str, Any]:
        data = _data(node)
        config: dict[str, Any] = {}
        if is_root:
            if isinstance(machine_id, str):
                config["id"] = machine_id
            if "context" in graph_data:
                config["context"] = graph_data["context"]
        elif "id" in data:
            config["id"] = data["id"]
        if data.get("typeGiven"):
            config["type"] = data.get("type")
        for key in ("history", "target", "initial", "description", "meta", "output"):
            if key in data:
                config[key] = data[key]
        if data.get("tags"):
            config["tags"] = data["tags"]
        for key in ("entry", "exit"):
            if data.get(key):
                config[key] = data[key]
        invokes = [dict(item) for item in data.get("invoke") or []]
        _transitions_into(config, invokes, edges_by_source.get(node["id"], []), model_ids)
        if invokes:
            config["invoke"] = invokes
        kids = children.get(node["id"], [])
        if kids:
            config["states"] = {_data(kid).get("key", kid["id"]): build(kid, False) for kid in kids}
        extra = data.get("extra")
        if isinstance(extra, Mapping):
            config.update(extra)
        if is_root and isinstance(graph_data.get("extra"), Mapping):
            config.update(graph_data["extra"])
        return config

    return build(roots[0], True)


def _transitions_into(
    config: dict[str, Any], invokes: list[dict[str, Any]], edges: list[Mapping[str, Any]], model_ids: dict[str, str]
) -> None:
    groups: dict[str, dict[str, list[Any]]] = {}
    for edge in edges:
        data = _data(edge)
        kind = data.get("kind", "on")
        item: dict[str, Any] = {}
        if data.get("targets") is not None:
            item["target"] = data["targets"]
        elif "targets" not in data and edge["targetId"] != edge["sourceId"]:
            # A sparse edge (no `targets`): its target node, by id.
            item["target"] = "#" + model_ids.get(edge["targetId"], edge["targetId"])
        for key in ("guard", "reenter", "description", "meta"):
            if key in data:
                item[key] = data[key]
        if data.get("actions"):
            item["actions"] = data["actions"]
        if isinstance(data.get("extra"), Mapping):
            item.update(data["extra"])
        if kind == "on":
            groups.setdefault("on", {}).setdefault(str(data.get("event", edge.get("label") or "")), []).append(item)
        elif kind == "after":
            groups.setdefault("after", {}).setdefault(str(data.get("delay")), []).append(item)
        elif kind in ("always", "onDone"):
            groups.setdefault(kind, {}).setdefault("", []).append(item)
        elif kind.startswith("invoke."):
            index = data.get("invokeIndex", 0)
            if not isinstance(index, int) or not 0 <= index < len(invokes):
                raise ToolError("invalid_input", f"edge {edge.get('id')!r} names invoke {index!r}, which does not exist")
            invokes[index].setdefault(kind.split(".", 1)[1], []).append(item)
        else:
            raise ToolError("invalid_input", f"edge {edge.get('id')!r} has an unknown kind {kind!r}")
    for field_name in _TRANSITION_FIELDS:
        if field_name in groups:
            group = groups[field_name]
            config[field_name] = group if field_name in ("on", "after") else group[""]


class _StructuralReader:
    """Reads an XGraph that carries structure only; every default is an `assumed_*` warning."""

    def __init__(self, document: Mapping[str, Any]) -> None:
        self.document = document
        self.warnings: list[FormatWarning] = []
        self.keys: dict[str, str] = {}
        self.parents: dict[str, str | None] = {}

    def assume(self, code: str, message: str, path: str) -> None:
        self.warnings.append(warning("assumed_" + code, message, path))

    def config(self) -> tuple[dict[str, Any], list[FormatWarning]]:
        nodes: list[Mapping[str, Any]] = self.document["nodes"]
        children = _children_by_parent(nodes)
        _check_tree(children, len(nodes))
        graph_id = self.document.get("id")
        root_key = graph_id.replace(".", "_") if isinstance(graph_id, str) and graph_id else DEFAULT_MACHINE_ID
        if root_key == DEFAULT_MACHINE_ID:
            self.assume("machine_id", f"the graph has no id; the machine id is {DEFAULT_MACHINE_ID!r}", "id")
        model_ids: dict[str, str] = {}
        paths: dict[str, tuple[str, ...]] = {}

        def assign(parent: str | None, path: tuple[str, ...]) -> None:
            used: set[str] = set()
            for node in children.get(parent, []):
                key = self._key(node, parent, used)
                used.add(key)
                self.keys[node["id"]] = key
                self.parents[node["id"]] = parent
                paths[node["id"]] = (*path, key)
                model_ids[node["id"]] = ".".join((root_key, *path, key))
                assign(node["id"], (*path, key))

        assign(None, ())
        edges_by_source: dict[str, list[Mapping[str, Any]]] = {}
        for index, edge in enumerate(self.document["edges"]):
            if edge["sourceId"] not in self.keys or edge["targetId"] not in self.keys:
                raise ToolError("invalid_input", f"edges[{index}] connects a node that does not exist")
            edges_by_source.setdefault(edge["sourceId"], []).append(edge)

        def build(node: Mapping[str, Any], where: str) -> dict[str, Any]:
            data = _data(node)
            config: dict[str, Any] = {}
            kids = children.get(node["id"], [])
            state_type = data.get("type", data.get("stateType"))
            if state_type in ("parallel", "final", "history"):
                config["type"] = state_type
            elif state_type is not None and (not isinstance(state_type, str) or state_type not in _STATE_TYPES):
                self.assume("type", f"unknown state type {state_type!r}; the type follows from the nesting", where)
            if kids and state_type != "parallel":
                config["initial"] = self._initial(node, kids, where)
            if isinstance(data.get("tags"), list) and all(isinstance(t, str) for t in data["tags"]):
                config["tags"] = data["tags"]
            if node.get("label") and node.get("label") != self.keys[node["id"]]:
                config["description"] = node["label"]
            if isinstance(data.get("description"), str):
                config["description"] = data["description"]
            if "meta" in data:
                config["meta"] = data["meta"]
            self._edges(config, node, edges_by_source.get(node["id"], []), model_ids, where)
            if kids:
                config["states"] = {
                    self.keys[kid["id"]]: build(kid, f"{where}.states.{self.keys[kid['id']]}" if where else
                                                 f"states.{self.keys[kid['id']]}")
                    for kid in kids
                }
            return config

        top = children.get(None, [])
        config: dict[str, Any] = {"id": root_key}
        if top:
            config["initial"] = self._graph_initial(top)
            config["states"] = {self.keys[n["id"]]: build(n, f"states.{self.keys[n['id']]}") for n in top}
        return config, self.warnings

    def _key(self, node: Mapping[str, Any], parent: str | None, used: set[str]) -> str:
        node_id: str = node["id"]
        data_key = _data(node).get("key")
        if isinstance(data_key, str) and data_key:
            key = data_key
        elif parent is not None and node_id.startswith(parent + "."):
            key = node_id[len(parent) + 1:]
        else:
            key = node_id.rsplit(".", 1)[-1] if "." in node_id else node_id
        key = key.replace(".", "_") or "_"
        unique, number = key, 2
        while unique in used:
            unique, number = f"{key}_{number}", number + 1
        if unique != node_id and not isinstance(data_key, str):
            self.assume("key", f"node {node_id!r} becomes the state {unique!r}", f"nodes.{node_id}")
        return unique

    def _initial(self, node: Mapping[str, Any], kids: list[Mapping[str, Any]], where: str) -> str:
        initial = node.get("initialNodeId")
        for kid in kids:
            if kid["id"] == initial:
                return self.keys[kid["id"]]
        first = self.keys[kids[0]["id"]]
        self.assume("initial", f"no initial child given; the first child {first!r} is the initial state", where)
        return first

    def _graph_initial(self, top: list[Mapping[str, Any]]) -> str:
        initial = self.document.get("initialNodeId")
        for node in top:
            if node["id"] == initial:
                return self.keys[node["id"]]
        first = self.keys[top[0]["id"]]
        self.assume("initial", f"the graph gives no initialNodeId; the first node {first!r} is the initial state",
                    "initialNodeId")
        return first

    def _edges(
        self, config: dict[str, Any], node: Mapping[str, Any], edges: list[Mapping[str, Any]],
        model_ids: dict[str, str], where: str,
    ) -> None:
        for edge in edges:
            data = _data(edge)
            edge_where = f"edges.{edge.get('id', '?')}"
            target_id = edge["targetId"]
            source_id = model_ids[node["id"]]
            if self.parents[target_id] == self.parents[node["id"]]:
                target = self.keys[target_id]
            elif model_ids[target_id].startswith(source_id + "."):
                target = model_ids[target_id][len(source_id):]  # `.child.path`, relative to the source
            else:
                target = "#" + model_ids[target_id]
            item: dict[str, Any] = {"target": target}
            guard = data.get("guard")
            if isinstance(guard, str) or (isinstance(guard, Mapping) and isinstance(guard.get("type"), str)):
                item["guard"] = guard
            if isinstance(data.get("description"), str):
                item["description"] = data["description"]
            label = edge.get("label")
            event = data.get("event", data.get("eventType"))
            delay = data.get("delay")
            after_label = label[6:] if isinstance(label, str) and label.startswith("after ") else None
            if delay is not None or after_label is not None:
                delay_key = str(delay if delay is not None else after_label).strip()
                config.setdefault("after", {}).setdefault(delay_key, []).append(item)
            elif event == "always" or label == "always" or event == "":
                config.setdefault("always", []).append(item)
            elif isinstance(event, str) or (isinstance(label, str) and label):
                config.setdefault("on", {}).setdefault(event if isinstance(event, str) else label, []).append(item)
            else:
                name = str(edge.get("id") or f"{node['id']}->{target_id}")
                self.assume("event", f"the edge has no event or label; its event is {name!r}", edge_where)
                config.setdefault("on", {}).setdefault(name, []).append(item)


def detect(source: Source) -> float:
    data = source.data
    if isinstance(data, Mapping) and isinstance(data.get("nodes"), list) and isinstance(data.get("edges"), list):
        return 1.0
    return 0.0


register_format(
    "xgraph",
    read=read_xgraph,
    write=write_xgraph,
    detect=detect,
    aliases=("graph", "statekit-xgraph"),
    media_type="application/json",
    description="statekit XGraph: graph JSON (nodes with parentId, edges) holding the whole machine",
    title="XGraph",
    reads_document=True,
)
