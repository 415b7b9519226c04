// Compile D2 text with the official D2 compiler (WASM). Input: file paths as arguments, or stdin.
// Output: one JSON line per input, {"ok": true} or {"ok": false, "error": "..."}.
import { readFileSync } from "node:fs";
import { D2 } from "@terrastruct/d2";

const inputs = process.argv.length > 2
  ? process.argv.slice(2).map((path) => readFileSync(path, "utf8"))
  : [readFileSync(0, "utf8")];
const d2 = new D2();
for (const text of inputs) {
  try {
    const result = await d2.compile(text);
    const ok = Boolean(result && result.diagram);
    process.stdout.write(JSON.stringify({ ok, error: ok ? null : "no diagram" }) + "\n");
  } catch (error) {
    process.stdout.write(JSON.stringify({ ok: false, error: String(error?.message ?? error) }) + "\n");
  }
}
process.exit(0);
