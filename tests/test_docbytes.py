"""A cached parse reads back as the Doc that spaCy's `DocBin` gives (`kg.extract.docbytes`)."""

from __future__ import annotations

import pytest
import spacy
from spacy.tokens import Doc, DocBin, Span

from kg.extract.docbytes import doc_bytes, doc_from_bytes

_WORDS = ["We", "propose", "LoRA", ",", "a", "low-rank", "adapter", ".", "It", "works", "."]


def _parsed() -> Doc:
    """A hand-parsed Doc with every attribute the English pipeline sets."""
    nlp = spacy.blank("en")
    doc = Doc(nlp.vocab, words=_WORDS,
              spaces=[True, True, False, True, True, True, False, True, True, False, False],
              tags=["PRP", "VBP", "NNP", ",", "DT", "JJ", "NN", ".", "PRP", "VBZ", "."],
              pos=["PRON", "VERB", "PROPN", "PUNCT", "DET", "ADJ", "NOUN", "PUNCT", "PRON",
                   "VERB", "PUNCT"],
              morphs=["Case=Nom|Number=Plur", "Tense=Pres", "Number=Sing", "", "", "Degree=Pos",
                      "Number=Sing", "", "Case=Nom", "Tense=Pres", ""],
              lemmas=["we", "propose", "LoRA", ",", "a", "low-rank", "adapter", ".", "it",
                      "work", "."],
              heads=[1, 1, 1, 2, 6, 6, 2, 1, 9, 9, 9],
              deps=["nsubj", "ROOT", "dobj", "punct", "det", "amod", "appos", "punct", "nsubj",
                    "ROOT", "punct"],
              sent_starts=[True, False, False, False, False, False, False, False, True, False,
                           False],
              ents=["O", "O", "B-PRODUCT", "O", "O", "O", "O", "O", "O", "O", "O"])
    doc.spans["sc"] = [Span(doc, 4, 7, label="Method")]
    return doc


def _annotations(doc: Doc) -> object:
    return (doc.to_json(), [t.norm_ for t in doc], [t.is_sent_start for t in doc],
            {k: [(s.start, s.end, s.label_) for s in g] for k, g in doc.spans.items()})


def test_a_cached_parse_reads_back_as_docbin_reads_it() -> None:
    doc = _parsed()
    data = doc_bytes(doc)
    reader = spacy.blank("en").vocab  # a fresh vocabulary, as a worker process has
    again = doc_from_bytes(data, reader)
    assert _annotations(again) == _annotations(doc)
    spacy_way = next(iter(DocBin().from_bytes(data).get_docs(spacy.blank("en").vocab)))
    assert _annotations(again) == _annotations(spacy_way)
    assert [t.lemma_ for t in again] == [t.lemma_ for t in doc]


def test_an_entry_of_several_docs_is_refused() -> None:
    doc = _parsed()
    data = DocBin(store_user_data=False, docs=[doc, doc]).to_bytes()
    with pytest.raises(ValueError, match="2 Docs"):
        doc_from_bytes(data, spacy.blank("en").vocab)
