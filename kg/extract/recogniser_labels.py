"""SciERC entity labels -> paperkg concept types.

The model keeps SciERC's six labels so that its standard scores can be reported; this one
function turns a tagged span into a paperkg type (docs/VOCABULARY.md, ../shared gold
guidelines): Method splits into Model (a named model, family or architecture) and Method,
Material becomes Dataset when the span names a dataset/benchmark/corpus and Concept otherwise,
OtherScientificTerm becomes Concept, Generic ("this method", "the approach") is dropped.
"""

from __future__ import annotations

import re

from kg.types import ConceptType

# Head nouns that make a Method span a model or architecture.
_MODEL_HEADS = frozenset(
    """
    model models network networks net nets transformer transformers architecture
    architectures autoencoder autoencoders encoder encoders decoder decoders llm llms lm lms
    gan gans vae vaes cnn cnns rnn rnns lstm lstms mlp mlps perceptron perceptrons bert gpt
    backbone backbones classifier classifiers
    """.split()
)
# Well-known model families named without a head noun.
_MODEL_NAMES = re.compile(
    r"\b(?:gpt|bert|roberta|t5|llama|llava|mistral|mixtral|gemma|qwen|claude|gemini|palm|opt|"
    r"bloom|falcon|vicuna|alpaca|clip|vit|resnet|vgg|alexnet|inception|unet|u-net|yolo|dino|"
    r"sam|whisper|wav2vec|xlnet|electra|deberta|bart|phi|stable diffusion|dall-e)(?![a-z])",
    re.IGNORECASE,
)
_DATASET_WORDS = re.compile(
    r"\b(?:data ?sets?|corpus|corpora|benchmarks?|treebanks?|databases?|suites?|collections?|"
    r"challenges?|leaderboards?|splits?)\b",
    re.IGNORECASE,
)
# A version or size suffix: GPT-4o, Llama3-70B, ResNet-50, CIFAR-10, WMT'14.
_HAS_DIGIT = re.compile(r"\d")


def map_label(label: str, span_text: str) -> ConceptType | None:
    """The paperkg type of a span the model tagged `label`, or None to drop it.

    >>> map_label("Method", "BERT"), map_label("Method", "large language models")
    (<ConceptType.MODEL: 'Model'>, <ConceptType.MODEL: 'Model'>)
    >>> map_label("Method", "knowledge distillation")
    <ConceptType.METHOD: 'Method'>
    >>> map_label("Material", "ImageNet"), map_label("Material", "unlabeled images")
    (<ConceptType.DATASET: 'Dataset'>, <ConceptType.CONCEPT: 'Concept'>)
    >>> map_label("OtherScientificTerm", "latent space"), map_label("Generic", "this approach")
    (<ConceptType.CONCEPT: 'Concept'>, None)
    """
    text = span_text.strip()
    if not text:
        return None
    if label == "Task":
        return ConceptType.TASK
    if label == "Metric":
        return ConceptType.METRIC
    if label == "OtherScientificTerm":
        return ConceptType.CONCEPT
    if label == "Method":
        return ConceptType.MODEL if _is_model(text) else ConceptType.METHOD
    if label == "Material":
        return ConceptType.DATASET if _is_dataset(text) else ConceptType.CONCEPT
    return None


def _is_model(text: str) -> bool:
    head = text.split()[-1].lower().strip("()[],.;:")
    head = head.rsplit("-", 1)[-1] if "-" in head and not _HAS_DIGIT.search(head) else head
    return head in _MODEL_HEADS or bool(_MODEL_NAMES.search(text))


def _is_dataset(text: str) -> bool:
    return bool(_DATASET_WORDS.search(text)) or _is_name(text)


def _is_name(text: str) -> bool:
    """A proper name rather than a common noun phrase: inner capitals, digits or all caps
    (ImageNet, CIFAR-10, MNIST, Penn Treebank)."""
    words = text.split()
    if any(_HAS_DIGIT.search(w) or any(c.isupper() for c in w[1:]) for w in words):
        return True
    return len(words) > 1 and all(w[0].isupper() for w in words if w[0].isalpha())
