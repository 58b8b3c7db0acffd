"""Matching concepts to vocabulary entries (kg.vocab.matching) on a hand-made gazetteer: exact
and close matches, ambiguity and generic labels left unlinked, acronyms through their long form."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from kg.normalize import norm_key
from kg.types import Concept, ConceptType, VocabularyMatch
from kg.vocab.gazetteer import (
    GAZETTEER_FILE,
    GAZETTEER_HEADER,
    HIERARCHY_FILE,
    HIERARCHY_HEADER,
    Gazetteer,
)
from kg.vocab.matching import Linker, match_vocabularies

M, T, D, MO, C = (ConceptType.METHOD, ConceptType.TASK, ConceptType.DATASET,
                  ConceptType.MODEL, ConceptType.CONCEPT)  # fmt: skip
P = "https://paperswithcode.com/"
CSO = "https://cso.kmi.open.ac.uk/topics/"

# (label, type, source, source_id, generic)
ROWS = [
    ("Adam", "Method", "pwc-method", P + "method/adam", "0"),
    ("ADAM", "Dataset", "pwc-dataset", P + "dataset/adam", "0"),
    ("adams", "Concept", "cso", CSO + "adams", "0"),
    ("Mixture of Experts", "Method", "pwc-method", P + "method/moe", "0"),
    ("MoE", "Method", "pwc-method", P + "method/moe", "0"),
    ("SQL parsing", "Task", "sota-synonym", P + "task/text-to-sql", "0"),
    ("Raven's Progressive Matrices", "Dataset", "pwc-dataset", P + "dataset/rpm", "0"),
    ("Feedforward Network", "Method", "pwc-method", P + "method/feedforward-network", "0"),
    ("ACDC", "Dataset", "pwc-dataset", P + "dataset/acdc", "0"),
    ("ACDC", "Dataset", "pwc-dataset", P + "dataset/acdc-adverse-conditions", "0"),
    ("Attention", "Method", "pwc-collection", P + "methods/category/attention", "1"),
    ("CLIP", "Model", "pwc-method", P + "method/clip", "1"),
    ("VAE", "Model", "pwc-method", P + "method/vae", "0"),
    ("Variational Autoencoder", "Model", "pwc-method", P + "method/vae", "0"),
    ("Reinforcement Learning", "Task", "pwc-task", P + "task/reinforcement-learning", "0"),
    ("Reinforcement Learning", "Task", "pwc-task", P + "task/reinforcement-learning-rl", "0"),
    ("reinforcement learning", "Task", "cso", CSO + "reinforcement_learning", "0"),
    ("RL", "Task", "pwc-task", P + "task/rl", "0"),
    ("Transformer", "Model", "pwc-method", P + "method/transformer", "0"),
    ("Transformers", "Model", "pwc-collection", P + "methods/category/transformers", "0"),
    ("novel architecture", "Concept", "cso", CSO + "novel_architecture", "0"),
    ("tsv", "Concept", "cso", CSO + "tsv", "0"),
    ("retrieval methods", "Method", "cso", CSO + "retrieval_performance", "0"),
    ("multi agent system", "Concept", "cso", CSO + "multiagent_system", "0"),
    ("multiagent system", "Concept", "cso", CSO + "multiagent_system", "0"),
    ("Named Entity Recognition", "Task", "pwc-task", P + "task/named-entity-recognition", "0"),
    ("NER", "Task", "pwc-task", P + "task/named-entity-recognition", "0"),
    ("NER", "Dataset", "pwc-dataset", P + "dataset/ner", "0"),
    ("seed", "Dataset", "pwc-dataset", P + "dataset/seed", "0"),
    ("seeds", "Dataset", "pwc-dataset", P + "dataset/seeds", "0"),
    ("GPT-2", "Model", "pwc-method", P + "method/gpt-2", "0"),
    ("GPT-2", "Model", "llm-list", "", "0"),
]
HIERARCHY = [
    (P + "method/transformer", P + "methods/category/transformers", "pwc-method"),
]


def write_gazetteer(folder: Path) -> Gazetteer:
    """The rows above as the two gzipped TSV files `Gazetteer.load(folder)` reads."""
    lines = ["\t".join(GAZETTEER_HEADER)]
    for label, ctype, source, iri, generic in sorted(ROWS, key=lambda r: norm_key(r[0])):
        lines.append("\t".join([label, ctype, source, iri, norm_key(label), generic]))
    with gzip.open(folder / GAZETTEER_FILE, "wt", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")
    hierarchy = ["\t".join(HIERARCHY_HEADER), *("\t".join(row) for row in HIERARCHY)]
    with gzip.open(folder / HIERARCHY_FILE, "wt", encoding="utf-8") as fh:
        fh.write("\n".join(hierarchy) + "\n")
    return Gazetteer.load(folder)


@pytest.fixture(scope="module")
def linker(tmp_path_factory: pytest.TempPathFactory) -> Linker:
    return Linker(write_gazetteer(tmp_path_factory.mktemp("gazetteer")))


def concept(label: str, ctype: ConceptType, alt: tuple[str, ...] = (),
            acronyms: tuple[str, ...] = ()) -> Concept:  # fmt: skip
    return Concept(norm_key(label), label, ctype, alt, acronyms)


def found(linker: Linker, c: Concept) -> list[tuple[str, bool, str]]:
    return [(m.target.removeprefix(P), m.exact, m.method) for m in linker.link(c).matches]


def test_label_and_type_agree_give_an_exact_match(linker: Linker) -> None:
    # Not the dataset ADAM (another type), not CSO's "adams" (a plural of another type).
    assert found(linker, concept("Adam", M)) == [("method/adam", True, "label")]


def test_a_compatible_type_gives_a_close_match(linker: Linker) -> None:
    assert found(linker, concept("mixture of experts", MO)) == [("method/moe", False, "label")]


def test_an_incompatible_type_gives_nothing(linker: Linker) -> None:
    assert found(linker, concept("Feedforward Network", D)) == []


def test_an_alias_of_the_entry_gives_a_close_match(linker: Linker) -> None:
    assert found(linker, concept("SQL parsing", T)) == [("task/text-to-sql", False, "alias")]


def test_an_alt_label_gives_a_close_match(linker: Linker) -> None:
    c = concept("Raven's progressive matrix test", D, alt=("Raven's Progressive Matrices",))
    assert found(linker, c) == [("dataset/rpm", False, "altLabel")]


def test_a_spelling_variant_gives_a_close_match(linker: Linker) -> None:
    assert found(linker, concept("feed-forward network", M)) == [
        ("method/feedforward-network", False, "spelling variant")
    ]
    assert found(linker, concept("GPT2", MO)) == [("method/gpt-2", False, "spelling variant")]


def test_an_acronym_links_through_its_long_form(linker: Linker) -> None:
    c = concept("variational autoencoder", MO, alt=("VAE",), acronyms=("VAE",))
    assert found(linker, c) == [("method/vae", True, "label")]
    # The acronym alone names the entry too (the entry's own short name).
    assert found(linker, concept("VAE", MO)) == [("method/vae", True, "label")]


def test_a_label_naming_entries_of_different_meaning_stays_unlinked(linker: Linker) -> None:
    links = linker.link(concept("ACDC", D))
    assert links.matches == ()
    assert links.ambiguous == (P + "dataset/acdc", P + "dataset/acdc-adverse-conditions")
    seeds = linker.link(concept("seeds", D))
    assert (seeds.matches, len(seeds.ambiguous)) == ((), 2)


def test_the_type_settles_an_acronym_of_two_entries(linker: Linker) -> None:
    assert found(linker, concept("NER", T)) == [
        ("task/named-entity-recognition", True, "label")
    ]
    assert found(linker, concept("NER", D)) == [("dataset/ner", True, "label")]


def test_duplicate_entries_of_one_multi_word_name_are_all_linked(linker: Linker) -> None:
    c = concept("reinforcement learning", T)
    assert found(linker, c) == [
        ("task/reinforcement-learning", True, "label"),
        ("task/reinforcement-learning-rl", True, "label"),
        (CSO + "reinforcement_learning", True, "label"),
    ]


def test_an_entry_broader_than_another_candidate_gives_way(linker: Linker) -> None:
    assert found(linker, concept("transformer", MO)) == [("method/transformer", True, "label")]


@pytest.mark.parametrize(
    ("label", "ctype"),
    [
        ("attention", M),  # generic word
        ("Attention", M),  # generic, and not spelled distinctively
        ("RL", T),  # fewer than three letters
        ("novel architecture", C),  # evaluative first word
        ("TSV", C),  # an acronym in the CSO, which spans all of computer science
        ("retrieval method", M),  # a loose CSO equivalent of "retrieval performance"
    ],
)
def test_generic_short_and_loose_labels_stay_unlinked(
    linker: Linker, label: str, ctype: ConceptType
) -> None:
    assert linker.link(concept(label, ctype)) == linker.link(concept("nothing here", ctype))
    assert found(linker, concept(label, ctype)) == []


def test_a_generic_entry_links_when_spelled_as_distinctively(linker: Linker) -> None:
    assert found(linker, concept("CLIP", MO)) == [("method/clip", True, "label")]
    assert found(linker, concept("clip", MO)) == []


def test_a_cso_spelling_variant_alias_is_a_close_match(linker: Linker) -> None:
    assert found(linker, concept("multi-agent system", C)) == [
        (CSO + "multiagent_system", False, "alias")
    ]


def test_matches_are_sorted_and_independent_of_input_order(tmp_path: Path) -> None:
    gazetteer = write_gazetteer(tmp_path)
    concepts = [concept("reinforcement learning", T), concept("Adam", M), concept("VAE", MO)]
    forward = match_vocabularies(concepts, gazetteer)
    assert forward == match_vocabularies(list(reversed(concepts)), gazetteer)
    assert [m.concept_key for m in forward] == ["adam", "reinforcement learning",
                                                "reinforcement learning",
                                                "reinforcement learning", "vae"]  # fmt: skip
    assert forward[0] == VocabularyMatch("adam", P + "method/adam", True, "label", "pwc-method")


def test_the_shipped_gazetteer_links_well_known_concepts() -> None:
    matches = match_vocabularies(
        [concept("diffusion model", MO), concept("BERT", MO), concept("RL", T)]
    )
    assert {(m.concept_key, m.target, m.exact) for m in matches} == {
        ("bert", P + "method/bert", True),
        ("diffusion model", P + "methods/category/diffusion-models", True),
        ("diffusion model", CSO + "diffusion_models", True),
    }
