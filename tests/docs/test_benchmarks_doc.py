"""Every `python bench/...` command in BENCHMARKS.md names a bench script and flags it accepts.

The flags are read from each script's own argparse calls (its AST, so a script whose optional
dependencies are missing, such as bench/server.py without httpx, is still checked): a renamed or
removed script or flag makes this fail instead of leaving a command in the page that no longer
runs.
"""

from __future__ import annotations

import ast
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "BENCHMARKS.md"
# A command runs to the end of its inline code span, its line, or a shell comment.
COMMAND = re.compile(r"python (bench/[\w./-]+\.py)([^`\n#]*)")
VALUELESS_ACTIONS = {"store_true", "store_false", "count", "help", "version"}


@dataclass
class Option:
    takes_value: bool
    value_optional: bool  # nargs="?": the next token is its value only if it is not an option
    value_type: str | None  # "int" or "float" when argparse converts the value


@dataclass
class ScriptOptions:
    options: dict[str, Option] = field(default_factory=dict)
    positionals: int = 0


def script_options(script: Path) -> ScriptOptions:
    """The options every `add_argument` call in the script defines."""
    found = ScriptOptions(
        options={"-h": Option(False, False, None), "--help": Option(False, False, None)}
    )
    for node in ast.walk(ast.parse(script.read_text(encoding="utf-8"))):
        # A switch read before argparse (`"--fastmcp" in sys.argv[1:]`) is a valueless flag.
        if (
            isinstance(node, ast.Compare)
            and isinstance(node.left, ast.Constant)
            and isinstance(node.left.value, str)
            and node.left.value.startswith("--")
            and any(isinstance(op, ast.In) for op in node.ops)
        ):
            found.options[node.left.value] = Option(False, False, None)
            continue
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "add_argument"
        ):
            continue
        names = [
            a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)
        ]
        keywords = {k.arg: k.value for k in node.keywords if k.arg}
        action = keywords.get("action")
        action_name = action.value if isinstance(action, ast.Constant) else None
        converter = keywords.get("type")
        value_type = (
            converter.id
            if isinstance(converter, ast.Name) and converter.id in ("int", "float")
            else None
        )
        nargs = keywords.get("nargs")
        optional = isinstance(nargs, ast.Constant) and nargs.value == "?"
        option = Option(action_name not in VALUELESS_ACTIONS, optional, value_type)
        if names and not names[0].startswith("-"):
            found.positionals += 1
        for name in names:
            if name.startswith("-"):
                found.options[name] = option
    return found


def command_errors(script_path: str, arguments: str) -> list[str]:
    """What is wrong with `python SCRIPT_PATH ARGUMENTS` against the script's argparse."""
    script = ROOT / script_path
    if not script.is_file():
        return [f"{script_path} does not exist"]
    known = script_options(script)
    errors = []
    tokens = shlex.split(arguments)
    positionals = 0
    index = 0
    while index < len(tokens):
        token = tokens[index]
        index += 1
        if not token.startswith("-"):
            positionals += 1
            continue
        name, has_inline_value, inline_value = token.partition("=")
        option = known.options.get(name)
        if option is None:
            errors.append(f"{script_path}: no option {name}")
            continue
        if not option.takes_value:
            if has_inline_value:
                errors.append(f"{script_path}: {name} takes no value")
            continue
        if has_inline_value:
            value: str | None = inline_value
        elif option.value_optional and (index >= len(tokens) or tokens[index].startswith("-")):
            continue
        elif index < len(tokens):
            value = tokens[index]
            index += 1
        else:
            value = None
        if value is None:
            errors.append(f"{script_path}: {name} needs a value")
        elif option.value_type is not None:
            try:
                {"int": int, "float": float}[option.value_type](value)
            except ValueError:
                errors.append(f"{script_path}: {name} takes an {option.value_type}, not {value!r}")
    if positionals > known.positionals:
        errors.append(f"{script_path}: unexpected arguments in {arguments.strip()!r}")
    return errors


def page_commands() -> list[tuple[str, str]]:
    return [(m.group(1), m.group(2)) for m in COMMAND.finditer(PAGE.read_text(encoding="utf-8"))]


def heading_anchor(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_links_into_the_page_name_its_headings() -> None:
    anchors = {
        heading_anchor(line.lstrip("#"))
        for line in PAGE.read_text(encoding="utf-8").splitlines()
        if line.startswith("#")
    }
    documents = [ROOT / "README.md", *ROOT.glob("docs/**/*.md"), *ROOT.glob("tests/**/*.md")]
    links = [
        (document.name, anchor)
        for document in documents
        for anchor in re.findall(r"BENCHMARKS\.md#([\w-]+)", document.read_text(encoding="utf-8"))
    ]
    assert [link for link in links if link[1] not in anchors] == []


def test_the_page_names_bench_commands() -> None:
    # Guards the regular expression: a page whose commands it stopped matching would pass below.
    scripts = {script for script, _ in page_commands()}
    assert len(scripts) >= 10, scripts


@pytest.mark.parametrize(("script", "arguments"), sorted(set(page_commands())))
def test_each_command_runs_as_written(script: str, arguments: str) -> None:
    assert command_errors(script, arguments) == []


@pytest.mark.parametrize(
    ("script", "arguments", "expected"),
    [
        ("bench/no_such_bench.py", "", "does not exist"),
        ("bench/engine.py", "--peer statekit-actor", "no option --peer"),
        ("bench/engine.py", "--events many", "takes an int"),
        ("bench/engine.py", "--machines", "needs a value"),
        ("bench/engine.py", "flat", "unexpected arguments"),
        ("bench/scxml_suite.py", "--optional=yes", "takes no value"),
    ],
)
def test_a_broken_command_is_caught(script: str, arguments: str, expected: str) -> None:
    errors = command_errors(script, arguments)
    assert any(expected in error for error in errors), errors


def test_valid_flags_pass() -> None:
    assert command_errors("bench/engine.py", "--events 100000 --seconds 5 --machines wide") == []
    assert command_errors("bench/scxml_suite.py", "--optional --rounds=3") == []
    assert command_errors("bench/gate_overhead.py", "--fastmcp --calls 1000") == []
