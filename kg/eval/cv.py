"""Cross-validated quality figures of extraction over the gold abstracts (`make eval`).

The learned decisions (`kg.extract.learned`) are trained on gold papers, so their figures
come from papers the model did not see: k-fold cross-validation with folds grouped by
conference file (`venue` of dev2; the 19 ICLR 2025 sample papers are one group), so no
conference file is in training and test at once. Every paper is decided by a model trained
on the other folds; the predictions then go through the corpus stage per gold set
(`kg.canon.corpus.canonical_corpus`), as `kg build` of that file would, and are scored by
`kg.eval.graph` exactly as `kg eval` scores a graph. Parsing (spaCy + candidates) does not
depend on the model: it runs once and is cached on disk.
"""

from __future__ import annotations

import hashlib
import math
import pickle
import random
import re
import statistics
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from kg.canon.corpus import canonical_corpus
from kg.eval.graph import GoldPaper, Report, evaluate, load_gold, predictions_from_corpus
from kg.eval.graph import _align as align
from kg.extract.assemble import (
    ParsedField,
    decide_papers,
    group_candidates,
    group_spans,
    paper_features,
)
from kg.extract.cache import CacheView, open_cache, pipeline_versions
from kg.extract.decisions import DEFAULT_THRESHOLDS, DecisionThresholds
from kg.extract.extractor import ExtractorConfig, _default_gazetteer, cached_extractor
from kg.extract.learned import DecisionModel
from kg.ingest import read_papers
from kg.normalize import norm_key
from kg.train.decisions import PROPOSES_LEARNERS, SECOND_STAGE, TYPE_LEARNERS, Example, train
from kg.types import ConceptType, Corpus, Extraction, Field, Mention, Paper

SAMPLE_GROUP = "iclr2025"
FOLDS = 8  # conference files dealt round-robin (sorted by name) into this many folds
# Annotated abstracts that only ever train (never scored): `<name>_papers.json` and
# `<name>_gold.json` pairs, drawn from the gold files' conference files (kg/train/annotated/).
TRAINING_DIR = Path(__file__).resolve().parents[1] / "train" / "annotated"


@dataclass(frozen=True, slots=True)
class GoldSet:
    """One gold file with its papers; `groups` gives each paper's cross-validation group."""

    name: str
    papers: list[Paper]
    gold: list[GoldPaper]
    groups: dict[str, str]  # paper id -> group
    gold_of: dict[str, GoldPaper]  # paper id -> its gold annotation
    # False: training data only (`TRAINING_DIR`): in no fold's test and no figure, and out of
    # training while its group (conference file) is held out.
    scored: bool = True


def load_gold_sets(shared: Path, training: Path | None = None) -> list[GoldSet]:
    """The sample (ICLR 2025, one group) and dev2 (grouped by conference file) gold sets,
    then the training-only sets of folder `training` (`TRAINING_DIR`; None: none), grouped
    by conference file too."""
    specs = [
        ("iclr2025", shared / "iclr2025_abstracts.txt", shared / "gold/iclr2025_gold.json", True),
        ("dev2", shared / "gold/dev2_papers.json", shared / "gold/dev2_gold.json", True),
    ]
    if training is not None:
        specs += [(gold.name.removesuffix("_gold.json"),
                   gold.with_name(gold.name.replace("_gold.json", "_papers.json")), gold, False)
                  for gold in sorted(training.glob("*_gold.json"))]
    sets = []
    for name, papers_path, gold_path, scored in specs:
        papers = list(read_papers([papers_path]))
        gold = load_gold(gold_path)
        aligned = align(gold, {p.id: p.abstract or "" for p in papers})
        by_n = {g.n: g for g in gold}
        gold_of = {pid: by_n[n] for n, pid in aligned.items()}
        papers = [p for p in papers if p.id in gold_of]
        groups = {p.id: SAMPLE_GROUP if name == "iclr2025" else (p.venue or name)
                  for p in papers}
        sets.append(GoldSet(name, papers, gold, groups, gold_of, scored=scored))
    return sets


def scored_sets(sets: Sequence[GoldSet]) -> list[GoldSet]:
    """The sets the figures are measured on (not the training-only ones)."""
    return [s for s in sets if s.scored]


@dataclass(slots=True)
class ParsedGold:
    """What the decisions need of one parsed paper, plus what an `Extraction` carries."""

    original: dict[Field, str]
    fields: list[ParsedField]
    extraction: Extraction  # without mentions and relations


# What parsing runs (`Extractor.parse`): these modules and everything they import inside
# `kg.extract`; `extractor.py` counts as itself only (its imports include the decisions).
_PARSE_ROOTS = ("candidates", "textfix", "nlp")
_IMPORT = re.compile(r"^from kg\.extract\.(\w+) import|^import kg\.extract\.(\w+)", re.M)


