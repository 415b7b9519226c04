"""The definition of a child machine written in place, against XState's own.

`spawnChild(createMachine({...}))` in XState puts the child machine in the action's params, and
JSON shows it as `machine.definition`. statekit's reader writes that JSON from the config it read
(`statekit.extract.definition`) without running the source. Each config below goes both ways: to
real XState (`tests/oracle/inline/definitions.mjs`, node, xstate 5.33.3) and through statekit's
reader as the child of a `spawnChild`. Where statekit renders a definition it must be XState's,
exactly; what it cannot render it must say (`$unrendered`, and simulation refuses), and the
configs it is meant to render must all render.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from needs import missing
from statekit.extract import extract_machines

INLINE_DIR = Path(__file__).resolve().parents[1] / "oracle" / "inline"
ORACLE_DIR = INLINE_DIR.parent

#: Child configs statekit renders: each must give XState's definition.
RENDERED = [
    "{}",
    "{ entry: log('hello') }",
    "{ id: 'child' }",
    "{ id: 'c', version: '1.2', description: 'the child', meta: { a: 1, f: () => 1 }, tags: ['t', 'u'] }",
    "{ context: { n: 1 }, tags: 'one' }",
    "{ id: 'c', initial: 'a', states: { a: { on: { GO: 'b' } }, b: {} } }",
    "{ initial: 'a', states: { a: { on: { GO: { target: 'b', actions: ['x', { type: 'y', params: { k: 1 } }] } } },"
    " b: { type: 'final', output: { done: true } } }, output: ({ context }) => context }",
    "{ initial: 'a', states: { a: { on: { GO: [{ target: 'b', guard: 'g' }, { target: '#other', guard: { type: 'h',"
    " params: { p: 2 } } }, { guard: ({ context }) => true, actions: () => {} }] } }, b: { id: 'other' } } }",
    "{ type: 'parallel', states: { r1: { initial: 'x', states: { x: {}, y: {} } }, r2: {} } }",
    "{ initial: 'a', states: { a: { entry: [assign({ n: 1 }), raise({ type: 'E' }), () => {}, function named() {},"
    " 'str', { type: 'obj' }], exit: [sendTo('x', { type: 'E' }), emit({ type: 'E' }), cancel('id'),"
    " stopChild('c'), enqueueActions(() => {}), sendParent({ type: 'P' })] } } }",
    "{ entry: () => {} }",
    "{ exit: function leave() {} }",
    "{ initial: 'a', states: { a: { initial: 'deep', states: { deep: { initial: 'in', states: { in: {} }, on: {"
    " UP: '#top.b', SIB: 'deeper', SELF: '.in', ID: '#top.a.deeper' } }, deeper: {} } }, b: {} }, id: 'top' }",
    "{ initial: 'a', on: { ROOT: '.b' }, states: { a: {}, b: {} } }",
    "{ initial: 'a', states: { a: { on: { T: { target: 'b', reenter: true, description: 'go', meta: { m: 1 } },"
    " U: { actions: [log('x'), assign({ k: 2 })] }, V: undefined, W: [] } }, b: {} } }",
    "{ initial: { target: 'a', actions: ['init', log('i')], description: 'start' }, states: { a: {} } }",
    "{ initial: 'h', states: { h: { type: 'history', history: 'deep', target: 'a' }, a: {}, "
    "hs: { history: true }, b: { type: 'history' } } }",
    "{ initial: 'a', states: { a: { always: [{ target: 'b', guard: 'ok' }, 'c'] }, b: {}, c: {} } }",
    "{ initial: 'a', states: { a: { initial: 'x', states: { x: { type: 'final' } }, onDone: 'b' }, b: {} } }",
    "{ initial: '2', states: { b: {}, 2: {}, a: {}, 1: {} }, on: { z: {}, 10: {}, y: {}, 3: {} } }",
    "{ initial: 'a', states: { a: { on: { '*': 'b', 'foo.*': { target: 'b' } } }, b: {} } }",
    "{ initial: 'a', states: { a: { on: { GO: { target: ['b', 'c'] } } }, b: {}, c: {} } }",
    "{ initial: 'a', states: { a: { on: { GO: { target: 'b', guard: and(['x', 'y']) } } }, b: {} } }",
    "{ initial: 'a', states: { a: { on: { GO: { target: 'b', actions: 'one', extra: [1, 'two', null] } } }, b: {} } }",
    "{ initial: 'a', states: { a: { on: { GO: { actions: [sendTo('x', ({ event }) => event), assign(({ context }) => "
    "context), raise(() => ({ type: 'R' }), { delay: 10 })], guard: not('g') }, OR: { guard: or(['a', stateIn('b')]),"
    " target: 'b' } } }, b: { on: { BACK: ['a', { target: 'a', description: 'again' }] } } } }",
    "{ initial: 'a', states: { a: { onDone: [{ target: 'b', guard: 'g' }, { target: 'b' }], initial: 'x', states: "
    "{ x: { type: 'final', output: ({ context }) => context } } }, b: { type: 'final', output: 'plain' } } }",
    "{ id: 'nest', initial: 'p', states: { p: { type: 'parallel', states: { l: { initial: 'a', states: { a: { on: "
    "{ N: '#nest.q' } } } }, r: { initial: 'a', states: { a: { entry: 'e', exit: ['x1', 'x2'] } } } } }, q: { tags: "
    "['q'], meta: { list: [1, [2, { deep: true }]] }, description: 'end' } } }",
    "{ on: { A: { target: undefined, actions: 'x' }, B: { reenter: false }, C: { reenter: null }, D: '' } }",
    "{ initial: 'a', states: { a: { entry: 'in', exit: log('out'), after: { 1000: 'b', named: [{ target: 'c', guard: 'g' },"
    " { target: 'b' }], 5: { actions: 'tick', reenter: true } }, on: { GO: 'b' } }, b: {}, c: { after: { 0: '#(machine).a' } } } }",
]
#: Child configs statekit does not render (it must say so): a fractional delay, invocations,
#: names it cannot see, escaped targets, system ids.
UNRENDERED = [
    "{ initial: 'a', states: { a: { after: { 1.5: 'b' } }, b: {} } }",
    "{ invoke: { src: 'x' } }",
    "{ entry: spawnChild('x', { systemId: 'y' }) }",
    "{ initial: 'a', states: { a: { on: { GO: 'foo\\\\.bar' } }, 'foo.bar': {} } }",
    "{ meta: { made: new Date(0) } }",
]
#: Configs XState itself refuses: statekit does not render them either.
REFUSED_BY_XSTATE = [
    "{ initial: 'missing', states: { a: {} } }",
    "{ states: { a: {} } }",
    "{ initial: 'a', states: { a: { on: { GO: 'nowhere' } } } }",
    "{ on: { GO: 'a' }, initial: 'a', states: { a: {} } }",
    "{ initial: 'a', states: { a: { on: { GO: { target: 'a', cond: 'x' } } } } }",
    "{ initial: 'a', states: { a: { on: { SELF: '.deeper' } }, deeper: {} } }",
]


def _xstate_definitions(configs: list[str]) -> list[dict[str, Any]]:
    if not (ORACLE_DIR / "node_modules" / "xstate").is_dir():
        missing("the XState oracle", "tests/oracle/node_modules is missing; run `npm ci` in tests/oracle")
    node = shutil.which("node")
    if node is None:
        missing("the XState oracle", "node is not on PATH")
    assert node is not None
    completed = subprocess.run([node, "--conditions=development", str(INLINE_DIR / "definitions.mjs")],
                               input=json.dumps(configs), capture_output=True, text=True, check=False,
                               cwd=INLINE_DIR, timeout=120)
    assert completed.returncode == 0, completed.stderr[-4000:]
    results: list[dict[str, Any]] = json.loads(completed.stdout)
    return results


def _statekit_src(config: str) -> dict[str, Any]:
    """The `src` statekit's reader gives `spawnChild(createMachine(<config>))`."""
    source = ("import { createMachine, spawnChild, log, assign, raise, sendTo, emit, cancel, stopChild, "
              "enqueueActions, sendParent, and, or, not, stateIn } from 'xstate';\n"
              f"const machine = createMachine({{ entry: spawnChild(createMachine({config})) }});\n")
    machines = extract_machines(source, "case.js")["machines"]
    entry = machines[0]["config"]["entry"]
    src = entry["src"]
    assert isinstance(src, dict) and "$expr" in src, src
    return src


@pytest.fixture(scope="module")
def xstate_definitions() -> dict[str, dict[str, Any]]:
    configs = RENDERED + UNRENDERED + REFUSED_BY_XSTATE
    return dict(zip(configs, _xstate_definitions(configs), strict=True))


@pytest.mark.parametrize("config", RENDERED)
def test_statekit_renders_xstates_definition(config: str, xstate_definitions: dict[str, dict[str, Any]]) -> None:
    expected = xstate_definitions[config]
    assert "definition" in expected, expected
    src = _statekit_src(config)
    assert "$definition" in src, src.get("$unrendered")
    assert src["$definition"] == expected["definition"]


@pytest.mark.parametrize("config", UNRENDERED + REFUSED_BY_XSTATE)
def test_what_statekit_cannot_render_it_says(config: str, xstate_definitions: dict[str, dict[str, Any]]) -> None:
    src = _statekit_src(config)
    assert "$definition" not in src
    assert isinstance(src.get("$unrendered"), str) and src["$unrendered"]
    if config in REFUSED_BY_XSTATE:
        assert "error" in xstate_definitions[config]
    else:
        assert "definition" in xstate_definitions[config]  # XState renders it; statekit does not follow
