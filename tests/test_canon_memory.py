"""The compact forms phase 2 keeps per paper (issue 14: memory that grows with the corpus)."""

from __future__ import annotations

from types import MappingProxyType

import pytest

from kg.build import extract_corpus, link_corpus
from kg.canon.compact import compact_extraction
from kg.canon.concepts import Canonical, after_links, concepts_from_links
from kg.canon.names import _paper_words
from kg.canon.paper_links import links_by_paper
from kg.ingest.shelf import PaperShelf
from kg.rdf.build import build_triples
from kg.types import ConceptType, Extraction, Field, Link, Mention, Paper, Role, Span


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


def test_offsets_are_one_int_object_per_value_across_papers() -> None:
    def decoded(paper: str) -> Extraction:  # as a record decodes: new int objects
        start, end = int("1000"), int("1007")
        return Extraction(paper, sentences=(Span(Field.ABSTRACT, start, end),))

    one, two = compact_extraction(decoded("p1")), compact_extraction(decoded("p2"))
    assert one.sentences == two.sentences == (Span(Field.ABSTRACT, 1000, 1007),)
    assert one.sentences[0].start is two.sentences[0].start
    assert one.sentences[0].end is two.sentences[0].end


def mention(label: str) -> Mention:
    return Mention(label, label, Span(Field.ABSTRACT, 0, len(label)),
                   Span(Field.ABSTRACT, 0, 40), ConceptType.METHOD, Role.USES, "rules")


def test_rekey_merges_a_papers_links_that_land_on_one_key_and_keeps_the_others_as_is() -> None:
    a, b, c = mention("gan"), mention("gans"), mention("vae")
    kept = Link("p1", "vae", Role.USES, (c,))
    canonical = Canonical({}, [
        Link("p1", "gans", Role.MENTIONS, (b,)),
        Link("p2", "gan", Role.USES, (a,)),
        kept,
        Link("p1", "gan", Role.PROPOSES, (a,)),  # p1 again, after p2: still p1's
    ])
    canonical.rekey({"gans": "gan"})
    assert canonical.links == [
        Link("p1", "gan", Role.PROPOSES, (b, a)),  # the strongest role, mentions in order
        Link("p1", "vae", Role.USES, (c,)),
        Link("p2", "gan", Role.USES, (a,)),
    ]
    assert canonical.links[1] is kept  # nothing moved it: the same object, not a copy
    assert list(canonical.concepts) == ["gan", "vae"]


def test_rekey_drops_links_moved_to_none_and_moves_one_papers_links_only() -> None:
    a = mention("gan")
    canonical = Canonical({}, [Link("p1", "gan", Role.USES, (a,)),
                               Link("p2", "gan", Role.USES, (a,)),
                               Link("p2", "noise", Role.MENTIONS, (a,))])
    canonical.rekey({"noise": None}, {("p2", "gan"): "gan p2"})
    assert [(link.paper_id, link.concept_key) for link in canonical.links] == [
        ("p1", "gan"), ("p2", "gan p2")]


def test_rekey_remakes_only_the_concepts_of_moved_keys_as_a_whole_remake_would() -> None:
    def typed(label: str, ctype: ConceptType) -> Mention:
        return Mention(label, label, Span(Field.ABSTRACT, 0, len(label)),
                       Span(Field.ABSTRACT, 0, 40), ctype, Role.USES, "rules")

    gan, gans, vae = mention("GAN"), mention("GANs"), typed("VAE", ConceptType.MODEL)
    links = [Link("p1", "gan", Role.USES, (gan,)), Link("p1", "gans", Role.MENTIONS, (gans,)),
             Link("p2", "gan", Role.PROPOSES, (gan, gan)), Link("p2", "vae", Role.USES, (vae,)),
             Link("p3", "vae", Role.USES, (typed("VAEs", ConceptType.METHOD),)),
             Link("p3", "noise", Role.MENTIONS, (mention("noise"),)),
             Link("p4", "diffusion", Role.USES, (mention("diffusion"),))]
    made = concepts_from_links(links)
    fast = Canonical(dict(made), list(links), made_from=None)
    fast.made_from = fast.links  # as `canonicalise_corpus` leaves it
    whole = Canonical({}, list(links))  # made by hand: every rekey remakes all concepts
    fast.stated["diffusion"] = whole.stated["diffusion"] = ConceptType.TASK
    vae = made["vae"]
    steps: list[tuple[dict[str, str | None], dict[tuple[str, str], str | None]]] = [
        ({"gans": "gan"}, {}), ({}, {("p3", "vae"): "vae p3"}), ({"noise": None}, {}),
        ({"vae p3": "vae"}, {})]
    for step, (moves, paper_moves) in enumerate(steps):
        fast.rekey(moves, paper_moves)
        whole.rekey(moves, paper_moves)
        whole.made_from = None
        if step == 0:
            assert fast.concepts["vae"] is vae  # its links did not move: not made again
        assert fast.links == whole.links
        assert fast.concepts == whole.concepts
        assert list(fast.concepts) == sorted(fast.concepts)
    assert list(fast.concepts) == ["diffusion", "gan", "vae"]
    assert fast.concepts["diffusion"].ctype is ConceptType.TASK
    assert fast.concepts["gan"].alt_labels == ("GANs",)
    assert fast.concepts["vae"].type_votes == ((ConceptType.MODEL, 1), (ConceptType.METHOD, 1))
    # Links replaced from outside (`origin_roles` does): the next rekey remakes every concept.
    fast.links = list(fast.links)
    before = fast.concepts["gan"]
    fast.rekey({})
    assert fast.concepts["gan"] == before and fast.concepts["gan"] is not before


