"""Roles from the dependency parse: which tokens a sentence proposes, compares with, uses…

Each function returns the token indices of a doc that are inside a phrase playing that role,
so a candidate term takes the role of the phrase it sits in:

- proposes: the object of "we propose/introduce/present…" (also "this paper/work introduces",
  "X is proposed"), its appositions and of-complements but not its relative clauses or other
  prepositional phrases; "X, a novel Y"; naming patterns ("dubbed/named/called/a.k.a. X");
  "our approach (X)".
- comparesWith: objects of outperform/surpass/beat/"compared with"/"than"/"over" after a
  comparison word, and "baselines such as X".
- evaluatesOn: "on/across X" in sentences about experiments or evaluation; settings lists.
- addresses: objects of address/tackle/solve/study/investigate/"focus on".
- uses: objects of use/leverage/employ/adopt/apply/utilize/"based on", and X in "X-based".
"""

from __future__ import annotations

from collections.abc import Sequence

from spacy.tokens import Doc, Token

from kg.types import Role

PROPOSE_VERBS = frozenset(
    """propose introduce present develop design devise build create construct release
    contribute offer unveil formulate establish curate collect put""".split()
)
AUTHOR_SUBJECTS = frozenset({"we", "paper", "work", "study", "article", "i"})
COMPARE_VERBS = frozenset({"outperform", "surpass", "beat", "exceed", "outpace", "rival", "match"})
COMPARE_WORDS = frozenset(
    {"better", "faster", "higher", "lower", "more", "less", "superior", "improvement",
     "improvements", "speedup", "speedups", "gain", "gains", "advantage", "outperforming"}
)
USE_VERBS = frozenset(
    """use leverage employ adopt apply utilize utilise exploit harness incorporate build
    combine integrate rely extend fine-tune finetune train adapt""".split()
)
ADDRESS_VERBS = frozenset(
    """address tackle solve study investigate mitigate alleviate improve enhance enable
    achieve facilitate target""".split()
)
EVAL_CUES = frozenset(
    """experiment experiments experimental evaluate evaluation evaluations evaluated
    benchmark benchmarks result results test tested testing demonstrate demonstrates show
    shows achieve achieves outperform outperforms validate validated empirical empirically
    simulation simulations setting settings""".split()
)
NAMING_WORDS = frozenset(
    {"dubbed", "named", "called", "termed", "coined", "aka", "a.k.a", "referred", "denoted"}
)
# Dependents that leave the noun phrase: clauses, prepositional phrases, appositions (an
# apposition describes the proposed thing — "X, a novel framework" — it is not proposed).
_EXCLUDED_DEPS = frozenset(
    {"relcl", "acl", "advcl", "xcomp", "ccomp", "prep", "agent", "punct", "cc", "mark", "appos"}
)
# "we introduce the concept/principle of X": X is the proposal.
CONTAINER_NOUNS = frozenset(
    """concept notion principle idea phenomenon paradigm problem task setting framework
    family class""".split()
)


def _np_tokens(head: Token) -> set[int]:
    """The noun phrase of `head`: its subtree without relative clauses and prepositional
    phrases, except of-complements ("the principle of X")."""
    keep: set[int] = {head.i}
    for child in head.children:
        if child.dep_ in _EXCLUDED_DEPS and not (child.dep_ == "prep" and child.lower_ == "of"):
            continue
        if child.dep_ == "prep":  # "of": keep its object phrase
            for pobj in child.children:
                if pobj.dep_ == "pobj":
                    keep |= {child.i} | _np_tokens(pobj)
            continue
        if child.dep_ == "conj":
            keep |= _np_tokens(child)
            continue
        keep |= {t.i for t in child.subtree}
    return keep


def _is_author(subject: Token) -> bool:
    """ "we", or "this/our/the present paper|work|study" — not "prior work"."""
    if subject.lower_ in {"we", "i"}:
        return True
    if subject.lower_ in AUTHOR_SUBJECTS:
        return any(c.lower_ in {"this", "our", "present", "current"} for c in subject.children)
    return False


def _has_author_subject(verb: Token) -> bool:
    for child in verb.children:
        if child.dep_ in {"nsubj", "nsubjpass"} and _is_author(child):
            return True
    # "… , we then introduce" parsed with the subject on a conjoined verb
    if verb.dep_ == "conj" and verb.head.pos_ in {"VERB", "AUX"}:
        return _has_author_subject(verb.head)
    return False


