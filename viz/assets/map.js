// paperkg map view: draws KG_NODES (concepts) / KG_EDGES with vis-network and wires the
// controls. Every string from the graph is inserted with textContent, never innerHTML.
// window.kgMap exposes the network and a small API for tests; body[data-ready] and
// #details[data-selected] signal state to tools that cannot evaluate script under the CSP.
(function () {
  "use strict";

  const STARTED_AT = performance.now();
  const MAP = KG_MAP;
  const YEARS = MAP.years;
  // The papers the panels list: [title, year, id, url, authors, venue], parsed from their
  // JSON element the first time a panel needs them (not before the first frame).
  let paperRows = null;
  function paperRow(ref) {
    if (paperRows === null) {
      paperRows = JSON.parse(document.getElementById("kg-papers").textContent);
    }
    return paperRows[ref];
  }

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }
  function plural(n, word) { return n.toLocaleString("en") + " " + word + (n === 1 ? "" : "s"); }
  function safeHref(url) { return typeof url === "string" && /^https?:\/\//i.test(url) ? url : null; }
  function swatch(color) { const s = el("span", "swatch"); s.style.background = color; return s; }

  // ---- data ----
  const byId = new Map();
  KG_NODES.forEach(function (n) { byId.set(n.id, n); });
  const nodes = new vis.DataSet(KG_NODES);
  const edges = new vis.DataSet(KG_EDGES);
  const container = document.getElementById("mynetwork");
  const network = new vis.Network(container, { nodes: nodes, edges: edges }, KG_OPTIONS);

  const state = { mode: "community", from: 0, to: YEARS.length - 1, selection: null };
  const api = {
    network: network, nodes: nodes, edges: edges, ready: false, readyAt: null,
    startedAt: STARTED_AT, state: state,
    selectCommunity: selectCommunity, selectConcept: selectConcept, setYears: setYears,
    setColourMode: setColourMode, visibleLabels: visibleLabels, labelBoxes: labelBoxes,
    selectionPapers: selectionPapers, csv: csv, bibtex: bibtex, search: search,
  };
  window.kgMap = api;

  // The labels were sized in Python for a page fitted at MAP.scale; the real canvas may differ,
  // so the draw threshold follows the real fitted scale: the same labels show at first view.
  let fitted = false;
  network.on("afterDrawing", function () {
    if (fitted) return;
    fitted = true;
    const scale = network.getScale();
    const threshold = MAP.threshold * scale / MAP.scale;
    if (Math.abs(threshold - MAP.threshold) / MAP.threshold > 0.02) {
      network.setOptions({ nodes: { scaling: { label: { drawThreshold: threshold } } } });
    }
    api.threshold = threshold;
    requestAnimationFrame(function () {
      api.ready = true;
      api.readyAt = performance.now();
      document.body.dataset.ready = "1";
    });
  });

  function visibleLabels() {
    // Ids of the nodes whose label vis-network draws at the current zoom.
    const out = [];
    nodes.getIds().forEach(function (id) {
      const node = network.body.nodes[id];
      if (node && !node.options.hidden && node.labelModule.visible()) out.push(id);
    });
    return out;
  }
  function labelBoxes() {
    // Screen boxes [x0, y0, x1, y1] of the drawn labels (for the no-overlap test).
    return visibleLabels().map(function (id) {
      const s = network.body.nodes[id].labelModule.size;
      const a = network.canvasToDOM({ x: s.left, y: s.top });
      const b = network.canvasToDOM({ x: s.left + s.width, y: s.top + s.height });
      return [id, a.x, a.y, b.x, b.y];
    });
  }

  // ---- colours ----
  function rampColour(t) {
    const stops = MAP.ramp;
    const x = Math.max(0, Math.min(1, t)) * (stops.length - 1);
    const i = Math.min(stops.length - 2, Math.floor(x));
    const f = x - i;
    function hex(s, k) { return parseInt(s.slice(1 + 2 * k, 3 + 2 * k), 16); }
    const rgb = [0, 1, 2].map(function (k) {
      return Math.round(hex(stops[i], k) * (1 - f) + hex(stops[i + 1], k) * f);
    });
    return "#" + rgb.map(function (v) { return v.toString(16).padStart(2, "0"); }).join("");
  }
  function communityColour(n) {
    return n.c >= 0 && MAP.communities[n.c] ? MAP.communities[n.c].color : MAP.other;
  }
  function yearColour(n) {
    if (n.my === undefined || YEARS.length < 2) return MAP.other;
    return rampColour((n.my - YEARS[0]) / (YEARS[YEARS.length - 1] - YEARS[0]));
  }
  function setColourMode(mode) {
    state.mode = mode === "year" ? "year" : "community";
    const pick = state.mode === "year" ? yearColour : communityColour;
    nodes.update(KG_NODES.map(function (n) { return { id: n.id, color: pick(n) }; }));
    document.querySelector('#colour-mode input[value="' + state.mode + '"]').checked = true;
    const legend = document.getElementById("year-legend");
    legend.hidden = state.mode !== "year";
    document.body.dataset.colour = state.mode;
  }
  (function yearLegend() {
    const legend = document.getElementById("year-legend");
    legend.appendChild(el("div", null, "Mean year of the concept's papers"));
    const ramp = el("div", "ramp");
    ramp.style.background = "linear-gradient(to right, " + MAP.ramp.join(", ") + ")";
    legend.appendChild(ramp);
    const ends = el("div", "ends");
    ends.appendChild(el("span", null, YEARS[0]));
    ends.appendChild(el("span", null, YEARS[YEARS.length - 1]));
    legend.appendChild(ends);
  })();
  document.querySelectorAll('#colour-mode input').forEach(function (box) {
    box.addEventListener("change", function () { if (box.checked) setColourMode(box.value); });
  });

  // ---- year filter ----
  function papersInYears(n) {
    let total = 0;
    n.yc.forEach(function (pair) { if (pair[0] >= state.from && pair[0] <= state.to) total += pair[1]; });
    return total;
  }
  function paperInYears(ref) {
    const year = paperRow(ref)[1];
    if (year === null || year === undefined || !YEARS.length) return true;
    const i = YEARS.indexOf(Number(String(year).slice(0, 4)));
    return i < 0 || (i >= state.from && i <= state.to);
  }
  function setYears(from, to) {
    // Hide the concepts without a paper in [from, to] (years, inclusive).
    const a = YEARS.indexOf(Number(from)), b = YEARS.indexOf(Number(to));
    state.from = a < 0 ? 0 : a;
    state.to = b < 0 ? YEARS.length - 1 : b;
    if (state.from > state.to) { const t = state.from; state.from = state.to; state.to = t; }
    document.getElementById("year-from").value = String(YEARS[state.from]);
    document.getElementById("year-to").value = String(YEARS[state.to]);
    const all = state.from === 0 && state.to === YEARS.length - 1;
    nodes.update(KG_NODES.map(function (n) { return { id: n.id, hidden: !all && papersInYears(n) === 0 }; }));
    document.body.dataset.years = YEARS[state.from] + "-" + YEARS[state.to];
    if (state.selection) (state.selection.kind === "community" ? selectCommunity : selectConcept)(state.selection.id);
  }
  ["year-from", "year-to"].forEach(function (name, k) {
    const select = document.getElementById(name);
    YEARS.forEach(function (y) { const o = el("option", null, y); o.value = String(y); select.appendChild(o); });
    select.value = String(YEARS[k === 0 ? 0 : YEARS.length - 1]);
    select.addEventListener("change", function () {
      setYears(document.getElementById("year-from").value, document.getElementById("year-to").value);
    });
  });
  if (YEARS.length < 2) document.getElementById("years").hidden = true;

  // ---- details: a community or a concept, and its papers ----
  const details = document.getElementById("details");
  function paperItem(ref, score) {
    const row = paperRow(ref);
    const li = el("li", "paper");
    const href = safeHref(row[3]);
    const title = href ? el("a", "ext", row[0]) : el("span", null, row[0]);
    if (href) { title.href = href; title.target = "_blank"; title.rel = "noopener noreferrer"; }
    li.appendChild(title);
    const meta = [row[1], row[5], row[2]].filter(Boolean).join(" · ");
    li.appendChild(el("div", "meta", meta + (score ? " · " + plural(score, "concept") + " of it" : "")));
    return li;
  }
  function conceptItem(id) {
    const n = byId.get(id);
    const li = el("li");
    li.appendChild(swatch(communityColour(n)));
    const b = el("button", "linkish", n.name);
    b.type = "button";
    b.addEventListener("click", function () { focusNode(id); });
    li.appendChild(b);
    li.appendChild(el("span", "count", plural(papersInYears(n), "paper")));
    return li;
  }
  function exportsBar() {
    const bar = el("div", "exports");
    [["export-csv", "CSV", downloadCsv], ["export-bib", "BibTeX", downloadBib]].forEach(function (spec) {
      const b = el("button", null, spec[1]);
      b.type = "button";
      b.id = spec[0];
      b.title = "Download the listed papers (" + spec[1] + ")";
      b.addEventListener("click", spec[2]);
      bar.appendChild(b);
    });
    return bar;
  }
  function yearsText() {
    return YEARS.length ? " (" + YEARS[state.from] + "–" + YEARS[state.to] + ")" : "";
  }
  function selectCommunity(index) {
    const com = MAP.communities[index];
    if (!com) return false;
    state.selection = { kind: "community", id: index };
    const members = com.members.filter(function (id) { return papersInYears(byId.get(id)) > 0 || !YEARS.length; });
    const papers = com.papers.filter(function (p) { return paperInYears(p[0]); });
    const parts = [el("h2", null, com.label)];
    const meta = el("p", "meta");
    meta.appendChild(swatch(com.color));
    meta.appendChild(document.createTextNode(" Community " + com.n + " · " + plural(com.members.length, "concept") + " on the map"));
    parts.push(meta, exportsBar());
    parts.push(el("h3", null, "Concepts" + yearsText() + " (" + members.length + ")"));
    const list = el("ul", "concepts");
    members.forEach(function (id) { list.appendChild(conceptItem(id)); });
    parts.push(list);
    parts.push(el("h3", null, "Papers linking most of its concepts (" + papers.length + ")"));
    const plist = el("ul", "papers");
    papers.forEach(function (p) { plist.appendChild(paperItem(p[0], p[1])); });
    parts.push(plist);
    details.replaceChildren.apply(details, parts);
    details.dataset.selected = "community-" + index;
    network.selectNodes(com.members.filter(function (id) { return !nodes.get(id).hidden; }));
    document.querySelectorAll("#communities button").forEach(function (b) {
      b.setAttribute("aria-pressed", b.dataset.community === String(index) ? "true" : "false");
    });
    return true;
  }
  function selectConcept(id) {
    const n = byId.get(id);
    if (!n) return false;
    state.selection = { kind: "concept", id: id };
    const parts = [el("h2", null, n.name)];
    const meta = el("p", "meta");
    const badge = el("span", "badge", n.t);
    badge.style.background = MAP.types[n.t] || "#888";
    meta.appendChild(badge);
    meta.appendChild(document.createTextNode(" in " + plural(n.n, "paper") +
      (n.my !== undefined ? " · mean year " + n.my.toFixed(1) : "")));
    parts.push(meta);
    if (n.aliases) parts.push(el("p", "meta", "Also called: " + n.aliases.join(", ")));
    if (n.c >= 0) {
      const com = MAP.communities[n.c];
      const b = el("button", "linkish", "Community " + com.n + ": " + com.label);
      b.type = "button";
      b.addEventListener("click", function () { selectCommunity(n.c); });
      const p = el("p", "meta");
      p.appendChild(swatch(com.color));
      p.appendChild(document.createTextNode(" "));
      p.appendChild(b);
      parts.push(p);
    }
    if (n.yc.length) {
      parts.push(el("p", "meta", "Papers per year: " + n.yc.map(function (pair) {
        return YEARS[pair[0]] + ": " + pair[1];
      }).join(", ")));
    }
    const focusButton = el("button", "linkish", "open in focus view");
    focusButton.type = "button";
    focusButton.id = "open-focus";
    focusButton.addEventListener("click", function () { openFocus(id); });
    parts.push(focusButton, exportsBar());
    const papers = n.pp.filter(paperInYears);
    parts.push(el("h3", null, "Papers" + yearsText() + " (" + papers.length +
      (n.pp.length < n.n ? ", the newest " + n.pp.length + " of " + n.n : "") + ")"));
    const plist = el("ul", "papers");
    papers.forEach(function (p) { plist.appendChild(paperItem(p, 0)); });
    parts.push(plist);
    details.replaceChildren.apply(details, parts);
    details.dataset.selected = "concept-" + id;
    network.selectNodes([id]);
    return true;
  }
  function focusNode(id) {
    selectConcept(id);
    network.focus(id, { scale: Math.max(network.getScale(), 4 * network.getScale()), animation: { duration: 300 } });
  }
  function openFocus(id) {
    // Served by `kg serve`: the focus (ego) view of the concept; a file: the concept and its
    // linked concepts alone on this map.
    const n = byId.get(id);
    if (MAP.focusUrl) {
      window.open(MAP.focusUrl + encodeURIComponent(n.iri), "_blank", "noopener");
      return;
    }
    const keep = new Set([id].concat(network.getConnectedNodes(id)));
    nodes.update(KG_NODES.map(function (m) { return { id: m.id, hidden: !keep.has(m.id) }; }));
    document.body.dataset.focus = String(id);
    network.fit({ nodes: Array.from(keep), animation: false });
  }
  network.on("click", function (p) {
    if (p.nodes.length) selectConcept(p.nodes[0]);
  });

  // ---- communities legend ----
  const list = document.getElementById("communities");
  MAP.communities.forEach(function (com, i) {
    const li = el("li");
    const b = el("button");
    b.type = "button";
    b.dataset.community = String(i);
    b.setAttribute("aria-pressed", "false");
    b.appendChild(swatch(com.color));
    b.appendChild(el("span", null, com.label));
    b.appendChild(el("span", "count", com.members.length));
    b.addEventListener("click", function () { selectCommunity(i); });
    li.appendChild(b);
    list.appendChild(li);
  });

  // ---- exports ----
  function selectionPapers() {
    // Paper refs of the current selection within the year range.
    const sel = state.selection;
    if (!sel) return [];
    if (sel.kind === "community") {
      return MAP.communities[sel.id].papers.map(function (p) { return p[0]; }).filter(paperInYears);
    }
    return byId.get(sel.id).pp.filter(paperInYears);
  }
  function csvCell(value) {
    const text = value === null || value === undefined ? "" : String(value);
    return /[",\n\r]/.test(text) ? '"' + text.replace(/"/g, '""') + '"' : text;
  }
  function csv() {
    const rows = [["id", "title", "year", "venue", "authors", "url"]];
    selectionPapers().forEach(function (ref) {
      const p = paperRow(ref);
      rows.push([p[2], p[0], p[1], p[5], p[4], p[3]]);
    });
    return rows.map(function (r) { return r.map(csvCell).join(","); }).join("\r\n") + "\r\n";
  }
  function bibValue(text) { return String(text).replace(/[{}\\]/g, ""); }
  function bibtex() {
    return selectionPapers().map(function (ref) {
      const p = paperRow(ref);
      const key = String(p[2] || ("paper" + ref)).replace(/[^A-Za-z0-9_:.-]/g, "_");
      const fields = [["title", p[0]], ["year", p[1]], ["booktitle", p[5]], ["url", p[3]]];
      if (p[4]) fields.splice(1, 0, ["author", String(p[4]).split("; ").join(" and ")]);
      const body = fields.filter(function (f) { return f[1]; }).map(function (f) {
        return "  " + f[0] + " = {" + bibValue(f[1]) + "}";
      }).join(",\n");
      return "@inproceedings{" + key + ",\n" + body + "\n}\n";
    }).join("\n");
  }
  function download(name, type, text) {
    const a = el("a");
    a.href = URL.createObjectURL(new Blob([text], { type: type }));
    a.download = name;
    document.body.appendChild(a);
    a.click();
    setTimeout(function () { URL.revokeObjectURL(a.href); a.remove(); }, 0);
  }
  function downloadCsv() { download("papers.csv", "text/csv", csv()); }
  function downloadBib() { download("papers.bib", "application/x-bibtex", bibtex()); }
  document.getElementById("export-png").addEventListener("click", function () {
    const canvas = container.querySelector("canvas");
    const a = el("a");
    a.href = canvas.toDataURL("image/png");
    a.download = "map.png";
    document.body.appendChild(a);
    a.click();
    a.remove();
  });

  // ---- search ----
  function search(query) {
    const q = query.trim().toLowerCase();
    if (!q) return [];
    const hits = [];
    KG_NODES.forEach(function (n) {
      const names = [n.name].concat(n.aliases || []);
      let best = 9;
      names.forEach(function (name) {
        const key = name.toLowerCase();
        const rank = key === q ? 0 : key.startsWith(q) ? 1 : key.includes(q) ? 2 : 9;
        best = Math.min(best, rank);
      });
      if (best < 9) hits.push({ id: n.id, rank: best, n: n.n, name: n.name });
    });
    hits.sort(function (a, b) { return a.rank - b.rank || b.n - a.n || a.id - b.id; });
    return hits.slice(0, 12);
  }
  const searchInput = document.getElementById("search");
  const results = document.getElementById("search-results");
  searchInput.addEventListener("input", function () {
    const hits = search(searchInput.value);
    if (!searchInput.value.trim()) { results.hidden = true; return; }
    const items = hits.map(function (hit) {
      const li = el("li");
      li.setAttribute("role", "option");
      li.appendChild(swatch(communityColour(byId.get(hit.id))));
      li.appendChild(el("span", null, hit.name));
      li.addEventListener("mousedown", function (ev) { ev.preventDefault(); results.hidden = true; focusNode(hit.id); });
      return li;
    });
    if (!items.length) items.push(el("li", "empty", "No concept matches."));
    results.replaceChildren.apply(results, items);
    results.hidden = false;
  });
  searchInput.addEventListener("keydown", function (ev) {
    if (ev.key === "Enter") {
      const hits = search(searchInput.value);
      if (hits.length) { results.hidden = true; focusNode(hits[0].id); }
    } else if (ev.key === "Escape") { results.hidden = true; }
  });
  searchInput.addEventListener("blur", function () { results.hidden = true; });

  // ---- tooltip ----
  const tooltip = document.getElementById("tooltip");
  network.on("hoverNode", function (p) {
    const n = byId.get(p.node);
    const box = el("div");
    box.appendChild(el("div", "head", n.name));
    const com = n.c >= 0 ? MAP.communities[n.c].label : "no community";
    box.appendChild(el("div", "meta", n.t + " · " + plural(n.n, "paper") +
      (n.my !== undefined ? " · mean year " + n.my.toFixed(1) : "")));
    box.appendChild(el("div", "meta", com));
    tooltip.replaceChildren(box);
    tooltip.hidden = false;
    const r = container.getBoundingClientRect();
    tooltip.style.left = Math.min(window.innerWidth - 300, r.left + p.pointer.DOM.x + 14) + "px";
    tooltip.style.top = (r.top + p.pointer.DOM.y + 14) + "px";
  });
  network.on("blurNode", function () { tooltip.hidden = true; });
  network.on("zoom", function () { tooltip.hidden = true; });

  document.getElementById("reset").addEventListener("click", function () {
    state.selection = null;
    delete document.body.dataset.focus;
    setYears(YEARS[0], YEARS[YEARS.length - 1]);
    network.unselectAll();
    details.replaceChildren(el("p", "hint", "Click a concept or a community to see its papers here."));
    delete details.dataset.selected;
    network.fit({ animation: { duration: 300 } });
  });
})();
