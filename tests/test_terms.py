"""kg.extract.terms: noun-chunk trimming, generic heads, head types.

`chunk_terms` reads noun chunks, so it needs a dependency parse: the docs here carry a parse
written by hand (`parse`), the one en_core_web_sm gives where that is right, so the tests
check the rules and not the statistical parser.
"""

from __future__ import annotations

import pytest
import spacy
from spacy.language import Language
from spacy.tokens import Doc

from kg.extract.names import name_spans
from kg.extract.terms import chunk_terms, head_type, label_of, trim
from kg.extract.tokenizer import install_name_tokens
from kg.types import ConceptType

METHOD, MODEL, DATASET = ConceptType.METHOD, ConceptType.MODEL, ConceptType.DATASET


@pytest.fixture(scope="module")
def nlp() -> Language:
    blank = spacy.blank("en")
    install_name_tokens(blank)
    return blank


def parse(nlp: Language, text: str, spec: str) -> Doc:
    """`text` tokenized, with a hand-written parse: one `POS:dep:head[:lemma]` per token."""
    tokens = nlp(text)
    rows = [item.split(":") for item in spec.split()]
    assert len(rows) == len(tokens), [t.text for t in tokens]
    return Doc(
        nlp.vocab,
        words=[t.text for t in tokens],
        spaces=[bool(t.whitespace_) for t in tokens],
        pos=[r[0] for r in rows],
        deps=[r[1] for r in rows],
        heads=[int(r[2]) for r in rows],
        lemmas=[r[3] if len(r) > 3 else t.lower_ for r, t in zip(rows, tokens, strict=True)],
    )


def terms(doc: Doc) -> list[tuple[str, str, ConceptType | None]]:
    return [(t.label, t.kind, t.head_type) for t in chunk_terms(doc, name_spans(doc))]


def trimmed(nlp: Language, phrase: str) -> str:
    doc = nlp(phrase)
    return label_of(trim(doc[:]))


@pytest.mark.parametrize(
    ("phrase", "expected"),
    [
        ("the existing KV cache pruning methods", "KV cache pruning methods"),
        ("state-of-the-art long-context LLMs", "long-context LLMs"),
        ("off-the-shelf LMs", "LMs"),
        ("a three-stage instruction tuning process", "instruction tuning process"),
        ("a one-step conditional diffusion model", "conditional diffusion model"),
        ("our novel self-alignment method", "self-alignment method"),
        ("several strong baselines", "baselines"),
        ("four key steps", "steps"),
        ("2.5x faster inference", "faster inference"),
        # A general adjective stays when it is bound to the next word ...
        ("large language models", "large language models"),
        # ... and goes when it only describes it.
        ("the high variance", "variance"),
        ("these models,", "models"),
    ],
)
def test_trim(nlp: Language, phrase: str, expected: str) -> None:
    assert trimmed(nlp, phrase) == expected


def test_trim_keep_pos_keeps_every_word(nlp: Language) -> None:
    doc = nlp("the Key and Value")
    assert [t.text for t in trim(doc[:], keep_pos=True)] == ["the", "Key", "and", "Value"]


def test_label_of_drops_parenthesised_acronyms(nlp: Language) -> None:
    doc = nlp("out-of-distribution (OOD) generalization")
    assert label_of(list(doc)) == "out-of-distribution generalization"
    doc = nlp("diffusion transformers [DiTs],")
    assert label_of(list(doc)) == "diffusion transformers"


@pytest.mark.parametrize(
    ("word", "expected"),
    [("dataset", DATASET), ("Benchmark", DATASET), ("quantization", METHOD),
     ("fine-tuning", METHOD), ("regularisation", METHOD), ("answering", ConceptType.TASK),
     ("distance", ConceptType.METRIC), ("transformers", MODEL), ("colour", None)],
)
def test_head_type(word: str, expected: ConceptType | None) -> None:
    assert head_type(word) == expected


def test_name_plus_generic_head_gives_the_name_typed_by_the_head(nlp: Language) -> None:
    doc = parse(nlp, "The LQCA method encompasses four key steps.",
                "DET:det:2 PROPN:compound:2 NOUN:nsubj:3 VERB:ROOT:3:encompass NUM:nummod:6 "
                "ADJ:amod:6 NOUN:dobj:3:step PUNCT:punct:3")
    assert terms(doc) == [("LQCA", "name", METHOD), ("steps", "chunk", None)]


def test_names_in_a_coordinated_chunk(nlp: Language) -> None:
    doc = parse(nlp, "Results on OpenAI-o1-mini and GPT-4o models improve.",
                "NOUN:nsubj:6:result ADP:prep:0 PROPN:nmod:5 CCONJ:cc:2 PROPN:conj:2 "
                "NOUN:pobj:1:model VERB:ROOT:6 PUNCT:punct:6")
    assert terms(doc) == [
        ("Results", "chunk", None), ("OpenAI-o1-mini", "name", None), ("GPT-4o", "name", MODEL),
    ]


