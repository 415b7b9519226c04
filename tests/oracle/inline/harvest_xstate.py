"""Translate XState's own tests (statelyai/xstate `packages/core/test/*.test.ts`) into oracle cases.

For every `it(...)` / `test(...)` of a test file this finds the machines the test builds (a
`createMachine(...)` / `setup(...).createMachine(...)` in its body, or one it references from the
describe or module scope) and the events the test sends to each (`actor.send({...})`, the event
of `transition(machine, snapshot, {...})` / `getNextSnapshot(...)`), plus the `input` given to
`createActor`. A case is the machine's own source (TypeScript annotations stripped, with the
declarations it references) and those events: the test's assertions are not copied, because the
oracle compares statekit with real XState step by step instead.

    python tests/oracle/inline/harvest_xstate.py <xstate checkout>/packages/core/test actions guards ...

writes `tests/oracle/inline/xstate/xstate_<file>.json` (a JSON array of
`{name, from: {file, test}, source, events, input?}`); `run.mjs` and
`tests/engine/test_inline_oracle.py` run them like `cases/*.js`. A candidate XState itself cannot run
from the extracted source (it used a test helper such as `vi.fn()`, or threw while loading) is
left out by `--check`, which runs run.mjs on the candidates first; nothing else is filtered.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tree_sitter import Node

from statekit.extract.captures import _declared_between
from statekit.extract.syntax import FUNCTION_TYPES, parse, text
from statekit.extract.values import Evaluator

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parents[1]))  # tests/: node_oracle and needs
from node_oracle import run_node  # noqa: E402

OUT_DIR = HERE / "xstate"
#: Names the xstate test files import from the library under test (`../src/index.ts`, ...).
_LIBRARY_MODULES = re.compile(r"^(\.\./src(/.*)?|xstate(/.*)?)$")
_TYPE_NODES = frozenset({"type_annotation", "type_arguments", "type_parameters", "omitting_type_annotation",
                         "opting_type_annotation"})
_UNWRAP_NODES = frozenset({"as_expression", "satisfies_expression", "non_null_expression"})
_NONDETERMINISTIC = re.compile(r"\bMath\.random\b|\bDate\.now\b|\bnew Date\(\)")
_DROP_STATEMENTS = frozenset({"interface_declaration", "type_alias_declaration"})


def strip_types(node: Node, source: bytes, replace: dict[int, tuple[int, str]] | None = None) -> str:
    """The JavaScript text of `node`: TypeScript annotations, `as`/`satisfies` and `!` removed;
    `replace`: start byte -> (end byte, text) of nodes written as that text instead."""
    pieces: list[str] = []
    position = node.start_byte

    def emit_until(end: int) -> None:
        nonlocal position
        if end > position:
            pieces.append(source[position:end].decode("utf-8", "replace"))
        position = max(position, end)

    def visit(current: Node) -> None:
        nonlocal position
        if replace and current.start_byte in replace and replace[current.start_byte][0] == current.end_byte:
            emit_until(current.start_byte)
            pieces.append(replace[current.start_byte][1])
            position = current.end_byte
            return
        if current.type in _TYPE_NODES or current.type in _DROP_STATEMENTS:
            emit_until(current.start_byte)
            position = current.end_byte
            return
        if current.type in _UNWRAP_NODES and current.named_children:
            inner = current.named_children[0]
            emit_until(current.start_byte)
            position = inner.start_byte
            visit(inner)
            emit_until(inner.end_byte)
            position = current.end_byte
            return
        if current.type in ("required_parameter", "optional_parameter"):
            # `x?: T` / `x: T = 1`: the pattern and default, without `?` or the type.
            for child in current.children:
                if child.type == "?":
                    emit_until(child.start_byte)
                    position = child.end_byte
                else:
                    visit(child)
            return
        for child in current.children:
            visit(child)

    visit(node)
    emit_until(node.end_byte)
    return "".join(pieces)


class TestFile:
    """One parsed test file and the machines and events of its tests."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.source = path.read_bytes()
        self.tree = parse(self.source, path.name)
        self.evaluator = Evaluator()

    # -- tests --------------------------------------------------------------------------------

    def tests(self) -> Iterator[tuple[str, Node]]:
        """`(describe > ... > title, body)` of every it/test call, in source order."""
        yield from self._walk(self.tree.root_node, [])

    def _walk(self, node: Node, titles: list[str]) -> Iterator[tuple[str, Node]]:
        for child in node.named_children:
            call = child if child.type == "call_expression" else None
            if child.type == "expression_statement" and child.named_children \
                    and child.named_children[0].type == "call_expression":
                call = child.named_children[0]
            if call is not None:
                name = _callee_name(call)
                args = _arguments(call)
                title = _string(args[0]) if args else None
                body = args[1] if len(args) > 1 and args[1].type in FUNCTION_TYPES else None
                if name in ("describe", "describe.only", "describe.each") and title is not None and body is not None:
                    yield from self._walk(_body(body), [*titles, title])
                    continue
                if name in ("it", "test", "it.only", "test.only") and title is not None and body is not None:
                    yield " > ".join([*titles, title]), body
                    continue
            if child.type in ("statement_block", "expression_statement", "program"):
                yield from self._walk(child, titles)

    # -- machines ------------------------------------------------------------------------------

    def machine_node(self, expression: Node) -> Node | None:
        """The createMachine(...) call an expression is or names (through `const x = ...`)."""
        for _ in range(8):
            expression = _unwrap(expression)
            if expression.type == "call_expression" and _is_create_machine(expression):
                return expression
            if expression.type == "identifier":
                binding = self.evaluator.binding(text(expression), expression)
                if binding is None or binding.kind != "const" or binding.node is None:
                    return None
                expression = binding.node
                continue
            return None
        return None

    def cases(self, body: Node) -> list[dict[str, Any]]:
        """The machines a test body runs, each with the events the test sends it, in order."""
        actors: dict[str, Node] = {}  # actor variable -> machine call
        runs: list[dict[str, Any]] = []
        by_machine: dict[int, dict[str, Any]] = {}

        def run_for(machine: Node) -> dict[str, Any]:
            found = by_machine.get(machine.id)
            if found is None:
                found = {"machine": machine, "events": [], "input": None, "ok": True}
                by_machine[machine.id] = found
                runs.append(found)
            return found

        for node in _descendants(body):
            if node.type != "call_expression":
                continue
            name = _callee_name(node)
            args = _arguments(node)
            if name == "createActor" and args:
                machine = self.machine_node(args[0])
                if machine is None:
                    continue
                run = run_for(machine)
                if len(args) > 1:
                    options = self._data(args[1])
                    if isinstance(options, dict) and "input" in options:
                        run["input"] = options["input"]
                holder = _declared_name(node)
                if holder is not None:
                    actors[holder] = machine
            elif name in ("transition", "getNextSnapshot") and len(args) >= 3:
                machine = self.machine_node(args[0])
                if machine is not None:
                    self._add_event(run_for(machine), args[2])
            elif name in ("initialTransition", "getInitialSnapshot") and args:
                machine = self.machine_node(args[0])
                if machine is not None:
                    run = run_for(machine)
                    if len(args) > 1:
                        run["input"] = self._data(args[1])
            elif name.endswith(".send") and args:
                receiver = name.rsplit(".", 1)[0]
                machine = actors.get(receiver)
                if machine is not None:
                    self._add_event(run_for(machine), args[0])
        if not runs:
            for node in _descendants(body):
                if node.type == "call_expression" and _is_create_machine(node) and not _inside_other_machine(node):
                    run_for(node)
        return [run for run in runs if run["ok"]]

    def _add_event(self, run: dict[str, Any], node: Node) -> None:
        event = self._data(node)
        if isinstance(event, dict) and isinstance(event.get("type"), str) and _is_json(event):
            run["events"].append(event)
        else:
            run["ok"] = False  # an event statekit cannot write down as JSON: not translated

    def _data(self, node: Node) -> Any:
        value = self.evaluator.value(node)
        return value if _is_json(value) else None

    # -- source ---------------------------------------------------------------------------------

    def case_source(self, machine: Node) -> str | None:
        """`import {...} from 'xstate'`, the declarations the machine reads, `const machine = ...`."""
        imports: set[str] = set()
        declarations: list[tuple[int, str]] = []
        seen: set[int] = set()
        inlined: dict[int, tuple[int, str]] = {}
        uses: dict[str, int] = {}
        for name, _ in _free_names(machine):
            uses[name] = uses.get(name, 0) + 1

        def inline_child(name: str, at: Node, declaration: Node, depth: int) -> bool:
            """A child machine in a const the machine reads once (`const child = createMachine(...)`;
            `spawnChild(child)`) is written in place: the reader takes the first machine of a source,
            and createMachine has no side effects, so the case means the same."""
            if depth != 0 or uses.get(name) != 1 or declaration.type != "lexical_declaration":
                return False
            declarators = [child for child in declaration.named_children if child.type == "variable_declarator"]
            value = declarators[0].child_by_field_name("value") if len(declarators) == 1 else None
            value = _unwrap(value) if value is not None else None
            if value is None or value.type != "call_expression" or not _is_create_machine(value):
                return False
            if any(n.type == "call_expression" and _is_create_machine(n) for n in _descendants(value) if n != value):
                return False  # a child with children of its own
            if not require(value, depth + 1):
                return False
            written = strip_types(value, self.source)
            inlined[at.start_byte] = (at.end_byte, f"{name}: {written}" if at.type == "shorthand_property_identifier"
                                      else written)
            return True

        def require(node: Node, depth: int = 0) -> bool:
            if depth > 20:
                return False
            for name, at in _free_names(node):
                if _declared_between(self.evaluator, at, node, name):
                    continue  # a parameter or local of a function inside the machine
                binding = self.evaluator.binding(name, at)
                if binding is None:
                    continue
                if binding.kind == "import":
                    if not _LIBRARY_MODULES.match(binding.module):
                        return False  # a fixture or helper module: not carried
                    imports.add(binding.imported or name)
                    continue
                if binding.node is None:
                    return False  # a let, a parameter: its value is only known when the test runs
                declaration = _declaration(binding.node)
                if declaration is None or declaration.id in seen:
                    continue
                if any(n.type == "call_expression" and _is_create_machine(n) for n in _descendants(declaration)):
                    if inline_child(name, at, declaration, depth):
                        continue
                    return False  # a second machine read otherwise: the reader reads one per source
                seen.add(declaration.id)
                if not require(declaration, depth + 1):
                    return False
                declarations.append((declaration.start_byte, strip_types(declaration, self.source)))
            return True

        if not require(machine):
            return None

        imports.add("createMachine")
        body = [text for _, text in sorted(declarations)]
        lines = [f"import {{ {', '.join(sorted(imports))} }} from 'xstate';", "", *body,
                 f"const machine = {strip_types(machine, self.source, inlined)};", ""]
        return "\n".join(lines)


