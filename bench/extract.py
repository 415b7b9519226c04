"""Static extraction: statekit against @xstate/machine-extractor, and the statelyai/xstate examples.

    python bench/extract.py                      # speed on a generated 2,000-line TypeScript file
    python bench/extract.py --lines 2000 --rounds 5 --repeats 10
    python bench/extract.py --examples /work/.mirror/statelyai+xstate/repo

Speed: one TypeScript file of about `--lines` lines is generated deterministically (machines in
the styles real code uses: `setup({...})` with named guards / actions / actors / delays, inline
arrows, `assign`, `after`, `invoke`, nested states). Each side extracts every machine config
from the text in its own process, timed in process (no start-up):

- statekit: `statekit.extract.extract_machines(text)` (tree-sitter parse, walk, configs).
- @xstate/machine-extractor 0.16.0 (babel) in node: `extractMachinesFromFile(text)` and
  `toConfig()` of each machine (tests/oracle/extract/machine-extractor/bench.cjs).

The two alternate within each round; the best run over all rounds is reported, with the ratio
statekit / extractor (below 1: statekit is faster). Both must find every machine.

Examples: every `createMachine` in the `examples/` folder of a statelyai/xstate checkout
(read with `git show`, copied to a temporary directory, never into this repository) is
extracted, and each config is compared with what XState 5.33.3 builds from the same file in
node (tests/oracle/extract/machine_configs.mjs), code normalised through TypeScript's
transpiler. Every miss is listed with its reason.
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "extract"))
# extract_oracle imports tests/needs.py as `needs`.
sys.path.insert(0, str(ROOT / "tests"))
EXTRACTOR_DIR = ROOT / "tests" / "oracle" / "extract" / "machine-extractor"
SOURCE_SUFFIXES = (".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs")

from extract_oracle import first_difference, node_machine_configs, normalize_codes  # noqa: E402

from statekit.extract import extract_machines  # noqa: E402


def generate_source(lines: int) -> str:
    """A deterministic TypeScript file of about `lines` lines, one machine after another."""
    out = ["import { setup, createMachine, assign, fromPromise } from 'xstate';", ""]
    index = 0
    while len(out) < lines:
        n = index
        if index % 2 == 0:
            out += [
                f"export const fetch{n}Machine = setup({{",
                "  guards: {",
                f"    canRetry{n}: ({{ context }}) => context.retries < {3 + n % 5},",
                "  },",
                "  actions: {",
                f"    log{n}: ({{ event }}) => console.log('event', event.type),",
                f"    bump{n}: assign({{ retries: ({{ context }}) => context.retries + 1 }}),",
                "  },",
                "  actors: {",
                f"    load{n}: fromPromise(async ({{ input }}: {{ input: {{ id: string }} }}) => ({{ id: input.id }})),",
                "  },",
                f"  delays: {{ timeout{n}: {1000 + n} }},",
                "}).createMachine({",
                f"  id: 'fetch{n}',",
                "  initial: 'idle',",
                "  context: { retries: 0, data: null },",
                "  states: {",
                "    idle: { on: { FETCH: 'loading' } },",
                "    loading: {",
                f"      invoke: {{ src: 'load{n}', input: () => ({{ id: '{n}' }}), onDone: {{ target: 'success', actions: 'log{n}' }}, onError: 'failure' }},",
                f"      after: {{ timeout{n}: 'failure' }},",
                "    },",
                "    success: { type: 'final' },",
                "    failure: {",
                "      on: {",
                f"        RETRY: {{ target: 'loading', guard: 'canRetry{n}', actions: ['bump{n}', 'log{n}'] }},",
                "      },",
                "    },",
                "  },",
                "});",
                "",
            ]
        else:
            out += [
                f"export const toggle{n}Machine = createMachine({{",
                f"  id: 'toggle{n}',",
                "  initial: 'off',",
                "  context: { count: 0 },",
                "  states: {",
                "    off: {",
                "      entry: () => console.log('off'),",
                "      on: { TOGGLE: { target: 'on', actions: assign({ count: ({ context }) => context.count + 1 }) } },",
                "    },",
                "    on: {",
                "      initial: 'low',",
                "      states: {",
                "        low: { on: { UP: 'high' } },",
                "        high: { on: { DOWN: 'low' }, after: { 5000: 'low' } },",
                "      },",
                "      on: { TOGGLE: 'off' },",
                "    },",
                "  },",
                "});",
                "",
            ]
        index += 1
    return "\n".join(out) + "\n"


def _statekit_once(text: str) -> tuple[float, int]:
    start = time.perf_counter()
    result = extract_machines(text, "bench.ts")
    elapsed = time.perf_counter() - start
    if result["errors"]:
        raise SystemExit(f"statekit reported errors on the generated file: {result['errors'][:3]}")
    return elapsed, len(result["machines"])


def _extractor_once(path: Path, repeats: int) -> tuple[list[float], int]:
    completed = subprocess.run(
        ["node", str(EXTRACTOR_DIR / "bench.cjs"), str(path), str(repeats)],
        capture_output=True, text=True, check=True, timeout=600, cwd=EXTRACTOR_DIR,
    )
    data = json.loads(completed.stdout)
    return [float(s) for s in data["seconds"]], int(data["machines"])


def bench_speed(lines: int, rounds: int, repeats: int) -> int:
    text = generate_source(lines)
    line_count = text.count("\n")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.ts"
        path.write_text(text, encoding="utf-8")
        ours: list[float] = []
        theirs: list[float] = []
        ours_found = theirs_found = 0
        for _ in range(rounds):
            for _ in range(repeats):
                elapsed, ours_found = _statekit_once(text)
                ours.append(elapsed)
            seconds, theirs_found = _extractor_once(path, repeats)
            theirs.extend(seconds)
    expected = text.count("createMachine(")
    best_ours, best_theirs = min(ours), min(theirs)
    print(f"Generated file: {line_count} lines, {len(text.encode())} bytes, {expected} machines; "
          f"{rounds} rounds x {repeats} runs per side; {platform.python_implementation()} {platform.python_version()}")
    print()
    print("| extractor | machines found | best (ms) | median (ms) |")
    print("|---|---:|---:|---:|")
    print(f"| statekit (tree-sitter) | {ours_found} | {best_ours * 1000:.1f} | {sorted(ours)[len(ours) // 2] * 1000:.1f} |")
    print(f"| @xstate/machine-extractor 0.16.0 (node) | {theirs_found} | {best_theirs * 1000:.1f} | "
          f"{sorted(theirs)[len(theirs) // 2] * 1000:.1f} |")
    print()
    print(f"Ratio statekit / extractor (best): {best_ours / best_theirs:.2f}")
    return 0 if ours_found == expected == theirs_found else 1


def _example_files(repo: Path, into: Path) -> list[Path]:
    listed = subprocess.run(["git", "-C", str(repo), "grep", "-l", "createMachine", "HEAD", "--", "examples"],
                            capture_output=True, text=True, check=True).stdout.split()
    files = []
    for entry in listed:
        name = entry.removeprefix("HEAD:")
        if not name.endswith(SOURCE_SUFFIXES):
            continue
        content = subprocess.run(["git", "-C", str(repo), "show", f"HEAD:{name}"], capture_output=True,
                                 text=True, check=True).stdout
        target = into / name.replace("/", "__")
        target.write_text(content, encoding="utf-8")
        files.append(target)
    return files


def _miss_reason(config: Any, expected: Any) -> str:
    difference = first_difference(config, expected) or ""
    return difference[:300]


def bench_examples(repo: Path) -> int:
    commit = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True,
                            check=True).stdout.strip()
    with tempfile.TemporaryDirectory() as tmp:
        files = _example_files(repo, Path(tmp))
        node = node_machine_configs(files)
        extracted = {f.name: extract_machines(f.read_text(encoding="utf-8"), f.name) for f in files}
        normalized = normalize_codes({name: [m["config"] for m in r["machines"]] for name, r in extracted.items()})
        total = equal = with_errors = 0
        misses: list[str] = []
        for f in files:
            name = f.name.replace("__", "/")
            result = extracted[f.name]
            expected = node[str(f.resolve())]
            ours = normalized[f.name]
            total += len(ours)
            if result["errors"]:
                with_errors += len(ours)
                misses.append(f"{name}: extraction errors {result['errors'][:3]}")
            if "error" in expected:
                misses.append(f"{name}: node could not run the file ({expected['error'][:200]})")
                continue
            theirs = expected["machines"]
            if len(theirs) != len(ours):
                misses.append(f"{name}: statekit found {len(ours)} machine(s), XState built {len(theirs)}")
            for index, (mine, reference) in enumerate(zip(ours, theirs, strict=False)):
                if first_difference(mine, reference) is None:
                    equal += 1
                else:
                    misses.append(f"{name} machine {index + 1} ({result['machines'][index]['name']}): "
                                  f"{_miss_reason(mine, reference)}")
    print(f"statelyai/xstate examples at {commit[:12]}: {len(files)} files, {total} createMachine calls extracted, "
          f"{with_errors} with extraction errors; {equal}/{total} configs equal to XState's "
          f"({100 * equal / max(total, 1):.1f}%).")
    for miss in misses:
        print(f"- {miss}")
    return 0 if total and with_errors == 0 and equal / total >= 0.9 else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lines", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--examples", type=Path, help="a statelyai/xstate git checkout: measure its examples instead")
    args = parser.parse_args()
    if args.examples is not None:
        return bench_examples(args.examples)
    return bench_speed(args.lines, args.rounds, args.repeats)


if __name__ == "__main__":
    raise SystemExit(main())
