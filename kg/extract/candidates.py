"""Candidate mentions of one parsed field (title or abstract), with their evidence.

Collects terms from every source — acronym definitions, names, gazetteer spans, noun chunks —
and annotates each occurrence with what the sentence says about it: the role its phrase
plays and the type cues around it (a head noun, an apposition, a following "dataset").
Scoring and the choice of what becomes a concept happen per paper, in `kg.extract.assemble`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from spacy.tokens import Doc, Span, Token

from kg.extract.acronyms import Definition, find_definitions, short_key
from kg.extract.entity_model import ModelSpan
from kg.extract.gazetteer_match import GazetteerIndex, gazetteer_spans
from kg.extract.lexicon import GENERIC_HEADS, HEAD_TYPES, NAME_TYPE_CUES
from kg.extract.names import MODEL_NAME, looks_title_cased, name_spans
from kg.extract.roles import introduced_tokens, token_roles
from kg.extract.subspans import sub_terms
from kg.extract.terms import Term, chunk_terms, has_finite_verb, head_type, label_of, trim
from kg.types import ConceptType, Role
from kg.vocab.gazetteer import Entry

GazetteerLookup = Callable[[str], Sequence[Entry]]
"""label -> every gazetteer entry with that label's key, best first."""


@dataclass(frozen=True, slots=True)
class Occurrence:
    """One candidate occurrence in a doc, ready to be scored with the others of its paper."""

    term: Term
    role: Role | None
    introduced: bool  # quoted, named, or held by "the concept/principle of …"
    type_cues: tuple[tuple[ConceptType, float], ...]
    sentence: int  # index of the sentence in the doc
    sent_start: int  # char offsets of the sentence in the doc text
    sent_end: int
    char_start: int
    char_end: int
    cited: bool = False  # followed by "et al.": an author's name in a citation
    verb: str = ""  # lemma of the verb the term's phrase depends on ("propose", "use", …)
    author: bool = False  # the sentence speaks for the authors ("we", "our", "this paper")
    own: bool = False  # "our"/"this" in the words just before it ("our X", "this novel X")
    premodifier: bool = False  # its head word modifies a noun after it ("[batch adaptive] SGD")
    next_noun: bool = False  # a noun or a glued hyphen follows right after it
    prev_modifier: bool = False  # an adjective, noun or glued hyphen comes right before it


@dataclass(frozen=True, slots=True)
class FieldCandidates:
    """Everything found in one field."""

    occurrences: tuple[Occurrence, ...]
    definitions: tuple[tuple[str, str, int, int], ...]  # (short, long, char start, char end)
    title_prefix: str | None  # "X" of a title "X: …"
    sentences: int = 0  # number of sentences in the field


def _appos_cue(span: Span) -> tuple[ConceptType, float] | None:
    """Type from an apposition: "DuoAttention, a framework …", "ChatQA 2, an … model"."""
    root = span.root
    partners = [c for c in root.children if c.dep_ == "appos"]
    if root.dep_ == "appos":
        partners.append(root.head)
    for partner in partners:
        if partner.i in range(span.start, span.end):
            continue
        word = partner.lower_
        if word in NAME_TYPE_CUES:
            return NAME_TYPE_CUES[word], 3.0
        if word in HEAD_TYPES:
            return HEAD_TYPES[word], 3.0
    return None


def _following_cue(doc: Doc, term: Term) -> tuple[ConceptType, float] | None:
    """A type noun right after a name: "SWE-Bench Lite benchmark", "GPT-4o models"."""
    j = term.end
    while j < len(doc) and (doc[j].lower_ in {"and", ","} or doc[j].pos_ == "PROPN"):
        j += 1
    if j < len(doc) and doc[j].lower_ in NAME_TYPE_CUES and j - term.end <= 4:
        return NAME_TYPE_CUES[doc[j].lower_], 2.0
    return None


def _described_cue(doc: Doc, term: Term) -> tuple[ConceptType, float] | None:
    """Type from a description the parser did not attach: "… Task (ADAPT) – a benchmark
    designed to …", "ZO2: a framework for …"."""
    j = term.end
    if j + 2 < len(doc) and doc[j].text == "(" and doc[j + 2].text == ")":
        j += 3  # the acronym after its long form
    elif j < len(doc) and doc[j].text == ")":
        j += 1  # the acronym inside its parentheses
    if j + 1 >= len(doc) or doc[j].text not in {",", "–", "—", "-", "--", ":"}:
        return None
    if doc[j + 1].lower_ not in {"a", "an", "the"}:
        return None
    k = j + 2
    while k < len(doc) and k - j <= 5 and doc[k].pos_ in {"ADJ", "ADV", "NOUN", "PROPN", "PUNCT"}:
        word = doc[k].lower_
        if word in NAME_TYPE_CUES and (k + 1 == len(doc) or doc[k + 1].pos_ != "NOUN"):
            return NAME_TYPE_CUES[word], 3.0
        k += 1
    return None


