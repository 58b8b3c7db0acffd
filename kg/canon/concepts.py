"""Canonicalisation: one node per concept across the corpus.

Mentions merge when their keys match (`kg.normalize.norm_key`: case, hyphen/space, plural,
diacritics). A short form joins the long form its paper defines it with; a paper that uses it
without defining it gets the sense its context fits, or keeps it apart (`kg.canon.senses`):
"ACE" defined two ways is two nodes, and LLM / LLMs / large language model(s) is one. Every
surface form other than the preferred label becomes an alternative label, and every acronym
merge is recorded as a `CanonDecision` (which variants, by which rule, in how many papers).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, MutableMapping, Sequence
from dataclasses import dataclass, field, replace

from kg.canon import senses as sn
from kg.canon import variants as vr
from kg.canon.origin import names_here
from kg.canon.paper_links import links_by_paper
from kg.extract.acronyms import is_short_form, short_key
from kg.normalize import norm_key, singularize
from kg.types import (
    CanonDecision,
    Concept,
    ConceptType,
    Extraction,
    Field,
    Link,
    Mention,
    Paper,
    Role,
)


def acronym_expansions(extractions: Iterable[Extraction]) -> dict[str, set[str]]:
    """Short form -> the keys of every long form the corpus defines it with."""
    table: dict[str, set[str]] = defaultdict(set)
    for extraction in extractions:
        for acronym in extraction.acronyms:
            table[short_key(acronym.short)].add(norm_key(acronym.long))
    return table


def mention_key(mention: Mention, expansions: dict[str, set[str]]) -> str:
    """The canonical key of a mention (see module docstring)."""
    if mention.long_form:
        return norm_key(mention.long_form)
    label = mention.label
    if is_short_form(label):
        longs = expansions.get(short_key(label))
        if longs is not None and len(longs) == 1:
            return next(iter(longs))
    return norm_key(label)


# Prepositions before a phrase's last word: that word is then the object of a preposition
# inside the phrase, not its head, and keeps its number ("mixture of experts").
_PREPOSITIONS = frozenset(
    "of from for with by in on to over across via without under between among into".split())


def _display(label: str, key: str) -> str:
    """A label in singular form, as the key has it ("Large language models" -> "… model"),
    unless its last word follows a preposition ("Bidirectional Encoder Representations from
    Transformers", "mixture of experts": the head is an earlier word).

    >>> _display("Large language models", "large language model")
    'Large language model'
    >>> _display("mixture of experts", "mixture of expert")
    'mixture of experts'
    """
    words = label.split(" ")
    last = words[-1]
    if len(words) > 2 and words[-2].lower() in _PREPOSITIONS:
        return label
    key_last = key.rsplit(" ", 1)[-1]
    if last.lower() != key_last and singularize(last.lower()) == key_last:
        if last.isupper() or last[:-1].isupper():
            words[-1] = last[:-1]
        else:
            words[-1] = last[: len(key_last)] if last.lower().startswith(key_last) else (
                singularize(last))
    return " ".join(words)


def _decapitalise(label: str) -> str:
    """'Dataset distillation' -> 'dataset distillation' (a sentence-initial capital only)."""
    first, _, rest = label.partition(" ")
    if first.istitle() and first.isalpha() and rest and rest == rest.lower():
        return first.lower() + " " + rest
    return label


def _pref_label(mentions: list[Mention], key: str, acronyms: set[str]) -> str:
    full = [m for m in mentions if m.label not in acronyms and short_key(m.label) not in acronyms]
    if not full:
        # Only the acronym survived in the text: name the node by its long form.
        longs = Counter(m.long_form for m in mentions if m.long_form)
        if longs:
            best_long = min(longs.items(), key=lambda kv: (-kv[1], kv[0]))[0]
            return _display(_decapitalise(best_long), key)
    pool = full or mentions
    # A label of the key itself over a variant merged into it ("Diffusion" -> diffusion model).
    pool = [m for m in pool if norm_key(m.label) == key] or pool
    mid = [m for m in pool if m.span.start != m.sentence.start and m.span.field is not Field.TITLE]
    counts = Counter(m.label for m in (mid or pool))
    best = min(counts.items(), key=lambda kv: (-kv[1], kv[0]))[0]
    if not mid:
        best = _decapitalise(best)
    if best in acronyms or short_key(best) in acronyms:
        return short_key(best)
    return _display(best, key)


@dataclass(slots=True)
class Canonical:
    """What canonicalisation decided: concepts, links, decisions, and each paper's keys."""

    concepts: dict[str, Concept]
    links: list[Link]
    decisions: list[CanonDecision] = field(default_factory=list)
    # (paper id, key before senses) -> concept key, where the paper's context moved it.
    keys: dict[tuple[str, str], str] = field(default_factory=dict)

    # Later moves of whole concepts (key -> key, or None: dropped) and of one paper's links.
    moves: dict[str, str | None] = field(default_factory=dict)
    paper_moves: dict[tuple[str, str], str | None] = field(default_factory=dict)
    # Types a rule set over the papers' votes (`kg.canon.names.stated_types`), kept on rekey.
    stated: dict[str, ConceptType] = field(default_factory=dict)
    # The links `concepts` were made from (by `canonicalise_corpus` or `rekey`): while
    # `links` is still that list, `rekey` remakes only the concepts of the keys it moves.
    # None (a `Canonical` made by hand), or `links` replaced since: all are remade.
    made_from: list[Link] | None = field(default=None, repr=False, compare=False)

    def key_of(self, paper_id: str, mention: Mention) -> str:
        """The concept key of one mention of `paper_id` (as its link has it; "" if dropped)."""
        raw = sn.raw_key(mention)
        key: str | None = self.keys.get((paper_id, raw), raw)
        while key is not None:
            pair = (paper_id, key)
            if pair in self.paper_moves:
                key = self.paper_moves[pair]
            elif key in self.moves:
                key = self.moves[key]
            else:
                break
        return key or ""

    def rekey(
        self,
        moves: Mapping[str, str | None],
        paper_moves: Mapping[tuple[str, str], str | None] | None = None,
    ) -> None:
        """Move links to other keys (None drops them) and rebuild the concepts they make up.

        A paper's links that land on one key become one link (the strongest role, every
        mention); links stay in paper order, then key order.
        """
        paper_moves = paper_moves or {}
        current = self.made_from is self.links
        for source, target in moves.items():
            if target is not None:
                self.moves.pop(target, None)  # a key moved away earlier is live again
            self.moves[source] = target
        self.paper_moves.update(paper_moves)
        # One paper's links at a time (issue 14: a dict of every (paper, key) pair and a new
        # `Link` for each doubled the links while it ran); a link that stays is kept as it is.
        links: list[Link] = []
        for paper_id, paper_links in links_by_paper(self.links):
            merged: dict[str, Link] = {}
            for link in paper_links:
                pair = (paper_id, link.concept_key)
                key = paper_moves[pair] if pair in paper_moves else moves.get(
                    link.concept_key, link.concept_key)
                if key is None:
                    continue
                old = merged.get(key)
                if old is None:
                    merged[key] = link if key == link.concept_key else Link(
                        paper_id, key, link.role, link.mentions)
                else:
                    role = min(old.role, link.role, key=lambda r: r.rank)
                    merged[key] = Link(paper_id, key, role, old.mentions + link.mentions)
            links.extend(merged[key] for key in sorted(merged))
        self.links = links
        if current:
            # A concept is made from its key's links alone (issue 14: four rekeys remade
            # every concept of the corpus): only the keys whose links change are remade.
            touched = {*moves, *(k for _, k in paper_moves),
                       *(k for k in (*moves.values(), *paper_moves.values()) if k is not None)}
            kept = {k: c for k, c in self.concepts.items() if k not in touched}
            kept.update(concepts_from_links(link for link in links if link.concept_key in touched))
            self.concepts = {key: kept[key] for key in sorted(kept)}
        else:
            self.concepts = concepts_from_links(self.links)
        self.made_from = links
        for key, ctype in self.stated.items():
            if key in self.concepts:
                self.concepts[key] = replace(self.concepts[key], ctype=ctype)


def canonicalise(
    papers: Iterable[Paper], extractions: dict[str, Extraction]
) -> tuple[dict[str, Concept], list[Link]]:
    """Concepts (by key, sorted) and links (by paper order, then key) of a corpus."""
    result = canonicalise_corpus(papers, extractions)
    return result.concepts, result.links


def canonicalise_corpus(
    papers: Iterable[Paper], extractions: Mapping[str, Extraction], *, release: bool = False
) -> Canonical:
    """Concepts, links and the merge decisions of a corpus (see module docstring).

    `release`: `extractions` is the caller's own dict, and each paper's entry is replaced by
    its `after_links` once its links are made (issue 14: a paper's tuples of mentions,
    sentences and acronyms are read no more, and were held to the end of the build).
    """
    released: MutableMapping[str, Extraction] | None = None
    if release:
        if not isinstance(extractions, MutableMapping):
            raise TypeError("release=True needs the extractions as a dict to replace them in")
        released = extractions
    # A sequence as it is (a `PaperShelf` reads its papers on each pass, not into a list).
    paper_list = papers if isinstance(papers, Sequence) else list(papers)
    spelling = vr.variant_map(_papers_per_key(paper_list, extractions))

    def canon(key: str) -> str:
        return spelling.get(key, key)

    table = sn.SenseTable.build(paper_list, extractions, canon)
    moved: dict[tuple[str, str], dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    keys: dict[tuple[str, str], str] = {}
    links: list[Link] = []
    for paper in paper_list:
        extraction = extractions.get(paper.id)
        if extraction is None:
            continue
        paper_id = same_id(paper, extraction)
        own = {s: canon(long) for s, long in _own_definitions(paper, extraction).items()}
        proposed = {sn.short_sense_key(m.label) for m in extraction.mentions
                    if m.role is Role.PROPOSES and sn.is_undefined_short(m)}
        named = {sn.short_sense_key(m.label) for m in extraction.mentions
                 if sn.is_undefined_short(m) and names_here(paper, m)}
        per_paper: dict[str, list[Mention]] = defaultdict(list)
        for mention in extraction.mentions:
            key, rule = _resolve(paper_id, mention, own, table, proposed, named)
            if not key:
                continue
            if key in spelling:
                moved[spelling[key], vr.RULE][mention.label].add(paper_id)
                key = spelling[key]
            per_paper[key].append(mention)
            raw = sn.raw_key(mention)
            if key != raw:
                keys[paper_id, raw] = key
            if rule is not None:
                moved[key, rule][mention.label].add(paper_id)
        for key in sorted(per_paper):
            mentions = per_paper[key]
            role = min((m.role for m in mentions), key=lambda r: r.rank)
            links.append(Link(paper_id, key, role, tuple(mentions)))
        if released is not None:
            slim = after_links(extraction)
            if slim is None:
                del released[paper.id]
            else:
                released[paper.id] = slim
    concepts = concepts_from_links(links)
    return Canonical(concepts, links, _decisions(moved, table, concepts), keys, made_from=links)


def after_links(extraction: Extraction) -> Extraction | None:
    """What later stages read of a paper's extraction once its links are made: the relations
    (`kg.canon.relations`, given the links' keys) and the URLs (`kg.rdf`); None if neither."""
    if not extraction.urls and not extraction.relations:
        return None
    return Extraction(extraction.paper_id, urls=extraction.urls,
                      relations=extraction.relations)


def same_id(paper: Paper, extraction: Extraction) -> str:
    """The paper's id as the extraction's string (a `PaperShelf` makes a new one at each
    read): what the corpus keeps a paper's id in is one string per paper (issue 14)."""
    return extraction.paper_id if extraction.paper_id == paper.id else paper.id


def concepts_from_links(links: Iterable[Link]) -> dict[str, Concept]:
    """The concept of every key the links name, sorted by key; one type vote per link."""
    by_key: dict[str, list[Mention]] = defaultdict(list)
    type_votes: dict[str, Counter[ConceptType]] = defaultdict(Counter)
    for link in links:
        mentions = link.mentions
        by_key[link.concept_key].extend(mentions)
        # One vote per paper: a paper's mentions share the type the paper decided.
        types = ([m.ctype for m in mentions if m.span.field is not Field.KEYWORDS]
                 or [m.ctype for m in mentions])
        first = types[0]
        # The most common type, the first seen of equals (`most_common`); mostly just one.
        vote = first if all(t is first for t in types) else Counter(types).most_common(1)[0][0]
        type_votes[link.concept_key][vote] += 1
    return {key: _concept(key, by_key[key], type_votes[key]) for key in sorted(by_key)}


def _papers_per_key(
    papers: Sequence[Paper], extractions: Mapping[str, Extraction]
) -> Counter[str]:
    """How many papers mention each key (before senses: long forms and labels as written)."""
    counts: Counter[str] = Counter()
    for paper in papers:
        extraction = extractions.get(paper.id)
        if extraction is not None:
            counts.update({sn.raw_key(m) for m in extraction.mentions} - {""})
    return counts


def _own_definitions(paper: Paper, extraction: Extraction) -> dict[str, str]:
    """Short-form sense key -> the long form key this paper defines it with (first wins;
    the text before the title)."""
    own: dict[str, str] = {}
    for short, written in sn.definitions(paper, extraction):
        long = norm_key(written)
        if long:
            own.setdefault(sn.short_sense_key(short), long)
    return own


def _resolve(
    paper_id: str,
    mention: Mention,
    own: dict[str, str],
    table: sn.SenseTable,
    proposed: set[str],
    named: set[str],
) -> tuple[str, str | None]:
    """(concept key, rule name when a short form was joined to a long form or kept apart)."""
    if mention.long_form:
        return norm_key(mention.long_form), sn.DEFINED
    if not sn.is_undefined_short(mention):
        return norm_key(mention.label), None
    sense = sn.short_sense_key(mention.label)
    if sense in own:
        return own[sense], sn.DEFINED
    key, rule = table.resolve(paper_id, mention.label, sense in proposed, sense in named)
    if rule == sn.APART and len(table.senses.get(sense, ())) == 0:
        return key, None  # never defined anywhere: an ordinary name, nothing was decided
    return key, rule


def _concept(key: str, mentions: list[Mention], votes: Counter[ConceptType]) -> Concept:
    acronyms = {short_key(m.label) for m in mentions if m.long_form}
    acronyms |= {m.label for m in mentions if m.long_form}
    if not any(m.long_form is None and m.label not in acronyms for m in mentions):
        # Only ever seen as an (undefined or ambiguous) acronym.
        acronyms |= {short_key(m.label) for m in mentions if is_short_form(m.label)}
    pref = _pref_label(mentions, key, acronyms)
    alts = sorted({m.label for m in mentions} - {pref})
    order = list(ConceptType)
    ranked = sorted(votes.items(), key=lambda kv: (-kv[1], order.index(kv[0])))
    return Concept(
        key=key,
        pref_label=pref,
        ctype=ranked[0][0],
        alt_labels=tuple(alts),
        acronyms=tuple(sorted({short_key(a) for a in acronyms if is_short_form(a)} - {pref})),
        type_votes=tuple(ranked),
    )


def _decisions(
    moved: dict[tuple[str, str], dict[str, set[str]]],
    table: sn.SenseTable,
    concepts: dict[str, Concept],
) -> list[CanonDecision]:
    """One decision per (concept, rule): the short forms it joined or kept apart, and why."""
    out: list[CanonDecision] = []
    for (key, rule), labels in sorted(moved.items()):
        if key not in concepts:
            continue
        papers = set().union(*labels.values())
        variants = tuple(sorted(labels))
        if rule == sn.DEFINED and all(norm_key(v) == key for v in variants):
            continue  # the long form itself: nothing was joined
        senses = sorted({
            long for v in variants
            for long in table.senses.get(sn.short_sense_key(v), {})
        })
        if rule == vr.RULE:
            out.append(CanonDecision(key, rule, variants, len(papers),
                                     "spelled differently: split or plural words"))
            continue
        if rule == sn.APART:
            note = "kept apart: its papers do not say which of these it means: " + "; ".join(
                senses)
        elif rule == sn.DEFINED:
            note = "defined as this long form by the papers that use it"
        elif rule == sn.PRIOR:
            note = ("not defined in these papers and their concepts do not tell; most papers "
                    "that define it mean this")
        elif rule == sn.INITIALS:
            note = "never defined; the only concept whose initials spell it, in shared context"
        else:
            note = "not defined in these papers; their concepts fit this sense best"
        others = [s for s in senses if s != key]
        if others and rule != sn.APART:
            note += "; other senses kept apart: " + "; ".join(others)
        out.append(CanonDecision(key, rule, variants, len(papers), note))
    return out
