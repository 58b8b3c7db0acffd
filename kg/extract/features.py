"""The signals of the rules as features of a candidate group, for the learned decisions.

Each candidate group (every occurrence of one key in one paper, `kg.extract.assemble`) gets a
dict of named numbers: which generators proposed it, what the gazetteer and the recogniser say,
the type nouns around it, the role patterns its phrases sit in and the verb they depend on,
where in the paper it occurs, how common it is in 35k background abstracts and which kind of
noun other abstracts put after it ("the X task", "the X benchmark"), its shape, and the
hand-written rules' own verdicts. `FEATURE_GROUPS` names the groups (the ablation in
`kg.eval.cv` drops one at a time); a model stores the names of the features it was trained on,
so a feature added later does not disturb a shipped model.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, lru_cache

from kg.extract.background import phrase_count, word_count
from kg.extract.candidates import GazetteerLookup
from kg.extract.context_types import NAMES as CONTEXT_TYPES
from kg.extract.context_types import (
    context_type_features,
    occurrence_context,
    window_type_features,
)
from kg.extract.contribution import NAMES as CONTRIBUTION_NAMES
from kg.extract.contribution import PaperText, contribution_features
from kg.extract.decisions import (
    AcceptReason,
    CandidateGroup,
    acceptance,
    decide_role,
    decide_type,
    usable_for,
)
from kg.extract.lexicon import GENERIC_HEADS
from kg.extract.overlaps import NAMES as OVERLAPS
from kg.extract.roles import (
    ADDRESS_VERBS,
    COMPARE_VERBS,
    PROPOSE_VERBS,
    USE_VERBS,
)
from kg.extract.span_types import COLUMNS as ANNOTATED
from kg.extract.span_types import head_types, span_types
from kg.extract.termhood import NAMES as TERMHOOD
from kg.extract.termhood import termhood_features
from kg.extract.terms import head_type
from kg.extract.type_nouns import NAMES as TYPE_NOUNS
from kg.extract.type_nouns import type_noun_features
from kg.normalize import norm_key
from kg.types import ConceptType, Field, Role
from kg.vocab.gazetteer import Gazetteer

KINDS = ("acronym", "name", "title", "gazetteer", "chunk", "model", "span")
SOURCES = ("pwc-method", "pwc-dataset", "pwc-task", "pwc-metric", "pwc-collection",
           "sota-model", "sota-dataset", "sota-task", "sota-metric", "nlp-tdms", "llm-list",
           "cso")
_EVAL_VERBS = frozenset({"evaluate", "test", "benchmark", "validate", "experiment"})
_VERB_CLASSES = (
    ("propose", PROPOSE_VERBS),
    ("use", USE_VERBS),
    ("address", ADDRESS_VERBS),
    ("compare", COMPARE_VERBS),
    ("evaluate", _EVAL_VERBS),
)
_TYPES = tuple(ConceptType)
# Endings of the last word that say what kind of noun it is: an action or process
# ("compression", "pansharpening": tasks and methods), a property ("robustness"), an agent
# ("encoder", "detector": models), a measure ("accuracy"), a plural.
_SUFFIXES = (
    ("process", re.compile(r"(?:tion|sion|ment|ing|ance|ence|sis)$")),
    ("property", re.compile(r"(?:ity|ness|ism|cy)$")),
    ("agent", re.compile(r"(?:er|or|net|former)$")),
    ("adjective", re.compile(r"(?:al|ic|ive|ous|able|ible|ed)$")),
    ("plural", re.compile(r"[^s]s$")),
)
_ROLES = tuple(Role)


def _names() -> dict[str, tuple[str, ...]]:
    t = [c.value for c in _TYPES]
    return {
        "generators": (*(f"kind_{k}" for k in KINDS), "n_kinds"),
        "gazetteer": ("gaz_n", "gaz_specific", "gaz_curated", "gaz_generic_only",
                      *(f"gaz_src_{s}" for s in SOURCES), *(f"gaz_type_{x}" for x in t)),
        "recogniser": tuple(f"rec_type_{x}" for x in t),
        "type_cues": (*(f"cue_{x}" for x in t), *(f"head_{x}" for x in t), "head_generic",
                      *(f"headgaz_{x}" for x in t), "headgaz_n",
                      *(f"suffix_{name}" for name, _ in _SUFFIXES)),
        "context": (*(f"role_{r.value}" for r in _ROLES), "introduced", "author_sentence",
                    *(f"verb_{name}" for name, _ in _VERB_CLASSES), "before_proposal",
                    "in_proposal_sentence", "title_prefix", "own", "authors_propose",
                    "first_role_proposes"),
        "position": ("count", "in_title", "in_abstract", "first_sentence", "last_sentence",
                     "first_position", "count_share", "title_words"),
        "contribution": CONTRIBUTION_NAMES,
        "background": ("bg_phrase", "bg_last_word", "bg_rarest_word", "bg_first_word",
                       "bg_cohesion", "bg_head_cohesion", "gaz_first_word", "gaz_any_word"),
        "boundaries": ("premodifier", "next_noun", "prev_modifier", "inside_known",
                       "contains_known"),
        "overlaps": OVERLAPS,
        "termhood": TERMHOOD,
        "shape": ("alpha_share", "n_words", "n_chars", "inner_capital", "all_caps",
                  "initial_capital", "digit", "hyphen", "title_case", "has_long_form",
                  "has_short_form", "cited", "coordination"),
        "annotated": (*(f"ann_span_{c}" for c in ANNOTATED), "ann_span_n",
                      *(f"ann_head_{c}" for c in ANNOTATED), "ann_head_n"),
        "type_nouns": TYPE_NOUNS,
        "context_types": CONTEXT_TYPES,
        "rules": (*(f"rule_{r.name.lower()}" for r in AcceptReason), "rule_accepts",
                  *(f"rule_type_{x}" for x in t), "rule_proposes"),
    }


FEATURE_GROUPS: dict[str, tuple[str, ...]] = _names()
FEATURE_NAMES: tuple[str, ...] = tuple(n for names in FEATURE_GROUPS.values() for n in names)
# What a group's neighbourhood and the background say of its type: read by the type and
# `proposes` models, and a third of the features' cost (66 of 177 us a group), so a build
# makes them only for the groups the acceptance keeps (`kg.extract.assemble.decide_prepared`)
# unless the acceptance models read them too.
TYPE_EVIDENCE: tuple[str, ...] = (*FEATURE_GROUPS["type_nouns"],
                                  *FEATURE_GROUPS["context_types"])
_ZEROS: dict[str, float] = dict.fromkeys(FEATURE_NAMES, 0.0)  # a group's features, at first
_TITLE_WORD = re.compile(r"^[A-Z][a-z]+$")


class _Unset:
    """Marks an argument the caller did not give (None is a meaningful value)."""


UNSET = _Unset()


@dataclass(frozen=True, slots=True)
class _TermWords:
    """Word statistics of the curated gazetteer terms (CSO's topics, typed by a coarse rule,
    left out): the types of the multi-word terms each word ends, how many such terms each word
    starts, how many terms contain it — words that start terms ("contrastive", "neural")
    against words that describe ("finer", "varying", "known")."""

    head_types: dict[str, Counter[ConceptType]]
    first: dict[str, int]
    anywhere: dict[str, int]


@cache
def _term_words() -> _TermWords:
    gazetteer = Gazetteer.load()
    heads: dict[str, Counter[ConceptType]] = defaultdict(Counter)
    first: Counter[str] = Counter()
    anywhere: Counter[str] = Counter()
    keys = gazetteer.keys()
    for key in keys:
        curated = [e for e in gazetteer.lookup(key) if e.source != "cso" and not e.generic]
        if not curated:
            continue
        words = key.split()
        anywhere.update(set(words))
        if len(words) > 1:
            first[words[0]] += 1
            heads[words[-1]].update(e.type for e in curated)
    return _TermWords(dict(heads), dict(first), dict(anywhere))


def head_word_types(word: str) -> tuple[dict[ConceptType, float], int]:
    """How the field's vocabularies type terms ending in `word` ("... detection" mostly
    tasks, "... network" models and methods): each type's share (smoothed) and how many
    terms end in it. A type noun the lexicon does not list still votes this way."""
    counts = _term_words().head_types.get(word.lower())
    if not counts:
        return {}, 0
    total = sum(counts.values())
    return {c: n / (total + 1) for c, n in counts.items()}, total


def _log(count: int) -> float:
    return math.log1p(count)


_ANN_SPAN_NAMES = tuple(f"ann_span_{column}" for column in ANNOTATED)
_SUFFIX_NAMES = tuple((f"suffix_{name}", suffix) for name, suffix in _SUFFIXES)


@lru_cache(maxsize=1 << 16)
def _last_word_features(last: str, last_word: str) -> tuple[tuple[str, float], ...]:
    """The features read off a group's last word alone (`last` of its key, `last_word` of its
    label, lower-cased): its head type, suffixes, how the vocabularies and the annotators type
    terms ending in it, its background count (a word is met again and again: computed once)."""
    f: dict[str, float] = {}
    head = head_type(last)
    if head is not None:
        f[f"head_{head.value}"] = 1.0
    f["head_generic"] = float(last in GENERIC_HEADS)
    for name, suffix in _SUFFIX_NAMES:
        f[name] = float(bool(suffix.search(last_word)))
    shares, seen = head_word_types(last)
    for ctype, share in shares.items():
        f[f"headgaz_{ctype.value}"] = share
    f["headgaz_n"] = _log(seen)
    f["bg_last_word"] = _log(word_count(last))
    typed = head_types(last)
    total = sum(typed)
    for column, n in zip(ANNOTATED, typed, strict=True):
        f[f"ann_head_{column}"] = n / (total + 1)
    f["ann_head_n"] = _log(total)
    return tuple(f.items())


def group_features(
    entry: CandidateGroup,
    gazetteer: GazetteerLookup,
    *,
    model_runs: bool,
    proposal_sentences: set[tuple[Field, int]],
    proposed_keys: set[str],
    title_prefix_key: str | None,
    sentences: dict[Field, int],
    title_words: frozenset[str] = frozenset(),
    max_count: int = 1,
    reason: AcceptReason | _Unset | None = UNSET,
    paper: PaperText | None = None,
    evidence: bool = True,
) -> dict[str, float]:
    """The features of one candidate group (names in `FEATURE_NAMES`); `reason`: the rules'
    acceptance of it when the caller has it already. Without `evidence`, the `TYPE_EVIDENCE`
    features stay 0 (`type_evidence` gives them)."""
    f = _ZEROS.copy()
    occs = entry.occurrences
    label = entry.labels.most_common(1)[0][0]
    words = entry.key.split()
    kinds = entry.kinds
    for kind in kinds:
        f[f"kind_{kind}"] = 1.0
    f["n_kinds"] = len(kinds)

    entries = usable_for(label, gazetteer(label))
    if entry.long_form:
        entries += usable_for(entry.long_form, gazetteer(entry.long_form))
    f["gaz_n"] = len(entries)
    f["gaz_specific"] = float(any(not e.generic for e in entries))
    f["gaz_curated"] = float(any(not e.generic and e.source != "cso" for e in entries))
    f["gaz_generic_only"] = float(bool(entries) and all(e.generic for e in entries))
    for e in entries:
        if f"gaz_src_{e.source}" in f:
            f[f"gaz_src_{e.source}"] = 1.0
        f[f"gaz_type_{e.type.value}"] += 1.0 / len(entries)

    for _, occ in occs:
        if occ.term.kind == "model" and occ.term.head_type is not None:
            f[f"rec_type_{occ.term.head_type.value}"] += 1.0
        for ctype, weight in occ.type_cues:
            if occ.term.kind != "model":
                f[f"cue_{ctype.value}"] += weight
    last = entry.key.rsplit(" ", 1)[-1]
    f.update(_last_word_features(last, label.rsplit(" ", 1)[-1].lower()))

    first_proposal = min((s for fld, s in proposal_sentences if fld is Field.ABSTRACT),
                         default=None)
    for fld, occ in occs:
        if occ.role is not None:
            f[f"role_{occ.role.value}"] += 1.0
        f["introduced"] = max(f["introduced"], float(occ.introduced))
        f["author_sentence"] = max(f["author_sentence"], float(occ.author))
        for name, verbs in _VERB_CLASSES:
            if occ.verb in verbs:
                f[f"verb_{name}"] += 1.0
        if fld is Field.ABSTRACT and first_proposal is not None and occ.sentence < first_proposal:
            f["before_proposal"] = 1.0
        if (fld, occ.sentence) in proposal_sentences:
            f["in_proposal_sentence"] = 1.0
        f["cited"] = max(f["cited"], float(occ.cited))
    f["title_prefix"] = float(entry.key == title_prefix_key)
    f["own"] = float(any(occ.own for _, occ in occs))
    f["authors_propose"] = float(sum(occ.author and occ.verb in PROPOSE_VERBS
                                     for _, occ in occs))
    first_occ = min(occs, key=lambda fo: (fo[0] is not Field.ABSTRACT, fo[1].char_start))[1]
    f["first_role_proposes"] = float(first_occ.role is Role.PROPOSES)
    f["title_words"] = len(set(words) & title_words) / max(len(words), 1)
    f["count_share"] = entry.count / max(max_count, 1)

    f["count"] = entry.count
    f["in_title"] = float(any(fld is Field.TITLE for fld, _ in occs))
    abstract = [o for fld, o in occs if fld is Field.ABSTRACT]
    f["in_abstract"] = float(bool(abstract))
    n_sent = max(sentences.get(Field.ABSTRACT, 1), 1)
    if abstract:
        first = min(o.sentence for o in abstract)
        f["first_sentence"] = float(first == 0)
        f["last_sentence"] = float(any(o.sentence == n_sent - 1 for o in abstract))
        f["first_position"] = first / n_sent
    else:
        f["first_position"] = -1.0

    if paper is not None:
        f.update(contribution_features(occs, label, entry.count,
                                       bool(kinds & {"acronym", "name"}), paper))

    f["bg_phrase"] = _log(phrase_count(entry.key))
    counts = [word_count(w) for w in words] or [0]
    f["bg_rarest_word"] = _log(min(counts))
    f["bg_first_word"] = _log(counts[0])
    # How bound the words are: the share of the abstracts using its rarest word (its last
    # word) that use the whole phrase — "linear regression" is a term, "varying degrees" not.
    phrase = f["bg_phrase"]
    f["bg_cohesion"] = phrase - f["bg_rarest_word"] if len(words) > 1 else 0.0
    f["bg_head_cohesion"] = phrase - f["bg_last_word"] if len(words) > 1 else 0.0
    term_words = _term_words()
    f["gaz_first_word"] = _log(term_words.first.get(words[0], 0)) if len(words) > 1 else 0.0
    f["gaz_any_word"] = min((_log(term_words.anywhere.get(w, 0)) for w in words), default=0.0)

    # How SciERC and TDMSci annotators typed this span and spans ending in its last word
    # (shares smoothed by one, so a single annotation says less than fifty).
    typed = span_types(entry.key)
    total = sum(typed)
    for column, n in zip(_ANN_SPAN_NAMES, typed, strict=True):
        f[column] = n / (total + 1)
    f["ann_span_n"] = _log(total)

    # Where SciERC's and SciREX's annotators draw a term's edges around its first and last
    # words ("detailed" stands before spans, "pooling" ends them).
    f.update(termhood_features(words))

    if evidence:
        f.update(type_evidence(entry, paper.texts if paper is not None else None))

    for name in ("premodifier", "next_noun", "prev_modifier"):
        f[name] = sum(getattr(occ, name) for _, occ in occs) / len(occs)
    if paper is not None:
        f["inside_known"], f["contains_known"] = paper.nesting(occs)
    f["alpha_share"] = sum(c.isalpha() for c in label) / max(len(label), 1)
    f["n_words"] = len(words)
    f["n_chars"] = len(label)
    f["inner_capital"] = float(any(c.isupper() for w in label.split() for c in w[1:]))
    f["all_caps"] = float(label.replace("-", "").replace(" ", "").isupper())
    f["initial_capital"] = float(label[:1].isupper())
    f["digit"] = float(any(c.isdigit() for c in label))
    f["hyphen"] = float("-" in label)
    f["title_case"] = float(all(_TITLE_WORD.match(w) for w in label.split()))
    f["has_long_form"] = float(entry.long_form is not None)
    f["has_short_form"] = float(entry.short_form is not None)
    f["coordination"] = float(" and " in f" {entry.key} " or " or " in f" {entry.key} ")

    if isinstance(reason, _Unset):
        reason = acceptance(entry, gazetteer, model_runs=model_runs)
    if reason is not None:
        f[f"rule_{reason.name.lower()}"] = 1.0
        f["rule_accepts"] = 1.0
    proposed = Role.PROPOSES in entry.roles
    ctype = decide_type(entry, gazetteer, proposed)
    f[f"rule_type_{ctype.value}"] = 1.0
    role = decide_role(entry, ctype, gazetteer, proposal_sentences, proposed_keys,
                       title_prefix_key)
    f["rule_proposes"] = float(role is Role.PROPOSES)
    return f


def type_evidence(entry: CandidateGroup, texts: dict[Field, str] | None) -> dict[str, float]:
    """The `TYPE_EVIDENCE` features of one candidate group (those `group_features` leaves
    at 0 without `evidence`; `texts`: its paper's fields, None for the type nouns alone)."""
    keys = [entry.key, *([norm_key(entry.short_form)] if entry.short_form else [])]
    # How the background abstracts name its kind ("the X task", "the X benchmark").
    f = type_noun_features(keys)
    # Which types SciERC and SciREX annotators gave to spans standing where its occurrences
    # stand ("via X": a method, "for X": a task), to the span itself in SciREX, and to spans
    # with the same words a few words away ("datasets with images (X)").
    if texts is not None:
        around = [occurrence_context(texts.get(fld, ""), occ.char_start, occ.char_end,
                                     occ.sent_start, occ.sent_end)
                  for fld, occ in entry.occurrences]
        f.update(context_type_features([near for near, _ in around], keys))
        f.update(window_type_features([words for _, words in around]))
    return f


def vector(features: dict[str, float], names: Sequence[str]) -> list[float]:
    """The values of `names`, in order (0 for a name this version does not compute)."""
    return [features.get(n, 0.0) for n in names]
