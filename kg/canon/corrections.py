"""People's corrections of the graph: a YAML file read by `kg build --corrections FILE`.

YAML because researchers edit it by hand: one entry per decision, comments allowed, no quoting
of ordinary labels. `kg review GRAPH` writes the same format (every entry `action: keep`, with
what the reviewer needs to decide under `seen:`, which is ignored when read back):

    corrections:
    - action: merge          # keep | merge | split | retype | rename | reject | accept
      concept: LLM           # the concept: its key, preferred label or an alternative label
      into: large language model
    - action: split
      concept: ACE
      papers: [2024.naacl-long.12]   # these papers' links move to a new concept ...
      label: ACE (audio)             # ... with this label
    - action: retype
      concept: chain-of-thought
      type: Method           # Model | Method | Task | Dataset | Metric | Concept
    - action: rename
      concept: large language model
      label: Large Language Model    # the IRI stays: it is minted from the key
    - action: reject
      concept: 10X
      note: a speed-up, not a concept  # free text, recorded in the graph
    - action: accept         # the hygiene filter dropped it (`kg review` lists these):
      concept: H100          # keep it as a concept after all

Entries apply in file order, after the corpus-level rules (`accept` before the hygiene filter,
which it overrules), so the result is the same on every rebuild. A concept an entry names that
the graph no longer has is skipped with a warning (the corpus changed); a malformed entry is an
error naming the file, the entry and the fix.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from kg.canon.concepts import Canonical
from kg.errors import InputError
from kg.normalize import norm_key, slug
from kg.types import CanonDecision, ConceptType, Correction, CorrectionAction

logger = logging.getLogger(__name__)

RULE_PREFIX = "correction:"
_FIELDS = {"action", "concept", "into", "label", "type", "papers", "note", "seen"}
_NEEDS = {
    CorrectionAction.MERGE: ("into",),
    CorrectionAction.SPLIT: ("papers", "label"),
    CorrectionAction.RETYPE: ("type",),
    CorrectionAction.RENAME: ("label",),
}


def read_corrections(path: str | Path) -> list[Correction]:
    """The entries of a corrections file, checked (see module docstring)."""
    import yaml  # only a build with corrections reads YAML (~0.1 s of every build's imports)

    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(f"cannot read the corrections file ({exc})", source=str(path)) from exc
    except yaml.YAMLError as exc:
        raise InputError(f"not valid YAML ({exc}); fix the line it names",
                         source=str(path)) from exc
    entries = data.get("corrections") if isinstance(data, dict) else None
    if data is None or entries is None:
        return []
    if not isinstance(entries, list):
        raise InputError("'corrections' must be a list of entries (lines starting with '- ')",
                         source=str(path))
    return [_entry(path, i, entry) for i, entry in enumerate(entries, start=1)]


def _entry(path: Path, number: int, entry: Any) -> Correction:
    def fail(reason: str) -> InputError:
        return InputError(f"entry {number}: {reason}", source=str(path))

    if not isinstance(entry, dict):
        raise fail("an entry must be a mapping with 'action' and 'concept'")
    unknown = sorted(set(entry) - _FIELDS)
    if unknown:
        raise fail(f"unknown field(s) {', '.join(unknown)}; known: {', '.join(sorted(_FIELDS))}")
    try:
        action = CorrectionAction(str(entry.get("action", "")).strip().lower())
    except ValueError:
        choices = " | ".join(a.value for a in CorrectionAction)
        raise fail(f"action {entry.get('action')!r} is not one of {choices}") from None
    concept = _text(entry.get("concept"))
    if not concept:
        raise fail("'concept' is missing: give the concept's key or label")
    for name in _NEEDS.get(action, ()):
        if not entry.get(name):
            raise fail(f"action {action.value} needs '{name}'")
    ctype = None
    if entry.get("type") is not None and action is CorrectionAction.RETYPE:
        try:
            ctype = ConceptType(str(entry["type"]).strip().capitalize())
        except ValueError:
            choices = " | ".join(t.value for t in ConceptType)
            raise fail(f"type {entry['type']!r} is not one of {choices}") from None
    papers = entry.get("papers") or ()
    if isinstance(papers, str | int):
        papers = [papers]
    if action is CorrectionAction.SPLIT and not isinstance(papers, list):
        raise fail("'papers' must be a list of paper ids")
    return Correction(
        action=action,
        concept=concept,
        into=_text(entry.get("into")) or None,
        label=_text(entry.get("label")) or None,
        ctype=ctype,
        papers=tuple(str(p) for p in papers) if action is CorrectionAction.SPLIT else (),
        note=_text(entry.get("note")),
        source=path.name,
        line=number,
    )


def _text(value: Any) -> str:
    return "" if value is None else str(value).strip()


def apply_corrections(
    canonical: Canonical, corrections: list[Correction]
) -> tuple[list[CanonDecision], list[str], list[Correction]]:
    """Apply `corrections` to `canonical` in order; (decisions recorded, warnings, the
    corrections that applied)."""
    decisions: list[CanonDecision] = []
    warnings: list[str] = []
    applied: list[Correction] = []
    labels: dict[str, str] = {}
    types: dict[str, ConceptType] = {}
    for c in corrections:
        if c.action in (CorrectionAction.KEEP, CorrectionAction.ACCEPT):
            continue  # accept applies before the hygiene filter (`kg.canon.corpus`)
        key = _find(canonical, c.concept, labels)
        if key is None:
            warnings.append(f"{c.source}, entry {c.line}: no concept {c.concept!r} in this "
                            f"graph; the {c.action.value} was skipped")
            continue
        rule = RULE_PREFIX + c.action.value
        papers = sum(1 for link in canonical.links if link.concept_key == key)
        target = key
        if c.action is CorrectionAction.MERGE:
            assert c.into is not None
            into = _find(canonical, c.into, labels)
            if into is None:
                warnings.append(f"{c.source}, entry {c.line}: no concept {c.into!r} to merge "
                                f"{c.concept!r} into; skipped")
                continue
            if into != key:
                canonical.rekey({key: into})
                # The concept merged in is gone: a label or type given to it earlier is
                # not the target's (the target keeps its own name and type).
                labels.pop(key, None)
                types.pop(key, None)
            target = into
        elif c.action is CorrectionAction.SPLIT:
            assert c.label is not None
            target = norm_key(c.label)
            moves: dict[tuple[str, str], str | None] = {
                (pid, key): target for pid in c.papers}
            found = {link.paper_id for link in canonical.links if link.concept_key == key}
            missing = sorted(set(c.papers) - found)
            if missing:
                warnings.append(f"{c.source}, entry {c.line}: {', '.join(missing)} do not link "
                                f"to {c.concept!r}; split the others")
            papers = len(set(c.papers) & found)
            canonical.rekey({}, moves)
            labels[target] = c.label
        elif c.action is CorrectionAction.RETYPE:
            assert c.ctype is not None
            types[key] = c.ctype
        elif c.action is CorrectionAction.RENAME:
            assert c.label is not None
            labels[key] = c.label
        elif c.action is CorrectionAction.REJECT:
            canonical.rekey({key: None})
            target = ""
        variants = tuple(sorted({key, target} - {""}))
        note = c.note or f"{c.action.value} by {c.source}, entry {c.line}"
        decisions.append(CanonDecision(target or key, rule, variants, papers, note, c.line))
        applied.append(c)
    _override(canonical, labels, types)
    return decisions, warnings, applied


def _find(canonical: Canonical, ref: str, labels: dict[str, str]) -> str | None:
    """`find_concept`, where a label an earlier entry gave (rename, split) names its concept
    first: the file is applied in order, so "rename X to Y" then "merge Y into Z" works."""
    named = sorted(key for key, label in labels.items()
                   if label == ref and key in canonical.concepts)
    return named[0] if len(named) == 1 else find_concept(canonical, ref)


def find_concept(canonical: Canonical, ref: str) -> str | None:
    """The key of the concept `ref` names: a key, the one concept with exactly this preferred
    label, its key form, an IRI's last segment (`kg review` writes one where two concepts
    share a label), else the one concept whose preferred (then alternative) label it is,
    ignoring case."""
    concepts = canonical.concepts
    if ref in concepts:
        return ref
    exact = sorted(key for key, c in concepts.items() if c.pref_label == ref)
    if len(exact) == 1:
        return exact[0]
    if norm_key(ref) in concepts:
        return norm_key(ref)
    by_slug = [key for key in concepts if slug(key) == ref or (slug(key) == ref.rsplit("-", 1)[0]
               and len(ref.rsplit("-", 1)[-1]) == 8)]
    if len(by_slug) == 1:
        return by_slug[0]
    folded = ref.casefold()
    for attribute in ("pref_label", "alt_labels"):
        found = sorted(
            key for key, c in concepts.items()
            if folded in {label.casefold() for label in _labels(c, attribute)}
        )
        if len(found) == 1:
            return found[0]
    return None


def _labels(concept: Any, attribute: str) -> tuple[str, ...]:
    value = getattr(concept, attribute)
    return (value,) if isinstance(value, str) else tuple(value)


def _override(
    canonical: Canonical, labels: Mapping[str, str], types: Mapping[str, ConceptType]
) -> None:
    """Preferred labels and types people chose (the old label becomes an alternative)."""
    for key, concept in list(canonical.concepts.items()):
        label, ctype = labels.get(key), types.get(key)
        if label is not None and label != concept.pref_label:
            alts = tuple(sorted((set(concept.alt_labels) | {concept.pref_label}) - {label}))
            concept = replace(concept, pref_label=label, alt_labels=alts)
        if ctype is not None:
            concept = replace(concept, ctype=ctype)
        canonical.concepts[key] = concept
