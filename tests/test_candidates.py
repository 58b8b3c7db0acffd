"""kg.extract.candidates: a verb the parser took for a noun is no noun phrase.

The docs carry hand-written parts of speech (the mistake en_core_web_sm makes on a verb the
tokenizer split at its hyphen: "fine - tune" parsed as a noun), so the tests check the rule
and not the statistical parser.
"""

from __future__ import annotations

import pytest
import spacy
from spacy.tokens import Doc

from kg.extract.candidates import gerund, used_as_verb


def doc(spec: str) -> Doc:
    """One `word/POS/TAG` per token."""
    rows = [item.rsplit("/", 2) for item in spec.split()]
    return Doc(spacy.blank("en").vocab, words=[r[0] for r in rows], pos=[r[1] for r in rows],
               tags=[r[2] for r in rows])


@pytest.mark.parametrize(
    ("spec", "start", "end", "expected"),
    [
        # "we re - rank the lists": subject before, object after
        ("we/PRON/PRP re/ADJ/JJ -/PUNCT/HYPH rank/NOUN/NN the/DET/DT lists/NOUN/NNS", 1, 4, True),
        # "to re - rank them": an object pronoun after
        ("to/PART/TO re/ADJ/JJ -/PUNCT/HYPH rank/NOUN/NN them/PRON/PRP", 1, 4, True),
        # "we then re - rank": an adverb between the subject and the verb
        ("we/PRON/PRP then/ADV/RB re/ADJ/JJ -/PUNCT/HYPH rank/NOUN/NN ./PUNCT/.", 2, 5, True),
        # "models can re - rank lists": a modal before
        ("models/NOUN/NNS can/AUX/MD re/ADJ/JJ -/PUNCT/HYPH rank/NOUN/NN lists/NOUN/NNS", 2, 5,
         True),
        # "re - ranking the lists": a gerund is the activity's own name
        ("re/ADJ/JJ -/PUNCT/HYPH ranking/NOUN/NN the/DET/DT lists/NOUN/NNS", 0, 3, False),
        # "the re - rank step improves": a noun modifier
        ("the/DET/DT re/ADJ/JJ -/PUNCT/HYPH rank/NOUN/NN step/NOUN/NN improves/VERB/VBZ", 1, 4,
         False),
        # "with graph kernels the accuracy": no verb cue on the noun phrase's side
        ("with/ADP/IN graph/NOUN/NN kernels/NOUN/NNS ,/PUNCT/, the/DET/DT accuracy/NOUN/NN", 1, 3,
         False),
    ],
    ids=["subject-object", "object-pronoun", "adverb", "modal", "gerund", "modifier", "noun"],
)
def test_used_as_verb(spec: str, start: int, end: int, expected: bool) -> None:
    assert used_as_verb(list(doc(spec)), start, end) is expected


@pytest.mark.parametrize(
    ("label", "tag", "expected"),
    [("re-rank", "NN", "re-ranking"), ("re-ranks", "NNS", "re-ranking"),
     ("Pre-train", "NN", "Pre-training"), ("co-locate", "NN", "co-locating"),
     ("untie", "NN", "untying")],
)
def test_gerund(label: str, tag: str, expected: str) -> None:
    assert gerund(label, tag) == expected