def proposed_tokens(doc: Doc, tokens: Sequence[Token] | None = None) -> set[int]:
    """Token indices inside phrases the authors propose (see module docstring)."""
    found: set[int] = set()
    for token in tokens if tokens is not None else doc:
        lemma = token.lemma_.lower()
        if token.pos_ in {"VERB", "AUX"} and lemma in PROPOSE_VERBS:
            passive = any(c.dep_ == "nsubjpass" for c in token.children)
            if _has_author_subject(token):
                for child in token.children:
                    if child.dep_ in {"dobj", "obj", "attr", "oprd"}:
                        found |= _np_tokens(child)
                    elif child.dep_ == "prt":  # "put forward X"
                        continue
            elif passive and any(c.lower_ in {"here", "paper", "work"} for c in token.subtree):
                for child in token.children:
                    if child.dep_ == "nsubjpass":
                        found |= _np_tokens(child)
        # "X, a novel Y": the head of an apposition introduced by "novel/new"
        if token.dep_ == "appos" and any(
            c.lower_ in {"novel", "new"} for c in token.children
        ):
            head = token.head
            found |= {head.i} | {c.i for c in head.children
                                 if c.dep_ in {"compound", "nmod", "nummod"}}
        # "our probabilistic approach (PRCut)": the name the authors give their own method
        if token.lower_ == "our" and token.dep_ == "poss":
            found |= _own_name_after(doc, token.head)
        # "a model named X" / "dubbed X" / "a.k.a. X" / "referred to as X"
        if token.lower_ in NAMING_WORDS and _names_own_term(token):
            nxt = token.i + 1
            while nxt < len(doc) and (doc[nxt].is_punct or doc[nxt].lower_ in {"as", "the", "to"}):
                nxt += 1
            end = nxt
            while end < len(doc) and not doc[end].is_punct and end - nxt < 6 and (
                doc[end].pos_ in {"PROPN", "NOUN", "ADJ", "NUM"} or doc[end].text[:1].isupper()
            ):
                end += 1
            found |= set(range(nxt, end))
    return found


def _own_name_after(doc: Doc, noun: Token) -> set[int]:
    """The capitalised name in parentheses right after the head noun `noun`."""
    open_ = noun.i + 1
    if open_ >= len(doc) or doc[open_].text != "(":
        return set()
    close = next((j for j in range(open_ + 1, min(len(doc), open_ + 5)) if doc[j].text == ")"),
                 None)
    inner = doc[open_ + 1 : close] if close is not None else None
    if inner is None or not len(inner) or not any(c.isupper() for c in inner.text):
        return set()
    return {t.i for t in inner}


def _names_own_term(token: Token) -> bool:
    """A naming pattern names the paper's own term when the authors speak in the sentence or
    the name is capitalised ("referred to as Streaming Heads"); not "known as"."""
    doc = token.doc
    nxt = next((t for t in doc[token.i + 1 : token.i + 4] if t.is_alpha
                and t.lower_ not in {"as", "the", "to"}), None)
    authored = any(t.lower_ in {"we", "our"} for t in token.sent)
    return authored or (nxt is not None and nxt.text[:1].isupper())


def introduced_tokens(doc: Doc, tokens: Sequence[Token] | None = None) -> set[int]:
    """Tokens of terms the text introduces as its own: in quotes ('the "unfair region"'),
    held by a container noun ("the principle of interaction asymmetry") or named by a naming
    pattern. A plain noun phrase in a proposal sentence ("a continued training recipe") is
    described, not introduced."""
    found: set[int] = set()
    quote_open: int | None = None
    for token in tokens if tokens is not None else doc:
        if token.is_quote or token.text in {"“", "”", '"'}:
            if quote_open is None:
                quote_open = token.i
            else:
                if token.i - quote_open <= 6:
                    found |= set(range(quote_open + 1, token.i))
                quote_open = None
        if token.lower_ == "of" and token.head.lemma_.lower() in CONTAINER_NOUNS:
            for pobj in token.children:
                if pobj.dep_ == "pobj":
                    found |= _np_tokens(pobj)
        if token.lower_ in NAMING_WORDS:
            end = token.i + 1
            while end < len(doc) and end - token.i <= 6 and not (
                doc[end].is_punct and doc[end].text not in {"-", "."}
            ):
                found.add(end)
                end += 1
    return found


def _phrase_after(doc: Doc, start: int) -> set[int]:
    """The noun phrase that follows a word, by its tags, whatever the parser attached it to."""
    found: set[int] = set()
    i = start
    while i < len(doc) and i - start < 8:
        token = doc[i]
        if token.pos_ in {"VERB", "AUX", "SCONJ", "PRON"} or (
            token.is_punct and token.text not in {"-", "(", ")"}
        ) or (token.pos_ == "ADP" and token.lower_ != "of"):
            break
        found.add(i)
        i += 1
    return found


