// Runs W3C SCXML IRP tests in SCION (@scion-scxml/scxml, pinned by package-lock.json) and
// prints one JSON object: {peer, version, cpuMs, wallMs, results: {id: "pass" | reason}}.
// Input (argv[2]): a JSON file [{id, files: [path, ...]}]. Every test runs concurrently on real
// timers (SCION has no virtual clock); a test that reaches neither pass nor fail within
// TIMEOUT_MS counts as a timeout. A test with several files passes when every file does.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const scxml = require("@scion-scxml/scxml");
const { version } = require("@scion-scxml/scxml/package.json");
const TIMEOUT_MS = Number(process.env.SCXML_TIMEOUT_MS || 10000);

function runFile(path, sessionid) {
  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome) => { if (!settled) { settled = true; clearTimeout(timer); resolve(outcome); } };
    const timer = setTimeout(() => finish("timeout"), TIMEOUT_MS);
    try {
      scxml.pathToModel(path, (err, model) => {
        if (err) return finish(`parse error: ${String(err).split("\n")[0]}`);
        model.prepare((err2, fnModel) => {
          if (err2) return finish(`prepare error: ${String(err2).split("\n")[0]}`);
          try {
            const sc = new scxml.core.Statechart(fnModel, { sessionid });
            sc.on("onEntry", (id) => { if (id === "pass" || id === "fail") finish(id); });
            sc.on("onError", () => {});
            sc.start();
          } catch (e) {
            finish(`error: ${String(e).split("\n")[0]}`);
          }
        });
      });
    } catch (e) {
      finish(`error: ${String(e).split("\n")[0]}`);
    }
  });
}

const tests = JSON.parse(readFileSync(process.argv[2], "utf8"));
// <log> writes with console.log; stdout carries only the result (statekit keeps logs in a list).
console.log = () => {};
process.on("uncaughtException", () => {});  // a document's script error must not end the run
const cpu0 = process.cpuUsage();
const wall0 = performance.now();
const outcomes = await Promise.all(tests.map(async (test) => {
  const files = await Promise.all(test.files.map((f, i) => runFile(f, `${test.id}-${i}`)));
  const bad = files.find((o) => o !== "pass");
  return [test.id, bad === undefined ? "pass" : bad];
}));
const cpu = process.cpuUsage(cpu0);
const result = {
  peer: "SCION", version, cpuMs: (cpu.user + cpu.system) / 1000, wallMs: performance.now() - wall0,
  results: Object.fromEntries(outcomes),
};
process.stdout.write(JSON.stringify(result) + "\n");
process.exit(0);
