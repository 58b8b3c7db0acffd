"""The extractor: papers in, `Extraction`s (mentions, acronyms, URLs, sentences) out.

`Extractor` loads the pipeline once; `extract_all`
streams papers through `nlp.pipe` and, for large inputs, through worker processes that each
load their own pipeline and send back plain `Extraction` records (cheap to pickle, unlike Docs).
"""

from __future__ import annotations

import multiprocessing as mp
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import islice

from spacy.language import Language

from kg.extract.assemble import ParsedField, decide_papers
from kg.extract.candidates import candidate_terms, collect
from kg.extract.decisions import DEFAULT_THRESHOLDS, DecisionThresholds
from kg.extract.entity_model import EntityModel
from kg.extract.gazetteer_match import GazetteerIndex
from kg.extract.learned import DecisionModel
from kg.extract.nlp import load_nlp
from kg.extract.relation_mentions import FieldParse, find_relations
from kg.extract.textfix import repair
from kg.types import Acronym, Extraction, Field, Paper, Span
from kg.vocab.gazetteer import Entry, Gazetteer

_URL = re.compile(r"(?:https?://|www\.)[^\s<>\"'{}|\\^`\]]+|\b(?:github|gitlab)\.com/[\w./-]+")
_URL_TRAIL = ".,;:)]}>'\""


def extract_urls(text: str) -> list[str]:
    """URLs in free text, trailing punctuation trimmed, in order, without duplicates.

    >>> extract_urls("Code: https://github.com/a/b. See www.x.org/p (and github.com/c/d).")
    ['https://github.com/a/b', 'https://www.x.org/p', 'https://github.com/c/d']
    """
    found: list[str] = []
    for match in _URL.finditer(text):
        url = match.group(0)
        while url and url[-1] in _URL_TRAIL and not (
            url[-1] == ")" and url.count("(") >= url.count(")")
        ):
            url = url[:-1]  # trailing punctuation, but a balanced ")" belongs to the URL
        if not url.startswith("http"):
            url = "https://" + url
        if url not in found:
            found.append(url)
    return found


def _default_gazetteer() -> GazetteerIndex:
    """The shipped gazetteer (kg.vocab.gazetteer), indexed for matching."""
    gaz = Gazetteer.load()
    return GazetteerIndex.build(gaz.lookup, gaz.keys())


@dataclass(frozen=True, slots=True)
class ExtractorConfig:
    """Which parts extraction runs (the ablation switches), which English pipeline, and how
    candidates are decided: by the shipped learned model (`learned`, with its `thresholds`)
    or by the hand-written rules alone."""

    spacy_model: str | None = None
    gazetteer: bool = True
    entity_model: bool = True
    learned: bool = True
    thresholds: DecisionThresholds = DEFAULT_THRESHOLDS


@lru_cache(maxsize=4)
def cached_extractor(config: ExtractorConfig = ExtractorConfig()) -> Extractor:
    """One loaded extractor per configuration and process (loading takes seconds)."""
    return Extractor.from_config(config)


