"""Which sense a short form has in each paper: one node per (short form, meaning).

A short form ("ACE", "LLMs") means what its paper defines it as. Its *senses* in a corpus are
the long forms papers define it with (keys by `kg.normalize.norm_key`), each with the papers
that define it so. A paper that uses the short form without defining it gets a sense from its
context, by these rules in order (the rule's name is recorded with the merge in the graph):

- `acronym-defined`: the paper defines it; its own long form decides.
- `acronym-context`: the corpus defines it, and this paper spells out exactly one of its long
  forms elsewhere; or the sense whose defining papers share the most with this paper wins,
  when exactly one sense scores best and its score is above zero. A shared
  concept scores its inverse document frequency (`log((N + 1) / papers with it)`): sharing
  "image classification" says more than sharing "deep learning". Venue and year add to the
  score but never join alone: at least one concept must be shared. With a single sense, any
  shared concept joins it.
- `acronym-prior`: the context says nothing, and the paper does not propose the short form (a
  paper proposing an undefined name introduces its own): it joins the sense most papers define
  it with when that sense is more likely than not by the rule of succession, `n_sense /
  (n_defining + 1)` > 1/2 — the extra 1 stands for a sense no paper of the corpus defined.
  "LLM" defined as "large language model" by 312 papers and otherwise once joins it (0.99);
  an "ACE" one paper defined does not (0.5).
- `acronym-initials`: no paper defines it, and exactly one multi-word concept of this paper's
  own mentions, or of the corpus, has initials that spell it ("large language model" for
  "LLM"): that concept, when the paper shares context with it as above (it is then the only
  sense).
- `acronym-apart`: nothing fits, or the paper gives the name itself where it writes it
  (`kg.canon.origin.names_here`: "we propose an effective "disentangling the skeleton from
  the details" (DSD) module" — a definition whose long form the extractor could not read —, "a
  novel OOD detection method, GEM"): the short form stays a node of its own, labelled by
  itself, never merged into a sense it may not have (the context rule had joined both to
  other papers' "Dense-Sparse-Dense" and "Gradient Episodic Memory").

A short form written with the exact casing some sense was defined with only considers those
senses ("mAP" is not "MAP"). The rules are features read from the text, with no fitted
threshold: "above zero", "exactly one best" and "more likely than not" are the only cut-offs.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from kg.extract.acronyms import is_short_form, short_key, spelled
from kg.normalize import norm_key
from kg.types import Extraction, Mention, Paper

DEFINED = "acronym-defined"
CONTEXT = "acronym-context"
PRIOR = "acronym-prior"
INITIALS = "acronym-initials"
APART = "acronym-apart"

_SKIPPED_WORDS = frozenset("a an the and or of for to in on with via by from at".split())


def short_sense_key(label: str) -> str:
    """The case-folded key a short form's senses are filed under ("LLMs", "llm" -> "llm")."""
    return norm_key(short_key(label))


def raw_key(mention: Mention) -> str:
    """A mention's key before senses are resolved: its long form's when it has one."""
    return norm_key(mention.long_form) if mention.long_form else norm_key(mention.label)


def is_undefined_short(mention: Mention) -> bool:
    """A short form used without its own long form."""
    return mention.long_form is None and is_short_form(mention.label)


def title_definition(title: str | None) -> tuple[str, str] | None:
    """(short, long) when a title names its contribution by a short form spelled out right
    after the colon: "CRAFT: Class Ranking Aware Fine-Tuning for ..." defines CRAFT.

    >>> title_definition("CRAFT: Class Ranking Aware Fine-Tuning for Enhanced OOD Detection")
    ('CRAFT', 'Class Ranking Aware Fine-Tuning')
    >>> title_definition("GOLD: Generalized Knowledge Distillation via OOD-Guided Generation")
    >>> title_definition("P3O: Pairwise Proximal Policy Optimization for Alignment")
    ('P3O', 'Pairwise Proximal Policy Optimization')
    """
    head, colon, rest = (title or "").partition(":")
    short = head.strip()
    if not colon or not is_short_form(short):
        return None
    # As written ("RTM3D": Real-Time Monocular 3D), or a digit counting its letter ("P3O").
    spellings = {"".join(c for c in form.lower() if c.isalnum())
                 for form in (short, spelled(short))}
    words = rest.split()
    while words and words[0].lower() in {"a", "an", "the"}:
        words = words[1:]  # "C2K: A Chinese Corpus ..." spells C2K from "Chinese Corpus"
    for n in range(1, min(len(words), max(map(len, spellings)) + 3) + 1):
        prefix = words[:n]
        for parts in (prefix, [p for w in prefix for p in w.split("-") if p]):
            found = "".join(w[0].lower() for w in parts if w.lower() not in _SKIPPED_WORDS)
            if found in spellings:
                return short, " ".join(prefix).strip(",;.")
    return None


