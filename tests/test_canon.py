"""kg.canon.concepts: one node per concept across papers, from hand-made `Extraction`s
(no spaCy)."""

from __future__ import annotations

from kg.canon.concepts import acronym_expansions, canonicalise, mention_key
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

MODEL, METHOD, TASK = ConceptType.MODEL, ConceptType.METHOD, ConceptType.TASK


def mention(
    label: str,
    start: int,
    *,
    sentence_start: int = 0,
    ctype: ConceptType = MODEL,
    role: Role = Role.USES,
    long_form: str | None = None,
    short_form: str | None = None,
    part: Field = Field.ABSTRACT,
) -> Mention:
    """A mention of `label` at `start` (its text is the label) in a sentence from
    `sentence_start`: `start == sentence_start` makes it sentence-initial."""
    return Mention(
        text=label,
        label=label,
        span=Span(part, start, start + len(label)),
        sentence=Span(part, sentence_start, start + len(label) + 50),
        ctype=ctype,
        role=role,
        extractor="rules",
        long_form=long_form,
        short_form=short_form,
    )


def paper(pid: str) -> Paper:
    return Paper(id=pid, abstract=f"abstract of {pid}")


def acronym(short: str, long: str) -> Acronym:
    return Acronym(short, long, Span(Field.ABSTRACT, 0, len(short)))


def run(*extractions: Extraction) -> tuple[dict[str, Concept], list[Link]]:
    papers = [paper(x.paper_id) for x in extractions]
    return canonicalise(papers, {x.paper_id: x for x in extractions})


def concept_of(concepts: dict[str, Concept], label: str) -> Concept:
    """The one concept carrying `label` as preferred or alternative label."""
    found = [c for c in concepts.values() if label == c.pref_label or label in c.alt_labels]
    assert len(found) == 1, (label, found)
    return found[0]


# "Large language models (LLMs) have … large language models … an LLM" (defines LLM)
DEFINES_LLM = Extraction(
    paper_id="p1",
    mentions=(
        mention("Large language models", 0, short_form="LLM"),
        mention("LLMs", 23, long_form="Large language models"),
        mention("large language models", 120, sentence_start=100, short_form="LLM"),
        mention("LLM", 200, sentence_start=180, long_form="Large language models"),
        mention("GPT-4", 300, sentence_start=280),
    ),
    acronyms=(acronym("LLM", "Large language models"),),
)
# Another paper that only says "LLMs" (no definition), and shares a concept with p1.
USES_LLMS = Extraction(paper_id="p2", mentions=(mention("LLMs", 40, sentence_start=30),
                                                mention("GPT-4", 80, sentence_start=30)))


def test_llm_llms_and_large_language_models_are_one_node() -> None:
    concepts, links = run(DEFINES_LLM, USES_LLMS)
    assert list(concepts) == ["gpt 4", "large language model"]
    concept = concepts["large language model"]
    assert concept.key == "large language model"
    assert concept.pref_label == "large language model"
    assert {"LLM", "LLMs", "large language models"} <= set(concept.alt_labels)
    assert concept.pref_label not in concept.alt_labels
    assert concept.ctype is MODEL
    assert [(link.paper_id, link.concept_key) for link in links] == [
        ("p1", "gpt 4"), ("p1", "large language model"),
        ("p2", "gpt 4"), ("p2", "large language model"),
    ]


def test_acronyms_are_the_short_form_only() -> None:
    # docs/VOCABULARY.md: altLabel "LLM", "LLMs", "large language models"; kg:acronym "LLM".
    concepts, _ = run(DEFINES_LLM, USES_LLMS)
    assert concepts["large language model"].acronyms == ("LLM",)


def test_preferred_label_is_singular_and_lower_case_from_a_sentence_start() -> None:
    # Only ever seen capitalised at the start of a sentence.
    only_initial = Extraction(
        paper_id="p1",
        mentions=(mention("Large language models", 0, short_form="LLM"),
                  mention("LLMs", 23, long_form="Large language models")),
        acronyms=(acronym("LLMs", "Large language models"),),
    )
    concepts, _ = run(only_initial)
    assert concepts["large language model"].pref_label == "large language model"


