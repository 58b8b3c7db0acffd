"""From the candidates of a paper's fields to its decided groups: group, decide (by the
rules, or the learned models over each group's features), then `kg.extract.mentions` turns
the decided groups into mentions (overlaps resolved, offsets mapped back to the original
text).

Candidates are grouped per paper by canonical key (an acronym joins its long form); which
groups become concepts, of which type and role, is `kg.extract.decisions` (the rules) or
`kg.extract.learned` (the models). Where accepted candidates overlap the longest wins, except
that an acronym definition fixes its long form's boundaries and the recogniser's wide spans
only fill gaps.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from kg.extract.acronyms import short_of
from kg.extract.background import phrase_count
from kg.extract.candidates import FieldCandidates, GazetteerLookup
from kg.extract.contribution import PaperText
from kg.extract.decisions import (
    DEFAULT_THRESHOLDS,
    CandidateGroup,
    DecisionThresholds,
    acceptance,
    decide_role,
    decide_type,
)
from kg.extract.features import TYPE_EVIDENCE, group_features, type_evidence
from kg.extract.learned import (
    Decision,
    DecisionModel,
    FeatureTable,
    OccurrenceSpans,
    Scores,
    with_stack_features,
)
from kg.extract.mentions import assemble_decided, paper_mentions, resolve_overlaps
from kg.extract.overlaps import overlap_features
from kg.extract.textfix import Repaired
from kg.normalize import norm_key
from kg.types import ConceptType, Field, Mention, Role
from kg.vocab.gazetteer import Entry

_KNOWN_KINDS = frozenset({"acronym", "name", "title", "gazetteer"})


@dataclass(frozen=True, slots=True)
class ParsedField:
    """One field of a paper after parsing: its candidates and the repair offset map."""

    field: Field
    repaired: Repaired
    candidates: FieldCandidates


@dataclass
class PaperCandidates:
    """Every candidate group of one paper, keyed, with what the paper says around them."""

    groups: dict[str, CandidateGroup]
    proposal_sentences: set[tuple[Field, int]]
    title_prefix_key: str | None


def group_candidates(fields: list[ParsedField], *, broad: bool = True) -> PaperCandidates:
    """The candidate occurrences of a paper's fields grouped by canonical key (an acronym
    joins its long form); without `broad`, the noun-phrase pieces (`kg.extract.subspans`,
    for the learned decisions) are left out."""
    acronyms: dict[str, str] = {}
    for pf in fields:
        for short, long, _, _ in pf.candidates.definitions:
            acronyms.setdefault(short, long)
    long_keys = {norm_key(long): short for short, long in acronyms.items()}
    entries: dict[str, CandidateGroup] = {}
    proposal_sentences: set[tuple[Field, int]] = set()
    title_prefix_key = None
    keyed = [(pf, occ, _key_for(occ.term.label, acronyms))
             for pf in fields for occ in pf.candidates.occurrences
             if broad or occ.term.kind != "span"]
    named_in_abstract = {key for pf, _, key in keyed if pf.field is Field.ABSTRACT}
    for pf in fields:
        if pf.candidates.title_prefix:
            title_prefix_key = _key_for(pf.candidates.title_prefix, acronyms)
    for pf, occ, key in keyed:
        if not key or (occ.term.kind == "title" and key not in named_in_abstract):
            continue
        entry = entries.setdefault(key, CandidateGroup(key))
        entry.occurrences.append((pf.field, occ))
        entry.labels[occ.term.label] += 1
        defined = short_of(occ.term.label, acronyms)
        if defined is not None:
            entry.long_form = acronyms[defined]
            entry.short_form = defined
        elif key in long_keys:
            entry.short_form = long_keys[key]
            entry.long_form = acronyms[long_keys[key]]
        if occ.role is Role.PROPOSES:
            proposal_sentences.add((pf.field, occ.sentence))
    return PaperCandidates(entries, proposal_sentences, title_prefix_key)


def assemble(
    original: dict[Field, str],
    fields: list[ParsedField],
    gazetteer: GazetteerLookup,
    *,
    model_runs: bool = False,
) -> list[Mention]:
    """The mentions of one paper, decided by the hand-written rules (see module docstring)."""
    cands = group_candidates(fields, broad=False)
    accepted = {k: e for k, e in cands.groups.items()
                if acceptance(e, gazetteer, model_runs=model_runs)}
    # Where accepted candidates overlap the longest wins ("distributed speculative inference"
    # over the "speculative inference" inside it); only what survives counts as evidence for
    # a concept's acceptance, type and role.
    survivors = resolve_overlaps(fields, accepted)
    for key, entry in list(accepted.items()):
        entry.occurrences = survivors.get(key, [])
        if not entry.occurrences or not acceptance(entry, gazetteer, model_runs=model_runs):
            del accepted[key]
    proposed_keys = {k for k, e in accepted.items() if Role.PROPOSES in e.roles}
    decided: dict[str, tuple[ConceptType, Role]] = {}
    for key, entry in accepted.items():
        ctype = decide_type(entry, gazetteer, Role.PROPOSES in entry.roles)
        role = decide_role(entry, ctype, gazetteer, cands.proposal_sentences, proposed_keys,
                            cands.title_prefix_key)
        decided[key] = (ctype, role)
    return paper_mentions(original, fields, accepted, decided)


def paper_features(
    cands: PaperCandidates,
    fields: list[ParsedField],
    gazetteer: GazetteerLookup,
    *,
    model_runs: bool,
    evidence: bool = True,
) -> dict[str, dict[str, float]]:
    """The features of every candidate group of a paper (`kg.extract.features`), by key;
    without `evidence`, the `TYPE_EVIDENCE` ones are left at 0."""
    memo: dict[str, Sequence[Entry]] = {}

    def lookup(label: str) -> Sequence[Entry]:
        if label not in memo:
            memo[label] = gazetteer(label)
        return memo[label]

    reasons = {k: acceptance(e, lookup, model_runs=model_runs) for k, e in cands.groups.items()}
    proposed_keys = {k for k, e in cands.groups.items()
                     if reasons[k] is not None and Role.PROPOSES in e.roles}
    sentences = {pf.field: pf.candidates.sentences for pf in fields}
    title_words = frozenset(w for pf in fields if pf.field is Field.TITLE
                            for w in norm_key(pf.repaired.text).split())
    max_count = max((e.count for e in cands.groups.values()), default=1)
    known = {pf.field: sorted({(o.char_start, o.char_end) for o in pf.candidates.occurrences
                               if o.term.kind in _KNOWN_KINDS}) for pf in fields}
    paper = PaperText.of({pf.field: pf.repaired.text for pf in fields},
                         [e.count for e in cands.groups.values()
                          if e.kinds & {"acronym", "name"}], known)
    features = {
        key: group_features(entry, lookup, model_runs=model_runs,
                            proposal_sentences=cands.proposal_sentences,
                            proposed_keys=proposed_keys,
                            title_prefix_key=cands.title_prefix_key, sentences=sentences,
                            title_words=title_words, max_count=max_count,
                            reason=reasons[key], paper=paper, evidence=evidence)
        for key, entry in cands.groups.items()
    }
    for key, extra in overlap_features(cands.groups, phrase_count).items():
        features[key].update(extra)
    return features


@dataclass(slots=True)
class Prepared:
    """One paper just before the learned decisions: its candidate groups and every group's
    features (`paper_features`, a row per group in the order of `cands.groups`). What a
    change of the decision models or their thresholds starts from (the parse cache keeps it:
    `kg.extract.cache`). `evidence`: per row, whether the table holds its group's
    `TYPE_EVIDENCE` features (None: every row does; the others' are 0 until
    `decide_prepared` needs them)."""

    cands: PaperCandidates
    features: FeatureTable
    evidence: npt.NDArray[np.bool_] | None = None


def prepare_paper(fields: list[ParsedField], gazetteer: GazetteerLookup, *,
                  model_runs: bool, evidence: bool = True) -> Prepared:
    """The candidate groups of a paper's parsed fields and their features; without
    `evidence`, no group's `TYPE_EVIDENCE` yet."""
    cands = group_candidates(fields)
    features = paper_features(cands, fields, gazetteer, model_runs=model_runs,
                              evidence=evidence)
    return Prepared(cands, FeatureTable.of(features[key] for key in cands.groups),
                    None if evidence else np.zeros(len(cands.groups), dtype=np.bool_))


