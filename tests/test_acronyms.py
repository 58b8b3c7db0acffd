"""kg.extract.acronyms: Schwartz-Hearst long forms and the definition patterns.

Only the tokenizer matters to `find_definitions`, so these tests run on `spacy.blank("en")`
with paperkg's name-preserving tokenizer (as the real pipeline has).
"""

from __future__ import annotations

import pytest
import spacy
from spacy.language import Language

from kg.extract.acronyms import (
    find_best_long_form,
    find_definitions,
    is_short_form,
    short_key,
    spelled,
)
from kg.extract.textfix import repair
from kg.extract.tokenizer import install_name_tokens


@pytest.fixture(scope="module")
def nlp() -> Language:
    blank = spacy.blank("en")
    install_name_tokens(blank)
    return blank


def definitions(nlp: Language, text: str) -> list[tuple[str, str]]:
    return [(d.short.text, d.long.text) for d in find_definitions(nlp(repair(text).text))]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("LQCA", True), ("DiTs", True), ("FiSAO", True), ("I3D", True), ("KV", True),
        ("IRM-TV", True), ("JEDi", True), ("VLLMs", True),
        ("e.g.", False), ("i.e.", False), ("data", False), ("2024", False),
        ("Section", False),  # a capitalised word, not an acronym
        ("ABCDEFGHIJKLM", False),  # too long
        ("", False),
    ],
)
def test_is_short_form(text: str, expected: bool) -> None:
    assert is_short_form(text) is expected


@pytest.mark.parametrize(
    ("short", "key"),
    [("LLMs", "LLM"), ("DiTs", "DiT"), ("GANs", "GAN"), ("SSL", "SSL"), ("MTHS", "MTHS"),
     ("LMs", "LM"), ("INRs", "INR")],
)
def test_short_key_drops_a_plural_s(short: str, key: str) -> None:
    assert short_key(short) == key


@pytest.mark.parametrize(
    ("short", "candidate", "expected"),
    [
        ("LQCA", "we introduce the Long Question Coreference Adaptation",
         "Long Question Coreference Adaptation"),
        ("DiTs", "rates of conditional diffusion transformers", "diffusion transformers"),
        ("OOD", "how to improve out-of-distribution", "out-of-distribution"),
        ("KV", "Caching all Key and Value", "Key and Value"),
        ("I3D", "the non-Gaussianity of the Inflated 3D Convnet", "Inflated 3D Convnet"),
        ("FVD", "The Fréchet Video Distance", "Fréchet Video Distance"),
        ("PIC", "computationally intensive Particle-in-Cell", "Particle-in-Cell"),
        ("JEDi", "JEPA Embedding Distance", "JEPA Embedding Distance"),
        ("RLHF", "reinforcement learning from human feedback",
         "reinforcement learning from human feedback"),
    ],
)
def test_find_best_long_form(short: str, candidate: str, expected: str) -> None:
    assert find_best_long_form(short, candidate) == expected


@pytest.mark.parametrize(
    ("short", "candidate"),
    [
        ("KV", "the cache size"),  # letters missing
        ("DSI", "DSI"),  # not longer than the short form
        ("AB", "alpha " + "word " * 10 + "beta"),  # far too many words for two letters
    ],
)
def test_find_best_long_form_rejects(short: str, candidate: str) -> None:
    assert find_best_long_form(short, candidate) is None


# (sample sentence of ../shared/data/iclr2025_abstracts.txt, the definitions it holds)
SAMPLE_DEFINITIONS = [
    ("Large language models (LLMs) have shown remarkable capabilities",
     [("LLMs", "Large language models")]),
    ("we introduce the Long Question Coreference Adaptation (LQCA) method.",
     [("LQCA", "Long Question Coreference Adaptation")]),
    ("in long context un- derstanding and retrieval-augmented generation (RAG) capabilities",
     [("RAG", "retrieval-augmented generation")]),
    ("we propose Adversarial Latent Feature Augmentation (ALFA), a method that",
     [("ALFA", "Adversarial Latent Feature Augmentation")]),
    ("The Lottery Ticket Hypothesis (LTH) posits the existence of a sparse subnetwork "
     "(a.k.a. winning ticket) that", [("LTH", "Lottery Ticket Hypothesis")]),
    ("To fully harness the diversity of these agents, we propose DEI (Diversity Empowered "
     "Intelligence), a framework", [("DEI", "Diversity Empowered Intelligence")]),
    ("This paper introduces *distributed speculative inference (DSI)*, a novel inference "
     "algorithm that is provably faster than speculative inference (SI) [leviathan2023, "
     "chen2023] and standard autoregressive inference (non-SI).",
     [("DSI", "distributed speculative inference"), ("SI", "speculative inference")]),
    ("DSI leverages *speculation parallelism (SP)*, a novel type of task parallelism",
     [("SP", "speculation parallelism")]),
    ("the development of vision-language large models (VLLMs), enhancing",
     [("VLLMs", "vision-language large models")]),
    ("we propose FiSAO (Fine-Grained Self-Alignment Optimization), a novel self-alignment",
     [("FiSAO", "Fine-Grained Self-Alignment Optimization")]),
    ("Caching all Key and Value (KV) states across all attention heads",
     [("KV", "Key and Value")]),
    ("The Fréchet Video Distance (FVD) is a widely adopted metric",
     [("FVD", "Fréchet Video Distance")]),
    ("(1) the non-Gaussianity of the Inflated 3D Convnet (I3D) feature space;",
     [("I3D", "Inflated 3D Convnet")]),
    ("we propose JEDi, the JEPA Embedding Distance, based on features",
     [("JEDi", "JEPA Embedding Distance")]),
    ("Recent advancements in Inertial Confinement Fusion (ICF) have drawn significant "
     "attention to fusion research, in which Laser-Plasma Interaction (LPI) is critical",
     [("ICF", "Inertial Confinement Fusion"), ("LPI", "Laser-Plasma Interaction")]),
    ("we introduce Dynamical Diffusion (DyDiff), a theoretically sound framework",
     [("DyDiff", "Dynamical Diffusion")]),
    ("We investigate the approximation and estimation rates of conditional diffusion "
     "transformers (DiTs) with classifier-free guidance.", [("DiTs", "diffusion transformers")]),
    ("However, how to improve out-of-distribution (OOD) generalization in the IRM-TV setting",
     [("OOD", "out-of-distribution")]),
    ("leading proprietary models (e.g., GPT-4-Turbo-2024-04-09) in long context", []),
    ("the conditional DiTs under various common assumptions: generic and strong Hölder, "
     "linear latent (subspace), and Lipschitz score function assumptions.", []),
]


