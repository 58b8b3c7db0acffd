"""Plain data types passed between the pipeline stages.

read -> extract -> canonicalise -> build graph -> serialise/query/visualise.
spaCy objects never leave `kg.extract`; RDF objects never enter it. Every type here is a frozen
dataclass of plain values so that stages can be called and tested alone, and results pickled
across processes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum


class ConceptType(StrEnum):
    """The type of a concept node; the value is the local name of its `kg:` class."""

    MODEL = "Model"
    METHOD = "Method"
    TASK = "Task"
    DATASET = "Dataset"
    METRIC = "Metric"
    CONCEPT = "Concept"


class Role(StrEnum):
    """The role a concept plays for a paper; the value is the local name of its `kg:` property."""

    PROPOSES = "proposes"
    ADDRESSES = "addresses"
    EVALUATES_ON = "evaluatesOn"
    MEASURES = "measures"
    COMPARES_WITH = "comparesWith"
    USES = "uses"
    MENTIONS = "mentions"

    @property
    def rank(self) -> int:
        """Lower is stronger: a link's role is the strongest role among its mentions."""
        return _ROLE_RANK[self]


_ROLE_RANK = {role: i for i, role in enumerate(Role)}


class Field(StrEnum):
    """Which part of a paper record a mention was found in."""

    TITLE = "title"
    ABSTRACT = "abstract"
    KEYWORDS = "keywords"


@dataclass(frozen=True, slots=True)
class Paper:
    """One paper record as read, with every piece of metadata it had.

    `source` and `record` say where it came from (file path and 1-based record number) so that
    every later message can point back to the input.
    """

    id: str
    abstract: str | None
    title: str | None = None
    keywords: tuple[str, ...] = ()
    authors: tuple[str, ...] = ()
    year: int | None = None
    venue: str | None = None
    url: str | None = None
    status: str | None = None
    collection: str | None = None
    source: str = ""
    record: int = 0
    # Links found in metadata fields (github, project, pdf, ...), in record order.
    links: tuple[str, ...] = ()
    # Persistent identifiers: DOI (lower-case, "10.…") and arXiv id ("1706.03762").
    doi: str | None = None
    arxiv_id: str | None = None
    # Subject terms an index assigned (arXiv categories, OpenAlex topics, S2 fields of study);
    # unlike author `keywords` they are not searched for concepts.
    subjects: tuple[str, ...] = ()
    # Every other field of the record, stringified, in record order.
    extra: tuple[tuple[str, str], ...] = ()

    def text(self, part: Field) -> str:
        """The text of one field ("" when absent); mention offsets index into it."""
        if part is Field.TITLE:
            return self.title or ""
        if part is Field.ABSTRACT:
            return self.abstract or ""
        return "; ".join(self.keywords)


@dataclass(frozen=True, slots=True)
class Span:
    """A character span `[start, end)` in one field of a paper."""

    field: Field
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Mention:
    """One occurrence of a concept in a paper, with the evidence for it.

    `text` is the surface form exactly as it appears at `span`; `label` is the cleaned name the
    extractor proposes (trimmed of determiners, hyphenation repaired); `long_form` is set when the
    paper defines this mention as an acronym (or this mention is the acronym's long form, then
    `short_form` is set).
    """

    text: str
    label: str
    span: Span
    sentence: Span
    ctype: ConceptType
    role: Role
    extractor: str
    long_form: str | None = None
    short_form: str | None = None


@dataclass(frozen=True, slots=True)
class Acronym:
    """An acronym definition found in a paper: `short` stands for `long`."""

    short: str
    long: str
    span: Span


class RelationType(StrEnum):
    """A relation between two concepts; the value is the local name of its `kg:` property."""

    USED_FOR = "usedFor"  # a method used for a task ("X for Y", "apply X to Y")
    BASED_ON = "basedOn"  # a model based on another ("a Llama 3.0-based model")
    COMPARED_WITH = "comparedWith"  # compared, without a winner
    OUTPERFORMS = "outperforms"  # subject beats object
    EVALUATED_ON = "evaluatedOn"  # a method/model evaluated on a dataset/benchmark


@dataclass(frozen=True, slots=True)
class RelationMention:
    """One sentence stating a relation between two mentions of the same paper."""

    subject: Mention
    predicate: RelationType
    object: Mention
    sentence: Span
    extractor: str


@dataclass(frozen=True, slots=True)
class Extraction:
    """What extraction found in one paper."""

    paper_id: str
    mentions: tuple[Mention, ...] = ()
    acronyms: tuple[Acronym, ...] = ()
    # URLs found in the title/abstract text (code repositories, project pages).
    urls: tuple[str, ...] = ()
    sentences: tuple[Span, ...] = ()
    relations: tuple[RelationMention, ...] = ()


