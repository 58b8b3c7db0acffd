"""Paper ids: the record's own id, else a content hash (the one place ids are made).

The graph mints `paper/{id}` IRIs from these, so they must be stable across runs and machines.
"""

from __future__ import annotations

import hashlib

HASH_PREFIX = "h-"


def content_id(text: str) -> str:
    """`h-` + the first 16 hex digits of the SHA-256 of the whitespace-normalised, lower-cased text.

    >>> content_id("Large language models  (LLMs)\\n are  strong.")
    'h-3b0b917f68663bc3'
    >>> content_id("large language models (LLMs) are strong.")
    'h-3b0b917f68663bc3'
    """
    key = " ".join(text.split()).lower()
    return HASH_PREFIX + hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]


def paper_id(record_id: str | None, abstract: str | None, title: str | None) -> str | None:
    """The id of a paper: its record id, else the content id of its abstract, else of its title.

    None when the record has none of the three (such a record cannot be a paper).

    >>> paper_id("B1-Hhnslg", "An abstract.", "A title")
    'B1-Hhnslg'
    >>> paper_id(None, "An  Abstract.", "A title") == content_id("an abstract.")
    True
    >>> paper_id(None, None, "A title") == content_id("A title")
    True
    >>> paper_id(None, None, None) is None
    True
    """
    if record_id:
        return record_id
    if abstract:
        return content_id(abstract)
    if title:
        return content_id(title)
    return None


def renamed_id(record_id: str, n: int) -> str:
    """The disambiguated id of the `n`-th distinct record (n >= 2) sharing `record_id`.

    >>> renamed_id("1234", 2)
    '1234~2'
    """
    return f"{record_id}~{n}"
