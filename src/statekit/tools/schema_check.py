"""JSON Schema checks for tool arguments and results, with messages that never echo content.

The call pipeline (`statekit.tools.registry.run_call`) checks every call's arguments and result
with these, whichever face (Python, CLI, MCP server) made the call. `jsonschema` is imported on
the first check, not at import or server start, so a server that only lists tools never pays
for it. Error messages name the location and the rule that failed, never the
offending value: a value may be a megabyte of machine source.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

#: Longest property name quoted back in a message; longer names are clipped.
_NAME_CLIP = 64
#: Most enum members or unexpected property names listed in one message.
_LIST_CLIP = 8


@dataclass(frozen=True)
class SchemaViolation:
    """Where a document breaks its schema (a JSON pointer), which keyword failed, and why."""

    pointer: str
    keyword: str
    reason: str
    #: The same rule in words naming the argument (e.g. "`machine` is required", "unknown
    #: argument `depht`; did you mean 'depth'?"), or None when `describe()` already says it.
    plain: str | None = None

    def describe(self) -> str:
        """`/path: reason`, or `(root): reason` for the document itself."""
        return f"{self.pointer or '(root)'}: {self.reason}"


class SchemaCheck:
    """A compiled validator for one schema, built on first use and reused by every call."""

    def __init__(self, schema: Mapping[str, Any]) -> None:
        self._schema = dict(schema)
        self._validator: Any = None
        self._lock = threading.Lock()

    def first_violation(self, instance: Any) -> SchemaViolation | None:
        """The most relevant violation of the schema by `instance`, or None when it conforms."""
        from jsonschema.exceptions import best_match, by_relevance

        # A misspelt argument beats the missing one it was meant to be ("did you mean ...").
        relevance = by_relevance(strong=frozenset({"additionalProperties"}))
        error = best_match(self._compiled().iter_errors(instance), key=relevance)
        if error is None:
            return None
        keyword = str(error.validator)
        path = list(error.absolute_path)
        return SchemaViolation(
            pointer="".join(f"/{_escape(part)}" for part in path),
            keyword=keyword,
            reason=_reason(keyword, error.validator_value, error.instance, error.schema),
            plain=_plain(keyword, error.validator_value, error.instance, error.schema, path),
        )

    def _compiled(self) -> Any:
        # Calls run in worker threads; compile once even when the first calls race.
        with self._lock:
            if self._validator is None:
                from jsonschema.validators import Draft202012Validator, validator_for

                validator_class = validator_for(self._schema, default=Draft202012Validator)
                self._validator = validator_class(self._schema)
            return self._validator


def check_schema(schema: Mapping[str, Any]) -> None:
    """Raise `jsonschema.SchemaError` when `schema` is not a valid JSON Schema document."""
    from jsonschema.validators import Draft202012Validator, validator_for

    validator_for(dict(schema), default=Draft202012Validator).check_schema(dict(schema))


def _escape(part: object) -> str:
    return str(part).replace("~", "~0").replace("/", "~1")


def _clip(name: object) -> str:
    text = str(name)
    return repr(text if len(text) <= _NAME_CLIP else text[:_NAME_CLIP] + "...")


def _listing(values: list[Any]) -> str:
    shown = ", ".join(json.dumps(value)[:_NAME_CLIP] for value in values[:_LIST_CLIP])
    return shown + (", ..." if len(values) > _LIST_CLIP else "")


#: JSON Schema type names in the words a caller reads; `string` needs no gloss.
_TYPE_WORDS = {
    "boolean": "true or false",
    "array": "a list",
    "object": "an object",
    "integer": "an integer",
    "number": "a number",
    "null": "null",
}


def _argument(path: list[Any]) -> str:
    """`patches[0].op` for the path ['patches', 0, 'op'] (clipped like every quoted name)."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text if len(text) <= _NAME_CLIP else text[:_NAME_CLIP] + "..."


def _plain(
    keyword: str, rule: Any, instance: Any, schema: Mapping[str, Any], path: list[Any]
) -> str | None:
    where = _argument(path)
    if keyword == "required" and isinstance(instance, Mapping):
        missing = [str(name) for name in rule if name not in instance]
        prefix = f"{where}." if where else ""
        return " and ".join(f"`{prefix}{_argument([name])}`" for name in missing) + (
            " is required" if len(missing) == 1 else " are required"
        )
    if keyword == "additionalProperties" and isinstance(instance, Mapping):
        declared = [str(name) for name in schema.get("properties", {})]
        extra = [str(name) for name in instance if name not in declared]
        if not extra or "patternProperties" in schema:
            return None
        from statekit.analysis.patch_catalog import did_you_mean

        first = _argument([extra[0]])
        owner = "unknown argument" if not where else f"`{where}` has no property"
        more = f" (and {len(extra) - 1} more)" if len(extra) > 1 else ""
        return f"{owner} `{first}`{more}{did_you_mean(extra[0][:_NAME_CLIP], declared)}"
    if keyword == "type" and where and isinstance(rule, str) and rule in _TYPE_WORDS:
        return f"`{where}` must be {_TYPE_WORDS[rule]}"
    return None


def _reason(keyword: str, rule: Any, instance: Any, schema: Mapping[str, Any]) -> str:
    if keyword == "type":
        kinds = rule if isinstance(rule, list) else [rule]
        return f"must be of type {' or '.join(str(kind) for kind in kinds)}"
    if keyword == "required" and isinstance(instance, Mapping):
        missing = [name for name in rule if name not in instance]
        return "missing required property " + ", ".join(_clip(name) for name in missing)
    if keyword == "additionalProperties" and isinstance(instance, Mapping):
        declared = schema.get("properties", {})
        extra = [name for name in instance if name not in declared]
        if extra and "patternProperties" not in schema:
            names = ", ".join(_clip(name) for name in extra[:_LIST_CLIP])
            return "unexpected property " + names + (", ..." if len(extra) > _LIST_CLIP else "")
        return "has properties the schema does not allow"
    if keyword == "enum" and isinstance(rule, list):
        return f"must be one of {_listing(rule)}"
    if keyword == "const":
        return f"must equal {json.dumps(rule)[:_NAME_CLIP]}"
    if keyword == "pattern":
        return f"must match the pattern {str(rule)[:_NAME_CLIP]!r}"
    if keyword in ("anyOf", "oneOf"):
        return (
            "does not match any of the allowed shapes"
            if keyword == "anyOf"
            else "must match exactly one allowed shape"
        )
    if keyword == "not":
        return "matches a shape the schema forbids"
    if isinstance(rule, int | float) and not isinstance(rule, bool):
        return f"violates {keyword} {rule}"
    return f"violates the {keyword!r} rule"
