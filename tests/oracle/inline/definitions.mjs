// XState's own definition of child machines, for statekit's definition writer
// (src/statekit/extract/definition.py; tests/engine/test_child_machine_definition.py).
//
// Usage: node --conditions=development tests/oracle/inline/definitions.mjs < configs.json
// stdin: a JSON list of JavaScript expressions, each the config of `createMachine(...)` (it may
// call XState's action creators and guards by name). stdout: for each, `{definition}` as
// `JSON.parse(JSON.stringify(createMachine(config).definition))`, or `{error}` when XState throws.
import { readFileSync } from 'node:fs';
import * as xstate from 'xstate';

const names = Object.keys(xstate).filter((name) => /^[A-Za-z_$][\w$]*$/.test(name));
const results = JSON.parse(readFileSync(0, 'utf8')).map((config) => {
  try {
    // eslint-disable-next-line no-new-func
    const machine = new Function('xstate', `"use strict"; const {${names.join(', ')}} = xstate;\n`
      + `return xstate.createMachine(${config});`)(xstate);
    return { definition: JSON.parse(JSON.stringify(machine.definition)) };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
});
process.stdout.write(`${JSON.stringify(results)}\n`);
