"""The corpus-level stage in order: merge, clean, settle roles, apply people's corrections.

`kg.build.build_corpus` calls `canonical_corpus`; each step is a module of its own:
`concepts` (keys, spelling variants, acronym senses: `senses`, `variants`; a Model named
without its head noun joins the full name, `variants.elided_heads`), `hygiene` (nodes
that are not concepts), `origin` (`proposes` means origin), `corrections` (the YAML file).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from kg.canon.concepts import Canonical, canonicalise_corpus
from kg.canon.corrections import apply_corrections
from kg.canon.hygiene import reject
from kg.canon.origin import origin_roles
from kg.canon.variants import HEAD_RULE, elided_heads
from kg.types import CanonDecision, Correction, Extraction, Paper


@dataclass(slots=True)
class CorpusCanon:
    """What the corpus-level stage decided (see `canonical_corpus`)."""

    canonical: Canonical
    decisions: list[CanonDecision] = field(default_factory=list)
    rejected: dict[str, str] = field(default_factory=dict)  # key -> hygiene rule
    warnings: list[str] = field(default_factory=list)
    applied: list[Correction] = field(default_factory=list)  # corrections that applied


def canonical_corpus(
    papers: Sequence[Paper],
    extractions: Mapping[str, Extraction],
    corrections: Sequence[Correction] = (),
) -> CorpusCanon:
    """One node per concept, hygiene, origin roles, then `corrections` in order."""
    canonical = canonicalise_corpus(papers, extractions)
    by_id = {p.id: p for p in papers}
    counts = Counter(link.concept_key for link in canonical.links)
    shortened = elided_heads(canonical.concepts, counts)
    if shortened:
        canonical.decisions += [
            CanonDecision(full, HEAD_RULE, (canonical.concepts[key].pref_label,), counts[key],
                          "the same model named without its head noun")
            for key, full in sorted(shortened.items())]
        canonical.rekey(dict(shortened))
    rejected = reject(canonical.concepts, canonical.links, by_id)
    if rejected:
        canonical.rekey(dict.fromkeys(rejected))
    decisions = [d for d in canonical.decisions if d.concept_key in canonical.concepts]
    canonical.links, origin = origin_roles(canonical.links, canonical.concepts, by_id)
    decisions += origin
    corrected, warnings, applied = apply_corrections(canonical, list(corrections))
    decisions = _settle(decisions, canonical) + [
        d for d in corrected if d.concept_key in canonical.concepts]
    canonical.decisions = decisions
    return CorpusCanon(canonical, decisions, rejected, warnings, applied)


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
