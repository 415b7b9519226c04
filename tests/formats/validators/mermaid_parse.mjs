// Parse Mermaid text with mermaid's own parser. Input: file paths as arguments, or stdin.
// Output: one JSON line per input, {"ok": true} or {"ok": false, "error": "..."}.
import { readFileSync } from "node:fs";
import { JSDOM } from "jsdom";

const dom = new JSDOM("<!DOCTYPE html><html><body></body></html>");
globalThis.window = dom.window;
globalThis.document = dom.window.document;
for (const name of ["Element", "HTMLElement", "Node", "DOMParser", "navigator"]) {
  if (!(name in globalThis)) {
    try { globalThis[name] = dom.window[name]; } catch { /* read-only in this node version */ }
  }
}

const { default: mermaid } = await import("mermaid");
mermaid.initialize({ startOnLoad: false });

const inputs = process.argv.length > 2
  ? process.argv.slice(2).map((path) => readFileSync(path, "utf8"))
  : [readFileSync(0, "utf8")];
for (const text of inputs) {
  try {
    const result = await mermaid.parse(text);
    process.stdout.write(JSON.stringify({ ok: true, error: null, type: result?.diagramType ?? null }) + "\n");
  } catch (error) {
    process.stdout.write(JSON.stringify({ ok: false, error: String(error?.message ?? error) }) + "\n");
  }
}