def compared_tokens(doc: Doc, tokens: Sequence[Token] | None = None) -> set[int]:
    """Token indices inside phrases the paper compares itself with."""
    found: set[int] = set()
    for token in tokens if tokens is not None else doc:
        lemma = token.lemma_.lower()
        if token.pos_ == "VERB" and lemma in COMPARE_VERBS:
            for child in token.children:
                if child.dep_ in {"dobj", "obj"}:
                    found |= {t.i for t in child.subtree}
        if token.lower_ in {"than", "over", "against", "versus", "vs", "vs."} and (
            token.lower_ != "over" or token.head.lower_ in COMPARE_WORDS
            or token.head.lemma_ in COMPARE_VERBS
        ):
            for child in token.children:
                if child.dep_ == "pobj":
                    found |= {t.i for t in child.subtree}
            if token.lower_ in {"than", "versus", "vs", "vs."}:
                found |= _phrase_after(doc, token.i + 1)
        if token.lower_ in {"compared", "comparison", "relative"}:
            for prep in token.children:
                if prep.lower_ in {"to", "with", "against"}:
                    for pobj in prep.children:
                        found |= {t.i for t in pobj.subtree}
        if token.lemma_.lower() == "baseline":
            found |= {t.i for t in token.subtree if t.i != token.i and t.dep_ in
                      {"compound", "appos", "conj", "pobj"}}
    return found


def evaluated_tokens(doc: Doc, tokens: Sequence[Token] | None = None) -> set[int]:
    """Token indices inside "on/across X" phrases of evaluation sentences."""
    found: set[int] = set()
    for sent in doc.sents:
        if not any(t.lower_ in EVAL_CUES or t.lemma_.lower() in EVAL_CUES for t in sent):
            continue
        for token in sent:
            if token.lower_ in {"on", "across", "in"} and token.dep_ == "prep":
                head = token.head
                if token.lower_ == "in" and head.lower_ not in {"settings", "experiments",
                                                                 "environments", "domains"}:
                    continue
                for pobj in token.children:
                    if pobj.dep_ == "pobj":
                        found |= {t.i for t in pobj.subtree}
            if token.lower_ in {"settings", "environments", "domains", "benchmarks", "tasks"}:
                # "in three challenging settings -- autonomous driving, …"
                for t in token.subtree:
                    if t.dep_ in {"appos", "conj"} or (t.i > token.i and t.pos_ in {"NOUN",
                                                                                  "PROPN"}):
                        found.add(t.i)
    return found


def addressed_tokens(doc: Doc, tokens: Sequence[Token] | None = None) -> set[int]:
    """Token indices inside objects of address/tackle/solve/study/… verbs."""
    found: set[int] = set()
    for token in tokens if tokens is not None else doc:
        if token.pos_ == "VERB" and token.lemma_.lower() in ADDRESS_VERBS:
            for child in token.children:
                if child.dep_ in {"dobj", "obj"}:
                    found |= _np_tokens(child)
        if token.lower_ == "on" and token.head.lemma_.lower() in {"focus", "concentrate"}:
            for pobj in token.children:
                found |= _np_tokens(pobj)
    return found


def used_tokens(doc: Doc, tokens: Sequence[Token] | None = None) -> set[int]:
    """Token indices inside objects of use/leverage/employ/… and "X-based" modifiers."""
    found: set[int] = set()
    for token in tokens if tokens is not None else doc:
        lemma = token.lemma_.lower()
        if token.pos_ == "VERB" and lemma in USE_VERBS:
            for child in token.children:
                if child.dep_ in {"dobj", "obj"}:
                    found |= _np_tokens(child)
                if child.dep_ == "prep" and child.lower_ in {"on", "upon", "with"}:
                    for pobj in child.children:
                        found |= _np_tokens(pobj)
        if lemma == "base" and token.i + 1 < len(doc) and doc[token.i + 1].lower_ == "on":
            for pobj in doc[token.i + 1].children:
                found |= _np_tokens(pobj)
    return found


def based_on_tokens(doc: Doc, tokens: Sequence[Token] | None = None) -> set[int]:
    """Tokens of X in "an X-based model": what the proposal builds on, never the proposal."""
    found: set[int] = set()
    for token in tokens if tokens is not None else doc:
        if token.lower_ in {"based", "driven", "powered", "guided"} and token.i >= 2 and (
            doc[token.i - 1].text == "-"
        ):
            j = token.i - 2
            found.add(j)
            while j > 0 and doc[j - 1].whitespace_ and doc[j - 1].pos_ == "PROPN":
                j -= 1
                found.add(j)
    return found


def token_roles(doc: Doc) -> dict[int, Role]:
    """The role each token index takes from the patterns above.

    Later patterns override earlier ones: what a sentence compares with is not what it
    proposes ("DSI, faster than SI"), and what a proposal is based on is used, not proposed.
    """
    roles: dict[int, Role] = {}
    tokens = list(doc)  # one Token object per position, shared by every pattern
    for role, found in (
        (Role.USES, used_tokens(doc, tokens)),
        (Role.ADDRESSES, addressed_tokens(doc, tokens)),
        (Role.EVALUATES_ON, evaluated_tokens(doc, tokens)),
        (Role.PROPOSES, proposed_tokens(doc, tokens)),
        (Role.COMPARES_WITH, compared_tokens(doc, tokens)),
        (Role.USES, based_on_tokens(doc, tokens)),
    ):
        for i in found:
            roles[i] = role
    return roles
