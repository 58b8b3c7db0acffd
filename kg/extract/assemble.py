"""From the candidates of a paper's fields to its mentions: group, decide, resolve overlaps,
map offsets back to the original text.

Candidates are grouped per paper by canonical key (an acronym joins its long form); which
groups become concepts, of which type and role, is `kg.extract.decisions`. Where accepted
candidates overlap the longest wins, except that an acronym definition fixes its long form's
boundaries and the recogniser's wide spans only fill gaps.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from kg.extract.background import phrase_count
from kg.extract.candidates import FieldCandidates, GazetteerLookup, Occurrence
from kg.extract.contribution import PaperText
from kg.extract.decisions import (
    DEFAULT_ROLE,
    DEFAULT_THRESHOLDS,
    CandidateGroup,
    DecisionThresholds,
    acceptance,
    decide_role,
    decide_type,
    pattern_role,
    typed_role,
)
from kg.extract.entity_model import EXTRACTOR_MODEL
from kg.extract.features import group_features
from kg.extract.learned import (
    Decision,
    DecisionModel,
    FeatureTable,
    OccurrenceSpans,
    with_stack_features,
)
from kg.extract.overlaps import overlap_features
from kg.extract.textfix import Repaired
from kg.normalize import norm_key
from kg.types import ConceptType, Field, Mention, Role, Span
from kg.vocab.gazetteer import Entry

EXTRACTOR_RULES = "rules"
EXTRACTOR_GAZETTEER = "gazetteer"
_EXTRACTORS = {"gazetteer": EXTRACTOR_GAZETTEER, "model": EXTRACTOR_MODEL}

_KNOWN_KINDS = frozenset({"acronym", "name", "title", "gazetteer"})
_KIND_PRIORITY = {"acronym": 0, "name": 1, "title": 1, "gazetteer": 2, "chunk": 3, "span": 4,
                  "model": 5}


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
        defined = _short_of(occ.term.label, acronyms)
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
    survivors = _resolve_overlaps(fields, accepted)
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
    return _mentions(original, fields, accepted, decided)


def paper_features(
    cands: PaperCandidates,
    fields: list[ParsedField],
    gazetteer: GazetteerLookup,
    *,
    model_runs: bool,
) -> dict[str, dict[str, float]]:
    """The features of every candidate group of a paper (`kg.extract.features`), by key."""
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
                            reason=reasons[key], paper=paper)
        for key, entry in cands.groups.items()
    }
    for key, extra in overlap_features(cands.groups, phrase_count).items():
        features[key].update(extra)
    return features


def assemble_decided(
    original: dict[Field, str],
    fields: list[ParsedField],
    cands: PaperCandidates,
    decisions: dict[str, Decision],
    thresholds: DecisionThresholds,
    proposes_cut: float,
) -> list[Mention]:
    """The mentions of one paper, decided by the learned models (`kg.extract.learned`):
    groups the accept model takes, where they overlap the more probable by a step of
    `thresholds.overlap_step` (else the longer) span, a proposal `thresholds.overlap_proposal`
    higher, typed by the type model, `proposes`
    when the proposes model's probability reaches `proposes_cut`, else the strongest role
    of its phrases."""
    cut = 0.5 if thresholds.accept is None else thresholds.accept
    accepted = {k: e for k, e in cands.groups.items() if decisions[k].accept >= cut}
    scores = {k: overlap_level(decisions[k].accept, thresholds.overlap_step,
                               named="name" in e.kinds)
              + (thresholds.overlap_proposal if decisions[k].proposes >= proposes_cut else 0.0)
              for k, e in accepted.items()}
    survivors = _resolve_overlaps(fields, accepted, scores)
    decided: dict[str, tuple[ConceptType, Role]] = {}
    for key, entry in list(accepted.items()):
        entry.occurrences = survivors.get(key, [])
        if not entry.occurrences:
            del accepted[key]
            continue
        decision = decisions[key]
        role = (Role.PROPOSES if decision.proposes >= proposes_cut
                else pattern_role(entry.roles, decision.ctype))
        decided[key] = (decision.ctype, role)
    best = paper_best(decisions, list(decided), thresholds, proposes_cut)
    if best is not None:
        decided[best] = (decided[best][0], Role.PROPOSES)
    return _mentions(original, fields, accepted, decided)


def overlap_level(accept: float, step: float, *, named: bool = False) -> float:
    """The level at which an accepted candidate's probability competes where spans overlap:
    probabilities within one `step` tie (and the longer span wins); a name (`named`: a
    group the name patterns found) half a step higher, so that it keeps its boundaries
    against a phrase of the same level around it ("Llama 3.0" in "a Llama 3.0-based model");
    step 0 keeps the probabilities as they are."""
    if step <= 0:
        return accept
    return round(accept / step) * step + (step / 2 if named else 0.0)


def paper_best(decisions: dict[str, Decision], accepted: Sequence[str],
               thresholds: DecisionThresholds, proposes_cut: float) -> str | None:
    """The accepted key a paper proposes although no accepted key reaches `proposes_cut`:
    its most probable proposal, when that reaches `thresholds.paper_best` (None: none)."""
    if thresholds.paper_best is None or not accepted or any(
            decisions[k].proposes >= proposes_cut for k in accepted):
        return None
    best = max(accepted, key=lambda k: (decisions[k].proposes, k))
    return best if decisions[best].proposes >= thresholds.paper_best else None


@dataclass(slots=True)
class Prepared:
    """One paper just before the learned decisions: its candidate groups and every group's
    features (`paper_features`, a row per group in the order of `cands.groups`). What a
    change of the decision models or their thresholds starts from (the parse cache keeps it:
    `kg.extract.cache`)."""

    cands: PaperCandidates
    features: FeatureTable


def prepare_paper(fields: list[ParsedField], gazetteer: GazetteerLookup, *,
                  model_runs: bool) -> Prepared:
    """The candidate groups of a paper's parsed fields and their features."""
    cands = group_candidates(fields)
    features = paper_features(cands, fields, gazetteer, model_runs=model_runs)
    return Prepared(cands, FeatureTable.of(features[key] for key in cands.groups))


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
    return decide_prepared(
        [(original, fields, prepare_paper(fields, gazetteer, model_runs=model_runs))
         for original, fields in papers], model, thresholds)


