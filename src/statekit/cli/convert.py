"""`statekit convert` and `statekit extract`: convert_machine and extract_machines_from_code on files."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from statekit.cli._input import read_source
from statekit.errors import ToolError


def _cmd_convert(args: argparse.Namespace) -> int:
    from statekit import tools

    arguments: dict[str, Any] = {"machine": read_source(args.file), "to": args.to}
    if args.from_format:
        arguments["from"] = args.from_format
    result = tools.call("convert_machine", arguments)
    if args.json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
        return 0
    content = result["content"]
    text = content if isinstance(content, str) else json.dumps(content, indent=2, ensure_ascii=False) + "\n"
    for warning in result["warnings"]:
        where = f" at {warning['path']}" if warning["path"] else ""
        print(f"warning {warning['code']}{where}: {warning['message']}", file=sys.stderr)
    if args.output:
        try:
            Path(args.output).write_text(text, encoding="utf-8")
        except OSError as error:
            raise ToolError("invalid_input", f"cannot write {args.output}: {error.strerror}") from None
        print(f"wrote {args.output} ({result['format']})", file=sys.stderr)
    else:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return 0


def _cmd_extract(args: argparse.Namespace) -> int:
    from statekit import tools

    arguments: dict[str, Any] = {"code": read_source(args.file)}
    if args.file != "-":
        arguments["filename"] = Path(args.file).name
    elif args.filename:
        arguments["filename"] = args.filename
    if args.xstate_version is not None:
        arguments["xstateVersion"] = args.xstate_version
    result = tools.call("extract_machines_from_code", arguments)
    if args.json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
    else:
        spec = tools.get("extract_machines_from_code")
        assert spec.summarize is not None
        print(spec.summarize(result))
    return 1 if result["errors"] or not result["machines"] else 0


def add_commands(sub: Any) -> None:
    """Add `statekit convert FILE --to FORMAT` and `statekit extract FILE`."""
    convert = sub.add_parser(
        "convert", help="convert a machine file to another format (XState JSON/YAML/TS, SCXML, XGraph, Mermaid, D2)",
        description="Convert a machine file ('-' reads stdin); the source format is detected unless --from "
        "names it. What the target cannot express is listed as warnings on stderr.")
    convert.add_argument("file", help="machine file, or - for stdin")
    convert.add_argument("--to", required=True, metavar="FORMAT",
                         help="target format: xstate-json, xstate-yaml, xstate-ts, scxml, xgraph, mermaid, d2, ...")
    convert.add_argument("--from", dest="from_format", metavar="FORMAT", help="source format (default: detected)")
    convert.add_argument("-o", "--output", help="write the converted machine here instead of stdout")
    convert.add_argument("--json", action="store_true", help="print the structured result")
    convert.set_defaults(handler=_cmd_convert)

    extract = sub.add_parser(
        "extract", help="find the XState machines in a JavaScript or TypeScript file (read, never run)",
        description="Extract XState machines from source code statically; exit 1 when it has errors or none.")
    extract.add_argument("file", help="a .ts, .tsx, .js or .jsx file, or - for stdin")
    extract.add_argument("--filename", help="with -: the file name whose extension picks the grammar")
    extract.add_argument("--xstate-version", choices=("5", "6"), help="override the inferred XState major version")
    extract.add_argument("--json", action="store_true", help="print the structured result")
    extract.set_defaults(handler=_cmd_extract)
