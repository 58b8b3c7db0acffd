"""kg.extract.names: name spans by their spelling, versions and capitalised runs.

The rules read the tokenizer's output and, for a capitalised word in mid-sentence, its part of
speech; these tests give that part of speech by hand on a `spacy.blank("en")` doc, so they do
not depend on the statistical tagger.
"""

from __future__ import annotations

import pytest
import spacy
from spacy.language import Language
from spacy.tokens import Doc

from kg.extract.names import is_name_like, is_quantity, looks_title_cased, name_spans
from kg.extract.tokenizer import install_name_tokens


@pytest.fixture(scope="module")
def nlp() -> Language:
    blank = spacy.blank("en")
    install_name_tokens(blank)
    return blank


def tagged(nlp: Language, text: str, **pos: str) -> Doc:
    """`text` tokenized, with the part of speech of the named tokens set."""
    doc = nlp(text)
    for token in doc:
        if token.text in pos:
            token.pos_ = pos[token.text]
    return doc


def names(doc: Doc, *, title_case_text: bool = False) -> list[str]:
    return [s.text for s in name_spans(doc, title_case_text=title_case_text)]


def test_name_with_a_version_number(nlp: Language) -> None:
    doc = tagged(nlp, "In this work, we introduce ChatQA 2, an Llama 3.0-based model with a "
                      "128K context window", Llama="PROPN")
    assert names(doc) == ["ChatQA 2", "Llama 3.0"]


def test_name_with_a_capitalised_continuation(nlp: Language) -> None:
    doc = tagged(nlp, "with a maximum individual resolve rate of 27.3% on SWE-Bench Lite, can")
    assert names(doc) == ["SWE-Bench Lite"]


def test_hyphenated_names_are_whole(nlp: Language) -> None:
    doc = tagged(nlp, "the Llama3-ChatQA-2-70B model outperforms GPT-4-Turbo-2024-04-09, "
                      "Qwen2-72B-Instruct, and Llama3.1-70B-Instruct")
    assert names(doc) == [
        "Llama3-ChatQA-2-70B", "GPT-4-Turbo-2024-04-09", "Qwen2-72B-Instruct",
        "Llama3.1-70B-Instruct",
    ]


def test_title_case_runs_are_names(nlp: Language) -> None:
    doc = tagged(nlp, "The Lottery Ticket Hypothesis (LTH) posits")
    assert names(doc) == ["Lottery Ticket Hypothesis", "LTH"]
    doc = tagged(nlp, "Recent advancements in Inertial Confinement Fusion (ICF) have drawn")
    assert names(doc) == ["Inertial Confinement Fusion", "ICF"]


def test_runs_span_connectors_and_quantities(nlp: Language) -> None:
    doc = tagged(nlp, "We propose the Sparse Mixture of Experts layer.",
                 Sparse="PROPN", Mixture="PROPN", Experts="PROPN")
    assert names(doc) == ["Sparse Mixture of Experts"]
    doc = tagged(nlp, "the non-Gaussianity of the Inflated 3D Convnet (I3D) feature space",
                 Inflated="PROPN", Convnet="PROPN")
    assert names(doc) == ["Inflated 3D Convnet", "I3D"]


def test_mid_sentence_capital_is_a_name_unless_it_modifies_a_noun(nlp: Language) -> None:
    doc = tagged(nlp, "Despite the increasing popularity of Shampoo, the foundations",
                 Shampoo="PROPN")
    assert names(doc) == ["Shampoo"]
    doc = tagged(nlp, "the covariance matrix maintained by Adagrad.", Adagrad="PROPN")
    assert names(doc) == ["Adagrad"]
    # An eponym in front of a noun: the term is the noun phrase ("Kronecker product").
    doc = tagged(nlp, "the optimal Kronecker product approximation",
                 Kronecker="PROPN", product="NOUN")
    assert names(doc) == []
    # Without the tagger's word (no part of speech) a capitalised word proves nothing.
    assert names(tagged(nlp, "the popularity of Shampoo, the")) == []


def test_capital_at_sentence_start_is_not_a_name(nlp: Language) -> None:
    doc = tagged(nlp, "Shampoo, a second-order optimization algorithm", Shampoo="PROPN")
    assert names(doc) == []
    doc = tagged(nlp, "Nuclear Fusion. Diffusion models are good", Diffusion="NOUN")
    assert names(doc) == ["Nuclear Fusion"]


def test_generic_and_non_names_are_dropped(nlp: Language) -> None:
    doc = tagged(nlp, "We use AI and GPUs, see Table 3 and GitHub, with DuoAttention.")
    assert names(doc) == ["DuoAttention"]
    doc = tagged(nlp, "prior work [leviathan2023, chen2023] on SI")
    assert names(doc) == ["SI"]


def test_quantities_are_not_names(nlp: Language) -> None:
    doc = tagged(nlp, "Llama-3-8B decoding with 3.33 million context length on a single A100 "
                      "GPU up to 2.55x and 128K tokens in 2024")
    assert names(doc) == ["Llama-3-8B", "A100"]


def test_sentence_final_quantities_are_not_names(nlp: Language) -> None:
    # spaCy's English suffix rules leave the full stop on "128K." and "2.5B." (one token each);
    # such a token must still count as a quantity, or it becomes a concept "128K".
    assert [t.text for t in nlp("to 128K.")] == ["to", "128K."]
    doc = tagged(nlp, "The context window grows from 8K to 128K. The model has 2.5B.")
    assert names(doc) == []


def test_title_case_text_has_no_capitalised_runs(nlp: Language) -> None:
    doc = tagged(nlp, "Revisiting the Lottery Ticket Hypothesis with DuoAttention")
    assert names(doc, title_case_text=True) == ["DuoAttention"]
    assert names(doc) == ["Lottery Ticket Hypothesis", "DuoAttention"]


def test_connectors_join_capitalised_words(nlp: Language) -> None:
    doc = tagged(nlp, "Caching all Key and Value states", Key="PROPN", Value="PROPN")
    assert names(doc) == ["Key and Value"]


def test_leading_determiner_and_trailing_connector_are_trimmed(nlp: Language) -> None:
    doc = tagged(nlp, "results of The Segment Anything Model v2 and")
    assert names(doc) == ["Segment Anything Model v2"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [("128K", True), ("2.18x", True), ("3D", True), ("2024", True), ("34%", True),
     ("70B", True), ("1990s", True), ("GPT-4o", False), ("A100", False), ("I3D", False)],
)
def test_is_quantity(text: str, expected: bool) -> None:
    assert is_quantity(text) is expected


def test_is_name_like_by_spelling(nlp: Language) -> None:
    doc = tagged(nlp, "use DuoAttention , MHA , GPT-4o , A100 , data , 128K , https://x.org/a")
    flags = {t.text: is_name_like(t) for t in doc if t.text != ","}
    assert flags == {
        "use": False, "DuoAttention": True, "MHA": True, "GPT-4o": True, "A100": True,
        "data": False, "128K": False, "https://x.org/a": False,
    }


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("BEARCUBS: A Benchmark for Computer-Using Web Agents", True),
        ("Long Question Coreference Adaptation for Long Contexts", True),
        ("Dynamical diffusion for temporal prediction", False),
        ("Agents", False),  # one word proves nothing
    ],
)
def test_looks_title_cased(text: str, expected: bool) -> None:
    assert looks_title_cased(text) is expected
