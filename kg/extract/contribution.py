"""Cues that a candidate is what the paper itself introduces, read from the words around it.

The parse-based roles (`kg.extract.roles`) see the direct object of "we propose"; much of
what papers introduce sits elsewhere: in a list after a colon ("we propose two losses: an A
and a B"), in a numbered contribution list ("(i) A; (ii) B"), after "a novel", as the subject
that "achieves"/"outperforms" in a later sentence, or in the title, whose name the abstract
abbreviates ("Unbiased Online Recurrent Optimization" -> "UORO"). These cues are plain
statements about English scientific prose, computed on the text of the candidate's sentence;
the learned decisions weigh them (`kg.extract.features`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from kg.extract.candidates import Occurrence
from kg.extract.names import looks_title_cased
from kg.types import Field

# Inflected forms of the verbs with which authors introduce their own work.
_INTRODUCE = re.compile(
    r"\b(?:propos|introduc|present|develop|design|devis|contribut|releas|creat|construct|"
    r"build|built|formulat|offer|curat|collect)\w*\b", re.IGNORECASE)
_AUTHORS = re.compile(r"\b(?:we|our|this (?:paper|work|study|article))\b", re.IGNORECASE)
_NOVEL = re.compile(r"\b(?:novel|new|first|proposed|newly|original)\b", re.IGNORECASE)
# A name given just before the candidate: "a method called X", "a property we call X",
# "which we call it X", "referred to (as) X", "a.k.a. X"; the name may open with a quote,
# LaTeX's `` among them.
_NAMED = re.compile(
    r"(?:\b(?:call|calls|called|named|dubbed|termed|coined|namely|coin|"
    r"referred\s+to(?:\s+as)?|denoted\s+(?:as|by)|known\s+as)|\ba\.k\.a\.?|\baka\b),?"
    r"\s*(?:(?:it|them|this|these)\s+)?(?:``|[\"“'‘(])?\s*$", re.IGNORECASE)
_LIST_ITEM = re.compile(
    r"(?:\(\s*(?:i{1,3}|iv|v|vi{0,3}|[1-9]|[a-e])\s*\)|\b(?:i{1,3}|iv|[1-9]|[a-e])\)|"
    r"\b(?:first|second|third|fourth|firstly|secondly|thirdly|finally|lastly|"
    r"additionally|moreover)\s*,)\s*(?:(?:a|an|the|our|we|this)\s+)?(?:\w+[\s-]+){0,3}$",
    re.IGNORECASE)
# Words that end the object of an introducing verb: a preposition, a clause, a purpose.
_BREAK = re.compile(
    r"\b(?:for|to|on|in|with|by|that|which|who|where|using|via|from|over|than|across|"
    r"into|through|under|while|when|because|and then)\b|[;,]\s*(?:which|where|and)\b",
    re.IGNORECASE)
# Words one of which `_NAMED` needs ("called", "named", "dubbed", …), lower-cased.
_NAMED_WORDS = ("call", "name", "dub", "term", "coin", "referred", "denot", "known", "aka",
                "a.k.a")
_LIST_TAIL = re.compile(r"[\w\s-]*")
_CONTRIBUTION = re.compile(r"\bcontribution", re.IGNORECASE)
_RESULT = re.compile(
    r"\b(?:outperform|surpass|achiev|attain|beat|improv|yield|exceed|reduc|obtain|deliver|"
    r"set|establish|match|rival)\w*\b", re.IGNORECASE)
# Words that may open a sentence before its subject ("Specifically, X achieves ...").
_OPENERS = re.compile(
    r"^(?:(?:specifically|moreover|furthermore|further|additionally|in addition|finally|"
    r"empirically|experimentally|overall|concretely|notably|importantly|in particular|"
    r"as a result|thus|hence|consequently|however)\s*,?\s*)?"
    r"(?:(?:the|our|this|these|both|a|an)\s+)?(?:(?:proposed|new|novel|resulting)\s+)?$",
    re.IGNORECASE)
_TITLE_SPLIT = re.compile(r"\s*(?::|\s[-–—]\s)\s*")
_SMALL_WORDS = frozenset("a an the of for and in on via with to by from using through".split())
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*")
_NEAR = 160  # characters before a candidate that the anchored patterns look at

NAMES = ("novel_near", "named_before", "authors_introduce_before", "colon_after_introduce",
         "list_item", "contribution_sentence", "sentence_subject", "subject_of_result",
         "title_initials", "title_stem", "title_name", "name_rank", "names_in_paper",
         "abstract_capital", "title_cased", "title_only", "introduce_words_between",
         "introduce_direct")


@dataclass(frozen=True, slots=True)
class _Sentence:
    """What the cues read once per sentence."""

    authored: bool  # "we", "our", "this paper" in it
    contribution: bool  # it speaks of contributions
    introduce_ends: tuple[int, ...]  # where each introducing verb ends (offsets in the text)


@dataclass(frozen=True, slots=True)
class PaperText:
    """What the cues need of a paper: its fields' texts, its title's parts, the count of
    each named group (acronym or name) in it."""

    texts: dict[Field, str]
    title_words: tuple[str, ...]  # the title's words, in order
    title_head: str  # the part before a title's colon or dash ("" when none)
    name_counts: tuple[int, ...]  # counts of the paper's named groups, most frequent first
    title_cased: bool  # a headline-style title, where every word is capitalised
    # (start, end) of every name, acronym, gazetteer or title-name occurrence, per field
    known_spans: dict[Field, list[tuple[int, int]]] = field(default_factory=dict)
    sentences: dict[tuple[Field, int], _Sentence] = field(default_factory=dict)

    @classmethod
    def of(cls, texts: dict[Field, str], name_counts: list[int],
           known_spans: dict[Field, list[tuple[int, int]]] | None = None) -> PaperText:
        title = texts.get(Field.TITLE, "")
        parts = _TITLE_SPLIT.split(title, maxsplit=1)
        head = parts[0] if len(parts) == 2 and len(parts[0].split()) <= 6 else ""
        return cls(texts, tuple(_WORD.findall(title)), head,
                   tuple(sorted(name_counts, reverse=True)), looks_title_cased(title),
                   known_spans or {})

    def nesting(self, occurrences: list[tuple[Field, Occurrence]]) -> tuple[float, float]:
        """(share of the occurrences strictly inside a known term's occurrence, share that
        strictly contain one): "Mover's Distance" inside "Earth Mover's Distance"."""
        inside = contains = 0
        for fld, occ in occurrences:
            a, b = occ.char_start, occ.char_end
            spans = self.known_spans.get(fld, ())
            inside += any(s <= a and b <= e and (s, e) != (a, b) for s, e in spans)
            contains += any(a <= s and e <= b and (s, e) != (a, b) for s, e in spans)
        n = max(len(occurrences), 1)
        return inside / n, contains / n

    def sentence(self, fld: Field, start: int, end: int) -> _Sentence:
        """The per-sentence cues of the sentence at [start, end) of a field (computed once)."""
        found = self.sentences.get((fld, start))
        if found is None:
            text = self.texts.get(fld, "")[start:end]
            found = _Sentence(bool(_AUTHORS.search(text)), bool(_CONTRIBUTION.search(text)),
                              tuple(start + m.end() for m in _INTRODUCE.finditer(text)))
            self.sentences[(fld, start)] = found
        return found


def _may_name(near: str) -> bool:
    """Can `_NAMED` match `near`? Its words are all there (a cheap test before the pattern,
    which is tried at every position; text beyond ASCII goes to the pattern, as case-blind
    matching there is not plain lower-casing)."""
    if not near.isascii():
        return True
    low = near.lower()
    return any(word in low for word in _NAMED_WORDS)


def _list_item(near: str) -> bool:
    """Does `_LIST_ITEM` match `near`? Its marker ends in ")" or ",", after which come only
    words, spaces and hyphens, so the last ")" or "," is the marker's; the marker is a word
    ending just before it, with spaces, and a "(" before it. The pattern is tried from there
    on only, not at every position (\\w and \\s are `str.isalnum` or "_" and `str.isspace`)."""
    end = max(near.rfind(")"), near.rfind(","))
    if end < 0 or _LIST_TAIL.fullmatch(near, end + 1) is None:
        return False
    i = end
    while i > 0 and near[i - 1].isspace():
        i -= 1
    while i > 0 and (near[i - 1].isalnum() or near[i - 1] == "_"):
        i -= 1
    j = i
    while j > 0 and near[j - 1].isspace():
        j -= 1
    if j > 0 and near[j - 1] == "(":
        i = j - 1
    return _LIST_ITEM.search(near, i) is not None


def title_initials(label: str, title_words: tuple[str, ...]) -> bool:
    """Are the letters of an all-capital short form the initials of consecutive title words
    (small words may be skipped)? "UORO" of "Unbiased Online Recurrent Optimization"."""
    letters = [c for c in label if c.isalpha()]
    if not 2 <= len(letters) <= 8 or not all(c.isupper() for c in letters):
        return False
    words = title_words
    for start in range(len(words)):
        i, j = start, 0
        while i < len(words) and j < len(letters):
            if words[i][0].upper() == letters[j]:
                j += 1
            elif words[i].lower() not in _SMALL_WORDS:
                break
            i += 1
        if j == len(letters):
            return True
    return False


def title_stem(label: str, title_words: tuple[str, ...]) -> bool:
    """Does a coined name share a stem of four or more letters with a title word that is not
    the name itself ("MalleNet" and "Malleable", "HumanCLIP" and "Human")?"""
    if not any(c.isupper() or c.isdigit() for c in label[1:]):
        return False  # a plain word, not a coined name
    pieces = [p.lower() for p in re.findall(r"[A-Z][a-z]+|[A-Z]+(?![a-z])|[a-z]+", label)
              if len(p) >= 4]
    whole = label.lower()
    return any(w.lower() != whole and w.lower().startswith(p)
               for w in title_words if len(w) >= 4 for p in pieces)


def contribution_features(
    occurrences: list[tuple[Field, Occurrence]],
    label: str,
    count: int,
    named: bool,
    paper: PaperText,
) -> dict[str, float]:
    """The cues of one candidate group (names in `NAMES`); `occurrences` are its
    (field, `Occurrence`) pairs, `named` whether it is an acronym or a name."""
    f = dict.fromkeys(NAMES, 0.0)
    capital = abstract = 0
    for fld, occ in occurrences:
        text = paper.texts.get(fld, "")
        start, sent_start = occ.char_start, occ.sent_start
        # the anchored patterns need only the end of what precedes
        near = text[max(sent_start, start - _NEAR):start]
        sentence = paper.sentence(fld, sent_start, occ.sent_end)
        window = " ".join(near.split()[-6:])
        f["novel_near"] = max(f["novel_near"], float(bool(_NOVEL.search(window))))
        if not f["named_before"] and _may_name(near):
            f["named_before"] = float(bool(_NAMED.search(near)))
        intro = [end for end in sentence.introduce_ends if end <= start]
        if intro and sentence.authored:
            f["authors_introduce_before"] = 1.0
            between = text[intro[-1]:start]
            if ":" in between:
                f["colon_after_introduce"] = 1.0
            words = len(between.split())
            f["introduce_words_between"] = (words if not f["introduce_words_between"]
                                            else min(words, f["introduce_words_between"]))
            # "we propose [a novel] X", not "we propose a method for X" / "… that uses X"
            if words <= 8 and not _BREAK.search(between):
                f["introduce_direct"] = 1.0
        if not f["list_item"] and _list_item(near):
            f["list_item"] = 1.0
        if sentence.contribution:
            f["contribution_sentence"] = 1.0
        if start - sent_start <= _NEAR and _OPENERS.match(near.strip()):
            f["sentence_subject"] = 1.0
            if _RESULT.search(text[occ.char_end:occ.sent_end]):
                f["subject_of_result"] = 1.0
        if fld is Field.ABSTRACT:
            abstract += 1
            if text[start:start + 1].isupper() and (
                    near.strip() or (start - sent_start > _NEAR
                                     and text[sent_start:start].strip())):
                capital += 1
    f["abstract_capital"] = capital / abstract if abstract else -1.0
    if named:
        f["title_initials"] = float(title_initials(label, paper.title_words))
        f["title_stem"] = float(title_stem(label, paper.title_words))
        f["name_rank"] = 1.0 + sum(c > count for c in paper.name_counts)
    f["title_name"] = float(bool(paper.title_head) and
                            paper.title_head.lower() == label.lower())
    f["names_in_paper"] = len(paper.name_counts)
    # In a headline-style title every word is capitalised: a capital there says nothing.
    f["title_cased"] = float(paper.title_cased)
    f["title_only"] = float(all(fld is Field.TITLE for fld, _ in occurrences))
    return f