def evidence_first(model: DecisionModel) -> bool:
    """Whether `model`'s acceptance reads `TYPE_EVIDENCE`, so that every group needs it
    before any decision (else only the groups the acceptance keeps do)."""
    return not model.acceptance_features.isdisjoint(TYPE_EVIDENCE)


def decide_papers(
    papers: Sequence[tuple[dict[Field, str], list[ParsedField]]],
    gazetteer: GazetteerLookup,
    *,
    model_runs: bool,
    model: DecisionModel | None,
    thresholds: DecisionThresholds = DEFAULT_THRESHOLDS,
) -> list[list[Mention]]:
    """The mentions of each paper (original texts, parsed fields): by the learned `model`
    when given (one batch of predictions for all papers), else by the rules."""
    if model is None:
        return [assemble(original, fields, gazetteer, model_runs=model_runs)
                for original, fields in papers]
    evidence = evidence_first(model)
    return decide_prepared(
        [(original, fields, prepare_paper(fields, gazetteer, model_runs=model_runs,
                                          evidence=evidence))
         for original, fields in papers], model, thresholds)


def decide_prepared(
    papers: Sequence[tuple[dict[Field, str], list[ParsedField], Prepared]],
    model: DecisionModel,
    thresholds: DecisionThresholds = DEFAULT_THRESHOLDS,
) -> list[list[Mention]]:
    """The mentions of each prepared paper (original texts, parsed fields, `Prepared`) by
    the learned `model`: one batch of predictions for all papers. Consumes the `Prepared`
    values (their groups lose overlapped occurrences)."""
    decided = score_prepared(papers, model, thresholds)
    return assemble_scored(papers, decided, model, thresholds)


