"""Text cleaning applied to every text field of every format.

Unicode NFC, HTML tags and entities some sources carry removed, stray control characters and
Unicode noncharacters (U+FFFE, U+FDD0, ...) dropped, whitespace normalised to single spaces. PDF
hyphenation artefacts ("un- derstanding") are deliberately left alone: extraction handles them,
and mention offsets index this text.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Iterable

# Only known HTML tag names are stripped: abstracts use angle brackets for tuples and tokens
# ("<subject, relation, object>", "<s>", "n<m"), which a generic tag pattern or an HTML parser
# would eat. `s` is left out on purpose ("<s>" is a sentence-start token in NLP papers).
_BLOCK_TAGS = (
    r"p|br|hr|div|li|ul|ol|h[1-6]|blockquote|pre|table|tr|td|th|jats:p|jats:title|jats:sec"
)
_INLINE_TAGS = (
    r"i|b|em|strong|sub|sup|span|a|u|tt|code|font|small|big|img|abbr|jats:[a-z-]+|mml:[a-z]+"
)
_BLOCK_TAG = re.compile(rf"</?(?:{_BLOCK_TAGS})(?:\s[^<>]*)?/?>", re.IGNORECASE)
_INLINE_TAG = re.compile(rf"</?(?:{_INLINE_TAGS})(?:\s[^<>]*)?/?>", re.IGNORECASE)
# Entities need their semicolon: "R&D" and "&amp" without one are left as they are.
_ENTITY = re.compile(r"&(?:#\d{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")
# U+0002 stands where a hyphen was in text copied from some PDFs ("state-of-the\x02art").
_PDF_HYPHEN = "\x02"
# Invisible characters with no meaning in an abstract: C0/C1 controls that are not whitespace,
# zero-width space and the byte-order mark.
_INVISIBLE = re.compile(r"[\x00-\x01\x03-\x08\x0e-\x1b\x7f-\x84\x86-\x9f\u200b\ufeff]")
# Unicode noncharacters (U+FDD0..U+FDEF and the last two code points of every plane: U+FFFE,
# U+FFFF, U+1FFFE, ...): never text, and U+FFFE/U+FFFF cannot be written in XML at all.
_NONCHARACTER = re.compile(
    "[\ufdd0-\ufdef"
    + "".join(chr(plane + 0xFFFE) + chr(plane + 0xFFFF) for plane in range(0, 0x110000, 0x10000))
    + "]"
)
# What an identifier may not hold: every C0/C1 control (whitespace ones included) and the
# noncharacters.
_NOT_IN_ID = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def drop_noncharacters(text: str) -> str:
    """`text` without Unicode noncharacters.

    >>> drop_noncharacters("graph\ufffe \uffffnets\ufdd0")
    'graph nets'
    """
    # Every noncharacter is outside ASCII; most texts are ASCII, and `isascii` is a flag the
    # string already holds, where the pattern's class is tried at every character (2.4 s of
    # reading the 35k papers of paperlists/, sampled by py-spy; issue 14).
    return text if text.isascii() else _NONCHARACTER.sub("", text)


def clean_id(text: str) -> str:
    """A record id without control characters or noncharacters (they would reach the graph,
    the query results and the terminal as they are).

    >>> clean_id("p1\x07\x1b[31m\ufffe")
    'p1[31m'
    """
    return drop_noncharacters(_NOT_IN_ID.sub("", text)).strip()


def clean_text(text: str) -> str:
    """The text as stored: tags and entities resolved, whitespace normalised, NFC.

    >>> clean_text("  Large <i>language</i>\\n\\tmodels&nbsp;(LLMs)<br/>are &lt;strong&gt;. ")
    'Large language models (LLMs) are <strong>.'
    >>> clean_text("triples <subject, relation, object> with n<m and R&D")
    'triples <subject, relation, object> with n<m and R&D'
    >>> clean_text("state-of-the\\x02art un- derstanding")
    'state-of-the-art un- derstanding'
    """
    if "<" in text:
        text = _BLOCK_TAG.sub(" ", text)
        text = _INLINE_TAG.sub("", text)
    if "&" in text:
        text = _ENTITY.sub(lambda m: html.unescape(m.group()), text)
    text = text.replace(_PDF_HYPHEN, "-")
    text = drop_noncharacters(_INVISIBLE.sub("", text))
    # str.split() splits on every Unicode whitespace character (no-break space included).
    return unicodedata.normalize("NFC", " ".join(text.split()))


def clean_optional(text: str | None) -> str | None:
    """`clean_text`, with empty results as None."""
    if text is None:
        return None
    return clean_text(text) or None


def split_list(value: str, separators: str = ";") -> list[str]:
    """Split a list given as one string, clean each item, drop empty and repeated items.

    >>> split_list("Novel View Synthesis; 3D Gaussian Splatting;;novel view synthesis")
    ['Novel View Synthesis', '3D Gaussian Splatting', 'novel view synthesis']
    >>> split_list("graphs, GNN; transformers", ",;")
    ['graphs', 'GNN', 'transformers']
    """
    parts = re.split(f"[{re.escape(separators)}]", value) if separators else [value]
    return unique(clean_text(part) for part in parts)


def unique(items: Iterable[str]) -> list[str]:
    """Non-empty strings in first-seen order, each once."""
    seen: dict[str, None] = {}
    for item in items:
        if item and item not in seen:
            seen[item] = None
    return list(seen)
