"""A small hand-made corpus touching every part of the graph contract.

The golden Turtle file (`tests/golden/small.ttl`), the RDF tests and anyone who needs a tiny but
complete graph use it. Mention offsets and sentences are computed from the surface texts here,
so they are right by construction.

>>> corpus = sample_corpus()
>>> len(corpus.papers), len(corpus.concepts), len(corpus.links)
(3, 10, 13)
"""

from __future__ import annotations

import re

from kg.rdf.iris import paper_key
from kg.types import (
    Concept,
    ConceptType,
    Corpus,
    Extraction,
    Field,
    Link,
    Mention,
    Paper,
    Role,
    Span,
)

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def sentence_spans(text: str, part: Field) -> list[Span]:
    """Naive sentence spans (split after . ! ? and whitespace); enough for hand-made text.

    >>> [(s.start, s.end) for s in sentence_spans("A b. C d.", Field.ABSTRACT)]
    [(0, 4), (5, 9)]
    """
    spans, start = [], 0
    for gap in _SENTENCE_END.finditer(text):
        spans.append(Span(part, start, gap.start()))
        start = gap.end()
    if start < len(text):
        spans.append(Span(part, start, len(text)))
    return spans


def mention(
    paper: Paper,
    part: Field,
    surface: str,
    label: str,
    ctype: ConceptType,
    role: Role,
    *,
    occurrence: int = 0,
    extractor: str = "rules",
) -> Mention:
    """The mention of the `occurrence`-th (0-based) `surface` text in one field of `paper`."""
    text = paper.text(part)
    start = -1
    for _ in range(occurrence + 1):
        start = text.find(surface, start + 1)
        if start < 0:
            raise ValueError(f"{surface!r} occurs fewer than {occurrence + 1} times in {part}")
    end = start + len(surface)
    sentence = next(s for s in sentence_spans(text, part) if s.start <= start and end <= s.end)
    return Mention(surface, label, Span(part, start, end), sentence, ctype, role, extractor)


_M, _ME, _T, _D, _MT, _C = (
    ConceptType.MODEL,
    ConceptType.METHOD,
    ConceptType.TASK,
    ConceptType.DATASET,
    ConceptType.METRIC,
    ConceptType.CONCEPT,
)
_CONCEPTS = [
    Concept("large language model", "large language model", _M,
            ("LLMs", "large language models"), ("LLM",)),
    Concept("long question coreference adaptation", "Long Question Coreference Adaptation",
            _ME, (), ("LQCA",)),
    Concept("longbench", "LongBench", _D),
    Concept("accuracy", "accuracy", _MT),
    Concept("coreference resolution", "coreference resolution", _T),
    Concept("hallucination", "hallucination", _C, ("hallucinations",)),
    Concept("bert", "BERT", _M),
    Concept("lora", "LoRA", _ME, ("low-rank adaptation",), ("LoRA",)),
    Concept("glue", "GLUE", _D),
    Concept("c++", "C++", _C),
]  # fmt: skip