def score_prepared(
    papers: Sequence[tuple[dict[Field, str], list[ParsedField], Prepared]],
    model: DecisionModel,
    thresholds: DecisionThresholds = DEFAULT_THRESHOLDS,
) -> list[dict[str, Decision]]:
    """The learned `model`'s decisions on each prepared paper's groups (by key), in one
    batch (`paper_scores`, `scored_decisions`)."""
    scores = paper_scores(papers, model, thresholds)
    return scored_decisions(papers, scores, model, thresholds)


def paper_scores(
    papers: Sequence[tuple[dict[Field, str], list[ParsedField], Prepared]],
    model: DecisionModel,
    thresholds: DecisionThresholds = DEFAULT_THRESHOLDS,
    known: Sequence[Scores | None] | None = None,
) -> list[Scores]:
    """Each prepared paper's `Scores` by the learned `model`, every row the thresholds'
    acceptance cut keeps typed; the models run in one batch, only where `known` (a paper's
    scores by this model from an earlier run, or None) lacks what they say. The groups the
    cut keeps get their `TYPE_EVIDENCE` before they are typed where their `Prepared` lacks it
    (added to it: a `Prepared` stored after this holds it)."""
    given = [s if s is not None and len(s.accept) == len(p.features) else None
             for s, (_, _, p) in zip(known or [None] * len(papers), papers, strict=True)]
    flat = [(i, key) for i, (_, _, prepared) in enumerate(papers) for key in prepared.cands.groups]
    starts = np.cumsum([0, *(len(p.features) for _, _, p in papers)])
    scores = [Scores(s.accept, s.types.copy(), s.proposes.copy(), s.typed.copy())
              if s is not None else None for s in given]
    fresh = [i for i, s in enumerate(scores) if s is None]
    if fresh:  # the acceptance of the papers without scores, in one batch
        part = [papers[i] for i in fresh]
        part_flat = [(n, key) for n, (_, _, p) in enumerate(part) for key in p.cands.groups]
        if evidence_first(model):  # (a `Prepared` made for a model that did not need it)
            _add_evidence(part, part_flat, None, np.flatnonzero(_lacking_evidence(part)))
        table = with_stack_features(model, FeatureTable.concat([p.features for _, _, p in part]),
                                    part_flat, [group_spans(p.cands) for _, _, p in part])
        accepted = model.acceptance(table)
        at = 0
        for i in fresh:
            size = len(papers[i][2].features)
            scores[i] = Scores.unscored(accepted[at : at + size], model.untyped)
            at += size
    done = [s for s in scores if s is not None]
    cut = _accept_cut(model, thresholds)
    # The rows the cut keeps that no run typed yet, numbered over all papers (as `flat`).
    todo = np.concatenate([np.flatnonzero((s.accept >= cut) & ~s.typed) + start
                           for s, start in zip(done, starts[:-1], strict=True)]
                          or [np.zeros(0, dtype=np.intp)]).astype(np.intp)
    if len(todo):
        lacking = _lacking_evidence(papers)
        _add_evidence(papers, flat, None, todo[lacking[todo]])
        paper_of = np.searchsorted(starts, todo, side="right") - 1
        rows = FeatureTable.concat([
            FeatureTable(p.features.names, p.features.values[todo[paper_of == i] - starts[i]])
            for i, (_, _, p) in enumerate(papers)])
        types, proposes = model.typed(rows)
        at = 0
        for i, s in enumerate(done):
            mine = todo[paper_of == i] - starts[i]
            s.type_rows(mine, types[at : at + len(mine)], proposes[at : at + len(mine)])
            at += len(mine)
    return done


