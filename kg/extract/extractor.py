"""The extractor: papers in, `Extraction`s (mentions, acronyms, URLs, sentences) out.

`Extractor` loads the pipeline once; `extract_all`
streams papers through `nlp.pipe`; `Extractor.parse` reads and fills the parse cache
(`kg.extract.cache`). Worker processes and cached records: `kg.extract.partition`.
"""

from __future__ import annotations

import json
import re
import zlib
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from itertools import islice
from typing import Any

from spacy.language import Language
from spacy.tokens import Doc
from spacy.vocab import Vocab

from kg.extract.assemble import (
    ParsedField,
    Prepared,
    assemble_scored,
    decide_papers,
    evidence_first,
    paper_scores,
    prepare_paper,
    scored_decisions,
)
from kg.extract.cache import PARSE, PREPARED, SCORES, SPANS, CacheView, text_key
from kg.extract.candidates import GazetteerLookup, candidate_terms, collect
from kg.extract.decisions import DEFAULT_THRESHOLDS, DecisionThresholds
from kg.extract.docbytes import doc_bytes, doc_from_bytes
from kg.extract.entity_model import EntityModel, ModelSpan, RawSpan, typed_spans
from kg.extract.gazetteer_match import GazetteerIndex
from kg.extract.learned import DecisionModel
from kg.extract.nlp import load_nlp, load_reader
from kg.extract.packing import pack, unpack
from kg.extract.relation_mentions import FieldParse, find_relations
from kg.extract.textfix import repair
from kg.types import Acronym, Extraction, Field, Mention, Paper, RelationMention, Span
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


# A made-up paper that goes through every step of extraction (`Extractor.preload`).
WARM_UP = Paper(
    id="warm-up",
    title="WarmNet: Contrastive Pre-training for Image Classification",
    abstract=("We propose WarmNet, a convolutional neural network trained with contrastive "
              "learning. On ImageNet and CIFAR-10, WarmNet outperforms ResNet-50 and BERT "
              "baselines in top-1 accuracy (LLM, NLP). Our code is available."),
)


@lru_cache(maxsize=4)
def cached_extractor(config: ExtractorConfig = ExtractorConfig()) -> Extractor:
    """One extractor per configuration and process. Its pipelines load when first used
    (loading takes seconds; deciding papers from the cache's `prepared` entries needs only
    the decision models and the English vocabulary); `Extractor.preload` loads them now."""
    return Extractor.from_config(config, lazy=True)


