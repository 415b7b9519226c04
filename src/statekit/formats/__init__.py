"""The format layer: every machine format reads into the canonical model and writes from it.

There is no format-to-format converter: converting is `read` (source -> `MachineModel`) then
`write` (`MachineModel` -> target). Each format lives in its own module and registers itself.

How to add a format
-------------------
In `statekit/formats/<name>.py`::

    from statekit.formats import FormatWarning, Source, register_format, warning

    def read(value: Any) -> tuple[MachineModel, list[FormatWarning]]:
        ...  # raise ToolError("invalid_input", ...) on bad input; never eval/exec it

    def write(model: MachineModel) -> tuple[str | dict[str, Any], list[FormatWarning]]:
        ...  # text (str) or a JSON object; one warning per thing the format cannot express

    def detect(source: Source) -> float:
        ...  # 0.0 = not this format; higher = more certain (see the scale below)

    register_format("name", read=read, write=write, detect=detect, aliases=("other-name",))

and add the module name to `BUILTIN_FORMAT_MODULES` below (names whose module is absent are
skipped, so a format can be listed before it lands). `read` or `write` may be omitted for a
one-way format.

* `read(value)` receives the machine argument as given: text (str) or an already parsed
  object (dict). It returns `(model, warnings)`. A format of JSON / YAML data registers with
  `reads_document=True`: given text, its reader then receives the parsed data
  (`Source.document`, loaded once by `statekit.formats.documents` with its limits and checks).
* `write(model)` returns `(content, warnings)`: a str for text formats, a JSON-ready dict
  for object formats.
* Warnings are `{"code", "message", "path"}` dicts (build them with `warning(...)`); `path`
  locates the problem in the source (read) or in the model's config (write), '' for the
  whole machine. Anything a format cannot express becomes a warning: never a silent loss.
* Structure-only formats (Mermaid, D2, XGraph without semantics) fill in what they lack
  (initial states, types, events). Report each assumption as a warning whose code starts
  with `assumed_` (e.g. `assumed_initial`); `read_any` lists them in `normalization.assumed`
  so that `validate_machine` / `simulate_machine` can report what was assumed.
* `detect(source)` scores how sure it is that the source is in its format:
  `1.0` unmistakable (an `<scxml>` root, an XGraph with `nodes`/`edges`), `0.5` likely,
  `0.1` a fallback guess (any JSON object could be an XState config). The highest score wins;
  ties go to the format registered first. `Source.text` is the raw text (None when an object
  was given); `Source.data` is the JSON-parsed text or the object given (None when the text is
  not JSON); `Source.document` is the text loaded as JSON or YAML (raises `invalid_input`, once
  per source, shared with the reader). Detectors must be cheap and must not raise.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, TypedDict

from statekit.errors import ToolError
from statekit.formats.documents import load_checked_text
from statekit.model import MachineModel


class FormatWarning(TypedDict):
    """Something a reader or writer could not carry over exactly."""

    code: str
    message: str
    path: str


def warning(code: str, message: str, path: str = "") -> FormatWarning:
    """Build a warning dict."""
    return {"code": code, "message": message, "path": path}


@dataclass(frozen=True)
class Source:
    """One machine document as detectors and readers see it: built once per call (`Source.of`),
    so the text is parsed at most once however many formats look at it."""

    #: The raw text (None when an object was given).
    text: str | None
    #: The JSON-parsed text, or the object given (None when the text is not JSON).
    data: Any = None
    #: The machine argument as given (text, bytes or object); see `value`.
    given: Any = field(default=None, compare=False, repr=False)

    @classmethod
    def of(cls, value: Any) -> Source:
        """The source of a machine argument (a `Source` is returned as it is)."""
        if isinstance(value, Source):
            return value
        if isinstance(value, bytes):  # a document read from a file: only SCXML readers take bytes
            encoding = "utf-16" if value[:2] in (b"\xff\xfe", b"\xfe\xff") else "utf-8"
            return cls(text=value.decode(encoding, errors="replace"), data=None, given=value)
        if isinstance(value, str):
            stripped = value.lstrip("\ufeff").strip()
            data: Any = None
            if stripped[:1] in ("{", "["):
                try:
                    data = json.loads(stripped)
                except (ValueError, RecursionError):
                    data = None
            return cls(text=value, data=data, given=value)
        return cls(text=None, data=value, given=value)

    @property
    def value(self) -> Any:
        """The machine argument as given."""
        if self.given is not None:
            return self.given
        return self.text if self.text is not None else self.data

    @property
    def stripped(self) -> str:
        """The text without a byte-order mark and surrounding whitespace ('' for objects)."""
        return (self.text or "").lstrip("\ufeff").strip()

    @property
    def document(self) -> Any:
        """The text loaded as JSON or YAML with every check of `documents.load_text` (run once,
        its JSON parse shared with `data`), or the object given; raises `invalid_input`."""
        document, error = self._loaded
        if error is not None:
            raise error
        return document

    @cached_property
    def _loaded(self) -> tuple[Any, ToolError | None]:
        if self.text is None:
            return self.data, None
        same_text = self.text.strip() == self.stripped  # no byte-order mark: `data` parsed this text
        try:
            return load_checked_text(self.text, self.data if same_text else None), None
        except ToolError as error:
            return None, error


Reader = Callable[[Any], tuple[MachineModel, list[FormatWarning]]]
#: A reader that also gives the implementations its source defines beside the config (XState
#: source: `setup({...})`, `createMachine`'s second argument), read in the same parse.
ImplementedReader = Callable[[Any], tuple[MachineModel, list[FormatWarning], Mapping[str, Any]]]
Writer = Callable[[MachineModel], tuple["str | dict[str, Any]", list[FormatWarning]]]
Detector = Callable[[Source], float]


@dataclass(frozen=True)
class Format:
    """One registered format."""

    name: str
    read: Reader | None = None
    write: Writer | None = None
    detect: Detector | None = None
    aliases: tuple[str, ...] = ()
    #: The content type of what `write` returns, for hosts (`application/json`, `text/plain`, ...).
    media_type: str = "text/plain"
    description: str = ""
    #: `read` takes data (JSON / YAML): given text, it receives `Source.document`, parsed once.
    reads_document: bool = False
    #: `read` plus the implementations the source defines beside the config; `read_any` uses it.
    read_implemented: ImplementedReader | None = None
    #: The name people and models know the format by ("SCXML", "XState JS/TS source"): tool
    #: descriptions list the accepted formats by it (`statekit.tools.arguments`).
    title: str = ""


@dataclass(frozen=True)
class ReadOutcome:
    """What `read_any` returns: the model plus how it was read."""

    format: str
    model: MachineModel
    warnings: list[FormatWarning] = field(default_factory=list)
    #: The implementations the source defines beside the config (`{"guards": {name: {"code": ...}},
    #: "actions": ..., "delays": ..., "actors": ..., "moduleScope": ...}`; see
    #: `engine.inline.implementations_from_code`); empty for formats that have none.
    implementations: Mapping[str, Any] = field(default_factory=dict)

    @property
    def normalization(self) -> dict[str, Any]:
        """`{format, assumed: [...]}`: the source format and what the reader filled in."""
        return {"format": self.format, "assumed": [w for w in self.warnings if w["code"].startswith("assumed_")]}


#: Format modules imported on first use, in priority order for detection ties.
BUILTIN_FORMAT_MODULES: tuple[str, ...] = (
    "xstate_json",
    "scxml",
    "xgraph",
    "digraph",
    "mermaid",
    "d2",
    "xstate_ts",
)

_FORMATS: dict[str, Format] = {}
_ALIASES: dict[str, str] = {}
_LOADED = False


def register_format(
    name: str,
    *,
    read: Reader | None = None,
    write: Writer | None = None,
    detect: Detector | None = None,
    aliases: tuple[str, ...] = (),
    media_type: str = "text/plain",
    description: str = "",
    reads_document: bool = False,
    read_implemented: ImplementedReader | None = None,
    title: str = "",
) -> Format:
    """Register a format; registering the same name twice is a programming error."""
    if name in _FORMATS or name in _ALIASES:
        raise ValueError(f"format {name!r} is already registered")
    spec = Format(name, read, write, detect, aliases, media_type, description, reads_document, read_implemented,
                  title or name)
    _FORMATS[name] = spec
    for alias in aliases:
        if alias in _FORMATS or alias in _ALIASES:
            raise ValueError(f"format alias {alias!r} is already registered")
        _ALIASES[alias] = name
    return spec


def _load_builtin_formats() -> None:
    global _LOADED
    if _LOADED:
        return
    _LOADED = True
    for module in BUILTIN_FORMAT_MODULES:
        qualified = f"{__name__}.{module}"
        if importlib.util.find_spec(qualified) is not None:
            importlib.import_module(qualified)


def _priority(spec: Format) -> int:
    """Built-in formats in `BUILTIN_FORMAT_MODULES` order (detection ties), then the others."""
    function = spec.read or spec.write
    module = getattr(function, "__module__", "") or ""
    for index, name in enumerate(BUILTIN_FORMAT_MODULES):
        if module == f"{__name__}.{name}" or module.startswith(f"{__name__}.{name}_"):
            return index
    return len(BUILTIN_FORMAT_MODULES)


def formats() -> dict[str, Format]:
    """Every registered format by name: built-ins in `BUILTIN_FORMAT_MODULES` order, then others
    in registration order (whatever order the modules happened to be imported in)."""
    _load_builtin_formats()
    ordered = sorted(_FORMATS.values(), key=_priority)  # stable: registration order among equals
    return {spec.name: spec for spec in ordered}


def readable_formats() -> list[str]:
    return [name for name, spec in formats().items() if spec.read is not None]


def writable_formats() -> list[str]:
    return [name for name, spec in formats().items() if spec.write is not None]


def get_format(name: str) -> Format:
    """The format called `name` (or an alias of it), or `invalid_input` listing the known ones."""
    known = formats()
    canonical = _ALIASES.get(name.lower(), name.lower()) if isinstance(name, str) else name
    if canonical not in known:
        raise ToolError("invalid_input", f"unknown format {name!r}; known formats: {', '.join(known)}")
    return known[canonical]


def detect_format(value: Any) -> str:
    """The name of the most likely format of `value` (text or object), or `invalid_input`."""
    source = Source.of(value)
    best_name, best_score = "", 0.0
    for name, spec in formats().items():
        if spec.detect is None or spec.read is None:
            continue
        try:
            score = spec.detect(source)
        except Exception:  # a detector is a guess; one that trips on odd input just says no
            score = 0.0
        if score > best_score:
            best_name, best_score = name, score
    if not best_name:
        raise ToolError(
            "invalid_input",
            f"could not tell the machine's format; pass `from` (one of: {', '.join(readable_formats())})",
        )
    return best_name


def read_any(value: Any, from_format: str | None = None) -> ReadOutcome:
    """Read `value` (text, bytes, an object or a `Source`) in `from_format` (detected when None)
    into the model. The text is parsed once, for detection and reading alike."""
    source = Source.of(value)
    if from_format:
        name = get_format(from_format).name
    else:
        try:
            name = detect_format(source)
        except ToolError:
            if "xstate" not in formats():
                raise
            name = "xstate"  # its reader says precisely why the text is not a config
    spec = get_format(name)
    if spec.read is None:
        raise ToolError("invalid_input", f"format {name!r} cannot be read")
    given = source.value
    value = source.document if spec.reads_document and isinstance(given, str) else given
    if spec.read_implemented is not None:
        model, warnings, implementations = spec.read_implemented(value)
        return ReadOutcome(format=name, model=model, warnings=list(warnings), implementations=implementations)
    model, warnings = spec.read(value)
    return ReadOutcome(format=name, model=model, warnings=list(warnings))


def write_format(model: MachineModel, to_format: str) -> tuple[str, str | dict[str, Any], list[FormatWarning]]:
    """Write `model` in `to_format`: `(canonical format name, content, warnings)`."""
    spec = get_format(to_format)
    if spec.write is None:
        raise ToolError(
            "invalid_input",
            f"format {spec.name!r} cannot be written; writable formats: {', '.join(writable_formats())}",
        )
    content, warnings = spec.write(model)
    return spec.name, content, list(warnings)


def convert(value: Any, to_format: str, from_format: str | None = None) -> dict[str, Any]:
    """Read then write: `{format, content, warnings, from, normalization}`."""
    outcome = read_any(value, from_format)
    name, content, write_warnings = write_format(outcome.model, to_format)
    return {
        "format": name,
        "content": content,
        "warnings": [*outcome.warnings, *write_warnings],
        "from": outcome.format,
        "normalization": outcome.normalization,
    }


def extract_models(text: str) -> Iterator[tuple[MachineModel, int]]:
    """Every machine in XState source text (JS / TS) with its line; see `xstate_ts.extract_models`."""
    from statekit.formats.xstate_ts import extract_models as extract_from_source

    return extract_from_source(text)


__all__ = [
    "BUILTIN_FORMAT_MODULES",
    "Format",
    "FormatWarning",
    "ReadOutcome",
    "Source",
    "convert",
    "detect_format",
    "extract_models",
    "formats",
    "get_format",
    "read_any",
    "readable_formats",
    "register_format",
    "warning",
    "writable_formats",
    "write_format",
]