def parse_modules(extract: Path) -> list[Path]:
    """The source files of `kg.extract` whose change can change what parsing makes (the
    decision modules, such as features and the learned model, are not among them)."""
    todo, seen = list(_PARSE_ROOTS), {"extractor"}
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        text = (extract / f"{name}.py").read_text(encoding="utf-8")
        todo += [a or b for a, b in _IMPORT.findall(text)]
    return sorted(extract / f"{name}.py" for name in seen)


# Shipped data parsing does not read (the decision model, the span types the features read).
UNPARSED_DATA = frozenset({"decisions.json.gz", "span_types.tsv.gz", "type_nouns.tsv.gz",
                           "context_types.tsv.gz", "termhood.tsv.gz"})


def _source_hash() -> str:
    """Changes whenever parsing's code or shipped data changes (then the cache is stale); a
    change to the decisions alone (features, training) keeps the parses."""
    root = Path(__file__).resolve().parents[1]
    digest = hashlib.sha256()
    for path in [*parse_modules(root / "extract"), *sorted((root / "data").glob("*.gz"))]:
        if path.name not in UNPARSED_DATA:
            digest.update(path.name.encode() + path.read_bytes())
    return digest.hexdigest()[:16]


def parse_gold(sets: Sequence[GoldSet], cache_dir: Path | None = None) -> dict[str, ParsedGold]:
    """Parse every gold paper once (cached under `cache_dir` by a hash of the code)."""
    papers = [p for s in sets for p in s.papers]
    key = hashlib.sha256(("".join(p.id + (p.abstract or "") for p in papers)
                          + _source_hash()).encode()).hexdigest()[:16]
    cache = cache_dir / f"cv-parses-{key}.pkl" if cache_dir is not None else None
    if cache is not None and cache.exists():
        loaded: dict[str, ParsedGold] = pickle.loads(cache.read_bytes())
        return loaded
    config = ExtractorConfig(learned=False)
    extractor = cached_extractor(config)
    # spaCy's parses and the recogniser's spans go into the build's parse cache in the same
    # folder, so a change to the candidate rules re-collects without re-parsing.
    view = (CacheView(open_cache(cache_dir), *pipeline_versions(config))
            if cache_dir is not None else None)
    parsed: dict[str, ParsedGold] = {}
    for start in range(0, len(papers), 32):
        chunk = papers[start:start + 32]
        for paper, pp in zip(chunk, extractor.parse(chunk, cache=view), strict=True):
            parsed[paper.id] = ParsedGold(
                pp.original, pp.fields,
                Extraction(paper.id, (), pp.acronyms, pp.urls, pp.sentences, ()))
    if cache is not None:
        cache.parent.mkdir(parents=True, exist_ok=True)
        cache.write_bytes(pickle.dumps(parsed))
    return parsed


def _lookup() -> Callable[[str], Any]:
    return _default_gazetteer().lookup


def group_keys(group: Any) -> set[str]:
    """Every key a candidate group can match a gold concept by."""
    keys = {group.key} | {norm_key(label) for label in group.labels}
    keys |= {norm_key(x) for x in (group.long_form, group.short_form) if x}
    return {k for k in keys if k}


def examples_of(parsed: ParsedGold, gold: GoldPaper, lookup: Callable[[str], Any]) -> list[Example]:
    """The training examples of one gold paper: each candidate group with its gold answer."""
    cands = group_candidates(parsed.fields)
    feats = paper_features(cands, parsed.fields, lookup, model_runs=True)
    spans = group_spans(cands)
    out = []
    for key, group in cands.groups.items():
        keys = group_keys(group)
        hits = [c for c in gold.concepts if c.keys & keys]
        hits.sort(key=lambda c: not c.must)
        best = hits[0] if hits else None
        out.append(Example(
            features=feats[key],
            matched=best is not None,
            must=any(c.must for c in hits),
            ctypes=() if best is None else tuple(ConceptType(t) for t in best.types),
            proposes=any(c.role == "proposes" for c in hits),
            key=key,
            spans=spans[key],
            concept="" if best is None else best.label,
        ))
    return out


def candidate_recall(sets: Sequence[GoldSet], parsed: dict[str, ParsedGold]) -> tuple[int, int]:
    """(must concepts some candidate group matches, must concepts) over the gold sets."""
    found = total = 0
    for s in scored_sets(sets):
        for paper in s.papers:
            cands = group_candidates(parsed[paper.id].fields)
            keys = set().union(*(group_keys(g) for g in cands.groups.values()))
            for concept in s.gold_of[paper.id].concepts:
                if concept.must:
                    total += 1
                    found += bool(concept.keys & keys)
    return found, total