def scored_decisions(
    papers: Sequence[tuple[dict[Field, str], list[ParsedField], Prepared]],
    scores: Sequence[Scores],
    model: DecisionModel,
    thresholds: DecisionThresholds = DEFAULT_THRESHOLDS,
) -> list[dict[str, Decision]]:
    """Each paper's decisions (by group key) from its `Scores` at the thresholds' cut."""
    cut = _accept_cut(model, thresholds)
    return [dict(zip(p.cands.groups, model.decisions(s, cut), strict=True))
            for (_, _, p), s in zip(papers, scores, strict=True)]


def assemble_scored(
    papers: Sequence[tuple[dict[Field, str], list[ParsedField], Prepared]],
    decided: Sequence[dict[str, Decision]],
    model: DecisionModel,
    thresholds: DecisionThresholds = DEFAULT_THRESHOLDS,
) -> list[list[Mention]]:
    """The mentions of each prepared paper from its groups' decisions (`score_prepared`).
    Consumes the `Prepared` values (their groups lose overlapped occurrences)."""
    thresholds = replace(thresholds, accept=_accept_cut(model, thresholds))
    cut = thresholds.proposes if thresholds.proposes is not None else model.proposes_cut
    return [assemble_decided(original, fields, prepared.cands, d, thresholds, cut)
            for (original, fields, prepared), d in zip(papers, decided, strict=True)]


def _accept_cut(model: DecisionModel, thresholds: DecisionThresholds) -> float:
    return model.accept_cut if thresholds.accept is None else thresholds.accept


def _lacking_evidence(
    papers: Sequence[tuple[dict[Field, str], list[ParsedField], Prepared]],
) -> npt.NDArray[np.bool_]:
    """Per row of the papers' groups, in order: whether its `Prepared` lacks its evidence."""
    parts = [np.zeros(len(p.features), dtype=np.bool_) if p.evidence is None else ~p.evidence
             for _, _, p in papers]
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.bool_)


def _add_evidence(
    papers: Sequence[tuple[dict[Field, str], list[ParsedField], Prepared]],
    flat: Sequence[tuple[int, str]],
    table: FeatureTable | None,
    rows: npt.NDArray[np.intp],
) -> None:
    """Make the `TYPE_EVIDENCE` of the groups at `rows` (of the groups `flat` of `papers`,
    rows their `Prepared` lacks), and put it in their `Prepared` and in `table`."""
    if not len(rows):
        return
    values = np.zeros((len(rows), len(TYPE_EVIDENCE)))
    texts: dict[int, dict[Field, str]] = {}
    for n, row in enumerate(rows.tolist()):
        i, key = flat[row]
        if i not in texts:
            texts[i] = {pf.field: pf.repaired.text for pf in papers[i][1]}
        found = type_evidence(papers[i][2].cands.groups[key], texts[i])
        values[n] = [found.get(name, 0.0) for name in TYPE_EVIDENCE]
    if table is not None:
        table.values[np.ix_(rows, _evidence_columns(table.names))] = values
    starts = np.cumsum([0, *(len(p.features) for _, _, p in papers)])
    paper_of = np.searchsorted(starts, rows, side="right") - 1
    for i in np.unique(paper_of).tolist():
        mine = paper_of == i
        prepared = papers[i][2]
        local = rows[mine] - starts[i]
        prepared.features.values[np.ix_(local, _evidence_columns(prepared.features.names))] = (
            values[mine])
        assert prepared.evidence is not None  # rows lacking it are in a lazy `Prepared`
        prepared.evidence[local] = True


@lru_cache(maxsize=8)
def _evidence_columns(names: tuple[str, ...]) -> npt.NDArray[np.intp]:
    """Where the `TYPE_EVIDENCE` features are among a table's `names`."""
    index = {name: n for n, name in enumerate(names)}
    return np.array([index[name] for name in TYPE_EVIDENCE], dtype=np.intp)


# `Field.value` is a descriptor call per access; `group_spans` reads it for every occurrence.
_FIELD_VALUE = {f: f.value for f in Field}


def group_spans(cands: PaperCandidates) -> dict[str, OccurrenceSpans]:
    """(field, start, end) of every occurrence of each group, by key."""
    value = _FIELD_VALUE
    return {key: [(value[f], o.char_start, o.char_end) for f, o in group.occurrences]
            for key, group in cands.groups.items()}


def _key_for(label: str, acronyms: dict[str, str]) -> str:
    short = short_of(label, acronyms)
    if short is not None:
        return norm_key(acronyms[short])
    return norm_key(label)