def test_a_span_table_makes_equal_spans_one_object_across_papers() -> None:
    def decoded(paper: str) -> Extraction:  # as a record decodes: new span objects
        m = Mention("GAN", "GAN", Span(Field.ABSTRACT, int("300"), int("303")),
                    Span(Field.ABSTRACT, int("280"), int("340")), ConceptType.METHOD,
                    Role.USES, "rules")
        return Extraction(paper, mentions=(m,), sentences=(Span(Field.ABSTRACT, 280, 340),))

    table: dict[Span, Span] = {}
    one, two = compact_extraction(decoded("p1"), table), compact_extraction(decoded("p2"), table)
    assert one == decoded("p1") and two == decoded("p2")
    assert one.mentions[0].span is two.mentions[0].span
    assert one.sentences[0] is two.mentions[0].sentence
    assert len(table) == 2
    # Without a table, spans are shared within the paper only.
    alone = compact_extraction(decoded("p3"))
    assert alone.mentions[0].sentence is alone.sentences[0]
    assert alone.mentions[0].span is not one.mentions[0].span


def test_sense_contexts_are_sorted_tuples_sharing_one_string_per_key() -> None:
    from kg.canon.senses import SenseTable
    from kg.types import Paper

    def m(label: str) -> Mention:
        return Mention(label, label, Span(Field.ABSTRACT, 0, len(label)),
                       Span(Field.ABSTRACT, 0, 40), ConceptType.METHOD, Role.USES, "rules")

    papers = [Paper("p1", "x", venue="Conf"), Paper("p2", "y", year=2024)]
    extractions = {"p1": Extraction("p1", mentions=(m("graph kernel"), m("diffusion model"))),
                   "p2": Extraction("p2", mentions=(m("diffusion models"),))}
    table = SenseTable.build(papers, extractions)
    assert table.context == {"p1": ("@venue conf", "diffusion model", "graph kernel"),
                             "p2": ("@year 2024", "diffusion model")}
    assert table.context["p1"][1] is table.context["p2"][1]
    assert table.papers_with["diffusion model"] == 2
    assert table._papers_of("graph kernel") == {"p1"}


def test_released_extractions_make_the_same_corpus_and_keep_only_relations_and_urls() -> None:
    """`kg build` lets each paper's mentions, sentences and acronyms go once its links are
    made (`release`): the same links, concepts, relations and graph; the dict keeps of each
    paper only its relations and URLs, and no entry for a paper with neither; the links hold
    the extraction's string of the paper id, not a new one per read of the shelf."""
    papers = [
        Paper("p1", "We propose Graph Attention Networks (GATs) for node classification. "
              "GATs outperform GCN on the Cora dataset. Code: https://github.com/example/gat",
              title="Graph attention networks"),
        Paper("p2", "We apply GATs to molecular property prediction on QM9.", title="Molecules"),
        Paper("p3", "A short note on nothing in particular.", title="A note"),
    ]
    extractions = extract_corpus(papers, n_process=1)
    assert any(e.relations for e in extractions.values())
    assert any(e.urls for e in extractions.values())
    held = link_corpus(papers, extractions)
    mine = dict(extractions)
    released = link_corpus(PaperShelf(papers), mine, release=True)
    assert held.links and released.links == held.links
    assert released.concepts == held.concepts and released.relations == held.relations
    assert [str(t) for t in build_triples(released)] == [str(t) for t in build_triples(held)]
    assert set(mine) == {key for key, e in extractions.items() if e.relations or e.urls}
    for key, slim in mine.items():
        assert slim == after_links(extractions[key])
        assert slim.relations == extractions[key].relations and slim.urls == extractions[key].urls
        assert not slim.mentions and not slim.sentences and not slim.acronyms
    assert all(link.paper_id is extractions[link.paper_id].paper_id for link in released.links)
    with pytest.raises(TypeError, match="dict"):
        link_corpus(papers, MappingProxyType(dict(extractions)), release=True)


def test_links_by_paper_are_slices_when_grouped_and_gathered_when_a_paper_comes_back() -> None:
    a, b, c = link("p1", "gan"), link("p1", "vae"), link("p2", "gan")
    assert list(links_by_paper([a, b, c])) == [("p1", [a, b]), ("p2", [c])]
    again = link("p1", "cnn")
    assert list(links_by_paper([a, c, again, b])) == [("p1", [a, again, b]), ("p2", [c])]
    assert list(links_by_paper([])) == []
    # Given up (`release`), the list lets each paper's links go as they are taken, and the
    # papers and their links come out as without `release`.
    d = link("p3", "rnn")
    for links in ([a, b, c], [a, c, again, b], [a, b, c, d]):
        given = list(links)
        taken = links_by_paper(given, release=True)
        paper, first = next(taken)
        assert paper == "p1" and a in first and a not in given
        assert [(paper, first), *taken] == list(links_by_paper(links)) and given == []
    assert list(links_by_paper([], release=True)) == []