def test_preferred_label_keeps_a_name_in_mid_sentence() -> None:
    x = Extraction(
        paper_id="p1",
        mentions=(
            mention("Long Question Coreference Adaptation", 20, ctype=METHOD,
                    role=Role.PROPOSES, short_form="LQCA"),
            mention("LQCA", 58, ctype=METHOD, long_form="Long Question Coreference Adaptation"),
            mention("LQCA", 100, sentence_start=100, ctype=METHOD,
                    long_form="Long Question Coreference Adaptation"),
        ),
        acronyms=(acronym("LQCA", "Long Question Coreference Adaptation"),),
    )
    concepts, links = run(x)
    concept = concepts["long question coreference adaptation"]
    assert concept.pref_label == "Long Question Coreference Adaptation"
    assert concept.alt_labels == ("LQCA",)
    assert concept.acronyms == ("LQCA",)
    assert concept.ctype is METHOD
    (link,) = links
    assert link.role is Role.PROPOSES  # the strongest role among its three mentions
    assert len(link.mentions) == 3


def test_preferred_label_keeps_the_number_of_a_word_after_a_preposition() -> None:
    # "Zonal Encoder Projections from Adapters" (ZEPA): the head is "Projections"; its last
    # word is the object of "from" and stays plural, as does "mixture of experts".
    x = Extraction(
        paper_id="p1",
        mentions=(
            mention("Zonal Encoder Projections from Adapters", 20, short_form="ZEPA"),
            mention("ZEPA", 62, long_form="Zonal Encoder Projections from Adapters"),
            mention("mixture of experts", 120, sentence_start=100, ctype=METHOD),
            mention("residual networks", 180, sentence_start=150, ctype=METHOD),
        ),
        acronyms=(acronym("ZEPA", "Zonal Encoder Projections from Adapters"),),
    )
    concepts, _ = run(x)
    assert concepts["zonal encoder projections from adapter"].pref_label == (
        "Zonal Encoder Projections from Adapters")
    assert concepts["mixture of expert"].pref_label == "mixture of experts"
    assert concepts["residual network"].pref_label == "residual network"  # the head: singular


def test_undefined_acronym_joins_its_only_expansion() -> None:
    defines = Extraction(
        paper_id="p1",
        mentions=(mention("knowledge distillation", 10, ctype=METHOD, short_form="KD"),
                  mention("KD", 34, ctype=METHOD, long_form="knowledge distillation"),
                  mention("teacher model", 60)),
        acronyms=(acronym("KD", "knowledge distillation"),),
    )
    uses = Extraction(paper_id="p2", mentions=(mention("KD", 5, ctype=METHOD),
                                               mention("teacher model", 60)))
    concepts, links = run(defines, uses)
    assert list(concepts) == ["knowledge distillation", "teacher model"]
    assert [link.paper_id for link in links if link.concept_key != "teacher model"] == [
        "p1", "p2"]


def test_acronym_expanded_differently_is_not_merged() -> None:
    dataset_distillation = Extraction(
        paper_id="p1",
        mentions=(mention("Dataset distillation", 0, ctype=METHOD, short_form="DD"),
                  mention("DD", 22, ctype=METHOD, long_form="Dataset distillation")),
        acronyms=(acronym("DD", "Dataset distillation"),),
    )
    denoising_diffusion = Extraction(
        paper_id="p2",
        mentions=(mention("denoising diffusion", 10, short_form="DD"),
                  mention("DD", 31, long_form="denoising diffusion")),
        acronyms=(acronym("DD", "denoising diffusion"),),
    )
    undefined = Extraction(paper_id="p3", mentions=(mention("DD", 7, ctype=METHOD),))
    assert acronym_expansions([dataset_distillation, denoising_diffusion, undefined]) == {
        "DD": {"dataset distillation", "denoising diffusion"},
    }
    concepts, links = run(dataset_distillation, denoising_diffusion, undefined)
    assert sorted(concepts) == ["dataset distillation", "dd", "denoising diffusion"]
    # Each defining paper keeps its own meaning ...
    assert {(link.paper_id, link.concept_key) for link in links} == {
        ("p1", "dataset distillation"), ("p2", "denoising diffusion"), ("p3", "dd"),
    }
    # ... and the undefined use is its own node, labelled by the acronym.
    assert concepts["dd"].pref_label == "DD"
    assert concepts["dd"].alt_labels == ()
    assert "DD" in concepts["dataset distillation"].alt_labels
    assert concepts["dataset distillation"].pref_label == "dataset distillation"


