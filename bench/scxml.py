"""SCXML parse and write time on the W3C SCXML test corpus, statekit beside python-statemachine.

    python bench/scxml.py                   # 211 documents of shared/data/w3c-scxml/ecma
    python bench/scxml.py --rounds 9 --corpus path/to/dir

What is timed, per round, for the whole corpus (the best round is reported, and the median):

- statekit parse: SCXML text -> the canonical model (`statekit.formats.scxml_read.read_scxml`:
  defusedxml parse with DTDs refused, the SCXML -> XState mapping, `parse_machine`);
- statekit write: the model -> SCXML text (`write_scxml`; every model parsed once, before);
- statekit SCXML -> XState JSON: `convert(text, "xstate")`, i.e. parse plus the config writer;
- python-statemachine parse (peer, when installed): `statemachine.io.scxml.reader.parse_scxml`,
  SCXML text -> its `StateMachineDefinition` (its reader, no class built);
- python-statemachine load (peer): `SCXMLProcessor().parse_scxml(name, text)`, which parses
  and also builds the state machine class.

Every peer gets the same `str` documents. A document a peer refuses is counted and left out of
that peer's total; the "common" totals use only documents every measured peer accepted.
"""

from __future__ import annotations

import argparse
import gc
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from statekit.formats import convert  # noqa: E402
from statekit.formats.scxml_read import read_scxml  # noqa: E402
from statekit.formats.scxml_write import write_scxml  # noqa: E402

DEFAULT_CORPUS = ROOT.parent / "shared" / "data" / "w3c-scxml" / "ecma"


def load_corpus(directory: Path) -> dict[str, str]:
    documents: dict[str, str] = {}
    for path in sorted(directory.glob("*.scxml")):
        raw = path.read_bytes()
        encoding = "utf-16" if raw[:2] in (b"\xff\xfe", b"\xfe\xff") else "utf-8"
        try:
            documents[path.stem] = raw.decode(encoding)
        except UnicodeDecodeError:
            documents[path.stem] = raw.decode("latin-1")
    return documents


def peer_functions() -> dict[str, Callable[[str, str], Any]]:
    models: dict[str, Any] = {}
    peers: dict[str, Callable[[str, str], Any]] = {
        "statekit parse": lambda name, text: read_scxml(text),
        "statekit SCXML -> XState JSON": lambda name, text: convert(text, "xstate", "scxml"),
    }

    def write(name: str, text: str) -> Any:
        if name not in models:
            models[name] = read_scxml(text)[0]
        return write_scxml(models[name])

    peers["statekit write"] = write
    try:
        from statemachine.io.scxml.processor import SCXMLProcessor
        from statemachine.io.scxml.reader import parse_scxml
    except ImportError:
        print("python-statemachine is not installed (pip install -e '.[bench]'): peer skipped")
    else:
        peers["python-statemachine parse"] = lambda name, text: parse_scxml(text)
        peers["python-statemachine load"] = lambda name, text: SCXMLProcessor().parse_scxml(name, text)
    return peers


def accepted(function: Callable[[str, str], Any], documents: dict[str, str]) -> set[str]:
    ok: set[str] = set()
    for name, text in documents.items():
        try:
            function(name, text)
        except Exception:  # a document this peer cannot read: reported, not timed
            continue
        ok.add(name)
    return ok


def time_round(function: Callable[[str, str], Any], documents: dict[str, str], names: list[str]) -> float:
    gc.collect()
    start = time.perf_counter()
    for name in names:
        function(name, documents[name])
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    documents = load_corpus(args.corpus)
    if not documents:
        sys.exit(f"no .scxml documents in {args.corpus}")
    peers = peer_functions()
    ok = {peer: accepted(function, documents) for peer, function in peers.items()}
    common = sorted(set.intersection(*ok.values()))
    timings: dict[str, dict[str, list[float]]] = {peer: {"own": [], "common": []} for peer in peers}
    for _ in range(args.rounds):
        for peer, function in peers.items():  # interleaved, so load from elsewhere spreads evenly
            timings[peer]["own"].append(time_round(function, documents, sorted(ok[peer])))
            timings[peer]["common"].append(time_round(function, documents, common))
    total_chars = sum(len(text) for text in documents.values())
    print(f"W3C SCXML corpus: {len(documents)} documents, {total_chars:,} characters; "
          f"{len(common)} accepted by every peer. Python {platform.python_version()}, best and median of "
          f"{args.rounds} rounds.\n")
    print("| peer | documents read | all it read: best (median) | per document | common set: best (median) |")
    print("|---|---|---|---|---|")
    for peer in peers:
        own, shared = timings[peer]["own"], timings[peer]["common"]
        per_document = min(own) / max(len(ok[peer]), 1) * 1e6
        print(f"| {peer} | {len(ok[peer])}/{len(documents)} | {min(own) * 1e3:.1f} ms ({statistics.median(own) * 1e3:.1f}) "
              f"| {per_document:.0f} µs | {min(shared) * 1e3:.1f} ms ({statistics.median(shared) * 1e3:.1f}) |")
    refused = {peer: sorted(set(documents) - names) for peer, names in ok.items() if len(names) < len(documents)}
    for peer, names in refused.items():
        print(f"\n{peer} refused {len(names)}: {', '.join(names[:12])}{' ...' if len(names) > 12 else ''}")


if __name__ == "__main__":
    main()