# How much the type a term's source gives it counts in the paper's vote.
_HEAD_CUE_WEIGHT = {
    "gazetteer": 2.0, "chunk": 1.0, "name": 1.0, "title": 1.0, "acronym": 1.0, "model": 0.5,
    "span": 0.5,
}
_BENCHMARK_NAME = re.compile(r"(Bench|bench|Benchmark|Eval|Arena|Corpus|Set)\b")


def _name_shape_cue(term: Term) -> tuple[ConceptType, float] | None:
    """Names that say what they are: "SWE-Bench Lite", "ProcessBench", "AlpacaEval" are
    benchmarks; "ChatGPT-4o", "Qwen2-72B-Instruct" are models."""
    if term.kind != "name":
        return None
    if _BENCHMARK_NAME.search(term.label.replace("-", " ")):
        return ConceptType.DATASET, 2.5
    if MODEL_NAME.search(term.label):
        return ConceptType.MODEL, 2.0
    return None


def _definition_terms(doc: Doc, definitions: list[Definition]) -> list[Term]:
    terms: list[Term] = []
    for d in definitions:
        long_tokens = trim(d.long, keep_pos=True) or list(d.long)
        label = label_of(long_tokens)
        head = head_type(long_tokens[-1].text) if long_tokens else None
        terms.append(Term(long_tokens[0].i, long_tokens[-1].i + 1, label, "acronym", head))
        terms.append(Term(d.short.start, d.short.end, d.short.text, "acronym", None))
    return terms


_TYPE_HEADS = frozenset(
    """method methods approach approaches technique techniques algorithm algorithms model models
    framework frameworks task tasks problem problems strategy strategies system systems
    scheme schemes""".split()
)


def _is_premodifier(span: Span) -> bool:
    """True when the span modifies a following content noun ("time series" in "time series
    forecasting", "diffusion" in "diffusion step"): the concept is the bigger phrase."""
    last = span[-1]
    if last.dep_ not in {"compound", "amod", "nmod", "npadvmod"} or last.head.i < span.end:
        return False
    return last.head.lower_ not in _TYPE_HEADS


def _inside_word(span: Span) -> bool:
    """A match that starts or ends inside a hyphenated word ("context models" in
    "long-context models") is not a mention of the term."""
    doc = span.doc
    before = span.start > 0 and doc[span.start - 1].text == "-" and not doc[
        span.start - 1].whitespace_
    after = span.end < len(doc) and doc[span.end].text == "-" and not span[-1].whitespace_
    return before or after


def _gazetteer_terms(doc: Doc, index: GazetteerIndex | None) -> list[Term]:
    if index is None:
        return []
    spans = [s for s in gazetteer_spans(doc, index) if not _inside_word(s)]
    # No type here: the gazetteer votes once, per entry source, when the paper's types are set.
    return [
        Term(s.start, s.end, label_of(list(s)) or s.text, "gazetteer", head_type(s[-1].text))
        for s in spans
        if not _is_premodifier(s) and not (len(s) == 1 and s[0].pos_ in {"VERB", "AUX"})
    ]


def _title_prefix(doc: Doc) -> Span | None:
    """ "BEARCUBS" of "BEARCUBS: A benchmark for …" (a short name before the colon)."""
    for token in doc[:8]:
        if token.text == ":":
            prefix = doc[: token.i]
            if 1 <= len(prefix) <= 5 and any(t.text[:1].isupper() for t in prefix):
                return prefix
            return None
    return None


def _model_terms(doc: Doc, spans: Sequence[ModelSpan]) -> list[Term]:
    """Terms from the trained recogniser's spans, trimmed like noun phrases."""
    terms = []
    for span in spans:
        tokens = trim(doc[span.start : span.end])
        label = label_of(tokens)
        if tokens and label and any(t.is_alpha for t in tokens) and not has_finite_verb(tokens):
            terms.append(Term(tokens[0].i, tokens[-1].i + 1, label, "model", span.ctype))
    return terms


@dataclass(frozen=True, slots=True)
class FieldTerms:
    """The rule-based candidate terms of one field, before the recogniser weighs in."""

    terms: list[Term]
    definitions: list[Definition]

    def spans(self) -> list[tuple[int, int]]:
        """Distinct token spans of the terms (what the recogniser is asked about)."""
        return sorted({(t.start, t.end) for t in self.terms})


