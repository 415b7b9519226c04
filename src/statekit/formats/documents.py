"""Loading machine documents: JSON or YAML text into data, with the checks every reader relies on.

Everything here runs before a reader looks at the data and turns bad input into `invalid_input`
with a clear message: empty text, nesting deeper than `MAX_NESTING` (checked before any parser
runs: PyYAML's scanner is quadratic in flow nesting), YAML only through a safe loader with
JSON's booleans, no aliases and no non-JSON values, and no lone surrogate escapes.

`Source.document` (in `statekit.formats`) calls `load_text` once per document; detection and
the reader share its result.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

import yaml

from statekit.budget import check_budget
from statekit.errors import MachineDefinitionError, ToolError
from statekit.model import MachineModel, parse_machine

MAX_NESTING = 200


class MachineYamlLoader(yaml.SafeLoader):
    """The safe loader with YAML 1.2 booleans: only true/false.

    YAML 1.1 reads `on`, `off`, `yes` and `no` as booleans, which would turn every XState
    `on:` key and every state called `off` into `True` / `False`.

    PyYAML is pure Python and slow on big texts (40 s for 1 MiB), so the scanner checks the
    tool call's budget each time it reads more tokens: loading stops with the call.
    """

    def fetch_more_tokens(self) -> None:
        check_budget()
        super().fetch_more_tokens()


# YAML 1.1 booleans and timestamps out: machine data is JSON data, and `2024-01-01` a string.
MachineYamlLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers
            if tag not in ("tag:yaml.org,2002:bool", "tag:yaml.org,2002:timestamp")]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
MachineYamlLoader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)


def check_nesting(value: Any, limit: int = MAX_NESTING) -> None:
    """Refuse data nested deeper than `limit` (objects given as data skip the text checks)."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        current, depth = stack.pop()
        if depth > limit:
            raise ToolError("invalid_input", f"the machine nests deeper than {limit} levels")
        if isinstance(current, Mapping):
            stack.extend((item, depth + 1) for item in current.values())
        elif isinstance(current, list):
            stack.extend((item, depth + 1) for item in current)


def bracket_depth(text: str) -> int:
    """The deepest `[`/`{` nesting of a JSON or YAML flow text (quotes ignored: an upper bound)."""
    depth = deepest = 0
    for char in text:
        if char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth = max(0, depth - 1)
    return deepest


def load_text(text: str) -> Any:
    """Parse JSON, or else YAML (safe loader, no aliases: they can expand exponentially)."""
    return load_checked_text(text, None)


def load_checked_text(text: str, json_value: Any) -> Any:
    """`load_text`, reusing `json_value` when the caller already parsed `text` as JSON (not None).

    The checks still all run; only the JSON parse is skipped.
    """
    stripped = text.strip()
    if not stripped:
        raise ToolError("invalid_input", "the machine text is empty")
    if bracket_depth(stripped) > MAX_NESTING:
        # Before any parser: PyYAML's scanner is quadratic in flow nesting depth.
        raise ToolError("invalid_input", f"the machine nests deeper than {MAX_NESTING} levels")
    if json_value is not None:
        return _no_lone_surrogates(json_value, stripped)
    json_error: json.JSONDecodeError | None = None
    try:
        return _no_lone_surrogates(json.loads(stripped), stripped)
    except json.JSONDecodeError as error:
        json_error = error
    except RecursionError:
        raise ToolError("invalid_input", f"the machine nests deeper than {MAX_NESTING} levels") from None
    try:
        for event in yaml.parse(stripped, Loader=MachineYamlLoader):
            if isinstance(event, yaml.AliasEvent):
                raise ToolError("invalid_input", "YAML aliases (*name) are not accepted in machine documents")
        return _string_keys(yaml.load(stripped, Loader=MachineYamlLoader))  # a SafeLoader subclass
    except yaml.YAMLError as error:
        if stripped[0] in "{[":
            raise ToolError("invalid_input", f"invalid JSON at line {json_error.lineno}, column {json_error.colno}: "
                            f"{json_error.msg}") from None
        mark = getattr(error, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        problem = getattr(error, "problem", None) or "not valid JSON or YAML"
        raise ToolError("invalid_input", f"the machine is not valid JSON or YAML{where}: {problem}") from None
    except RecursionError:
        raise ToolError("invalid_input", f"the machine nests deeper than {MAX_NESTING} levels") from None


def _string_keys(value: Any) -> Any:
    """YAML keys such as `1000:` load as numbers; machine configs are JSON, whose keys are strings.

    Values YAML has and JSON lacks (`!!binary`, `!!set`) are refused, so results stay JSON.
    """
    if isinstance(value, dict):
        return {_key_text(k): _string_keys(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_string_keys(v) for v in value]
    if value is None or isinstance(value, str | int | float | bool):
        return value
    raise ToolError("invalid_input", f"YAML value of type {type(value).__name__} is not JSON data")


def _key_text(key: Any) -> str:
    if isinstance(key, bool):
        return "true" if key else "false"
    if key is None:
        return "null"
    return key if isinstance(key, str) else str(key)


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _no_lone_surrogates(data: Any, text: str) -> Any:
    """JSON escapes can spell half a surrogate pair, which no UTF-8 output can carry."""
    if _SURROGATE_ESCAPE.search(text):
        try:
            json.dumps(data, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            raise ToolError("invalid_input", "the machine contains a lone surrogate escape (not valid Unicode)") from None
    return data


def load_config_document(machine: Any) -> Any:
    """An XState config given as an object or JSON / YAML text, as config data."""
    if isinstance(machine, str):
        machine = load_text(machine)
    if not isinstance(machine, Mapping):
        raise ToolError("invalid_input", "`machine` must be a machine config object, or JSON or YAML text of one")
    check_nesting(machine)
    return machine


def parse_config_model(document: Any) -> MachineModel:
    """Parse config data into the model, or raise `invalid_input` naming the path."""
    try:
        return parse_machine(document)
    except MachineDefinitionError as error:
        raise ToolError(
            "invalid_input",
            f"invalid machine config: {error}",
            {"issues": [{"code": "invalid_config", "severity": "error", "message": error.message, "path": error.path}]},
        ) from None
