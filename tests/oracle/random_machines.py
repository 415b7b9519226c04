"""Random machines and event sequences for the differential tests, one per seed.

The hand-written corpus checks what we thought of; these check what we did not. Each seed
gives the same case every time (`random.Random(seed)`), so a failing seed is a reproducible
case: `python tests/oracle/random_machines.py 17` prints it.

XState's pure API does not stop a machine that never settles (node runs out of memory), so
the generator builds only machines that settle, by construction:

- `count` only grows inside a macrostep: eventless transitions must increment it and are
  guarded by `countBelow`/`countIs` with a small bound; `reset` only runs on transitions
  taken for an event the driver sends or raises.
- Only transitions for an exact external event may `raise`, and they raise only `R1`/`R2`,
  whose transitions (and wildcard ones) never raise. Entry and exit actions never raise.
- Guard overrides (`guards: {name: bool}`) never replace the count guards.
- A final state is never an initial state, and the transitions that internal done events can
  take (`onDone`, wildcard descriptors) never target a final or history state, so done
  events cannot chain into more done events.
"""

from __future__ import annotations

import json
import random
import sys
from dataclasses import dataclass, field
from typing import Any

EXTERNAL_EVENTS = ("A", "B", "C", "D", "E.x", "E.y")
RAISED_EVENTS = ("R1", "R2")
WILDCARD_DESCRIPTORS = ("*", "E.*")
STATE_KEYS = ("a", "b", "c", "d", "0", "1", "2", "10", "x", "y")
NAMED_ACTIONS = ("act1", "act2", "act3")
SPAWN_IDS = ("sp0", "sp1")
MACHINE_ID = "m"


@dataclass
class Node:
    """A generated state, before it is written out as config."""

    key: str
    path: tuple[str, ...]
    kind: str  # atomic | compound | parallel | final | history
    explicit_id: str | None = None
    children: list[Node] = field(default_factory=list)
    parent: Node | None = None

    @property
    def id(self) -> str:
        if self.explicit_id is not None:
            return self.explicit_id
        return ".".join((MACHINE_ID, *self.path))

    def descendants(self) -> list[Node]:
        found: list[Node] = []
        for child in self.children:
            found.append(child)
            found.extend(child.descendants())
        return found


