"""XState v5 machine configs as plain data: a dict, or JSON or YAML text of one.

This format is the model's own config form, so it is lossless both ways by construction
(`parse_machine` / `machine_to_config`). The only things that cannot be written as data are
Python callables a machine built in Python may hold (context or output factories, assignment
functions); each becomes a warning and is written as `null`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import yaml

from statekit.errors import ToolError
from statekit.formats import FormatWarning, Source, register_format, warning
from statekit.formats.documents import load_config_document, load_text, parse_config_model
from statekit.model import MachineModel, machine_to_config

#: Keys that make a mapping look like a machine config rather than some other JSON.
_CONFIG_KEYS = frozenset({"states", "initial", "on", "always", "after", "invoke", "entry", "context", "machine"})


def read(value: Any) -> tuple[MachineModel, list[FormatWarning]]:
    """Parse a config object or JSON / YAML text into the model."""
    return parse_config_model(load_config_document(value)), []


def write(model: MachineModel) -> tuple[str | dict[str, Any], list[FormatWarning]]:
    """The XState config of the model; callables become `null` with a warning."""
    warnings: list[FormatWarning] = []
    return to_plain_data(machine_to_config(model), "", warnings), warnings


def to_plain_data(value: Any, path: str, warnings: list[FormatWarning]) -> Any:
    """`value` as JSON data; Python callables become null with a `not_serializable` warning."""
    if isinstance(value, Mapping):
        return {str(k): to_plain_data(v, f"{path}.{k}" if path else str(k), warnings) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_plain_data(item, f"{path}[{i}]", warnings) for i, item in enumerate(value)]
    if value is None or isinstance(value, str | int | float | bool):
        return value
    name = getattr(value, "__qualname__", type(value).__name__)
    warnings.append(warning("not_serializable", f"{name} is Python code, not data; written as null", path))
    return None


def detect(source: Source) -> float:
    """Any JSON object could be a config (a fallback guess); config keys make it likely."""
    data = source.data
    if data is None and source.text is not None:
        text = source.stripped
        if not text or text.startswith("<"):
            return 0.0
        try:
            data = source.document  # parsed once: the reader gets the same data
        except ToolError:
            return 0.0
        if not isinstance(data, Mapping):
            return 0.0
        return 0.3 if _CONFIG_KEYS & set(map(str, data)) else 0.0
    if not isinstance(data, Mapping):
        return 0.0
    return 0.3 if _CONFIG_KEYS & set(map(str, data)) else 0.1


def write_yaml(model: MachineModel) -> tuple[str | dict[str, Any], list[FormatWarning]]:
    """The XState config as YAML text (block style, keys in the config's order)."""
    config, warnings = write(model)
    text: str = yaml.safe_dump(config, sort_keys=False, allow_unicode=True, default_flow_style=False)
    try:
        exact = load_text(text) == config
    except ToolError:
        exact = False
    if not exact:  # characters YAML reads as line breaks (NEL, LS, PS) must be escaped
        text = yaml.safe_dump(config, sort_keys=False, allow_unicode=False, default_flow_style=False)
    return text, warnings


register_format(
    "xstate",
    read=read,
    write=write,
    detect=detect,
    aliases=("xstate-json", "json", "xstate-config"),
    media_type="application/json",
    description="XState v5 machine config (JSON object; JSON or YAML text when read)",
    title="XState JSON",
    reads_document=True,
)

# The same config as YAML text. Reading YAML needs no format of its own (the `xstate` reader
# takes YAML text), but `from: "yaml"` reads it too; detection leaves YAML to `xstate`.
register_format(
    "yaml",
    read=read,
    write=write_yaml,
    aliases=("xstate-yaml", "yml"),
    media_type="application/yaml",
    description="XState v5 machine config as YAML text",
    title="XState YAML",
    reads_document=True,
)