class Extractor:
    """Runs the extraction pipeline over papers."""

    def __init__(
        self,
        nlp: Language,
        gazetteer: GazetteerIndex | None = None,
        entity_model: EntityModel | None = None,
        decision_model: DecisionModel | None = None,
        thresholds: DecisionThresholds = DEFAULT_THRESHOLDS,
    ) -> None:
        self.nlp = nlp
        self.gazetteer = gazetteer
        self.entity_model = entity_model
        self.decision_model = decision_model
        self.thresholds = thresholds

    @classmethod
    def load(
        cls,
        model: str | None = None,
        *,
        use_gazetteer: bool = True,
        use_entity_model: bool = True,
    ) -> Extractor:
        """The default extractor: English pipeline + shipped gazetteer + trained recogniser +
        learned decisions."""
        return cls.from_config(ExtractorConfig(model, use_gazetteer, use_entity_model))

    @classmethod
    def from_config(cls, config: ExtractorConfig) -> Extractor:
        return cls(
            load_nlp(config.spacy_model),
            _default_gazetteer() if config.gazetteer else None,
            EntityModel.load() if config.entity_model else None,
            DecisionModel.load() if config.learned else None,
            config.thresholds,
        )

    def extract(self, paper: Paper) -> Extraction:
        """Extract one paper."""
        return next(self._run([paper], batch_size=1))

    def extract_all(
        self,
        papers: Iterable[Paper],
        *,
        n_process: int = 1,
        batch_size: int = 64,
    ) -> Iterator[Extraction]:
        """Extract many papers, in input order; `n_process > 1` uses worker processes."""
        if n_process <= 1:
            yield from self._run(papers, batch_size=batch_size)
            return
        yield from parallel_extract(papers, n_process=n_process, batch_size=batch_size)

    def _run(self, papers: Iterable[Paper], *, batch_size: int) -> Iterator[Extraction]:
        papers_iter = iter(papers)
        while True:
            chunk = list(islice(papers_iter, batch_size))
            if not chunk:
                return
            yield from self._run_chunk(chunk, batch_size)

    def _run_chunk(self, chunk: list[Paper], batch_size: int) -> Iterator[Extraction]:
        parsed_chunk = self.parse(chunk, batch_size=batch_size)
        lookup = self.gazetteer.lookup if self.gazetteer is not None else _no_entries
        decided = decide_papers([(p.original, p.fields) for p in parsed_chunk], lookup,
                                model_runs=self.entity_model is not None,
                                model=self.decision_model, thresholds=self.thresholds)
        for paper, parsed, mentions in zip(chunk, parsed_chunk, decided, strict=True):
            yield Extraction(
                paper_id=paper.id,
                mentions=tuple(mentions),
                acronyms=parsed.acronyms,
                urls=parsed.urls,
                sentences=parsed.sentences,
                relations=find_relations(parsed.parses, mentions),
            )

    def parse(self, chunk: list[Paper], *, batch_size: int = 64) -> list[ParsedPaper]:
        """Parse a chunk of papers and collect their candidates (everything before the
        decisions), in input order."""
        jobs: list[tuple[int, Field, str]] = []
        for i, paper in enumerate(chunk):
            for part in (Field.TITLE, Field.ABSTRACT):
                text = paper.text(part)
                if text.strip() and paper.abstract:
                    jobs.append((i, part, text))
        repaired = [repair(text) for _, _, text in jobs]
        docs = list(self.nlp.pipe((r.text for r in repaired), batch_size=batch_size))
        found = [
            candidate_terms(doc, is_title=part is Field.TITLE, gazetteer=self.gazetteer)
            for (_, part, _), doc in zip(jobs, docs, strict=True)
        ]
        model_spans = (
            self.entity_model.spans(docs, [f.spans() for f in found])
            if self.entity_model is not None else [[] for _ in docs]
        )
        per_paper: dict[int, list[ParsedField]] = {}
        sentences: dict[int, list[Span]] = {}
        parses: dict[int, list[FieldParse]] = {}  # for relations (kg.extract.relation_mentions)
        for (i, part, _), fixed, doc, terms, spans in zip(
            jobs, repaired, docs, found, model_spans, strict=True
        ):
            per_paper.setdefault(i, []).append(
                ParsedField(part, fixed, collect(doc, is_title=part is Field.TITLE,
                                                 found=terms, model_spans=spans))
            )
            sentences.setdefault(i, []).extend(
                Span(part, *fixed.to_original(s.start_char, s.end_char)) for s in doc.sents
            )
            parses.setdefault(i, []).append((part, fixed, doc))
        out: list[ParsedPaper] = []
        for i, paper in enumerate(chunk):
            fields = per_paper.get(i, [])
            original = {f.field: paper.text(f.field) for f in fields}
            acronyms = tuple(
                Acronym(short, long, Span(f.field, *f.repaired.to_original(s, e)))
                for f in fields
                for short, long, s, e in f.candidates.definitions
            )
            out.append(ParsedPaper(
                fields=fields,
                original=original,
                acronyms=acronyms,
                urls=tuple(extract_urls(" ".join(original.values()))),
                sentences=tuple(sentences.get(i, ())),
                parses=parses.get(i, []),
            ))
        return out


@dataclass(slots=True)
class ParsedPaper:
    """One paper after parsing and candidate collection, before the decisions.

    `parses` holds the spaCy docs (for relation patterns): it never leaves this package.
    """

    fields: list[ParsedField]
    original: dict[Field, str]
    acronyms: tuple[Acronym, ...]
    urls: tuple[str, ...]
    sentences: tuple[Span, ...]
    parses: list[FieldParse]


def _no_entries(label: str) -> Sequence[Entry]:
    return ()


def extract_partition(papers: list[Paper], config: ExtractorConfig) -> list[Extraction]:
    """Phase 1 of one partition of papers, in input order: what a worker process or a Dask
    task runs. Pure (the same papers and configuration give the same extractions) and
    picklable by reference; the pipeline is loaded once per process (`cached_extractor`)."""
    return list(cached_extractor(config)._run(papers, batch_size=max(1, len(papers))))


# --- worker processes ---------------------------------------------------------------------

_WORKER: Extractor | None = None


def _init_worker(config: ExtractorConfig) -> None:
    global _WORKER
    if _WORKER is None:
        _WORKER = cached_extractor(config)


def _work(batch: list[Paper]) -> list[Extraction]:
    assert _WORKER is not None
    return list(_WORKER._run(batch, batch_size=len(batch)))


def parallel_extract(
    papers: Iterable[Paper],
    *,
    n_process: int,
    batch_size: int,
    config: ExtractorConfig = ExtractorConfig(),
) -> Iterator[Extraction]:
    """Fan batches of papers out to `n_process` workers; results come back in input order.

    Where the platform can fork, the pipeline is loaded once here and the workers inherit it
    (copy-on-write), which saves each worker seconds of imports and model loading.
    """
    global _WORKER
    fork = "fork" in mp.get_all_start_methods()
    ctx = mp.get_context("fork" if fork else "spawn")
    _WORKER = cached_extractor(config) if fork else None
    batches = _batched(papers, batch_size)
    with ctx.Pool(n_process, initializer=_init_worker, initargs=(config,)) as pool:
        for result in pool.imap(_work, batches):
            yield from result


def _batched(items: Iterable[Paper], size: int) -> Iterator[list[Paper]]:
    it = iter(items)
    while batch := list(islice(it, size)):
        yield batch
