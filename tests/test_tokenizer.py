"""kg.extract.tokenizer: hyphenated model and method names stay one token."""

from __future__ import annotations

from typing import Any

import pytest
import spacy
from spacy.language import Language

from kg.extract.tokenizer import install_name_tokens, is_name_token


@pytest.fixture(scope="module")
def nlp() -> Language:
    blank = spacy.blank("en")
    install_name_tokens(blank)
    return blank


def words(nlp: Language, text: str) -> list[str]:
    return [t.text for t in nlp(text)]


@pytest.mark.parametrize(
    "name",
    [
        "GPT-4o",
        "OpenAI-o1-mini",
        "Qwen2-72B-Instruct",
        "Llama3.1-70B-Instruct",
        "Llama3-ChatQA-2-70B",
        "GPT-4-Turbo-2024-04-09",
        "Diff-PIC",
        "OOD-TV-IRM",
        "IRM-TV",
        "SWE-Bench",
        "Llama-3-8B",
        "ViT-B/16",
        "Gauss--Newton",
    ],
)
def test_names_are_name_tokens(name: str) -> None:
    assert is_name_token(name)


@pytest.mark.parametrize(
    "text",
    [
        "long-context",
        "Self-supervised",
        "retrieval-augmented",
        "Transformer-based",
        "DEI-guided",
        "REvolve-designed",
        "non-Gaussianity",
        "non-SI",
        "semi-Nash",
        "1.29-1.92x",
        "2024-04",
        "OOD-TV-IRM.",  # trailing punctuation is the tokenizer's suffix, not part of the name
        "GPT4o",  # no hyphen: nothing to keep together
    ],
)
def test_words_are_not_name_tokens(text: str) -> None:
    assert not is_name_token(text)


@pytest.mark.parametrize(
    "text",
    [
        "7B-parameter",  # "a 7B-parameter model": a size, not a name
        "70B-parameter",
        "32K-token",  # "32K-token contexts"
        "128K-token",
    ],
)
def test_magnitude_compounds_are_not_name_tokens(text: str) -> None:
    # A magnitude + an ordinary lower-case word is a quantity modifier: kept whole, it
    # becomes a "name" and then a concept ("7B-parameter" typed Model).
    assert not is_name_token(text)


@pytest.mark.parametrize("name", ["t-SNE", "k-NN"])
def test_single_letter_prefix_names_are_name_tokens(name: str) -> None:
    # "t-SNE" is split into "t", "-", "SNE" and extraction then reports a concept "SNE".
    assert is_name_token(name)


def test_sample_sentences_keep_names_whole(nlp: Language) -> None:
    assert words(nlp, "notable improvements on OpenAI-o1-mini and GPT-4o models.") == [
        "notable", "improvements", "on", "OpenAI-o1-mini", "and", "GPT-4o", "models", ".",
    ]
    assert words(nlp, "including GPT-4-Turbo-2024-04-09, Qwen2-72B-Instruct, and "
                      "Llama3.1-70B-Instruct,") == [
        "including", "GPT-4-Turbo-2024-04-09", ",", "Qwen2-72B-Instruct", ",", "and",
        "Llama3.1-70B-Instruct", ",",
    ]
    assert words(nlp, "this work introduces Diff-PIC, a novel framework") == [
        "this", "work", "introduces", "Diff-PIC", ",", "a", "novel", "framework",
    ]
    assert words(nlp, "Thus OOD-TV-IRM is essentially (OOD-TV-IRM).") == [
        "Thus", "OOD-TV-IRM", "is", "essentially", "(", "OOD-TV-IRM", ")", ".",
    ]


def test_magnitudes_stay_whole(nlp: Language) -> None:
    assert words(nlp, "a 128K context window from 8K to 128K tokens") == [
        "a", "128K", "context", "window", "from", "8K", "to", "128K", "tokens",
    ]
    assert words(nlp, "a 2.5B model") == ["a", "2.5B", "model"]


def test_ordinary_compounds_are_still_split(nlp: Language) -> None:
    assert words(nlp, "long-context Transformer-based DEI-guided") == [
        "long", "-", "context", "Transformer", "-", "based", "DEI", "-", "guided",
    ]
    assert words(nlp, "is 1.29-1.92x faster") == ["is", "1.29", "-", "1.92x", "faster"]


def test_install_is_idempotent_and_keeps_the_previous_token_match() -> None:
    blank = spacy.blank("en")
    tokenizer: Any = blank.tokenizer
    tokenizer.token_match = lambda text: text == "keep-me-whole"
    install_name_tokens(blank)
    first = tokenizer.token_match
    install_name_tokens(blank)
    assert tokenizer.token_match is first
    assert words(blank, "keep-me-whole and GPT-4o and long-context") == [
        "keep-me-whole", "and", "GPT-4o", "and", "long", "-", "context",
    ]
