"""`kg review GRAPH`: the concepts a person should look at, as an editable corrections file.

Four kinds of candidates, read from a built graph (any source `kg.query.open_source` opens):
- **ambiguous short forms**: an acronym on more than one concept, or a short form kept apart
  because its papers do not say which sense they mean (`acronym-apart` decisions); the
  `AMBIGUOUS_LIMIT` most linked;
- **type disagreements**: concepts whose papers vote for more than one type (`kg:typeVote`);
  the `TYPES_LIMIT` most linked;
- **most proposed**: the concepts the most papers `kg:proposes` (origin claims to check);
- **single-paper junk suspects**: concepts of one paper whose label is shaped like a fragment,
  a code or a capitalised word (a digit, at most four characters, or one Title-case word);
- **dropped by the hygiene filter**: nodes the build did not keep as concepts (`kg:Rejection`:
  quantities, products, fragments, common words), the most linked first; change `keep` to
  `accept` to keep one as a concept (all of them: the `rejected-concepts` query).

Each candidate is an entry `action: keep` with what was seen under `seen:` (ignored when the
file is read back); change `action` (and add `into`, `label`, `type` or `papers`) and pass the
file to `kg build --corrections`. The file lists candidates in a fixed order, so reviewing the
same graph twice gives the same file.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from kg.query.sources import Source

AMBIGUOUS = "ambiguous short form"
TYPES = "papers disagree on its type"
PROPOSED = "proposed by many papers"
JUNK = "single-paper junk suspect"
REJECTED = "dropped by the hygiene filter"

MOST_PROPOSED = 30
JUNK_LIMIT = 100
REJECTED_LIMIT = 200
# A person reads a few hundred entries, not the 17,000 a 35k-paper graph has (9,700 type
# disagreements, 7,400 ambiguous short forms): the most linked concepts of those two sections.
AMBIGUOUS_LIMIT = 300
TYPES_LIMIT = 300

_PREFIXES = """
PREFIX kg: <https://w3id.org/paperkg/ontology#>
PREFIX skos: <http://www.w3.org/2004/02/skos/core#>
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
"""
_CONCEPTS = _PREFIXES + """
SELECT ?c ?label ?type ?n WHERE {
  ?c a skos:Concept ; skos:prefLabel ?label ; kg:paperCount ?n ; a ?type .
  FILTER(?type != skos:Concept)
}"""
_ACRONYMS = _PREFIXES + "SELECT ?c ?a WHERE { ?c kg:acronym ?a }"
_APART = _PREFIXES + """
SELECT ?c ?note WHERE { ?d kg:decidedConcept ?c ; kg:rule "acronym-apart" ; rdfs:comment ?note }"""
_VOTES = _PREFIXES + "SELECT ?c ?v WHERE { ?c kg:typeVote ?v }"
_PROPOSED = _PREFIXES + """
SELECT ?c (COUNT(DISTINCT ?p) AS ?n) WHERE { ?p kg:proposes ?c } GROUP BY ?c"""
_REJECTED = _PREFIXES + """
SELECT ?r ?label ?rule ?why (COUNT(DISTINCT ?p) AS ?n) WHERE {
  ?r a kg:Rejection ; rdfs:label ?label ; kg:hygieneRule ?rule ; kg:rejectedIn ?p .
  OPTIONAL { ?r rdfs:comment ?why }
} GROUP BY ?r ?label ?rule ?why"""
_SUSPECT = re.compile(r"\d|^.{1,4}$|^[A-Z][a-z]+(-[A-Z][a-z]+)*$")

HEADER = """\
# paperkg corrections — written by `kg review`; edit, then `kg build ... --corrections FILE`.
#
# Each entry names a concept (its preferred label, or its IRI's last segment when two
# concepts share a label). Change `action` from keep to one of:
#   merge   into: <concept>          the concept joins another
#   split   papers: [ids], label: X  these papers' links move to a new concept X
#   retype  type: Model|Method|Task|Dataset|Metric|Concept
#   rename  label: X                 new preferred label (the IRI stays)
#   reject                           not a concept: drop it and its links
#   accept                           (a node the hygiene filter dropped) a concept after all
# `note:` is free text recorded in the graph; `seen:` is what the reviewer saw (ignored).
"""


@dataclass(slots=True)
class Candidate:
    """One concept to look at, with why and what was seen."""

    iri: str
    label: str
    ctype: str
    papers: int
    why: list[str] = field(default_factory=list)
    details: list[str] = field(default_factory=list)


def review_candidates(source: Source) -> list[Candidate]:
    """Every candidate of the graph, in section order, each concept once."""
    concepts: dict[str, Candidate] = {}
    for row in source.select(_CONCEPTS):
        iri = row["c"].value
        if iri not in concepts:
            concepts[iri] = Candidate(iri, row["label"].value, _local(row["type"].value),
                                      int(row["n"].value))
    chosen: dict[str, Candidate] = {}

    def pick(iri: str, why: str, detail: str) -> None:
        found = concepts.get(iri)
        if found is None:
            return
        entry = chosen.setdefault(iri, found)
        if why not in entry.why:
            entry.why.append(why)
        if detail:
            entry.details.append(detail)

    def most_linked(iris: Iterable[str], limit: int) -> set[str]:
        known = sorted((i for i in set(iris) if i in concepts),
                       key=lambda i: (-concepts[i].papers, i))
        return set(known[:limit])

    by_acronym: dict[str, set[str]] = defaultdict(set)
    for row in source.select(_ACRONYMS):
        by_acronym[row["a"].value].add(row["c"].value)
    apart = sorted((row["c"].value, row["note"].value) for row in source.select(_APART))
    shared = [iri for iris in by_acronym.values() if len(iris) > 1 for iri in iris]
    ambiguous = most_linked(shared + [iri for iri, _ in apart], AMBIGUOUS_LIMIT)
    for acronym in sorted(by_acronym):
        iris = sorted(by_acronym[acronym], key=lambda i: (-concepts[i].papers, i)
                      if i in concepts else (0, i))
        if len(iris) > 1:
            for iri in iris:
                if iri in ambiguous:
                    others = [concepts[o].label for o in iris if o != iri and o in concepts]
                    pick(iri, AMBIGUOUS, f"{acronym} also names: {'; '.join(others)}")
    for iri, note in apart:
        if iri in ambiguous:
            pick(iri, AMBIGUOUS, note)
    votes: dict[str, list[str]] = defaultdict(list)
    for row in source.select(_VOTES):
        votes[row["c"].value].append(row["v"].value)
    disputed = most_linked(votes, TYPES_LIMIT)
    for iri in sorted(disputed):
        pick(iri, TYPES, "type votes: " + ", ".join(sorted(votes[iri])))
    proposed = sorted(((int(r["n"].value), r["c"].value) for r in source.select(_PROPOSED)),
                      key=lambda ni: (-ni[0], ni[1]))
    for n, iri in proposed[:MOST_PROPOSED]:
        if n > 1:
            pick(iri, PROPOSED, f"proposed by {n} papers")
    suspects = sorted((c for c in concepts.values()
                       if c.papers == 1 and _SUSPECT.search(c.label) and c.iri not in chosen),
                      key=lambda c: (c.label.casefold(), c.iri))
    for candidate in suspects[:JUNK_LIMIT]:
        pick(candidate.iri, JUNK, "")
    order = {AMBIGUOUS: 0, TYPES: 1, PROPOSED: 2, JUNK: 3}
    ranked = sorted(chosen.values(), key=lambda c: (order[c.why[0]], -c.papers,
                                                     c.label.casefold(), c.iri))
    return ranked + rejected_candidates(source)[:REJECTED_LIMIT]


def rejected_candidates(source: Source) -> list[Candidate]:
    """The nodes the hygiene filter dropped, most linked first (`kg:Rejection`)."""
    found = []
    for row in source.select(_REJECTED):
        why = row.get("why")
        detail = f"rule: {row['rule'].value}" + (f" ({why.value})" if why is not None else "")
        found.append(Candidate(row["r"].value, row["label"].value, "none (dropped)",
                               int(row["n"].value), [REJECTED], [detail]))
    return sorted(found, key=lambda c: (-c.papers, c.label.casefold(), c.iri))


def corrections_yaml(candidates: list[Candidate]) -> str:
    """The candidates as a corrections file (see `kg.canon.corrections`)."""
    pref_count: dict[str, int] = defaultdict(int)
    for c in candidates:
        pref_count[c.label] += 1
    entries: list[dict[str, Any]] = []
    for c in candidates:
        name = c.label if pref_count[c.label] == 1 else c.iri.rsplit("/", 1)[-1]
        seen: dict[str, Any] = {"why": "; ".join(c.why), "label": c.label, "type": c.ctype,
                                "papers": c.papers, "iri": c.iri}
        if c.details:
            seen["details"] = c.details
        entries.append({"action": "keep", "concept": name, "seen": seen})
    body = yaml.safe_dump({"corrections": entries}, sort_keys=False, allow_unicode=True,
                          width=100, default_flow_style=False)
    return HEADER + "\n" + body


def write_review(source: Source, path: str | Path) -> int:
    """Write the review file of the graph `source` to `path`; returns how many candidates."""
    candidates = review_candidates(source)
    Path(path).write_text(corrections_yaml(candidates), encoding="utf-8")
    return len(candidates)


def _local(iri: str) -> str:
    return re.split(r"[#/]", iri)[-1]
