"""Named-query benchmark: every named query on the Oxigraph store and on rdflib's in-memory
graph, in one run, on one graph.

    python scripts/bench_queries.py --build              # kg build of all ../shared paperlists
    python scripts/bench_queries.py --graph out/all.nt   # or an existing graph file
        [--work DIR] [--runs 5] [--rdflib-timeout 120] [--no-rdflib] [--out results.md]

Steps: (1) with --build, `kg build` every paperlist into WORK/graph.nt; (2) bulk-load the graph
into the Oxigraph store WORK/graph.db (`kg.query.store.load_store`: load time, size on disk); (3)
parse it into an rdflib Graph in a worker process; (4) run every named query once to warm up,
then `--runs` times, on both, timing `kg.query.run_named` up to the last row. Parameters are
picked from the graph, so the same script works on any paperkg graph: once "typical" (concepts
linked to about 25 papers, a paper that mentions one) and once "heavy" (the most linked
concept of the type) for the queries that walk a concept's papers. An rdflib query that takes
longer than --rdflib-timeout is stopped and shown as "> N ms": the worker parses the graph
once and runs each query in a forked child, which it kills (no new parse).

Prints a Markdown table: query, parameters, rows, median ms on Oxigraph, median ms on rdflib,
and rdflib / Oxigraph. Timing on a shared machine is noisy: compare within one run.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from perf_doc import recording

PAPERLISTS = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "paperlists"
KG = "https://w3id.org/paperkg/ontology#"
SKOS = "http://www.w3.org/2004/02/skos/core#"
TOP = """PREFIX kg: <https://w3id.org/paperkg/ontology#>
PREFIX skos: <http://www.w3.org/2004/02/skos/core#>
SELECT ?label WHERE { ?c a ?type ; kg:paperCount ?n ; skos:prefLabel ?label }
ORDER BY DESC(?n) ?label LIMIT 1"""
# "Typical": the concept of that type linked to the number of papers closest to 25.
TYPICAL = """PREFIX kg: <https://w3id.org/paperkg/ontology#>
PREFIX skos: <http://www.w3.org/2004/02/skos/core#>
SELECT ?label WHERE { ?c a ?type ; kg:paperCount ?n ; skos:prefLabel ?label }
ORDER BY ABS(?n - 25) ?label LIMIT 1"""
TOP_ACRONYM = """PREFIX kg: <https://w3id.org/paperkg/ontology#>
SELECT ?a WHERE { ?c kg:acronym ?a ; kg:paperCount ?n } ORDER BY DESC(?n) ?a LIMIT 1"""
PAIR = """PREFIX kg: <https://w3id.org/paperkg/ontology#>
PREFIX skos: <http://www.w3.org/2004/02/skos/core#>
SELECT ?x ?y (COUNT(*) AS ?n) WHERE {
  ?paper kg:evaluatesOn ?d ; kg:uses|kg:proposes ?c .
  ?d a kg:Dataset ; skos:prefLabel ?y . ?c a kg:Method ; skos:prefLabel ?x .
} GROUP BY ?x ?y ORDER BY DESC(?n) ?x ?y LIMIT 1"""
PAPER = """PREFIX kg: <https://w3id.org/paperkg/ontology#>
PREFIX skos: <http://www.w3.org/2004/02/skos/core#>
PREFIX dcterms: <http://purl.org/dc/terms/>
SELECT ?id WHERE { ?c skos:prefLabel ?label . ?p kg:mentions ?c ; dcterms:identifier ?id }
ORDER BY ?id LIMIT 1"""
# The queries that rank or list the whole graph, with each kind of parameter they take.
WHOLE_GRAPH: list[tuple[str, dict[str, str]]] = [
    ("top-concepts", {}),
    ("top-concepts", {"type": "Metric"}),
    ("proposed-methods", {}),
    ("proposed-methods", {"type": "Model"}),
    ("search", {"text": "a"}),
    ("search", {"text": "graph", "type": "Dataset"}),
    ("vocabulary-matches", {}),
    ("acronyms", {}),
    ("code-links", {}),
]
# Parameters that name a concept, by the type of concept they take.
CONCEPT_TYPES = {"method": "Method", "dataset": "Dataset", "task": "Task"}


def pick_params(source: Any, profile: str) -> dict[str, dict[str, str]]:
    """Parameters for every named query, taken from the graph itself.

    A `label(?c)` parameter gets a concept of the type its name says (method, dataset, task;
    Model otherwise): `typical` one linked to about 25 papers, `heavy` the most linked one
    (the slowest case for queries that walk a concept's papers). A `paper` gets a paper that
    mentions the chosen model; other required parameters keep their @example values.
    """
    from kg.query import named as queries
    from kg.query.named import ParamKind

    def first(sparql: str, bindings: dict[str, Any] | None = None) -> list[str]:
        rows = source.select(sparql, bindings)
        return [term.value for term in rows[0].values()] if rows else []

    def concept(ctype: str) -> str:
        found = first(TOP if profile == "heavy" else TYPICAL, {"type": _iri(KG + ctype)})
        return found[0] if found else "none"

    paper = (first(PAPER, {"label": concept("Model")}) or ["none"])[0]
    pair = first(PAIR) or [concept("Method"), concept("Dataset")]
    fixed = {
        "acronyms": {"acronym": (first(TOP_ACRONYM) or ["none"])[0]},
        "papers-evaluated-on": {"method": pair[0], "dataset": pair[1]},
        "resource": {"iri": f"{_base(source)}concept/large-language-model"},
        "search": {"text": "diffusion"},
        "top-concepts": {"type": "Task"},
    }
    chosen: dict[str, dict[str, str]] = {}
    for named in queries.all_queries():
        if named.name in fixed:
            chosen[named.name] = fixed[named.name]
            continue
        values: dict[str, str] = {}
        for param in named.params:
            if param.kind is ParamKind.LABEL:
                values[param.name] = concept(CONCEPT_TYPES.get(param.name, "Model"))
            elif param.name == "paper":
                values[param.name] = paper
            elif param.required:
                values[param.name] = named.example[param.name]
        chosen[named.name] = values
    return chosen


def walks_a_concept(name: str) -> bool:
    """True for queries with a label parameter: their cost grows with the concept's papers."""
    from kg.query import named as queries
    from kg.query.named import ParamKind

    return any(p.kind is ParamKind.LABEL for p in queries.get(name).params)


def _iri(value: str) -> Any:
    import pyoxigraph as ox

    return ox.NamedNode(value)


def _base(source: Any) -> str:
    rows = source.select(
        "PREFIX dcterms: <http://purl.org/dc/terms/> "
        "SELECT ?p WHERE { ?p dcterms:identifier ?id } LIMIT 1"
    )
    return rows[0]["p"].value.rsplit("paper/", 1)[0] if rows else ""


def time_query(
    source: Any, name: str, params: dict[str, str], runs: int, *, slow: float = float("inf")
) -> tuple[float, int]:
    """Median seconds over `runs` (after one warm-up run) and the row count. A query whose
    warm-up takes over `slow` seconds is timed by that one run."""
    from kg.query import run_named

    start = time.perf_counter()
    rows = len(run_named(source, name, params))
    first = time.perf_counter() - start
    if first > slow:
        return first, rows
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        run_named(source, name, params)
        times.append(time.perf_counter() - start)
    return statistics.median(times), rows


def _rdflib_worker(conn: Any, graph: str, timeout: float) -> None:
    """Parse the graph once; run each query in a forked child (sharing the parsed graph, copy
    on write), so a query past `timeout` is stopped by killing the child alone."""
    import gc
    import os
    import pickle
    import select

    from kg.query import open_source

    start = time.perf_counter()
    source = open_source(graph, engine="rdflib")
    gc.collect()
    gc.freeze()  # children's collections then skip (and do not copy) the parsed graph's pages
    conn.send(time.perf_counter() - start)
    while True:
        try:
            name, params, runs = conn.recv()
        except EOFError:
            return
        read_end, write_end = os.pipe()
        child = os.fork()
        if child == 0:
            os.close(read_end)
            with os.fdopen(write_end, "wb") as out:
                pickle.dump(time_query(source, name, params, runs, slow=10.0), out)
            os._exit(0)
        os.close(write_end)
        with os.fdopen(read_end, "rb") as answer:
            ready, _, _ = select.select([answer], [], [], timeout)
            result = pickle.load(answer) if ready else None
        if result is None:
            os.kill(child, signal.SIGKILL)
        os.waitpid(child, 0)
        conn.send(result)


class RdflibRunner:
    """rdflib in a worker process that parses the graph once and runs every query in a child
    of its own, so that a query past the time limit can be stopped without a new parse."""

    def __init__(self, graph: Path, timeout: float):
        self.context = mp.get_context("spawn")
        self.conn, child = self.context.Pipe()
        self.process = self.context.Process(
            target=_rdflib_worker, args=(child, str(graph), timeout), daemon=True
        )
        self.process.start()
        self.load_seconds = float(self.conn.recv())

    def run(self, name: str, params: dict[str, str], runs: int) -> tuple[float, int] | None:
        """(median seconds, rows), or None when the time limit stopped it."""
        self.conn.send((name, params, runs))
        answer = self.conn.recv()
        return None if answer is None else (float(answer[0]), int(answer[1]))

    def close(self) -> None:
        self.process.kill()
        self.process.join()


def build(work: Path) -> Path:
    """`kg build` of every paperlist into WORK/graph.nt (reused when it exists)."""
    graph = work / "graph.nt"
    if graph.exists():
        print(f"reusing {graph}", file=sys.stderr)
        return graph
    inputs = sorted(str(p) for p in PAPERLISTS.glob("*.json.gz"))
    start = time.perf_counter()
    subprocess.run(
        [
            str(Path(sys.executable).with_name("kg")),
            "build",
            *inputs,
            "-o",
            str(graph),
            "--no-progress",
        ],
        check=True,
    )
    print(f"kg build: {time.perf_counter() - start:.0f} s", file=sys.stderr)
    return graph


def _row(name: str, params: dict[str, str], store: Any, rdflib: Any, args: Any) -> str:
    ox_seconds, rows = time_query(store, name, params, args.runs)
    rdf_cell, ratio = "–", "–"
    if rdflib is not None:
        timed = rdflib.run(name, params, args.runs)
        if timed is None:
            rdf_cell = f"> {args.rdflib_timeout * 1000:,.0f}"
        else:
            rdf_cell = f"{timed[0] * 1000:,.1f}"
            ratio = f"{timed[0] / ox_seconds:,.0f}×" if ox_seconds > 0 else "–"
            if timed[1] != rows:
                ratio += f" (rdflib: {timed[1]} rows!)"
    shown = ", ".join(f"{k}={v}" for k, v in params.items()) or "(defaults)"
    return f"| {name} | {shown} | {rows:,} | {ox_seconds * 1000:,.1f} | {rdf_cell} | {ratio} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--build", action="store_true", help="kg build all ../shared paperlists")
    what.add_argument("--graph", type=Path, help="an existing graph file")
    parser.add_argument("--work", type=Path, default=Path("out/bench"), help="work folder")
    parser.add_argument("--runs", type=int, default=5, help="timed runs per query (median)")
    parser.add_argument(
        "--rdflib-timeout",
        type=float,
        default=300.0,
        help="seconds before rdflib's runs of one query are stopped (a query slower than 10 s "
        "is timed once)",
    )
    parser.add_argument("--no-rdflib", action="store_true", help="time Oxigraph only")
    parser.add_argument("--out", type=Path, help="also write the report here")
    parser.add_argument("--no-doc", action="store_true",
                        help="do not record the report in docs/PERFORMANCE.md")
    args = parser.parse_args()
    # Exit through SystemExit on SIGTERM so that the rdflib worker (a daemon) is stopped too.
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(143))

    from kg.query import named as queries
    from kg.query import open_source
    from kg.query.store import load_store

    args.work.mkdir(parents=True, exist_ok=True)
    graph = build(args.work) if args.build else args.graph
    report = load_store(args.work / "graph.db", graph)
    lines = [
        f"Graph: `{graph}` ({graph.stat().st_size / 1e6:.0f} MB, {report.triples:,} triples)",
        "",
        f"- Oxigraph bulk load (with the label and rank indexes): {report.seconds:.1f} s; "
        f"store on disk: "
        f"{report.size_bytes / 1e6:.0f} MB",
    ]
    store = open_source(store=args.work / "graph.db")
    rdflib = None
    if not args.no_rdflib:
        rdflib = RdflibRunner(graph, args.rdflib_timeout)
        lines.append(f"- rdflib parse into memory: {rdflib.load_seconds:.1f} s")
    lines.append(
        f"- median of {args.runs} runs after a warm-up, up to the last row; parameters picked "
        "from the graph: *typical* = concepts in about 25 papers, *heavy* = the most linked "
        "concept of the type"
    )
    for profile in ("typical", "heavy"):
        chosen = pick_params(store, profile)
        lines += [
            "",
            f"### {profile} parameters",
            "",
            "| query | parameters | rows | Oxigraph store (ms) | rdflib in memory (ms) "
            "| rdflib / Oxigraph |",
            "|---|---|---:|---:|---:|---:|",
        ]
        for name in queries.names():
            if profile == "heavy" and not walks_a_concept(name):
                continue
            lines.append(_row(name, chosen.get(name, {}), store, rdflib, args))
            print(lines[-1], file=sys.stderr, flush=True)
    lines += [
        "",
        "### whole-graph queries (no concept given; the rank index)",
        "",
        "| query | parameters | rows | Oxigraph store (ms) | rdflib in memory (ms) "
        "| rdflib / Oxigraph |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for name, params in WHOLE_GRAPH:
        lines.append(_row(name, params, store, rdflib, args))
        print(lines[-1], file=sys.stderr, flush=True)
    if rdflib is not None:
        rdflib.close()
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        args.out.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    with recording("queries", enabled="--no-doc" not in sys.argv):
        main()