class Generator:
    """Builds one case from one seed."""

    def __init__(self, seed: int) -> None:
        self.random = random.Random(seed)
        self.seed = seed
        self.explicit_ids = 0
        self.invoke_ids: list[str] = []
        self.after_events: list[str] = []
        self.root = Node(MACHINE_ID, (), "compound")
        self.all_nodes: list[Node] = []
        self.max_depth = self.random.choice((2, 2, 3, 4))

    # -- the tree ------------------------------------------------------------------------

    def build_tree(self) -> None:
        self.root.kind = self.random.choice(("compound", "compound", "parallel"))
        self._grow(self.root, depth=0)
        self.all_nodes = self.root.descendants()

    def _grow(self, node: Node, depth: int) -> None:
        count = self.random.randint(2, 3)
        keys = self.random.sample(STATE_KEYS, count)
        for index, key in enumerate(keys):
            kind = self._child_kind(node, depth, index)
            child = Node(key, (*node.path, key), kind, parent=node)
            if self.random.random() < 0.15:
                self.explicit_ids += 1
                child.explicit_id = f"s{self.explicit_ids}"
            node.children.append(child)
            if kind in ("compound", "parallel"):
                self._grow(child, depth + 1)
        if node.kind == "compound" and self.random.random() < 0.25:
            history = Node("h", (*node.path, "h"), "history", parent=node)
            node.children.append(history)

    def _child_kind(self, parent: Node, depth: int, index: int) -> str:
        if depth >= self.max_depth:
            choices = ["atomic", "atomic", "final"]
        else:
            choices = ["atomic", "atomic", "compound", "compound", "parallel", "final"]
        if parent.kind == "parallel":
            # A region is usually a compound state; an atomic or final region is legal too.
            choices = ["compound", "compound", "atomic"] if depth < self.max_depth else ["atomic"]
        kind = self.random.choice(choices)
        if index == 0 and kind == "final":
            kind = "atomic"  # the first child is the initial one: never final
        return kind

    # -- pieces of config ----------------------------------------------------------------

    def target_for(self, source: Node, *, for_internal_events: bool = False) -> str:
        """A valid target string from `source`: a sibling, a `.child`, or a `#id`."""
        candidates = [n for n in self.all_nodes if n is not source or self.random.random() < 0.3]
        if for_internal_events:
            candidates = [n for n in candidates if n.kind not in ("final", "history")] or [
                self.root.children[0]
            ]
        target = self.random.choice(candidates)
        style = self.random.random()
        if target.parent is source.parent and source.parent is not None and style < 0.4:
            return target.key
        if target.parent is source and style < 0.7:
            return f".{target.key}"
        return f"#{target.id}"

    def multi_target(self, internal: bool) -> list[str] | None:
        """Targets in two regions of one parallel state, as `{"target": [...]}`."""
        parallels = [
            n for n in [self.root, *self.all_nodes] if n.kind == "parallel" and len(n.children) >= 2
        ]
        if not parallels:
            return None
        parallel = self.random.choice(parallels)
        targets = []
        for region in self.random.sample(parallel.children, 2):
            choices = [region, *region.descendants()]
            if internal:
                choices = [n for n in choices if n.kind not in ("final", "history")]
            if not choices:
                return None
            targets.append(f"#{self.random.choice(choices).id}")
        return targets

    def guard(self, depth: int = 0) -> Any:
        roll = self.random.random()
        if depth < 2 and roll < 0.15:
            combinator = self.random.choice(("xstate.and", "xstate.or"))
            return {
                "type": combinator,
                "guards": [self.guard(depth + 1) for _ in range(self.random.randint(1, 3))],
            }
        if depth < 2 and roll < 0.22:
            return {"type": "xstate.not", "guard": self.guard(depth + 1)}
        if roll < 0.32:
            node = self.random.choice([n for n in self.all_nodes if n.kind != "history"])
            if self.random.random() < 0.6:
                return {"type": "xstate.stateIn", "state": f"#{node.id}"}
            return {"type": "xstate.stateIn", "state": self._state_value_of(node)}
        name = self.random.choice(
            ("isTrue", "isFalse", "countIs", "countAbove", "countBelow", "eventOk")
        )
        if name.startswith("count"):
            return {"type": name, "params": {"value": self.random.randint(0, 3)}}
        return name

    def _state_value_of(self, node: Node) -> Any:
        """A state value (dotted string or nested object) that matches when `node` is active."""
        if self.random.random() < 0.5:
            return ".".join(node.path)
        value: Any = node.path[-1]
        for key in reversed(node.path[:-1]):
            value = {key: value}
        return value

    def action(self, *, may_raise: bool, may_reset: bool) -> Any:
        choices = [
            "named",
            "named",
            "increment",
            "record",
            "addValue",
            "emit",
            "log",
            "setFromEvent",
        ]
        choices += ["delayedRaise", "cancel", "spawn", "stopChild"]
        if self.random.random() < 0.02:
            choices.append("sendTo")  # fails unless the child exists: both engines must agree
        if may_raise:
            choices += ["raise", "raise"]
        if may_reset:
            choices.append("reset")
        choice = self.random.choice(choices)
        if choice == "named":
            name = self.random.choice(NAMED_ACTIONS)
            return (
                {"type": name, "params": {"n": self.random.randint(1, 9)}}
                if self.random.random() < 0.3
                else name
            )
        if choice == "addValue":
            return {"type": "addValue", "params": {"value": self.random.randint(1, 3)}}
        if choice == "emit":
            return {
                "type": "xstate.emit",
                "event": {"type": "notice", "n": self.random.randint(1, 9)},
            }
        if choice == "log":
            return {"type": "xstate.log", "value": "checkpoint", "label": "gen"}
        if choice == "raise":
            return {"type": "xstate.raise", "event": {"type": self.random.choice(RAISED_EVENTS)}}
        if choice == "delayedRaise":
            # Scheduled, never processed by the pure API: safe anywhere.
            return {"type": "xstate.raise", "event": {"type": "R1"}, "delay": 100, "id": "t0"}
        if choice == "cancel":
            return {"type": "xstate.cancel", "sendId": "t0"}
        if choice == "spawn":
            return {
                "type": "xstate.spawnChild",
                "src": "fetcher",
                "id": self.random.choice(SPAWN_IDS),
            }
        if choice == "stopChild":
            return {"type": "xstate.stopChild", "actorRef": self.random.choice(SPAWN_IDS)}
        if choice == "sendTo":
            return {
                "type": "xstate.sendTo",
                "to": self.random.choice(SPAWN_IDS),
                "event": {"type": "PING"},
            }
        return choice

    def actions(self, *, may_raise: bool, may_reset: bool, most: int = 2) -> list[Any]:
        chosen = [
            self.action(may_raise=may_raise, may_reset=may_reset)
            for _ in range(self.random.randint(0, most))
        ]
        if may_raise is False and self.random.random() < 0.08:
            # enqueueActions with a check, still under the same rules
            chosen.append(
                {
                    "type": "xstate.enqueueActions",
                    "actions": [
                        {
                            "if": self.guard(1),
                            "then": [self.action(may_raise=False, may_reset=may_reset)],
                            "else": [self.action(may_raise=False, may_reset=may_reset)],
                        }
                    ],
                }
            )
        return chosen

    def transition(
        self,
        source: Node,
        *,
        may_raise: bool,
        may_reset: bool,
        eventless: bool = False,
        internal: bool = False,
    ) -> Any:
        """A transition; `internal` ones may be taken for done events, which must not chain."""
        config: dict[str, Any] = {}
        if eventless or self.random.random() < 0.8:
            config["target"] = self.target_for(source, for_internal_events=internal)
            if self.random.random() < 0.1:
                config["target"] = self.multi_target(internal) or config["target"]
        if self.random.random() < 0.15 and "target" in config:
            config["reenter"] = True
        if eventless:
            bound = self.random.randint(1, 3)
            config["guard"] = {
                "type": self.random.choice(("countBelow", "countIs")),
                "params": {"value": bound},
            }
            config["actions"] = [
                "increment",
                *self.actions(may_raise=False, may_reset=False, most=1),
            ]
            return config
        if self.random.random() < 0.4:
            config["guard"] = self.guard()
        actions = self.actions(may_raise=may_raise, may_reset=may_reset)
        if actions:
            config["actions"] = actions
        if (
            len(config) == 1
            and isinstance(config.get("target"), str)
            and self.random.random() < 0.5
        ):
            return config["target"]
        return config

    def transitions(
        self, source: Node, *, may_raise: bool, may_reset: bool, internal: bool = False
    ) -> Any:
        if self.random.random() < 0.25:
            return [
                self.transition(source, may_raise=may_raise, may_reset=may_reset, internal=internal)
                for _ in range(2)
            ]
        return self.transition(source, may_raise=may_raise, may_reset=may_reset, internal=internal)

    # -- writing the config ----------------------------------------------------------------

    def state_config(self, node: Node) -> dict[str, Any]:
        config: dict[str, Any] = {}
        if node.explicit_id is not None:
            config["id"] = node.explicit_id
        if node.kind == "history":
            config["type"] = "history"
            if self.random.random() < 0.5:
                config["history"] = "deep"
            siblings = (
                [n for n in node.parent.children if n.kind != "history"] if node.parent else []
            )
            if siblings and self.random.random() < 0.4:
                config["target"] = self.random.choice(siblings).key
            return config
        if node.kind in ("parallel", "final"):
            config["type"] = node.kind
        if node.kind == "final":
            if self.random.random() < 0.4:
                config["output"] = {"from": node.key}
            if self.random.random() < 0.3:
                config["entry"] = self.actions(may_raise=False, may_reset=False, most=1)
            return config
        if node.kind == "compound":
            config["initial"] = node.children[0].key
        if self.random.random() < 0.4:
            config["entry"] = self.actions(may_raise=False, may_reset=False)
        if self.random.random() < 0.3:
            config["exit"] = self.actions(may_raise=False, may_reset=False)
        if self.random.random() < 0.3:
            config["tags"] = self.random.sample(
                ("busy", "ready", "visible", "Z"), self.random.randint(1, 2)
            )
        on = self._on(node)
        if on:
            config["on"] = on
        if node is not self.root and self.random.random() < 0.15:
            config["always"] = self.transition(
                node, may_raise=False, may_reset=False, eventless=True
            )
        if node is not self.root and self.random.random() < 0.15:
            delay = self.random.choice(("100", "short", "5000"))
            config["after"] = {delay: self.transition(node, may_raise=False, may_reset=True)}
            self.after_events.append(f"xstate.after.{delay}.{node.id}")
        if node is not self.root and self.random.random() < 0.15:
            config["invoke"] = self._invoke(node)
        if (
            node.kind in ("compound", "parallel")
            and node is not self.root
            and self.random.random() < 0.4
        ):
            config["onDone"] = self.transition(
                node, may_raise=False, may_reset=False, internal=True
            )
        if node.children:
            config["states"] = {child.key: self.state_config(child) for child in node.children}
        return config

    def _on(self, node: Node) -> dict[str, Any]:
        on: dict[str, Any] = {}
        for _ in range(self.random.randint(0, 3)):
            roll = self.random.random()
            if roll < 0.6:
                descriptor = self.random.choice(EXTERNAL_EVENTS)
                on[descriptor] = self.transitions(node, may_raise=True, may_reset=True)
            elif roll < 0.8:
                descriptor = self.random.choice(RAISED_EVENTS)
                on[descriptor] = self.transitions(node, may_raise=False, may_reset=True)
            else:
                descriptor = self.random.choice(WILDCARD_DESCRIPTORS)
                on[descriptor] = self.transitions(
                    node, may_raise=False, may_reset=False, internal=True
                )
        return on

    def _invoke(self, node: Node) -> dict[str, Any]:
        invoke: dict[str, Any] = {"src": self.random.choice(("fetcher", "saver", "ticker"))}
        if self.random.random() < 0.6:
            invoke["id"] = f"job{len(self.invoke_ids)}"
            self.invoke_ids.append(invoke["id"])
        else:
            self.invoke_ids.append(f"0.{node.id}")
        if self.random.random() < 0.7:
            invoke["onDone"] = self.transition(node, may_raise=False, may_reset=True)
        if self.random.random() < 0.5:
            invoke["onError"] = self.transition(node, may_raise=False, may_reset=True)
        if self.random.random() < 0.2:
            invoke["onSnapshot"] = self.transition(node, may_raise=False, may_reset=True)
        return invoke

    def machine_config(self) -> dict[str, Any]:
        self.build_tree()
        config: dict[str, Any] = {"id": MACHINE_ID, "context": {"count": 0, "log": []}}
        config.update(self.state_config(self.root))
        if self.random.random() < 0.3:
            config["output"] = {"seed": self.seed}
        return config

    def events(self) -> list[dict[str, Any]]:
        pool: list[str] = [*EXTERNAL_EVENTS, *EXTERNAL_EVENTS, "R1", "Z"]
        pool += self.after_events * 2
        for invoke_id in self.invoke_ids:
            pool += [f"xstate.done.actor.{invoke_id}", f"xstate.done.actor.{invoke_id}"]
            # An unhandled actor error puts the machine in status 'error' for good: keep it rare.
            if self.random.random() < 0.3:
                pool.append(f"xstate.error.actor.{invoke_id}")
            pool.append(f"xstate.snapshot.{invoke_id}")
        # Internal event names sent from outside: statekit must treat them like any event.
        parents = [n for n in self.all_nodes if n.kind in ("compound", "parallel")]
        if parents and self.random.random() < 0.3:
            pool.append(f"xstate.done.state.{self.random.choice(parents).id}")
        if self.random.random() < 0.05:
            pool.append("xstate.stop")
        sequence = []
        for _ in range(self.random.randint(6, 20)):
            event: dict[str, Any] = {"type": self.random.choice(pool)}
            if self.random.random() < 0.3:
                event["ok"] = True
            if self.random.random() < 0.2:
                event["value"] = self.random.choice((1, "text", [1, 2], {"k": None}))
            if event["type"].startswith("xstate.done.actor."):
                event["output"] = {"n": self.random.randint(1, 9)}
            if event["type"].startswith("xstate.error.actor."):
                event["error"] = "failed"
            sequence.append(event)
        return sequence


def random_case(seed: int) -> dict[str, Any]:
    """The case for `seed`: `{name, config, events, input?, guards?}` like the corpus cases."""
    generator = Generator(seed)
    config = generator.machine_config()
    case: dict[str, Any] = {
        "name": f"random_{seed}",
        "config": config,
        "events": generator.events(),
    }
    if generator.random.random() < 0.2:
        config["entry"] = ["storeInput", *config.get("entry", [])]
        case["input"] = {"seed": seed, "items": [1, 2]}
    if generator.random.random() < 0.1:
        # Not the count guards: eventless transitions rely on them to settle.
        name = generator.random.choice(("isTrue", "isFalse", "eventOk"))
        case["guards"] = {name: generator.random.random() < 0.5}
    return case


if __name__ == "__main__":
    for argument in sys.argv[1:]:
        print(json.dumps(random_case(int(argument)), indent=2))
