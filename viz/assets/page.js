// paperkg browser view: draws KG_NODES / KG_EDGES with vis-network and wires the controls.
// Every string from the graph is inserted with textContent (never innerHTML), so a title such
// as "<script>…" shows as text. Links are only made from http(s) URLs.
// window.kgViz exposes the network and a small API (search, focus, setTypeVisible) for tests;
// body[data-ready], body[data-settled] and #details[data-selected] signal state to tools that
// cannot evaluate script under the page's Content-Security-Policy.
(function () {
  "use strict";

  const STARTED_AT = performance.now();
  const PAGE = KG_PAGE;
  const ROLE_NAMES = PAGE.roleNames;
  const ROLES = {};
  PAGE.roles.forEach(function (r) { ROLES[r.name] = r; });
  const TYPE_COLOR = {};
  PAGE.types.forEach(function (t) { TYPE_COLOR[t.name] = t.color; });
  const DRAWN = PAGE.drawn;
  const EDGE_OPACITY = 0.75;

  const ROLE_FROM_PAPER = {
    proposes: "Proposes", addresses: "Addresses", evaluatesOn: "Evaluates on",
    measures: "Measures", comparesWith: "Compares with", uses: "Uses",
    hasKeyword: "Author keywords", mentions: "Mentions",
  };
  const ROLE_FROM_CONCEPT = {
    proposes: "Papers that propose it", addresses: "Papers that address it",
    evaluatesOn: "Papers that evaluate on it", measures: "Papers that measure it",
    comparesWith: "Papers that compare with it", uses: "Papers that use it",
    hasKeyword: "Papers with it as a keyword", mentions: "Papers that mention it",
  };

  // ---- small DOM helpers (text only) ----
  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }
  function safeHref(url) {
    return typeof url === "string" && /^https?:\/\//i.test(url) ? url : null;
  }
  function extLink(url, text) {
    const href = safeHref(url);
    if (!href) return null;
    const a = el("a", "ext", text);
    a.href = href;
    a.target = "_blank";
    a.rel = "noopener noreferrer";
    return a;
  }
  function swatch(type) {
    const s = el("span", "swatch" + (type === "Paper" ? " square" : ""));
    s.style.background = TYPE_COLOR[type] || "#888";
    return s;
  }
  function plural(n, word) { return n.toLocaleString("en") + " " + word + (n === 1 ? "" : "s"); }
  function truncate(text, limit) {
    return text.length <= limit ? text : text.slice(0, limit - 1).replace(/\s+\S*$/, "") + " …";
  }

  // ---- data ----
  const rawById = new Map();
  KG_NODES.forEach(function (n) { rawById.set(n.id, n); });
  KG_EDGES.forEach(function (e) {
    const style = ROLES[ROLE_NAMES[e.r]];
    e.color = { color: style.color, highlight: style.color, hover: style.color, opacity: EDGE_OPACITY };
    if (e.width === undefined) e.width = style.width;
    // Dashed lines take most of the drawing time of a big page: roles keep only their colour.
    e.dashes = PAGE.big ? false : style.dashes;
  });
  const nodes = new vis.DataSet(KG_NODES);
  const edges = new vis.DataSet(KG_EDGES);

  function info(id) {
    // What the page knows about any node id: drawn nodes, or the `extra` table.
    if (id < DRAWN) {
      const n = rawById.get(id);
      return { id: id, name: n.name, type: n.group, url: n.url, drawn: true };
    }
    const row = PAGE.extra[id - DRAWN];
    return { id: id, name: row[0], type: row[1], url: row[2], drawn: false };
  }

  // ---- network ----
  const container = document.getElementById("mynetwork");
  const network = new vis.Network(container, { nodes: nodes, edges: edges }, KG_OPTIONS);
  const api = {
    network: network, nodes: nodes, edges: edges, ready: false, readyAt: null,
    startedAt: STARTED_AT, settled: false,
    search: search, focus: focus, select: select, setTypeVisible: setTypeVisible,
    highlight: highlight,
  };
  window.kgViz = api;
  network.once("afterDrawing", function () {
    api.ready = true;
    api.readyAt = performance.now();
    document.body.dataset.ready = "1";
    if (!PAGE.physics) markSettled();
  });
  if (PAGE.physics) {
    // The simulation only relaxes the precomputed layout before the first frame (a fixed number
    // of iterations), then stops: a page that keeps jiggling costs CPU and is hard to read.
    network.once("stabilizationIterationsDone", function () {
      network.setOptions({ physics: { enabled: false } });
      markSettled();
    });
  }
  function markSettled() {
    api.settled = true;
    document.body.dataset.settled = "1";
  }

  // ---- tooltip ----
  const tooltip = document.getElementById("tooltip");
  function showTooltip(content, pointer) {
    tooltip.replaceChildren(content);
    tooltip.hidden = false;
    const box = container.getBoundingClientRect();
    let x = box.left + pointer.x + 14;
    let y = box.top + pointer.y + 14;
    const w = tooltip.offsetWidth, h = tooltip.offsetHeight;
    if (x + w > window.innerWidth - 8) x = Math.max(8, box.left + pointer.x - w - 14);
    if (y + h > window.innerHeight - 8) y = Math.max(8, box.top + pointer.y - h - 14);
    tooltip.style.left = x + "px";
    tooltip.style.top = y + "px";
  }
  function hideTooltip() { tooltip.hidden = true; }

  function nodeTooltip(n) {
    const box = el("div");
    box.appendChild(el("div", "head", n.name));
    if (n.group === "Paper") {
      const meta = ["Paper", n.pid, n.year, n.venue].filter(Boolean).join(" · ");
      box.appendChild(el("div", "meta", meta + " · " + plural(n.n, "concept")));
      if (n.abstract) box.appendChild(el("blockquote", null, truncate(n.abstract, 280)));
    } else {
      box.appendChild(el("div", "meta", n.group + " · " + plural(n.n, "paper")));
      if (n.aliases) box.appendChild(el("div", "meta", "Also: " + n.aliases.join(", ")));
    }
    return box;
  }

  function evidenceQuote(ev) {
    // ev = [context, markStart, markEnd, field]: the sentence with the mention highlighted.
    const q = el("blockquote");
    const text = ev[0];
    q.appendChild(document.createTextNode(text.slice(0, ev[1])));
    q.appendChild(el("mark", null, text.slice(ev[1], ev[2])));
    q.appendChild(document.createTextNode(text.slice(ev[2])));
    if (ev[3] && ev[3] !== "abstract") q.appendChild(el("span", "meta", " (" + ev[3] + ")"));
    return q;
  }

  function edgeTooltip(e) {
    const box = el("div");
    const role = ROLE_NAMES[e.r];
    const from = info(e.from), to = info(e.to);
    if (role === "shared") {
      box.appendChild(el("div", "head", from.name + " — " + to.name));
      box.appendChild(el("div", "meta", plural(e.w, "shared paper")));
      const list = el("ul");
      (e.sp || []).forEach(function (p) { list.appendChild(el("li", null, truncate(info(p).name, 90))); });
      box.appendChild(list);
      return box;
    }
    const verb = role === "query" ? e.pred : ROLES[role].legend;
    box.appendChild(el("div", "head", truncate(from.name, 80)));
    box.appendChild(el("div", "meta", verb + " → " + to.name));
    (e.ev || []).forEach(function (ev) { box.appendChild(evidenceQuote(ev)); });
    if (e.nev > (e.ev || []).length) {
      box.appendChild(el("div", "meta", "+" + plural(e.nev - e.ev.length, "more mention")));
    }
    if (e.kw) box.appendChild(el("div", "meta", "Also an author keyword."));
    return box;
  }

  network.on("hoverNode", function (p) { showTooltip(nodeTooltip(rawById.get(p.node)), p.pointer.DOM); });
  network.on("hoverEdge", function (p) {
    const e = edges.get(p.edge);
    if (e) showTooltip(edgeTooltip(e), p.pointer.DOM);
  });
  network.on("blurNode", hideTooltip);
  network.on("blurEdge", hideTooltip);
  network.on("dragStart", hideTooltip);
  network.on("zoom", hideTooltip);
  container.addEventListener("mouseleave", hideTooltip);

  // ---- neighbourhood highlight ----
  // After each frame, a translucent veil covers the graph and the clicked node, its neighbours
  // and their links are drawn again on top. Nothing is updated in the DataSets: in vis-network
  // 9.1.2 (inlined, so fixed) each DataSet update costs a pass over all nodes and edges, about a
  // second per click on a 5,000-node page; the veil costs one frame.
  let highlighted = null;
  let nearNodes = [];
  let nearEdges = [];
  function highlight(id) {
    highlighted = id === undefined ? null : id;
    nearNodes = highlighted === null ? [] : [highlighted].concat(network.getConnectedNodes(highlighted));
    nearEdges = highlighted === null ? [] : network.getConnectedEdges(highlighted);
    network.redraw();
  }
  network.on("afterDrawing", function (ctx) {
    if (highlighted === null) return;
    const body = network.body;
    const a = network.DOMtoCanvas({ x: 0, y: 0 });
    const b = network.DOMtoCanvas({ x: container.clientWidth, y: container.clientHeight });
    ctx.save();
    ctx.fillStyle = "rgba(251, 252, 252, 0.85)";
    ctx.fillRect(a.x, a.y, b.x - a.x, b.y - a.y);
    ctx.restore();
    nearEdges.forEach(function (id) {
      const edge = body.edges[id];
      if (edge && edge.connected && !edge.options.hidden && !edge.from.options.hidden && !edge.to.options.hidden) {
        edge.draw(ctx);
        edge.drawArrows(ctx);
      }
    });
    const labels = [];
    nearNodes.forEach(function (id) {
      const node = body.nodes[id];
      if (node && !node.options.hidden) {
        const callbacks = node.draw(ctx) || {};
        if (callbacks.drawExternalLabel) labels.push(callbacks.drawExternalLabel);
      }
    });
    labels.forEach(function (draw) { draw(); });
  });
  api.neighbourhood = function () { return nearNodes.slice().sort(function (x, y) { return x - y; }); };

  // ---- details panel ----
  const details = document.getElementById("details");
  function linkItem(id) {
    const item = el("li");
    const target = info(id);
    item.appendChild(swatch(target.type));
    if (target.drawn) {
      const b = el("button", "linkish", target.name);
      b.type = "button";
      b.addEventListener("click", function () { focus(id); });
      item.appendChild(b);
    } else {
      const span = el("span", "undrawn", target.name);
      span.title = "not drawn in this view";
      item.appendChild(span);
    }
    const ext = extLink(target.url, "↗");
    if (ext) item.appendChild(ext);
    return item;
  }

  function showDetails(id) {
    const n = rawById.get(id);
    const parts = [];
    parts.push(el("h2", null, n.name));
    const badge = el("span", "badge", n.group);
    badge.style.background = TYPE_COLOR[n.group] || "#888";
    const meta = el("p", "meta");
    meta.appendChild(badge);
    if (n.group === "Paper") {
      meta.appendChild(document.createTextNode(" " + [n.pid, n.year, n.venue].filter(Boolean).join(" · ")));
      parts.push(meta);
      if (n.authors) parts.push(el("p", "meta", n.authors));
      if (n.abstract) parts.push(el("p", "abstract", n.abstract));
      const links = el("p", "meta");
      [[n.url, "paper page ↗"], [n.code, "code ↗"]].forEach(function (pair) {
        const a = extLink(pair[0], pair[1]);
        if (a) { links.appendChild(a); links.appendChild(document.createTextNode(" ")); }
      });
      if (links.childNodes.length) parts.push(links);
    } else {
      meta.appendChild(document.createTextNode(" in " + plural(n.n, "paper")));
      parts.push(meta);
      if (n.aliases) parts.push(el("p", "meta", "Also called: " + n.aliases.join(", ")));
    }
    const headings = n.group === "Paper" ? ROLE_FROM_PAPER : ROLE_FROM_CONCEPT;
    const groups = new Map();
    n.links.forEach(function (l) {
      const role = ROLE_NAMES[l[0]];
      if (!groups.has(role)) groups.set(role, []);
      groups.get(role).push(l[1]);
    });
    groups.forEach(function (ids, role) {
      parts.push(el("h3", null, (headings[role] || role) + " (" + ids.length + ")"));
      const list = el("ul");
      ids.forEach(function (other) { list.appendChild(linkItem(other)); });
      parts.push(list);
    });
    if (n.more) parts.push(el("p", "hint", "… and " + n.more + " more, not listed (query the graph for all)."));
    details.replaceChildren.apply(details, parts);
    details.scrollTop = 0;
    api.selected = id;
    details.dataset.selected = String(id);
  }

  function clearDetails() {
    details.replaceChildren(el("p", "hint", "Click a node to see its papers or concepts here."));
    api.selected = null;
    delete details.dataset.selected;
  }

  network.on("click", function (p) {
    hideTooltip();
    if (p.nodes.length) {
      highlight(p.nodes[0]);
      showDetails(p.nodes[0]);
    } else if (!p.edges.length) {
      highlight(null);
      clearDetails();
    }
  });

  // ---- focus & search ----
  function select(id) {
    // Select a node as a click does: highlight its neighbourhood and show its details.
    const n = rawById.get(id);
    if (!n) return false;
    if (hiddenTypes.has(n.group)) setTypeVisible(n.group, true);
    network.selectNodes([id]);
    highlight(id);
    showDetails(id);
    return true;
  }
  function focus(id) {
    // Select a node and move the view to it (search results, links in the details panel).
    if (!select(id)) return false;
    network.focus(id, { scale: Math.max(network.getScale(), 1.0), animation: { duration: 350 } });
    return true;
  }

  let index = null;
  function buildIndex() {
    index = KG_NODES.map(function (n) {
      const names = [n.name].concat(n.aliases || []);
      if (n.pid) names.push(n.pid);
      return { id: n.id, n: n.n, name: n.name, keys: names.map(function (s) { return s.toLowerCase(); }), names: names };
    });
  }

  function search(query, limit) {
    // Ids of the nodes whose label or alias matches, best first: exact, prefix, word start,
    // substring; then the node with more papers.
    const q = query.trim().toLowerCase();
    if (!q) return [];
    if (!index) buildIndex();
    const hits = [];
    index.forEach(function (entry) {
      let best = 9, via = null;
      entry.keys.forEach(function (key, i) {
        let rank = 9;
        if (key === q) rank = 0;
        else if (key.startsWith(q)) rank = 1;
        else if (key.includes(" " + q) || key.includes("-" + q)) rank = 2;
        else if (key.includes(q)) rank = 3;
        if (rank < best || (rank === best && i === 0)) { best = rank; via = i === 0 ? null : entry.names[i]; }
      });
      if (best < 9) hits.push({ id: entry.id, rank: best, n: entry.n, name: entry.name, via: via });
    });
    hits.sort(function (a, b) {
      return a.rank - b.rank || b.n - a.n || (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id - b.id);
    });
    return hits.slice(0, limit || 12);
  }

  const searchInput = document.getElementById("search");
  const results = document.getElementById("search-results");
  let current = [];
  let active = 0;
  function renderResults() {
    const q = searchInput.value;
    current = search(q, 12);
    active = 0;
    if (!q.trim()) { results.hidden = true; return; }
    const items = current.map(function (hit, i) {
      const li = el("li");
      li.setAttribute("role", "option");
      li.setAttribute("aria-selected", i === active ? "true" : "false");
      li.appendChild(swatch(rawById.get(hit.id).group));
      li.appendChild(el("span", null, truncate(hit.name, 70)));
      if (hit.via) li.appendChild(el("span", "via", "(" + hit.via + ")"));
      li.addEventListener("mousedown", function (ev) { ev.preventDefault(); choose(i); });
      return li;
    });
    if (!items.length) items.push(el("li", "empty", "No node matches."));
    results.replaceChildren.apply(results, items);
    results.hidden = false;
  }
  function choose(i) {
    const hit = current[i];
    if (!hit) return;
    results.hidden = true;
    focus(hit.id);
  }
  searchInput.addEventListener("input", renderResults);
  searchInput.addEventListener("keydown", function (ev) {
    if (ev.key === "Enter") { ev.preventDefault(); if (!current.length) renderResults(); choose(active); }
    else if (ev.key === "Escape") { results.hidden = true; }
    else if (ev.key === "ArrowDown" || ev.key === "ArrowUp") {
      ev.preventDefault();
      if (!current.length) return;
      active = (active + (ev.key === "ArrowDown" ? 1 : current.length - 1)) % current.length;
      Array.prototype.forEach.call(results.children, function (li, i) {
        li.setAttribute("aria-selected", i === active ? "true" : "false");
      });
    }
  });
  searchInput.addEventListener("blur", function () { results.hidden = true; });
  searchInput.addEventListener("focus", function () { if (searchInput.value.trim()) renderResults(); });

  // ---- filters & legend ----
  const hiddenTypes = new Set();
  const hiddenRoles = new Set();
  function setTypeVisible(type, visible) {
    if (visible) hiddenTypes.delete(type); else hiddenTypes.add(type);
    const box = document.querySelector('#type-filters input[data-type="' + CSS.escape(type) + '"]');
    if (box) box.checked = visible;
    nodes.update(KG_NODES.filter(function (n) { return n.group === type; })
      .map(function (n) { return { id: n.id, hidden: !visible }; }));
  }
  function setRoleVisible(role, visible) {
    if (visible) hiddenRoles.delete(role); else hiddenRoles.add(role);
    const r = ROLE_NAMES.indexOf(role);
    edges.update(edges.get({ filter: function (e) { return e.r === r; } })
      .map(function (e) { return { id: e.id, hidden: !visible }; }));
  }

  function filterRow(swatchEl, text, count, onChange, data) {
    const li = el("li");
    const label = el("label");
    const box = el("input");
    box.type = "checkbox";
    box.checked = true;
    Object.keys(data).forEach(function (k) { box.dataset[k] = data[k]; });
    box.addEventListener("change", function () { onChange(box.checked); });
    label.appendChild(box);
    label.appendChild(swatchEl);
    label.appendChild(el("span", null, text));
    label.appendChild(el("span", "count", count.toLocaleString("en")));
    li.appendChild(label);
    return li;
  }

  const typeList = document.getElementById("type-filters");
  PAGE.types.forEach(function (t) {
    typeList.appendChild(filterRow(swatch(t.name), t.name === "Paper" ? "Paper" : t.name, t.count,
      function (on) { setTypeVisible(t.name, on); }, { type: t.name }));
  });
  const roleList = document.getElementById("role-filters");
  PAGE.roles.forEach(function (r) {
    if (!r.count) return;
    const line = el("span", "line");
    line.style.borderTop = Math.max(2, r.width) + "px " + (r.dashes && !PAGE.big ? "dashed" : "solid") + " " + r.color;
    roleList.appendChild(filterRow(line, r.legend, r.count,
      function (on) { setRoleVisible(r.name, on); }, { role: r.name }));
  });

  // ---- physics & reset ----
  const physicsBox = document.getElementById("physics");
  physicsBox.checked = false;
  physicsBox.addEventListener("change", function () {
    network.setOptions({ physics: { enabled: physicsBox.checked, stabilization: { enabled: false } } });
  });
  document.getElementById("reset").addEventListener("click", function () {
    network.unselectAll();
    highlight(null);
    clearDetails();
    network.fit({ animation: { duration: 300 } });
  });

  if (PAGE.focus !== null && PAGE.focus !== undefined) {
    network.once("afterDrawing", function () { select(PAGE.focus); });
  }
})();
