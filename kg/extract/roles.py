"""Roles from the dependency parse: which tokens a sentence proposes, compares with, uses…

Each function returns the token indices of a doc that are inside a phrase playing that role,
so a candidate term takes the role of the phrase it sits in:

- proposes: the object of "we propose/introduce/present…" (also "this paper/work introduces",
  "X is proposed"), its appositions and of-complements but not its relative clauses or other
  prepositional phrases; "X, a novel Y"; naming patterns ("dubbed/named/called/a.k.a. X").
- comparesWith: objects of outperform/surpass/beat/"compared with"/"than"/"over" after a
  comparison word, and "baselines such as X".
- evaluatesOn: "on/across X" in sentences about experiments or evaluation; settings lists.
- addresses: objects of address/tackle/solve/study/investigate/"focus on".
- uses: objects of use/leverage/employ/adopt/apply/utilize/"based on", and X in "X-based".
"""

from __future__ import annotations

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
NAMING_WORDS = frozenset({"dubbed", "named", "called", "termed", "coined", "aka", "a.k.a"})
_EXCLUDED_DEPS = frozenset({"relcl", "acl", "advcl", "prep", "agent", "punct", "cc", "mark"})


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
        if child.dep_ in {"appos", "conj"}:
            keep |= _np_tokens(child)
            continue
        keep |= {t.i for t in child.subtree}
    return keep


def _has_author_subject(verb: Token) -> bool:
    for child in verb.children:
        if child.dep_ in {"nsubj", "nsubjpass"} and child.lower_ in AUTHOR_SUBJECTS:
            return True
    # "… , we then introduce" parsed with the subject on a conjoined verb
    if verb.dep_ == "conj" and verb.head.pos_ in {"VERB", "AUX"}:
        return _has_author_subject(verb.head)
    return False


def proposed_tokens(doc: Doc) -> set[int]:
    """Token indices inside phrases the authors propose (see module docstring)."""
    found: set[int] = set()
    for token in doc:
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
            found |= {token.head.i} | {t.i for t in token.head.subtree
                                       if t.dep_ in {"compound", "amod", "nmod", "nummod"}
                                       or t.i == token.head.i}
        # "a model named X" / "dubbed X" / "a.k.a. X"
        if token.lower_ in NAMING_WORDS and _sentence_has_author(token):
            nxt = token.i + 1
            while nxt < len(doc) and (doc[nxt].is_punct or doc[nxt].lower_ in {"as", "the"}):
                nxt += 1
            end = nxt
            while end < len(doc) and not doc[end].is_punct and end - nxt < 6 and (
                doc[end].pos_ in {"PROPN", "NOUN", "ADJ", "NUM"} or doc[end].text[:1].isupper()
            ):
                end += 1
            found |= set(range(nxt, end))
    return found


def _sentence_has_author(token: Token) -> bool:
    return any(t.lower_ in {"we", "our"} for t in token.sent)


def compared_tokens(doc: Doc) -> set[int]:
    """Token indices inside phrases the paper compares itself with."""
    found: set[int] = set()
    for token in doc:
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
            if token.lower_ == "than" and not list(token.children) and token.i + 1 < len(doc):
                found |= {t.i for t in doc[token.i + 1].subtree}
        if token.lower_ in {"compared", "comparison", "relative"}:
            for prep in token.children:
                if prep.lower_ in {"to", "with", "against"}:
                    for pobj in prep.children:
                        found |= {t.i for t in pobj.subtree}
        if token.lemma_.lower() == "baseline":
            found |= {t.i for t in token.subtree if t.i != token.i and t.dep_ in
                      {"compound", "appos", "conj", "pobj"}}
    return found


def evaluated_tokens(doc: Doc) -> set[int]:
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


def addressed_tokens(doc: Doc) -> set[int]:
    """Token indices inside objects of address/tackle/solve/study/… verbs."""
    found: set[int] = set()
    for token in doc:
        if token.pos_ == "VERB" and token.lemma_.lower() in ADDRESS_VERBS:
            for child in token.children:
                if child.dep_ in {"dobj", "obj"}:
                    found |= _np_tokens(child)
        if token.lower_ == "on" and token.head.lemma_.lower() in {"focus", "concentrate"}:
            for pobj in token.children:
                found |= _np_tokens(pobj)
    return found


def used_tokens(doc: Doc) -> set[int]:
    """Token indices inside objects of use/leverage/employ/… and "X-based" modifiers."""
    found: set[int] = set()
    for token in doc:
        lemma = token.lemma_.lower()
        if token.pos_ == "VERB" and lemma in USE_VERBS:
            for child in token.children:
                if child.dep_ in {"dobj", "obj"}:
                    found |= _np_tokens(child)
                if child.dep_ == "prep" and child.lower_ in {"on", "upon", "with"}:
                    for pobj in child.children:
                        found |= _np_tokens(pobj)
        if token.lower_ in {"based", "driven", "powered", "guided"} and token.i >= 2 and (
            doc[token.i - 1].text == "-"
        ):
            found |= {doc[token.i - 2].i}
            j = token.i - 3
            while j >= 0 and doc[j].whitespace_ and doc[j].pos_ == "PROPN":
                found.add(j)
                j -= 1
        if lemma == "base" and token.i + 1 < len(doc) and doc[token.i + 1].lower_ == "on":
            for pobj in doc[token.i + 1].children:
                found |= _np_tokens(pobj)
    return found


def token_roles(doc: Doc) -> dict[int, Role]:
    """The strongest role each token index takes from the patterns above."""
    roles: dict[int, Role] = {}
    for role, tokens in (
        (Role.USES, used_tokens(doc)),
        (Role.ADDRESSES, addressed_tokens(doc)),
        (Role.EVALUATES_ON, evaluated_tokens(doc)),
        (Role.COMPARES_WITH, compared_tokens(doc)),
        (Role.PROPOSES, proposed_tokens(doc)),
    ):
        for i in tokens:
            current = roles.get(i)
            if current is None or role.rank < current.rank:
                roles[i] = role
    return roles
