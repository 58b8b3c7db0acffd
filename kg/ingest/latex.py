"""LaTeX in metadata (BibTeX fields, arXiv titles and author names) -> plain Unicode.

Only what is unambiguous is decoded: accent commands (`\\'e`, `\\"{o}`, `{\\v c}`), the letter
commands (`\\ss`, `\\o`, `\\l`, `\\i`, ...) when no letter follows them, escaped specials
(`\\&`, `\\%`), text-formatting commands (`\\emph{x}` -> `x`) and grouping braces. Every other
command is kept as written: `\\log`, `\\cite{x}`, `\\item` and math such as `$O(n \\log n)$`
stay intact (a general decoder turns them into `łog`, `i̧te` and `ıtem`).
"""

from __future__ import annotations

import re
import unicodedata

# Accent command -> combining character.
_ACCENTS = {
    "'": "\u0301",
    "`": "\u0300",
    "^": "\u0302",
    '"': "\u0308",
    "~": "\u0303",
    "=": "\u0304",
    ".": "\u0307",
    "u": "\u0306",
    "v": "\u030c",
    "H": "\u030b",
    "c": "\u0327",
    "k": "\u0328",
    "r": "\u030a",
    "d": "\u0323",
    "b": "\u0331",
}
# Letter commands; they count only when no letter follows ("\l" in "\log" is not "ł").
_LETTERS = {
    "ss": "ß",
    "o": "ø",
    "O": "Ø",
    "l": "ł",
    "L": "Ł",
    "ae": "æ",
    "AE": "Æ",
    "oe": "œ",
    "OE": "Œ",
    "aa": "å",
    "AA": "Å",
    "i": "ı",
    "j": "ȷ",
}
_SPECIALS = {"&": "&", "%": "%", "_": "_", "$": "$", "#": "#", "{": "{", "}": "}"}
# `\'e`, `\'{e}`, `\' e`, `\v{c}`, `\c c`, and an accent on a dotless `\i`/`\j`.
_SYMBOL_ACCENT = re.compile(
    r"""\\(['`^"~=.])\s*(?:\{\s*(\\[ij]|[A-Za-z])\s*\}|(\\[ij](?![A-Za-z])|[A-Za-z]))"""
)
_LETTER_ACCENT = re.compile(r"\\([uvHckrdb])(?:\s*\{\s*(\\[ij]|[A-Za-z])\s*\}|\s+([A-Za-z]))")
_LETTER = re.compile(r"\\(ss|ae|AE|oe|OE|aa|AA|[oOlLij])(?![A-Za-z])(?:\{\}|\s(?=\S))?")
_SPECIAL = re.compile(r"\\([&%_$#{}])")
# Text-style commands whose argument is kept ("\emph{x}" -> "x").
_FORMATTING = re.compile(
    r"\\(?:emph|textit|textbf|texttt|textsc|textrm|textsf|textup|textnormal|underline|mbox"
    r"|text|mathrm|mathbf|mathit|url)\s*(?=\{)"
)
# A brace group without braces or commands inside ("{BERT}", "{ö}").
_GROUP = re.compile(r"(?<!\\)\{((?:\\[^A-Za-z]|[^{}\\])*)\}")
# What precedes the argument of a command ("\cite{x}" keeps its braces).
_COMMAND_BEFORE = re.compile(r"\\[A-Za-z]+\s*$")


def _accent(mark: str, base: str) -> str:
    base = {"\\i": "i", "\\j": "j"}.get(base, base)
    return unicodedata.normalize("NFC", base + mark)


def _ungroup(match: re.Match[str]) -> str:
    before = match.string[max(0, match.start() - 40) : match.start()]
    return match[0] if _COMMAND_BEFORE.search(before) else match[1]


def decode_latex(text: str) -> str:
    """`text` with its simple LaTeX markup decoded, everything else left as written.

    >>> decode_latex(r"Schr{\\"o}dinger {BERT} for \\emph{G{\\'e}rard} \\& co -- 50\\%")
    'Schrödinger BERT for Gérard & co -- 50%'
    >>> decode_latex(r"Erd\\H{o}s, {\\L}ukasz, Ho\\v{r}ej\\v s\\'{\\i}, Stra\\ss e")
    'Erdős, Łukasz, Hořejší, Straße'
    >>> decode_latex(r"$O(n \\log n)$ as in \\cite{x}; \\item one")
    '$O(n \\\\log n)$ as in \\\\cite{x}; \\\\item one'
    """
    if "\\" not in text and "{" not in text:
        return text
    text = _FORMATTING.sub("", text)
    text = _SYMBOL_ACCENT.sub(lambda m: _accent(_ACCENTS[m[1]], m[2] or m[3]), text)
    text = _LETTER_ACCENT.sub(lambda m: _accent(_ACCENTS[m[1]], m[2] or m[3]), text)
    text = _LETTER.sub(lambda m: _LETTERS[m[1]], text)
    previous = None
    while previous != text:  # innermost groups first: "{{BERT}}" -> "BERT"
        previous = text
        text = _GROUP.sub(_ungroup, text)
    return _SPECIAL.sub(lambda m: _SPECIALS[m[1]], text)