def test_name_modified_compound_drops_a_method_head(nlp: Language) -> None:
    # The module docstring's own example: "the existing KV cache pruning methods" becomes the
    # term "KV cache pruning" (a Method), like "preference tuning methods" below.
    doc = parse(nlp, "Existing KV cache pruning methods damage LLMs.",
                "VERB:amod:4:exist PROPN:compound:2 NOUN:compound:3 NOUN:compound:4 "
                "NOUN:nsubj:5:method VERB:ROOT:5 PROPN:dobj:5 PUNCT:punct:5")
    found = terms(doc)
    assert ("KV", "name", METHOD) in found
    assert ("KV cache pruning", "chunk", METHOD) in found


def test_method_head_is_dropped_and_types_the_term(nlp: Language) -> None:
    doc = parse(nlp, "We use preference tuning methods.",
                "PRON:nsubj:1 VERB:ROOT:1 NOUN:compound:3 NOUN:compound:4 NOUN:dobj:1:method "
                "PUNCT:punct:1")
    assert terms(doc) == [("preference tuning", "chunk", METHOD)]
    doc = parse(nlp, "We propose our novel self-alignment method.",
                "PRON:nsubj:1 VERB:ROOT:1 PRON:poss:7 ADJ:amod:7 NOUN:compound:6 "
                "PUNCT:punct:6 NOUN:compound:7 NOUN:dobj:1 PUNCT:punct:1")
    assert terms(doc) == [("self-alignment", "chunk", METHOD)]


def test_generic_trailing_head_is_dropped(nlp: Language) -> None:
    doc = parse(nlp, "We study the mention replacement step.",
                "PRON:nsubj:1 VERB:ROOT:1 DET:det:5 NOUN:compound:5 NOUN:compound:5 "
                "NOUN:dobj:1 PUNCT:punct:1")
    assert terms(doc) == [("mention replacement", "chunk", None)]


def test_typed_head_is_kept(nlp: Language) -> None:
    doc = parse(nlp, "We present a new benchmark dataset.",
                "PRON:nsubj:1 VERB:ROOT:1 DET:det:5 ADJ:amod:5 NOUN:compound:5 NOUN:dobj:1 "
                "PUNCT:punct:1")
    assert terms(doc) == [("benchmark dataset", "chunk", DATASET)]


def test_number_compound_and_determiner_are_trimmed(nlp: Language) -> None:
    doc = parse(nlp, "We use a three-stage instruction tuning process.",
                "PRON:nsubj:1 VERB:ROOT:1 DET:det:8 NUM:nummod:5 PUNCT:punct:5 "
                "NOUN:compound:8 NOUN:compound:7 NOUN:compound:8 NOUN:dobj:1 PUNCT:punct:1")
    assert terms(doc) == [("instruction tuning", "chunk", METHOD)]
    doc = parse(nlp, "The approach uses a one-step conditional diffusion model.",
                "DET:det:1 NOUN:nsubj:2 VERB:ROOT:2:use DET:det:9 NUM:nummod:6 PUNCT:punct:6 "
                "NOUN:nmod:9 ADJ:amod:9 NOUN:compound:9 NOUN:dobj:2 PUNCT:punct:2")
    assert terms(doc) == [("approach", "chunk", METHOD), ("conditional diffusion model", "chunk",
                                                          MODEL)]


def test_evaluative_hyphen_compound_is_trimmed_from_a_chunk(nlp: Language) -> None:
    doc = parse(nlp, "We compare against state-of-the-art long-context LLMs.",
                "PRON:nsubj:1 VERB:ROOT:1 ADP:prep:1 ADJ:amod:13 PUNCT:punct:3 ADP:prep:3 "
                "PUNCT:punct:3 DET:det:9 PUNCT:punct:9 ADJ:amod:3 ADJ:amod:12 PUNCT:punct:12 "
                "NOUN:compound:13 NOUN:pobj:2:llm PUNCT:punct:1")
    assert terms(doc) == [("long-context LLMs", "chunk", MODEL)]


def test_term_offsets_are_token_offsets_of_the_label(nlp: Language) -> None:
    doc = parse(nlp, "We study the mention replacement step.",
                "PRON:nsubj:1 VERB:ROOT:1 DET:det:5 NOUN:compound:5 NOUN:compound:5 "
                "NOUN:dobj:1 PUNCT:punct:1")
    (term,) = chunk_terms(doc, [])
    assert doc[term.start : term.end].text == "mention replacement"
    assert term.end - term.start == 2
