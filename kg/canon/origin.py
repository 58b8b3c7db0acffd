"""`proposes` at corpus level means origin: the paper(s) that introduce a concept.

A paper's "we propose X" can mean "we introduce X" or "we propose to use X". One paper alone
cannot tell; the corpus can: a concept that more than `MAX_ORIGINS` papers link to is used by
most of them — at most `MAX_ORIGINS` can have introduced it — so only the papers whose text
*introduces* it keep `proposes`; the others use it (their link becomes `uses`; the mention's
own role stays in its evidence). "chain-of-thought" in 22 papers, "proposed" by one that
designs "a three-step CoT template", is used there.

A paper introduces a concept when (rule names as recorded in the graph):
- `title-name`: its title starts with one of the concept's names and a colon ("CRAFT: ...");
- `naming-cue`: a sentence names it: "called/named/dubbed/termed X", or "X, a novel/new ...";
- `novel-instance`: a sentence offers a new one of it: "two novel loss functions", "a novel 3D
  representation", "a unified 3D representation space" (the paper's own loss, representation).

`MAX_ORIGINS` = 2 comes from the data, not from examples: over all 35k paperlists papers
(`scripts/origin_threshold.py`), 98.1% of the names papers put before a colon in their title
are introduced by one paper and 99.7% by at most two (a re-used name, or a paper and its
extended version); more than two papers introducing one name is the 0.3% tail.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import replace

from kg.types import CanonDecision, Concept, Field, Link, Paper, Role

MAX_ORIGINS = 2
RULE = "origin"
TITLE_NAME = "title-name"
NAMING_CUE = "naming-cue"
NOVEL_INSTANCE = "novel-instance"

_BEFORE = re.compile(r"\b(called|named|dubbed|termed|coined|namely)\s*[\"'“‘]?\s*$", re.I)
_NOVEL = re.compile(r"\b(novel|new|unified)\s+(?:[\w-]+\s+){0,2}$", re.I)
_AFTER = re.compile(
    r"^\s*(\([^()]{1,20}\)\s*)?[,:]?\s*(which is |that is )?(a|an)\s+(\w+[\s-]+){0,2}?"
    r"(novel|new|first)\b", re.I)


def introduction(paper: Paper, link: Link, concept: Concept) -> str | None:
    """The rule by which `paper` introduces the linked concept, or None."""
    title = (paper.title or "").strip()
    head, colon, _ = title.partition(":")
    if colon and head:
        names = {concept.pref_label, *concept.alt_labels, *concept.acronyms}
        names |= {m.text for m in link.mentions}
        if head.strip().casefold() in {n.casefold() for n in names}:
            return TITLE_NAME
    for mention in link.mentions:
        if mention.span.field is Field.KEYWORDS:
            continue
        text = paper.text(mention.span.field)
        before = text[max(mention.sentence.start, mention.span.start - 40): mention.span.start]
        after = text[mention.span.end: min(mention.sentence.end, mention.span.end + 60)]
        if _BEFORE.search(before) or _AFTER.match(after):
            return NAMING_CUE
        if _NOVEL.search(before):
            return NOVEL_INSTANCE
    return None


def origin_roles(
    links: list[Link], concepts: Mapping[str, Concept], papers: Mapping[str, Paper]
) -> tuple[list[Link], list[CanonDecision]]:
    """Links with `proposes` kept only by introducing papers of over-proposed concepts, and
    one decision per concept whose proposers were cut."""
    proposers = Counter(link.concept_key for link in links if link.role is Role.PROPOSES)
    linked = Counter(link.concept_key for link in links)
    crowded = {key for key in proposers if linked[key] > MAX_ORIGINS}
    kept: dict[str, list[str]] = {key: [] for key in crowded}
    out: list[Link] = []
    for link in links:
        if link.concept_key in crowded and link.role is Role.PROPOSES:
            rule = introduction(papers[link.paper_id], link, concepts[link.concept_key])
            if rule is None:
                link = replace(link, role=Role.USES)
            else:
                kept[link.concept_key].append(f"{link.paper_id} ({rule})")
        out.append(link)
    decisions = [
        CanonDecision(
            key, RULE, tuple(sorted(kept[key])), proposers[key] - len(kept[key]),
            f"{linked[key]} papers link to it, more than the {MAX_ORIGINS} that can introduce "
            f"one name, and {proposers[key]} propose it; {len(kept[key])} introduce it and "
            "keep the role, the others use it",
        )
        for key in sorted(crowded)
    ]
    return out, decisions
