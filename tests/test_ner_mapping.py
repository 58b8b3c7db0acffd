"""SciERC label -> paperkg concept type."""

from __future__ import annotations

import pytest

from kg.extract.recogniser_labels import map_label
from kg.types import ConceptType


@pytest.mark.parametrize(
    ("label", "text", "expected"),
    [
        ("Task", "question answering", ConceptType.TASK),
        ("Metric", "BLEU", ConceptType.METRIC),
        ("OtherScientificTerm", "KV cache", ConceptType.CONCEPT),
        ("Generic", "this method", None),
        ("Method", "GPT-4o", ConceptType.MODEL),
        ("Method", "Llama3-70B", ConceptType.MODEL),
        ("Method", "diffusion transformer", ConceptType.MODEL),
        ("Method", "convolutional neural networks", ConceptType.MODEL),
        ("Method", "rectified flow", ConceptType.METHOD),
        ("Method", "instruction tuning", ConceptType.METHOD),
        ("Method", "optimization", ConceptType.METHOD),  # not the OPT model family
        ("Material", "ImageNet", ConceptType.DATASET),
        ("Material", "CIFAR-10", ConceptType.DATASET),
        ("Material", "Penn Treebank", ConceptType.DATASET),
        ("Material", "parallel corpora", ConceptType.DATASET),
        ("Material", "images", ConceptType.CONCEPT),
        ("Material", "natural language text", ConceptType.CONCEPT),
        ("Unknown", "anything", None),
        ("Task", "  ", None),
    ],
)
def test_map_label(label: str, text: str, expected: ConceptType | None) -> None:
    assert map_label(label, text) is expected