Decider = Callable[[list[str]], list[list[Mention]]]
"""Paper ids of one held-out group -> their mentions."""


def score(sets: Sequence[GoldSet], parsed: dict[str, ParsedGold], decide: Decider,
          *, k: int = FOLDS, seed: int = 0) -> dict[str, Report]:
    """Decide every paper (held-out group by held-out group), canonicalise per gold set and
    score: a report per gold set and "all" (`seed`: which dealing of groups into folds)."""
    mentions: dict[str, list[Mention]] = {}
    scored = scored_sets(sets)
    for fold in folds(scored, k, seed):
        ids = [p.id for s in scored for p in s.papers if s.groups[p.id] in fold]
        for pid, found in zip(ids, decide(ids), strict=True):
            mentions[pid] = found
    reports = {}
    for s in scored:
        extractions = {}
        for p in s.papers:
            base = parsed[p.id].extraction
            extractions[p.id] = Extraction(p.id, tuple(mentions[p.id]), base.acronyms,
                                           base.urls, base.sentences, ())
        # The corpus stage of `kg build` (merges, hygiene, coined-name senses, stated types,
        # origin roles), without corrections: the figures are those of the graph users get.
        canonical = canonical_corpus(s.papers, extractions).canonical
        corpus = Corpus(papers=s.papers, extractions=extractions,
                        concepts=canonical.concepts, links=canonical.links)
        abstracts, preds = predictions_from_corpus(corpus)
        reports[s.name] = evaluate(s.gold, abstracts, preds)
    reports["all"] = merge(reports[s.name] for s in scored)
    return reports


def folds(sets: Sequence[GoldSet], k: int = FOLDS, seed: int = 0) -> list[set[str]]:
    """The groups of each fold, dealt round-robin: sorted by name (seed 0), or shuffled by
    `seed` (another partition of the same groups, for the spread of the figures)."""
    groups = sorted({g for s in sets for g in s.groups.values()})
    if seed:
        random.Random(seed).shuffle(groups)
    return [set(groups[i::k]) for i in range(min(k, len(groups)))]


FIGURES = ("must_recall", "precision", "f1", "type_accuracy", "proposes_precision",
           "proposes_recall", "proposes_must_precision", "proposes_must_recall")
"""The headline figures of a `Report`, in the order the tables print them."""


@dataclass(frozen=True, slots=True)
class Spread:
    """One figure over repeated cross-validations: mean, standard deviation, range."""

    mean: float
    sd: float
    low: float
    high: float

    @classmethod
    def of(cls, values: Sequence[float]) -> Spread:
        sd = statistics.stdev(values) if len(values) > 1 else 0.0
        return cls(statistics.fmean(values), sd, min(values), max(values))


def spreads(runs: Sequence[dict[str, Report]], part: str = "all") -> dict[str, Spread]:
    """Each of `FIGURES` of report `part` over `runs` (one `score` result per seed)."""
    return {name: Spread.of([getattr(run[part], name) for run in runs]) for name in FIGURES}


def paired(runs: Sequence[dict[str, Report]], base: Sequence[dict[str, Report]],
           part: str = "all") -> dict[str, Spread]:
    """Each figure's difference `runs` - `base`, seed by seed (the same folds and training
    seeds on both sides, so the difference is the change's own, not the folds')."""
    return {name: Spread.of([getattr(a[part], name) - getattr(b[part], name)
                             for a, b in zip(runs, base, strict=True)]) for name in FIGURES}


def merge(reports: Iterable[Report]) -> Report:
    """The sum of several reports (counts added, lists joined)."""
    total = Report()
    for report in reports:
        for f in fields(Report):
            setattr(total, f.name, getattr(total, f.name) + getattr(report, f.name))
    return total


def rules_decider(parsed: dict[str, ParsedGold], lookup: Callable[[str], Any]) -> Decider:
    """The hand-written rules alone (nothing trained)."""
    def decide(ids: list[str]) -> list[list[Mention]]:
        return decide_papers([(parsed[i].original, parsed[i].fields) for i in ids], lookup,
                             model_runs=True, model=None)
    return decide


def gold_examples(sets: Sequence[GoldSet], parsed: dict[str, ParsedGold],
                  lookup: Callable[[str], Any]) -> dict[str, list[Example]]:
    """The training examples of every gold paper, by paper id (`examples_of`)."""
    return {p.id: [replace(e, paper=p.id, group=s.groups[p.id])
                   for e in examples_of(parsed[p.id], s.gold_of[p.id], lookup)]
            for s in sets for p in s.papers}


