"""Who introduced a concept, on invented corpora: the vocabulary's record of the introducing
paper (`kg.vocab.origins`), a naming cue only where the paper is the one naming, and a short
form a paper names itself kept out of other papers' senses."""

from __future__ import annotations

from dataclasses import replace

from kg.canon.concepts import canonicalise_corpus
from kg.canon.corpus import canonical_corpus
from kg.canon.origin import (
    NAMING_CUE,
    PREPRINT_YEARS,
    TITLE_NAME,
    VOCABULARY,
    introduction,
    one_work,
    vocabulary_origins,
)
from kg.types import (
    Acronym,
    Concept,
    ConceptType,
    Extraction,
    Field,
    Link,
    Mention,
    Paper,
    Role,
    Span,
)

METHOD = ConceptType.METHOD
BARLOW = "Barlow Twins: Self-Supervised Learning via Redundancy Reduction"  # PwC's record: 2021


def mention(paper: Paper, name: str, role: Role = Role.PROPOSES, part: Field = Field.ABSTRACT,
            long_form: str | None = None) -> Mention:
    text = paper.text(part)
    start = text.index(name)
    return Mention(name, name, Span(part, start, start + len(name)), Span(part, 0, len(text)),
                   METHOD, role, "rules", long_form=long_form)


def roles(papers: list[Paper], name: str, proposing: set[str]) -> dict[str, Role]:
    extractions = {p.id: Extraction(p.id, mentions=(mention(
        p, name, Role.PROPOSES if p.id in proposing else Role.USES),)) for p in papers}
    corpus = canonical_corpus(papers, extractions).canonical
    return {link.paper_id: link.role for link in corpus.links}


def test_the_vocabulary_names_barlow_twins_introducing_paper():
    (origin,) = vocabulary_origins(Concept("barlow twin", "Barlow Twins", METHOD))
    assert (origin.title, origin.year) == (BARLOW, 2021)
    # A one-word coined name is not looked up: "GEM", "DSD", "MoNet" name many methods.
    concept = Concept("barlow graph", "Barlow Graph", METHOD, alt_labels=("BT",))
    assert vocabulary_origins(concept) == ()
    assert vocabulary_origins(Concept("monet", "MoNet", METHOD)) == ()  # MoNet (2016) or 2018?
    assert vocabulary_origins(Concept("mixup", "mixup", METHOD))[0].year == 2017


def test_a_paper_proposing_a_method_the_vocabulary_dates_earlier_is_not_its_origin():
    """A 2023 paper 'proposing' Barlow Twins (its only paper) uses it; the 2021 paper the
    vocabulary names keeps the role, even where the corpus used the name the year before
    (a preprint cited); a 2022 paper is within the preprint margin and keeps it."""
    later = Paper("later", "Recently, an approach named Barlow Twins has been proposed.",
                  title="Barlow Graph Auto-Encoder", year=2023)
    assert roles([later], "Barlow Twins", {"later"}) == {"later": Role.USES}
    decisions = canonical_corpus([later], {"later": Extraction("later", mentions=(
        mention(later, "Barlow Twins"),))}).decisions
    (cut,) = [d for d in decisions if d.rule == "origin"]
    assert cut.papers == 1 and BARLOW in cut.note and "(2021)" in cut.note

    origin = Paper("bt", "We propose Barlow Twins.", title=BARLOW, year=2021)
    users = [Paper(f"u{i}", "We use Barlow Twins.", title="SSL", year=2020) for i in range(3)]
    assert roles([origin, *users], "Barlow Twins", {"bt"})["bt"] is Role.PROPOSES
    # Its conference version under another title is known by its arXiv id.
    renamed = replace(origin, title="Redundancy Reduction for SSL", arxiv_id="2103.03230")
    link = Link("bt", "barlow twin", Role.PROPOSES, (mention(origin, "Barlow Twins"),))
    assert introduction(renamed, link, Concept("barlow twin", "Barlow Twins", METHOD)) == (
        VOCABULARY)
    assert roles([renamed, *users], "Barlow Twins", {"bt"})["bt"] is Role.PROPOSES

    near = replace(later, id="near", year=2021 + PREPRINT_YEARS)
    assert roles([near], "Barlow Twins", {"near"}) == {"near": Role.PROPOSES}


