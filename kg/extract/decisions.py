"""What a paper's candidates become: accepted or not, which type, which role.

A candidate group (every occurrence of one key in one paper) becomes a concept of the paper
when its evidence is strong enough:

- acronym definitions and names (spelling marks them) always;
- gazetteer terms when multi-word, or repeated, or in a role;
- other noun phrases when repeated, named a method, or established in the background corpus.

Its type is the weighted vote of the cues (appositions, "X dataset", head nouns, gazetteer,
acronym long form, the recogniser's label), its role the strongest its phrases play, else the
default of its type.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from kg.extract.background import phrase_count
from kg.extract.candidates import GazetteerLookup, Occurrence, is_generic_label
from kg.extract.lexicon import GENERIC_HEADS
from kg.extract.names import MODEL_NAME
from kg.extract.terms import head_type
from kg.types import ConceptType, Field, Role
from kg.vocab.gazetteer import Entry


class AcceptReason(StrEnum):
    """Why the rules accept a candidate; the value is the reason as a short phrase."""

    ACRONYM = "acronym"
    NAME = "name"
    GAZETTEER_PHRASE = "gazetteer phrase"
    GAZETTEER_WORD_REPEATED = "gazetteer word, repeated"
    GAZETTEER_WORD_ROLE = "gazetteer word, role"
    GAZETTEER_GENERIC_REPEATED = "gazetteer generic, repeated"
    GENERIC_HEAD_REPEATED = "generic-head phrase, repeated"
    PHRASE_REPEATED = "phrase, repeated"
    PHRASE_NAMED_METHOD = "phrase named a method"
    EPONYM_PHRASE = "eponym phrase"
    ESTABLISHED_PHRASE = "established phrase"
    PHRASE_ROLE_AND_TYPE = "phrase, role and type"

DEFAULT_ROLE = {
    ConceptType.TASK: Role.ADDRESSES,
    ConceptType.DATASET: Role.EVALUATES_ON,
    ConceptType.METRIC: Role.MEASURES,
    ConceptType.MODEL: Role.USES,
    ConceptType.METHOD: Role.USES,
    ConceptType.CONCEPT: Role.MENTIONS,
}
_ESTABLISHED = 3  # a phrase used in this many background abstracts is an established term


@dataclass(frozen=True, slots=True)
class DecisionThresholds:
    """The probability cut-offs of the learned decisions (`kg.extract.learned`).

    None (the default) is the cut the model learned, never one fitted to the evaluation
    papers: for `accept` `DecisionModel.accept_cut` (the best F1 of must-recall and
    precision on the out-of-fold acceptance of its training papers,
    `kg.train.decisions.accept_cut`), for `proposes` `DecisionModel.proposes_cut` (the one
    that balances precision and recall, F1, in grouped cross-validation inside its training
    papers). A number overrides it.
    """

    accept: float | None = None
    proposes: float | None = None
    # A paper none of whose concepts passes `proposes` still proposes its most probable one
    # when that reaches `paper_best` (most papers introduce something); None: never.
    paper_best: float | None = None
    # Where accepted candidates overlap, acceptance probabilities are compared in steps of
    # this size and the longer span wins within one step ("graph neural network" at 0.78
    # over the "graph neural" inside it at 0.83). Probability alone let a likelier piece
    # cut the whole; length alone (the rules' order) let any wider span win. One value was
    # measured (CHANGELOG.md): must-recall +0.017 ± 0.003 over 3 dealings.
    overlap_step: float = 0.2
    # ... and a group the paper proposes (its `proposes` probability reaches the cut) this
    # much higher: a paper names its contribution by the whole phrase ("a privacy-aware
    # randomized quantization"), which a likelier generic piece inside it ("quantization")
    # used to cut, and the proposal with it. One step; measured over 3
    # dealings (docs/QUALITY.md): must-recall +0.008, proposes R +0.035, P -0.033. 0 is off.
    overlap_proposal: float = 0.2


DEFAULT_THRESHOLDS = DecisionThresholds()


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
) -> AcceptReason | None:
    """Why this candidate becomes a concept of its paper (a short reason), or None.

    `model_runs`: the trained recogniser tagged this paper, so its agreement can be asked for.
    """
    kinds = entry.kinds
    label = entry.labels.most_common(1)[0][0]
    if is_generic_label(label) or len(entry.key) < 2:
        return None
    if _NOT_A_TERM.search(label) or any(o.cited for _, o in entry.occurrences):
        return None  # a citation ("Kim et al.") or LaTeX left in the text ("d \\geq")
    if any(len(w) == 1 and w.isalpha() for w in entry.key.split()[1:]):
        return None  # a math variable inside ("top-k", "k nearest"): an expression, not a term
    if "acronym" in kinds or entry.long_form or entry.short_form:
        return AcceptReason.ACRONYM
    words = entry.key.split()
    entries = usable_for(label, gazetteer(label))
    specific_gaz = any(not e.generic for e in entries)
    roles = set(entry.roles)
    strong_role = bool(roles & {Role.PROPOSES, Role.COMPARES_WITH, Role.EVALUATES_ON})
    if "name" in kinds:
        if not _TITLE_WORD.match(label) or entry.count >= 2 or specific_gaz or strong_role:
            return AcceptReason.NAME
        # A lone capitalised word said once ("Lipschitz", "Fisher") is mostly an eponym
        # describing something else.
        return None
    if " and " in f" {entry.key} " or " or " in f" {entry.key} ":
        # "approximation and estimation": a coordination, not one term
        return AcceptReason.GAZETTEER_PHRASE if specific_gaz else None
    # The trained recogniser agreeing that the span is an entity (when it runs).
    model_agrees = "model" in kinds or not model_runs
    if "gazetteer" in kinds or entries:
        curated = any(not e.generic and e.source != "cso" for e in entries)
        if len(words) > 1 and specific_gaz and (curated or model_agrees or entry.count >= 2):
            # CSO's topics include broad phrases ("theoretical analysis"): they need the
            # model's agreement or a second mention.
            return AcceptReason.GAZETTEER_PHRASE
        if specific_gaz and entry.count >= 2:
            return AcceptReason.GAZETTEER_WORD_REPEATED
        if specific_gaz and roles:
            return AcceptReason.GAZETTEER_WORD_ROLE
        # A broad term ("fairness", "robustness") said three times is what the paper is about.
        return AcceptReason.GAZETTEER_GENERIC_REPEATED if entry.count >= 3 else None
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
            return AcceptReason.GENERIC_HEAD_REPEATED
        return None
    if entry.count >= 2:
        return AcceptReason.PHRASE_REPEATED
    if any(o.term.method_head for _, o in entry.occurrences):
        return AcceptReason.PHRASE_NAMED_METHOD
    if _EPONYM.match(label):
        return AcceptReason.EPONYM_PHRASE  # "Fisher's divergence", "Bayes' rule"
    if phrase_count(entry.key) >= _ESTABLISHED:
        return AcceptReason.ESTABLISHED_PHRASE
    if strong_role and any(c for _, o in entry.occurrences for c in o.type_cues):
        return AcceptReason.PHRASE_ROLE_AND_TYPE
    return None


# Weight of one source's vote for a type, by how well its typing can be trusted.
_SOURCE_WEIGHT = {"cso": 0.5}
_EPONYM = re.compile(
    r"^[A-Z][a-z]+['’]s? (?:divergence|distance|rule|theorem|law|inequality|method|algorithm|"
    r"bound|lemma|criterion|equation|index|coefficient|test|loss|metric|score|model|process|"
    r"transform|kernel|information|matrix|estimator|principle)$"
)
_NOT_A_TERM = re.compile(r"\bet\.? al\b|\\[A-Za-z]")
_TITLE_WORD = re.compile(r"^[A-ZÀ-Ý][a-zß-ÿ]+$")


def usable_for(label: str, entries: Sequence[Entry]) -> list[Entry]:
    """Gazetteer entries that can stand for `label`: a short all-caps label ("SSL", "KV") is
    ambiguous with countless dataset acronyms, so dataset entries do not count for it."""
    if len(label) <= 4 and label.isupper():
        return [e for e in entries if e.type is not ConceptType.DATASET]
    return list(entries)


def decide_type(
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
        hits = usable_for(label, gazetteer(label))
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
    if MODEL_NAME.search(label):
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


def decide_role(
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
    if "name" in entry.kinds and any(k != entry.key and f" {k} " in f" {entry.key} "
                                     for k in proposed_keys):
        return Role.PROPOSES  # "Llama3-ChatQA-2-70B" is a variant of the proposed "ChatQA 2"
    return pattern_role(roles, ctype)


def pattern_role(roles: Sequence[Role], ctype: ConceptType) -> Role:
    """The strongest role the patterns give a concept of this type, else its type's default;
    never `proposes` (that is the caller's decision)."""
    roles = [typed_role(r, ctype) for r in roles if r is not Role.PROPOSES]
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


def typed_role(role: Role, ctype: ConceptType) -> Role:
    """A role pattern read for the concept's type: what a paper achieves or improves is a
    task, but a metric it achieves or improves ("achieves an average success rate of 74%")
    is what it measures."""
    if role is Role.ADDRESSES and ctype is ConceptType.METRIC:
        return Role.MEASURES
    return role