def sample_corpus() -> Corpus:
    """Three papers: full metadata and code links, hard characters and a weird id, no id."""
    p1 = Paper(
        id="2501.00001",
        title="LQCA: Long Question Coreference Adaptation",
        abstract=(
            "Large language models (LLMs) struggle with long contexts. "
            "We propose Long Question Coreference Adaptation (LQCA), which resolves "
            "coreference resolution chains before answering. "
            "On LongBench, LQCA improves accuracy over LLMs without adaptation. "
            "Code: https://github.com/example/lqca"
        ),
        keywords=("large language models", "coreference resolution"),
        authors=("Ada Lovelace", "Alan Turing"),
        year=2025,
        venue="ICLR 2025",
        url="https://openreview.net/forum?id=abc123",
        status="Poster",
        collection="ICLR 2025 Papers",
        source="papers.jsonl",
        record=1,
        links=("https://huggingface.co/example/lqca-7b", "https://example.org/lqca"),
        extra=(("email", "ada@example.org"), ("gender", "f")),
    )
    p2 = Paper(
        id="a/b c#d",
        title='Why "LLMs" \\ <script>alert(1)</script> hallucinate 🦜',
        abstract=(
            'We study hallucination in LLMs ("stochastic parrots" 🦜) and ask whether '
            "C++ programs help."
        ),
        authors=("Alan Turing", "Grace Hopper"),
        venue="COLM",
        collection="ICLR 2025 Papers",
        source="papers.jsonl",
        record=2,
        links=("javascript:alert(1)", "https://gitlab.com/example/parrots"),
    )
    p3 = Paper(
        id="",
        abstract="We fine-tune BERT with LoRA on GLUE.",
        collection="Workshop",
        source="extra.txt",
        record=1,
    )
    p3_key = paper_key(p3)  # a record without an id gets its content id
    A, T, K = Field.ABSTRACT, Field.TITLE, Field.KEYWORDS
    m = mention
    llm = [
        m(p1, A, "Large language models", "large language models", _M, Role.USES),
        m(p1, A, "LLMs", "LLMs", _M, Role.USES),
        m(p1, A, "LLMs", "LLMs", _M, Role.COMPARES_WITH, occurrence=1),
        m(p1, K, "large language models", "large language models", _M, Role.MENTIONS),
    ]
    lqca = [
        m(p1, T, "LQCA", "LQCA", _ME, Role.PROPOSES),
        m(p1, T, "Long Question Coreference Adaptation", "Long Question Coreference Adaptation",
          _ME, Role.PROPOSES),
        m(p1, A, "Long Question Coreference Adaptation", "Long Question Coreference Adaptation",
          _ME, Role.PROPOSES),
        m(p1, A, "LQCA", "LQCA", _ME, Role.PROPOSES),
        # The same span found by a second extractor: one evidence node, two attributions.
        m(p1, A, "LQCA", "LQCA", _ME, Role.USES, extractor="gazetteer"),
        m(p1, A, "LQCA", "LQCA", _ME, Role.USES, occurrence=1),
    ]  # fmt: skip
    links = [
        Link(p1.id, "large language model", Role.USES, tuple(llm)),
        Link(p1.id, "long question coreference adaptation", Role.PROPOSES, tuple(lqca)),
        Link(p1.id, "coreference resolution", Role.ADDRESSES, (
            m(p1, A, "coreference resolution", "coreference resolution", _T, Role.ADDRESSES),
            m(p1, K, "coreference resolution", "coreference resolution", _T, Role.MENTIONS),
        )),
        Link(p1.id, "longbench", Role.EVALUATES_ON, (
            m(p1, A, "LongBench", "LongBench", _D, Role.EVALUATES_ON),)),
        Link(p1.id, "accuracy", Role.MEASURES, (
            m(p1, A, "accuracy", "accuracy", _MT, Role.MEASURES),)),
        Link(p2.id, "large language model", Role.MENTIONS, (
            m(p2, T, "LLMs", "LLMs", _M, Role.MENTIONS),
            m(p2, A, "LLMs", "LLMs", _M, Role.MENTIONS),
        )),
        Link(p2.id, "hallucination", Role.ADDRESSES, (
            m(p2, T, "hallucinate", "hallucinate", _C, Role.ADDRESSES),
            m(p2, A, "hallucination", "hallucination", _C, Role.ADDRESSES),
        )),
        Link(p2.id, "c++", Role.MENTIONS, (m(p2, A, "C++", "C++", _C, Role.MENTIONS),)),
        Link(p3_key, "bert", Role.USES, (m(p3, A, "BERT", "BERT", _M, Role.USES),)),
        Link(p3_key, "lora", Role.USES, (m(p3, A, "LoRA", "LoRA", _ME, Role.USES),)),
        Link(p3_key, "glue", Role.EVALUATES_ON, (
            m(p3, A, "GLUE", "GLUE", _D, Role.EVALUATES_ON),)),
        # A duplicate link (as two extractors might give): merged, the strongest role wins.
        Link(p3_key, "glue", Role.MENTIONS, (m(p3, A, "GLUE", "GLUE", _D, Role.MENTIONS),)),
        Link(p2.id, "large language model", Role.MENTIONS, ()),
    ]  # fmt: skip
    extractions = {
        p1.id: Extraction(p1.id, urls=("https://github.com/example/lqca",)),
        p2.id: Extraction(p2.id, urls=("github.com/example/parrots",)),
    }
    return Corpus(
        papers=[p1, p2, p3],
        extractions=extractions,
        concepts={c.key: c for c in _CONCEPTS},
        links=links,
    )
