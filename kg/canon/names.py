"""Coined names: what the works that introduce them say.

A coined name that two different works introduce is two concepts: "PRISM: A Rich Class of
Parameterized Submodular Information Measures" and "PRISM: Probabilistic Real-Time Inference
in Spatial World Models"; "SPoT" (soft prompt transfer) and "SpOT" (3D object tracking).

A paper introduces a name when it proposes the concept and its text introduces it
(`kg.canon.origin.introduction`: its title starts with the name and a colon, or a sentence
names it). When papers with different titles introduce one concept shaped like a coined name
(`kg.canon.origin.name_shaped`), each work is a sense of the name: its introducing papers
(one work can appear twice — a conference paper and its OpenReview version share the title;
a paper later than the corpus's first use of the name is about it, not its origin, as in
`kg.canon.origin`) move to a node of their own, keyed by the name and the work's first paper
id. Every other paper linking to the name joins the sense whose introducers share the most
with it — the inverse document frequency of the concepts both link to, as for acronym senses
(`kg.canon.senses`): the unique best score above zero — or stays on the name's node, which
then stands for the uses that fit none of the works.

The work that introduces a name also says what it is (`stated_types`): "ALOHa: A New Measure
for Hallucination ...", "GPQA: A Graduate-Level Google-Proof Q&A Benchmark", "a new multi-hop QA
dataset, called 2WikiMultiHopQA". The head noun of that description — the last word before
a preposition of "X: A/An ..." after the title's colon, or the word before ", called X" —
types the concept when it names a dataset or a metric (`TYPE_NOUNS`), whatever the papers
using it voted — unless the corpus used the name before that work (a 2023 "method called
MATH" does not make the 2021 MATH benchmark a method).

No threshold: "different titles", "unique best", "above zero".
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import replace

from kg.canon.concepts import Canonical
from kg.canon.origin import NAMING_CUE, TITLE_NAME, introduction, name_shaped
from kg.types import CanonDecision, ConceptType, Link, Paper, Role

RULE = "name-sense"
TYPE_RULE = "introduced-as"
# Head nouns a work uses to say what the name it introduces is.
TYPE_NOUNS = {
    **dict.fromkeys(["dataset", "datasets", "benchmark", "benchmarks", "corpus", "corpora",
                     "treebank", "suite"], ConceptType.DATASET),
    **dict.fromkeys(["metric", "metrics", "measure", "measures", "score"], ConceptType.METRIC),
}  # not "method"/"framework"/"model": papers use them for either (DETR "the new framework")
_APPOSITION = re.compile(r"^\s*an?\s+(.+?)(?:\s+(?:for|of|with|to|in|on|via|from|that|which|"
                         r"through|by|using|towards?)\b|[,;.?]|$)", re.I)
_CALLED = re.compile(r"([\w-]+)\s*,?\s+(?:called|named|dubbed|termed|coined)\s*[\"'“‘]?\s*$",
                     re.I)


def name_senses(canonical: Canonical, papers: Mapping[str, Paper]) -> list[CanonDecision]:
    """Split every name that different works introduce (see module docstring); returns one
    decision per new node."""
    by_key: dict[str, list[Link]] = defaultdict(list)
    for link in canonical.links:
        by_key[link.concept_key].append(link)
    plans: dict[str, dict[str, list[str]]] = {}  # key -> work title -> introducing paper ids
    for key, links in by_key.items():
        concept = canonical.concepts[key]
        if len(links) < 2 or not name_shaped(concept.pref_label):
            continue
        years = [y for link in links if (y := papers[link.paper_id].year) is not None]
        earliest = min(years) if years else None
        works: dict[str, list[str]] = defaultdict(list)
        for link in links:
            paper = papers[link.paper_id]
            if earliest is not None and paper.year is not None and paper.year > earliest:
                continue  # the corpus had the name before: a paper about it, not its origin
            if link.role is Role.PROPOSES and introduction(
                    paper, link, concept) in (TITLE_NAME, NAMING_CUE):
                works[_title_key(paper)].append(link.paper_id)
        if len(works) > 1:
            plans[key] = dict(works)
    if not plans:
        return []
    context: dict[str, set[str]] = defaultdict(set)
    for link in canonical.links:
        context[link.paper_id].add(link.concept_key)
    with_key = Counter(key for keys in context.values() for key in keys)
    n = len(context) + 1
    moves: dict[tuple[str, str], str | None] = {}
    decisions: list[CanonDecision] = []
    for key in sorted(plans):
        senses = {f"{key} {min(ids)}": sorted(ids) for ids in plans[key].values()}
        profile = {sense: set().union(*(context[pid] for pid in ids)) - {key}
                   for sense, ids in senses.items()}
        members: dict[str, list[str]] = {sense: list(ids) for sense, ids in senses.items()}
        introducers = {pid for ids in senses.values() for pid in ids}
        for link in by_key[key]:
            if link.paper_id in introducers:
                continue
            own = context[link.paper_id] - {key}
            scores = sorted(((sum(math.log(n / with_key[k]) for k in own & profile[sense]),
                              sense) for sense in senses), key=lambda ss: (-ss[0], ss[1]))
            best, sense = scores[0]
            if best > 0 and scores[1][0] < best:
                members[sense].append(link.paper_id)
        label = canonical.concepts[key].pref_label
        for sense, ids in sorted(members.items()):
            moves.update({(pid, key): sense for pid in ids})
            work = papers[min(senses[sense])]
            decisions.append(CanonDecision(
                sense, RULE, (label,), len(ids),
                f"{label!r} is introduced by {len(senses)} different works; this node is the "
                f"one of {work.id} ({work.title or 'untitled'}) and the papers whose concepts "
                "fit it best; uses that fit none stay on the name's own node"))
    canonical.rekey({}, moves)
    return decisions


def _title_key(paper: Paper) -> str:
    """A paper's title as a key (case, spacing and punctuation folded): one work, one key."""
    return re.sub(r"[\W_]+", " ", (paper.title or paper.id).casefold()).strip()