def candidate_terms(
    doc: Doc, *, is_title: bool = False, gazetteer: GazetteerIndex | None = None
) -> FieldTerms:
    """Candidate terms from acronym definitions, names, the gazetteer and noun phrases."""
    title_case = is_title and looks_title_cased(doc.text)
    definitions = find_definitions(doc)
    names = name_spans(doc, title_case_text=title_case)
    terms = _definition_terms(doc, definitions)
    terms += [
        Term(s.start, s.end, s.text.removesuffix("."), "name",
             head_type(s[-1].text) if len(s) > 1 else None)
        for s in names
    ]
    terms += _gazetteer_terms(doc, gazetteer)
    terms += chunk_terms(doc, names)
    if is_title:
        terms += _title_prefix_term(doc)
    return FieldTerms(terms, definitions)


def _title_prefix_term(doc: Doc) -> list[Term]:
    """The name before a title's colon as one term ("Latent Theory of Mind: …"), so that its
    inner words ("Mind") are not terms of their own. Assembly keeps it only when the abstract
    names it too: a catchy prefix ("Beyond Accuracy: …") is not a concept."""
    prefix = _title_prefix(doc)
    tokens = list(prefix) if prefix is not None else []
    if len(tokens) < 2 or has_finite_verb(tokens):
        return []  # one token is a name the name finder already has; "Less Is More" is a claim
    return [Term(tokens[0].i, tokens[-1].i + 1, label_of(tokens), "title")]


def collect(
    doc: Doc,
    *,
    is_title: bool = False,
    gazetteer: GazetteerIndex | None = None,
    found: FieldTerms | None = None,
    model_spans: Sequence[ModelSpan] = (),
    broad: bool = True,
) -> FieldCandidates:
    """All candidate occurrences in one parsed field: the rule-based terms (`found`, computed
    here when not given) plus the recogniser's spans and, when `broad`, the pieces of noun
    phrases (`kg.extract.subspans`, for the learned decisions), with roles and type cues."""
    found = found or candidate_terms(doc, is_title=is_title, gazetteer=gazetteer)
    definitions = found.definitions
    terms = found.terms + _model_terms(doc, model_spans)
    if broad:
        terms += sub_terms(doc, {(t.start, t.end) for t in terms})
    roles = token_roles(doc)
    introduced = introduced_tokens(doc)
    sentences = list(doc.sents)
    sent_of = {}
    for i, sent in enumerate(sentences):
        for t in range(sent.start, sent.end):
            sent_of[t] = i
    author_sentence = [any(t.lower_ in _AUTHOR_WORDS for t in sent) for sent in sentences]
    tokens = list(doc)  # one Token object per position (each doc[i] makes a new one)
    occurrences: list[Occurrence] = []
    seen: set[tuple[int, int, str]] = set()
    for term in terms:
        ident = (term.start, term.end, term.kind)
        if ident in seen or term.end <= term.start:
            continue
        seen.add(ident)
        verb = term.kind not in {"acronym", "title"} and used_as_verb(
            tokens, term.start, term.end)
        if verb:
            if " " in term.label:
                continue  # "our scheme fine-tunes a model": no phrase ends in a verb
            term = replace(term, label=gerund(term.label, tokens[term.end - 1].tag_))
        span = doc[term.start : term.end]
        root = span.root
        cues: list[tuple[ConceptType, float]] = []
        if term.head_type is not None:
            # The model's SciERC label maps coarsely to our types: a weak vote.
            cues.append((term.head_type, _HEAD_CUE_WEIGHT[term.kind]))
        for cue in (_appos_cue(span), _following_cue(doc, term), _described_cue(doc, term),
                    _name_shape_cue(term)):
            if cue is not None:
                cues.append(cue)
        # "we fine-tune the model": the authors do the activity, they do not offer it.
        role = Role.USES if verb else _role_of(span, roles)
        if term.kind == "name" and role is Role.EVALUATES_ON:
            cues.append((ConceptType.DATASET, 1.0))  # "… on ProcessBench": a benchmark
        s = sentences[sent_of[term.start]]
        # A term the sentence splitter cut in two ("… via Primal-Dual Approach" split after
        # "Primal-"): its evidence sentence runs on to the end of the term's last sentence.
        s_last = sentences[sent_of[term.end - 1]]
        occurrences.append(
            Occurrence(
                term=term,
                role=role,
                introduced=any(t in introduced for t in range(term.start, term.end)),
                type_cues=tuple(cues),
                sentence=sent_of[term.start],
                sent_start=s.start_char,
                sent_end=max(s.end_char, s_last.end_char),
                cited=_is_cited(doc, term.end),
                verb=_governing_verb(root),
                author=author_sentence[sent_of[term.start]],
                own=any(t.lower_ in {"our", "this"}
                        for t in tokens[max(0, term.start - 3):term.start]),
                premodifier=root.head.i >= term.end and root.head.pos_ in {"NOUN", "PROPN"},
                next_noun=term.end < len(tokens) and (
                    tokens[term.end].pos_ in {"NOUN", "PROPN"}
                    or (tokens[term.end].text == "-" and not tokens[term.end - 1].whitespace_)),
                prev_modifier=term.start > 0 and (
                    tokens[term.start - 1].pos_ in {"ADJ", "NOUN", "PROPN"}
                    or (tokens[term.start - 1].text == "-"
                        and not tokens[term.start - 1].whitespace_)),
                char_start=span.start_char,
                # A full stop spaCy left on the last token ("MiP.") is not part of the name.
                char_end=span.end_char - (span.text.endswith(".") and
                                          not term.label.endswith(".")),
            )
        )
    defs = tuple(
        (short_key(d.short.text), label_of(trim(d.long, keep_pos=True) or list(d.long)),
         d.short.start_char,
         d.short.end_char)
        for d in definitions
    )
    prefix = _title_prefix(doc) if is_title else None
    return FieldCandidates(tuple(occurrences), defs, prefix.text if prefix is not None else None,
                           len(sentences))


