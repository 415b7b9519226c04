"""The base install (no extras) carries the engine and the gate.

pyproject.toml puts formats, extraction, drawing, the tools and the server behind extras. A
subprocess hides every package that only an extra brings (read from pyproject.toml, so the test
follows the dependency lists) and checks that `import statekit` and `import statekit.gate` work,
that a machine runs, and that the gate gates a tool.
"""

from __future__ import annotations

import importlib.metadata
import json
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


def test_the_extras_hide_something() -> None:
    """The split is real: formats, extraction and drawing packages are optional."""
    optional = optional_distributions()
    assert {"pyyaml", "defusedxml", "tree-sitter", "graphviz-pure", "pathspec", "redis"} <= optional, optional
    assert {"mcp", "quickjs-ng"}.isdisjoint(optional)


def test_statekit_and_the_gate_import_and_run_on_the_base_install() -> None:
    hidden = hidden_modules()
    assert "yaml" in hidden and "tree_sitter" in hidden, hidden
    result = subprocess.run([sys.executable, "-c", PROGRAM, json.dumps(hidden)], capture_output=True, text=True,
                            timeout=120, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    outcome = json.loads(result.stdout.strip().splitlines()[-1])
    assert outcome == {"loaded_hidden": [], "value": "vending"}


def test_the_command_line_names_the_missing_extra_on_the_base_install() -> None:
    hider = PROGRAM.split("import statekit\n", 1)[0]
    program = hider + "from statekit.cli import main\nsys.exit(main(['tools']))\n"
    result = subprocess.run([sys.executable, "-c", program, json.dumps(hidden_modules())], capture_output=True,
                            text=True, timeout=120, cwd=ROOT)
    assert result.returncode == 2, result.stderr
    assert "needs the optional package" in result.stderr and "statekit[server]" in result.stderr, result.stderr
    assert "Traceback" not in result.stderr
