"""The compact forms phase 2 keeps per paper (issue 14: memory that grows with the corpus)."""

from __future__ import annotations

from kg.canon.compact import compact_extraction
from kg.canon.concepts import Canonical
from kg.canon.names import _paper_words
from kg.types import ConceptType, Extraction, Field, Link, Mention, Role, Span


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