def must_counts(sets: Sequence[GoldSet]) -> dict[str, int]:
    """Each gold paper's number of must concepts (those no candidate matches included): the
    recall the acceptance cut is learned for counts them all (`kg.train.decisions.accept_cut`)."""
    return {p.id: sum(c.must for c in s.gold_of[p.id].concepts) for s in sets for p in s.papers}


TRAIN_SHARE_SEED = 1000  # `training_papers` shuffles by this + the dealing's seed


def training_papers(ids: Iterable[str], share: float, seed: int = 0) -> list[str]:
    """`share` of the papers `ids` for a learning curve (`cv_eval.py --train-share`): the
    first round(share * n) of them, sorted, then shuffled by `TRAIN_SHARE_SEED` + `seed`. At
    one seed the papers of a smaller share are a prefix of a larger share's (nested), so the
    curve's steps add papers and change nothing else."""
    if not 0 < share <= 1:
        raise ValueError(f"a share of the training papers is in (0, 1], not {share}")
    order = sorted(ids)
    random.Random(TRAIN_SHARE_SEED + seed).shuffle(order)
    return order[:round(share * len(order))]


def learned_decider(
    sets: Sequence[GoldSet],
    parsed: dict[str, ParsedGold],
    lookup: Callable[[str], Any],
    features: Sequence[str],
    thresholds: DecisionThresholds = DEFAULT_THRESHOLDS,
    examples: dict[str, list[Example]] | None = None,
    *,
    stack: bool = SECOND_STAGE,
    seed: int = 0,
    proposes_learners: Sequence[str] = PROPOSES_LEARNERS,
    learn_cut: bool = True,
    type_learners: Sequence[str] = TYPE_LEARNERS,
    train_share: float = 1.0,
) -> Decider:
    """Per held-out group: train on every other group's papers, decide the group's papers
    (`examples`: `gold_examples`, when the caller has them already; `stack`: acceptance in
    two stages; `seed`: the learners' random state; `proposes_learners`, `learn_cut`: how
    `proposes` is learnt; `type_learners`: how the types are — all as in
    `kg.train.decisions.train`; `train_share`: train on that share of the other groups'
    papers alone, `training_papers` at `seed`, for a learning curve)."""
    examples = examples if examples is not None else gold_examples(sets, parsed, lookup)
    group_of = {p.id: s.groups[p.id] for s in sets for p in s.papers}
    needed = must_counts(sets)

    def decide(ids: list[str]) -> list[list[Mention]]:
        held_out = {group_of[i] for i in ids}
        others = [pid for pid in examples if group_of[pid] not in held_out]
        kept = set(training_papers(others, train_share, seed))
        training = [e for pid in others if pid in kept for e in examples[pid]]
        model = DecisionModel.from_json(train(training, features, stack=stack, seed=seed,
                                              proposes_learners=proposes_learners,
                                              learn_cut=learn_cut, must_counts=needed,
                                              type_learners=type_learners))
        return decide_papers([(parsed[i].original, parsed[i].fields) for i in ids], lookup,
                             model_runs=True, model=model, thresholds=thresholds)
    return decide


def shape_of(features: dict[str, float]) -> str:
    """What a candidate looks like, from its features: an acronym, a name (capitals inside,
    digits, a name pattern), one lower-case word or a noun phrase; "(in vocabulary)" when a
    curated vocabulary lists it."""
    if features.get("kind_acronym") or features.get("all_caps"):
        shape = "acronym"
    elif features.get("kind_name") or features.get("inner_capital") or features.get("digit"):
        shape = "name"
    elif features.get("n_words", 1) <= 1:
        shape = "single word"
    else:
        shape = "noun phrase"
    return shape + (" (in vocabulary)" if features.get("gaz_curated") else "")


COMMON_PHRASE = 10  # background abstracts using a phrase that `error_kinds` calls it common in


def boundary_error(key: str, gold: GoldPaper) -> str | None:
    """How a spurious `key` relates to the paper's gold concepts when it is a boundary error:
    "piece" (its words lie inside a gold concept's: "neural" of "graph neural network"),
    "extended" (a gold concept's words lie inside it: "our graph neural network"), or None."""
    padded = f" {key} "
    for concept in gold.concepts:
        for k in concept.keys:
            if padded in f" {k} ":
                return "piece"
            if f" {k} " in padded:
                return "extended"
    return None


