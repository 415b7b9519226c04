"""Every tool on a larger real-world corpus, gathered outside the repository and measured.

    python bench/realworld_gather.py                          # gather into /tmp/statekit-realworld, measure
    python bench/realworld_gather.py --into DIR --repo /work/.mirror/statelyai+xstate/repo --under examples
    python bench/realworld_gather.py --no-gather --into DIR   # measure what DIR already holds

Gathering: each package of `PACKAGES` (published packages whose JavaScript ships XState v5
machines) is fetched with `npm pack NAME@VERSION` (the tarball alone: its dependencies are not
installed, the oracle stubs every import but xstate) and unpacked into `DIR/npm/`; with
`--repo`, every source file that mentions createMachine under `--under` of a git checkout or
bare mirror (brought here with the `fetch` tool) is written to `DIR/repo/` with `git show`.
Nothing is copied into this repository.

Measuring: tests/realworld/realworld_checks.py, the checks of tests/realworld/test_npm_corpus.py
(the CI corpus, a subset of this one), on every machine found: extraction against what XState
5.33.3 builds from the same file in node, every tool (extract, validate, simulate, paths,
visualize, convert to every format and back), every written document given to its real
consumer, the lossless round trips. Markdown goes to stdout: the corpus, the figures per check,
the extraction figure and every failure. Exit status 1 if a tool raised an internal error.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tarfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "realworld"))

from realworld_checks import Report, check_corpus, machine_files, package_of, table  # noqa: E402

from realworld import source_files  # noqa: E402

#: name@version, pinned. The first nine are the CI corpus (tests/realworld/package.json).
PACKAGES = (
    "@portabletext/editor@8.2.4",
    "@portabletext/toolbar@8.0.40",
    "@portabletext/plugin-emoji-picker@6.0.28",
    "@portabletext/plugin-input-rule@7.0.18",
    "@sanity/comlink@4.0.3",
    "@sanity/mutate@0.18.2",
    "@sanity/visual-editing@6.1.3",
    "@portabletext/plugin-sdk-value@7.1.5",
    "@portabletext/plugin-typeahead-picker@5.0.28",
    "sanity@6.19.0",
    "@ledgerhq/device-management-kit@1.10.0",
    "@ledgerhq/device-signer-kit-ethereum@1.18.1",
    "@ledgerhq/device-signer-kit-solana@1.13.0",
    "@ledgerhq/device-signer-kit-bitcoin@1.3.3",
    "@ledgerhq/device-signer-kit-cosmos@1.0.1",
    "@ledgerhq/device-signer-kit-hyperliquid@1.1.0",
)
REPO_SUFFIXES = (".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs")
EXTRACTION = "extraction equals XState's build"


def gather_packages(into: Path) -> None:
    """`npm pack` each package into `into/npm/NAME@VERSION/` (skipped when already there)."""
    tarballs = into / "tarballs"
    tarballs.mkdir(parents=True, exist_ok=True)
    for spec in PACKAGES:
        target = into / "npm" / spec.replace("/", "+")
        if (target / "package" / "package.json").is_file():
            continue
        done = subprocess.run(["npm", "pack", spec, "--pack-destination", str(tarballs), "--silent"],
                              capture_output=True, text=True, check=True, timeout=300)
        tarball = tarballs / done.stdout.strip().splitlines()[-1]
        target.mkdir(parents=True, exist_ok=True)
        with tarfile.open(tarball) as archive:
            archive.extractall(target, filter="data")


def gather_repository(repo: Path, under: str, into: Path) -> None:
    """Every source file under `under` at HEAD that mentions createMachine, into `into/repo/`."""
    target = into / "repo" / repo.parent.name
    head = subprocess.run(["git", "-C", str(repo), "log", "-1", "--format=%h %cs"], capture_output=True, text=True,
                          check=True).stdout.strip()
    for path, text in source_files(repo, under, REPO_SUFFIXES):
        out = target / path
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, encoding="utf-8")
    (target / "HEAD").write_text(head + "\n", encoding="utf-8")


def repository_files(into: Path) -> list[Path]:
    """The gathered repository files (they import xstate as applications do; no package.json)."""
    root = into / "repo"
    if not root.is_dir():
        return []
    return sorted(Path(folder) / name for folder, _, names in os.walk(root) for name in names
                  if name.endswith(REPO_SUFFIXES))


def describe(report: Report, files: list[Path], into: Path, seconds: float) -> str:
    by_source: dict[str, int] = {}
    for path in files:
        source = package_of(path) if (into / "npm") in path.parents else f"{path.relative_to(into / 'repo').parts[0]}"
        by_source[source] = by_source.get(source, 0) + 1
    extraction = report.counts[EXTRACTION]
    compared = extraction["equal"] + extraction["differs"]
    lines = [
        f"{report.files} files, {report.machines} machines, {seconds:.0f} s "
        f"(Python {platform.python_version()}, load average {os.getloadavg()[0]:.1f} at the end)",
        "",
        "Files per source: " + ", ".join(f"{name} {count}" for name, count in sorted(by_source.items())),
        "",
        f"**Extraction equal to XState's build: {extraction['equal']} of {compared} machines XState builds "
        f"({100 * extraction['equal'] / max(compared, 1):.1f}%)**; not compared: "
        f"{extraction['XState builds no such machine']} machines XState's loader does not build "
        f"(made inside a class method or a function that takes arguments)",
        "",
        table(report),
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--into", type=Path, default=Path("/tmp/statekit-realworld"))
    parser.add_argument("--repo", type=Path, default=Path("/work/.mirror/statelyai+xstate/repo"),
                        help="a git checkout or bare mirror to take machines from ('' for none)")
    parser.add_argument("--under", default="examples")
    parser.add_argument("--no-gather", action="store_true", help="measure what --into already holds")
    args = parser.parse_args(argv)
    into: Path = args.into.resolve()
    if ROOT in into.parents or into == ROOT:
        parser.error("the corpus stays outside the repository")
    if not args.no_gather:
        gather_packages(into)
        if str(args.repo) and args.repo.exists():
            gather_repository(args.repo, args.under, into)
    files = machine_files(into / "npm") + repository_files(into)
    started = time.perf_counter()
    report = check_corpus(files, into)
    seconds = time.perf_counter() - started
    print(describe(report, files, into, seconds))
    if report.findings:
        print("\nFailures:\n")
        print("\n".join(f"- {finding}" for finding in report.findings))
    internal = any(f.kind in ("internal_error", "uncaught") for f in report.findings)
    return 1 if internal else 0


if __name__ == "__main__":
    sys.exit(main())
