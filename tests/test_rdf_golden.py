"""The graph of the hand-made sample corpus, byte for byte, and its determinism.

`tests/golden/small.ttl` is the Turtle of `kg.rdf.sample.sample_corpus()` (without the
ontology). When a change to the graph is deliberate, regenerate it with

    python -m tests.test_rdf_golden      # from the repository root

then read the diff (`git diff tests/golden/small.ttl`) line by line before committing it.
"""

from __future__ import annotations

import dataclasses
import os
import random
import subprocess
import sys
from itertools import pairwise
from pathlib import Path

from kg.rdf import GraphFormat, build_triples, serialize_graph
from kg.rdf.sample import sample_corpus
from kg.types import Corpus

GOLDEN = Path(__file__).parent / "golden" / "small.ttl"
ROOT = Path(__file__).resolve().parents[1]


def small_turtle(corpus: Corpus | None = None, fmt: GraphFormat = GraphFormat.TURTLE) -> bytes:
    triples = build_triples(corpus or sample_corpus(), include_ontology=False)
    return serialize_graph(triples, fmt)


def shuffled(corpus: Corpus, seed: int) -> Corpus:
    """The same corpus with every order the contract says does not matter permuted."""
    rng = random.Random(seed)

    def mixed(items: list) -> list:  # type: ignore[type-arg]
        items = list(items)
        rng.shuffle(items)
        return items

    links = [
        dataclasses.replace(link, mentions=tuple(mixed(list(link.mentions))))
        for link in corpus.links
    ]
    return Corpus(
        papers=mixed(corpus.papers),
        extractions=dict(mixed(list(corpus.extractions.items()))),
        concepts=dict(mixed(list(corpus.concepts.items()))),
        links=mixed(links),
    )


def test_small_graph_matches_the_golden_turtle() -> None:
    expected = GOLDEN.read_bytes()
    actual = small_turtle()
    assert actual == expected, (
        "the Turtle of sample_corpus() changed; if deliberate, run "
        "`python -m tests.test_rdf_golden` and review `git diff tests/golden/small.ttl`"
    )


def test_building_twice_gives_identical_bytes_in_every_format() -> None:
    for fmt in GraphFormat:
        assert small_turtle(fmt=fmt) == small_turtle(fmt=fmt)


def test_order_of_papers_links_mentions_and_dicts_does_not_matter() -> None:
    expected = small_turtle()
    for seed in range(5):
        assert small_turtle(shuffled(sample_corpus(), seed)) == expected, f"seed {seed}"


def test_triples_come_in_canonical_order_without_duplicates() -> None:
    """Subject, then predicate (rdf:type first), then object value: strictly increasing."""
    from kg.rdf.terms import RDF_TYPE

    triples = build_triples(sample_corpus(), include_ontology=False)
    keys = [
        (t.subject.value, "" if t.predicate == RDF_TYPE else t.predicate.value, t.object.value)
        for t in triples
    ]
    assert all(a < b for a, b in pairwise(keys))


def test_output_does_not_depend_on_the_hash_seed() -> None:
    code = (
        "import sys; from kg.rdf import build_triples, serialize_graph; "
        "from kg.rdf.sample import sample_corpus; "
        "sys.stdout.buffer.write(serialize_graph(build_triples(sample_corpus())))"
    )
    outputs = set()
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run(
            [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, check=True
        )
        outputs.add(done.stdout)
    assert len(outputs) == 1


if __name__ == "__main__":
    GOLDEN.parent.mkdir(exist_ok=True)
    GOLDEN.write_bytes(small_turtle())
    print(f"wrote {GOLDEN}; review it with `git diff {GOLDEN}` before committing")