@dataclass(frozen=True, slots=True)
class _PaperView:
    gold: GoldPaper
    features: dict[str, dict[str, float]]  # candidate key -> its features
    keys: dict[str, set[str]]  # candidate key -> every key it can match by

    def find(self, keys: Iterable[str]) -> dict[str, float] | None:
        """The features of the candidate group matching any of `keys` (None: no candidate)."""
        wanted = set(keys)
        for key, matches in self.keys.items():
            if matches & wanted:
                return self.features[key]
        return None


def type_confusion(runs: Sequence[dict[str, Report]],
                   part: str = "all") -> Counter[tuple[str, str]]:
    """(gold type, predicted type) -> count over the matched concepts of report `part` of
    each run, summed over `runs` (`Report.type_pairs`: the cells off the diagonal are the
    wrong types, the diagonal's share is the type accuracy)."""
    table: Counter[tuple[str, str]] = Counter()
    for run in runs:
        table.update(run[part].type_pairs)
    return table


def confusion_rows(table: Counter[tuple[str, str]], runs: int = 1) -> list[str]:
    """`type_confusion`'s table as text: gold types down, predicted types across, each cell the
    count per run (`runs` the number summed), rows and columns in `ConceptType` order."""
    order = [t.value for t in ConceptType]
    names = order + sorted({t for pair in table for t in pair} - set(order))
    width = max(len(n) for n in names) + 1
    corner = "gold \\ predicted"
    rows = [f"{corner:<18}" + "".join(f"{n:>{width}}" for n in names)
            + f"{'total':>{width}}"]
    for gold in names:
        counts = [table[gold, got] / runs for got in names]
        if any(counts):
            rows.append(f"{gold:<18}" + "".join(f"{c:>{width}.1f}" for c in counts)
                        + f"{sum(counts):>{width}.1f}")
    return rows


def error_kinds(sets: Sequence[GoldSet], parsed: dict[str, ParsedGold],
                reports: dict[str, Report], examples: dict[str, list[Example]],
                top: int | None = 10) -> list[tuple[str, int]]:
    """The most frequent kinds of remaining errors of one `score` result, with counts: each
    miss, spurious concept, wrong type and proposes error is put in a kind by what its
    candidate group looks like (`shape_of`) and where it stands (title, abstract, a gold
    concept it overlaps), read from the features the decisions saw."""
    kinds: Counter[str] = Counter()
    for s in scored_sets(sets):
        report = reports[s.name]
        views = {}
        for p in s.papers:
            cands = group_candidates(parsed[p.id].fields)
            views[s.gold_of[p.id].n] = _PaperView(
                s.gold_of[p.id], {e.key: e.features for e in examples[p.id]},
                {key: group_keys(g) for key, g in cands.groups.items()})
        for n, label, types in report.misses:
            view = views[n]
            gold = next(c for c in view.gold.concepts if c.label == label)
            found = view.find(gold.keys)
            kinds[f"missed {types.split('/')[0]}: no candidate" if found is None else
                  f"missed: {shape_of(found)} rejected"] += 1
        for n, label, _ in report.false_positives:
            view = views[n]
            found = view.find({norm_key(label)})
            boundary = boundary_error(norm_key(label), view.gold)
            if boundary is not None:
                kinds["spurious: a piece of a gold concept" if boundary == "piece" else
                      "spurious: a gold concept with words added"] += 1
            elif found is not None and shape_of(found) == "noun phrase":
                common = found["bg_phrase"] >= math.log1p(COMMON_PHRASE)
                kinds["spurious: noun phrase " + ("common in" if common else "rare in")
                      + f" the background abstracts (in {'>=' if common else '<'} "
                      f"{COMMON_PHRASE}) accepted"] += 1
            else:
                kinds[f"spurious: {'?' if found is None else shape_of(found)} accepted"] += 1
        for n, label, got, want in report.wrong_types:
            found = views[n].find({norm_key(label)})
            shape = "?" if found is None else shape_of(found).split(" (")[0]
            kinds[f"{want.split('/')[0]} typed {got} ({shape})"] += 1
        for n, label, what in report.proposes_errors:
            view = views[n]
            if what == "not in gold":
                kinds["proposes for a spurious concept"] += 1
            elif what.startswith("predicted proposes"):
                kinds[f"proposes for a concept the gold {what.rsplit(' ', 1)[-1]}"] += 1
            else:
                gold = next(c for c in view.gold.concepts if c.label == label)
                found = view.find(gold.keys)
                where = ("?" if found is None else
                         "title only" if found["in_title"] and not found["in_abstract"] else
                         "title and abstract" if found["in_title"] else "abstract only")
                shape = "?" if found is None else shape_of(found).split(" (")[0]
                kinds[f"contribution not proposes: {shape}, {where}"] += 1
    return kinds.most_common(top)
