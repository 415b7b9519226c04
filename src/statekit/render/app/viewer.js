// statekit machine viewer: an MCP App that shows a visualize_machine result as an interactive,
// read-only statechart. Every label is put on the page with textContent, never parsed as HTML,
// so a machine cannot inject markup or script. Nothing here touches the network.
(function () {
  "use strict";

  var SVG_NS = "http://www.w3.org/2000/svg";
  var PROTOCOL_VERSION = "2026-01-26";
  var RERUN = "This saved result cannot be shown here. Run visualize_machine again to see the machine.";

  var view = {
    graph: null,          // {nodes: Map, children: Map, edges: [], rootId}
    layouts: null,        // {views: {parentId: laid-out view}} from the engine, when the result has them
    parentId: null,       // the state whose children are on screen
    mode: "pan",
    zoom: 1, panX: 0, panY: 0,
    selected: null,       // {kind: "state"|"edge", id}
    active: null,         // Set of active state ids (simulation)
    path: [],             // simulation steps taken
    bounds: null          // content bounds of the drawing, for fit-to-view
  };

  var $ = function (id) { return document.getElementById(id); };
  var viewport = $("viewport");
  var canvas = $("canvas");
  var stage = $("stage");

  // ---------------------------------------------------------------- decoding tool results

  // A graph from any result shape this app has ever been given: v2, v1, or the unversioned one.
  function decodeResult(result) {
    var content = result && typeof result === "object" ? result.structuredContent : null;
    if (!content || typeof content !== "object") { return { rerun: true }; }
    if (content.schemaVersion === "2.0") {
      var interactive = content.interactive || {};
      if (interactive.status === "ready" && typeof interactive.graphJson === "string") {
        var decoded = parseGraph(interactive.graphJson);
        if (decoded.graph && typeof interactive.layoutJson === "string") { decoded.layouts = parseLayouts(interactive.layoutJson); }
        return decoded;
      }
      return { error: "The interactive graph is unavailable: " + (interactive.reason || "no reason given") };
    }
    if (content.schemaVersion === "1.0" || content.schemaVersion === 1) {
      if (typeof content.graphJson === "string") { return parseGraph(content.graphJson); }
      if (content.graph && typeof content.graph === "object") { return checkGraph(content.graph); }
      if (typeof content.graphError === "string") { return { error: content.graphError }; }
      return { rerun: true };
    }
    if ("graph" in content) {
      return typeof content.graph === "string" ? parseGraph(content.graph) : checkGraph(content.graph);
    }
    if (typeof content.graphError === "string") { return { error: content.graphError }; }
    return { rerun: true };
  }

  // The engine's layout of each parent's view (the PNGs' own), or null: levels are then laid out here.
  function parseLayouts(text) {
    var data;
    try { data = JSON.parse(text); } catch (e) { return null; }
    if (!data || data.version !== 1 || !data.views || typeof data.views !== "object") { return null; }
    return data;
  }

  function parseGraph(text) {
    var data;
    try { data = JSON.parse(text); } catch (e) { return { error: "The graph JSON could not be read." }; }
    return checkGraph(data);
  }

  function checkGraph(data) {
    if (!data || !Array.isArray(data.nodes) || !Array.isArray(data.edges)) {
      return { rerun: true };
    }
    var nodes = new Map();
    var children = new Map();
    data.nodes.forEach(function (raw) {
      if (!raw || typeof raw.id !== "string" || nodes.has(raw.id)) { return; }
      var info = raw.data && typeof raw.data === "object" ? raw.data : {};
      var type = typeof info.type === "string" ? info.type : "atomic";
      var history = null;
      if (type === "history") { history = info.history === "deep" ? "deep" : "shallow"; }
      nodes.set(raw.id, {
        id: raw.id,
        parentId: typeof raw.parentId === "string" ? raw.parentId : null,
        initialId: typeof raw.initialNodeId === "string" ? raw.initialNodeId : null,
        label: typeof info.key === "string" ? info.key : (typeof raw.label === "string" ? raw.label : raw.id),
        type: type,
        history: history,
        details: stateDetails(info),
        description: typeof info.description === "string" ? info.description : null
      });
    });
    if (nodes.size === 0) { return { error: "The graph has no states." }; }
    var roots = [];
    nodes.forEach(function (node) {
      if (node.parentId !== null && !nodes.has(node.parentId)) { node.parentId = null; }
      if (node.parentId === null) { roots.push(node.id); return; }
      if (!children.has(node.parentId)) { children.set(node.parentId, []); }
      children.get(node.parentId).push(node.id);
    });
    var rootId = roots[0];
    if (roots.length > 1) {
      rootId = "\u0000root";
      nodes.set(rootId, { id: rootId, parentId: null, initialId: null, label: String(data.id || "machine"),
        type: "compound", history: null, details: [], description: null });
      roots.forEach(function (id) { nodes.get(id).parentId = rootId; });
      children.set(rootId, roots);
    }
    nodes.forEach(function (node) {
      var kids = children.get(node.id) || [];
      if (kids.length && node.type === "atomic") { node.type = "compound"; }
    });
    var edges = [];
    data.edges.forEach(function (raw, index) {
      if (!raw || !nodes.has(raw.sourceId) || !nodes.has(raw.targetId)) { return; }
      var info = raw.data && typeof raw.data === "object" ? raw.data : {};
      var trigger = typeof raw.label === "string" ? raw.label : (typeof info.event === "string" ? info.event : "");
      edges.push({
        id: typeof raw.id === "string" ? raw.id : "edge" + index,
        sourceId: raw.sourceId, targetId: raw.targetId,
        label: edgeCaption(trigger, info),
        event: typeof info.event === "string" ? info.event : trigger,
        targetless: info.targets === null || info.targetless === true,
        reenter: info.reenter === true,
        order: index
      });
    });
    return { graph: { nodes: nodes, children: children, edges: edges, rootId: rootId } };
  }

  // `EVENT [guard] / action, action`, from the canonical guard and action configs.
  function guardText(guard) {
    if (typeof guard === "string") { return guard; }
    if (!guard || typeof guard !== "object") { return "?"; }
    var type = typeof guard.type === "string" ? guard.type : "guard";
    var operands = Array.isArray(guard.guards) ? guard.guards : [];
    if (type === "xstate.not") { return "!" + guardText(guard.guard !== undefined ? guard.guard : operands[0]); }
    if (type === "xstate.and" || type === "xstate.or") {
      return "(" + operands.map(guardText).join(type === "xstate.and" ? " && " : " || ") + ")";
    }
    if (type === "xstate.stateIn") { return "in(" + String(guard.stateValue !== undefined ? JSON.stringify(guard.stateValue) : guard.state) + ")"; }
    return type;
  }
  function actionText(action) {
    if (typeof action === "string") { return action; }
    if (action && typeof action === "object" && typeof action.type === "string") { return action.type.replace(/^xstate\./, ""); }
    return "inline";
  }
  // `after 1s` for 1000 ms, as the PNG drawings write it; a named delay stays as written.
  function delayText(delay) {
    if (typeof delay !== "number" || !isFinite(delay)) { return String(delay); }
    return delay >= 1000 && delay % 100 === 0 ? delay / 1000 + "s" : delay + "ms";
  }
  function edgeCaption(trigger, info) {
    var caption = info.kind === "after" && info.delay !== undefined ? "after " + delayText(info.delay) : trigger;
    if (info.guard !== undefined && info.guard !== null) { caption += " [" + guardText(info.guard) + "]"; }
    if (Array.isArray(info.actions) && info.actions.length) { caption += " / " + info.actions.map(actionText).join(", "); }
    return caption;
  }
  function stateDetails(info) {
    var lines = [];
    [["entry", info.entry], ["exit", info.exit]].forEach(function (pair) {
      if (Array.isArray(pair[1]) && pair[1].length) { lines.push(pair[0] + " / " + pair[1].map(actionText).join(", ")); }
    });
    if (Array.isArray(info.invoke)) {
      info.invoke.forEach(function (item) { if (item && typeof item.src === "string") { lines.push("invoke " + item.src); } });
    }
    if (Array.isArray(info.details)) { info.details.forEach(function (d) { if (typeof d === "string") { lines.push(d); } }); }
    return lines;
  }

  // ---------------------------------------------------------------- hierarchy helpers

  function kids(id) { return view.graph.children.get(id) || []; }
  function node(id) { return view.graph.nodes.get(id); }
  function ancestors(id) { // from the root down to id, inclusive
    var chain = [];
    for (var current = id; current !== null && current !== undefined; current = node(current).parentId) {
      chain.unshift(current);
    }
    return chain;
  }
  function isInside(id, containerId) {
    for (var current = id; current !== null; current = node(current).parentId) {
      if (current === containerId) { return true; }
    }
    return false;
  }
  function countDescendants(id) {
    var total = 0;
    kids(id).forEach(function (child) { total += 1 + countDescendants(child); });
    return total;
  }
  // The shown state standing for `id`: itself or its ancestor among `shown`, else null.
  function liftTo(id, shown) {
    for (var current = id; current !== null; current = node(current).parentId) {
      if (shown.has(current)) { return current; }
    }
    return null;
  }

  // ---------------------------------------------------------------- structural simulation

  function enterDefault(id, active) {
    active.add(id);
    var n = node(id);
    var children = kids(id);
    if (!children.length) { return; }
    if (n.type === "parallel") {
      children.forEach(function (child) { if (node(child).type !== "history") { enterDefault(child, active); } });
      return;
    }
    var initial = n.initialId && view.graph.nodes.has(n.initialId) ? n.initialId : null;
    if (initial === null) {
      initial = children.filter(function (child) { return node(child).type !== "history"; })[0] || null;
    }
    if (initial !== null) { enterDefault(initial, active); }
  }

  function restartSimulation() {
    view.active = new Set();
    enterDefault(view.graph.rootId, view.active);
    view.path = [];
  }

  // Enabled transitions: those whose source is active, deepest sources first (XState's priority).
  function enabledEdges() {
    if (!view.active) { return []; }
    return view.graph.edges.filter(function (edge) { return view.active.has(edge.sourceId); })
      .sort(function (a, b) {
        var depth = ancestors(b.sourceId).length - ancestors(a.sourceId).length;
        return depth !== 0 ? depth : a.order - b.order;
      });
  }

  function takeTransition(edge) {
    if (!view.active || !view.active.has(edge.sourceId)) { return false; }
    view.path.push(edge.label || edge.event || edge.id);
    if (edge.targetless) { return true; }
    var target = edge.targetId;
    if (node(target).type === "history") { target = node(target).parentId; }
    var domain;
    if (isInside(target, edge.sourceId) && target !== edge.sourceId && !edge.reenter) {
      domain = edge.sourceId;
    } else {
      domain = node(edge.sourceId).parentId;
      while (domain !== null && (!isInside(target, domain) || node(domain).type === "parallel")) {
        domain = node(domain).parentId;
      }
      if (domain === null) { domain = view.graph.rootId; }
    }
    Array.from(view.active).forEach(function (id) {
      if (id !== domain && isInside(id, domain)) { view.active.delete(id); }
    });
    var chain = ancestors(target);
    var start = chain.indexOf(domain);
    for (var i = start + 1; i < chain.length - 1; i++) {
      view.active.add(chain[i]);
      if (node(chain[i]).type === "parallel") {
        kids(chain[i]).forEach(function (region) {
          if (region !== chain[i + 1] && node(region).type !== "history") { enterDefault(region, view.active); }
        });
      }
    }
    enterDefault(target, view.active);
    return true;
  }

  // ---------------------------------------------------------------- layout of one level

  var measureContext = null;
  function textWidth(text, size) {
    if (measureContext === null) {
      var c = document.createElement("canvas");
      measureContext = c.getContext ? c.getContext("2d") : null;
    }
    if (!measureContext) { return text.length * size * 0.6; }
    measureContext.font = size + "px system-ui, -apple-system, Segoe UI, Roboto, Arial, sans-serif";
    return measureContext.measureText(text).width;
  }

  function clipText(value, limit) { return value.length > limit ? value.slice(0, limit - 1) + "\u2026" : value; }

  function boxFor(id, expandable) {
    var n = node(id);
    if (n.type === "history") { return { w: 34, h: 34 }; }
    var lines = [clipText(n.label, 40)];
    var sub = [];
    if (kids(id).length && !expandable) { sub.push("\u25B8 " + countDescendants(id) + " substates"); }
    n.details.slice(0, 3).forEach(function (d) { sub.push(d); });
    var width = textWidth(lines[0], 13);
    sub.forEach(function (s) { width = Math.max(width, textWidth(s, 11)); });
    return { w: Math.min(Math.max(70, width + 28), 320), h: 30 + sub.length * 15, sub: sub };
  }

  // Layered layout of `ids` (siblings) with `edges` lifted onto them; returns positions and size.
  function layeredLayout(ids, links, initialId, horizontal, sizes) {
    var rank = new Map();
    var out = new Map();
    ids.forEach(function (id) { out.set(id, []); });
    links.forEach(function (l) { if (l.from !== l.to) { out.get(l.from).push(l.to); } });
    var seeds = initialId !== null ? [initialId].concat(ids) : ids.slice();
    seeds.forEach(function (seed) {
      if (rank.has(seed)) { return; }
      // A state first reached here goes below what leads into it, or above what it leads to.
      var below = null, above = null;
      links.forEach(function (l) {
        if (l.to === seed && rank.has(l.from)) { below = Math.max(below === null ? 0 : below, rank.get(l.from) + 1); }
        if (l.from === seed && rank.has(l.to)) { above = Math.min(above === null ? Infinity : above, rank.get(l.to) - 1); }
      });
      rank.set(seed, below !== null ? below : (above !== null ? above : 0));
      var queue = [seed];
      while (queue.length) {
        var current = queue.shift();
        out.get(current).forEach(function (next) {
          if (!rank.has(next)) { rank.set(next, rank.get(current) + 1); queue.push(next); }
        });
      }
    });
    var lowest = 0;
    rank.forEach(function (r) { lowest = Math.min(lowest, r); });
    var layers = [];
    ids.forEach(function (id) {
      var r = rank.get(id) - lowest;
      while (layers.length <= r) { layers.push([]); }
      layers[r].push(id);
    });
    layers = layers.filter(function (layer) { return layer.length; });
    // Two barycenter sweeps against the layer above keep linked states near each other.
    for (var sweep = 0; sweep < 2; sweep++) {
      var position = new Map();
      layers.forEach(function (layer, li) {
        if (li > 0) {
          var score = new Map();
          layer.forEach(function (id, index) {
            var sum = 0, count = 0;
            links.forEach(function (l) {
              if (l.to === id && position.has(l.from)) { sum += position.get(l.from); count++; }
              if (l.from === id && position.has(l.to)) { sum += position.get(l.to); count++; }
            });
            score.set(id, count ? sum / count : index);
          });
          layer.sort(function (a, b) { return score.get(a) - score.get(b) || ids.indexOf(a) - ids.indexOf(b); });
        }
        layer.forEach(function (id, index) { position.set(id, index); });
      });
    }
    var gapAcross = 36, gapAlong = 74, gapBand = 70;
    var placed = new Map();
    var spans = layers.map(function (layer) {
      var across = 0, depth = 0;
      layer.forEach(function (id, index) {
        var s = sizes.get(id);
        across += (horizontal ? s.h : s.w) + (index ? gapAcross : 0);
        depth = Math.max(depth, horizontal ? s.w : s.h);
      });
      return { across: across, depth: depth };
    });
    // A long run of thin layers (a chain) folds into bands, so the drawing stays near a screen's
    // shape instead of one line that fit-to-view would shrink to nothing.
    var perBand = layers.length;
    if (layers.length > 8) { perBand = Math.max(4, Math.ceil(Math.sqrt(layers.length * 2.5))); }
    var bandStart = 0, longest = 0;
    for (var first = 0; first < layers.length; first += perBand) {
      var band = layers.slice(first, first + perBand);
      var widest = 0;
      band.forEach(function (layer, offset) { widest = Math.max(widest, spans[first + offset].across); });
      var along = 0;
      band.forEach(function (layer, offset) {
        var span = spans[first + offset];
        var across = bandStart + (widest - span.across) / 2;
        layer.forEach(function (id) {
          var s = sizes.get(id);
          var depthOffset = along + (span.depth - (horizontal ? s.w : s.h)) / 2;
          placed.set(id, horizontal ? { x: depthOffset, y: across, w: s.w, h: s.h }
            : { x: across, y: depthOffset, w: s.w, h: s.h });
          across += (horizontal ? s.h : s.w) + gapAcross;
        });
        along += span.depth + gapAlong;
      });
      longest = Math.max(longest, along - gapAlong);
      bandStart += widest + gapBand;
    }
    var breadth = Math.max(0, bandStart - gapBand);
    return { placed: placed, w: horizontal ? longest : breadth, h: horizontal ? breadth : longest };
  }

  // Lay out one container: its children, expanded one more level when it is parallel (regions).
  function layoutLevel(parentId, horizontal) {
    var parent = node(parentId);
    var childIds = kids(parentId);
    var expand = parent.type === "parallel";
    var shown = new Set(childIds);
    var sizes = new Map();
    var inner = new Map();
    childIds.forEach(function (id) {
      if (expand && kids(id).length) {
        var sub = layoutRegion(id, horizontal);
        inner.set(id, sub);
        sizes.set(id, { w: sub.w + 80, h: sub.h + 84 });
        kids(id).forEach(function (k) { shown.add(k); });
      } else {
        sizes.set(id, boxFor(id, false));
      }
    });
    var links = liftedLinks(childIds, new Set(childIds), parentId);
    var layout = expand
      ? sideBySide(childIds, sizes, horizontal)
      : layeredLayout(childIds, links.inside, parent.initialId, horizontal, sizes);
    return { parentId: parentId, childIds: childIds, sizes: sizes, inner: inner, layout: layout,
      expand: expand, shown: shown };
  }

  function layoutRegion(regionId, horizontal) {
    var ids = kids(regionId);
    var sizes = new Map();
    ids.forEach(function (id) { sizes.set(id, boxFor(id, false)); });
    var links = liftedLinks(ids, new Set(ids), regionId);
    return Object.assign(layeredLayout(ids, links.inside, node(regionId).initialId, horizontal, sizes), { sizes: sizes });
  }

  function sideBySide(ids, sizes, horizontal) {
    var placed = new Map();
    var offset = 0, depth = 0;
    ids.forEach(function (id) {
      var s = sizes.get(id);
      placed.set(id, horizontal ? { x: 0, y: offset, w: s.w, h: s.h } : { x: offset, y: 0, w: s.w, h: s.h });
      offset += (horizontal ? s.h : s.w) + 24;
      depth = Math.max(depth, horizontal ? s.w : s.h);
    });
    offset = Math.max(0, offset - 24);
    return { placed: placed, w: horizontal ? depth : offset, h: horizontal ? offset : depth };
  }

  function liftedLinks(ids, shown, containerId) {
    var inside = [];
    view.graph.edges.forEach(function (edge) {
      var from = liftTo(edge.sourceId, shown), to = liftTo(edge.targetId, shown);
      if (from !== null && to !== null && (from !== to || from === edge.sourceId)) {
        inside.push({ from: from, to: to, edge: edge });
      }
    });
    return { inside: inside };
  }

  // ---------------------------------------------------------------- drawing

  function el(name, attrs, parent) {
    var element = document.createElementNS(SVG_NS, name);
    Object.keys(attrs || {}).forEach(function (key) { element.setAttribute(key, String(attrs[key])); });
    if (parent) { parent.appendChild(element); }
    return element;
  }
  function text(parent, x, y, content, cls) {
    var t = el("text", { x: x, y: y, "text-anchor": "middle", "dominant-baseline": "middle" }, parent);
    if (cls) { t.setAttribute("class", cls); }
    t.textContent = content; // text, never parsed: labels are data, not markup
    return t;
  }

  function horizontal() { return document.body.dataset.direction === "right"; }

  // Drawing order: frame, edge lines, states on top of the lines, then edge labels on top of
  // all, so a long edge never hides a state from the pointer and every label stays clickable.
  var layers = { frame: null, edges: null, states: null, labels: null };

  function render() {
    while (viewport.firstChild) { viewport.removeChild(viewport.firstChild); }
    ["frame", "edges", "states", "labels"].forEach(function (name) {
      layers[name] = el("g", { "class": "layer-" + name }, viewport);
    });
    var laid = view.layouts && Object.prototype.hasOwnProperty.call(view.layouts.views, view.parentId)
      ? view.layouts.views[view.parentId] : null;
    document.body.dataset.layout = laid ? "engine" : "own";
    if (laid) { renderLaidOut(laid); } else { renderOwnLayout(); }
    updateChrome();
  }

  // ---------------------------------------------------------------- the engine's layout

  // Text exactly where the engine drew it: same baseline and size, centred on the engine's line;
  // squeezed to the engine's width when the host's font runs wider, so text never leaves its box.
  function drawLines(parent, lines, classFor, padded) {
    (Array.isArray(lines) ? lines : []).forEach(function (line, index) {
      if (!Array.isArray(line) || line.length < 5) { return; }
      var content = String(line[0]).trim();
      var x = Number(line[1]), y = Number(line[2]), w = Number(line[3]), size = Number(line[4]);
      var t = el("text", { x: x + w / 2, y: y, "text-anchor": "middle" }, parent);
      var cls = classFor(index);
      if (cls) { t.setAttribute("class", cls); }
      t.style.fontSize = size + "px";
      t.textContent = content; // text, never parsed: labels are data, not markup
      var room = w - (padded ? size * 0.56 : 0); // the engine's width includes the padding spaces
      var used = 0;
      try { used = t.getComputedTextLength(); } catch (e) { used = 0; }
      if (used > room && room > 0) {
        t.setAttribute("textLength", room);
        t.setAttribute("lengthAdjust", "spacingAndGlyphs");
      }
    });
  }

  function bezierPath(points) {
    if (!points.length) { return ""; }
    var d = "M" + points[0][0] + "," + points[0][1];
    for (var i = 1; i + 2 < points.length; i += 3) {
      d += " C" + points[i][0] + "," + points[i][1] + " " + points[i + 1][0] + "," + points[i + 1][1] + " " +
        points[i + 2][0] + "," + points[i + 2][1];
    }
    return d;
  }

  // The arrowhead as Graphviz draws it: a triangle from the route's end to the tip.
  function arrowhead(parent, points, tip) {
    if (!tip || !points.length) { return; }
    var base = points[points.length - 1];
    var dx = tip[0] - base[0], dy = tip[1] - base[1];
    var length = Math.sqrt(dx * dx + dy * dy) || 1;
    var nx = -dy / length * length * 0.36, ny = dx / length * length * 0.36;
    el("polygon", { "class": "arrowhead", points: tip[0] + "," + tip[1] + " " + (base[0] + nx) + "," + (base[1] + ny) +
      " " + (base[0] - nx) + "," + (base[1] - ny) }, parent);
  }

  function renderLaidOut(laid) {
    var parent = node(view.parentId);
    var enabled = new Set(view.mode === "simulate" ? enabledEdges().map(function (e) { return e.id; }) : []);
    var edgesById = new Map(view.graph.edges.map(function (e) { return [e.id, e]; }));
    laid.frames.forEach(function (frame) {
      var b = frame.box;
      if (frame.root) {
        var level = el("g", { "class": "level", "data-parent-id": view.parentId }, layers.frame);
        el("rect", { "class": "frame" + (parent.type === "parallel" ? " parallel" : ""), x: b[0], y: b[1], width: b[2], height: b[3], rx: 10 }, level);
        drawLines(level, frame.lines, function (i) { return i ? "frame-sub" : "frame-title"; }, false);
        return;
      }
      if (!view.graph.nodes.has(frame.id)) { return; }
      var g = el("g", { "class": "state region-group" + stateClasses(frame.id), "data-state-id": frame.id }, layers.states);
      el("rect", { "class": "region box", x: b[0], y: b[1], width: b[2], height: b[3], rx: 6 }, g);
      drawLines(g, frame.lines, function (i) { return i ? "region-sub" : "region-title"; }, false);
    });
    laid.states.forEach(function (state) {
      if (!view.graph.nodes.has(state.id)) { return; }
      var n = node(state.id), b = state.box;
      var cls = "state " + n.type + (kids(state.id).length ? " container" : "") + stateClasses(state.id);
      var g = el("g", { "class": cls, "data-state-id": state.id, tabindex: -1 }, layers.states);
      if (n.type === "history") {
        el("circle", { "class": "box", cx: b[0] + b[2] / 2, cy: b[1] + b[3] / 2, r: b[2] / 2 }, g);
      } else {
        el("rect", { "class": "box" + (state.collapsed ? " collapsed" : ""), x: b[0], y: b[1], width: b[2], height: b[3], rx: 8 }, g);
        if (n.type === "final") {
          el("rect", { x: b[0] + 4, y: b[1] + 4, width: Math.max(0, b[2] - 8), height: Math.max(0, b[3] - 8), rx: 6, fill: "none" }, g);
        }
      }
      drawLines(g, state.lines, function (i) { return i ? "sub" : ""; }, false);
      var full = el("title", {}, g); full.textContent = n.label;
    });
    laid.initials.forEach(function (marker) {
      var b = marker.box;
      el("circle", { "class": "initial", cx: b[0] + b[2] / 2, cy: b[1] + b[3] / 2, r: Math.max(3, b[2] / 2), "data-initial-of": marker.of }, layers.states);
    });
    laid.stubs.forEach(function (stub) {
      var b = stub.box;
      var g = el("g", { "class": "state ghost", "data-ghost-id": stub.id }, layers.states);
      el("rect", { "class": "box", x: b[0], y: b[1], width: b[2], height: b[3], rx: 6 }, g);
      drawLines(g, stub.lines, function () { return ""; }, false);
    });
    laid.edges.forEach(function (drawn) {
      var points = Array.isArray(drawn.points) ? drawn.points : [];
      if (drawn.initialOf) {
        var arrow = el("g", { "class": "initial-arrow", "data-initial-arrow-of": drawn.initialOf }, layers.edges);
        el("path", { d: bezierPath(points) }, arrow);
        arrowhead(arrow, points, drawn.tip);
        return;
      }
      var edges = (drawn.ids || []).map(function (id) { return edgesById.get(id); }).filter(Boolean);
      if (!edges.length) { return; }
      var primary = edges.filter(function (e) { return enabled.has(e.id); })[0] || edges[0];
      var on = enabled.has(primary.id);
      var selected = view.selected && view.selected.kind === "edge" && edges.some(function (e) { return e.id === view.selected.id; });
      var cls = "edge" + (drawn.dashed ? " targetless" : "") + (on ? " enabled" : "") + (selected ? " selected" : "");
      var g = el("g", { "class": cls, "data-edge-id": primary.id, "data-edge-ids": edges.map(function (e) { return e.id; }).join(" "),
        "data-source-id": primary.sourceId, "data-target-id": primary.targetId }, layers.edges);
      el("path", { d: bezierPath(points) }, g);
      arrowhead(g, points, drawn.tip);
      if (drawn.label) {
        var b = drawn.label.box;
        var label = el("g", { "class": "edge-label" + (on ? " enabled" : ""), "data-edge-id": primary.id }, layers.labels);
        el("rect", { x: b[0], y: b[1], width: b[2], height: b[3], rx: 3 }, label);
        drawLines(label, drawn.label.lines, function () { return ""; }, true);
      }
    });
    view.bounds = contentBounds({ x: 0, y: 0, width: laid.width, height: laid.height });
  }

  // ---------------------------------------------------------------- the viewer's own layout
  // (results saved before visualize_machine sent layouts, or drawn without a layout engine)

  function renderOwnLayout() {
    var level = layoutLevel(view.parentId, horizontal());
    var parent = node(view.parentId);
    var pad = 28, titleH = 30;
    var originX = pad, originY = pad + titleH;
    var frameW = level.layout.w + pad * 2, frameH = level.layout.h + pad * 2 + titleH;
    var boxes = new Map();
    // the frame of the current parent
    var frame = el("g", { "class": "level", "data-parent-id": view.parentId }, layers.frame);
    var frameRect = el("rect", { "class": "frame", x: 0, y: 0, width: frameW, height: frameH, rx: 10 }, frame);
    var title = el("text", { "class": "frame-title", x: 12, y: 20 }, frame);
    title.textContent = parent.label + (parent.type === "parallel" ? " (parallel)" : "");
    level.childIds.forEach(function (id) {
      var p = level.layout.placed.get(id);
      var box = { x: originX + p.x, y: originY + p.y, w: p.w, h: p.h };
      boxes.set(id, box);
      if (level.inner.has(id)) {
        drawRegion(id, box, level.inner.get(id), boxes);
      } else {
        drawState(id, box, level.sizes.get(id));
      }
    });
    drawInitial(parent, boxes);
    if (level.expand) {
      level.childIds.forEach(function (region) {
        var b = boxes.get(region);
        if (b && level.inner.has(region)) { drawInitial(node(region), boxes); }
      });
    }
    drawEdges(level, boxes, { x: 0, y: 0, w: frameW, h: frameH });
    growFrame(frameRect, frameW, frameH);
    view.bounds = contentBounds({ x: 0, y: 0, width: frameW, height: frameH });
  }

  // Labels are placed after the layout, so the frame grows to hold any that stick out of it.
  function growFrame(frameRect, frameW, frameH) {
    var left = 0, top = 0, right = frameW, bottom = frameH;
    var inside = viewport.querySelectorAll("[data-state-id], .edge-label, .initial");
    for (var i = 0; i < inside.length; i++) {
      if (inside[i].closest("[data-ghost-id]")) { continue; }
      var b;
      try { b = inside[i].getBBox(); } catch (e) { continue; }
      if (!b || (!b.width && !b.height)) { continue; }
      left = Math.min(left, b.x - 12); top = Math.min(top, b.y - 12);
      right = Math.max(right, b.x + b.width + 12); bottom = Math.max(bottom, b.y + b.height + 12);
    }
    frameRect.setAttribute("x", left); frameRect.setAttribute("y", top);
    frameRect.setAttribute("width", right - left); frameRect.setAttribute("height", bottom - top);
  }

  // Everything drawn (ghost states and self-loops may stick out of the frame), with a margin.
  function contentBounds(fallback) {
    var box = fallback;
    try { box = viewport.getBBox(); } catch (e) { /* not laid out (hidden frame): use the frame */ }
    if (!box || !box.width) { box = fallback; }
    return { x: box.x - 12, y: box.y - 12, w: box.width + 24, h: box.height + 24 };
  }

  function drawRegion(id, box, sub, boxes) {
    var g = el("g", { "class": "state region-group" + stateClasses(id), "data-state-id": id }, layers.states);
    el("rect", { "class": "region box", x: box.x, y: box.y, width: box.w, height: box.h, rx: 6 }, g);
    var label = el("text", { "class": "region-title", x: box.x + 10, y: box.y + 16 }, g);
    label.textContent = node(id).label;
    kids(id).forEach(function (child) {
      var p = sub.placed.get(child);
      var inner = { x: box.x + 40 + p.x, y: box.y + 62 + p.y, w: p.w, h: p.h };
      boxes.set(child, inner);
      drawState(child, inner, sub.sizes.get(child));
    });
  }

  function stateClasses(id) {
    var classes = "";
    if (view.mode === "simulate" && view.active && view.active.has(id)) { classes += " active"; }
    if (view.selected && view.selected.kind === "state" && view.selected.id === id) { classes += " selected"; }
    return classes;
  }

  function drawState(id, box, size) {
    var n = node(id);
    var container = kids(id).length > 0;
    var cls = "state " + n.type + (container ? " container" : "") + stateClasses(id);
    var g = el("g", { "class": cls, "data-state-id": id, tabindex: -1 }, layers.states);
    if (n.type === "history") {
      el("circle", { cx: box.x + box.w / 2, cy: box.y + box.h / 2, r: box.w / 2 }, g);
      text(g, box.x + box.w / 2, box.y + box.h / 2, n.history === "deep" ? "H*" : "H");
      var tip = el("title", {}, g); tip.textContent = n.label;
      return;
    }
    el("rect", { "class": "box", x: box.x, y: box.y, width: box.w, height: box.h, rx: 8 }, g);
    if (n.type === "final") {
      el("rect", { x: box.x + 4, y: box.y + 4, width: box.w - 8, height: box.h - 8, rx: 6, fill: "none" }, g);
    }
    text(g, box.x + box.w / 2, box.y + 16, clipText(n.label, 40));
    var full = el("title", {}, g); full.textContent = n.label;
    (size && size.sub ? size.sub : []).forEach(function (line, index) {
      text(g, box.x + box.w / 2, box.y + 32 + index * 15, line, "sub");
    });
  }

  function drawInitial(parent, boxes) {
    if (parent.type === "parallel") { return; }
    var initial = parent.initialId;
    if (!initial || !boxes.has(initial)) { return; }
    var b = boxes.get(initial);
    var h = horizontal();
    // Across the flow (left of the state going down, above it going right), where edges from
    // the previous layer do not arrive.
    var x = h ? b.x + b.w / 2 : b.x - 26, y = h ? b.y - 24 : b.y + b.h / 2;
    el("circle", { "class": "initial", cx: x, cy: y, r: 5, "data-initial-of": parent.id }, layers.states);
    el("path", { "class": "initial-arrow", d: "M" + x + "," + y + " L" + (h ? x : b.x - 2) + "," + (h ? b.y - 2 : y),
      stroke: "currentColor", "marker-end": "url(#arrow)" }, layers.states).setAttribute("style", "stroke: var(--ink)");
  }

  function center(b) { return { x: b.x + b.w / 2, y: b.y + b.h / 2 }; }
  // Where the line from the box center toward `toward` leaves the box.
  function border(b, toward) {
    var c = center(b);
    var dx = toward.x - c.x, dy = toward.y - c.y;
    if (dx === 0 && dy === 0) { return c; }
    var sx = dx !== 0 ? (b.w / 2) / Math.abs(dx) : Infinity;
    var sy = dy !== 0 ? (b.h / 2) / Math.abs(dy) : Infinity;
    var s = Math.min(sx, sy);
    return { x: c.x + dx * s, y: c.y + dy * s };
  }

  function drawEdges(level, boxes, frame) {
    var shown = new Set(boxes.keys());
    var enabled = new Set(view.mode === "simulate" ? enabledEdges().map(function (e) { return e.id; }) : []);
    var ghosts = new Map();
    var drawable = [];
    var pairTotal = new Map();
    view.graph.edges.forEach(function (edge) {
      var from = liftTo(edge.sourceId, shown), to = liftTo(edge.targetId, shown);
      if (from === null && to === null) { return; }
      if (from !== null && from === to && from !== edge.sourceId) { return; }
      var fromKey = from !== null ? from : "#" + edge.sourceId, toKey = to !== null ? to : "#" + edge.targetId;
      var key = fromKey < toKey ? fromKey + "\u0001" + toKey : toKey + "\u0001" + fromKey;
      pairTotal.set(key, (pairTotal.get(key) || 0) + 1);
      drawable.push({ edge: edge, from: from, to: to, key: key, forward: fromKey <= toKey });
    });
    var pairSeen = new Map();
    drawable.forEach(function (item) {
      var edge = item.edge;
      var a = item.from !== null ? boxes.get(item.from) : ghostBox(edge.sourceId, ghosts, frame);
      var b = item.to !== null ? boxes.get(item.to) : ghostBox(edge.targetId, ghosts, frame);
      var nth = pairSeen.get(item.key) || 0;
      pairSeen.set(item.key, nth + 1);
      var cls = "edge" + (edge.targetless ? " targetless" : "") + (enabled.has(edge.id) ? " enabled" : "") +
        (view.selected && view.selected.kind === "edge" && view.selected.id === edge.id ? " selected" : "");
      var g = el("g", { "class": cls, "data-edge-id": edge.id, "data-source-id": edge.sourceId,
        "data-target-id": edge.targetId }, layers.edges);
      var d, labelAt, side = { x: 0, y: 0 };
      if (a === b) {
        var x = a.x + a.w, y = a.y + a.h / 2, loop = 26 + nth * 18;
        d = "M" + x + "," + (y - 8) + " C" + (x + loop) + "," + (y - 26 - nth * 6) + " " + (x + loop) + "," + (y + 26 + nth * 6) + " " + x + "," + (y + 8);
        labelAt = { x: x + loop * 0.75 + 4, y: y };
        side = { x: 1, y: 0 };
      } else {
        var ca = center(a), cb = center(b);
        // The normal of the canonical direction, so A->B and B->A bend to opposite sides.
        var p0 = item.forward ? ca : cb, p1 = item.forward ? cb : ca;
        var nx = -(p1.y - p0.y), ny = p1.x - p0.x, len = Math.sqrt(nx * nx + ny * ny) || 1;
        nx /= len; ny /= len;
        var bend = 0;
        if (pairTotal.get(item.key) > 1) { bend = (nth % 2 ? -1 : 1) * (36 + 30 * Math.floor(nth / 2)); }
        // An edge that jumps over other states (a loop back to the start) arcs around them.
        var span = Math.sqrt(Math.pow(cb.x - ca.x, 2) + Math.pow(cb.y - ca.y, 2));
        if (span > 260) { bend += (bend < 0 ? -1 : 1) * Math.min(40 + span * 0.12, 320); }
        var mx = (ca.x + cb.x) / 2, my = (ca.y + cb.y) / 2;
        var cx = mx + nx * bend, cy = my + ny * bend;
        var pa = border(a, { x: cx, y: cy }), pb = border(b, { x: cx, y: cy });
        d = "M" + pa.x + "," + pa.y + " Q" + cx + "," + cy + " " + pb.x + "," + pb.y;
        labelAt = { x: (pa.x + 2 * cx + pb.x) / 4, y: (pa.y + 2 * cy + pb.y) / 4 };
        if (bend !== 0) { side = { x: nx * Math.sign(bend), y: ny * Math.sign(bend) }; }
      }
      el("path", { d: d, "marker-end": "url(#arrow)" }, g);
      var label = el("g", { "class": "edge-label" + (enabled.has(edge.id) ? " enabled" : ""),
        "data-edge-id": edge.id }, layers.labels);
      var caption = edge.label || edge.event || "";
      var w = textWidth(caption, 11) + 10;
      // A bent edge's label sits on the outer side of its curve, clear of its twin's label.
      var lx = labelAt.x + (Math.abs(side.x) > Math.abs(side.y) ? Math.sign(side.x) * (w / 2 + 2) : 0);
      var ly = labelAt.y + (Math.abs(side.y) >= Math.abs(side.x) && side.y !== 0 ? Math.sign(side.y) * 11 : 0);
      el("rect", { x: lx - w / 2, y: ly - 9, width: w, height: 18, rx: 4 }, label);
      text(label, lx, ly, caption);
    });
  }

  function ghostBox(id, ghosts, frame) {
    if (ghosts.has(id)) { return ghosts.get(id); }
    var caption = "#" + id;
    var w = Math.min(textWidth(caption, 11) + 16, 260), h = 24;
    var index = ghosts.size;
    var box = horizontal()
      ? { x: frame.x + frame.w + 30, y: frame.y + 10 + index * 34, w: w, h: h }
      : { x: frame.x + 10 + index * (w + 16), y: frame.y + frame.h + 30, w: w, h: h };
    ghosts.set(id, box);
    var g = el("g", { "class": "state ghost", "data-ghost-id": id }, layers.states);
    el("rect", { "class": "box", x: box.x, y: box.y, width: box.w, height: box.h, rx: 6 }, g);
    text(g, box.x + box.w / 2, box.y + h / 2, caption);
    return box;
  }

  // ---------------------------------------------------------------- chrome: breadcrumbs, panel

  function updateChrome() {
    document.body.dataset.mode = view.mode;
    document.body.dataset.parent = view.parentId;
    ["select", "pan", "simulate"].forEach(function (mode) {
      $("mode-" + mode).setAttribute("aria-pressed", String(view.mode === mode));
    });
    var crumbs = $("breadcrumbs");
    while (crumbs.firstChild) { crumbs.removeChild(crumbs.firstChild); }
    ancestors(view.parentId).forEach(function (id, index, all) {
      if (index) { var sep = document.createElement("span"); sep.className = "sep"; sep.textContent = "\u203A"; crumbs.appendChild(sep); }
      var button = document.createElement("button");
      button.type = "button";
      button.textContent = node(id).label;
      button.dataset.nodeId = id;
      if (index === all.length - 1) { button.setAttribute("aria-current", "page"); }
      button.addEventListener("click", function () { drillTo(id); });
      crumbs.appendChild(button);
    });
    renderDetails();
    renderEvents();
    applyTransform();
  }

  function renderDetails() {
    var body = $("details-body");
    while (body.firstChild) { body.removeChild(body.firstChild); }
    if (!view.selected) { return; }
    var rows = [];
    if (view.selected.kind === "state") {
      var n = node(view.selected.id);
      rows = [["State", n.label], ["Id", n.id], ["Type", n.type + (n.history ? " (" + n.history + ")" : "")],
        ["Substates", String(countDescendants(n.id))]];
      if (n.description) { rows.push(["About", n.description]); }
      n.details.forEach(function (d) { rows.push(["", d]); });
      view.graph.edges.forEach(function (e) { if (e.sourceId === n.id) { rows.push(["On", e.label + " \u2192 " + node(e.targetId).label]); } });
    } else {
      var edge = view.graph.edges.filter(function (e) { return e.id === view.selected.id; })[0];
      if (edge) { rows = [["Transition", edge.label], ["From", edge.sourceId], ["To", edge.targetless ? "(stays)" : edge.targetId]]; }
    }
    var list = document.createElement("dl");
    rows.forEach(function (row) {
      var dt = document.createElement("dt"); dt.textContent = row[0];
      var dd = document.createElement("dd"); dd.textContent = row[1];
      list.appendChild(dt); list.appendChild(dd);
    });
    body.appendChild(list);
  }

  function renderEvents() {
    var box = $("events");
    while (box.firstChild) { box.removeChild(box.firstChild); }
    var path = $("sim-path");
    while (path.firstChild) { path.removeChild(path.firstChild); }
    if (view.mode !== "simulate" || !view.active) { return; }
    enabledEdges().forEach(function (edge) {
      var button = document.createElement("button");
      button.type = "button";
      button.dataset.edgeId = edge.id;
      button.textContent = (edge.label || edge.event) + (edge.targetless ? "" : " \u2192 " + node(edge.targetId).label);
      button.addEventListener("click", function () { simulateEdge(edge); });
      box.appendChild(button);
    });
    view.path.forEach(function (step) {
      var item = document.createElement("li"); item.textContent = step; path.appendChild(item);
    });
    var active = Array.from(view.active).filter(function (id) { return !kids(id).length; });
    document.body.dataset.active = active.join(" ");
  }

  function simulateEdge(edge) {
    if (takeTransition(edge)) { render(); }
  }

  // ---------------------------------------------------------------- navigation and viewport

  function drillTo(id) {
    if (!view.graph.nodes.has(id) || !kids(id).length) { return; }
    view.parentId = id;
    render();
    fitToView();
  }
  function drillUp() {
    var parent = node(view.parentId).parentId;
    if (parent !== null) { drillTo(parent); }
  }

  function applyTransform() {
    viewport.setAttribute("transform", "translate(" + view.panX + "," + view.panY + ") scale(" + view.zoom + ")");
    $("zoom-level").textContent = Math.round(view.zoom * 100) + "%";
    document.body.dataset.zoom = view.zoom.toFixed(3);
  }

  function fitToView() {
    if (!view.bounds) { return; }
    var rect = canvas.getBoundingClientRect();
    var width = rect.width || 800, height = rect.height || 500;
    var zoom = Math.min(width / view.bounds.w, height / view.bounds.h, 1.6);
    view.zoom = Math.max(0.05, zoom);
    view.panX = (width - view.bounds.w * view.zoom) / 2 - view.bounds.x * view.zoom;
    view.panY = (height - view.bounds.h * view.zoom) / 2 - view.bounds.y * view.zoom;
    applyTransform();
  }

  function zoomBy(factor, at) {
    var rect = canvas.getBoundingClientRect();
    var point = at || { x: rect.width / 2, y: rect.height / 2 };
    var next = Math.min(8, Math.max(0.05, view.zoom * factor));
    view.panX = point.x - (point.x - view.panX) * (next / view.zoom);
    view.panY = point.y - (point.y - view.panY) * (next / view.zoom);
    view.zoom = next;
    applyTransform();
  }

  function setMode(mode) {
    view.mode = mode;
    if (mode === "simulate" && !view.active) { restartSimulation(); }
    render();
  }

  // ---------------------------------------------------------------- input

  var drag = null;
  canvas.addEventListener("pointerdown", function (event) {
    stage.focus();
    var target = event.target instanceof Element ? event.target : null;
    var onItem = target && target.closest("[data-state-id], [data-edge-id]");
    if (view.mode === "pan" || !onItem) {
      drag = { x: event.clientX, y: event.clientY, panX: view.panX, panY: view.panY };
      document.body.classList.add("dragging");
    }
  });
  // Window listeners instead of pointer capture: capture would retarget clicks to the canvas
  // and a double click on a state could no longer drill into it.
  window.addEventListener("pointermove", function (event) {
    if (!drag) { return; }
    view.panX = drag.panX + event.clientX - drag.x;
    view.panY = drag.panY + event.clientY - drag.y;
    applyTransform();
  });
  function endDrag() { drag = null; document.body.classList.remove("dragging"); }
  window.addEventListener("pointerup", endDrag);
  window.addEventListener("pointercancel", endDrag);

  canvas.addEventListener("click", function (event) {
    if (!view.graph) { return; }
    var target = event.target instanceof Element ? event.target : null;
    if (!target) { return; }
    var edgeEl = target.closest("[data-edge-id]");
    var stateEl = target.closest("[data-state-id]");
    var ghostEl = target.closest("[data-ghost-id]");
    if (view.mode === "simulate" && edgeEl) {
      var edge = view.graph.edges.filter(function (e) { return e.id === edgeEl.getAttribute("data-edge-id"); })[0];
      if (edge) { simulateEdge(edge); }
      return;
    }
    if (view.mode === "select") {
      if (ghostEl) {
        var ghost = ghostEl.getAttribute("data-ghost-id");
        if (view.graph.nodes.has(ghost)) { drillTo(node(ghost).parentId || ghost); }
        return;
      }
      if (edgeEl) { view.selected = { kind: "edge", id: edgeEl.getAttribute("data-edge-id") }; }
      else if (stateEl) { view.selected = { kind: "state", id: stateEl.getAttribute("data-state-id") }; }
      else { view.selected = null; }
      render();
    }
  });
  canvas.addEventListener("dblclick", function (event) {
    var target = event.target instanceof Element ? event.target.closest("[data-state-id]") : null;
    if (target) { drillTo(target.getAttribute("data-state-id")); }
  });
  canvas.addEventListener("wheel", function (event) {
    event.preventDefault();
    var rect = canvas.getBoundingClientRect();
    zoomBy(event.deltaY < 0 ? 1.15 : 1 / 1.15, { x: event.clientX - rect.left, y: event.clientY - rect.top });
  }, { passive: false });

  document.addEventListener("keydown", function (event) {
    if (!view.graph || event.ctrlKey || event.metaKey || event.altKey) { return; }
    var key = event.key;
    var handled = true;
    if (key === "v" || key === "V") { setMode("select"); }
    else if (key === "h" || key === "H") { setMode("pan"); }
    else if (key === "s" || key === "S") { setMode("simulate"); }
    else if (key === "+" || key === "=") { zoomBy(1.25); }
    else if (key === "-" || key === "_") { zoomBy(0.8); }
    else if (key === "f" || key === "F" || key === "0") { fitToView(); }
    else if (key === "Escape" || key === "Backspace") { drillUp(); }
    else if (key === "Enter") {
      if (view.selected && view.selected.kind === "state") { drillTo(view.selected.id); }
    }
    else if (key === "r" || key === "R") { if (view.mode === "simulate") { restartSimulation(); render(); } }
    else if (key === "ArrowLeft") { view.panX += 40; applyTransform(); }
    else if (key === "ArrowRight") { view.panX -= 40; applyTransform(); }
    else if (key === "ArrowUp") { view.panY += 40; applyTransform(); }
    else if (key === "ArrowDown") { view.panY -= 40; applyTransform(); }
    else { handled = false; }
    if (handled) { event.preventDefault(); }
  });

  ["select", "pan", "simulate"].forEach(function (mode) {
    $("mode-" + mode).addEventListener("click", function () { if (view.graph) { setMode(mode); } });
  });
  $("zoom-in").addEventListener("click", function () { zoomBy(1.25); });
  $("zoom-out").addEventListener("click", function () { zoomBy(0.8); });
  $("fit").addEventListener("click", fitToView);
  $("sim-reset").addEventListener("click", function () { restartSimulation(); render(); });

  // ---------------------------------------------------------------- showing a result

  function showMessage(status, message) {
    document.body.dataset.status = status;
    $("message").textContent = message;
  }

  function showResult(result) {
    var decoded = decodeResult(result);
    if (decoded.rerun) { view.graph = null; showMessage("rerun", RERUN); return; }
    if (decoded.error) { view.graph = null; showMessage("error", decoded.error); return; }
    view.graph = decoded.graph;
    view.layouts = decoded.layouts || null;
    view.parentId = kids(view.graph.rootId).length ? view.graph.rootId : view.graph.rootId;
    view.mode = "pan";
    view.selected = null;
    view.active = null;
    view.path = [];
    showMessage("ready", "");
    render();
    fitToView();
  }

  // ---------------------------------------------------------------- MCP Apps host protocol

  var nextId = 1;
  var pending = new Map();
  function post(message) { if (window.parent && window.parent !== window) { window.parent.postMessage(message, "*"); } }
  function request(method, params) {
    var id = nextId++;
    return new Promise(function (resolve, reject) {
      pending.set(id, { resolve: resolve, reject: reject });
      post({ jsonrpc: "2.0", id: id, method: method, params: params });
    });
  }
  function notify(method, params) { post({ jsonrpc: "2.0", method: method, params: params || {} }); }

  function applyHostContext(context) {
    if (!context || typeof context !== "object") { return; }
    if (context.theme === "dark" || context.theme === "light") { document.documentElement.dataset.theme = context.theme; }
  }

  window.addEventListener("message", function (event) {
    if (event.source !== window.parent || window.parent === window) { return; }
    var message = event.data;
    if (!message || typeof message !== "object" || message.jsonrpc !== "2.0") { return; }
    if (message.id !== undefined && message.method === undefined) {
      var waiting = pending.get(message.id);
      if (waiting) {
        pending.delete(message.id);
        if (message.error) { waiting.reject(message.error); } else { waiting.resolve(message.result); }
      }
      return;
    }
    var params = message.params || {};
    if (message.method === "ui/notifications/tool-result") { showResult(params); }
    else if (message.method === "ui/notifications/tool-input") {
      var direction = params.arguments && params.arguments.direction;
      var across = ["right", "left", "LR", "RL"].indexOf(direction) >= 0;
      document.body.dataset.direction = across ? "right" : "down";
      if (view.graph) { render(); } else { showMessage("waiting", "Drawing the machine\u2026"); }
    }
    else if (message.method === "ui/notifications/tool-cancelled") {
      if (!view.graph) { showMessage("error", "The tool call was cancelled."); }
    }
    else if (message.method === "ui/notifications/host-context-changed") { applyHostContext(params); }
    else if (message.method === "ui/resource-teardown" && message.id !== undefined) {
      post({ jsonrpc: "2.0", id: message.id, result: {} });
    }
    else if (message.method === "ping" && message.id !== undefined) {
      post({ jsonrpc: "2.0", id: message.id, result: {} });
    }
    else if (message.id !== undefined) {
      post({ jsonrpc: "2.0", id: message.id, error: { code: -32601, message: "Method not found" } });
    }
  });

  showMessage("waiting", "Waiting for a visualize_machine result\u2026");
  if (window.parent && window.parent !== window) {
    request("ui/initialize", {
      protocolVersion: PROTOCOL_VERSION,
      appInfo: { name: "statekit-machine-viewer", version: "1.0.0" },
      appCapabilities: { availableDisplayModes: ["inline", "fullscreen"] }
    }).then(function (result) {
      if (result && result.hostContext) { applyHostContext(result.hostContext); }
      notify("ui/notifications/initialized", {});
      notify("ui/notifications/size-changed", { width: document.documentElement.scrollWidth, height: 560 });
    }, function () {
      showMessage("error", "The host did not accept the app.");
    });
  } else {
    // A standalone page (`statekit render -o out.html`) carries its result as inert JSON.
    var embedded = document.getElementById("statekit-result");
    if (embedded) {
      try { showResult(JSON.parse(embedded.textContent || "")); }
      catch (e) { showMessage("error", "The embedded result could not be read."); }
    } else {
      showMessage("waiting", "Open this viewer from an MCP Apps host to see a machine.");
    }
  }
  window.addEventListener("resize", function () { if (view.graph) { applyTransform(); } });
})();
