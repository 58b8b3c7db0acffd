"""Candidate terms from noun phrases: trimmed, split around names, typed by their head.

A noun chunk such as "the existing KV cache pruning methods" becomes the term "KV cache
pruning" (determiners, evaluative adjectives and a generic trailing head dropped; the head says
"Method"). A chunk that is a name plus a generic head ("the LQCA method", "GPT-4o models")
yields the name, typed by the head. Parenthesised acronyms inside a chunk are dropped from the
label ("out-of-distribution (OOD) generalization").
"""

from __future__ import annotations

from dataclasses import dataclass

from spacy.tokens import Doc, Span, Token

from kg.extract.background import phrase_count, word_count
from kg.extract.lexicon import (
    DETERMINERS,
    EVALUATIVE,
    GENERAL_ADJECTIVES,
    GENERIC_HEADS,
    HEAD_TYPES,
    METHOD_HEADS,
    NAME_TYPE_CUES,
)
from kg.extract.names import is_quantity
from kg.normalize import norm_key
from kg.types import ConceptType

_LEADING_POS = frozenset({"DET", "PRON", "NUM", "ADV", "PUNCT", "CCONJ", "PART", "ADP", "SYM"})


@dataclass(frozen=True, slots=True)
class Term:
    """A candidate concept mention inside one doc (token offsets into that doc)."""

    start: int
    end: int
    label: str
    kind: str  # "name" | "chunk" | "gazetteer" | "acronym" | "model"
    head_type: ConceptType | None = None
    # The phrase was followed by a head that names it a method ("rectified flow technique").
    method_head: bool = False


def label_of(tokens: list[Token]) -> str:
    """The text of tokens with their original spacing, parentheses and their content removed."""
    out: list[str] = []
    depth = 0
    for tok in tokens:
        if tok.text in {"(", "["}:
            depth += 1
            continue
        if tok.text in {")", "]"}:
            depth = max(0, depth - 1)
            continue
        if depth:
            continue
        out.append(tok.text + tok.whitespace_)
    return "".join(out).strip().strip(",;:").strip()


_BOUND = 0.03  # share of an adjective's uses with the next word that makes the pair a term


def _is_bound(tok: Token) -> bool:
    """Is a general adjective part of a fixed expression with the next word ("large language",
    "natural language", "optimal transport") rather than a description ("high variance")?"""
    doc = tok.doc
    if tok.i + 1 >= len(doc):
        return False
    pair = f"{tok.lower_} {doc[tok.i + 1].lower_}"
    return phrase_count(norm_key(pair)) >= _BOUND * max(word_count(tok.lower_), 1)


def _is_trimmable_lead(tok: Token) -> bool:
    if tok.tag_ == "VBG" and tok.is_sent_start:
        return True  # "Achieving fairness …": the gerund is the sentence's verb
    low = tok.lower_
    if low in DETERMINERS or low in EVALUATIVE or tok.pos_ in _LEADING_POS:
        return True
    if low in GENERAL_ADJECTIVES:
        return not _is_bound(tok)
    if is_quantity(tok.text) or tok.like_num or not tok.text[:1].isalnum():
        return True  # "34.3% resolve rate": numbers, units and symbols lead no term
    return tok.text in {"’s", "'s"} or tok.tag_ in {"PRP$", "WP$"}


def _hyphen_compound(tokens: list[Token]) -> int:
    """Length of a leading hyphenated compound ("state-of-the-art", "off-the-shelf") whose
    text is an evaluative word, else 0."""
    end = 1
    while end + 1 < len(tokens) and tokens[end].text == "-" and not tokens[end - 1].whitespace_:
        end += 2
    if end == 1:
        return 0
    text = "".join(t.text for t in tokens[:end]).lower()
    return end if text in EVALUATIVE or text in GENERAL_ADJECTIVES else 0


def _starts_compound(tokens: list[Token]) -> bool:
    """Does a hyphen glued on both sides follow the first token ("fine-grained")?"""
    return (len(tokens) > 2 and tokens[1].text == "-" and not tokens[0].whitespace_
            and not tokens[1].whitespace_ and tokens[0].is_alpha
            and tokens[0].lower_ not in DETERMINERS)


def _is_number_compound(tokens: list[Token]) -> bool:
    return (len(tokens) > 3 and (tokens[0].like_num or tokens[0].lower_ in {"multi", "single"})
            and tokens[1].text == "-" and tokens[1].whitespace_ == "")


