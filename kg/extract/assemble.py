"""From the candidates of a paper's fields to its mentions: group, decide, resolve overlaps,
map offsets back to the original text.

Candidates are grouped per paper by canonical key (an acronym joins its long form); which
groups become concepts, of which type and role, is `kg.extract.decisions`. Where accepted
candidates overlap the longest wins, except that an acronym definition fixes its long form's
boundaries and the recogniser's wide spans only fill gaps.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from kg.extract.candidates import FieldCandidates, GazetteerLookup, Occurrence
from kg.extract.decisions import (
    DEFAULT_ROLE,
    CandidateGroup,
    acceptance,
    decide_role,
    decide_type,
    typed_role,
)
from kg.extract.entity_model import EXTRACTOR_MODEL
from kg.extract.textfix import Repaired
from kg.normalize import norm_key
from kg.types import ConceptType, Field, Mention, Role, Span

EXTRACTOR_RULES = "rules"
EXTRACTOR_GAZETTEER = "gazetteer"
_EXTRACTORS = {"gazetteer": EXTRACTOR_GAZETTEER, "model": EXTRACTOR_MODEL}

_KIND_PRIORITY = {"acronym": 0, "name": 1, "title": 1, "gazetteer": 2, "chunk": 3, "model": 4}


@dataclass(frozen=True, slots=True)
class ParsedField:
    """One field of a paper after parsing: its candidates and the repair offset map."""

    field: Field
    repaired: Repaired
    candidates: FieldCandidates


def assemble(
    original: dict[Field, str],
    fields: list[ParsedField],
    gazetteer: GazetteerLookup,
    *,
    model_runs: bool = False,
) -> list[Mention]:
    """The mentions of one paper (see module docstring)."""
    acronyms: dict[str, str] = {}
    for pf in fields:
        for short, long, _, _ in pf.candidates.definitions:
            acronyms.setdefault(short, long)
    long_keys = {norm_key(long): short for short, long in acronyms.items()}
    entries: dict[str, CandidateGroup] = {}
    proposal_sentences: set[tuple[Field, int]] = set()
    title_prefix_key = None
    keyed = [(pf, occ, _key_for(occ.term.label, acronyms))
             for pf in fields for occ in pf.candidates.occurrences]
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
    accepted = {k: e for k, e in entries.items()
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
        role = decide_role(entry, ctype, gazetteer, proposal_sentences, proposed_keys,
                            title_prefix_key)
        decided[key] = (ctype, role)
    return _mentions(original, fields, accepted, decided)


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
    fields: list[ParsedField], accepted: dict[str, CandidateGroup]
) -> dict[str, list[tuple[Field, Occurrence]]]:
    """The occurrences that survive where accepted candidates overlap: the longest span,
    then the more specific kind (acronym, name, gazetteer, chunk)."""
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
        spans.sort(key=lambda s: (s[4].term.kind != "acronym", s[4].term.kind == "model",
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
