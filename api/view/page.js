// SPDX-License-Identifier: Apache-2.0
// openvgf view: draws the graph that openvgf laid out (positions come with the data), with
// zoom/pan, search, a side panel of attributes and, when a profile was given, GPU-time colours.
// Every name from the model is inserted as text (textContent), never as markup.
'use strict';
(function () {
  const body = document.body;
  const errors = [];
  // Script errors are kept on the page too, so a headless check can read them from the DOM.
  window.addEventListener('error', function (event) {
    errors.push(String(event.message));
    body.dataset.errors = errors.join('\n');
  });

  const started = performance.now();
  const data = JSON.parse(document.getElementById('graph-data').textContent);
  const parsed = performance.now();
  const SVG = 'http://www.w3.org/2000/svg';
  const svg = document.getElementById('graph');
  const viewport = document.getElementById('viewport');
  const canvas = document.getElementById('canvas');
  const panel = document.getElementById('panel');
  const nodes = data.nodes;
  const edges = data.edges;
  const CULL_FROM = 600;  // with more nodes, only what is on screen is displayed
  // The canvas size, read once before the graph is built (and on resize): reading it later would
  // force the browser to lay out every element, hidden or not, before the first frame.
  const size = { w: canvas.clientWidth, h: canvas.clientHeight };
  const culling = nodes.length >= CULL_FROM;

  function make(tag, attrs, parent) {
    const e = document.createElementNS(SVG, tag);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }
  function html(tag, text, parent, cls) {
    const e = document.createElement(tag);
    if (text !== undefined) e.textContent = text;
    if (cls) e.className = cls;
    if (parent) parent.appendChild(e);
    return e;
  }
  function shorten(text, max) { return text.length > max ? text.slice(0, max - 1) + '\u2026' : text; }

  document.getElementById('title').textContent = data.title + (data.format ? ' \u2014 ' + data.format : '');

  // Edges in and out of every node, for the panel and highlighting.
  const inputsOf = nodes.map(function () { return []; });
  const outputsOf = nodes.map(function () { return []; });
  edges.forEach(function (e, i) { inputsOf[e.to].push(i); outputsOf[e.from].push(i); });

  // Segment / delegate boundaries: the box around each group's nodes.
  const groups = new Map();
  nodes.forEach(function (n) {
    if (!n.group) return;
    const b = groups.get(n.group) || { x0: Infinity, y0: Infinity, x1: -Infinity, y1: -Infinity };
    b.x0 = Math.min(b.x0, n.x); b.y0 = Math.min(b.y0, n.y);
    b.x1 = Math.max(b.x1, n.x + n.w); b.y1 = Math.max(b.y1, n.y + n.h);
    groups.set(n.group, b);
  });
  const groupLayer = make('g', { class: 'groups' }, viewport);
  groups.forEach(function (b, name) {
    const g = make('g', { class: 'group' }, groupLayer);
    make('rect', { x: b.x0 - 14, y: b.y0 - 24, width: b.x1 - b.x0 + 28, height: b.y1 - b.y0 + 38, rx: 8 }, g);
    make('text', { x: b.x0 - 8, y: b.y0 - 9 }, g).textContent = name;
  });

  // GPU time colours (white -> orange -> brown by the share of the slowest node's time).
  let maxMs = 0;
  nodes.forEach(function (n) { if (n.gpuMs !== undefined) maxMs = Math.max(maxMs, n.gpuMs); });
  function heat(ms) {
    const t = maxMs > 0 ? Math.sqrt(ms / maxMs) : 0;
    const stops = [[255, 245, 235], [253, 141, 60], [166, 54, 3]];
    const s = t < 0.5 ? 0 : 1;
    const u = t < 0.5 ? t * 2 : (t - 0.5) * 2;
    const c = stops[s].map(function (v, k) { return Math.round(v + (stops[s + 1][k] - v) * u); });
    return 'rgb(' + c.join(',') + ')';
  }
  if (maxMs > 0) {
    const legend = document.getElementById('legend');
    html('span', 'GPU time 0', legend);
    html('span', undefined, legend, 'ramp');
    html('span', maxMs.toFixed(3) + ' ms', legend);
  }

  // ---- zoom, pan and what is displayed ----
  const view = { s: 1, tx: 0, ty: 0 };
  function fitView() {
    const s = Math.min(size.w / Math.max(data.width, 1), size.h / Math.max(data.height, 1), 1.5);
    if (s >= 0.2) {
      view.s = s;
      view.tx = (size.w - data.width * s) / 2;
      view.ty = (size.h - data.height * s) / 2;
    } else {
      // Too large to read whole: start at the top (the inputs), at a readable scale.
      view.s = Math.max(0.5, Math.min(1, size.w / Math.max(data.width, 1)));
      view.tx = Math.min(0, (size.w - data.width * view.s) / 2);
      view.ty = 0;
    }
  }
  function visibleArea() {
    const pad = 200 / view.s;
    const x0 = -view.tx / view.s - pad, y0 = -view.ty / view.s - pad;
    return [x0, y0, x0 + size.w / view.s + 2 * pad, y0 + size.h / view.s + 2 * pad];
  }
  function inside(a, x0, y0, x1, y1) { return x1 >= a[0] && x0 <= a[2] && y1 >= a[1] && y0 <= a[3]; }
  fitView();
  const area = visibleArea();

  // The graph is written as SVG markup, one string per group, and parsed by the browser in one
  // go (several times faster than an element at a time for thousands of nodes). Every name is
  // escaped. Groups are tiles: the nodes and the edges that start in an 800 px square, each
  // with the box of what it holds, so a large graph's hidden tiles cost the browser nothing
  // (no style, no layout, no paint) and panning only toggles tiles.
  function esc(text) {
    return String(text).replace(/[&<>"']/g, function (c) {
      return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c];
    });
  }
  const TILE = 800;
  const edgeLayer = make('g', { class: 'edges' }, viewport);
  const nodeLayer = make('g', { class: 'nodes' }, viewport);
  const defs = make('defs', {}, svg);
  const marker = make('marker', { id: 'arrow', viewBox: '0 0 10 10', refX: 10, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto' }, defs);
  make('path', { d: 'M0,0 L10,5 L0,10 z', fill: '#9aa0a6' }, marker);
  const tiles = new Map();  // key -> {nodes: [markup], edges: [markup], nbox, ebox, nodeEl, edgeEl}
  function tileAt(x, y) {
    const key = culling ? Math.floor(x / TILE) + ',' + Math.floor(y / TILE) : '0';
    let t = tiles.get(key);
    if (!t) {
      t = { nodes: [], edges: [], nbox: [Infinity, Infinity, -Infinity, -Infinity], ebox: [Infinity, Infinity, -Infinity, -Infinity] };
      tiles.set(key, t);
    }
    return t;
  }
  function grow(box, x0, y0, x1, y1) {
    box[0] = Math.min(box[0], x0); box[1] = Math.min(box[1], y0);
    box[2] = Math.max(box[2], x1); box[3] = Math.max(box[3], y1);
  }
  const labelled = edges.length <= 3000;
  const edgeTile = new Array(edges.length);
  const nodeTile = new Array(nodes.length);
  edges.forEach(function (e, i) {
    const p = e.points;
    let d = 'M' + p[0] + ',' + p[1];
    let x0 = p[0], x1 = p[0], y0 = p[1], y1 = p[1];
    for (let k = 2; k + 1 < p.length; k += 2) {
      const my = (p[k - 1] + p[k + 1]) / 2;
      d += ' C' + p[k - 2] + ',' + my + ' ' + p[k] + ',' + my + ' ' + p[k] + ',' + p[k + 1];
      x0 = Math.min(x0, p[k]); x1 = Math.max(x1, p[k]); y0 = Math.min(y0, p[k + 1]); y1 = Math.max(y1, p[k + 1]);
    }
    const t = tileAt(p[0], p[1]);
    edgeTile[i] = t;
    t.edges.push('<path class="edge" data-edge="' + i + '" d="' + d + '" marker-end="url(#arrow)"/>');
    // Just below the producer, where the segment boxes leave room (their titles sit on top).
    if (labelled && e.type) t.edges.push('<text class="elabel" x="' + (p[0] + 4) + '" y="' + (p[1] + 14) + '">' + esc(e.type) + '</text>');
    grow(t.ebox, x0, y0, x1 + 200, y1);
  });
  nodes.forEach(function (n, i) {
    const io = n.kind === 'input' || n.kind === 'output';
    const fill = n.gpuMs !== undefined ? heat(n.gpuMs) : maxMs > 0 && !io ? '#f1f3f4' : '';
    const t = tileAt(n.x, n.y);
    nodeTile[i] = t;
    t.nodes.push('<g class="node k-' + esc(n.kind) + (n.lowering ? ' l-' + esc(n.lowering) : '') + '" transform="translate(' +
                 n.x + ',' + n.y + ')" data-index="' + i + '" data-kind="' + esc(n.kind) + '"><rect width="' + n.w +
                 '" height="' + n.h + '" rx="' + (io ? n.h / 2 : 5) + '"' + (fill ? ' style="fill:' + fill + '"' : '') +
                 '/><text x="' + n.w / 2 + '" y="' + (io ? 19 : 17) + '" class="l">' + esc(io ? shorten(n.name, 28) : n.label) +
                 '</text>' + (io ? '' : '<text x="' + n.w / 2 + '" y="32" class="n">' + esc(shorten(n.name, 28)) + '</text>') + '</g>');
    grow(t.nbox, n.x, n.y, n.x + n.w, n.y + n.h);
  });
  // A tile becomes elements when it is first on screen, or in the background after the first
  // frame; `ready` is set once every tile has (then the DOM holds every node).
  const edgeEls = new Array(edges.length);
  const nodeEls = new Array(nodes.length);
  function materialize(t) {
    if (t.done) return;
    t.done = true;
    if (t.edges.length) {
      t.edgeEl = make('g', {}, edgeLayer);
      if (culling && !inside(visibleArea(), t.ebox[0], t.ebox[1], t.ebox[2], t.ebox[3])) t.edgeEl.style.display = 'none';
      t.edgeEl.innerHTML = t.edges.join('');
      t.edgeEl.querySelectorAll('path').forEach(function (el) { edgeEls[Number(el.dataset.edge)] = el; });
    }
    if (t.nodes.length) {
      t.nodeEl = make('g', {}, nodeLayer);
      if (culling && !inside(visibleArea(), t.nbox[0], t.nbox[1], t.nbox[2], t.nbox[3])) t.nodeEl.style.display = 'none';
      t.nodeEl.innerHTML = t.nodes.join('');
      for (let el = t.nodeEl.firstChild; el; el = el.nextSibling) nodeEls[Number(el.dataset.index)] = el;
    }
    t.nodes = t.edges = null;
  }
  function nodeEl(i) { materialize(nodeTile[i]); return nodeEls[i]; }
  function edgeEl(i) { materialize(edgeTile[i]); return edgeEls[i]; }
  tiles.forEach(function (t) {
    if (!culling || inside(area, t.nbox[0], t.nbox[1], t.nbox[2], t.nbox[3]) ||
        inside(area, t.ebox[0], t.ebox[1], t.ebox[2], t.ebox[3])) materialize(t);
  });
  function materializeRest(done) {
    const started = performance.now();
    for (const t of tiles.values()) {
      if (t.done) continue;
      materialize(t);
      if (performance.now() - started > 30) { setTimeout(function () { materializeRest(done); }, 0); return; }
    }
    done();
  }

  let scheduled = false;
  function apply() {
    viewport.setAttribute('transform', 'translate(' + view.tx + ',' + view.ty + ') scale(' + view.s + ')');
    svg.classList.toggle('far', view.s < 0.35);
    svg.classList.toggle('near', view.s >= 0.7);
    if (!scheduled) { scheduled = true; requestAnimationFrame(cull); }
  }
  function cull() {
    scheduled = false;
    if (!culling) return;
    const a = visibleArea();
    const show = function (el, box) {
      if (!el) return;
      const visible = inside(a, box[0], box[1], box[2], box[3]);
      if ((el.style.display !== 'none') !== visible) el.style.display = visible ? '' : 'none';
    };
    tiles.forEach(function (t) {
      if (!t.done && (inside(a, t.nbox[0], t.nbox[1], t.nbox[2], t.nbox[3]) || inside(a, t.ebox[0], t.ebox[1], t.ebox[2], t.ebox[3]))) materialize(t);
      show(t.nodeEl, t.nbox);
      show(t.edgeEl, t.ebox);
    });
  }
  function fit() { fitView(); apply(); }
  function centerOn(n) {
    view.s = Math.max(view.s, 0.8);
    view.tx = size.w / 2 - (n.x + n.w / 2) * view.s;
    view.ty = size.h / 2 - (n.y + n.h / 2) * view.s;
    apply();
  }
  window.addEventListener('resize', function () { size.w = canvas.clientWidth; size.h = canvas.clientHeight; apply(); });
  canvas.addEventListener('wheel', function (event) {
    event.preventDefault();
    const r = canvas.getBoundingClientRect();
    const px = event.clientX - r.left, py = event.clientY - r.top;
    const factor = Math.exp(-event.deltaY * 0.0015);
    const s = Math.min(4, Math.max(0.02, view.s * factor));
    view.tx = px - (px - view.tx) * (s / view.s);
    view.ty = py - (py - view.ty) * (s / view.s);
    view.s = s;
    apply();
  }, { passive: false });
  let drag = null;
  canvas.addEventListener('pointerdown', function (event) {
    drag = { x: event.clientX, y: event.clientY, tx: view.tx, ty: view.ty, moved: false };
    canvas.setPointerCapture(event.pointerId);
  });
  canvas.addEventListener('pointermove', function (event) {
    if (!drag) return;
    const dx = event.clientX - drag.x, dy = event.clientY - drag.y;
    if (Math.abs(dx) + Math.abs(dy) > 3) { drag.moved = true; canvas.classList.add('dragging'); }
    view.tx = drag.tx + dx; view.ty = drag.ty + dy;
    apply();
  });
  canvas.addEventListener('pointerup', function (event) {
    const wasDrag = drag && drag.moved;
    drag = null;
    canvas.classList.remove('dragging');
    if (wasDrag) return;
    const hit = document.elementFromPoint(event.clientX, event.clientY);
    const g = hit && hit.closest ? hit.closest('.node') : null;
    if (g) select(Number(g.dataset.index));
  });
  document.getElementById('fit').addEventListener('click', fit);

  // ---- side panel ----
  let selected = -1;
  function row(table, key, value, onClick) {
    const tr = html('tr', undefined, table);
    html('td', key, tr);
    const td = html('td', value, tr);
    if (onClick) { td.className = 'link'; td.addEventListener('click', onClick); }
  }
  function overview() {
    panel.textContent = '';
    html('h2', data.title, panel);
    const t = html('table', undefined, panel);
    row(t, 'format', data.format);
    const counts = {};
    nodes.forEach(function (n) { counts[n.kind] = (counts[n.kind] || 0) + 1; });
    Object.keys(counts).forEach(function (k) { row(t, k + ' nodes', String(counts[k])); });
    row(t, 'tensors (edges)', String(edges.length));
    if (groups.size) row(t, 'segments / delegates', String(groups.size));
    data.notes.forEach(function (note) { html('p', note, panel, 'note'); });
    html('p', 'Click a node for its attributes; drag to pan, wheel to zoom.', panel);
  }
  function select(i) {
    if (selected >= 0) {
      nodeEl(selected).classList.remove('selected');
      inputsOf[selected].concat(outputsOf[selected]).forEach(function (e) { edgeEl(e).classList.remove('hot'); });
    }
    selected = i;
    if (i < 0) { overview(); return; }
    const n = nodes[i];
    nodeEl(i).classList.add('selected');
    inputsOf[i].concat(outputsOf[i]).forEach(function (e) { edgeEl(e).classList.add('hot'); });
    panel.textContent = '';
    html('h2', n.label, panel);
    const t = html('table', undefined, panel);
    row(t, 'name', n.name);
    if (n.group) row(t, 'segment', n.group);
    if (n.lowering) row(t, 'lowering', n.lowering);
    n.attrs.forEach(function (a) { row(t, a[0], a[1]); });
    const list = function (title, ids, end) {
      if (!ids.length) return;
      html('h3', title, panel);
      const lt = html('table', undefined, panel);
      ids.forEach(function (e) {
        const other = edges[e][end];
        row(lt, edges[e].tensor + ' ' + edges[e].type, nodes[other].label + ' ' + shorten(nodes[other].name, 40),
            function () { select(other); centerOn(nodes[other]); });
      });
    };
    list('Inputs', inputsOf[i], 'from');
    list('Outputs', outputsOf[i], 'to');
  }

  // ---- search ----
  const search = document.getElementById('search');
  const matchesText = document.getElementById('matches');
  let haystack = null;
  let matches = [];
  let current = -1;
  function runSearch() {
    matches.forEach(function (i) { nodeEl(i).classList.remove('match'); });
    matches = [];
    current = -1;
    const q = search.value.trim().toLowerCase();
    if (q) {
      if (!haystack) {
        haystack = nodes.map(function (n, i) {
          const parts = [n.label, n.name, n.group, n.lowering];
          n.attrs.forEach(function (a) { parts.push(a[1]); });
          outputsOf[i].forEach(function (e) { parts.push(edges[e].tensor); });
          return parts.join('\n').toLowerCase();
        });
      }
      haystack.forEach(function (h, i) { if (h.indexOf(q) >= 0) matches.push(i); });
      matches.forEach(function (i) { nodeEl(i).classList.add('match'); });
    }
    matchesText.textContent = q ? matches.length + ' match' + (matches.length === 1 ? '' : 'es') : '';
  }
  let timer = 0;
  search.addEventListener('input', function () { clearTimeout(timer); timer = setTimeout(runSearch, 120); });
  search.addEventListener('keydown', function (event) {
    if (event.key !== 'Enter') return;
    clearTimeout(timer);
    runSearch();
    if (!matches.length) return;
    current = (current + 1) % matches.length;
    matchesText.textContent = (current + 1) + ' of ' + matches.length;
    select(matches[current]);
    centerOn(nodes[matches[current]]);
  });

  const built = performance.now();
  overview();
  apply();
  // Time to the first drawn frame, from the start of navigation (parsing and drawing included).
  requestAnimationFrame(function () {
    requestAnimationFrame(function () {
      body.dataset.renderMs = performance.now().toFixed(1);
      body.dataset.phasesMs = ['load ' + started, 'parse ' + (parsed - started), 'build ' + (built - parsed),
                               'draw ' + (performance.now() - built)].map(function (p) {
        return p.replace(/([0-9.]+)$/, function (v) { return Number(v).toFixed(0); });
      }).join(', ');
      materializeRest(function () {
        body.dataset.nodes = String(nodes.length);
        body.dataset.ready = '1';
      });
    });
  });
})();
