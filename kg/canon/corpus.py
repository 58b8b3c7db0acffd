"""The corpus-level stage in order: merge, clean, settle roles, apply people's corrections.

`kg.build.build_corpus` calls `canonical_corpus`; each step is a module of its own:
`concepts` (keys, spelling variants, acronym senses: `senses`, `variants`; a Model named
with and without its head noun is one node, `variants.elided_heads`, and a network with and
without "neural", `variants.elided_neural`), `hygiene` (nodes
that are not concepts: each one dropped is kept as a `Rejection`, written to the graph, unless a
correction `accept`s it), `names` (a coined name different works introduce is one node per
work), `origin` (`proposes` means origin), `corrections` (the YAML file).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from kg.canon.concepts import Canonical, canonicalise_corpus
from kg.canon.corrections import RULE_PREFIX, apply_corrections, find_concept
from kg.canon.hygiene import reject
from kg.canon.names import name_senses, stated_types
from kg.canon.origin import origin_roles
from kg.canon.senses import short_sense_key
from kg.canon.variants import HEAD_RULE, WORD_RULE, elided_heads, elided_neural
from kg.ingest.shelf import papers_by_id
from kg.normalize import keys_kept
from kg.types import (
    CanonDecision,
    Correction,
    CorrectionAction,
    Extraction,
    Link,
    Paper,
    Rejection,
)


@dataclass(slots=True)
class CorpusCanon:
    """What the corpus-level stage decided (see `canonical_corpus`)."""

    canonical: Canonical
    decisions: list[CanonDecision] = field(default_factory=list)
    rejections: list[Rejection] = field(default_factory=list)  # what hygiene dropped
    warnings: list[str] = field(default_factory=list)
    applied: list[Correction] = field(default_factory=list)  # corrections that applied


def canonical_corpus(
    papers: Sequence[Paper],
    extractions: Mapping[str, Extraction],
    corrections: Sequence[Correction] = (),
    *,
    release: bool = False,
) -> CorpusCanon:
    """One node per concept, hygiene, origin roles, then `corrections` in order. `release`:
    `extractions` is the caller's dict, slimmed as the links are made
    (`kg.canon.concepts.canonicalise_corpus`)."""
    with keys_kept():  # every mention is keyed pass after pass (`kg.normalize.keys_kept`)
        return _canonical_corpus(papers, extractions, corrections, release)


def _canonical_corpus(
    papers: Sequence[Paper],
    extractions: Mapping[str, Extraction],
    corrections: Sequence[Correction],
    release: bool,
) -> CorpusCanon:
    canonical = canonicalise_corpus(papers, extractions, release=release)
    by_id = papers_by_id(papers)  # a shelf's papers are read as each rule reaches them
    counts = Counter(link.concept_key for link in canonical.links)
    shortened = elided_heads(canonical.concepts, counts)
    if shortened:
        canonical.decisions += [
            CanonDecision(full, HEAD_RULE, (canonical.concepts[key].pref_label,), counts[key],
                          "the same model named with and without its head noun")
            for key, full in sorted(shortened.items())]
        canonical.rekey(dict(shortened))
    counts = Counter(link.concept_key for link in canonical.links)
    unnamed = elided_neural(canonical.concepts, counts, _abbreviations(canonical.links))
    if unnamed:
        canonical.decisions += [
            CanonDecision(full, WORD_RULE, (canonical.concepts[key].pref_label,), counts[key],
                          'the same network named with and without "neural" (or "net"); '
                          "no short form of its own is a convention of its papers")
            for key, full in sorted(unnamed.items())]
        canonical.rekey(dict(unnamed))
    rejected = reject(canonical.concepts, canonical.links, by_id)
    accepted, warnings, applied = _accept(canonical, rejected, corrections)
    rejections = _rejections(canonical, rejected)
    if rejected:
        canonical.rekey(dict.fromkeys(rejected))
    named = name_senses(canonical, by_id)
    named += stated_types(canonical, by_id)
    decisions = [d for d in canonical.decisions if d.concept_key in canonical.concepts] + named
    canonical.links, origin = origin_roles(canonical.links, canonical.concepts, by_id)
    decisions += origin
    corrected, more_warnings, more_applied = apply_corrections(canonical, list(corrections))
    decisions = _settle(decisions, canonical) + [
        d for d in accepted + corrected if d.concept_key in canonical.concepts]
    canonical.decisions = decisions
    applied = sorted(applied + more_applied, key=lambda c: c.line)
    return CorpusCanon(canonical, decisions, rejections, warnings + more_warnings, applied)


def _abbreviations(links: Sequence[Link]) -> dict[str, Counter[str]]:
    """Key -> how many papers abbreviate it by each short form (`senses.short_sense_key`)."""
    out: dict[str, Counter[str]] = defaultdict(Counter)
    for link in links:
        shorts = {short_sense_key(m.label) for m in link.mentions if m.long_form}
        if shorts:  # most links abbreviate nothing: a key without an entry reads as empty
            out[link.concept_key].update(shorts)
    return out


def _accept(
    canonical: Canonical, rejected: dict[str, str], corrections: Sequence[Correction]
) -> tuple[list[CanonDecision], list[str], list[Correction]]:
    """Take out of `rejected` the concepts people `accept` (decisions, warnings, the
    corrections that applied)."""
    decisions: list[CanonDecision] = []
    warnings: list[str] = []
    applied: list[Correction] = []
    for c in corrections:
        if c.action is not CorrectionAction.ACCEPT:
            continue
        key = find_concept(canonical, c.concept)
        rule = rejected.pop(key, None) if key is not None else None
        if key is None or rule is None:
            warnings.append(f"{c.source}, entry {c.line}: the hygiene filter dropped no concept "
                            f"{c.concept!r} in this graph; the accept was skipped")
            continue
        papers = sum(1 for link in canonical.links if link.concept_key == key)
        note = c.note or f"accept by {c.source}, entry {c.line}: the {rule} rule overruled"
        decisions.append(CanonDecision(key, RULE_PREFIX + c.action.value, (key,), papers,
                                       note, c.line))
        applied.append(c)
    return decisions, warnings, applied


def _rejections(canonical: Canonical, rejected: Mapping[str, str]) -> list[Rejection]:
    """What the hygiene filter dropped, by key: rule, labels and the papers that linked it."""
    papers: dict[str, set[str]] = {key: set() for key in rejected}
    for link in canonical.links:
        if link.concept_key in papers:
            papers[link.concept_key].add(link.paper_id)
    out = []
    for key in sorted(rejected):
        concept = canonical.concepts[key]
        labels = (concept.pref_label, *sorted(set(concept.alt_labels) - {concept.pref_label}))
        out.append(Rejection(key, rejected[key], labels, tuple(sorted(papers[key]))))
    return out


def _settle(decisions: list[CanonDecision], canonical: Canonical) -> list[CanonDecision]:
    """Rule decisions on the concepts they ended up on (people may have merged or dropped
    them): one per (concept, rule), variants joined, papers added up."""
    merged: dict[tuple[str, str], CanonDecision] = {}
    for decision in decisions:
        key: str | None = decision.concept_key
        seen: set[str] = set()
        while key is not None and key in canonical.moves and key not in seen:
            seen.add(key)
            key = canonical.moves[key]
        if key is None or key not in canonical.concepts:
            continue
        old = merged.get((key, decision.rule))
        if old is None:
            merged[key, decision.rule] = replace(decision, concept_key=key)
        else:
            merged[key, decision.rule] = replace(
                old, variants=tuple(sorted(set(old.variants) | set(decision.variants))),
                papers=old.papers + decision.papers)
    return [merged[k] for k in sorted(merged)]
