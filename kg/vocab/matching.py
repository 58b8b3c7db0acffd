"""Link concepts to the field's vocabularies: Papers with Code and the CSO (`kg.vocab.gazetteer`).

A concept gets `skos:exactMatch` to an entry named by its preferred label (up to `norm_key`)
when the types agree, and `skos:closeMatch` for weaker evidence: a compatible but different
type, an alias of the entry, another of the concept's labels, a spelling variant. Each
vocabulary is matched on its own, trying the routes of `Method` strongest first; the first
route that finds something decides for that vocabulary.

Ambiguity is not guessed away. These stay unlinked: labels with fewer than three letters
("RL"), generic labels (unless spelled as distinctively as the entry: "CLIP", "PaLM"),
evaluative phrases ("novel architecture"), acronyms in the CSO (which spans all of computer
science: "TSV", "DAC"), and labels that name several entries of different meaning; the
candidates of the last are reported (`ConceptLinks.ambiguous`). Entries share a meaning when
one is broader than the other (the narrower is linked), when all carry the label as their own
multi-word name (PwC keeps duplicates such as `task/reinforcement-learning` and
`task/reinforcement-learning-rl`), or when they share another label.

>>> from kg.types import Concept, ConceptType
>>> [(m.target, m.exact, m.method) for m in match_vocabularies(
...     [Concept("adam", "Adam", ConceptType.METHOD)])]
[('https://paperswithcode.com/method/adam', True, 'label')]
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from urllib.parse import unquote

from kg.normalize import norm_key, norm_text
from kg.types import Concept, ConceptType, VocabularyMatch
from kg.vocab.gazetteer import Entry, Gazetteer

PWC = "https://paperswithcode.com"
CSO = "https://cso.kmi.open.ac.uk"
SCHEMES: dict[str, str] = {PWC: "Papers with Code", CSO: "Computer Science Ontology"}
# Gazetteer sources whose `source_id` is the IRI of a vocabulary entry.
LINKED_SOURCES = frozenset(
    {"pwc-method", "pwc-collection", "pwc-task", "pwc-dataset", "sota-synonym", "cso"}
)
MIN_LETTERS = 3  # "RL", "ML", "HF" name too many things to link on their own
# A first word that rates or points rather than names: "novel architecture", "our model".
EVALUATIVE = frozenset(
    """novel new proposed existing our their this these current previous prior traditional
    conventional standard typical various different several specific general simple
    efficient effective better improved""".split()
)
_ACRONYM = re.compile(r"[A-Z0-9][A-Za-z0-9]{0,4}")  # "TSV", "GPT4", "o3"-like after a capital


class Method(StrEnum):
    """How a concept matched an entry (`VocabularyMatch.method`), strongest first."""

    LABEL = "label"  # the preferred label is the entry's own name
    ALIAS = "alias"  # the preferred label is another name of the entry (synonym, CSO variant)
    ALT_LABEL = "altLabel"  # one of the concept's alternative labels is the entry's name
    VARIANT = "spelling variant"  # the same letters without spaces ("Feedforward Network")


class Agreement(StrEnum):
    """How well a concept's type fits an entry's."""

    SAME = "same"
    COMPATIBLE = "compatible"
    NONE = "none"


# Close enough for a closeMatch: PwC's model/method split is by collection; PwC names
# benchmarks as tasks, and learning paradigms ("Active Learning", "In-Context Learning") too;
# a concept typed `Concept` (our catch-all) may be a task or technique.
_COMPATIBLE = frozenset(
    {
        (ConceptType.MODEL, ConceptType.METHOD),
        (ConceptType.METHOD, ConceptType.MODEL),
        (ConceptType.DATASET, ConceptType.TASK),
        (ConceptType.TASK, ConceptType.DATASET),
        (ConceptType.METHOD, ConceptType.TASK),
        (ConceptType.TASK, ConceptType.METHOD),
        (ConceptType.CONCEPT, ConceptType.TASK),
        (ConceptType.CONCEPT, ConceptType.METHOD),
    }
)


def agreement(ctype: ConceptType, entry: Entry) -> Agreement:
    """Whether a concept of type `ctype` may match `entry`, and how strongly. A CSO topic typed
    `Concept` is untyped (its head noun said nothing), so any concept may match it.

    >>> e = Entry("Adam", ConceptType.METHOD, "pwc-method", "", False)
    >>> agreement(ConceptType.METHOD, e), agreement(ConceptType.MODEL, e)
    (<Agreement.SAME: 'same'>, <Agreement.COMPATIBLE: 'compatible'>)
    >>> agreement(ConceptType.DATASET, e)
    <Agreement.NONE: 'none'>
    """
    if entry.type is ctype:
        return Agreement.SAME
    if (ctype, entry.type) in _COMPATIBLE or entry.type is ConceptType.CONCEPT:
        return Agreement.COMPATIBLE
    return Agreement.NONE


def scheme_of(iri: str) -> str:
    """The vocabulary (concept scheme IRI) an entry IRI belongs to.

    >>> scheme_of("https://cso.kmi.open.ac.uk/topics/gan")
    'https://cso.kmi.open.ac.uk'
    """
    for scheme in SCHEMES:
        if iri.startswith(scheme + "/"):
            return scheme
    raise ValueError(f"{iri} is not in a known vocabulary ({', '.join(SCHEMES)})")


def name_key(iri: str) -> str:
    """The key of the name an entry IRI was minted from (CSO: its primary label; PwC: its slug).

    >>> name_key("https://cso.kmi.open.ac.uk/topics/channel_impulse_response_(cir)")
    'channel impulse response'
    >>> name_key("https://paperswithcode.com/task/reinforcement-learning-rl")
    'reinforcement learning rl'
    """
    tail = unquote(iri.rstrip("/").rsplit("/", 1)[-1])
    if iri.startswith(CSO) and tail.endswith(")") and "_(" in tail:
        tail = tail[: tail.rindex("_(")]
    return norm_key(tail.replace("_", " ").replace("-", " "))


def is_acronym(label: str) -> bool:
    """A short all-capital (or digit-bearing) single token: "TSV", "GPT4", "o3".

    >>> [is_acronym(t) for t in ["TSV", "o3", "GPUs", "BERT", "GPT-4", "Adam", "Mamba"]]
    [True, True, True, True, False, False, False]
    """
    text = label.strip()
    return bool(_ACRONYM.fullmatch(text[:1].upper() + text[1:])) and not (
        text[1:].islower() and not any(c.isdigit() for c in text)
    )


def unlinkable(label: str) -> bool:
    """Labels that never link on their own: fewer than `MIN_LETTERS` letters and no digit
    ("RL"; "T5" is kept), or an evaluative first word ("novel architecture").

    >>> [unlinkable(t) for t in ["RL", "T5", "proposed architecture", "transformer"]]
    [True, False, True, False]
    """
    text = norm_text(label)
    if sum(c.isalpha() for c in text) < MIN_LETTERS and not any(c.isdigit() for c in text):
        return True
    return text.split(" ", 1)[0] in EVALUATIVE


@dataclass(frozen=True, slots=True)
class ConceptLinks:
    """What linking found for one concept: its matches, and the entry IRIs it was ambiguous
    between (for each vocabulary left unlinked for that reason)."""

    matches: tuple[VocabularyMatch, ...] = ()
    ambiguous: tuple[str, ...] = ()


_NOTHING = ConceptLinks()


@dataclass(frozen=True, slots=True)
class _Candidate:
    entry: Entry
    agreement: Agreement
    named: bool  # the matched label is the entry's own name, not one of its aliases


class Linker:
    """Matches concepts against one gazetteer (see module docstring)."""

    def __init__(self, gazetteer: Gazetteer | None = None) -> None:
        self.gazetteer = gazetteer or Gazetteer.load()
        # Key -> the entries that have a vocabulary IRI. Most keys have none, so most
        # concepts are done after a few dict look-ups.
        self._index: dict[str, tuple[Entry, ...]] = {}
        for key in self.gazetteer.keys():  # noqa: SIM118 (Gazetteer is not iterable)
            linked = tuple(e for e in self.gazetteer.lookup(key) if e.source in LINKED_SOURCES)
            if linked:
                self._index[key] = linked
        compact: dict[str, list[str]] = {}
        for key in self._index:
            compact.setdefault(key.replace(" ", ""), []).append(key)
        self._compact = {k: tuple(sorted(v)) for k, v in compact.items()}

    def match_all(self, concepts: Iterable[Concept]) -> list[VocabularyMatch]:
        """Every match of every concept, sorted by concept key, then target IRI."""
        found = [m for c in concepts for m in self.link(c).matches]
        return sorted(found, key=lambda m: (m.concept_key, m.target, m.source))

    def link(self, concept: Concept) -> ConceptLinks:
        """The matches of one concept to each vocabulary (at most one route per vocabulary)."""
        routes = [(method, hits) for method in Method if (hits := self._hits(concept, method))]
        if not routes:
            return _NOTHING
        matches: list[VocabularyMatch] = []
        ambiguous: list[str] = []
        for scheme in SCHEMES:
            for method, hits in routes:
                candidates = self._candidates(concept, method, hits, scheme)
                if not candidates:
                    continue
                chosen = self._resolve(candidates, concept.key)
                if chosen is None:
                    ambiguous.extend(sorted({c.entry.source_id for c in candidates}))
                    break
                for c in chosen:
                    exact = method is Method.LABEL and c.agreement is Agreement.SAME
                    matches.append(
                        VocabularyMatch(concept.key, c.entry.source_id, exact, method.value,
                                        c.entry.source)
                    )  # fmt: skip
                break
        return ConceptLinks(tuple(matches), tuple(ambiguous))

    # -- candidates -----------------------------------------------------------------------

    def _labels(self, concept: Concept, method: Method) -> Iterator[str]:
        if method in (Method.LABEL, Method.ALIAS):
            yield concept.pref_label
        elif method is Method.ALT_LABEL:
            own = {concept.key, norm_key(concept.pref_label)}
            for label in concept.alt_labels:
                if not is_acronym(label) and norm_key(label) not in own:
                    yield label  # acronyms alone are too ambiguous; own keys are tried already
        else:
            key = norm_key(concept.pref_label)
            yield from (k for k in self._compact.get(key.replace(" ", ""), ()) if k != key)

    def _hits(self, concept: Concept, method: Method) -> list[tuple[str, Entry]]:
        """(label, entry) pairs a route reaches: entries with an IRI, labels that may link."""
        hits: list[tuple[str, Entry]] = []
        for label in self._labels(concept, method):
            entries = self._index.get(norm_key(label))
            if entries and not unlinkable(label):
                hits.extend((label, entry) for entry in entries)
        return hits

    def _candidates(
        self, concept: Concept, method: Method, hits: list[tuple[str, Entry]], scheme: str
    ) -> list[_Candidate]:
        """The route's entries in `scheme` that may match the concept (see `_candidate`)."""
        found: dict[tuple[str, str], _Candidate] = {}
        for label, entry in hits:
            if entry.source_id.startswith(scheme):
                candidate = self._candidate(concept, label, entry, method)
                if candidate is not None:
                    found.setdefault((entry.source_id, entry.source), candidate)
        return list(found.values())

    def _candidate(
        self, concept: Concept, label: str, entry: Entry, method: Method
    ) -> _Candidate | None:
        if entry.generic and not (entry.distinctive and entry.label == label):
            return None  # a generic word alone is no evidence of the concept
        fit = agreement(concept.ctype, entry)
        if fit is Agreement.NONE:
            return None
        text = norm_text(label)
        if " " not in text and fit is not Agreement.SAME and (
            entry.source == "cso" or text != norm_text(entry.label)
        ):
            # One word of another type: "Adam" (optimizer) is not CSO's "adams", and CSO's
            # single words often have a non-ML sense ("multiplier", "projector").
            return None
        if is_acronym(label):
            if entry.source == "cso":
                return None  # CSO acronyms span all of computer science ("TSV", "DAC")
            if label != entry.label:
                return None  # "o3" is not the dataset "O3"
        named = self._named(entry, norm_key(label), method)
        if named is None:
            return None
        return _Candidate(entry, fit, named)

    @staticmethod
    def _named(entry: Entry, key: str, method: Method) -> bool | None:
        """Whether `key` is the entry's own name (every PwC row but leaderboard synonyms; a
        CSO topic's primary label), or None when the route may not use this row: ALIAS takes
        aliases only, the other routes names only. Of the CSO's loose equivalents only
        spelling variants count: "multi-agent system" for `multiagent_system`, not
        "retrieval method" for `retrieval_performance`."""
        if entry.source == "sota-synonym":
            named = False
        elif entry.source == "cso":
            primary = name_key(entry.source_id)
            named = primary == key
            if not named and primary.replace(" ", "") != key.replace(" ", ""):
                return None
        else:
            named = True
        if named is (method is Method.ALIAS):
            return None
        return named

    # -- ambiguity ------------------------------------------------------------------------

    def _resolve(self, candidates: list[_Candidate], key: str) -> list[_Candidate] | None:
        """The candidates to link (one per IRI, sorted), or None when they mean different
        things. Same type beats compatible type, the entry's name beats its alias, and an
        entry broader than another candidate gives way to it."""
        same = [c for c in candidates if c.agreement is Agreement.SAME]
        pool = same or candidates
        pool = [c for c in pool if c.named] or pool
        by_iri: dict[str, _Candidate] = {}
        for c in sorted(pool, key=lambda c: (c.entry.source_id, c.entry.source)):
            by_iri.setdefault(c.entry.source_id, c)
        if len(by_iri) > 1:
            ancestors = set().union(*(self._ancestors(i) for i in by_iri))
            by_iri = {i: c for i, c in by_iri.items() if i not in ancestors}
        if len(by_iri) > 1 and not self._one_meaning(list(by_iri.values()), key):
            return None
        return list(by_iri.values())

    def _one_meaning(self, candidates: list[_Candidate], key: str) -> bool:
        """True when all candidates carry `key` as their own name, and it has several words or
        they come from different sources (two datasets of one name are two datasets, though),
        or when they are connected by shared labels other than `key` (aliases of each other)."""
        sources = [c.entry.source for c in candidates]
        distinct = len(set(sources)) == len(sources)  # "Pruning": a PwC method and collection
        if (all(c.named for c in candidates) and (" " in key or distinct)
                and sources.count("pwc-dataset") < 2):  # fmt: skip
            return True
        iris = [c.entry.source_id for c in candidates]
        others = {
            i: {norm_key(e.label) for e in self.gazetteer.entries_for(i)} - {key} for i in iris
        }
        reached, labels = {iris[0]}, set(others[iris[0]])
        grew = True
        while grew:
            grew = False
            for i in iris:
                if i not in reached and others[i] & labels:
                    reached.add(i)
                    labels |= others[i]
                    grew = True
        return len(reached) == len(iris)

    def _ancestors(self, iri: str) -> set[str]:
        return set(broader_closure([iri], self.gazetteer)) - {iri}


