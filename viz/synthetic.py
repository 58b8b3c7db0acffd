"""A synthetic paperkg graph of any size, for the browser view's tests and benchmarks.

It follows docs/VOCABULARY.md (papers, typed concepts with altLabels and kg:paperCount, one role
per link, evidence with sentences and offsets) with Zipf-like concept popularity, so that the
size policy, the layout and the page meet a realistic degree distribution. Deterministic for a
given seed.

>>> triples = synthetic_triples(50, seed=1)
>>> from viz.load import load_graph, open_store
>>> graph = load_graph(open_store(triples))
>>> graph.number_of_nodes()
50
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import TYPE_CHECKING

from kg.namespaces import DCTERMS_IRI, DEFAULT_BASE, KG_IRI, RDF_IRI, SCHEMA_IRI, SKOS_IRI, XSD_IRI
from viz.style import ROLE_ORDER, TYPE_ORDER

if TYPE_CHECKING:
    import pyoxigraph

PAPER_SHARE = 0.4
_WORDS = (
    "adaptive", "sparse", "contrastive", "latent", "graph", "neural", "diffusion", "token",
    "robust", "efficient", "causal", "multimodal", "federated", "hierarchical", "recurrent",
    "attention", "spectral", "quantized", "generative", "bayesian", "reinforcement",
    "retrieval", "transformer", "kernel", "implicit", "equivariant", "continual",
)
_TAILS = ("network", "model", "learning", "benchmark", "score", "estimation", "alignment")


def synthetic_triples(n_nodes: int, *, seed: int = 0) -> list[pyoxigraph.Triple]:
    """Triples of a graph with `n_nodes` papers and concepts (40% papers)."""
    import pyoxigraph as ox

    rng = random.Random(seed)
    iri = ox.NamedNode
    rdf_type = iri(RDF_IRI + "type")

    def kg(name: str) -> pyoxigraph.NamedNode:
        return iri(KG_IRI + name)

    def lit(value: str | int) -> pyoxigraph.Literal:
        if isinstance(value, int):
            return ox.Literal(str(value), datatype=iri(XSD_IRI + "integer"))
        return ox.Literal(value)

    n_papers = max(1, round(n_nodes * PAPER_SHARE))
    n_concepts = max(1, n_nodes - n_papers)
    concept_types = [t for t in TYPE_ORDER if t != "Paper"]
    labels = []
    for i in range(n_concepts):
        words = rng.sample(_WORDS, 2)
        labels.append(f"{words[0]} {words[1]} {rng.choice(_TAILS)} {i}")
    # Zipf-like popularity: concept i is picked with weight 1 / (i + 1).
    weights = [1.0 / (i + 1) for i in range(n_concepts)]
    links: dict[int, dict[int, str]] = {p: {} for p in range(n_papers)}
    for p in range(n_papers):
        for c in rng.choices(range(n_concepts), weights=weights, k=rng.randint(3, 10)):
            links[p][c] = rng.choice(ROLE_ORDER)
    linked = {c for cs in links.values() for c in cs}
    for c in range(n_concepts):
        if c not in linked:
            links[rng.randrange(n_papers)][c] = rng.choice(ROLE_ORDER)
    counts = [0] * n_concepts
    triples: list[pyoxigraph.Triple] = []
    add = triples.append
    for p in range(n_papers):
        paper = iri(f"{DEFAULT_BASE}paper/syn-{p}")
        add(ox.Triple(paper, rdf_type, iri(SCHEMA_IRI + "ScholarlyArticle")))
        add(ox.Triple(paper, iri(DCTERMS_IRI + "identifier"), lit(f"syn-{p}")))
        title = " ".join(rng.sample(_WORDS, 5)).capitalize() + f" (paper {p})"
        add(ox.Triple(paper, iri(DCTERMS_IRI + "title"), lit(title)))
        sentences = [f"We study {labels[c]} in this work." for c in sorted(links[p])]
        abstract = " ".join(sentences)
        add(ox.Triple(paper, iri(DCTERMS_IRI + "abstract"), lit(abstract)))
        add(ox.Triple(paper, iri(SCHEMA_IRI + "url"), iri(f"https://example.org/paper/{p}")))
        offset = 0
        for k, c in enumerate(sorted(links[p])):
            concept = iri(f"{DEFAULT_BASE}concept/syn-{c}")
            role = links[p][c]
            counts[c] += 1
            add(ox.Triple(paper, kg("mentions"), concept))
            if role != "mentions":
                add(ox.Triple(paper, kg(role), concept))
            sentence = sentences[k]
            start = offset + len("We study ")
            end = start + len(labels[c])
            sent = iri(f"{DEFAULT_BASE}paper/syn-{p}/sentence/abstract-{k}")
            ev = iri(f"{DEFAULT_BASE}paper/syn-{p}/evidence/abstract-{start}-{end}")
            add(ox.Triple(sent, rdf_type, kg("Sentence")))
            add(ox.Triple(sent, kg("text"), lit(sentence)))
            add(ox.Triple(sent, kg("start"), lit(offset)))
            add(ox.Triple(sent, kg("end"), lit(offset + len(sentence))))
            add(ox.Triple(ev, rdf_type, kg("Evidence")))
            add(ox.Triple(ev, kg("paper"), paper))
            add(ox.Triple(ev, kg("concept"), concept))
            add(ox.Triple(ev, kg("role"), kg(role)))
            add(ox.Triple(ev, kg("text"), lit(labels[c])))
            add(ox.Triple(ev, kg("field"), lit("abstract")))
            add(ox.Triple(ev, kg("start"), lit(start)))
            add(ox.Triple(ev, kg("end"), lit(end)))
            add(ox.Triple(ev, kg("inSentence"), sent))
            offset += len(sentence) + 1
    for c in range(n_concepts):
        concept = iri(f"{DEFAULT_BASE}concept/syn-{c}")
        add(ox.Triple(concept, rdf_type, iri(SKOS_IRI + "Concept")))
        add(ox.Triple(concept, rdf_type, kg(concept_types[c % len(concept_types)])))
        add(ox.Triple(concept, iri(SKOS_IRI + "prefLabel"), lit(labels[c])))
        add(ox.Triple(concept, iri(SKOS_IRI + "altLabel"), lit(f"SYN{c}")))
        add(ox.Triple(concept, kg("paperCount"), lit(counts[c])))
    return triples


def write_synthetic(path: str | Path, n_nodes: int, *, seed: int = 0) -> Path:
    """Write `synthetic_triples(n_nodes)` as Turtle (or N-Triples for a `.nt` path)."""
    import pyoxigraph as ox

    out = Path(path)
    fmt = ox.RdfFormat.N_TRIPLES if out.suffix == ".nt" else ox.RdfFormat.TURTLE
    ox.serialize(synthetic_triples(n_nodes, seed=seed), str(out), fmt)
    return out
