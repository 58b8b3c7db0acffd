"""From a paper's decided candidate groups to its mentions: the learned decisions applied
(`assemble_decided`), overlaps resolved, offsets mapped back to the original text.

Everything here runs after the features, on the decisions: a cached paper's `Prepared`
entry does not depend on it (`kg.extract.cache.DECISION_ONLY`), so an edit here re-runs the
decisions from cached features without re-making candidates and features.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from kg.extract.acronyms import short_of
from kg.extract.decisions import (
    DEFAULT_ROLE,
    CandidateGroup,
    DecisionThresholds,
    pattern_role,
    typed_role,
)
from kg.extract.entity_model import EXTRACTOR_MODEL
from kg.extract.learned import Decision
from kg.normalize import norm_key
from kg.types import ConceptType, Field, Mention, Role, Span

if TYPE_CHECKING:
    from kg.extract.assemble import PaperCandidates, ParsedField
    from kg.extract.candidates import Occurrence

EXTRACTOR_RULES = "rules"
EXTRACTOR_GAZETTEER = "gazetteer"
_EXTRACTORS = {"gazetteer": EXTRACTOR_GAZETTEER, "model": EXTRACTOR_MODEL}
_KIND_PRIORITY = {"acronym": 0, "name": 1, "title": 1, "gazetteer": 2, "chunk": 3, "span": 4,
                  "model": 5}
_FIELD_ORDER = {f: i for i, f in enumerate(Field)}


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
    survivors = resolve_overlaps(fields, accepted, scores)
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
    return paper_mentions(original, fields, accepted, decided)


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


def resolve_overlaps(
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
        occurrences.sort(key=lambda fo: (_FIELD_ORDER[fo[0]], fo[1].char_start))
    return survivors


def paper_mentions(
    original: dict[Field, str],
    fields: list[ParsedField],
    accepted: dict[str, CandidateGroup],
    decided: dict[str, tuple[ConceptType, Role]],
) -> list[Mention]:
    """The mentions of the `accepted` groups' occurrences, field by field in text order,
    with offsets in the `original` texts, each group's (type, role) as `decided`."""
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
            is_short = short_of(occ.term.label, {entry.short_form: ""} if entry.short_form
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
    # (Each mention's key once, not once per decided key: a paper of a few hundred mentions
    # made that loop quadratic.)
    by_key: dict[str, list[int]] = {}
    for i, m in enumerate(mentions):
        by_key.setdefault(_mention_key(m), []).append(i)
    for key, (_, paper_role) in decided.items():
        own = by_key.get(key, [])
        if own and not any(mentions[i].role is paper_role for i in own):
            mentions[own[0]] = replace(mentions[own[0]], role=paper_role)
    return mentions


def _mention_key(mention: Mention) -> str:
    return norm_key(mention.long_form or mention.label)