def trim(span: Span, *, keep_pos: bool = False) -> list[Token]:
    """Drop leading determiners/evaluative words/numbers and trailing punctuation.

    `keep_pos`: trim nothing (an acronym's long form, whose words the acronym's letters
    proved to belong: "out-of-distribution", "Key and Value").
    """
    tokens = list(span)
    if keep_pos:
        return tokens
    commas = [k for k, t in enumerate(tokens[:-1]) if t.text == ","]
    if commas:
        # "a novel, potentially data-dependent, regularization technique": the term follows
        # the last comma of a stacked modifier list.
        tokens = tokens[commas[-1] + 1:]
    owners = [k for k, t in enumerate(tokens[:-1])
              if t.tag_ == "POS" and k > 0 and tokens[k - 1].is_lower]
    if owners:
        # "the model's own visual encoder": a common-noun owner is not part of the term
        # (an eponym is: "Fisher's divergence").
        tokens = tokens[owners[-1] + 1:]
    while tokens:
        # "three-stage", "one-step": a number compound is a quantity, not part of the term.
        if _is_number_compound(tokens):
            del tokens[:3]
        elif compound := _hyphen_compound(tokens):
            del tokens[:compound]
        elif _starts_compound(tokens) and not is_quantity(tokens[0].text):
            break  # "fine-grained", "low-rank": the word belongs to a compound, not listed above
        elif _is_trimmable_lead(tokens[0]):
            tokens.pop(0)
        else:
            break
    while tokens and tokens[0].text in {"-", "--"}:
        tokens.pop(0)
    while tokens and (tokens[-1].is_punct and tokens[-1].text not in {")", "]"}):
        tokens.pop()
    return tokens


_FINITE = frozenset({"VBZ", "VBD", "VBP", "MD"})


def has_finite_verb(tokens: list[Token]) -> bool:
    """A finite verb inside a noun phrase means the parser glued a clause to it ("DSI
    leverages speculation parallelism"): no term."""
    return any(t.tag_ in _FINITE for t in tokens)


def head_type(word: str) -> ConceptType | None:
    """The type a head noun gives its phrase, if any.

    >>> [head_type(w).value for w in ["dataset", "quantization", "fine-tuning", "answering"]]
    ['Dataset', 'Method', 'Method', 'Task']
    >>> head_type("colour") is None
    True
    """
    low = word.lower()
    if low in HEAD_TYPES:
        return HEAD_TYPES[low]
    if low.endswith(("ization", "isation")):
        return ConceptType.METHOD  # regularization, quantization, minimization
    return None


def chunk_terms(doc: Doc, name_spans: list[Span]) -> list[Term]:
    """Candidate terms from the noun chunks of `doc` (see module docstring)."""
    name_starts = {s.start: s for s in name_spans}
    name_tokens = {i for s in name_spans for i in range(s.start, s.end)}
    terms: list[Term] = []
    for chunk in doc.noun_chunks:
        tokens = trim(chunk)
        if not tokens:
            continue
        head = chunk.root
        names_in = [name_starts[t.i] for t in tokens if t.i in name_starts]
        if names_in:
            terms.extend(_terms_around_names(doc, tokens, names_in, head))
            continue
        if any(t.i in name_tokens for t in tokens):
            continue  # a name's inner token: the name handles it
        # Drop a generic head after a content modifier ("reward design tasks" -> no change;
        # "KV cache pruning methods" is handled above; "mention replacement step" -> drop).
        while len(tokens) > 1 and tokens[-1].lower_ in GENERIC_HEADS and tokens[-2].pos_ in {
            "NOUN", "PROPN"
        } and tokens[-1].lower_ not in HEAD_TYPES:
            tokens.pop()
        htype = head_type(tokens[-1].lower_)
        if len(tokens) > 1 and tokens[-1].lower_ in METHOD_HEADS:
            if tokens[-2].pos_ not in {"NOUN", "PROPN"} and tokens[-2].tag_ != "VBG":
                continue  # "an information-theoretic framework": no name left without the head
            tokens.pop()  # "preference tuning methods" -> "preference tuning" (a Method)
            method_head = True
        else:
            method_head = False
        label = label_of(tokens)
        if not label or not any(t.is_alpha for t in tokens) or has_finite_verb(tokens):
            continue
        terms.append(Term(tokens[0].i, tokens[-1].i + 1, label, "chunk", htype, method_head))
    return terms


def _terms_around_names(
    doc: Doc, tokens: list[Token], names: list[Span], head: Token
) -> list[Term]:
    """Terms of a chunk that contains names: the names, or a name-modified compound."""
    out: list[Term] = []
    last = names[-1]
    after = [t for t in tokens if t.i >= last.end]
    content_after = [
        t for t in after
        if t.lower_ not in GENERIC_HEADS and t.lower_ not in NAME_TYPE_CUES and t.is_alpha
        and t.text not in {"-", "--"}
    ]
    cue = next((NAME_TYPE_CUES[t.lower_] for t in after if t.lower_ in NAME_TYPE_CUES), None)
    modifier_link = any(t.lower_ in {"based", "like", "guided", "style", "designed", "driven"}
                        for t in after)
    for name in names:
        out.append(Term(name.start, name.end, name.text, "name",
                        cue if name is last and not modifier_link else None))
    if content_after and not modifier_link and head.pos_ in {"NOUN", "PROPN"}:
        # "KV cache pruning methods" -> "KV cache pruning"; "SWE agent frameworks" -> "SWE agent"
        end_tokens = [t for t in tokens if t.i >= last.start]
        while end_tokens and (
            (end_tokens[-1].lower_ in GENERIC_HEADS
             and (end_tokens[-1].lower_ not in HEAD_TYPES
                  or end_tokens[-1].lower_ in METHOD_HEADS))
            or end_tokens[-1].is_punct
        ):
            end_tokens.pop()
        if len(end_tokens) > len(last):
            label = label_of(end_tokens)
            out.append(Term(last.start, end_tokens[-1].i + 1, label, "chunk",
                            head_type(end_tokens[-1].lower_)))
    return out