def _free_names(node: Node) -> Iterator[tuple[str, Node]]:
    for current in _descendants(node):
        if current.type in ("identifier", "shorthand_property_identifier"):
            yield text(current), current


def _declaration(value: Node) -> Node | None:
    """The statement that declares a const (its `lexical_declaration`) or a function."""
    current: Node | None = value
    while current is not None and current.type not in ("lexical_declaration", "function_declaration"):
        current = current.parent
    return current


def _is_create_machine(call: Node) -> bool:
    name = _callee_name(call)
    return name == "createMachine" or name.endswith(".createMachine")


def _inside_other_machine(node: Node) -> bool:
    current = node.parent
    while current is not None:
        if current.type == "call_expression" and _is_create_machine(current):
            return True
        current = current.parent
    return False


def _callee_name(call: Node) -> str:
    function = call.child_by_field_name("function")
    if function is None:
        return ""
    if function.type == "member_expression":
        obj = function.child_by_field_name("object")
        prop = function.child_by_field_name("property")
        if obj is not None and prop is not None:
            inner = _callee_name(obj) + "()" if obj.type == "call_expression" else text(obj)
            return f"{inner}.{text(prop)}"
    return text(function)


def _arguments(call: Node) -> list[Node]:
    args = call.child_by_field_name("arguments")
    return [arg for arg in args.named_children if arg.type != "comment"] if args is not None else []


