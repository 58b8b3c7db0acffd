"""One parsed `Doc` as bytes and back: the parse cache's `parse` entries (`kg.extract.cache`).

An entry is spaCy's own format, a `DocBin` of one Doc (`doc_bytes`). It is read back without
`DocBin.from_bytes` and `DocBin.get_docs`, which cost more than the rest of reading a cached
parse: srsly's msgpack reader looks up its decoder registry's entry points on every call
(about 1 ms a Doc), and `get_docs` makes a lexeme of every string of the Doc (tags, lemmas,
dependency labels, ...) where adding them to the string store is enough. `doc_from_bytes`
takes the rest of those two methods' steps for the one Doc (spaCy 3.8,
`spacy/tokens/_serialize.py`); `tests/test_docbytes.py` checks it against them.
"""

from __future__ import annotations

import zlib
from typing import Any

import numpy as np
import srsly
from spacy.attrs import ORTH
from spacy.tokens import Doc, DocBin
from spacy.tokens._dict_proxies import SpanGroups
from spacy.vocab import Vocab


def doc_bytes(doc: Doc) -> bytes:
    """A `DocBin` of `doc` alone (without its user data), as bytes."""
    return DocBin(store_user_data=False, docs=[doc]).to_bytes()


def doc_from_bytes(data: bytes, vocab: Vocab) -> Doc:
    """The Doc of `doc_bytes`, its strings added to `vocab`'s string store."""
    # With `object_pairs_hook`, srsly's reader skips its registry: a DocBin holds no numpy
    # objects (its arrays are raw bytes), so no decoder is needed.
    msg: dict[str, Any] = srsly.msgpack.loads(zlib.decompress(data), raw=False,
                                              object_pairs_hook=dict)
    if len(msg["lengths"]) != 4:
        raise ValueError(f"a parse cache entry holds {len(msg['lengths']) // 4} Docs, not 1")
    for string in msg["strings"]:
        vocab.strings.add(string)
    attrs = msg["attrs"]
    tokens = np.frombuffer(msg["tokens"], dtype="uint64").reshape(-1, len(attrs))
    spaces = np.frombuffer(msg["spaces"], dtype=bool)
    flags = msg.get("flags", [{}])[0]
    doc = Doc(vocab, words=tokens[:, attrs.index(ORTH)],  # type: ignore[arg-type]
              spaces=None if flags.get("has_unknown_spaces") else spaces)  # type: ignore[arg-type]
    doc = doc.from_array(attrs, tokens)  # type: ignore[arg-type]
    doc.cats = msg["cats"][0]
    groups = msg.get("span_groups", [b""])[0]
    if groups and groups != SpanGroups._EMPTY_BYTES:
        doc.spans.from_bytes(groups)
    return doc