def stated_types(canonical: Canonical, papers: Mapping[str, Paper]) -> list[CanonDecision]:
    """Type every concept that one work introduces by the head noun of that work's description
    of it (see module docstring); one decision per concept whose type changed."""
    earliest: dict[str, int] = {}
    for link in canonical.links:
        year = papers[link.paper_id].year
        if year is not None:
            earliest[link.concept_key] = min(year, earliest.get(link.concept_key, year))
    stated: dict[str, set[ConceptType]] = defaultdict(set)
    works: dict[str, set[str]] = defaultdict(set)
    for link in canonical.links:
        paper = papers[link.paper_id]
        if link.role is not Role.PROPOSES or (paper.year or 0) > earliest.get(
                link.concept_key, paper.year or 0):
            continue  # not proposed, or the corpus had the name before ("MATH" the dataset)
        concept = canonical.concepts[link.concept_key]
        ctype = described_as(paper, link, concept.pref_label)
        if ctype is not None:
            stated[link.concept_key].add(ctype)
            works[link.concept_key].add(_title_key(paper))
    decisions = []
    for key in sorted(stated):
        concept = canonical.concepts[key]
        if len(stated[key]) != 1 or len(works[key]) != 1:
            continue
        (ctype,) = stated[key]
        if ctype is concept.ctype:
            continue
        canonical.concepts[key] = replace(concept, ctype=ctype)
        canonical.stated[key] = ctype
        decisions.append(CanonDecision(
            key, TYPE_RULE, (concept.ctype.value, ctype.value), 1,
            f"the work introducing it calls it a {ctype.value.lower()}; its papers voted "
            + ", ".join(f"{t.value}: {n}" for t, n in concept.type_votes)))
    return decisions


def described_as(paper: Paper, link: Link, label: str) -> ConceptType | None:
    """The type a paper's own introduction of the linked concept states, or None.

    >>> from kg.types import Field, Mention, Span
    >>> def one(title, abstract, name):
    ...     paper = Paper("p", abstract, title=title)
    ...     part, text = (Field.ABSTRACT, abstract) if name in abstract else (Field.TITLE, title)
    ...     s = text.index(name)
    ...     mention = Mention(name, name, Span(part, s, s + len(name)), Span(part, 0, len(text)),
    ...                       ConceptType.METHOD, Role.PROPOSES, "rules")
    ...     return described_as(paper, Link("p", name.lower(), Role.PROPOSES, (mention,)), name)
    >>> one("ALOHa: A New Measure for Hallucination", "We test it.", "ALOHa")
    <ConceptType.METRIC: 'Metric'>
    >>> one("Multi-hop QA", "We present a new multi-hop QA dataset, called Zed, for it.", "Zed")
    <ConceptType.DATASET: 'Dataset'>
    >>> one("ByteTrack: Multi-Object Tracking by Associating Boxes", "We track.", "ByteTrack")
    """
    head, colon, rest = (paper.title or "").partition(":")
    if colon and head.strip().casefold() in {label.casefold(), *(
            m.text.casefold() for m in link.mentions)}:
        found = _APPOSITION.match(rest)
        if found:
            words = found.group(1).split()
            if words and words[-1].casefold() in TYPE_NOUNS:
                return TYPE_NOUNS[words[-1].casefold()]
    for mention in link.mentions:
        text = paper.text(mention.span.field)
        before = text[max(mention.sentence.start, mention.span.start - 60): mention.span.start]
        called = _CALLED.search(before)
        if called and called.group(1).casefold() in TYPE_NOUNS:
            return TYPE_NOUNS[called.group(1).casefold()]
    return None
