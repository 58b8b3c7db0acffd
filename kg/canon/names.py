"""Coined names: what the works that introduce them say.

A coined name that two different works introduce is two concepts: "PRISM: A Rich Class of
Parameterized Submodular Information Measures" and "PRISM: Probabilistic Real-Time Inference
in Spatial World Models"; "SPoT" (soft prompt transfer) and "SpOT" (3D object tracking).
A name one work introduces is that work's only for the papers whose context fits it:
"ReAct: Temporal Action Detection with Relational Queries" is not the "ReAct" six language-model
agent papers use, nor "LEGO: Learning Edge with Geometry" the LEGO bricks of assembly papers.

A paper introduces a name when it proposes the concept and its text introduces it
(`kg.canon.origin.introduction`: its title starts with the name and a colon, or a sentence
names it). A concept is a coined name when it is shaped like one (`kg.canon.origin.name_shaped`)
or an introducing paper writes it so ("HYDRA: Hybrid Robot Actions" for the node "Hydra"), and
its papers do not write it as an ordinary noun phrase (`kg.canon.origin.common_noun`). Each
work introducing it is a sense of the name (one work can appear twice — a conference paper
and its OpenReview version share the title): every work not later than the corpus's first use
of the name, and a later work that shares no more than chance with the earlier ones (the 2024
"EVE" video editor is not the 2017 cryptography network "named Eve"; a later paper that does
share context is about the earlier work, as in `kg.canon.origin`).

Every other paper linking to the name joins the sense whose introducers share the most with it
beyond chance, or stays on the name's node, which then stands for the uses that fit none of
the works. What papers share are the words of the concepts they link to (the name's own words
aside: "novel view synthesis" and "view synthesis" share two), each weighing its inverse
document frequency as for acronym senses (`kg.canon.senses`); chance is what as many papers
drawn at random would share with the paper. The unique best score above chance wins.

A name one work introduces stays one node when that work is what its uses mean more likely
than not — by the rule of succession, as for an acronym's prior sense (`kg.canon.senses`):
more than half of the papers whose context speaks, plus one, fit the work (on all of
paperlists 109 of 120 papers using "NeRF" fit the NeRF paper); otherwise the papers that do
not fit stay apart (5 of the 6 agent papers using "ReAct" share no more than chance with the
action-detection "ReAct"). Each work that keeps papers apart, or shares the name with another
work, moves to a node of its own, keyed by the name and the work's first paper id; the others
keep their key.

A paper that writes the name only with a final lower-case "s" the introducing works never
write ("AdaBins" beside "AdaBin: Improving Binary Neural Networks"), where some work names
itself so before a title's colon (of the corpus, or an introducing paper the vocabulary
records: "AdaBins: Depth Estimation using Adaptive Bins"), writes another name: its own node.

The work that introduces a name also says what it is (`stated_types`): "ALOHa: A New Measure
for Hallucination ...", "GPQA: A Graduate-Level Google-Proof Q&A Benchmark", "a new multi-hop QA
dataset, called 2WikiMultiHopQA". The head noun of that description — the last word before
a preposition of "X: A/An ..." after the title's colon, or the word before ", called X" —
types the concept when it names a dataset or a metric (`TYPE_NOUNS`), whatever the papers
using it voted — unless the corpus used the name before that work (a 2023 "method called
MATH" does not make the 2021 MATH benchmark a method).

No threshold: "different titles", "unique best", "above chance", "more likely than not".
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import replace
from sys import intern

from kg.canon.concepts import Canonical
from kg.canon.origin import NAMING_CUE, TITLE_NAME, common_noun, introduction, name_shaped
from kg.normalize import norm_text
from kg.types import CanonDecision, Concept, ConceptType, Link, Mention, Paper, Role
from kg.vocab.origins import Origins

RULE = "name-sense"
TYPE_RULE = "introduced-as"
# Head nouns a work uses to say what the name it introduces is.
TYPE_NOUNS = {
    **dict.fromkeys(["dataset", "datasets", "benchmark", "benchmarks", "corpus", "corpora",
                     "treebank", "suite"], ConceptType.DATASET),
    # What agents are trained and evaluated in: a benchmark, not a method (the graph has no
    # software type). Of the 16 paperlists titles "X: A ... Platform ...", 10 are environments
    # or evaluation platforms (Habitat, RLCard, World of Bits, UBSoft, RADDLE, ...) and 6 tools
    # (OpenAgents, DOCMASTER, an annotation platform ...), which are no methods either.
    **dict.fromkeys(["simulator", "simulators", "environment", "environments", "testbed",
                     "playground", "platform"], ConceptType.DATASET),
    # "HEAL: A Knowledge Graph for Distress Management Conversations" (both such paperlists
    # titles are resources: HEAL, C3KG).
    **dict.fromkeys(["knowledge graph", "knowledge base"], ConceptType.DATASET),
    **dict.fromkeys(["metric", "metrics", "measure", "measures", "score"], ConceptType.METRIC),
}  # not "method"/"framework"/"model": papers use them for either (DETR "the new framework")
_FUNCTION_WORDS = frozenset("the and for with via from into using based".split())
_APPOSITION = re.compile(r"^\s*an?\s+(.+?)(?:\s+(?:for|of|with|to|in|on|via|from|that|which|"
                         r"through|by|using|towards?)\b|[,;.?]|$)", re.I)
# "our VirtualHome simulator": the introducing work's own name for its thing, then what it is.
_OUR = re.compile(r"\bour\s+$", re.I)
_NOUN_AFTER = re.compile(r"^\s+([\w-]+)")
_CALLED = re.compile(r"([\w-]+)\s*,?\s+(?:called|named|dubbed|termed|coined)\s*[\"'“‘]?\s*$",
                     re.I)


def name_senses(canonical: Canonical, papers: Mapping[str, Paper]) -> list[CanonDecision]:
    """Split every coined name between the works that introduce it and the uses that fit none
    (see module docstring); returns one decision per node a split made or kept."""
    moves, decisions = _name_moves(canonical, papers)
    # Once the links by key and the papers' words are gone (issue 14: ~0.4 KB a paper, held
    # while the rekey made its own per-paper lists, the peak of a 350k build).
    canonical.rekey({}, moves)
    return decisions


def _name_moves(
    canonical: Canonical, papers: Mapping[str, Paper]
) -> tuple[dict[tuple[str, str], str | None], list[CanonDecision]]:
    """The (paper, key) moves of `name_senses` and its decisions."""
    by_key: dict[str, list[Link]] = defaultdict(list)
    for link in canonical.links:
        by_key[link.concept_key].append(link)
    context = _paper_words(canonical.links)
    with_word = Counter(word for words in context.values() for word in words)
    n = len(context) + 1
    idf = {word: math.log(n / count) for word, count in with_word.items()}

    def excess(own: set[str], profile: set[str], papers_in_profile: int) -> float:
        """What `own` shares with `profile` over what as many random papers would share."""
        # fsum over sets: the same in every process (see kg.canon.senses._score)
        chance = math.fsum(idf[w] * (1 - (1 - with_word[w] / n) ** papers_in_profile)
                           for w in own)
        return math.fsum(idf[w] for w in own & profile) - chance

    named = title_names(papers.values())
    moves: dict[tuple[str, str], str | None] = {}
    renamed: dict[str, list[str]] = defaultdict(list)  # key of a name's "s" form -> papers
    decisions: list[CanonDecision] = []
    for key in sorted(by_key):
        links = by_key[key]
        if len(links) < 2:
            continue
        works = _works(canonical.concepts[key], links, papers)
        if not works:
            continue
        concept = canonical.concepts[key]
        name = _words(key).union(*(_words(norm_text(label)) for label in (
            concept.pref_label, *concept.alt_labels, *concept.acronyms)))
        senses: dict[str, list[str]] = {}  # sense key -> its work's introducing papers
        profile: dict[str, set[str]] = {}
        first = min((y for link in links if (y := papers[link.paper_id].year) is not None),
                    default=None)
        for ids in works:
            own = set().union(*(context.get(pid, ()) for pid in ids)) - name
            year = min((y for pid in ids if (y := papers[pid].year) is not None), default=None)
            if (first is not None and year is not None and year > first and (
                    not senses or not own or any(excess(own, words, len(senses[s])) > 0
                                                 for s, words in profile.items()))):
                continue  # a later paper about a name the corpus had: a use, not a work
            sense = f"{key} {min(ids)}"
            senses[sense], profile[sense] = sorted(ids), own
        if not senses:
            continue
        members: dict[str, list[str]] = {sense: list(ids) for sense, ids in senses.items()}
        introducers = {pid for ids in senses.values() for pid in ids}
        shapes = {m.text.casefold() for link in links if link.paper_id in introducers
                  for m in link.mentions if name_shaped(m.text)}
        apart: list[str] = []
        fit = 0
        label = canonical.concepts[key].pref_label
        for link in links:
            if link.paper_id in introducers:
                continue
            other = _other_name(link, shapes, named)
            if other is not None:  # "AdaBins" beside the work's "AdaBin": a name of its own
                moves[link.paper_id, key] = other
                renamed[other].append(link.paper_id)
                continue
            if _unshaped(link, shapes):
                apart.append(link.paper_id)  # "Prune" in a title is not the name "PRUNE"
                continue
            own = set(context.get(link.paper_id, ())) - name
            scores = sorted(((excess(own, profile[sense], len(senses[sense])), sense)
                             for sense in senses), key=lambda ss: (-ss[0], ss[1]))
            best, sense = scores[0]
            if best > 0 and (len(scores) == 1 or scores[1][0] < best):
                members[sense].append(link.paper_id)
                fit += 1
            elif not own and len(senses) == 1:
                members[sense].append(link.paper_id)  # no concept at all: nothing says apart
            else:
                apart.append(link.paper_id)
        if len(senses) == 1 and (not apart or fit / (fit + len(apart) + 1) > 0.5):
            continue  # the one work is what most of the name's uses mean: the name is its
        for sense, ids in sorted(members.items()):
            moves.update({(pid, key): sense for pid in ids})
            work = papers[min(senses[sense])]
            decisions.append(CanonDecision(
                sense, RULE, (label,), len(ids),
                f"{label!r} is introduced by {len(senses)} work(s) of this corpus; this node is "
                f"the one of {work.id} ({work.title or 'untitled'}) and the papers whose concepts "
                f"fit it best; {len(apart)} paper(s) fitting no work stay on the name's node"))
        if apart:
            decisions.append(CanonDecision(
                key, RULE, tuple(sorted(senses)), len(apart),
                f"uses of {label!r} whose papers share no concept with the work(s) introducing "
                "it (nodes listed as variants), or fit two equally: kept apart from them"))
    decisions += [CanonDecision(
        other, RULE, (other,), len(ids),
        "written with a final 's' the work introducing the name without it never writes: "
        "a name of its own (a lower-case 's' ends a coined name as often as a plural)")
        for other, ids in sorted(renamed.items())]
    return moves, decisions


def _other_name(link: Link, shapes: set[str], named: set[str]) -> str | None:
    """The key of the name a paper writes when it writes a coined name only with a final
    lower-case 's' after a lower-case letter that the introducing works (their name-shaped
    forms: `shapes`) never write, and a work names itself so (`named`, `title_names`):
    "AdaBins" beside "AdaBin" is a name of its own, "ShuffleNets" beside "ShuffleNet" a plural
    ("NeRFs", an 's' after a capital, is a plural by convention: `kg.extract.acronyms.
    short_key`). None when the paper writes it otherwise too.

    >>> from kg.types import ConceptType, Field, Span
    >>> def link(*texts):
    ...     return Link("p", "k", Role.USES, tuple(Mention(t, t, Span(Field.ABSTRACT, 0, 9),
    ...         Span(Field.ABSTRACT, 0, 9), ConceptType.METHOD, Role.USES, "rules") for t in texts))
    >>> named = {"gridbins", "grbns"}
    >>> _other_name(link("GridBins"), {"gridbin"}, named)
    'gridbins'
    >>> _other_name(link("GridBins", "GridBin"), {"gridbin"}, named)
    >>> _other_name(link("GridBins"), {"gridbin", "gridbins"}, named)
    >>> _other_name(link("GridNets"), {"gridnet"}, named)
    >>> _other_name(link("GRBNs"), {"grbn"}, named)
    """
    texts = [m.text for m in link.mentions]
    if texts and all(len(t) > 2 and t.endswith("s") and t[-2].islower()
                     and t.casefold() not in shapes and t[:-1].casefold() in shapes
                     and t.casefold() in named for t in texts):
        return norm_text(texts[0])
    return None


def title_names(papers: Iterable[Paper]) -> set[str]:
    """The names works give themselves before a title's colon ("AdaBins" of "AdaBins: Depth
    Estimation using Adaptive Bins"), case-folded: those of the corpus's papers and of the
    introducing papers the vocabulary records (`kg.vocab.origins`)."""
    titles = [p.title or "" for p in papers]
    titles += [o.title for found in Origins.load().by_key.values() for o in found]
    return {head.strip().casefold() for title in titles
            for head, colon, _ in [title.partition(":")] if colon and head.strip()}


def _paper_words(links: Iterable[Link]) -> dict[str, tuple[str, ...]]:
    """Paper id -> the content words of the keys it links, each word one string for the
    corpus: a tuple per paper, not a set (issue 14: a set of ~40 words takes ~2 KB, the tuple
    ~0.4 KB; a build holds one per paper)."""
    context: dict[str, tuple[str, ...]] = {}
    paper: str | None = None
    words: set[str] = set()

    def close() -> None:
        if paper is not None:
            old = context.get(paper, ())
            context[paper] = tuple(sorted(words.union(old))) if old else tuple(sorted(words))

    for link in links:  # a paper's links are consecutive, by `Canonical.rekey`'s order
        if link.paper_id != paper:
            close()
            paper, words = link.paper_id, set()
        words.update(intern(w) for w in _words(link.concept_key))
    close()
    return context


def _words(key: str) -> set[str]:
    """The content words of a key: longer than two letters, not a number or function word."""
    return {w for w in re.split(r"[^\w+#]+", key)
            if len(w) > 2 and not w.isdigit() and w not in _FUNCTION_WORDS}


def _works(concept: Concept, links: list[Link], papers: Mapping[str, Paper]) -> list[list[str]]:
    """The works that introduce a coined name: each a list of paper ids (one title), ordered
    by year (unknown last), then first paper id; [] when the concept is no coined name."""
    works: dict[str, list[str]] = defaultdict(list)
    shaped = name_shaped(concept.pref_label)
    for link in links:
        if link.role is not Role.PROPOSES:
            continue  # read no paper for it (a shelf's read unpickles one: issue 14)
        paper = papers[link.paper_id]
        if introduction(paper, link, concept) in (TITLE_NAME, NAMING_CUE):
            works[_title_key(paper)].append(link.paper_id)
            shaped = shaped or any(_written_as_name(paper, m) for m in link.mentions)
    if not works or not shaped or common_noun(m for link in links for m in link.mentions):
        return []

    def order(ids: list[str]) -> tuple[int, str]:
        years = [y for pid in ids if (y := papers[pid].year) is not None]
        return (min(years) if years else 10**4, min(ids))

    return sorted(works.values(), key=order)


def _unshaped(link: Link, shapes: set[str]) -> bool:
    """The paper writes the name the introducing works write shaped like a name ("PRUNE",
    "ALICE", "HYDRA") only otherwise ("Prune", "Alice", "Hydra"): another word of that
    spelling, not the name."""
    same = [m.text for m in link.mentions if m.text.casefold() in shapes]
    return bool(same) and not any(name_shaped(text) for text in same)


def _written_as_name(paper: Paper, mention: Mention) -> bool:
    """The paper writes the mention shaped like a name, in text not all in capitals (where
    case says nothing: "DEEP LEARNING: ..." titles)."""
    if not name_shaped(mention.text):
        return False
    text = paper.text(mention.sentence.field)[mention.sentence.start:mention.sentence.end]
    return any(ch.islower() for ch in text)


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
        if link.role is not Role.PROPOSES:
            continue
        paper = papers[link.paper_id]
        if (paper.year or 0) > earliest.get(link.concept_key, paper.year or 0):
            continue  # the corpus had the name before ("MATH" the dataset)
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
    >>> one("PIE: A Large-Scale Dataset and Models for Intention", "We see.", "PIE")
    <ConceptType.DATASET: 'Dataset'>
    >>> one("Home: Simulating Chores", "Our Home simulator makes videos.", "Home")
    <ConceptType.DATASET: 'Dataset'>
    >>> one("ByteTrack: Multi-Object Tracking by Associating Boxes", "We track.", "ByteTrack")
    """
    head, colon, rest = (paper.title or "").partition(":")
    if colon and head.strip().casefold() in {label.casefold(), *(
            m.text.casefold() for m in link.mentions)}:
        found = _APPOSITION.match(rest)
        if found:  # "A Large-Scale Dataset and Models for ...": the first of two names it
            words = re.split(r"\s+and\s+", found.group(1), flags=re.I)[0].casefold().split()
            for head in (" ".join(words[-2:]), words[-1] if words else ""):
                if head in TYPE_NOUNS:
                    return TYPE_NOUNS[head]
    for mention in link.mentions:
        text = paper.text(mention.span.field)
        before = text[max(mention.sentence.start, mention.span.start - 60): mention.span.start]
        called = _CALLED.search(before)
        if called and called.group(1).casefold() in TYPE_NOUNS:
            return TYPE_NOUNS[called.group(1).casefold()]
        noun = _NOUN_AFTER.match(text[mention.span.end:mention.sentence.end])
        if _OUR.search(before) and noun and noun.group(1).casefold() in TYPE_NOUNS:
            return TYPE_NOUNS[noun.group(1).casefold()]
    return None
