// Times @xstate/machine-extractor 0.16.0 (babel) on one file: extractMachinesFromFile, in process.
//   node bench.cjs FILE REPEATS  ->  {"machines": n, "seconds": [t1, t2, ...]}
const fs = require('node:fs');
const { extractMachinesFromFile } = require('@xstate/machine-extractor');

const [file, repeats = '5'] = process.argv.slice(2);
const source = fs.readFileSync(file, 'utf8');
const seconds = [];
let machines = 0;
for (let i = 0; i < Number(repeats); i++) {
  const start = process.hrtime.bigint();
  const result = extractMachinesFromFile(source);
  // toConfig() is what gives the config; statekit's side builds configs too.
  machines = result.machines.filter((m) => m && m.toConfig()).length;
  seconds.push(Number(process.hrtime.bigint() - start) / 1e9);
}
process.stdout.write(JSON.stringify({ machines, seconds }));
