"use strict";
// The query page of `kg serve`: a SPARQL editor (highlighting, PREFIX lines added as known
// prefixes are typed, completion of prefixes, graph terms and keywords), the named-query forms,
// and a result table with sorting, filtering and paging. Plain JavaScript, no library, no
// request but to this server.
const QUERIES = /*QUERIES*/null;
const PREFIXES = /*PREFIXES*/null;
const $ = (id) => document.getElementById(id);
const NUMERIC = /#(integer|decimal|double|float|int|long|short|byte|nonNegativeInteger|positiveInteger|gYear)$/;
const KEYWORDS = [
  "SELECT", "DISTINCT", "REDUCED", "WHERE", "FILTER", "OPTIONAL", "UNION", "MINUS", "GRAPH",
  "BIND", "VALUES", "GROUP BY", "HAVING", "ORDER BY", "ASC", "DESC", "LIMIT", "OFFSET", "ASK",
  "CONSTRUCT", "DESCRIBE", "PREFIX", "BASE", "AS", "NOT EXISTS", "EXISTS", "IN", "NOT IN",
  "COUNT", "SUM", "MIN", "MAX", "AVG", "SAMPLE", "GROUP_CONCAT", "SEPARATOR", "STR", "LANG",
  "LANGMATCHES", "DATATYPE", "BOUND", "IRI", "URI", "BNODE", "RAND", "ABS", "CEIL", "FLOOR",
  "ROUND", "CONCAT", "STRLEN", "UCASE", "LCASE", "ENCODE_FOR_URI", "CONTAINS", "STRSTARTS",
  "STRENDS", "STRBEFORE", "STRAFTER", "YEAR", "MONTH", "DAY", "NOW", "COALESCE", "IF",
  "STRLANG", "STRDT", "SAMETERM", "ISIRI", "ISURI", "ISBLANK", "ISLITERAL", "ISNUMERIC",
  "REGEX", "SUBSTR", "REPLACE", "true", "false", "a",
];
const KEYWORD_SET = new Set(KEYWORDS.flatMap((k) => k.split(" ")).map((k) => k.toUpperCase()));
let selected = null;
let vocabulary = [];  // {iri, kind, label?, comment?, used}
let table = null;     // the SELECT result shown: {vars, rows, sort, dir, filter, page}

// --- small helpers ------------------------------------------------------------------------
function compact(iri) {
  for (const [prefix, ns] of Object.entries(PREFIXES)) {
    if (iri.startsWith(ns) && iri.length > ns.length) {
      return prefix ? prefix + ":" + iri.slice(ns.length) : iri.slice(ns.length);
    }
  }
  return iri;
}

function el(tag, text, attrs) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = text;
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  return node;
}

function setStatus(text, isError) {
  $("status").textContent = text;
  $("status").className = isError ? "error" : "";
}

// --- highlighting -------------------------------------------------------------------------
// One pass of a regular expression over the text; every alternative is one token class.
const TOKENS = new RegExp([
  "(#[^\\n]*)",                                             // 1 comment
  "(\"\"\"[\\s\\S]*?(?:\"\"\"|$)|'''[\\s\\S]*?(?:'''|$)" +   // 2 strings
    "|\"(?:[^\"\\\\\\n]|\\\\.)*\"?|'(?:[^'\\\\\\n]|\\\\.)*'?)",
  "(<[^<>\"{}|^`\\\\\\s]*>)",                               // 3 IRI
  "([?$][\\w\\u00b7\\u00c0-\\uffff]+)",                      // 4 variable
  "((?:[A-Za-z][\\w.-]*)?:[\\w\\u00c0-\\uffff.%-]*)",         // 5 prefixed name
  "(\\b\\d+(?:\\.\\d*)?(?:[eE][+-]?\\d+)?\\b)",              // 6 number
  "([A-Za-z_]\\w*)",                                         // 7 word
].join("|"), "g");

