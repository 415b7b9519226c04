// Builds each config with real XState (createMachine) and prints how XState reads it: every
// state node with its type, initial target and transitions, as JSON, one entry per config.
//
// Usage: node tests/oracle/definition.mjs < configs.json
// Input: a JSON array of machine configs (plain XState configs: no code, actions and guards
// by name or as {type} objects). Output: [{states: [...]} | {error}] in the same order. A
// transition is [event, [target ids], reenter, guard type, action count]; `after` transitions
// appear with their xstate.after.* event like every other, so a config XState reads
// differently from the statekit model it came from shows up as a different list.
import { readFileSync } from 'node:fs';
import { createMachine } from 'xstate';

function transitionOf(transition) {
  return [
    transition.eventType,
    (transition.target ?? []).map((target) => target.id),
    Boolean(transition.reenter),
    transition.guard === undefined ? null : (typeof transition.guard === 'string' ? transition.guard : (transition.guard.type ?? 'inline')),
    (transition.actions ?? []).length,
  ];
}

function describe(node, out) {
  const transitions = [];
  for (const [, list] of node.transitions) for (const t of list) transitions.push(transitionOf(t));
  for (const t of node.always ?? []) transitions.push(transitionOf(t));
  out.push({
    id: node.id,
    key: node.key,
    type: node.type,
    history: node.history ?? null,
    initial: node.initial?.target?.map((target) => target.id) ?? null,
    transitions,
  });
  for (const child of Object.values(node.states)) describe(child, out);
}

const configs = JSON.parse(readFileSync(0, 'utf8'));
const results = configs.map((config) => {
  try {
    const machine = createMachine(config);
    const states = [];
    describe(machine.root, states);
    return { states };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
});
process.stdout.write(`${JSON.stringify(results)}\n`);