def _ids(cases: list) -> list[str]:
    return ["+".join(short for short, _ in expected) or f"none{i}"
            for i, (_, expected) in enumerate(cases)]


@pytest.mark.parametrize(("text", "expected"), SAMPLE_DEFINITIONS, ids=_ids(SAMPLE_DEFINITIONS))
def test_definitions_in_sample_sentences(nlp: Language, text: str, expected: list) -> None:
    assert definitions(nlp, text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # The long form is one token: the tokenizer keeps "Particle-in-Cell" whole.
        ("dependent on extremely computationally intensive Particle-in-Cell (PIC) "
         "simulations to generate data", [("PIC", "Particle-in-Cell")]),
        ("We distil Chain-of-Thought (CoT) reasoning.", [("CoT", "Chain-of-Thought")]),
        ("a sparse Mixture-of-Experts (MoE) layer", [("MoE", "Mixture-of-Experts")]),
    ],
    ids=["PIC", "CoT", "MoE"],
)
def test_definitions_with_a_hyphenated_name_as_long_form(
    nlp: Language, text: str, expected: list
) -> None:
    assert definitions(nlp, text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("we use SAM, a.k.a. Segment Anything Model, for masks",
         [("SAM", "Segment Anything Model")]),
        ("we use SAM, aka Segment Anything Model, for masks", [("SAM", "Segment Anything Model")]),
        ("BERT (Bidirectional Encoder Representations from Transformers) is",
         [("BERT", "Bidirectional Encoder Representations from Transformers")]),
        ("chain-of-thought (CoT) prompting", [("CoT", "chain-of-thought")]),
        ("the cache size (KV) is", []),
        ("the proposed method (ours) is", []),
        ("In this paper (Section 3) we", []),
        ("we use SAM, the best model", []),  # "the best model" does not spell SAM
    ],
    ids=["aka-dotted", "aka", "paren-long", "lower-hyphen", "no-letters", "ours", "section",
         "not-spelled"],
)
def test_definition_patterns(nlp: Language, text: str, expected: list) -> None:
    assert definitions(nlp, text) == expected


def test_definition_spans_are_token_spans_of_the_doc(nlp: Language) -> None:
    doc = nlp("we introduce the Long Question Coreference Adaptation (LQCA) method.")
    (definition,) = find_definitions(doc)
    assert doc.text[definition.short.start_char : definition.short.end_char] == "LQCA"
    assert definition.long.end == definition.short.start - 1  # the "(" between them


@pytest.mark.parametrize(
    ("short", "letters"),
    [("P3O", "PPPO"), ("A2C", "AAC"), ("Q2L", "QQL"), ("GPT4", "GPT4"), ("YOLOv8", "YOLOv8"),
     ("3D", "3D"), ("seq2seq", "seq2seq"), ("LLM", "LLM")],
)
def test_spelled_counts_a_digit_between_letters(short: str, letters: str) -> None:
    assert spelled(short) == letters


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # A digit in the short form counts the words of its letter.
        ("we propose Tiny Token Tree Quantization (T3Q), a simple",
         [("T3Q", "Tiny Token Tree Quantization")]),
        ("we design Balanced Batch Boosting (B3), a scheme", []),  # a trailing digit: no count
        # "long form or SF": capitalised words or initials that spell it.
        ("our method --- Sparse Kernel Regression or SKR. In SKR, we",
         [("SKR", "Sparse Kernel Regression")]),
        ("we use gaussian process regression or GPR for it",
         [("GPR", "gaussian process regression")]),
        ("we compare graph networks or GCNs and transformers", []),
        ("trained with plain momentum or Adam on images", []),
    ],
    ids=["count", "version-digit", "or-capitalised", "or-initials", "or-alternative",
         "or-optimiser"],
)
def test_definitions_with_counts_and_or(nlp: Language, text: str, expected: list) -> None:
    assert definitions(nlp, text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('the resulting "Quantile Ranking Network" (QRN) is trained end to end',
         [("QRN", "Quantile Ranking Network")]),
        ("the resulting \u201cQuantile Ranking Network\u201d (QRN) is trained",
         [("QRN", "Quantile Ranking Network")]),
        ('we call it "the fast one" (QRN) here', []),  # the quoted words do not spell QRN
    ],
    ids=["straight-quotes", "curly-quotes", "not-spelled"],
)
def test_definitions_with_a_quoted_long_form(nlp: Language, text: str, expected: list) -> None:
    assert definitions(nlp, text) == expected