def decide_prepared(
    papers: Sequence[tuple[dict[Field, str], list[ParsedField], Prepared]],
    model: DecisionModel,
    thresholds: DecisionThresholds = DEFAULT_THRESHOLDS,
) -> list[list[Mention]]:
    """The mentions of each prepared paper (original texts, parsed fields, `Prepared`) by
    the learned `model`: one batch of predictions for all papers. Consumes the `Prepared`
    values (their groups lose overlapped occurrences)."""
    flat = [(i, key) for i, (_, _, prepared) in enumerate(papers) for key in prepared.cands.groups]
    table = with_stack_features(model, FeatureTable.concat([p.features for _, _, p in papers]),
                                flat, [group_spans(p.cands) for _, _, p in papers])
    accept = model.accept_cut if thresholds.accept is None else thresholds.accept
    thresholds = replace(thresholds, accept=accept)
    decided = model.decide(table, threshold=accept)
    by_paper: list[dict[str, Decision]] = [{} for _ in papers]
    for (i, key), decision in zip(flat, decided, strict=True):
        by_paper[i][key] = decision
    cut = thresholds.proposes if thresholds.proposes is not None else model.proposes_cut
    return [assemble_decided(original, fields, prepared.cands, d, thresholds, cut)
            for (original, fields, prepared), d in zip(papers, by_paper, strict=True)]


def group_spans(cands: PaperCandidates) -> dict[str, OccurrenceSpans]:
    """(field, start, end) of every occurrence of each group, by key."""
    return {key: [(f.value, o.char_start, o.char_end) for f, o in group.occurrences]
            for key, group in cands.groups.items()}


def _short_of(label: str, acronyms: dict[str, str]) -> str | None:
    if label in acronyms:
        return label
    if label.endswith("s") and label[:-1] in acronyms:
        return label[:-1]
    return None


