"""Canonicalisation: one node per concept across the corpus.

Mentions merge when their keys match (`kg.normalize.norm_key`: case, hyphen/space, plural,
diacritics). An acronym joins its long form: within a paper that defines it, always; in papers
that use it without defining it, only when every paper that defines it expands it the same
way — an acronym expanded differently by different papers stays its own node, never merged.
Every surface form other than the preferred label becomes an alternative label.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable

from kg.extract.acronyms import is_short_form, short_key
from kg.normalize import norm_key, singularize
from kg.types import Concept, ConceptType, Extraction, Field, Link, Mention, Paper


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


def _display(label: str, key: str) -> str:
    """A label in singular form, as the key has it ("Large language models" -> "… model")."""
    words = label.split(" ")
    last = words[-1]
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
    mid = [m for m in pool if m.span.start != m.sentence.start and m.span.field is not Field.TITLE]
    counts = Counter(m.label for m in (mid or pool))
    best = min(counts.items(), key=lambda kv: (-kv[1], kv[0]))[0]
    if not mid:
        best = _decapitalise(best)
    if best in acronyms or short_key(best) in acronyms:
        return short_key(best)
    return _display(best, key)


def canonicalise(
    papers: Iterable[Paper], extractions: dict[str, Extraction]
) -> tuple[dict[str, Concept], list[Link]]:
    """Concepts (by key, sorted) and links (by paper order, then key) of a corpus."""
    expansions = acronym_expansions(extractions.values())
    by_key: dict[str, list[Mention]] = defaultdict(list)
    type_votes: dict[str, Counter[ConceptType]] = defaultdict(Counter)
    links: list[Link] = []
    for paper in papers:
        extraction = extractions.get(paper.id)
        if extraction is None:
            continue
        per_paper: dict[str, list[Mention]] = defaultdict(list)
        for mention in extraction.mentions:
            key = mention_key(mention, expansions)
            if key:
                per_paper[key].append(mention)
        for key in sorted(per_paper):
            mentions = per_paper[key]
            by_key[key].extend(mentions)
            # One vote per paper: a paper's mentions share the type the paper decided.
            text_types = [m.ctype for m in mentions if m.span.field is not Field.KEYWORDS]
            type_votes[key][Counter(text_types or [m.ctype for m in mentions])
                            .most_common(1)[0][0]] += 1
            role = min((m.role for m in mentions), key=lambda r: r.rank)
            links.append(Link(paper.id, key, role, tuple(mentions)))
    concepts: dict[str, Concept] = {}
    for key in sorted(by_key):
        mentions = by_key[key]
        acronyms = {short_key(m.label) for m in mentions if m.long_form}
        acronyms |= {m.label for m in mentions if m.long_form}
        if not any(m.long_form is None and m.label not in acronyms for m in mentions):
            # Only ever seen as an (undefined or ambiguous) acronym.
            acronyms |= {short_key(m.label) for m in mentions if is_short_form(m.label)}
        pref = _pref_label(mentions, key, acronyms)
        alts = sorted({m.label for m in mentions} - {pref})
        votes = type_votes[key]
        ctype = min(votes.items(), key=lambda kv: (-kv[1], list(ConceptType).index(kv[0])))[0]
        concepts[key] = Concept(
            key=key,
            pref_label=pref,
            ctype=ctype,
            alt_labels=tuple(alts),
            acronyms=tuple(sorted({short_key(a) for a in acronyms if is_short_form(a)} - {pref})),
        )
    return concepts, links