class Extractor:
    """Runs the extraction pipeline over papers."""

    def __init__(
        self,
        nlp: Language | None,
        gazetteer: GazetteerIndex | None = None,
        entity_model: EntityModel | None = None,
        decision_model: DecisionModel | None = None,
        thresholds: DecisionThresholds = DEFAULT_THRESHOLDS,
        *,
        config: ExtractorConfig | None = None,
    ) -> None:
        # With `config`, the pipelines given as None load from it when first used.
        self._config = config
        self._nlp = nlp
        self._reader: Vocab | None = None  # the English vocabulary alone, to read Docs
        self._gazetteer = gazetteer
        self._entity_model = entity_model
        self._pending = {"gazetteer", "entity_model"} if config is not None else set()
        self.decision_model = decision_model
        self.thresholds = thresholds
        # Texts run through the English pipeline, and texts whose parse the cache had.
        self.counts: Counter[str] = Counter()

    @property
    def nlp(self) -> Language:
        if self._nlp is None:
            if self._config is None:
                raise ValueError("this extractor has no English pipeline")
            self._nlp = load_nlp(self._config.spacy_model)
        return self._nlp

    @nlp.setter
    def nlp(self, nlp: Language) -> None:
        self._nlp = nlp

    @property
    def gazetteer(self) -> GazetteerIndex | None:
        if "gazetteer" in self._pending:
            self._pending.discard("gazetteer")
            assert self._config is not None
            self._gazetteer = _default_gazetteer() if self._config.gazetteer else None
        return self._gazetteer

    @gazetteer.setter
    def gazetteer(self, gazetteer: GazetteerIndex | None) -> None:
        self._pending.discard("gazetteer")
        self._gazetteer = gazetteer

    @property
    def entity_model(self) -> EntityModel | None:
        if "entity_model" in self._pending:
            self._pending.discard("entity_model")
            assert self._config is not None
            self._entity_model = EntityModel.load() if self._config.entity_model else None
        return self._entity_model

    @entity_model.setter
    def entity_model(self, model: EntityModel | None) -> None:
        self._pending.discard("entity_model")
        self._entity_model = model

    def preload(self) -> Extractor:
        """Load every pipeline now (before worker processes fork, so that they inherit it),
        and the tables extraction reads on first use (background counts, the count tables of
        the features, the gazetteer's word index: ~70 MB that each worker loaded for itself
        on its first paper), by extracting one made-up paper (`WARM_UP`)."""
        _ = self.nlp, self.gazetteer, self.entity_model
        counts = self.counts.copy()
        for _extraction in self._run_chunk([WARM_UP], 1):
            pass
        self.counts = counts
        return self

    def reader(self) -> None:
        """Load now what reading cached Docs needs (`_vocab`)."""
        self._vocab()

    def _vocab(self) -> Vocab:
        """The English pipeline's vocabulary, to read cached Docs: without loading the
        pipeline's components when it is not loaded (the Docs carry every token attribute
        the pipeline set; the vocabulary's lexeme attributes come from its own files)."""
        if self._nlp is not None or self._config is None:
            return self.nlp.vocab
        if self._reader is None:
            self._reader = load_reader(self._config.spacy_model)
        return self._reader

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
    def from_config(cls, config: ExtractorConfig, *, lazy: bool = False) -> Extractor:
        """The extractor `config` describes; `lazy`: its pipelines load when first used."""
        decision_model = DecisionModel.load() if config.learned else None
        if lazy:
            return cls(None, None, None, decision_model, config.thresholds, config=config)
        return cls(
            load_nlp(config.spacy_model),
            _default_gazetteer() if config.gazetteer else None,
            EntityModel.load() if config.entity_model else None,
            decision_model,
            config.thresholds,
        )

    def extract(self, paper: Paper) -> Extraction:
        """Extract one paper."""
        return next(self._run([paper], batch_size=1))

    def extract_all(self, papers: Iterable[Paper], *, batch_size: int = 64) -> Iterator[Extraction]:
        """Extract many papers, in input order, in this process (worker processes and the
        parse cache: `kg.extract.partition`)."""
        yield from self._run(papers, batch_size=batch_size)

    def _run(self, papers: Iterable[Paper], *, batch_size: int) -> Iterator[Extraction]:
        papers_iter = iter(papers)
        while True:
            chunk = list(islice(papers_iter, batch_size))
            if not chunk:
                return
            yield from self._run_chunk(chunk, batch_size)

    def _run_chunk(self, chunk: list[Paper], batch_size: int,
                   cache: CacheView | None = None) -> Iterator[Extraction]:
        if cache is not None and cache.prepared is not None and self.decision_model is not None:
            yield from self._run_prepared(chunk, batch_size, cache, self.decision_model)
            return
        parsed_chunk = self.parse(chunk, batch_size=batch_size, cache=cache)
        decided = decide_papers([(p.original, p.fields) for p in parsed_chunk], self._lookup,
                                model_runs=self.entity_model is not None,
                                model=self.decision_model, thresholds=self.thresholds)
        for paper, parsed, mentions in zip(chunk, parsed_chunk, decided, strict=True):
            yield _extraction(paper, parsed, mentions, find_relations(parsed.parses, mentions))

    def _run_prepared(self, chunk: list[Paper], batch_size: int, cache: CacheView,
                      model: DecisionModel) -> Iterator[Extraction]:
        """`_run_chunk` with the `prepared` entries of the cache: papers it holds skip
        parsing, candidates and features; the learned models decide all papers of the chunk
        in one batch, from a reused paper's cached `scores` where they hold what the models
        would say; a reused paper's parse is read again only for a field where two or more
        mentions may be related."""
        assert cache.prepared is not None
        keys = [text_key(p.text(Field.TITLE), p.text(Field.ABSTRACT)) for p in chunk]
        stored = cache.store.get(PREPARED, cache.prepared, keys)
        todo = [i for i, key in enumerate(keys) if key not in stored]
        states: dict[int, tuple[ParsedPaper, Prepared]] = {}
        made = self.parse([chunk[i] for i in todo], batch_size=batch_size,
                          cache=cache) if todo else []
        evidence = evidence_first(model)
        for i, parsed in zip(todo, made, strict=True):
            states[i] = (parsed, prepare_paper(parsed.fields, self._lookup,
                                               model_runs=self.entity_model is not None,
                                               evidence=evidence))
        self.counts["prepared_hits"] += len(chunk) - len(todo)
        for i, key in enumerate(keys):
            if i not in states:
                states[i] = _unpack(stored[key])
        ordered = [states[i] for i in range(len(chunk))]
        papers = [(parsed.original, parsed.fields, prepared) for parsed, prepared in ordered]
        # What the models said of a reused paper's groups before (by this model): a change
        # of the thresholds runs them only for the groups a lower cut keeps first.
        found = cache.store.get(SCORES, cache.scores, keys) if cache.scores else {}
        fresh = set(todo)
        known = [unpack(found[key]) if key in found and i not in fresh else None
                 for i, key in enumerate(keys)]
        self.counts["scores_hits"] += sum(s is not None for s in known)
        scores = paper_scores(papers, model, self.thresholds, known)
        # Stored after the models (the groups they kept have their type evidence) and before
        # the mentions are made, which change the groups.
        cache.store.put(PREPARED, cache.prepared,
                        [(keys[i], _pack(*states[i])) for i in todo])
        if cache.scores:
            cache.store.put(SCORES, cache.scores, [
                (keys[i], pack(s)) for i, (s, was) in enumerate(zip(scores, known, strict=True))
                if was is None or int(s.typed.sum()) != int(was.typed.sum())])
        scored = scored_decisions(papers, scores, model, self.thresholds)
        decided = assemble_scored(papers, scored, model, self.thresholds)
        # Reused papers: the parses the relation patterns need (a field with fewer than two
        # mentions relates nothing), in one read.
        wanted: dict[int, list[ParsedField]] = {}
        for i, ((parsed, _), mentions) in enumerate(zip(ordered, decided, strict=True)):
            if i not in fresh:
                counts = Counter(m.span.field for m in mentions)
                wanted[i] = [pf for pf in parsed.fields if counts[pf.field] >= 2]
        texts = [pf.repaired.text for fields in wanted.values() for pf in fields]
        docs = iter(self._docs(texts, [text_key(t) for t in texts], batch_size, cache))
        for i, (paper, (parsed, _), mentions) in enumerate(zip(chunk, ordered, decided,
                                                               strict=True)):
            parses = parsed.parses if i not in wanted else [
                (pf.field, pf.repaired, next(docs)) for pf in wanted[i]]
            yield _extraction(paper, parsed, mentions, find_relations(parses, mentions))

    @property
    def _lookup(self) -> GazetteerLookup:
        return self.gazetteer.lookup if self.gazetteer is not None else _no_entries

    def parse(
        self, chunk: list[Paper], *, batch_size: int = 64, cache: CacheView | None = None
    ) -> list[ParsedPaper]:
        """Parse a chunk of papers and collect their candidates (everything before the
        decisions), in input order; parses and recogniser spans come from `cache` where it
        has them (`kg.extract.cache`), and new ones go into it."""
        jobs: list[tuple[int, Field, str]] = []
        for i, paper in enumerate(chunk):
            for part in (Field.TITLE, Field.ABSTRACT):
                text = paper.text(part)
                if text.strip() and paper.abstract:
                    jobs.append((i, part, text))
        repaired = [repair(text) for _, _, text in jobs]
        texts = [r.text for r in repaired]
        keys = [text_key(text) for text in texts] if cache is not None else []
        docs = self._docs(texts, keys, batch_size, cache)
        found = [
            candidate_terms(doc, is_title=part is Field.TITLE, gazetteer=self.gazetteer)
            for (_, part, _), doc in zip(jobs, docs, strict=True)
        ]
        model_spans = (
            self._model_spans(docs, [f.spans() for f in found], keys, cache)
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

    def _docs(self, texts: list[str], keys: list[str], batch_size: int,
              cache: CacheView | None) -> list[Doc]:
        """The English pipeline's Docs of `texts`, from the cache where it has them."""
        if cache is None:
            self.counts["parsed"] += len(texts)
            return list(self.nlp.pipe(texts, batch_size=batch_size))
        stored = cache.store.get(PARSE, cache.parse, keys)
        todo = sorted({key: text for key, text in zip(keys, texts, strict=True)
                       if key not in stored}.items())
        new = list(self.nlp.pipe((text for _, text in todo), batch_size=batch_size)
                   ) if todo else []
        self.counts["parsed"] += len(todo)
        self.counts["parse_hits"] += len(texts) - len(todo)
        fresh = {key: doc for (key, _), doc in zip(todo, new, strict=True)}
        cache.store.put(PARSE, cache.parse, ((key, doc_bytes(doc)) for key, doc in fresh.items()))
        if not stored:
            return [fresh[key] for key in keys]
        vocab = self._vocab()
        return [fresh[key] if key in fresh else doc_from_bytes(stored[key], vocab) for key in keys]

    def _model_spans(self, docs: list[Doc], suggestions: list[list[tuple[int, int]]],
                     keys: list[str], cache: CacheView | None) -> list[list[ModelSpan]]:
        """The recogniser's spans of each doc; from the cache when it judged every
        suggestion before (a span categorizer scores each span on its own)."""
        model = self.entity_model
        assert model is not None
        if cache is None or cache.spans is None:
            return model.spans(docs, suggestions)
        stored = {key: json.loads(value)
                  for key, value in cache.store.get(SPANS, cache.spans, keys).items()}
        raw: list[list[RawSpan] | None] = []
        for key, wanted in zip(keys, suggestions, strict=True):
            entry = stored.get(key)
            judged = None if entry is None else entry["judged"]
            if entry is None or (judged is not None and not {*map(tuple, judged)} >= {*wanted}):
                raw.append(None)
                continue
            keep = None if judged is None else set(wanted)
            raw.append([(s, e, label) for s, e, label in entry["raw"]
                        if keep is None or (s, e) in keep])
        todo = sorted({i for i, r in enumerate(raw) if r is None})
        if todo:
            new = model.raw_spans([docs[i] for i in todo], [suggestions[i] for i in todo])
            updates: dict[str, bytes] = {}
            for i, spans in zip(todo, new, strict=True):
                raw[i] = spans
                updates[keys[i]] = _spans_entry(stored.get(keys[i]), suggestions[i], spans,
                                                model.judges_suggestions)
            cache.store.put(SPANS, cache.spans, updates.items())
        return [typed_spans(doc, spans or []) for doc, spans in zip(docs, raw, strict=True)]


def _extraction(paper: Paper, parsed: ParsedPaper, mentions: list[Mention],
                relations: tuple[RelationMention, ...]) -> Extraction:
    return Extraction(paper_id=paper.id, mentions=tuple(mentions), acronyms=parsed.acronyms,
                      urls=parsed.urls, sentences=parsed.sentences, relations=relations)


def _pack(parsed: ParsedPaper, prepared: Prepared) -> bytes:
    """A `prepared` cache entry: the parsed paper without its Docs, and its `Prepared`."""
    return zlib.compress(pack((replace(parsed, parses=[]), prepared)), 1)


def _unpack(data: bytes) -> tuple[ParsedPaper, Prepared]:
    parsed, prepared = unpack(zlib.decompress(data))
    return parsed, prepared


def _spans_entry(old: dict[str, Any] | None, suggested: list[tuple[int, int]],
                 spans: list[RawSpan], judges: bool) -> bytes:
    """A doc's cached recogniser spans after judging `suggested`: what it said before about
    other spans, and now about these."""
    if not judges:
        entry: dict[str, Any] = {"judged": None, "raw": spans}
    else:
        now = set(suggested)
        before = old or {"judged": [], "raw": []}
        judged = sorted({*map(tuple, before["judged"]), *now})
        kept = [tuple(r) for r in before["raw"] if (r[0], r[1]) not in now]
        entry = {"judged": judged, "raw": sorted([*kept, *spans])}
    return json.dumps(entry, separators=(",", ":")).encode()


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