MAX_DEPTH = 12  # CSO's deepest chain is shorter; the bound only guards against cycles


def broader_closure(iris: Iterable[str], gazetteer: Gazetteer) -> dict[str, tuple[str, ...]]:
    """Every entry reachable upwards from `iris` (themselves included) with its direct broader
    entries, breadth first, at most `MAX_DEPTH` steps up.

    >>> closure = broader_closure(["https://paperswithcode.com/method/transformer"],
    ...                           Gazetteer.load())
    >>> closure["https://paperswithcode.com/method/transformer"][-1]
    'https://paperswithcode.com/methods/category/transformers'
    """
    seen: dict[str, tuple[str, ...]] = {}
    frontier = list(dict.fromkeys(iris))
    for depth in range(MAX_DEPTH + 1):
        following: list[str] = []
        for iri in frontier:
            if iri not in seen:
                seen[iri] = parents = gazetteer.broader(iri) if depth < MAX_DEPTH else ()
                following.extend(p for p in parents if p not in seen)
        if not following:
            break
        frontier = following
    return seen


@cache
def _shipped_linker() -> Linker:
    return Linker()


def match_vocabularies(
    concepts: Iterable[Concept], gazetteer: Gazetteer | None = None
) -> list[VocabularyMatch]:
    """Matches of `concepts` to PwC and CSO entries, sorted by concept key and target IRI."""
    linker = _shipped_linker() if gazetteer is None else Linker(gazetteer)
    return linker.match_all(concepts)