def _string(node: Node) -> str | None:
    if node.type == "string":
        return text(node)[1:-1]
    if node.type == "template_string" and "${" not in text(node):
        return text(node)[1:-1]
    return None


def _body(function: Node) -> Node:
    body = function.child_by_field_name("body")
    return body if body is not None else function


def _unwrap(node: Node) -> Node:
    while node.type in ("parenthesized_expression", *_UNWRAP_NODES) and node.named_children:
        node = node.named_children[0]
    return node


def _declared_name(call: Node) -> str | None:
    """`actor` in `const actor = createActor(m)` / `createActor(m).start()`."""
    current: Node | None = call
    while current is not None and current.type in ("call_expression", "member_expression", "await_expression"):
        current = current.parent
        if current is not None and current.type == "variable_declarator":
            name = current.child_by_field_name("name")
            return text(name) if name is not None else None
    return None


def _descendants(node: Node) -> Iterator[Node]:
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.named_children))


def _is_json(value: Any) -> bool:
    if value is None or isinstance(value, str | bool | int):
        return True
    if isinstance(value, float):
        return value == value and abs(value) != float("inf")
    if isinstance(value, list):
        return all(_is_json(item) for item in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _is_json(v) for k, v in value.items())
    return False


def _slug(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", title.lower()).strip("_")[:80]


def harvest(path: Path) -> list[dict[str, Any]]:
    """The candidate cases of one test file."""
    test_file = TestFile(path)
    stem = path.name.removesuffix(".test.ts").removesuffix(".test.js")
    cases: list[dict[str, Any]] = []
    names: set[str] = set()
    for title, body in test_file.tests():
        for index, run in enumerate(test_file.cases(_body(body))):
            source = test_file.case_source(run["machine"])
            if source is None or _NONDETERMINISTIC.search(source):
                continue  # not expressible here, or random: no single trace to compare
            base = f"xstate_{_slug(stem)}__{_slug(title.split(' > ')[-1])}"
            name = base if index == 0 else f"{base}_{index + 1}"
            while name in names:
                name += "_"
            names.add(name)
            case: dict[str, Any] = {"name": name, "from": {"file": f"packages/core/test/{path.name}", "test": title},
                                    "source": source, "events": run["events"]}
            if run["input"] is not None:
                case["input"] = run["input"]
            cases.append(case)
    return cases


def xstate_runs_cleanly(cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The candidates that real XState runs from the extracted source without a loading failure.
    A case about an error must end in one; a case that ends in an error is named `..._throws`."""
    results = run_node(HERE / "run.mjs", "--json", "-", stdin=json.dumps(cases),
                       packages=[HERE.parent / "node_modules" / "xstate"])
    traces = {result["name"]: result["steps"] for result in results}
    kept = []
    for case in cases:
        steps = traces[case["name"]]
        failed = any("error" in step or step.get("status") == "error" for step in steps)
        loading_failed = "error" in steps[0] and ("is not defined" in steps[0]["error"] or "is not a function"
                                                 in steps[0]["error"])
        expected_failure = any(marker in case["name"] for marker in ("error", "throws"))
        if loading_failed or (expected_failure and not failed):
            continue
        if failed and not expected_failure:
            # XState throws (or ends in status "error") here: a case about that error.
            case = {**case, "name": case["name"] + "__throws"}
        kept.append(case)
    return kept


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("test_dir", type=Path)
    parser.add_argument("files", nargs="+", help="test file stems: actions guards ...")
    parser.add_argument("--check", action="store_true", help="keep only candidates XState runs cleanly")
    arguments = parser.parse_args()
    OUT_DIR.mkdir(exist_ok=True)
    for stem in arguments.files:
        cases = harvest(arguments.test_dir / f"{stem}.test.ts")
        found = len(cases)
        if arguments.check and cases:
            cases = xstate_runs_cleanly(cases)
        target = OUT_DIR / f"xstate_{stem}.json"
        target.write_text(json.dumps(cases, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"{stem}: {found} candidates, {len(cases)} kept -> {target.relative_to(HERE.parent.parent.parent)}",
              file=sys.stderr)


if __name__ == "__main__":
    main()