def initials(key: str) -> str:
    """The initials of a multi-word key, function words skipped ("" for one word).

    >>> initials("large language model"), initials("chain of thought"), initials("dropout")
    ('llm', 'ct', '')
    """
    words = [w for w in key.replace("-", " ").split() if w not in _SKIPPED_WORDS]
    return "".join(w[0] for w in words if w) if len(words) > 1 else ""


@dataclass(slots=True)
class SenseTable:
    """The senses of every short form of a corpus, and each paper's context to choose one."""

    senses: dict[str, dict[str, set[str]]] = field(default_factory=dict)  # short -> long -> papers
    # paper -> its context keys, sorted (a tuple, its strings one object per key: issue 14)
    context: dict[str, tuple[str, ...]] = field(default_factory=dict)
    papers_with: Counter[str] = field(default_factory=Counter)  # context key -> paper count
    by_initials: dict[str, set[str]] = field(default_factory=dict)  # initials -> concept keys
    cased: dict[str, set[str]] = field(default_factory=dict)  # exact short form -> long keys
    _profiles: dict[tuple[str, str], frozenset[str]] = field(default_factory=dict, repr=False)
    _papers_cache: dict[str, set[str]] = field(default_factory=dict, repr=False)

    @classmethod
    def build(
        cls,
        papers: Iterable[Paper],
        extractions: Mapping[str, Extraction],
        canon: Callable[[str], str] = lambda key: key,
    ) -> SenseTable:
        """The table of a corpus; `canon` maps a key to its group's (`kg.canon.variants`)."""
        table = cls()
        senses: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
        cased: dict[str, set[str]] = defaultdict(set)
        by_initials: dict[str, set[str]] = defaultdict(set)
        shared: dict[str, str] = {}  # equal keys: one string for every paper's context
        undefined: set[str] = set()  # the senses of short forms some paper leaves undefined
        for paper in papers:
            extraction = extractions.get(paper.id)
            if extraction is None:
                continue
            undefined.update(short_sense_key(m.label) for m in extraction.mentions
                             if is_undefined_short(m))
            for short, written in definitions(paper, extraction):
                long = canon(norm_key(written))
                if long:
                    senses[short_sense_key(short)][long].add(paper.id)
                    cased[short_key(short)].add(long)
            keys = {canon(raw_key(m)) for m in extraction.mentions}
            keys.discard("")
            for key in keys:
                letters = initials(key)
                if len(letters) > 1:
                    by_initials[letters].add(key)
            context = tuple(sorted(shared.setdefault(k, k) for k in keys | _metadata(paper)))
            table.context[paper.id] = context
            table.papers_with.update(context)
        table.senses = {s: dict(longs) for s, longs in senses.items()}
        table.by_initials = dict(by_initials)
        table.cased = dict(cased)
        # The one concept whose initials spell a short form no paper defines: `resolve` asks
        # for its papers. Found for all such concepts in one pass over the contexts (a scan
        # per concept made 7.47 M lookups for 213 of them at 35k papers: docs/PERFORMANCE.md).
        table._find_papers({next(iter(by_initials[sense])) for sense in undefined
                            if sense not in table.senses
                            and len(by_initials.get(sense, ())) == 1})
        return table

    def resolve(self, paper_id: str, short: str, proposed: bool = False,
                named: bool = False) -> tuple[str, str]:
        """(key, rule) of an undefined short form used in `paper_id` (see module docstring);
        `proposed` when the paper proposes it, `named` when it gives the name itself."""
        sense = short_sense_key(short)
        own = frozenset(self.context.get(paper_id, ()))
        longs = self.senses.get(sense)
        same_case = self.cased.get(short_key(short))
        if longs and same_case:
            longs = {long: papers for long, papers in longs.items() if long in same_case}
        rule = CONTEXT
        if longs:
            spelled = sorted(long for long in longs if long in own)
            if len(spelled) == 1:
                return spelled[0], CONTEXT
            if named:
                return sense, APART  # its own name: no other paper's sense
        else:
            candidates = sorted(self.by_initials.get(sense, ()))
            local = [key for key in candidates if key in own]
            if len(local) == 1:
                return local[0], INITIALS  # the paper spells it out itself
            if len(candidates) != 1 or named:
                return sense, APART
            longs = {candidates[0]: self._papers_of(candidates[0])}
            rule = INITIALS
        scores = sorted(
            ((self._score(own, (sense, long), papers, exclude={long, sense}), long)
             for long, papers in longs.items()),
            key=lambda sl: (-sl[0], sl[1]),
        )
        best, long = scores[0]
        if best > 0 and (len(scores) == 1 or scores[1][0] < best):
            return long, rule
        if rule == CONTEXT and not proposed:
            defining = len(set().union(*longs.values()))
            top, n = min(((long, len(p)) for long, p in longs.items()),
                         key=lambda ln: (-ln[1], ln[0]))
            if n / (defining + 1) > 0.5:
                return top, PRIOR
        return sense, APART

    def _find_papers(self, keys: set[str]) -> None:
        """The papers whose context holds each of `keys`, into `_papers_of`'s cache."""
        found: dict[str, set[str]] = {key: set() for key in keys}
        if found:
            for pid, context in self.context.items():
                for key in context:
                    if key in found:
                        found[key].add(pid)
        self._papers_cache.update(found)

    def _papers_of(self, key: str) -> set[str]:
        found = self._papers_cache.get(key)
        if found is None:
            found = self._papers_cache[key] = {
                pid for pid, keys in self.context.items() if _holds(keys, key)}
        return found

    def _score(
        self, own: frozenset[str], sense: tuple[str, str], papers: set[str], exclude: set[str]
    ) -> float:
        """How much `own` shares with the context of `papers`, the papers of `sense` (inverse
        document frequency); 0 unless a concept (not only the venue or year) is shared."""
        profile = self._profiles.get(sense)
        if profile is None:  # the union of the papers' contexts, once per sense
            profile = self._profiles[sense] = frozenset().union(
                *(self.context.get(pid, ()) for pid in papers))
        shared = (own & profile) - exclude
        if not any(not k.startswith("@") for k in shared):
            return 0.0
        n = len(self.context) + 1  # smoothed: a concept every paper has still counts a little
        # fsum: exactly rounded, so the same in every process whatever order the set gives
        # (a plain sum's last bit follows the hash seed, and ties are decided on it)
        return math.fsum(math.log(n / self.papers_with[k]) for k in shared)


def _holds(keys: tuple[str, ...], key: str) -> bool:
    """Whether the sorted `keys` hold `key`."""
    i = bisect_left(keys, key)
    return i < len(keys) and keys[i] == key


def definitions(paper: Paper, extraction: Extraction) -> list[tuple[str, str]]:
    """(short, long) of every acronym the paper defines: in its text, or in its title."""
    found = [(a.short, a.long) for a in extraction.acronyms]
    in_title = title_definition(paper.title)
    if in_title is not None:
        found.append(in_title)
    return found


def _metadata(paper: Paper) -> set[str]:
    """The venue and year of a paper as context keys (not concept keys: they start with '@')."""
    keys = set()
    if paper.venue:
        keys.add("@venue " + norm_key(paper.venue))
    if paper.year is not None:
        keys.add(f"@year {paper.year}")
    return keys
