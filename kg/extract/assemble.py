"""From the candidates of a paper's fields to its mentions: score, type, role, map offsets.

Candidates are grouped per paper by canonical key (an acronym joins its long form). A group
becomes a concept of the paper when its evidence is strong enough:

- acronym definitions and names (spelling marks them) always;
- gazetteer terms when multi-word, or repeated, or rare in ML abstracts (lexicon frequency);
- other noun phrases when repeated in the paper, or when the sentence gives them a role
  (proposed, compared with, evaluated on) and their head a type.

Its type is the weighted vote of the cues (appositions, "X dataset", head nouns, gazetteer,
acronym long form), its role the strongest its phrases play, else the default of its type.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from kg.extract.background import phrase_count
from kg.extract.candidates import (
    FieldCandidates,
    GazetteerLookup,
    Occurrence,
    is_generic_label,
)
from kg.extract.entity_model import EXTRACTOR_MODEL
from kg.extract.lexicon import GENERIC_HEADS
from kg.extract.terms import head_type
from kg.extract.textfix import Repaired
from kg.normalize import norm_key
from kg.types import ConceptType, Field, Mention, Role, Span
from kg.vocab import Entry

EXTRACTOR_RULES = "rules"
EXTRACTOR_GAZETTEER = "gazetteer"
_EXTRACTORS = {"gazetteer": EXTRACTOR_GAZETTEER, "model": EXTRACTOR_MODEL}

DEFAULT_ROLE = {
    ConceptType.TASK: Role.ADDRESSES,
    ConceptType.DATASET: Role.EVALUATES_ON,
    ConceptType.METRIC: Role.MEASURES,
    ConceptType.MODEL: Role.USES,
    ConceptType.METHOD: Role.USES,
    ConceptType.CONCEPT: Role.MENTIONS,
}
_KIND_PRIORITY = {"acronym": 0, "name": 1, "gazetteer": 2, "chunk": 3, "model": 4}
_MODEL_NAME = re.compile(r"\d+(\.\d+)?[BbMm]\b|-(Instruct|Chat|Base|base|chat|instruct)\b|"
                         r"^(GPT|Llama|LLaMA|Qwen|Mistral|Mixtral|Gemma|Claude|Gemini|Phi|"
                         r"DeepSeek|Vicuna|Falcon|OPT|BERT|RoBERTa|T5|ViT|CLIP|ResNet)")
_ESTABLISHED = 3  # a phrase used in this many background abstracts is an established term


@dataclass
class CandidateGroup:
    """All candidate occurrences of one key in one paper."""

    key: str
    occurrences: list[tuple[Field, Occurrence]] = field(default_factory=list)
    labels: Counter[str] = field(default_factory=Counter)
    long_form: str | None = None
    short_form: str | None = None

    @property
    def kinds(self) -> set[str]:
        return {occ.term.kind for _, occ in self.occurrences}

    @property
    def count(self) -> int:
        return len({(f, o.term.start) for f, o in self.occurrences})

    @property
    def roles(self) -> list[Role]:
        return [o.role for _, o in self.occurrences if o.role is not None]


def acceptance(
    entry: CandidateGroup, gazetteer: GazetteerLookup, *, model_runs: bool = False
) -> str | None:
    """Why this candidate becomes a concept of its paper (a short reason), or None.

    `model_runs`: the trained recogniser tagged this paper, so its agreement can be asked for.
    """
    kinds = entry.kinds
    label = entry.labels.most_common(1)[0][0]
    if is_generic_label(label) or len(entry.key) < 2:
        return None
    if "acronym" in kinds or entry.long_form or entry.short_form:
        return "acronym"
    words = entry.key.split()
    entries = _usable(label, gazetteer(label))
    specific_gaz = any(not e.generic for e in entries)
    roles = set(entry.roles)
    strong_role = bool(roles & {Role.PROPOSES, Role.COMPARES_WITH, Role.EVALUATES_ON})
    if "name" in kinds:
        if not _TITLE_WORD.match(label) or entry.count >= 2 or specific_gaz or strong_role:
            return "name"
        # A lone capitalised word said once ("Lipschitz", "Fisher") is mostly an eponym
        # describing something else.
        return None
    if " and " in f" {entry.key} " or " or " in f" {entry.key} ":
        # "approximation and estimation": a coordination, not one term
        return "gazetteer phrase" if specific_gaz else None
    # The trained recogniser agreeing that the span is an entity (when it runs).
    model_agrees = "model" in kinds or not model_runs
    if "gazetteer" in kinds or entries:
        curated = any(not e.generic and e.source != "cso" for e in entries)
        if len(words) > 1 and specific_gaz and (curated or model_agrees or entry.count >= 2):
            # CSO's topics include broad phrases ("theoretical analysis"): they need the
            # model's agreement or a second mention.
            return "gazetteer phrase"
        if specific_gaz and entry.count >= 2:
            return "gazetteer word, repeated"
        if specific_gaz and roles:
            return "gazetteer word, role"
        # A broad term ("fairness", "robustness") said three times is what the paper is about.
        return "gazetteer generic, repeated" if entry.count >= 3 else None
    if len(words) == 1:
        return None  # a lone word is a concept only when the gazetteer knows it (above)
    if kinds == {"model"}:
        return None  # the recogniser alone proposes too much (its spans are SciERC-wide)
    if words[-1] in GENERIC_HEADS:
        # "labeled data", "downstream task": a generic head needs an established, repeated
        # phrase ("diffusion model" is one, and the gazetteer knows it anyway) — or, for a
        # measure ("resolve rate"), repetition alone.
        if entry.count >= 2 and (phrase_count(entry.key) >= _ESTABLISHED
                                 or head_type(words[-1]) is ConceptType.METRIC):
            return "generic-head phrase, repeated"
        return None
    if entry.count >= 2:
        return "phrase, repeated"
    if any(o.term.method_head for _, o in entry.occurrences):
        return "phrase named a method"
    if _EPONYM.match(label):
        return "eponym phrase"  # "Fisher's divergence", "Bayes' rule"
    if phrase_count(entry.key) >= _ESTABLISHED:
        return "established phrase"
    if strong_role and any(c for _, o in entry.occurrences for c in o.type_cues):
        return "phrase, role and type"
    return None


# Weight of one source's vote for a type, by how well its typing can be trusted.
_SOURCE_WEIGHT = {"cso": 0.5}
_EPONYM = re.compile(
    r"^[A-Z][a-z]+['’]s? (?:divergence|distance|rule|theorem|law|inequality|method|algorithm|"
    r"bound|lemma|criterion|equation|index|coefficient|test|loss|metric|score|model|process|"
    r"transform|kernel|information|matrix|estimator|principle)$"
)
_TITLE_WORD = re.compile(r"^[A-ZÀ-Ý][a-zß-ÿ]+$")


def _usable(label: str, entries: Sequence[Entry]) -> list[Entry]:
    """Gazetteer entries that can stand for `label`: a short all-caps label ("SSL", "KV") is
    ambiguous with countless dataset acronyms, so dataset entries do not count for it."""
    if len(label) <= 4 and label.isupper():
        return [e for e in entries if e.type is not ConceptType.DATASET]
    return list(entries)


def _decide_type(
    entry: CandidateGroup, gazetteer: GazetteerLookup, proposed: bool
) -> ConceptType:
    votes: dict[ConceptType, float] = defaultdict(float)
    for _, occ in entry.occurrences:
        for ctype, weight in occ.type_cues:
            votes[ctype] += weight
    labels = [entry.labels.most_common(1)[0][0]]
    if entry.long_form:
        labels.append(entry.long_form)
    for label in labels:
        hits = _usable(label, gazetteer(label))
        sources: dict[str, set[ConceptType]] = {}
        for hit in hits:
            sources.setdefault(hit.source, set()).add(hit.type)
        for source, types in sources.items():
            for ctype in types:
                share = 2 * _SOURCE_WEIGHT.get(source, 2.0) / len(types) / len(sources)
                votes[ctype] += share
    if votes:
        return max(votes.items(), key=lambda kv: (kv[1], -list(ConceptType).index(kv[0])))[0]
    label = labels[0]
    if _MODEL_NAME.search(label):
        return ConceptType.MODEL
    if proposed:
        return ConceptType.METHOD
    if "name" in entry.kinds or "acronym" in entry.kinds:
        words = label.split()
        if len(words) > 1 and all(_TITLE_WORD.match(w) or w.islower() for w in words):
            return ConceptType.CONCEPT  # "Inertial Confinement Fusion": a field, not a method
        return ConceptType.CONCEPT if _TITLE_WORD.match(label) else ConceptType.METHOD
    return ConceptType.CONCEPT


def _labels(entry: CandidateGroup) -> list[str]:
    labels = [entry.labels.most_common(1)[0][0]]
    if entry.long_form:
        labels.append(entry.long_form)
    return labels


def _decide_role(
    entry: CandidateGroup,
    ctype: ConceptType,
    gazetteer: GazetteerLookup,
    proposal_sentences: set[tuple[Field, int]],
    proposed_keys: set[str],
    title_prefix_key: str | None,
) -> Role:
    roles = entry.roles
    if entry.key == title_prefix_key:
        return Role.PROPOSES
    # A method the field's registries already list ("we design a Conditional Random Field")
    # is used, not proposed.
    known = any(e.source != "cso" and not e.generic for label in _labels(entry)
                for e in gazetteer(label))
    if Role.PROPOSES in roles:
        # Prior work named before the proposal is not the paper's own contribution.
        first_proposal = min((s for f, s in proposal_sentences if f is Field.ABSTRACT),
                             default=None)
        earlier = [o for f, o in entry.occurrences if f is Field.ABSTRACT
                   and first_proposal is not None and o.sentence < first_proposal]
        named = entry.kinds & {"acronym", "name"}
        introduced = any(o.introduced for _, o in entry.occurrences)
        if not earlier and (named or introduced) and not known:
            return Role.PROPOSES
        roles = [r for r in roles if r is not Role.PROPOSES]
    if any(k != entry.key and re.search(rf"(^| ){re.escape(k)}( |$)", entry.key)
           for k in proposed_keys) and "name" in entry.kinds:
        return Role.PROPOSES  # "Llama3-ChatQA-2-70B" is a variant of the proposed "ChatQA 2"
    # One evaluates on datasets and task settings, and measures with metrics: a pattern that
    # gives another type such a role says nothing about it.
    roles = [
        r for r in roles
        if not (r is Role.EVALUATES_ON and ctype not in {ConceptType.DATASET, ConceptType.TASK})
        and not (r is Role.MEASURES and ctype is not ConceptType.METRIC)
    ]
    if roles:
        return min(roles, key=lambda r: r.rank)
    return DEFAULT_ROLE[ctype]


@dataclass(frozen=True, slots=True)
class ParsedField:
    """One field of a paper after parsing: its candidates and the repair offset map."""

    field: Field
    repaired: Repaired
    candidates: FieldCandidates


def assemble(
    original: dict[Field, str],
    fields: list[ParsedField],
    gazetteer: GazetteerLookup,
    *,
    model_runs: bool = False,
) -> list[Mention]:
    """The mentions of one paper (see module docstring)."""
    acronyms: dict[str, str] = {}
    for pf in fields:
        for short, long, _, _ in pf.candidates.definitions:
            acronyms.setdefault(short, long)
    long_keys = {norm_key(long): short for short, long in acronyms.items()}
    entries: dict[str, CandidateGroup] = {}
    proposal_sentences: set[tuple[Field, int]] = set()
    title_prefix_key = None
    for pf in fields:
        if pf.candidates.title_prefix:
            title_prefix_key = _key_for(pf.candidates.title_prefix, acronyms)
        for occ in pf.candidates.occurrences:
            key = _key_for(occ.term.label, acronyms)
            if not key:
                continue
            entry = entries.setdefault(key, CandidateGroup(key))
            entry.occurrences.append((pf.field, occ))
            entry.labels[occ.term.label] += 1
            defined = _short_of(occ.term.label, acronyms)
            if defined is not None:
                entry.long_form = acronyms[defined]
                entry.short_form = defined
            elif key in long_keys:
                entry.short_form = long_keys[key]
                entry.long_form = acronyms[long_keys[key]]
            if occ.role is Role.PROPOSES:
                proposal_sentences.add((pf.field, occ.sentence))
    accepted = {k: e for k, e in entries.items()
                if acceptance(e, gazetteer, model_runs=model_runs)}
    # Where accepted candidates overlap the longest wins ("distributed speculative inference"
    # over the "speculative inference" inside it); only what survives counts as evidence for
    # a concept's acceptance, type and role.
    survivors = _resolve_overlaps(fields, accepted)
    for key, entry in list(accepted.items()):
        entry.occurrences = survivors.get(key, [])
        if not entry.occurrences or not acceptance(entry, gazetteer, model_runs=model_runs):
            del accepted[key]
    proposed_keys = {k for k, e in accepted.items() if Role.PROPOSES in e.roles}
    decided: dict[str, tuple[ConceptType, Role]] = {}
    for key, entry in accepted.items():
        ctype = _decide_type(entry, gazetteer, Role.PROPOSES in entry.roles)
        role = _decide_role(entry, ctype, gazetteer, proposal_sentences, proposed_keys,
                            title_prefix_key)
        decided[key] = (ctype, role)
    return _mentions(original, fields, accepted, decided)


def _short_of(label: str, acronyms: dict[str, str]) -> str | None:
    if label in acronyms:
        return label
    if label.endswith("s") and label[:-1] in acronyms:
        return label[:-1]
    return None


def _key_for(label: str, acronyms: dict[str, str]) -> str:
    short = _short_of(label, acronyms)
    if short is not None:
        return norm_key(acronyms[short])
    return norm_key(label)


def _resolve_overlaps(
    fields: list[ParsedField], accepted: dict[str, CandidateGroup]
) -> dict[str, list[tuple[Field, Occurrence]]]:
    """The occurrences that survive where accepted candidates overlap: the longest span,
    then the more specific kind (acronym, name, gazetteer, chunk)."""
    survivors: dict[str, list[tuple[Field, Occurrence]]] = {}
    for pf in fields:
        spans: list[tuple[int, int, int, str, Occurrence]] = []
        for key, entry in accepted.items():
            for f, occ in entry.occurrences:
                if f is pf.field:
                    spans.append((occ.char_start, occ.char_end,
                                  _KIND_PRIORITY[occ.term.kind], key, occ))
        # An acronym definition fixes its long form's boundaries; the model's spans are wide
        # (SciERC annotates whole phrases) and only fill gaps; otherwise the longest wins.
        spans.sort(key=lambda s: (s[4].term.kind != "acronym", s[4].term.kind == "model",
                                  -(s[1] - s[0]), s[2], s[0]))
        taken: list[tuple[int, int]] = []
        for start, end, _, key, occ in spans:
            if any(start < e and s < end for s, e in taken):
                continue
            taken.append((start, end))
            survivors.setdefault(key, []).append((pf.field, occ))
    for occurrences in survivors.values():
        occurrences.sort(key=lambda fo: (list(Field).index(fo[0]), fo[1].char_start))
    return survivors


def _mentions(
    original: dict[Field, str],
    fields: list[ParsedField],
    accepted: dict[str, CandidateGroup],
    decided: dict[str, tuple[ConceptType, Role]],
) -> list[Mention]:
    mentions: list[Mention] = []
    for pf in fields:
        text = original[pf.field]
        chosen = [
            (occ.char_start, occ.char_end, key, occ)
            for key, entry in accepted.items()
            for f, occ in entry.occurrences
            if f is pf.field
        ]
        for start, end, key, occ in sorted(chosen, key=lambda c: (c[0], c[1])):
            entry = accepted[key]
            ctype, paper_role = decided[key]
            o_start, o_end = pf.repaired.to_original(start, end)
            s_start, s_end = pf.repaired.to_original(occ.sent_start, occ.sent_end)
            role = occ.role if occ.role is not None else DEFAULT_ROLE[ctype]
            if role.rank < paper_role.rank:
                role = paper_role  # a pattern the paper-level decision overruled
            is_short = _short_of(occ.term.label, {entry.short_form: ""} if entry.short_form
                                 else {}) is not None
            mentions.append(
                Mention(
                    text=text[o_start:o_end],
                    label=occ.term.label,
                    span=Span(pf.field, o_start, o_end),
                    sentence=Span(pf.field, s_start, s_end),
                    ctype=ctype,
                    role=role,
                    extractor=_EXTRACTORS.get(occ.term.kind, EXTRACTOR_RULES),
                    long_form=entry.long_form if is_short else None,
                    short_form=entry.short_form if not is_short and entry.short_form else None,
                )
            )
    # The link's role is the strongest of its mentions: make sure one mention carries it.
    for key, (_, paper_role) in decided.items():
        own = [i for i, m in enumerate(mentions) if _mention_key(m) == key]
        if own and not any(mentions[i].role is paper_role for i in own):
            mentions[own[0]] = replace(mentions[own[0]], role=paper_role)
    return mentions


def _mention_key(mention: Mention) -> str:
    return norm_key(mention.long_form or mention.label)


def paper_role(mentions: Sequence[Mention]) -> Role:
    """The role of a paper -> concept link: the strongest among its mentions."""
    return min((m.role for m in mentions), key=lambda r: r.rank)


def group_by_key(mentions: Sequence[Mention]) -> dict[str, list[Mention]]:
    """Mentions grouped by the key of their concept in this paper (long form for acronyms)."""
    groups: dict[str, list[Mention]] = defaultdict(list)
    for m in mentions:
        groups[_mention_key(m)].append(m)
    return groups