def test_a_naming_cue_introduces_a_name_only_where_the_paper_is_the_one_naming():
    concept = Concept("zorbix", "Zorbix", METHOD)
    for text, expected in [
        ("We study a subclass of these games, named Zorbix games, in depth.", None),
        ("Moreover, there exist input-agnostic noises, called Zorbix, that fool models.", None),
        ("We also show that an iterative algorithm called Zorbix is optimal.", None),
        ("Recently, an approach, named Zorbix, has been proposed for vision.", None),
        ("Second, we propose a model for continual learning, called Zorbix, that works.",
         NAMING_CUE),
        ("We present a novel technique called Zorbix for sparse rewards.", NAMING_CUE),
        ("A new algorithm named Zorbix is given.", NAMING_CUE),
    ]:
        paper = Paper("p", text, title="Games")
        link = Link("p", "zorbix", Role.PROPOSES, (mention(paper, "Zorbix"),))
        assert introduction(paper, link, concept) == expected, text


def test_a_subtitle_led_by_the_name_after_a_coined_name_introduces_it():
    """'ZLZL: Negative Zorbing for Noisy Labels' introduces 'Negative Zorbing'; an ordinary
    word before the colon ('Revisited: Negative Zorbing ...') does not."""
    concept = Concept("negative zorbing", "Negative Zorbing", METHOD)
    for title, expected in [("ZLZL: Negative Zorbing for Noisy Labels", TITLE_NAME),
                            ("Revisited: Negative Zorbing for Noisy Labels", None),
                            ("ZLZL: Negative Zorbings Bound", None),
                            ("ZorkNet: Negative Zorbing Volumetric Completion", None),
                            ("ZLZL: Negative Zorbing", TITLE_NAME)]:
        paper = Paper("p", "We start from a method.", title=title)
        link = Link("p", concept.key, Role.PROPOSES, (mention(paper, "Negative Zorbing",
                                                              part=Field.TITLE),))
        assert introduction(paper, link, concept) == expected, title


def test_a_short_form_a_paper_names_itself_joins_no_other_papers_sense():
    """One paper defines QSD as quick-sort-dense; a pruning paper uses QSD undefined and shares
    its context (joins it); a mesh paper proposes its own "(QSD) module" and a detection paper
    "a novel OOD detection method, QSD" — their long forms unread, their context shared too:
    both stay apart."""
    def paper(pid: str, text: str) -> Paper:
        return Paper(pid, text + " We test on pruned networks.", title=pid)

    papers = [
        paper("def", "We use quick-sort-dense (QSD) training."),
        paper("use", "We combine QSD with pruning."),
        paper("mesh", 'We propose a pluggable "skeleton from details" (QSD) module.'),
        paper("ood", "Our framework motivates a novel OOD detection method for nets, QSD, "
                     "which works."),
    ]
    extractions = {}
    for p in papers:
        found = [mention(p, "QSD"), mention(p, "pruned networks", Role.USES)]
        acronyms: tuple[Acronym, ...] = ()
        if p.id == "def":
            found.append(mention(p, "quick-sort-dense"))
            found[0] = mention(p, "QSD", long_form="quick-sort-dense")
            acronyms = (Acronym("QSD", "quick-sort-dense", found[0].span),)
        extractions[p.id] = Extraction(p.id, mentions=tuple(found), acronyms=acronyms)
    result = canonicalise_corpus(papers, extractions)
    nodes = {link.paper_id: link.concept_key for link in result.links
             if link.concept_key in {"qsd", "quick sort dense"}}
    assert nodes == {"def": "quick sort dense", "use": "quick sort dense",
                     "mesh": "qsd", "ood": "qsd"}



