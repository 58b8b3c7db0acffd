"""The dependency patterns behind `kg.extract.relation_mentions`: one pass over a parsed Doc.

`Finder` looks up trigger words (`kg.extract.relation_words`) and, for each, resolves the
phrases the pattern relates to the mentions (`Anchor`s) they stand for (see
`kg.extract.relation_mentions` for the patterns and the phrase rules).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from spacy.attrs import LEMMA, LOWER
from spacy.strings import get_string_id
from spacy.tokens import Doc, Token

from kg.extract.relation_words import (
    APPLY_VERBS,
    APPROACH_NOUNS,
    BAD_MEASURES,
    BASED_WORDS,
    BEAT_VERBS,
    BUILD_VERBS,
    COMPARE_WORDS,
    CONTAINER_NOUNS,
    DERIVED_WORDS,
    DESIGNED,
    EVAL_VERBS,
    FINDING_NOUNS,
    FIT_ADJECTIVES,
    GAIN_NOUNS,
    GOOD_MEASURES,
    GOOD_QUALITIES,
    HELP_VERBS,
    LOSS_WORDS,
    MEANS_GERUNDS,
    OUTCOME_VERBS,
    PEER_WORDS,
    PURPOSE_HEADS,
    SHOW_VERBS,
    USE_VERBS,
    VARIANT_NOUNS,
    WIN_WORDS,
    WITH_VERBS,
)
from kg.types import ConceptType, RelationType

Found = tuple[int, RelationType, int]
"""(subject anchor, relation, object anchor): indices into the anchors of one Doc."""

_NOMINAL = frozenset({"NOUN", "PROPN"})
_VERBAL = frozenset({"VERB", "AUX"})


@dataclass(frozen=True, slots=True)
class Trigger:
    """A word that starts a pattern: its lowercase forms (or lemmas, for verbs and nouns), the
    dependency labels it must carry (None: any) and the `Finder` method that runs the pattern."""

    name: str
    words: frozenset[str]
    deps: frozenset[str] | None
    pattern: str


def _trigger(name: str, words: str | frozenset[str], deps: str | None, pattern: str) -> Trigger:
    forms = frozenset(words.split()) if isinstance(words, str) else words
    return Trigger(name, forms, frozenset(deps.split()) if deps else None, pattern)


#: The relation triggers, in one table. Prepositions are matched on the word, at most one per
#: token (the first row that fits); verbs on the lemma, at most one per token, and only when
#: the token is a verb. The other patterns (purpose "to", "X-based", "based on", "a variant
#: of") are checked on every trigger token (`Finder._dispatch`).
PREPOSITIONS = (
    _trigger("for", "for", "prep", "_for"),
    _trigger("instrument", "via through by", "prep agent", "_instrument"),
    _trigger("evaluated-on", "on across", "prep", "_on"),
    _trigger("than", "than", None, "_than"),
    _trigger("over", "over upon", "prep", "_over"),
    _trigger("to-with", "to with", "prep dative", "_to_with"),
    _trigger("versus", "versus vs vs. against", None, "_versus"),
)
VERBS = (
    _trigger("outperforms", BEAT_VERBS, None, "_beat"),
    _trigger("uses", USE_VERBS, None, "_use"),
    _trigger("helps", HELP_VERBS, None, "_help"),
    _trigger("compares", "compare", None, "_compare"),
    _trigger("builds-on", BUILD_VERBS, None, "_build"),
)
#: Words that start the based-on patterns ("Y based on X", "X-based Y", "Y derived from X").
BASE_WORDS = BASED_WORDS | DERIVED_WORDS

# Words and lemmas that start a pattern, as the string ids the Doc's arrays hold.
_WORD_IDS = frozenset(
    get_string_id(w) for w in frozenset().union(*(t.words for t in PREPOSITIONS), BASE_WORDS)
)
_LEMMA_IDS = frozenset(
    get_string_id(w) for w in frozenset().union(*(t.words for t in VERBS), VARIANT_NOUNS)
)


@dataclass(frozen=True, slots=True)
class Anchor:
    """A mention placed on the tokens `[start, end)` of a Doc."""

    start: int
    end: int
    ctype: ConceptType
    key: str  # two anchors with one key are one concept: never related to each other


class Finder:
    """One pass over a Doc's tokens; each trigger word adds the pairs its pattern states."""

    def __init__(self, doc: Doc, anchors: Sequence[Anchor]) -> None:
        self.doc = doc
        self.at: dict[int, int] = {}
        # Longest mention first, so that a token inside nested mentions names the outer one.
        for index in sorted(range(len(anchors)), key=lambda i: anchors[i].start - anchors[i].end):
            for i in range(anchors[index].start, anchors[index].end):
                self.at.setdefault(i, index)
        self.found: list[Found] = []

    def add(self, subjects: list[int], predicate: RelationType, objects: list[int]) -> None:
        self.found.extend((s, predicate, o) for s in subjects for o in objects if s != o)

    # -- phrases ----------------------------------------------------------------------------

    def phrase(self, token: Token) -> list[int]:
        """The anchors a phrase headed by `token` stands for, conjuncts included."""
        found = self._own(token, 0)
        for child in token.children:
            if child.dep_ == "conj" and child.pos_ not in _VERBAL:
                found = found + [a for a in self.phrase(child) if a not in found]
        return found

    def _own(self, token: Token, depth: int) -> list[int]:
        at = self.at
        if token.i in at:
            return [at[token.i]]
        if depth > 2:
            return []
        if token.tag_ in {"WDT", "WP"} and token.head.dep_ == "relcl":
            return self._own(token.head.head, depth + 1)  # "X, which outperforms Y"
        for child in token.lefts:  # "the Llama3-ChatQA-2-70B model", "the A and B datasets"
            if child.dep_ in {"compound", "nmod", "amod", "nummod"} and child.i in at:
                return self.phrase(child)
        for child in token.children:  # "a novel algorithm (DSI)"
            if child.dep_ == "appos" and child.i in at:
                return [at[child.i]]
        if token.dep_ == "appos":  # "ChatQA 2, an Llama 3.0-based model"
            return self._own(token.head, depth + 1)
        for child in token.children:
            if child.dep_ != "prep":
                continue
            # "models, including X and Y" / "such as X"; "a set of X", "by means of X"
            if child.lower_ in {"including", "like", "as"} or (
                child.lower_ == "of" and token.lower_ in CONTAINER_NOUNS
            ):
                return [a for pobj in child.children if pobj.dep_ == "pobj"
                        for a in self.phrase(pobj)]
        return []

    def complement(self, prep: Token) -> list[int]:
        """What a preposition governs: its object, or a gerund ("for computing X")."""
        found: list[int] = []
        for child in prep.children:
            if child.dep_ == "pobj":
                found += self.phrase(child)
            elif child.dep_ == "pcomp":
                found += self._own(child, 0) if child.i in self.at else self.objects(child)
        return found

    def objects(self, verb: Token) -> list[int]:
        return [a for c in verb.children if c.dep_ in {"dobj", "obj"} for a in self.phrase(c)]

    def passive_subject(self, verb: Token) -> list[int]:
        return [a for c in verb.children if c.dep_ == "nsubjpass" for a in self.phrase(c)]

    def patient(self, verb: Token) -> list[int]:
        """What a verb acts on: its object, or its subject in the passive."""
        return self.objects(verb) or self.passive_subject(verb)

    def subject(self, verb: Token, depth: int = 0) -> list[int]:
        """The subject of a verb, raised through conjoined, open and relative clauses."""
        for child in verb.children:
            if child.dep_ in {"nsubj", "nsubjpass", "csubj"}:
                return self.phrase(child)
        for child in verb.lefts:  # a rare name the parser took for an adverb ("QLoRA is …")
            if child.dep_ in {"advmod", "npadvmod", "dep"} and child.i in self.at:
                return self.phrase(child)
        if depth < 3 and verb.dep_ in {"conj", "xcomp", "advcl"} and verb.head.pos_ in _VERBAL:
            return self.subject(verb.head, depth + 1)
        if verb.dep_ in {"acl", "relcl"}:
            return self.phrase(verb.head)
        return []

    def holder(self, word: Token) -> list[int]:
        """Who a modifier says something of: climb to a named noun or a verb's subject."""
        token = word
        for _ in range(4):
            if token.pos_ in _VERBAL and token is not word:
                return self.subject(token)
            if token.pos_ in _NOMINAL and token.dep_ not in {"dobj", "attr", "pobj"}:
                own = self.phrase(token)
                if own:
                    return own
            if token.head is token:
                break
            token = token.head
        return []

    # -- patterns ---------------------------------------------------------------------------

    def run(self) -> None:
        """Dispatch every trigger word. Tokens are only made for triggers, found on the Doc's
        LOWER and LEMMA arrays: making a `Token` per word costs more than all patterns."""
        doc = self.doc
        lows = doc.to_array(LOWER).tolist()
        lemmas = doc.to_array(LEMMA).tolist()
        for i, (low_id, lemma_id) in enumerate(zip(lows, lemmas, strict=True)):
            if low_id in _WORD_IDS or lemma_id in _LEMMA_IDS:
                self._dispatch(doc[i])

    def _dispatch(self, token: Token) -> None:
        low, lemma = token.lower_, token.lemma_.lower()
        if low == "to" and token.dep_ == "aux":
            verb = token.head
            if verb.dep_ in {"xcomp", "advcl", "acl", "relcl"} and verb.pos_ == "VERB":
                self._purpose(verb)
        rule = _first(PREPOSITIONS, low, token.dep_)
        if rule is not None:
            getattr(self, rule.pattern)(token)
        if low in BASED_WORDS and token.i >= 2 and self.doc[token.i - 1].text == "-":
            self._hyphen_based(token)
        elif token.pos_ in _VERBAL:
            self._verb(token, lemma)
        if lemma in VARIANT_NOUNS and token.pos_ == "NOUN":
            self._variant(token)

    def _for(self, prep: Token) -> None:
        targets = self.complement(prep)
        if not targets:
            return
        head = prep.head
        if head.pos_ in _NOMINAL:
            users = self.phrase(head)  # "CNNs for NLP tasks"
        elif head.pos_ == "VERB" and head.dep_ == "acl" and head.lemma_ in DESIGNED:
            users = self.phrase(head.head)  # "features designed for Y"
        elif head.pos_ == "VERB" and head.lemma_ in PURPOSE_HEADS | APPLY_VERBS:
            users = self.patient(head)  # "we use X for Y", "X is used for Y"
        elif head.pos_ == "ADJ" and head.lemma_ in FIT_ADJECTIVES:
            users = self.holder(head)  # "X is useful for Y"
        else:
            return
        self.add(users, RelationType.USED_FOR, targets)

    def _instrument(self, prep: Token) -> None:
        """ "Y via X", "Y is achieved by combining X", "Y is computed by X"."""
        head = prep.head
        if head.lemma_ in USE_VERBS:
            return  # "O is used by S": the agent uses, it is not used (see `_use`)
        means = [a for c in prep.children if c.dep_ == "pobj" for a in self.phrase(c)]
        for gerund in prep.children:
            if gerund.dep_ == "pcomp" and gerund.lemma_ in MEANS_GERUNDS:
                means += self.objects(gerund)
        target = self.phrase(head) if head.pos_ in _NOMINAL else (
            self.patient(head) if head.pos_ == "VERB" else [])
        self.add(means, RelationType.USED_FOR, target)

    def _on(self, prep: Token) -> None:
        datasets = self.complement(prep)
        if not datasets:
            return
        head = prep.head
        if head.pos_ in _NOMINAL and head.lower_ in FINDING_NOUNS:
            if head.dep_ == "pobj" and head.head.head.lower_ in FINDING_NOUNS:
                head = head.head.head  # "the results of experiments on D show …"
            verb = head.head  # "experiments on D show that X …"
            if head.dep_ == "nsubj" and verb.lemma_ in SHOW_VERBS:
                for clause in verb.children:
                    if clause.dep_ == "ccomp":
                        self.add(self.subject(clause), RelationType.EVALUATED_ON, datasets)
                return
        if head.pos_ in _NOMINAL and head.dep_ == "dobj":
            head = head.head  # "X achieves state-of-the-art results on D"
        lemma = head.lemma_.lower()
        if lemma in EVAL_VERBS:
            self.add(self.patient(head), RelationType.EVALUATED_ON, datasets)
        elif lemma in OUTCOME_VERBS:
            self.add(self.subject(head), RelationType.EVALUATED_ON, datasets)

    def _than(self, than: Token) -> None:
        rivals = self.complement(than)
        if not rivals:
            nxt = next((t for t in self.doc[than.i + 1 : than.i + 4] if t.i in self.at), None)
            rivals = self.phrase(nxt) if nxt is not None else []
        word = than.head
        if word.pos_ in _NOMINAL:  # "higher accuracy than Y": the comparative modifies it
            measure = word.lower_
            word = next((c for c in word.children if c.tag_ in {"JJR", "RBR"}), word)
        else:
            measure = ""
        subjects = self.holder(word)
        verdict = _verdict(word, measure)
        if verdict > 0:
            self.add(subjects, RelationType.OUTPERFORMS, rivals)
        elif verdict < 0:
            self.add(rivals, RelationType.OUTPERFORMS, subjects)
        else:
            self.add(subjects, RelationType.COMPARED_WITH, rivals)

    def _over(self, prep: Token) -> None:
        rivals = self.complement(prep)
        head = prep.head
        if head.dep_ == "pobj" and head.head.lower_ == "of" and head.head.head.lower_ in GAIN_NOUNS:
            # "the gain of X over Y"; "X yields a gain of 3% over Y"
            gain = head.head.head
            self.add(self.phrase(head) or self.holder(gain), RelationType.OUTPERFORMS, rivals)
            return
        if head.lower_ in GAIN_NOUNS:  # "an improvement of X over Y", "X gives gains over Y"
            winners = [a for c in head.children if c.dep_ == "prep" and c.lower_ == "of"
                       for a in self.complement(c)] or self.holder(head)
        elif head.lemma_ in {"improve", "outperform", "win"} and head.pos_ == "VERB":
            winners = self.subject(head)
        else:
            return
        self.add(winners, RelationType.OUTPERFORMS, rivals)

    def _to_with(self, prep: Token) -> None:
        head = prep.head
        lemma, low = head.lemma_.lower(), head.lower_
        other = self.complement(prep)
        if not other:
            return
        if prep.lower_ == "to" and lemma in APPLY_VERBS and head.pos_ == "VERB":
            self.add(self.patient(head), RelationType.USED_FOR, other)  # "apply X to Y"
        elif prep.lower_ == "to" and head.pos_ in _NOMINAL and (
            low in APPROACH_NOUNS or (head.dep_ == "dobj" and head.head.lemma_ in APPLY_VERBS)
        ):
            self.add(self.phrase(head), RelationType.USED_FOR, other)  # "an approach to Y"
        elif prep.lower_ == "with" and lemma in WITH_VERBS and head.pos_ == "VERB":
            self.add(other, RelationType.USED_FOR, self.patient(head))  # "equip X with Y"
        elif low in COMPARE_WORDS or lemma == "compare":
            self.add(self._compared(head), RelationType.COMPARED_WITH, other)
        elif low == "superior":
            self.add(self.holder(head), RelationType.OUTPERFORMS, other)
        elif low in PEER_WORDS:
            self.add(self.holder(head), RelationType.COMPARED_WITH, other)

    def _compared(self, word: Token) -> list[int]:
        """The first side of "compare X with Y", "X compared to Y", "a comparison of X to Y"."""
        if word.pos_ == "VERB" and word.lemma_ == "compare":
            found = self.objects(word)
            if found:
                return found
            if word.dep_ == "acl":
                return self.phrase(word.head)
            if any(c.dep_ in {"nsubj", "nsubjpass"} for c in word.children):
                return self.subject(word)  # "X compares well to Y"
        for child in word.children:
            if child.dep_ == "prep" and child.lower_ in {"of", "between"}:
                return self.complement(child)
        return self.holder(word)

    def _versus(self, token: Token) -> None:
        others = self.complement(token)
        head = token.head
        if token.lower_ == "against":
            if head.lemma_ in EVAL_VERBS | {"compare"}:
                self.add(self.patient(head), RelationType.COMPARED_WITH, others)
            return
        if not others:
            nxt = next((t for t in self.doc[token.i + 1 : token.i + 4] if t.i in self.at), None)
            others = self.phrase(nxt) if nxt is not None else []
        self.add(self.phrase(head), RelationType.COMPARED_WITH, others)

    def _verb(self, verb: Token, lemma: str) -> None:
        rule = _first(VERBS, lemma, verb.dep_)
        if rule is not None:
            getattr(self, rule.pattern)(verb)
        low = verb.lower_
        if low in BASE_WORDS:  # "Y (is) based on X", "Y, built upon X"
            preps = {"from"} if low in DERIVED_WORDS else {"on", "upon", "from"}
            for child in verb.children:
                if child.dep_ == "prep" and child.lower_ in preps:
                    base = self.complement(child)
                    built = (self.phrase(verb.head) if verb.dep_ in {"acl", "amod"}
                             else self.passive_subject(verb) or self.subject(verb))
                    self.add(built, RelationType.BASED_ON, base)

    def _beat(self, verb: Token) -> None:
        """ "X outperforms Y"."""
        self.add(self.subject(verb), RelationType.OUTPERFORMS, self.objects(verb))

    def _help(self, verb: Token) -> None:
        """ "X improves Y", not "X enables Y to do Z" (Y is an agent there, not a purpose)."""
        if verb.tag_ != "VBN" and not any(c.dep_ in {"xcomp", "ccomp"} for c in verb.children):
            self.add(self.subject(verb), RelationType.USED_FOR, self.objects(verb))

    def _compare(self, verb: Token) -> None:
        """ "we compare X and Y"."""
        for child in verb.children:
            if child.dep_ == "dobj":
                first = self._own(child, 0)
                rest = [a for c in child.children if c.dep_ == "conj" for a in self.phrase(c)]
                self.add(first, RelationType.COMPARED_WITH, rest)

    def _build(self, verb: Token) -> None:
        """ "X builds on Y", "X extends Y"."""
        lemma = verb.lemma_.lower()
        if verb.dep_ in {"acl", "amod"}:
            return
        for child in verb.children:
            if lemma == "build" and child.dep_ == "prep" and child.lower_ in {"on", "upon"}:
                self.add(self.subject(verb), RelationType.BASED_ON, self.complement(child))
        if lemma in {"extend", "generalize"} and verb.tag_ != "VBN":
            self.add(self.subject(verb), RelationType.BASED_ON, self.objects(verb))

    def _use(self, verb: Token) -> None:
        """ "S uses O", "O is used in/by S", "Y, using X", "Y is built using X"."""
        if verb.tag_ == "VBG" and verb.dep_ in {"acl", "advcl", "xcomp", "prep", "pcomp"}:
            head = verb.head
            users = self.phrase(head) if head.pos_ in _NOMINAL else (
                self.patient(head) if head.pos_ == "VERB" else [])
            self.add(self.objects(verb), RelationType.USED_FOR, users)
            return
        used = self.passive_subject(verb)
        if used:
            for child in verb.children:
                if child.dep_ in {"prep", "agent"} and child.lower_ in {"in", "by", "within"}:
                    self.add(used, RelationType.USED_FOR, self.complement(child))
            return
        self.add(self.objects(verb), RelationType.USED_FOR, self.subject(verb))

    def _purpose(self, verb: Token) -> None:
        """ "a method to produce Y", "we adopt X to perform Y": X is used for Y."""
        head = verb.head
        if verb.dep_ == "acl" and head.pos_ in _NOMINAL:
            users = self.phrase(head)
        elif head.pos_ == "VERB" and head.lemma_ in PURPOSE_HEADS:
            users = self.patient(head)
        else:
            return
        self.add(users, RelationType.USED_FOR, self.objects(verb))

    def _hyphen_based(self, word: Token) -> None:
        """ "an Llama 3.0-based model": the model (or its name) is based on Llama 3.0."""
        base = self.at.get(word.i - 2)
        if base is None or word.i in self.at:
            return  # "decision tree based approach" named as one mention is no relation
        built = self.phrase(word.head) if word.head.pos_ in _NOMINAL else []
        self.add(built, RelationType.BASED_ON, [base])

    def _variant(self, noun: Token) -> None:
        """ "Y, a variant of X" / "Y is an extension of X"."""
        base = [a for c in noun.children if c.dep_ == "prep" and c.lower_ == "of"
                for a in self.complement(c)]
        if not base:
            return
        if noun.dep_ == "appos":
            built = self.phrase(noun.head)
        elif noun.dep_ == "attr":
            built = self.subject(noun.head)
        else:
            return
        self.add(built, RelationType.BASED_ON, base)


def _first(rules: Sequence[Trigger], word: str, dep: str) -> Trigger | None:
    """The first rule `word` triggers with the dependency label `dep`."""
    for rule in rules:
        if word in rule.words and (rule.deps is None or dep in rule.deps):
            return rule
    return None


def _verdict(word: Token, measure: str) -> int:
    """+1 when "X <word> than Y" says X wins, -1 when Y wins, 0 when it does not say."""
    low = word.lower_
    if low in WIN_WORDS:
        return 1
    if low in LOSS_WORDS:
        return -1
    if low in {"more", "less"}:
        quality = word.head.lower_ if word.dep_ == "advmod" else ""
        if quality in GOOD_QUALITIES:
            return 1 if low == "more" else -1
    if low in {"higher", "greater"} and measure in GOOD_MEASURES:
        return 1
    if low in {"lower", "smaller", "fewer", "less"} and measure in BAD_MEASURES:
        return 1
    return 0
