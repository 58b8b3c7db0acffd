"""Loading a graph file into the store in batches (`kg.rdf.io.load_file(..., batch=N)`, which
`kg.query.store.load_store` uses): the store holds the same graph as one `bulk_load` of the
whole file, blank nodes included, whatever the batch size."""

from __future__ import annotations

from pathlib import Path

import pyoxigraph as ox
import pytest
import rdflib
from rdflib.compare import isomorphic

import kg.query.store as store_module
from kg.errors import InputError
from kg.query.labels import INDEX_GRAPH
from kg.query.store import LOAD_BATCH, load_store
from kg.rdf.io import load_file, open_read_only

FIXTURE = Path(__file__).parent / "fixtures" / "query_graph.ttl"

# Invented: labelled blank nodes used far apart (so in different batches), anonymous and
# nested ones, a blank node as the object of many triples, and plain IRIs around them.
BLANK_TTL = """@prefix ex: <http://example.org/> .
_:a ex:knows _:b .
ex:s1 ex:p "one" .
ex:s2 ex:p "two" .
_:b ex:name "B" .
ex:s3 ex:cites [ ex:p "anon" ; ex:next [ ex:p "nested" ] ] .
ex:s4 ex:p _:c .
ex:s5 ex:p _:c .
ex:s6 ex:p _:c .
_:c ex:name "C" .
ex:s7 ex:p "seven"@en .
_:a ex:name "A" .
"""

BLANK_TRIG = """@prefix ex: <http://example.org/> .
ex:g1 { _:x ex:p "in g1" . ex:s ex:q _:x . }
ex:g2 { _:x ex:p "in g2" . }
_:x ex:p "default" .
"""

QUERIES = [
    "SELECT ?n ?m WHERE { ?x <http://example.org/knows> ?y . ?x <http://example.org/name> ?n . "
    "?y <http://example.org/name> ?m }",
    "SELECT ?s WHERE { ?s <http://example.org/p> ?c . ?c <http://example.org/name> 'C' } "
    "ORDER BY ?s",
    "SELECT ?v WHERE { <http://example.org/s3> <http://example.org/cites> ?a . "
    "?a <http://example.org/next> ?b . ?b <http://example.org/p> ?v }",
    "SELECT (COUNT(DISTINCT ?b) AS ?n) WHERE { ?b ?p ?o FILTER(isBlank(?b)) }",
    "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }",
]


def _whole(path: Path) -> ox.Store:
    store = ox.Store()
    load_file(store, path, bulk=True)  # one bulk_load of the whole file
    return store


def _batched(path: Path, batch: int) -> ox.Store:
    store = ox.Store()
    load_file(store, path, bulk=True, batch=batch)
    return store


def _answers(store: ox.Store) -> list[list[str]]:
    return [sorted(str(list(row)) for row in store.query(q)) for q in QUERIES]


def _rdflib(store: ox.Store) -> rdflib.Graph:
    graph = rdflib.Graph()
    graph.parse(data=store.dump(format=ox.RdfFormat.N_TRIPLES, from_graph=ox.DefaultGraph()),
                format="nt")
    return graph


@pytest.mark.parametrize("batch", [1, 2, 3, 5, 1000])
def test_batches_give_the_graph_of_one_bulk_load(tmp_path: Path, batch: int) -> None:
    path = tmp_path / "blank.ttl"
    path.write_text(BLANK_TTL)
    whole, batched = _whole(path), _batched(path, batch)
    assert len(batched) == len(whole) == 14
    assert _answers(batched) == _answers(whole)
    assert isomorphic(_rdflib(batched), _rdflib(whole))


