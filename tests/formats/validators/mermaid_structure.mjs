// What mermaid's own parser makes of stateDiagram text (the data its renderer draws): nodes
// [id, label, parent id, shape] (notes are nodes of shape "note") and edges [from, to, label],
// with mermaid's entity codes (#quot;, #59;) decoded to the characters they stand for.
// Input: file paths as arguments. Output: one JSON line per input,
// {"ok": true, "nodes": [...], "edges": [...]} or {"ok": false, "error": "..."}.
import { readFileSync } from "node:fs";
import { JSDOM } from "jsdom";

const dom = new JSDOM("<!DOCTYPE html><html><body></body></html>");
globalThis.window = dom.window;
globalThis.document = dom.window.document;
const { default: mermaid } = await import("mermaid");
mermaid.initialize({ startOnLoad: false });

// mermaid's encodeEntities marks `#name;` as ﬂ°name¶ß and `#NN;` as ﬂ°°NN¶ß.
const NAMED = { quot: '"', amp: "&", lt: "<", gt: ">", apos: "'", nbsp: "\u00a0" };
const decode = (text) => typeof text !== "string" ? text : text
  .replace(/ﬂ°°(\d+)¶ß/g, (_, code) => String.fromCodePoint(Number(code)))
  .replace(/ﬂ°(\w+)¶ß/g, (whole, name) => NAMED[name] ?? whole);

for (const path of process.argv.slice(2)) {
  const text = readFileSync(path, "utf8");
  try {
    const diagram = await mermaid.mermaidAPI.getDiagramFromText(text);
    const data = diagram.db.getData();
    const nodes = data.nodes.map((n) => [n.id, decode(n.label), n.parentId ?? null, n.shape]);
    const edges = data.edges.map((e) => [e.start, e.end, decode(e.label ?? null)]);
    process.stdout.write(JSON.stringify({ ok: true, error: null, nodes, edges }) + "\n");
  } catch (error) {
    process.stdout.write(JSON.stringify({ ok: false, error: String(error?.message ?? error) }) + "\n");
  }
}
