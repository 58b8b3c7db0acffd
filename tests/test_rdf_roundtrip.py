"""Every serialisation parses back (rdflib and pyoxigraph) to the same graph; hard text survives."""

from __future__ import annotations

import gzip
import io
from pathlib import Path

import pyoxigraph
import pytest
import rdflib
from rdflib.compare import graph_diff, to_isomorphic

from kg.errors import InputError
from kg.rdf import GraphFormat, build_triples, read_rdflib, serialize_graph, to_rdflib, write_graph
from kg.rdf.sample import mention, sample_corpus
from kg.types import Concept, ConceptType, Corpus, Field, Link, Paper, Role

FRAKTUR_U = "\U0001d518"  # a non-BMP letter (two UTF-16 units)
HARD = (
    'nul\x00 ctl\x0b\x7f q "uote" \\ back\\slash\nnew\r\nline\ttab '
    f'<script>alert("x")</script> & 🦜{FRAKTUR_U} \u2028 é'
)
LABEL = f'{FRAKTUR_U}-Net <b>\\ "quoted"'


def assert_same_graph(expected: rdflib.Graph, actual: rdflib.Graph, what: str) -> None:
    iso_expected, iso_actual = to_isomorphic(expected), to_isomorphic(actual)
    if iso_expected != iso_actual:
        _, only_expected, only_actual = graph_diff(iso_expected, iso_actual)
        pytest.fail(
            f"{what} differs\nonly expected:\n{only_expected.serialize(format='nt')}\n"
            f"only actual:\n{only_actual.serialize(format='nt')}"
        )


def hard_corpus() -> Corpus:
    paper = Paper(
        id="weird/ü id#1",
        title=HARD,
        abstract=f"We use {HARD} here.",
        keywords=("k;ey", HARD),
        authors=('O\'Brien "Bob"', "Ünal Çelik"),
        venue=HARD,
    )
    label = LABEL
    link = Link(
        paper.id,
        "unet",
        Role.USES,
        (mention(paper, Field.ABSTRACT, HARD, label, ConceptType.MODEL, Role.USES),),
    )
    concept = Concept("unet", label, ConceptType.MODEL, (HARD,), (f"{FRAKTUR_U}N",))
    return Corpus(papers=[paper], concepts={"unet": concept}, links=[link])


@pytest.mark.parametrize("corpus", [sample_corpus, hard_corpus])
def test_every_format_parses_back_to_the_same_graph(corpus) -> None:  # type: ignore[no-untyped-def]
    triples = build_triples(corpus())
    expected = to_rdflib(triples)
    for fmt in GraphFormat:
        data = serialize_graph(triples, fmt)
        parsed = rdflib.Graph().parse(data=data, format=fmt.rdflib_format)
        assert_same_graph(expected, parsed, f"{fmt.name} parsed by rdflib")
        again = [q.triple for q in pyoxigraph.parse(data, format=fmt.rdf_format)]
        assert set(again) == set(triples), f"{fmt.name} parsed by pyoxigraph"


def test_hard_text_survives_exactly() -> None:
    triples = build_triples(hard_corpus(), include_ontology=False)
    for fmt in GraphFormat:
        data = serialize_graph(triples, fmt)
        graph = rdflib.Graph().parse(data=data, format=fmt.rdflib_format)
        titles = {str(o) for o in graph.objects(None, rdflib.DCTERMS.title)}
        assert titles == {HARD}, fmt
        texts = {str(o) for o in graph.objects(None, rdflib.URIRef(str(_kg("text"))))}
        assert HARD in texts, fmt
        labels = {str(o) for o in graph.objects(None, rdflib.SKOS.prefLabel)}
        assert labels == {LABEL}, fmt


def _kg(name: str) -> str:
    from kg.namespaces import KG

    return str(KG[name])


def test_weird_ids_give_valid_distinct_iris() -> None:
    ids = ["a/b c#d", "a%2Fb%20c%23d", "a b", "a%20b", ".", "..", "ünï/cödé", "%", "?x=1&y"]
    papers = [Paper(id=i, abstract=f"Abstract {n}.") for n, i in enumerate(ids)]
    triples = build_triples(Corpus(papers=papers), include_ontology=False)
    identifier = pyoxigraph.NamedNode("http://purl.org/dc/terms/identifier")
    by_id = {t.object.value: t.subject.value for t in triples if t.predicate == identifier}
    assert sorted(by_id) == sorted(ids)
    assert len(set(by_id.values())) == len(ids)
    for iri in by_id.values():
        pyoxigraph.NamedNode(iri)  # raises on an invalid IRI
        assert "/paper/" in iri and "/" not in iri.rpartition("/paper/")[2]
        assert iri.rpartition("/")[2] not in {".", ".."}
    graph = rdflib.Graph().parse(data=serialize_graph(triples), format="turtle")
    assert {str(s) for s in graph.subjects(rdflib.DCTERMS.identifier)} == set(by_id.values())


@pytest.mark.parametrize("fmt", list(GraphFormat))
def test_write_graph_to_path_gz_and_file_object(tmp_path: Path, fmt: GraphFormat) -> None:
    triples = build_triples(sample_corpus())
    expected = serialize_graph(triples, fmt)
    plain = tmp_path / f"graph{fmt.extension}"
    write_graph(triples, plain)  # format from the extension
    assert plain.read_bytes() == expected
    zipped = tmp_path / f"graph{fmt.extension}.gz"
    write_graph(triples, zipped)
    assert gzip.decompress(zipped.read_bytes()) == expected
    first = zipped.read_bytes()
    write_graph(triples, zipped)
    assert zipped.read_bytes() == first, "gzip output must be reproducible (no timestamp)"
    buffer = io.BytesIO()
    write_graph(triples, buffer, fmt)
    assert buffer.getvalue() == expected
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([plain.name, zipped.name])
    assert_same_graph(to_rdflib(triples), read_rdflib(zipped), f"{zipped.name} via read_rdflib")


def test_write_graph_needs_a_known_extension_or_format(tmp_path: Path) -> None:
    triples = build_triples(sample_corpus(), include_ontology=False)
    with pytest.raises(InputError, match=r"graph\.txt.*\.ttl, \.nt or \.jsonld"):
        write_graph(triples, tmp_path / "graph.txt")
    write_graph(triples, tmp_path / "graph.txt", GraphFormat.NTRIPLES)
    assert (tmp_path / "graph.txt").read_bytes() == serialize_graph(triples, GraphFormat.NTRIPLES)


def test_read_rdflib_reports_the_file_on_errors(tmp_path: Path) -> None:
    bad = tmp_path / "bad.ttl"
    bad.write_text("<a> <b> .\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"bad\.ttl: not valid RDF \(ttl\)"):
        read_rdflib(bad)
    with pytest.raises(InputError, match=r"missing\.nt: no such file"):
        read_rdflib(tmp_path / "missing.nt")
    odd = tmp_path / "graph.xyz"
    odd.write_text("", encoding="utf-8")
    with pytest.raises(InputError, match=r"graph\.xyz: unknown RDF format"):
        read_rdflib(odd)
    broken_gz = tmp_path / "graph.nt.gz"
    broken_gz.write_bytes(b"not gzip")
    with pytest.raises(InputError, match=r"graph\.nt\.gz: not valid RDF \(nt\)"):
        read_rdflib(broken_gz)
    unnamed = tmp_path / "graph.data"
    unnamed.write_text("@prefix ex: <http://example.org/> .\nex:a ex:b ex:c .\n", encoding="utf-8")
    assert len(read_rdflib(unnamed)) == 1  # no RDF suffix: the first bytes say Turtle
