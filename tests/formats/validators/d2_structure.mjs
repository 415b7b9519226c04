// What the official D2 compiler makes of D2 text: its shapes (id, label, tooltip) and
// connections (from, to, label). Input: file paths as arguments. Output: one JSON line per
// input, {"ok": true, "shapes": [...], "connections": [...]} or {"ok": false, "error": "..."}.
import { readFileSync } from "node:fs";
import { D2 } from "@terrastruct/d2";

const d2 = new D2();
for (const path of process.argv.slice(2)) {
  try {
    const result = await d2.compile(readFileSync(path, "utf8"));
    const diagram = result.diagram;
    const shapes = diagram.shapes.map((s) => [s.id, s.label, s.tooltip ?? null]);
    const connections = (diagram.connections ?? []).map((c) => [c.src, c.dst, c.label ?? ""]);
    process.stdout.write(JSON.stringify({ ok: true, error: null, shapes, connections }) + "\n");
  } catch (error) {
    process.stdout.write(JSON.stringify({ ok: false, error: String(error?.message ?? error) }) + "\n");
  }
}
process.exit(0);