function escapeHtml(text) {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function highlightHtml(text) {
  let out = "";
  let last = 0;
  TOKENS.lastIndex = 0;
  for (let m = TOKENS.exec(text); m; m = TOKENS.exec(text)) {
    if (m[0] === "") { TOKENS.lastIndex++; continue; }
    out += escapeHtml(text.slice(last, m.index));
    let cls = null;
    if (m[1]) cls = "com";
    else if (m[2]) cls = "str";
    else if (m[3]) cls = "iri";
    else if (m[4]) cls = "var";
    else if (m[5]) cls = "pn";
    else if (m[6]) cls = "num";
    else if (m[7]) {
      const word = m[7].toUpperCase();
      if (KEYWORD_SET.has(word)) cls = text[TOKENS.lastIndex] === "(" ? "fn" : "kw";
    }
    out += cls ? '<span class="tok-' + cls + '">' + escapeHtml(m[0]) + "</span>"
               : escapeHtml(m[0]);
    last = TOKENS.lastIndex;
  }
  return out + escapeHtml(text.slice(last)) + "\n";  // the newline keeps a last empty line
}

function refreshHighlight() {
  $("highlight").innerHTML = highlightHtml($("query").value);
  syncScroll();
}

function syncScroll() {
  $("highlight").scrollTop = $("query").scrollTop;
  $("highlight").scrollLeft = $("query").scrollLeft;
}

// --- prefixes -----------------------------------------------------------------------------
function declared(text) {
  const found = new Set();
  for (const m of text.matchAll(/PREFIX\s+([A-Za-z][\w.-]*)?:\s*</gi)) found.add(m[1] || "");
  return found;
}

// Insert `PREFIX p: <ns>` after the last PREFIX line (or at the top); the caret stays put.
function addPrefix(prefix) {
  const area = $("query");
  if (!(prefix in PREFIXES) || declared(area.value).has(prefix)) return false;
  const line = "PREFIX " + prefix + ": <" + PREFIXES[prefix] + ">\n";
  let at = 0;
  for (const m of area.value.matchAll(/^[ \t]*PREFIX\b[^\n]*\n/gim)) at = m.index + m[0].length;
  const caret = area.selectionStart;
  const end = area.selectionEnd;
  area.value = area.value.slice(0, at) + line + area.value.slice(at);
  const shift = caret >= at ? line.length : 0;
  area.setSelectionRange(caret + shift, end + (end >= at ? line.length : 0));
  refreshHighlight();
  return true;
}

// --- completion ---------------------------------------------------------------------------
let choices = [];
let chosen = 0;
let replaceFrom = 0;

function wordBeforeCaret() {
  const area = $("query");
  const before = area.value.slice(0, area.selectionStart);
  const m = before.match(/(?:[A-Za-z][\w.-]*)?:?[\w\u00c0-\uffff.%-]*$/);
  return { text: m ? m[0] : "", start: area.selectionStart - (m ? m[0].length : 0) };
}

function candidates(word) {
  const colon = word.indexOf(":");
  if (colon >= 0) {
    const prefix = word.slice(0, colon);
    const ns = PREFIXES[prefix];
    if (ns === undefined) return [];
    const local = word.slice(colon + 1).toLowerCase();
    const seen = new Set();
    const terms = [];
    for (const term of vocabulary) {
      if (!term.iri.startsWith(ns) || seen.has(term.iri)) continue;
      const name = term.iri.slice(ns.length);
      if (!/^[\w.-]*$/.test(name) || !name.toLowerCase().startsWith(local)) continue;
      seen.add(term.iri);
      terms.push({
        insert: prefix + ":" + name, shown: prefix + ":" + name,
        note: (term.kind || "") + (term.comment ? " — " + term.comment : ""),
        rank: term.used ? 0 : 1,
      });
    }
    return terms.sort((a, b) => a.rank - b.rank || a.shown.localeCompare(b.shown));
  }
  const lower = word.toLowerCase();
  const prefixes = Object.keys(PREFIXES).filter((p) => p && p.toLowerCase().startsWith(lower))
    .sort().map((p) => ({ insert: p + ":", shown: p + ":", note: PREFIXES[p], rank: 0 }));
  const keywords = KEYWORDS.filter((k) => lower && k.toLowerCase().startsWith(lower))
    .map((k) => ({ insert: k, shown: k, note: "keyword", rank: 1 }));
  return prefixes.concat(keywords);
}

function openCompletion(force) {
  const word = wordBeforeCaret();
  if (!force && !word.text.includes(":")) return closeCompletion();
  choices = candidates(word.text).slice(0, 200);
  if (!choices.length) return closeCompletion();
  replaceFrom = word.start;
  chosen = 0;
  const list = $("complete");
  list.replaceChildren();
  choices.forEach((c, i) => {
    const item = el("li", c.shown, { role: "option", "data-index": String(i) });
    if (c.note) item.append(el("small", c.note));
    item.addEventListener("mousedown", (e) => { e.preventDefault(); accept(i); });
    list.append(item);
  });
  placeCompletion();
  list.hidden = false;
  markChosen();
}

// Below the caret: the highlight layer mirrors the text, so a marker put at the caret's offset
// there gives the caret's position.
function placeCompletion() {
  const area = $("query");
  const layer = $("highlight");
  layer.textContent = area.value.slice(0, area.selectionStart);
  const marker = el("span", "\u200b");
  layer.append(marker);
  const box = marker.getBoundingClientRect();
  const frame = $("editor").getBoundingClientRect();
  refreshHighlight();
  const list = $("complete");
  list.style.left = Math.max(0, box.left - frame.left) + "px";
  list.style.top = (box.bottom - frame.top + 2) + "px";
}

function markChosen() {
  const items = $("complete").children;
  for (let i = 0; i < items.length; i++) {
    items[i].setAttribute("aria-selected", i === chosen ? "true" : "false");
  }
  if (items[chosen]) items[chosen].scrollIntoView({ block: "nearest" });
}

function closeCompletion() {
  $("complete").hidden = true;
  choices = [];
}

function accept(i) {
  const area = $("query");
  const choice = choices[i];
  if (!choice) return;
  const end = area.selectionStart;
  area.value = area.value.slice(0, replaceFrom) + choice.insert + area.value.slice(end);
  const caret = replaceFrom + choice.insert.length;
  area.setSelectionRange(caret, caret);
  closeCompletion();
  const colon = choice.insert.indexOf(":");
  if (colon > 0) addPrefix(choice.insert.slice(0, colon));
  refreshHighlight();
  area.focus();
  if (choice.insert.endsWith(":")) openCompletion(true);  // a prefix: go on to its terms
}

function onKeydown(e) {
  const open = !$("complete").hidden;
  if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
    e.preventDefault();
    closeCompletion();
    run();
  } else if (e.key === " " && e.ctrlKey) {
    e.preventDefault();
    openCompletion(true);
  } else if (open && (e.key === "ArrowDown" || e.key === "ArrowUp")) {
    e.preventDefault();
    chosen = (chosen + (e.key === "ArrowDown" ? 1 : choices.length - 1)) % choices.length;
    markChosen();
  } else if (open && (e.key === "Enter" || e.key === "Tab")) {
    e.preventDefault();
    accept(chosen);
  } else if (open && e.key === "Escape") {
    e.preventDefault();
    closeCompletion();
  }
}