def test_mention_key() -> None:
    expansions = {"LLM": {"large language model"}, "DD": {"a", "b"}}
    assert mention_key(mention("LLMs", 0), expansions) == "large language model"
    assert mention_key(mention("DD", 0), expansions) == "dd"
    assert mention_key(mention("LLMs", 0, long_form="Large Language Models"), {}) == (
        "large language model")
    assert mention_key(mention("Diffusion Transformers", 0), {}) == "diffusion transformer"


def test_plural_acronym_only_concept_is_labelled_singular() -> None:
    x = Extraction(paper_id="p1", mentions=(mention("DiTs", 5), mention("DiTs", 60)))
    concepts, _ = run(x)
    assert concepts["dit"].pref_label == "DiT"
    assert concepts["dit"].alt_labels == ("DiTs",)


def test_case_and_plural_variants_merge_with_a_singular_label() -> None:
    x1 = Extraction(paper_id="p1", mentions=(mention("Diffusion Transformers", 9),))
    x2 = Extraction(paper_id="p2", mentions=(mention("diffusion transformer", 9),))
    concepts, _ = run(x1, x2)
    assert list(concepts) == ["diffusion transformer"]
    assert concepts["diffusion transformer"].pref_label in {
        "Diffusion Transformer", "diffusion transformer",
    }
    assert not concepts["diffusion transformer"].pref_label.endswith("s")


def test_type_is_the_majority_of_one_vote_per_paper() -> None:
    # p1 has three Method mentions: still one vote; two papers say Task.
    x1 = Extraction(paper_id="p1", mentions=tuple(
        mention("reward design", s, ctype=METHOD) for s in (5, 40, 80)))
    x2 = Extraction(paper_id="p2", mentions=(mention("reward design", 5, ctype=TASK),))
    x3 = Extraction(paper_id="p3", mentions=(mention("reward design", 5, ctype=TASK),))
    concepts, _ = run(x1, x2, x3)
    assert concepts["reward design"].ctype is TASK


def test_type_tie_breaks_by_type_order() -> None:
    x1 = Extraction(paper_id="p1", mentions=(mention("rectified flow", 5, ctype=METHOD),))
    x2 = Extraction(paper_id="p2", mentions=(mention("rectified flow", 5, ctype=MODEL),))
    concepts, _ = run(x1, x2)
    assert concepts["rectified flow"].ctype is MODEL  # Model comes before Method


def test_keywords_do_not_outvote_the_text() -> None:
    x = Extraction(paper_id="p1", mentions=(
        mention("fairness", 0, ctype=ConceptType.CONCEPT, part=Field.KEYWORDS),
        mention("fairness", 0, ctype=ConceptType.CONCEPT, part=Field.KEYWORDS),
        mention("fairness", 10, ctype=TASK),
    ))
    concepts, links = run(x)
    assert concepts["fairness"].ctype is TASK
    assert links[0].from_metadata is False


def test_order_is_papers_then_keys_and_concepts_sorted() -> None:
    x1 = Extraction(paper_id="b", mentions=(mention("zeta", 0), mention("alpha", 10)))
    x2 = Extraction(paper_id="a", mentions=(mention("mu", 0),))
    concepts, links = run(x1, x2)  # papers in input order: b, then a
    assert list(concepts) == ["alpha", "mu", "zeta"]
    assert [(link.paper_id, link.concept_key) for link in links] == [
        ("b", "alpha"), ("b", "zeta"), ("a", "mu"),
    ]


def test_paper_without_extraction_has_no_links() -> None:
    x = Extraction(paper_id="p1", mentions=(mention("GPT-4o", 0),))
    concepts, links = canonicalise([paper("p1"), paper("p2")], {"p1": x})
    assert list(concepts) == ["gpt 4o"]
    assert [link.paper_id for link in links] == ["p1"]


def test_same_input_same_output() -> None:
    first = run(DEFINES_LLM, USES_LLMS)
    second = run(DEFINES_LLM, USES_LLMS)
    assert first == second
