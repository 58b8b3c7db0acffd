"""Repair text artefacts before parsing, keeping a map back to the original offsets.

Abstracts copied from PDFs carry line-break hyphenation ("un- derstanding", "Llama3- 70B-base");
LaTeX leaves markup such as ``$\\times$`` or ``\\url{…}``. spaCy parses the repaired text; every
mention is mapped back through `Repaired.to_original` so that evidence offsets index the text
exactly as stored.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kg.extract.background import lexicon

# "word- word": a hyphen followed by a space inside a word.
_BROKEN = re.compile(r"(?<=[A-Za-z0-9.])- (?=[A-Za-z0-9])")
_LATEX_URL = re.compile(r"\\(?:url|href)\{([^}]*)\}")
# LaTeX text formatting around words ("\emph{Unbiased Online Recurrent Optimization}"): the
# words stay, the command and its braces go (math, "$\mathcal{O}$", is left alone).
_LATEX_FORMAT = re.compile(
    r"\\(?:emph|textit|textbf|textsc|texttt|textsl|textrm|textsf|underline)\{([^{}$\\]*)\}")
# The same in the older declaration form, inside a group: "referred to as {\it NEON}" (154 of
# the 35,108 paperlists abstracts).
_LATEX_DECLARATION = re.compile(r"\{\\(?:it|bf|em|sc|tt|sl|rm|sf|itshape|bfseries)\s+([^{}$\\]*)\}")
# A citation or cross-reference ("networks \cite{jaeger2002}", "~\citep[p. 3]{x}"): its key
# is no text of the sentence (parsed, "DBLP:journals/corr/OllivierC15" became a concept).
_LATEX_CITE = re.compile(
    r"[ ~]?\\(?:cite[a-zA-Z]*|ref|eqref|autoref|cref|Cref)\*?(?:\[[^\]]*\])*\{[^{}]*\}")
# Markdown emphasis around words ("*distributed speculative inference (DSI)*").
_EMPHASIS = re.compile(
    r"(?<![\w*])[*_]+(?=\w)"  # opening: "*word", "_**T**est"
    r"|(?<=[\w).])[*_]+(?![\w*])"  # closing: "word*", "(DSI)*"
    r"|(?<=[A-Za-z])\*\*(?=[A-Za-z])"  # bold inside a word: "T**est" (not "a*b")
)
# "analysis(MSA)": an acronym's parenthesis glued to its long form (a space goes in).
_GLUED_PAREN = re.compile(r"(?<=[a-z])\((?=[A-Z][A-Za-z0-9\-]{0,11}s?\))")
# Words after "X- " that mean a suspended hyphen ("pre- and post-training"), not a line break.
_SUSPENDED = frozenset({"and", "or", "to", "vs", "versus", "nor", "as", "than", "&"})


@dataclass(frozen=True, slots=True)
class Repaired:
    """Repaired text and, for each of its characters, the offset in the original text."""

    text: str
    offsets: tuple[int, ...]
    original_length: int

    def to_original(self, start: int, end: int) -> tuple[int, int]:
        """Map a `[start, end)` span of the repaired text onto the original text."""
        if start >= len(self.offsets):
            return self.original_length, self.original_length
        o_start = self.offsets[start]
        o_end = self.offsets[end - 1] + 1 if end > start else o_start
        return o_start, o_end


def _join_decision(left: str, right: str) -> str | None:
    """How to close up "left- right": "" (drop hyphen), "-" (keep it) or None (leave as is)."""
    if right.lower() in _SUSPENDED:
        return None
    if not (left.isalpha() and right.isalpha()) or not right.islower():
        # Names and versions ("Llama3- 70B", "70B- Instruct"): the hyphen is part of the name.
        return "-"
    words = lexicon()
    closed = (left + right).lower()
    hyphenated = f"{left}-{right}".lower()
    n_closed, n_hyph = words.get(closed, 0), words.get(hyphenated, 0)
    if n_closed or n_hyph:
        # A closed-up form that is much rarer than both halves is a typo ("ofthe"), not a word.
        parts = min(words.get(left.lower(), 0), words.get(right, 0))
        return "" if n_closed >= n_hyph and n_closed * 20 >= parts else "-"
    # Unknown either way: fragments that are not words themselves were split mid-word.
    if left.lower() in words and right in words:
        return "-"
    return ""


def _word_before(text: str, pos: int) -> str:
    start = pos
    while start > 0 and (text[start - 1].isalnum() or text[start - 1] == "."):
        start -= 1
    return text[start:pos]


def _word_after(text: str, pos: int) -> str:
    end = pos
    while end < len(text) and text[end].isalnum():
        end += 1
    return text[pos:end]


def repair(text: str) -> Repaired:
    """Repair line-break hyphenation, LaTeX URL, formatting and citation markup, Markdown
    emphasis and a parenthesis glued to the word before it.

    >>> r = repair("long context un- derstanding of Llama3- 70B-base, pre- and post-training")
    >>> r.text
    'long context understanding of Llama3-70B-base, pre- and post-training'
    >>> s = r.text.index("understanding"); text = "long context un- derstanding"
    >>> r.to_original(s, s + len("understanding"))
    (13, 28)
    >>> repair("Sentiment analysis(MSA) is").text
    'Sentiment analysis (MSA) is'
    >>> repair(r"The \\emph{Quill Net} (QN) of nets \\cite{ab12}, $\\mathcal{O}(n)$").text
    'The Quill Net (QN) of nets, $\\\\mathcal{O}(n)$'
    >>> repair(r"a model referred to as {\\it Quill Net}, {\\bf fast}").text
    'a model referred to as Quill Net, fast'
    """
    pieces: list[str] = []
    offsets: list[int] = []
    pos = 0
    edits: list[tuple[int, int, str]] = []  # (start, end, replacement) in original text
    for match in _BROKEN.finditer(text):
        left = _word_before(text, match.start())
        right = _word_after(text, match.end())
        decision = _join_decision(left.rstrip("."), right)
        if decision is not None:
            edits.append((match.start(), match.end(), decision))
    for match in _LATEX_URL.finditer(text):
        edits.append((match.start(), match.start(1), ""))
        edits.append((match.end(1), match.end(), ""))
    for match in _LATEX_FORMAT.finditer(text):
        edits.append((match.start(), match.start(1), ""))
        edits.append((match.end(1), match.end(), ""))
    for match in _LATEX_DECLARATION.finditer(text):
        edits.append((match.start(), match.start(1), ""))
        edits.append((match.end(1), match.end(), ""))
    for match in _LATEX_CITE.finditer(text):
        edits.append((match.start(), match.end(), ""))
    for match in _EMPHASIS.finditer(text):
        edits.append((match.start(), match.end(), ""))
    for match in _GLUED_PAREN.finditer(text):
        edits.append((match.start(), match.start(), " "))
    edits.sort()
    for start, end, replacement in edits:
        if start < pos:
            continue
        pieces.append(text[pos:start])
        offsets.extend(range(pos, start))
        pieces.append(replacement)
        offsets.extend([start] * len(replacement))
        pos = end
    pieces.append(text[pos:])
    offsets.extend(range(pos, len(text)))
    return Repaired("".join(pieces), tuple(offsets), len(text))