function onInput(e) {
  refreshHighlight();
  const word = wordBeforeCaret().text;
  // A known prefix just completed by its colon gets its PREFIX line.
  if (e.data === ":" && /^[A-Za-z][\w.-]*:$/.test(word)) addPrefix(word.slice(0, -1));
  if (word.includes(":") || !$("complete").hidden) openCompletion(false);
}

// --- named queries ------------------------------------------------------------------------
function choose(name, values) {
  selected = QUERIES.find((q) => q.name === name) || null;
  $("examples").value = selected ? selected.name : "";
  $("params").replaceChildren();
  $("description").textContent = selected ? selected.summary : "";
  if (!selected) return;
  $("query").value = selected.text;
  refreshHighlight();
  for (const p of selected.params) {
    const label = el("label", p.name + (p.required ? "" : " (optional)"));
    const given = values && values[p.name] !== undefined ? values[p.name] : undefined;
    const input = el("input", null, { name: p.name, "data-param": p.name });
    input.value = given !== undefined ? given : (selected.example[p.name] ?? p.default ?? "");
    input.addEventListener("keydown", (e) => { if (e.key === "Enter") run(); });
    label.append(input, el("small", p.description));
    $("params").append(label);
  }
}

function requestUrl(format) {
  const text = $("query").value;
  if (selected && text === selected.text) {
    const params = new URLSearchParams();
    for (const input of $("params").querySelectorAll("input[data-param]")) {
      if (input.value !== "") params.set(input.dataset.param, input.value);
    }
    if (format) params.set("format", format);
    // The whole answer (up to the server's row cap): this table pages it itself.
    params.set("limit", "all");
    return { url: "/queries/" + encodeURIComponent(selected.name) + "?" + params, page: params };
  }
  const params = new URLSearchParams({ query: text });
  if (format) params.set("format", format);
  return { url: "/sparql?" + params, body: new URLSearchParams({ query: text }) };
}