def test_a_crowded_term_a_paper_names_in_lower_case_is_not_its_origin():
    """Three papers link to "tiered edge learning"; the first 'proposes a novel framework
    called tiered edge learning (T-EL)' under the title 'T-EL: ...' — a description in lower
    case, the term the others use — and keeps no origin; a paper that writes the name as a
    name ('called Tiered Edge Learning') does."""
    def corpus(first_text: str) -> dict[str, Role]:
        first = Paper("first", first_text, title="T-EL: A Framework for Edge Devices", year=2020)
        users = [Paper(f"u{i}", "We study Tiered Edge Learning on phones.", title=f"Edge {i}",
                       year=2022) for i in range(2)]
        def written(p: Paper) -> str:
            start = p.text(Field.ABSTRACT).lower().index("tiered edge learning")
            return p.text(Field.ABSTRACT)[start: start + len("tiered edge learning")]

        extractions = {p.id: Extraction(p.id, mentions=(mention(
            p, written(p), Role.PROPOSES if p.id == "first" else Role.USES),))
            for p in [first, *users]}
        found = canonical_corpus([first, *users], extractions).canonical
        return {link.paper_id: link.role for link in found.links}

    lower = corpus("We propose a novel framework called tiered edge learning for phones.")
    assert lower["first"] is Role.USES
    named = corpus("We propose a novel framework called Tiered Edge Learning for phones.")
    assert named["first"] is Role.PROPOSES


def test_a_name_the_vocabulary_records_for_two_works_has_no_vocabulary_origin():
    """The vocabulary records 'dynamic convolution' for two different 2019 papers: a family of
    methods. A paper with one of those titles, 'proposing' it among papers that use it, is not
    its origin by that record alone; Barlow Twins, one work's, keeps its record."""
    assert not one_work(vocabulary_origins(Concept("dynamic convolution", "dynamic convolution",
                                                   METHOD)))
    assert one_work(vocabulary_origins(Concept("barlow twin", "Barlow Twins", METHOD)))
    first = Paper("dc", "We use dynamic convolution in a light model.", year=2019,
                  title="Pay Less Attention with Lightweight and Dynamic Convolutions")
    users = [Paper(f"u{i}", "We use Dynamic Convolution.", title="Light", year=2021)
             for i in range(2)]
    def written(p: Paper) -> str:
        return "dynamic convolution" if p.id == "dc" else "Dynamic Convolution"

    extractions = {p.id: Extraction(p.id, mentions=(mention(
        p, written(p), Role.PROPOSES if p.id == "dc" else Role.USES),)) for p in [first, *users]}
    found = canonical_corpus([first, *users], extractions).canonical
    assert {link.paper_id: link.role for link in found.links}["dc"] is Role.USES


def test_the_paper_the_vocabulary_records_proposes_what_it_writes_as_used():
    """An older paper that introduced a now well-known method often writes it as a thing in
    use ("The novel Barlow Twins objective allows ..."); the vocabulary's record of its title
    makes the link `proposes`, recorded as a decision; other papers' links stay `uses`."""
    origin = Paper("bt", "The Barlow Twins objective allows self-supervised learning.",
                   title=BARLOW, year=2021)
    user = Paper("u", "We train with Barlow Twins.", title="SSL for X-rays", year=2022)
    assert roles([origin, user], "Barlow Twins", set()) == {"bt": Role.PROPOSES, "u": Role.USES}
    decisions = canonical_corpus([origin, user], {p.id: Extraction(p.id, mentions=(
        mention(p, "Barlow Twins", Role.USES),)) for p in [origin, user]}).decisions
    (recorded,) = [d for d in decisions if d.rule == "origin-recorded"]
    assert recorded.variants == ("bt (vocabulary-origin)",) and recorded.papers == 1
    assert BARLOW in recorded.note
    # A title the vocabulary does not record promotes nothing.
    assert roles([replace(origin, title="Redundancy Reduction")], "Barlow Twins", set()) == {
        "bt": Role.USES}