def _key_for(label: str, acronyms: dict[str, str]) -> str:
    short = _short_of(label, acronyms)
    if short is not None:
        return norm_key(acronyms[short])
    return norm_key(label)


def _resolve_overlaps(
    fields: list[ParsedField],
    accepted: dict[str, CandidateGroup],
    scores: dict[str, float] | None = None,
) -> dict[str, list[tuple[Field, Occurrence]]]:
    """The occurrences that survive where accepted candidates overlap: the longest span,
    then the more specific kind (acronym, name, gazetteer, chunk); with `scores` (the
    learned acceptance, in `overlap_level`s), the more probable group first, then the
    longest."""
    survivors: dict[str, list[tuple[Field, Occurrence]]] = {}
    for pf in fields:
        spans: list[tuple[int, int, int, str, Occurrence]] = []
        for key, entry in accepted.items():
            for f, occ in entry.occurrences:
                if f is pf.field:
                    spans.append((occ.char_start, occ.char_end,
                                  _KIND_PRIORITY[occ.term.kind], key, occ))
        # An acronym definition fixes its long form's boundaries; the model's spans are wide
        # (SciERC annotates whole phrases) and only fill gaps; otherwise the longest wins.
        if scores is None:
            spans.sort(key=lambda s: (s[4].term.kind != "acronym", s[4].term.kind == "model",
                                      -(s[1] - s[0]), s[2], s[0]))
        else:
            spans.sort(key=lambda s: (s[4].term.kind != "acronym", -round(scores[s[3]], 6),
                                      -(s[1] - s[0]), s[2], s[0]))
        taken: list[tuple[int, int]] = []
        for start, end, _, key, occ in spans:
            if any(start < e and s < end for s, e in taken):
                continue
            taken.append((start, end))
            survivors.setdefault(key, []).append((pf.field, occ))
    for occurrences in survivors.values():
        occurrences.sort(key=lambda fo: (list(Field).index(fo[0]), fo[1].char_start))
    return survivors


def _mentions(
    original: dict[Field, str],
    fields: list[ParsedField],
    accepted: dict[str, CandidateGroup],
    decided: dict[str, tuple[ConceptType, Role]],
) -> list[Mention]:
    mentions: list[Mention] = []
    for pf in fields:
        text = original[pf.field]
        chosen = [
            (occ.char_start, occ.char_end, key, occ)
            for key, entry in accepted.items()
            for f, occ in entry.occurrences
            if f is pf.field
        ]
        for start, end, key, occ in sorted(chosen, key=lambda c: (c[0], c[1])):
            entry = accepted[key]
            ctype, paper_role = decided[key]
            o_start, o_end = pf.repaired.to_original(start, end)
            s_start, s_end = pf.repaired.to_original(occ.sent_start, occ.sent_end)
            role = typed_role(occ.role, ctype) if occ.role is not None else DEFAULT_ROLE[ctype]
            if role.rank < paper_role.rank:
                role = paper_role  # a pattern the paper-level decision overruled
            is_short = _short_of(occ.term.label, {entry.short_form: ""} if entry.short_form
                                 else {}) is not None
            mentions.append(
                Mention(
                    text=text[o_start:o_end],
                    label=occ.term.label,
                    span=Span(pf.field, o_start, o_end),
                    sentence=Span(pf.field, s_start, s_end),
                    ctype=ctype,
                    role=role,
                    extractor=_EXTRACTORS.get(occ.term.kind, EXTRACTOR_RULES),
                    long_form=entry.long_form if is_short else None,
                    short_form=entry.short_form if not is_short and entry.short_form else None,
                )
            )
    # The link's role is the strongest of its mentions: make sure one mention carries it.
    for key, (_, paper_role) in decided.items():
        own = [i for i, m in enumerate(mentions) if _mention_key(m) == key]
        if own and not any(mentions[i].role is paper_role for i in own):
            mentions[own[0]] = replace(mentions[own[0]], role=paper_role)
    return mentions


def _mention_key(mention: Mention) -> str:
    return norm_key(mention.long_form or mention.label)
