// Drives the statekit machine viewer (the MCP App) in headless Chromium inside a minimal host
// page that speaks the MCP Apps postMessage protocol. Assertions are on structure (DOM, data
// attributes, protocol messages), never on pixels; screenshots are saved as artefacts.
//
// usage: node viewer_check.mjs FIXTURES.json ARTIFACT_DIR
// FIXTURES.json: {appHtml, results: {name: CallToolResult}, arguments}
import { readFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";

const [fixturePath, artifactDir] = process.argv.slice(2);
const fixtures = JSON.parse(readFileSync(fixturePath, "utf8"));
mkdirSync(artifactDir, { recursive: true });

const executablePath = process.env.CHROMIUM_PATH || "/usr/bin/chromium";
const browser = await chromium.launch({
  executablePath,
  headless: true,
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run"],
});

let passed = 0;
let failed = 0;
function check(name, condition, detail) {
  if (condition) { passed++; console.log(`ok - ${name}`); }
  else { failed++; console.log(`not ok - ${name}${detail === undefined ? "" : ": " + JSON.stringify(detail)}`); }
}

// JSON inside an inline script: "<" escaped, so a label holding "</script>" cannot end it.
const inlineJson = (value) => JSON.stringify(value).replace(/</g, "\\u003c");

// The host: an iframe with the app as srcdoc (sandboxed, scripts only), answering ui/initialize
// and then sending the tool input and result, as an MCP Apps host does.
function hostPage(appHtml, result, args) {
  const escaped = appHtml.replace(/&/g, "&amp;").replace(/"/g, "&quot;");
  return `<!doctype html><html><head><meta charset="utf-8"><title>host</title>
<style>body{margin:0} iframe{border:0;width:1100px;height:680px}</style></head><body>
<iframe id="app" sandbox="allow-scripts" srcdoc="${escaped}"></iframe>
<script>
window.hostLog = [];
const frame = document.getElementById("app");
const result = ${inlineJson(result)};
const args = ${inlineJson(args)};
function send(message) { frame.contentWindow.postMessage(message, "*"); }
window.addEventListener("message", (event) => {
  if (event.source !== frame.contentWindow) return;
  const message = event.data;
  window.hostLog.push(message);
  if (message.method === "ui/initialize") {
    send({ jsonrpc: "2.0", id: message.id, result: {
      protocolVersion: "2026-01-26", hostInfo: { name: "test-host", version: "1" },
      hostCapabilities: {}, hostContext: { theme: "light", displayMode: "inline" } } });
  } else if (message.method === "ui/notifications/initialized") {
    send({ jsonrpc: "2.0", method: "ui/notifications/tool-input", params: { arguments: args } });
    send({ jsonrpc: "2.0", method: "ui/notifications/tool-result", params: result });
  }
});
</script></body></html>`;
}

async function openApp(result, args = fixtures.arguments) {
  const context = await browser.newContext({ viewport: { width: 1120, height: 700 } });
  const requests = [];
  // No network of any kind: every request the page makes is recorded and refused.
  await context.route("**/*", (route) => { requests.push(route.request().url()); route.abort(); });
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (error) => errors.push(String(error)));
  await page.setContent(hostPage(fixtures.appHtml, result, args));
  const frame = page.frameLocator("#app");
  const appFrame = page.frames().find((f) => f !== page.mainFrame());
  return { context, page, frame, appFrame, requests, errors };
}

const body = async (app, name) => app.appFrame.evaluate((key) => document.body.dataset[key] || "", name);
const shot = (app, name) => app.page.screenshot({ path: join(artifactDir, `${name}.png`) });
const waitFor = (app, fn, arg) => app.appFrame.waitForFunction(fn, arg, { timeout: 5000 });

// ---------------------------------------------------------------- the main walk-through
{
  const app = await openApp(fixtures.results.v2);
  await waitFor(app, () => document.body.dataset.status === "ready");
  const log = await app.page.evaluate(() => window.hostLog);
  const methods = log.map((m) => m.method);
  check("app sends ui/initialize first", methods[0] === "ui/initialize", methods);
  check("ui/initialize carries the protocol version and app info",
    log[0].params && log[0].params.protocolVersion === "2026-01-26" && log[0].params.appInfo.name === "statekit-machine-viewer");
  check("app confirms with ui/notifications/initialized", methods.includes("ui/notifications/initialized"), methods);
  check("starts in pan mode", (await body(app, "mode")) === "pan");
  check("pan button is pressed", (await app.frame.locator("#mode-pan").getAttribute("aria-pressed")) === "true");
  const rootStates = await app.frame.locator("[data-state-id]").evaluateAll((els) => els.map((e) => e.getAttribute("data-state-id")));
  check("root level shows the root's children",
    ["player.paused", "player.playing", "player.stopped"].every((id) => rootStates.includes(id)), rootStates);
  check("root level hides grandchildren", !rootStates.includes("player.playing.audio"), rootStates);
  check("initial marker points at the initial state",
    (await app.frame.locator('[data-initial-of="player"]').count()) === 1);
  const crumbs = await app.frame.locator("#breadcrumbs button").allTextContents();
  check("breadcrumbs at the root", JSON.stringify(crumbs) === JSON.stringify(["player"]), crumbs);
  await shot(app, "01-root-pan-mode");

  // hostile labels: shown as text, never parsed or run
  const labels = await app.frame.locator(".edge-label text").allTextContents();
  check("markup in an event name is shown as text", labels.some((t) => t.includes("<script>alert(1)</script>")), labels);
  const stateTexts = await app.frame.locator("[data-state-id] text").allTextContents();
  check("markup in a state name is shown as text", stateTexts.some((t) => t.includes("<img src=x")), stateTexts);
  const injected = await app.appFrame.evaluate(() => ({
    scripts: document.querySelectorAll("script").length,
    images: document.querySelectorAll("img, svg image, foreignObject").length,
    pwned: window.pwned || null, // the sandboxed app cannot reach the host's window anyway
  }));
  check("no element was injected by labels", injected.scripts === 1 && injected.images === 0, injected);
  const hostPwned = await app.page.evaluate(() => window.pwned || null);
  check("no label script ran", injected.pwned === null && hostPwned === null, { injected, hostPwned });

  // drill-in by double click, breadcrumbs back
  await app.frame.locator('[data-state-id="player.playing"]').first().dblclick();
  await waitFor(app, () => document.body.dataset.parent === "player.playing");
  const inner = await app.frame.locator("[data-state-id]").evaluateAll((els) => els.map((e) => e.getAttribute("data-state-id")));
  check("drill-in shows the parallel regions", ["player.playing.audio", "player.playing.video"].every((id) => inner.includes(id)), inner);
  check("regions show their own states", ["player.playing.audio.on", "player.playing.video.hd"].every((id) => inner.includes(id)), inner);
  const deeper = await app.frame.locator("#breadcrumbs button").allTextContents();
  check("breadcrumbs follow the drill-in", JSON.stringify(deeper) === JSON.stringify(["player", "playing"]), deeper);
  const hidden = await app.appFrame.evaluate(() => {
    // A point on each edge line must reach the pointer as that edge, not as a region over it.
    return Array.from(document.querySelectorAll(".edge path")).filter((path) => {
      const at = path.getPointAtLength(path.getTotalLength() * 0.3);
      const matrix = path.getScreenCTM();
      const x = at.x * matrix.a + at.y * matrix.c + matrix.e, y = at.x * matrix.b + at.y * matrix.d + matrix.f;
      const hit = document.elementFromPoint(x, y);
      return !(hit && hit.closest(".edge") === path.closest(".edge"));
    }).map((path) => path.closest(".edge").getAttribute("data-edge-id"));
  });
  check("edge lines inside regions are visible", hidden.length === 0, hidden);
  const regionLabels = await app.frame.locator(".edge-label text").allTextContents();
  check("delays read as in the PNGs (after 1s)", regionLabels.includes("after 1s"), regionLabels);
  await shot(app, "02-drilled-into-parallel");
  await app.frame.locator('#breadcrumbs button[data-node-id="player"]').click();
  await waitFor(app, () => document.body.dataset.parent === "player");
  check("a breadcrumb goes back up", (await body(app, "parent")) === "player");

  // keyboard: select mode, select a state, Enter drills in, Escape goes up
  await app.frame.locator("#stage").focus();
  await app.page.keyboard.press("v");
  check("V switches to select mode", (await body(app, "mode")) === "select");
  await app.frame.locator('[data-state-id="player.playing"]').first().click();
  const details = await app.frame.locator("#details-body").textContent();
  check("selecting a state shows its details", details.includes("player.playing") && details.includes("parallel"), details);
  check("the selected state is marked", (await app.frame.locator('[data-state-id="player.playing"].selected').count()) === 1);
  await app.page.keyboard.press("Enter");
  await waitFor(app, () => document.body.dataset.parent === "player.playing");
  check("Enter drills into the selected state", (await body(app, "parent")) === "player.playing");
  await app.page.keyboard.press("Escape");
  await waitFor(app, () => document.body.dataset.parent === "player");
  check("Escape goes up one level", (await body(app, "parent")) === "player");

  // zoom and fit-to-view recovery
  const fitted = Number(await body(app, "zoom"));
  await app.page.keyboard.press("+");
  check("+ zooms in", Number(await body(app, "zoom")) > fitted);
  await app.page.keyboard.press("-");
  await app.page.keyboard.press("-");
  check("- zooms out", Number(await body(app, "zoom")) < fitted);
  for (let i = 0; i < 40; i++) { await app.page.keyboard.press("ArrowRight"); }
  const lost = await app.appFrame.evaluate(() => {
    const stage = document.getElementById("canvas").getBoundingClientRect();
    const drawing = document.getElementById("viewport").getBoundingClientRect();
    return drawing.right < stage.left || drawing.left > stage.right;
  });
  check("arrow keys can pan the drawing out of view", lost);
  await shot(app, "03-lost-viewport");
  await app.page.keyboard.press("f");
  const recovered = await app.appFrame.evaluate(() => {
    const stage = document.getElementById("canvas").getBoundingClientRect();
    const drawing = document.getElementById("viewport").getBoundingClientRect();
    return { inside: drawing.left >= stage.left - 1 && drawing.right <= stage.right + 1 &&
      drawing.top >= stage.top - 1 && drawing.bottom <= stage.bottom + 1, drawing: drawing.width };
  });
  check("F fits the drawing back into view", recovered.inside && recovered.drawing > 100, recovered);
  check("F restores the fitted zoom", Math.abs(Number(await body(app, "zoom")) - fitted) < 0.01);
  await shot(app, "04-fit-to-view");

  // structural simulation by clicks
  await app.page.keyboard.press("s");
  check("S switches to simulate mode", (await body(app, "mode")) === "simulate");
  check("simulation starts in the initial state", (await body(app, "active")) === "player.paused", await body(app, "active"));
  const firstEvents = await app.frame.locator("#events button").allTextContents();
  check("the enabled events are offered", firstEvents.some((t) => t.startsWith("PLAY")), firstEvents);
  await app.frame.locator("#events button", { hasText: "PLAY" }).click();
  const afterPlay = (await body(app, "active")).split(" ").sort();
  check("PLAY enters both regions of the parallel state",
    JSON.stringify(afterPlay) === JSON.stringify(["player.playing.audio.on", "player.playing.video.hd"]), afterPlay);
  check("the active state is highlighted", (await app.frame.locator('[data-state-id="player.playing"].active').count()) === 1);
  await shot(app, "05-simulating-playing");
  await app.frame.locator('[data-state-id="player.playing"]').first().dblclick();
  await waitFor(app, () => document.body.dataset.parent === "player.playing");
  await app.frame.locator('.edge-label.enabled[data-edge-id]', { hasText: "MUTE" }).first().click();
  const afterMute = (await body(app, "active")).split(" ").sort();
  check("clicking an enabled transition in the drawing takes it",
    JSON.stringify(afterMute) === JSON.stringify(["player.playing.audio.off", "player.playing.video.hd"]), afterMute);
  await app.page.keyboard.press("Backspace");
  await waitFor(app, () => document.body.dataset.parent === "player");
  await app.frame.locator("#events button", { hasText: "STOP" }).click();
  check("STOP leaves the parallel state for the final state", (await body(app, "active")) === "player.stopped");
  const path = await app.frame.locator("#sim-path li").allTextContents();
  check("the simulation path lists the steps", path.length === 3 && path[0].startsWith("PLAY") && path[2] === "STOP", path);
  await shot(app, "06-simulation-done");
  await app.page.keyboard.press("r");
  check("R restarts the simulation", (await body(app, "active")) === "player.paused");
  await app.page.keyboard.press("h");
  check("H returns to pan mode", (await body(app, "mode")) === "pan");

  check("the app made no network request", app.requests.length === 0, app.requests);
  check("no script errors", app.errors.length === 0, app.errors);
  await app.context.close();
}

// ---------------------------------------------------------------- every result shape
const shapes = [
  ["v1", "ready", null],
  ["unversioned_graph", "ready", null],
  ["unversioned_graph_string", "ready", null],
  ["unversioned_error", "error", "layout exploded"],
  ["v2_unavailable", "error", "over the"],
  ["saved_without_graph", "rerun", "Run visualize_machine again"],
  ["not_structured", "rerun", "Run visualize_machine again"],
];
for (const [name, status, text] of shapes) {
  const app = await openApp(fixtures.results[name]);
  await waitFor(app, (wanted) => document.body.dataset.status === wanted, status).catch(() => {});
  check(`${name}: status ${status}`, (await body(app, "status")) === status, await body(app, "status"));
  if (text) {
    const message = await app.frame.locator("#message").textContent();
    check(`${name}: message says ${JSON.stringify(text)}`, message.includes(text), message);
  } else {
    const count = await app.frame.locator("[data-state-id]").count();
    check(`${name}: states are drawn`, count >= 2, count);
  }
  await shot(app, `07-shape-${name}`);
  check(`${name}: no script errors`, app.errors.length === 0, app.errors);
  await app.context.close();
}

// ---------------------------------------------------------------- a 500-state machine
{
  const app = await openApp(fixtures.results.big, { machine: "(500 states)", direction: "right" });
  await waitFor(app, () => document.body.dataset.status === "ready");
  const groups = await app.frame.locator("[data-state-id]").count();
  check("500 states: the root level shows its 50 groups", groups === 50, groups);
  await shot(app, "08-big-root");
  await app.frame.locator('[data-state-id="chain500.g9"]').first().dblclick();
  await waitFor(app, () => document.body.dataset.parent === "chain500.g9");
  const regions = await app.frame.locator(".region-group").count();
  check("500 states: a parallel group shows its two regions", regions === 2, regions);
  await shot(app, "09-big-parallel-group");
  await app.frame.locator("#stage").focus();
  await app.page.keyboard.press("s");
  const offered = await app.frame.locator("#events button").allTextContents();
  check("500 states: simulation offers the first group's events", offered.some((t) => t.startsWith("NEXT0")), offered);
  check("500 states: no script errors", app.errors.length === 0, app.errors);
  await app.context.close();
}

// ---------------------------------------------------------------- the engine's layout, read
// Where a label overlaps a state (box, history circle, stub, initial dot) or another label, in
// the drawing's own units; and where a state is not where the engine's layout put it.
async function layoutProblems(app) {
  return app.appFrame.evaluate(() => {
    const slack = 1.0;
    const box = (element) => { const b = element.getBBox(); return { x0: b.x, y0: b.y, x1: b.x + b.width, y1: b.y + b.height }; };
    const hit = (a, b) => a.x0 + slack < b.x1 && b.x0 + slack < a.x1 && a.y0 + slack < b.y1 && b.y0 + slack < a.y1;
    const labels = Array.from(document.querySelectorAll(".edge-label")).map((g) => ({ text: g.textContent, b: box(g) }));
    const states = Array.from(document.querySelectorAll(
      "[data-state-id]:not(.region-group) .box, [data-ghost-id] .box, .initial")).map((e) => ({
      id: (e.closest("[data-state-id], [data-ghost-id]") || e).getAttribute("data-state-id") || "marker", b: box(e) }));
    const problems = [];
    labels.forEach((label, index) => {
      states.forEach((state) => { if (hit(label.b, state.b)) { problems.push(`label ${label.text} on state ${state.id}`); } });
      labels.slice(index + 1).forEach((other) => { if (hit(label.b, other.b)) { problems.push(`label ${label.text} on label ${other.text}`); } });
    });
    return { problems, labels: labels.length, states: states.length, layout: document.body.dataset.layout };
  });
}

// The boxes the viewer drew for the states, by id, to compare with the layout the PNG was drawn from.
const drawnBoxes = (app) => app.appFrame.evaluate(() => Object.fromEntries(
  Array.from(document.querySelectorAll("[data-state-id]:not(.region-group) .box")).map((shape) => {
    const a = (key) => Number(shape.getAttribute(key));
    const box = shape.tagName === "circle" ? [a("cx") - a("r"), a("cy") - a("r"), 2 * a("r"), 2 * a("r")]
      : [a("x"), a("y"), a("width"), a("height")];
    return [shape.closest("[data-state-id]").getAttribute("data-state-id"), box];
  })));

for (const [name, result] of Object.entries(fixtures.laidOut)) {
  const app = await openApp(result, { machine: name });
  await waitFor(app, () => document.body.dataset.status === "ready");
  const layout = JSON.parse(result.structuredContent.interactive.layoutJson);
  const levels = [await app.appFrame.evaluate(() => document.body.dataset.parent)];
  // every level: the root, then each container drawn on it, one double click in
  const containers = await app.frame.locator("[data-state-id].container").evaluateAll(
    (els) => els.map((e) => e.getAttribute("data-state-id")));
  let checkedLevels = 0;
  for (const target of [null, ...containers]) {
    if (target !== null) {
      await app.frame.locator(`[data-state-id="${target.replace(/"/g, '\\"')}"]`).first().dblclick();
      await waitFor(app, (id) => document.body.dataset.parent === id, target).catch(() => {});
      if ((await body(app, "parent")) !== target) { continue; }
    }
    const parent = await body(app, "parent");
    const found = await layoutProblems(app);
    check(`${name} ${parent}: drawn from the engine's layout`, found.layout === "engine", found.layout);
    check(`${name} ${parent}: no label over a state or another label`, found.problems.length === 0, found.problems.slice(0, 5));
    const expected = layout.views[parent];
    const drawn = await drawnBoxes(app);
    const moved = (expected ? expected.states : []).filter((state) => state.id in drawn &&
      drawn[state.id].some((value, index) => Math.abs(value - state.box[index]) > 0.06)).map((state) => state.id);
    check(`${name} ${parent}: every state where the PNG's layout has it`,
      expected !== undefined && moved.length === 0 && Object.keys(drawn).length === expected.states.length, moved);
    checkedLevels++;
    if (target !== null) {
      await app.page.keyboard.press("Escape");
      await waitFor(app, (id) => document.body.dataset.parent === id, levels[0]).catch(() => {});
    }
  }
  check(`${name}: levels checked`, checkedLevels >= 1, checkedLevels);
  await shot(app, `10-laid-out-${name.slice(0, 60)}`);
  check(`${name}: no script errors`, app.errors.length === 0, app.errors);
  await app.context.close();
}

await browser.close();
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
