"""Every tool on real machines nobody here wrote: XState machines from a public repository.

    python bench/realworld.py                                    # statelyai/xstate examples/
    python bench/realworld.py --repo /work/.mirror/OWNER+NAME/repo --under src

The files are read from a git checkout or bare mirror (brought here with the `fetch` tool;
the corpus stays out of this repository) with `git show`, never copied. Every `createMachine`
in a .js/.jsx/.ts/.tsx file under `--under` is extracted statically, and its config goes
through validate_machine, simulate_machine (no events), generate_graph_paths (shortest) and
convert_machine to SCXML, Mermaid and D2 (each written document read back). The table counts,
per tool, the answers, the refusals (invalid_input) and the internal errors; for paths also
how many answered natively, structurally (inline code that cannot run) and truncated.
Markdown goes to stdout; exit status 1 if any tool raised an internal error.
"""

from __future__ import annotations

import argparse
import collections
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

DEFAULT_REPO = Path("/work/.mirror/statelyai+xstate/repo")
SOURCE_SUFFIXES = (".js", ".jsx", ".ts", ".tsx")


def source_files(repo: Path, under: str, suffixes: tuple[str, ...] = SOURCE_SUFFIXES) -> list[tuple[str, str]]:
    """(path, text) of every source file (`suffixes`, no .d.ts) under `under` at HEAD that mentions createMachine."""
    listing = subprocess.run(["git", "-C", str(repo), "ls-tree", "-r", "--name-only", "HEAD", "--", under],
                             capture_output=True, text=True, check=True).stdout.split("\n")
    files = []
    for path in listing:
        if not path.endswith(suffixes) or path.endswith(".d.ts") or "node_modules/" in path:
            continue
        text = subprocess.run(["git", "-C", str(repo), "show", f"HEAD:{path}"], capture_output=True, text=True,
                              check=True).stdout
        if "createMachine" in text:
            files.append((path, text))
    return files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--repo", type=Path, default=DEFAULT_REPO)
    parser.add_argument("--under", default="examples")
    args = parser.parse_args(argv)
    from statekit.errors import ToolError
    from statekit.extract import extract_machines
    from statekit.formats import read_any
    from statekit.tools import call

    outcomes: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    problems: list[str] = []
    files = source_files(args.repo, args.under)
    machines = 0
    started = time.perf_counter()
    for path, text in files:
        for machine in extract_machines(text, Path(path).name)["machines"]:
            machines += 1
            config = machine["config"]
            runs: list[tuple[str, str, dict[str, Any]]] = [
                ("validate_machine", "validate_machine", {"machine": config}),
                ("simulate_machine", "simulate_machine", {"machine": config, "events": []}),
                ("generate_graph_paths", "generate_graph_paths", {"machine": config, "algorithm": "shortest"}),
                *((f"convert_machine to {target}", "convert_machine", {"machine": config, "to": target})
                  for target in ("scxml", "mermaid", "d2")),
            ]
            for label, tool, arguments in runs:
                try:
                    result = call(tool, arguments)
                except ToolError as error:
                    outcomes[label][error.code] += 1
                    problems.append(f"{path} {machine['name']} {label}: {error.code}: {error.message[:160]}")
                    continue
                except Exception as error:  # an unexpected exception is what this counts
                    outcomes[label]["uncaught"] += 1
                    problems.append(f"{path} {machine['name']} {label}: uncaught {type(error).__name__}: {error}")
                    continue
                outcomes[label]["answered"] += 1
                if tool == "generate_graph_paths":
                    outcomes[label][f"mode {result['normalization']['mode']}"] += 1
                    if result["truncatedReason"] not in (None, "paths"):
                        outcomes[label][f"truncated: {result['truncatedReason']}"] += 1
                if tool == "convert_machine":
                    try:
                        read_any(result["content"], arguments["to"])
                        outcomes[label]["read back"] += 1
                    except ToolError as error:
                        outcomes[label]["read back refused"] += 1
                        problems.append(f"{path} {machine['name']} {label} read back: {error.message[:160]}")
    seconds = time.perf_counter() - started
    head = subprocess.run(["git", "-C", str(args.repo), "log", "-1", "--format=%h %cs"], capture_output=True,
                          text=True).stdout.strip()
    print(f"{args.repo.parent.name} `{args.under}/` at {head}: {len(files)} files, {machines} machines, "
          f"{seconds:.1f} s\n")
    print("| tool | answered | details |")
    print("|---|---|---|")
    failed = False
    for label, counter in outcomes.items():
        details = ", ".join(f"{key} {count}" for key, count in sorted(counter.items()) if key != "answered")
        failed = failed or counter["internal_error"] > 0 or counter["uncaught"] > 0
        print(f"| {label} | {counter['answered']}/{machines} | {details or '-'} |")
    if problems:
        print("\n" + "\n".join(f"- {line}" for line in problems[:40]))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
