"""The compact forms phase 2 keeps per paper (issue 14: memory that grows with the corpus)."""

from __future__ import annotations

from kg.canon.names import _paper_words
from kg.types import Link, Role


def link(paper: str, key: str) -> Link:
    return Link(paper, key, Role.USES, ())


def test_paper_words_are_one_sorted_tuple_per_paper_even_when_its_links_are_apart() -> None:
    words = _paper_words([link("p1", "graph neural network"), link("p2", "graph kernel"),
                          link("p1", "node classification of the graph")])
    assert words == {"p1": ("classification", "graph", "network", "neural", "node"),
                     "p2": ("graph", "kernel")}


def test_paper_words_share_one_string_per_word_across_papers() -> None:
    words = _paper_words([link("p1", "".join(["dif", "fusion"])),
                          link("p2", "".join(["diff", "usion"]))])
    assert words["p1"][0] is words["p2"][0]


def test_a_paper_whose_keys_have_no_content_word_has_an_empty_tuple() -> None:
    assert _paper_words([link("p1", "of 42")]) == {"p1": ()}
