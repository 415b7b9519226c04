"""The base install (no extras) carries every command and tool (ARCHITECTURE.md, "Installs").

Only the Redis store is an extra. A subprocess hides every package that only an extra brings
(read from pyproject.toml, so the test follows the dependency lists) and checks that the engine
and the gate run, that `statekit --help`, every command's help and the tools work, and that the
Redis store without its package is refused naming the extra.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: Extras for developing statekit, not parts of it.
DEVELOPMENT_EXTRAS = frozenset({"test", "bench"})


def _name(requirement: str) -> str:
    match = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", requirement)
    assert match, requirement
    return re.sub(r"[-_.]+", "-", match.group(0)).lower()


def _project() -> dict[str, object]:
    project: dict[str, object] = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return project


def _closure(names: set[str]) -> set[str]:
    """The distributions `names` need, with what those need in turn (installed ones only)."""
    seen: set[str] = set()
    pending = list(names)
    while pending:
        name = pending.pop()
        if name in seen:
            continue
        seen.add(name)
        try:
            requirements = importlib.metadata.requires(name) or []
        except importlib.metadata.PackageNotFoundError:
            continue
        pending.extend(_name(r) for r in requirements if "extra ==" not in r)
    return seen


def optional_distributions() -> set[str]:
    """Distributions only an extra brings: named by an extra and not needed by the base."""
    project = _project()
    base = _closure({_name(r) for r in project["dependencies"]})  # type: ignore[attr-defined]
    extras: dict[str, list[str]] = project["optional-dependencies"]  # type: ignore[assignment]
    named = {_name(r) for extra, reqs in extras.items() if extra not in DEVELOPMENT_EXTRAS for r in reqs}
    return named - base - {"statekit"}


def hidden_modules() -> list[str]:
    by_distribution: dict[str, set[str]] = {}
    for module, distributions in importlib.metadata.packages_distributions().items():
        for distribution in distributions:
            by_distribution.setdefault(_name(distribution), set()).add(module)
    return sorted({m for d in optional_distributions() for m in by_distribution.get(d, ())})


PROGRAM = textwrap.dedent("""\
    import importlib.abc, json, sys

    HIDDEN = set(json.loads(sys.argv[1]))

    class HideOptional(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in HIDDEN:
                raise ModuleNotFoundError(f"No module named {name!r} (hidden: not in the base install)", name=name)
            return None

    sys.meta_path.insert(0, HideOptional())

    import statekit
    import statekit.gate
    from statekit.gate import Gate, MemoryStore

    machine = statekit.setup(
        guards={"hasCredit": lambda args, params: args.context["credit"] >= params["min"]},
        actions={"charge": statekit.assign(lambda args, params: {"credit": args.context["credit"] - 1})},
    ).create_machine({"id": "vending", "initial": "idle", "context": {"credit": 2}, "states": {
        "idle": {"on": {"BUY": {"target": "vending", "guard": {"type": "hasCredit", "params": {"min": 1}},
                                "actions": "charge"}}},
        "vending": {"on": {"DONE": "idle"}}}})
    snapshot, _actions = statekit.initial_transition(machine)
    snapshot, _actions = statekit.transition(machine, snapshot, {"type": "BUY"})
    assert (snapshot.value, snapshot.context) == ("vending", {"credit": 1}), snapshot

    from statekit.engine.sandbox import JsSandbox  # inline JavaScript runs in the base install too

    doubled = JsSandbox().evaluate("({context}) => context.n * 2", {"context": {"n": 21}, "event": {}}, None)
    assert doubled == 42, doubled

    gate = Gate({"id": "flow", "initial": "a", "states": {"a": {"on": {"GO": "b"}}, "b": {}}}, store=MemoryStore())

    @gate.tool(description="Go on.", bind="a", on_success="GO")
    async def go(arguments, call):
        return "went"

    assert gate.needs_handle("go") is False

    loaded = sorted({m.split(".")[0] for m in sys.modules} & HIDDEN)
    print(json.dumps({"loaded_hidden": loaded, "value": snapshot.value}))
    """)


def test_only_the_redis_store_is_an_extra() -> None:
    """The split that saved 7 packages and broke the CLI is gone: nothing a command needs is optional."""
    assert optional_distributions() == {"redis"}
    base = _closure({_name(r) for r in _project()["dependencies"]})  # type: ignore[attr-defined]
    assert {"pyyaml", "defusedxml", "tree-sitter", "graphviz-pure", "pathspec", "jsonschema", "mcp"} <= base


def run_hidden(program: str) -> subprocess.CompletedProcess[str]:
    hider = PROGRAM.split("import statekit\n", 1)[0]
    return subprocess.run([sys.executable, "-c", hider + program, json.dumps(hidden_modules())], capture_output=True,
                          text=True, timeout=300, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT / "src")})


def test_statekit_and_the_gate_import_and_run_on_the_base_install() -> None:
    hidden = hidden_modules()
    assert "redis" in hidden, hidden
    result = run_hidden("import statekit\n" + PROGRAM.split("import statekit\n", 1)[1])
    assert result.returncode == 0, result.stderr
    outcome = json.loads(result.stdout.strip().splitlines()[-1])
    assert outcome == {"loaded_hidden": [], "value": "vending"}


CLI_PROGRAM = textwrap.dedent("""\
    import contextlib, io
    from statekit import tools
    from statekit.cli import build_parser, command_families, main

    def exits(argv):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            try:
                code = main(argv)
            except SystemExit as stop:
                code = stop.code
        return code, out.getvalue()

    assert exits(["--help"])[0] == 0
    commands = sorted(build_parser()._subparsers._group_actions[0].choices)
    for command in commands:
        assert exits([command, "--help"])[0] == 0, command
    assert exits(["tools"])[1].count("\\n") == len(tools.tools())
    assert tools.call("validate_machine", {"machine": "initial: a\\nstates: {a: {}}\\n"})["ok"] is True
    found = tools.call("extract_machines_from_code", {"code": "createMachine({initial: 'a', states: {a: {}}})"})
    assert len(found["machines"]) == 1, found
    assert tools.call("convert_machine", {"machine": {"initial": "a", "states": {"a": {}}}, "to": "scxml"})["content"]
    assert tools.call("visualize_machine", {"machine": {"initial": "a", "states": {"a": {}}}})
    print(json.dumps({"commands": commands, "loaded_hidden": sorted({m.split(".")[0] for m in sys.modules} & HIDDEN)}))
    """)


def test_every_command_and_the_tools_work_on_the_base_install() -> None:
    result = run_hidden(CLI_PROGRAM)
    assert result.returncode == 0, result.stderr
    outcome = json.loads(result.stdout.strip().splitlines()[-1])
    assert {"call", "convert", "extract", "serve", "validate"} <= set(outcome["commands"])
    assert outcome["loaded_hidden"] == []


def test_the_redis_store_without_its_package_names_the_extra(tmp_path: Path) -> None:
    workflow = tmp_path / "flow.json"
    workflow.write_text(json.dumps({"id": "flow", "initial": "a", "states": {"a": {}}}))
    program = ("from statekit.cli import main\n"
               f"sys.exit(main(['gate', 'list', '--store', 'redis://127.0.0.1:1/0', '--workflow', {str(workflow)!r}]))\n")
    result = run_hidden(program)
    assert result.returncode == 2, result.stderr
    assert "pip install 'statekit[redis]'" in result.stderr, result.stderr
    assert "Traceback" not in result.stderr