// --- the result table ---------------------------------------------------------------------
function shown(term) {
  if (!term) return "";
  if (term.type === "uri") return compact(term.value);
  if (term.type === "bnode") return "_:" + term.value;
  return term.value + (term["xml:lang"] ? "@" + term["xml:lang"] : "");
}

function isNumber(term) {
  return term && term.type !== "uri" && term.datatype && NUMERIC.test(term.datatype);
}

function cell(term) {
  const td = el("td");
  if (!term) return td;
  if (term.type === "uri") {
    const link = el("a", compact(term.value), {
      href: "/?name=resource&iri=" + encodeURIComponent(term.value), title: term.value,
    });
    td.append(link);
  } else {
    td.textContent = shown(term);
    if (isNumber(term)) td.className = "num";
  }
  return td;
}

function compareTerms(a, b) {
  if (!a || !b) return (a ? 0 : 1) - (b ? 0 : 1);  // unbound last
  if (isNumber(a) && isNumber(b)) return Number(a.value) - Number(b.value);
  return shown(a).localeCompare(shown(b), undefined, { numeric: true });
}

function visibleRows() {
  let rows = table.rows;
  const needle = table.filter.trim().toLowerCase();
  if (needle) {
    rows = rows.filter((row) => table.vars.some((v) => row[v] &&
      (shown(row[v]).toLowerCase().includes(needle) ||
       row[v].value.toLowerCase().includes(needle))));
  }
  if (table.sort !== null) {
    const v = table.sort;
    const sign = table.dir === "ascending" ? 1 : -1;
    rows = rows.map((row, i) => [row, i])
      .sort((x, y) => sign * compareTerms(x[0][v], y[0][v]) || x[1] - y[1])
      .map((pair) => pair[0]);
  }
  return rows;
}

function renderTable() {
  const rows = visibleRows();
  const size = Number($("page-size").value);
  const pages = Math.max(1, Math.ceil(rows.length / size));
  table.page = Math.min(Math.max(table.page, 0), pages - 1);
  const first = table.page * size;
  const page = rows.slice(first, first + size);
  const element = el("table");
  const head = el("tr");
  for (const v of table.vars) {
    const th = el("th", v, { class: "sortable", tabindex: "0", scope: "col" });
    th.setAttribute("aria-sort", table.sort === v ? table.dir : "none");
    const toggle = () => {
      table.dir = table.sort === v && table.dir === "ascending" ? "descending" : "ascending";
      table.sort = v;
      table.page = 0;
      renderTable();
    };
    th.addEventListener("click", toggle);
    th.addEventListener("keydown", (e) => { if (e.key === "Enter") toggle(); });
    head.append(th);
  }
  element.append(el("thead"));
  element.tHead.append(head);
  const body = el("tbody");
  for (const row of page) {
    const tr = el("tr");
    for (const v of table.vars) tr.append(cell(row[v]));
    body.append(tr);
  }
  element.append(body);
  $("results").replaceChildren(element);
  const of = rows.length === table.rows.length ? "" : " (filtered from " + table.rows.length + ")";
  $("page-info").textContent = rows.length
    ? "Rows " + (first + 1) + "–" + (first + page.length) + " of " + rows.length + of
    : "No rows" + of;
  $("prev").disabled = table.page === 0;
  $("next").disabled = table.page >= pages - 1;
}

function showTable(data) {
  if (typeof data.boolean === "boolean") {
    table = null;
    $("table-tools").hidden = true;
    $("results").replaceChildren(el("p", "ASK: " + data.boolean));
    return 1;
  }
  table = {
    vars: data.head.vars, rows: data.results.bindings, sort: null, dir: "none", filter: "",
    page: 0,
  };
  $("filter").value = "";
  $("table-tools").hidden = false;
  renderTable();
  return data.results.bindings.length;
}

