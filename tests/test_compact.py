"""`kg.canon.compact`: extractions sharing their equal values stay equal to what they were."""

from __future__ import annotations

from kg.canon.compact import compact_extraction
from kg.types import (
    Acronym,
    ConceptType,
    Extraction,
    Field,
    Mention,
    RelationMention,
    RelationType,
    Role,
    Span,
)


def _mention(text: str, start: int, sentence_end: int = 60) -> Mention:
    # fresh strings, as a decoded record has them
    return Mention("".join(text), "".join(text), Span(Field.ABSTRACT, start, start + len(text)),
                   Span(Field.ABSTRACT, 0, sentence_end), ConceptType.METHOD, Role.USES,
                   "".join("rules"), long_form=None, short_form="".join("G"))


def _extraction(paper_id: str) -> Extraction:
    gan, bert = _mention("GAN", 0), _mention("BERT", 10)
    return Extraction(
        paper_id,
        mentions=(gan, bert, _mention("GAN", 30, 90)),
        acronyms=(Acronym("G", "GAN", Span(Field.ABSTRACT, 0, 3)),),
        urls=("https://github.com/a/b",),
        sentences=(Span(Field.ABSTRACT, 0, 60), Span(Field.ABSTRACT, 61, 90)),
        relations=(RelationMention(_mention("GAN", 0), RelationType.COMPARED_WITH,
                                   _mention("BERT", 10), Span(Field.ABSTRACT, 0, 60), "pattern"),),
    )


def test_the_compact_extraction_is_equal() -> None:
    assert compact_extraction(_extraction("p1")) == _extraction("p1")
    assert compact_extraction(Extraction("p2")) == Extraction("p2")


def test_equal_values_are_one_object() -> None:
    one, two = compact_extraction(_extraction("p1")), compact_extraction(_extraction("p2"))
    gan, bert, later = one.mentions
    # a relation's mentions are the paper's own, and a sentence's span is shared
    assert one.relations[0].subject is gan and one.relations[0].object is bert
    assert gan.sentence is bert.sentence is one.sentences[0] is one.relations[0].sentence
    assert later.sentence is not gan.sentence  # a different sentence stays its own
    # strings are shared across papers
    assert two.mentions[0].text is gan.text and two.mentions[0].extractor is gan.extractor
