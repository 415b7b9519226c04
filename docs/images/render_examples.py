"""Before/after drawings of real machines for docs/render.md, made reproducibly.

    python docs/images/render_examples.py                       # xstate examples, before = f2806a8
    python docs/images/render_examples.py --repo /work/.mirror/statelyai+xstate/repo --before f2806a8

The machines are XState's own examples (statelyai/xstate, `examples/`; bring the repository
here with the `fetch` tool), read with `git show`, never copied into this repository: only the
drawings are. Each machine is extracted with statekit's extractor, then drawn twice at the same
scale (72 dpi, at most 18 inches a side): "before" by the renderer of commit `--before` (its
`src/` exported to a temporary folder and run in a subprocess), "after" by this checkout's.
The script also prints what `statekit.render.collisions.label_collisions` finds in each.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "src"))

DEFAULT_REPO = Path("/work/.mirror/statelyai+xstate/repo")
#: (file in statelyai/xstate, machine name, image name, what the drawing shows)
EXAMPLES = (
    ("examples/mongodb-credit-check-api/machine.ts", "creditCheckMachine", "credit-check",
     "a parallel state of three regions"),
    ("examples/todomvc-react/src/todosMachine.ts", "todosMachine", "todos", "eight targetless transitions"),
    ("examples/trivia-game-example/src/triviaMachine.ts", "triviaMachine", "trivia",
     "nested compound states with entry actions"),
)
ENGINE_ARGS = ("-Gdpi=72", "-Gsize=18,18")

#: Run by the `--before` commit's code: DOT for the whole machine, drawn by the engine as is.
_BEFORE = """
import json, sys
from statekit.model import parse_machine
from statekit.render import find_engine, machine_dot
from statekit.render.engine import run_engine
from statekit.render.geometry import label_collisions, parse_layout
config, out, args = json.loads(sys.argv[1]), sys.argv[2], tuple(sys.argv[3:])
model = parse_machine(config)
engine = find_engine()
dot = machine_dot(model)
open(out, "wb").write(run_engine(engine, dot, "png", args))
print(len(label_collisions(parse_layout(run_engine(engine, dot, "json")))))
"""


def extract(repo: Path, path: str, name: str) -> dict[str, object]:
    from statekit.extract import extract_machines

    text = subprocess.run(["git", "-C", str(repo), "show", f"HEAD:{path}"], capture_output=True, text=True,
                          check=True).stdout
    for machine in extract_machines(text, Path(path).name)["machines"]:
        if machine["name"] == name:
            config: dict[str, object] = machine["config"]
            return config
    raise SystemExit(f"{path}: no machine named {name}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--repo", type=Path, default=DEFAULT_REPO)
    parser.add_argument("--before", default="f2806a8", help="the commit whose renderer draws 'before'")
    args = parser.parse_args(argv)
    from statekit.model import parse_machine
    from statekit.render import DrawOptions, find_engine
    from statekit.render.collisions import label_collisions
    from statekit.render.layout import lay_out

    engine = find_engine()
    if engine is None:
        raise SystemExit("no layout engine (pip install graphviz-pure)")
    with tempfile.TemporaryDirectory() as folder:
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.before, "src"], capture_output=True,
                                 check=True).stdout
        subprocess.run(["tar", "-x", "-C", folder], input=archive, check=True)
        # the old code gets the geometry reader from this checkout, so both are checked alike
        (Path(folder) / "src/statekit/render/geometry.py").write_bytes(
            (ROOT / "src/statekit/render/geometry.py").read_bytes())
        for path, name, image, what in EXAMPLES:
            config = extract(args.repo, path, name)
            before = HERE / f"render-{image}-before.png"
            found = subprocess.run(
                [sys.executable, "-c", _BEFORE, json.dumps(config), str(before), *ENGINE_ARGS],
                capture_output=True, text=True, check=True,
                env={**os.environ, "PYTHONPATH": str(Path(folder) / "src")},
            ).stdout.strip()
            drawing = lay_out(parse_machine(config), DrawOptions(), engine, ("png",), extra_args=ENGINE_ARGS)
            after = HERE / f"render-{image}-after.png"
            after.write_bytes(drawing.outputs["png"])
            layout = drawing.layout
            print(f"{image} ({what}): before {found} label collisions; after "
                  f"{len(label_collisions(layout))}, {layout.width:.0f}x{layout.height:.0f} pt")
    return 0


if __name__ == "__main__":
    sys.exit(main())