function showDownloads(graph) {
  const formats = graph ? ["turtle", "ntriples"] : ["json", "xml", "csv", "tsv"];
  const ext = { turtle: "ttl", ntriples: "nt", json: "json", xml: "xml", csv: "csv", tsv: "tsv" };
  $("downloads").replaceChildren(el("span", "Download: "));
  for (const f of formats) {
    $("downloads").append(el("a", f.toUpperCase(), {
      href: requestUrl(f).url, download: "results." + ext[f],
    }));
  }
}

async function run() {
  const request = requestUrl(null);
  $("run").disabled = true;
  setStatus("Running…");
  const started = performance.now();
  try {
    const options = { headers: { Accept: "application/sparql-results+json, text/turtle;q=0.9" } };
    if (request.body) {
      options.method = "POST";
      options.body = request.body;
    }
    const response = await fetch(request.body ? "/sparql" : request.url, options);
    const text = await response.text();
    if (!response.ok) {
      table = null;
      $("results").replaceChildren();
      $("downloads").replaceChildren();
      $("table-tools").hidden = true;
      setStatus("Error " + response.status + ": " + text, true);
      return;
    }
    const seconds = ((performance.now() - started) / 1000).toFixed(2);
    const truncated = response.headers.get("X-Paperkg-Truncated") === "true";
    const cap = truncated ? " (cut at the server's cap of " +
      response.headers.get("X-Paperkg-Row-Cap") + ")" : "";
    if ((response.headers.get("Content-Type") || "").includes("json")) {
      const n = showTable(JSON.parse(text));
      showDownloads(false);
      setStatus(n + " result" + (n === 1 ? "" : "s") + cap + " in " + seconds + " s");
    } else {
      table = null;
      $("table-tools").hidden = true;
      $("results").replaceChildren(el("pre", text, { class: "graph" }));
      showDownloads(true);
      setStatus("Graph result" + cap + " in " + seconds + " s");
    }
  } catch (error) {
    setStatus("Request failed: " + error, true);
  } finally {
    $("run").disabled = false;
  }
}

// --- wiring -------------------------------------------------------------------------------
for (const q of QUERIES) {
  $("examples").append(el("option", q.name + " — " + q.summary, { value: q.name }));
}
for (const prefix of Object.keys(PREFIXES).sort()) {
  if (prefix) $("prefix-add").append(el("option", prefix + ": " + PREFIXES[prefix], { value: prefix }));
}
$("prefix-add").addEventListener("change", (e) => {
  addPrefix(e.target.value);
  e.target.value = "";
});
$("examples").addEventListener("change", (e) => choose(e.target.value));
$("run").addEventListener("click", run);
$("query").addEventListener("keydown", onKeydown);
$("query").addEventListener("input", onInput);
$("query").addEventListener("scroll", syncScroll);
$("query").addEventListener("blur", () => setTimeout(closeCompletion, 150));
$("filter").addEventListener("input", (e) => {
  if (!table) return;
  table.filter = e.target.value;
  table.page = 0;
  renderTable();
});
$("page-size").addEventListener("change", () => { if (table) { table.page = 0; renderTable(); } });
$("prev").addEventListener("click", () => { if (table) { table.page--; renderTable(); } });
$("next").addEventListener("click", () => { if (table) { table.page++; renderTable(); } });
if (window.ResizeObserver) new ResizeObserver(syncScroll).observe($("query"));
refreshHighlight();
// The graph's terms for completion; the body says how many arrived (`data-vocabulary`).
fetch("/vocabulary").then((r) => (r.ok ? r.json() : { terms: [] }))
  .then((data) => { vocabulary = data.terms || []; })
  .catch(() => { vocabulary = []; })
  .finally(() => { document.body.dataset.vocabulary = String(vocabulary.length); });

const start = new URLSearchParams(location.search);
if (start.get("name")) {
  const values = Object.fromEntries(start.entries());
  delete values.name;
  choose(start.get("name"), values);
  if (selected) run();
} else if (start.get("query")) {
  $("query").value = start.get("query");
  refreshHighlight();
  run();
}