@dataclass(frozen=True, slots=True)
class Concept:
    """One node per concept across the corpus.

    `key` is the canonical key the IRI is minted from: stable across runs for the same label.
    `type_votes` counts, per type, the papers whose mentions give the concept that type (one
    vote per paper), most votes first; `ctype` is the winner.
    """

    key: str
    pref_label: str
    ctype: ConceptType
    alt_labels: tuple[str, ...] = ()
    acronyms: tuple[str, ...] = ()
    type_votes: tuple[tuple[ConceptType, int], ...] = ()

    @property
    def type_disputed(self) -> bool:
        """True when the concept's papers do not agree on its type."""
        return len(self.type_votes) > 1


@dataclass(frozen=True, slots=True)
class CanonDecision:
    """A corpus-level decision about one concept node, recorded in the graph.

    `rule` names what decided ("acronym-context", "origin", "correction:merge", ...);
    `variants` are the surface forms (or concept keys) it concerns; `papers` how many papers'
    links it changed; `note` says the rest in words; `correction` is the entry number of the
    correction that made it (0: a rule did).
    """

    concept_key: str
    rule: str
    variants: tuple[str, ...] = ()
    papers: int = 0
    note: str = ""
    correction: int = 0


@dataclass(frozen=True, slots=True)
class Rejection:
    """A node the hygiene filter dropped (`kg.canon.hygiene`), recorded so that a person can
    see it and overrule it (a correction `action: accept`).

    `rule` is the hygiene rule ("quantity", "product", "fragment", "common-word"); `papers`
    the ids of the papers that linked to it; `labels` every label it had, preferred first.
    """

    concept_key: str
    rule: str
    labels: tuple[str, ...]
    papers: tuple[str, ...]


class CorrectionAction(StrEnum):
    """What a person's correction does to the graph (`kg build --corrections`)."""

    KEEP = "keep"  # no change: a reviewed candidate left as it is
    MERGE = "merge"  # the concept joins `into`
    SPLIT = "split"  # the links of `papers` move to a new concept named `label`
    RETYPE = "retype"  # the concept gets `type`
    RENAME = "rename"  # the concept's preferred label becomes `label` (its IRI stays)
    REJECT = "reject"  # the concept and its links are dropped
    ACCEPT = "accept"  # a concept after all: the hygiene filter does not drop it


@dataclass(frozen=True, slots=True)
class Correction:
    """One entry of a corrections file; `source` and `line` say where it was read."""

    action: CorrectionAction
    concept: str
    into: str | None = None
    label: str | None = None
    ctype: ConceptType | None = None
    papers: tuple[str, ...] = ()
    note: str = ""
    source: str = ""
    line: int = 0


@dataclass(frozen=True, slots=True)
class Link:
    """A paper -> concept link: its role and every mention that supports it."""

    paper_id: str
    concept_key: str
    role: Role
    mentions: tuple[Mention, ...]

    @property
    def from_metadata(self) -> bool:
        """True when the link comes only from the record's author keywords."""
        return all(m.span.field is Field.KEYWORDS for m in self.mentions)


@dataclass(frozen=True, slots=True)
class ConceptRelation:
    """A relation between two concepts of the corpus, with every sentence that states it."""

    subject_key: str
    predicate: RelationType
    object_key: str
    evidence: tuple[tuple[str, RelationMention], ...]  # (paper id, mention)


@dataclass(frozen=True, slots=True)
class VocabularyMatch:
    """A concept matched to an entry of an external vocabulary (Papers with Code, CSO)."""

    concept_key: str
    target: str  # IRI of the vocabulary entry
    exact: bool  # skos:exactMatch when True, else skos:closeMatch
    method: str  # how it matched: "label", "alias", "acronym expansion", …
    source: str  # gazetteer source name ("pwc-method", "cso", …)


@dataclass(frozen=True, slots=True)
class SkippedRecord:
    """A record that could not be read, and why."""

    source: str
    record: int
    reason: str


@dataclass(slots=True)
class Corpus:
    """Everything one build knows: papers, their concepts and links.

    Ordered deterministically (papers in input order; concepts and links sorted by key) so that
    the graph built from it is byte-identical for the same input.
    """

    papers: Sequence[Paper] = field(default_factory=list)  # a list, or a `PaperShelf`
    extractions: dict[str, Extraction] = field(default_factory=dict)
    concepts: dict[str, Concept] = field(default_factory=dict)
    links: list[Link] = field(default_factory=list)
    relations: list[ConceptRelation] = field(default_factory=list)
    matches: list[VocabularyMatch] = field(default_factory=list)
    skipped: list[SkippedRecord] = field(default_factory=list)
    decisions: list[CanonDecision] = field(default_factory=list)
    rejections: list[Rejection] = field(default_factory=list)
    corrections: list[Correction] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