_AUTHOR_WORDS = frozenset({"we", "our", "us"})
# What follows a verb and never a noun phrase's last word: its object's first word.
_OBJECT_START = frozenset("the a an this these those its their our it them".split())
_SUBJECT = frozenset("we they i you".split())


def used_as_verb(tokens: Sequence[Token], start: int, end: int) -> bool:
    """Whether the words `tokens[start:end]` end in a verb the parser took for a noun ("we
    fine-tune the model": the tokenizer splits "fine-tune", and "tune" is parsed as a noun):
    a subject pronoun or a modal before them (adverbs skipped: "we then fine-tune"), or an
    object's first word right after ("to fine-tune the model", "fine-tunes it"). A gerund
    or participle ("fine-tuning the model", "pre-trained the") is left alone: "fine-tuning"
    is the concept's own name."""
    last = tokens[end - 1].lower_
    if last.endswith(("ing", "ed")) or not last.isalpha():
        return False
    if end < len(tokens) and tokens[end].lower_ in _OBJECT_START:
        return True
    before = start - 1
    while before >= 0 and tokens[before].pos_ == "ADV":
        before -= 1
    return before >= 0 and (tokens[before].lower_ in _SUBJECT or tokens[before].tag_ == "MD")


def gerund(label: str, tag: str = "") -> str:
    """The activity noun of a verb ("fine-tune", "fine-tunes" with tag NNS/VBZ ->
    "fine-tuning"; "pre-train" -> "pre-training").

    >>> gerund("fine-tune"), gerund("Fine-tunes", "VBZ"), gerund("pre-train"), gerund("see")
    ('fine-tuning', 'Fine-tuning', 'pre-training', 'seeing')
    """
    base = label[:-1] if tag in {"NNS", "VBZ"} and label.endswith("s") else label
    if base.endswith("ie"):
        return base[:-2] + "ying"
    if base.endswith("e") and not base.endswith("ee"):
        return base[:-1] + "ing"
    return base + "ing"


def _governing_verb(root: Token) -> str:
    """The lemma of the nearest verb above a span's head `root` in the parse ("" when none
    within four steps): what the sentence does with the term — propose, use, outperform."""
    token = root
    for _ in range(4):
        if token.head is token:
            return ""
        token = token.head
        if token.pos_ in {"VERB", "AUX"}:
            return token.lemma_.lower()
    return ""


def _is_cited(doc: Doc, end: int) -> bool:
    """Is the term followed by "et al." (so it is the first author of a citation)?"""
    following = doc[end : end + 2].text.lower()
    return following.startswith(("et al", "et. al"))


def _role_of(span: Span, roles: dict[int, Role]) -> Role | None:
    found = [roles[t.i] for t in span if t.i in roles]
    if not found:
        return None
    return min(found, key=lambda r: r.rank)


def is_generic_label(label: str) -> bool:
    """A single generic word ("method", "results") is never a concept."""
    words = label.lower().split()
    return len(words) == 1 and words[0] in GENERIC_HEADS