@pytest.mark.parametrize("batch", [1, 2, 4])
def test_named_graphs_keep_their_blank_nodes_apart(tmp_path: Path, batch: int) -> None:
    path = tmp_path / "blank.trig"
    path.write_text(BLANK_TRIG)
    whole, batched = _whole(path), _batched(path, batch)
    assert len(batched) == len(whole) == 4
    query = ("SELECT ?g ?v WHERE { GRAPH ?g { ?x <http://example.org/p> ?v . "
             "OPTIONAL { ?s <http://example.org/q> ?x } } }")
    assert sorted(map(str, batched.query(query))) == sorted(map(str, whole.query(query)))
    # _:x is one node in the whole file (TriG labels are file-wide), in any batch size
    nodes = {q.subject for q in batched if isinstance(q.subject, ox.BlankNode)}
    assert len(nodes) == len({q.subject for q in whole if isinstance(q.subject, ox.BlankNode)})


def test_blank_nodes_get_fresh_ids_on_every_load(tmp_path: Path) -> None:
    """As `bulk_load` does: loading a file twice adds its blank nodes twice, never merges them
    with the blank nodes already in the store (nor keeps the file's labels)."""
    path = tmp_path / "blank.ttl"
    path.write_text(BLANK_TTL)
    store = _batched(path, 2)
    load_file(store, path, bulk=True, batch=2)
    reference = _whole(path)
    load_file(reference, path, bulk=True)
    assert len(store) == len(reference) == 14 + 11  # the 3 triples without one are the same
    labels = {q.subject.value for q in store if isinstance(q.subject, ox.BlankNode)}
    assert not labels & {"a", "b", "c"}


def test_a_graph_without_blank_nodes_is_the_same_set_of_triples(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch,
                                                                ) -> None:
    monkeypatch.setattr(store_module, "LOAD_BATCH", 97)
    report = load_store(tmp_path / "s", FIXTURE)
    reference = ox.Store()
    reference.load(path=str(FIXTURE), format=ox.RdfFormat.TURTLE)
    assert report.triples == len(reference) > 10 * 97
    stored = open_read_only(tmp_path / "s")
    assert {q for q in stored if q.graph_name != INDEX_GRAPH} == set(reference)


def test_a_bad_line_in_a_later_batch_is_an_input_error(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store_module, "LOAD_BATCH", 2)
    good = tmp_path / "good.nt"
    good.write_text('<http://a> <http://b> "c" .\n')
    load_store(tmp_path / "s", good)
    bad = tmp_path / "bad.nt"
    bad.write_text("".join(f'<http://a{i}> <http://b> "c" .\n' for i in range(7))
                   + "<http://a> <http://b> oops .\n")
    with pytest.raises(InputError, match=r"bad\.nt"):
        load_store(tmp_path / "s", bad)
    stored = open_read_only(tmp_path / "s")
    assert len([q for q in stored if q.graph_name != INDEX_GRAPH]) == 1  # as it was


def test_gzipped_and_rdflib_only_formats_in_batches(tmp_path: Path) -> None:
    import gzip

    path = tmp_path / "blank.ttl.gz"
    path.write_bytes(gzip.compress(BLANK_TTL.encode()))
    assert _answers(_batched(path, 3)) == _answers(_whole(path))
    trix = tmp_path / "g.trix"
    dataset = rdflib.Dataset()
    dataset.parse(data=BLANK_TTL, format="turtle")
    dataset.serialize(trix, format="trix")
    assert _answers(_batched(trix, 3)) == _answers(_whole(trix))


def test_the_batch_is_documented_and_positive() -> None:
    assert LOAD_BATCH >= 10_000
    with pytest.raises(ValueError, match="at least 1"):
        load_file(ox.Store(), FIXTURE, bulk=True, batch=0)


def test_triples_load_in_batches_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store_module, "LOAD_BATCH", 2)
    shared = ox.BlankNode("shared")
    p = ox.NamedNode("http://example.org/p")
    triples = [ox.Triple(ox.NamedNode(f"http://example.org/s{i}"), p, shared) for i in range(5)]
    triples.append(ox.Triple(shared, p, ox.Literal("end")))
    report = load_store(tmp_path / "s", triples)
    assert report.triples == 6
    stored = open_read_only(tmp_path / "s")
    query = "SELECT (COUNT(?s) AS ?n) WHERE { ?s <http://example.org/p> ?b . ?b ?q 'end' }"
    assert next(iter(stored.query(query)))["n"].value == "5"  # one node across the batches
