"""Target resolution exactly as XState v5 does it (`resolveTarget`, `getStateNodeByPath`)."""

from __future__ import annotations

from statekit.errors import MachineDefinitionError
from statekit.model.core import MachineModel, StateNode, Transition


def to_state_path(state_id: str) -> list[str]:
    """Split on `.`, honouring `\\.` escapes (XState's `toStatePath`)."""
    if "\\" not in state_id:  # no escape: the loop below is a plain split (the common case)
        return state_id.split(".")
    result: list[str] = []
    segment = ""
    index = 0
    while index < len(state_id):
        char = state_id[index]
        if char == "\\":
            segment += state_id[index + 1] if index + 1 < len(state_id) else "undefined"
            index += 2
            continue
        if char == ".":
            result.append(segment)
            segment = ""
        else:
            segment += char
        index += 1
    result.append(segment)
    return result


class Resolver:
    """Looks up state nodes by id and by path; errors carry XState's own messages."""

    def __init__(self, model: MachineModel) -> None:
        self.model = model
        self.by_id = model.nodes
        self.parents: dict[str, StateNode] = {}
        for node in model.root.walk():
            for child in node.children:
                self.parents.setdefault(child.id, node)

    def node_by_id(self, state_id: str) -> StateNode:
        """`machine.getStateNodeById('#id.child.path')`."""
        full_path = to_state_path(state_id)
        head = full_path[0][1:] if full_path[0].startswith("#") else full_path[0]
        node = self.by_id.get(head)
        if node is None:
            raise MachineDefinitionError(f"Child state node '#{head}' does not exist on machine '{self.model.id}'")
        return self.node_by_path(node, full_path[1:])

    def child(self, node: StateNode, key: str) -> StateNode:
        """`getStateNode(stateNode, key)`."""
        if key.startswith("#"):
            return self.node_by_id(key)
        if not node.children:
            raise MachineDefinitionError(
                f"Unable to retrieve child state '{key}' from '{node.id}'; no child states exist."
            )
        found = node.child(key)
        if found is None:
            raise MachineDefinitionError(f"Child state '{key}' does not exist on '{node.id}'")
        return found

    def node_by_path(self, node: StateNode, path: str | list[str]) -> StateNode:
        """`getStateNodeByPath(stateNode, statePath)`."""
        if isinstance(path, str) and path.startswith("#"):
            try:
                return self.node_by_id(path)
            except MachineDefinitionError:
                pass
        keys = to_state_path(path) if isinstance(path, str) else list(path)
        current = node
        for key in keys:
            if not key:
                break
            current = self.child(current, key)
        return current

    def resolve_target(self, source: StateNode, target: str) -> StateNode:
        """`resolveTarget` for one target string written on `source`."""
        if target.startswith("#"):
            return self.node_by_id(target)
        is_internal = target.startswith(".")
        parent = self.parents.get(source.id)
        if is_internal and parent is None:
            return self.node_by_path(source, target[1:])
        if not is_internal and parent is not None and "." not in target and "\\" not in target:
            found = parent.child(target)  # a plain sibling key: what the path walk below finds
            if found is not None:
                return found
        resolved = source.key + target if is_internal else target
        if parent is None:
            raise MachineDefinitionError(
                f'Invalid target: "{target}" is not a valid target from the root node. Did you mean ".{target}"?'
            )
        try:
            return self.node_by_path(parent, resolved)
        except MachineDefinitionError as error:
            raise MachineDefinitionError(
                f"Invalid transition definition for state node '{source.id}':\n{error.message}"
            ) from None


def resolve_targets(model: MachineModel, transition: Transition,
                    resolver: Resolver | None = None) -> list[StateNode | None]:
    """The target nodes of `transition`, `None` where a target does not resolve.

    Pass one `resolver` when resolving many transitions of a model (building one walks the tree).
    """
    resolver = resolver or Resolver(model)
    source = model.nodes[transition.source_id]
    result: list[StateNode | None] = []
    for target in transition.targets or ():
        try:
            result.append(resolver.resolve_target(source, target))
        except MachineDefinitionError:
            result.append(None)
    return result
