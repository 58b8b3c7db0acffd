"""Loading a grown graph into a store by its difference: only the subjects whose blocks changed.

A store loaded from a Turtle or N-Triples file that splits into subject blocks
(`kg.query.blocks`) keeps, next to its data, the **block record** of that file: every block's
digest and its subject's, the subject IRIs, and the prefixes (`paperkg-blocks.bin`,
`paperkg-subjects.txt`, `paperkg-blocks.json`). The next
load of a file that splits too compares the two lists of digests:

- a block of the old file that the new one lacks: its subject is **purged** (every triple with
  that subject leaves the store's default graph);
- every block of the new file whose digest is new, and every block of a purged subject: parsed
  and added.

The store then holds exactly the new file's triples: a subject that no old block lost keeps its
triples, and the new file's blocks of it are either unchanged (already there) or added; a
purged subject gets back all the new file's blocks of it. The label index is recomputed for the
subjects touched, the rank and link indexes updated from the previous ones (`kg.query.reindex`).

The record is used only when it fits: written by this format, its checksum right, and the
store's files as they were when it was written (`kg.query.ranks.store_fingerprint`: any other
writer changes them). The prefixes must be the same in both files. Otherwise, or when more than
`DELTA_LIMIT` of the new file's blocks would be parsed, the store is loaded whole and the
report says why.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pyoxigraph as ox

from kg.query.blocks import DIGEST_SIZE, Blocks, SubjectCheck, statements
from kg.query.ranks import store_fingerprint
from kg.rdf.io import file_format

if TYPE_CHECKING:
    import numpy as np

__all__ = ["DELTA_LIMIT", "RECORD_DATA", "RECORD_META", "RECORD_SUBJECTS", "Applied", "Delta",
           "Record", "apply", "plan", "read_record", "write_record"]

RECORD_DATA = "paperkg-blocks.bin"
RECORD_SUBJECTS = "paperkg-subjects.txt"
RECORD_META = "paperkg-blocks.json"
FORMAT = 1

#: Above this share of the new file's blocks to parse and add, the store is loaded whole: a
#: changed triple costs a load by difference ~3x what a whole load spends on one (parse,
#: purge, add, label keys, all in Python), so on a 948k-triple graph the two took the same
#: time at 10-20 % of the blocks changed (`scripts/bench_store_delta.py`, docs/PERFORMANCE.md).
DELTA_LIMIT = 0.15

_RECORD_FILES = (RECORD_DATA, RECORD_SUBJECTS)


@dataclass(frozen=True, slots=True)
class Record:
    """The blocks of the file a store was last loaded from: digests, subjects' digests, and
    where each subject's IRI ends in the subjects file (read only for the subjects purged)."""

    prefixes: dict[str, str]
    triples: int
    digests: np.ndarray
    keys: np.ndarray
    ends: np.ndarray
    subjects_path: Path

    def subjects(self, numbers: list[int]) -> list[str]:
        """The subject IRIs of the blocks numbered `numbers`."""
        found = []
        with self.subjects_path.open("rb") as data:
            for i in numbers:
                start = int(self.ends[i - 1]) if i else 0
                data.seek(start)
                found.append(data.read(int(self.ends[i]) - start - 1).decode())
        return found


@dataclass(frozen=True, slots=True)
class Delta:
    """What a load by difference does: the subjects to purge, and which of the new file's
    blocks (a mask in file order) to parse and add."""

    purge: list[str]
    parse: np.ndarray
    new_blocks: int
    gone_blocks: int

    def summary(self) -> str:
        return (f"{self.new_blocks:,} new or changed blocks, {self.gone_blocks:,} gone; "
                f"{len(self.purge):,} subjects rewritten, {int(self.parse.sum()):,} blocks parsed")


def write_record(store_dir: Path, blocks: Blocks, subjects: Path, triples: int) -> None:
    """Write the record of `blocks` into the (closed) store folder `store_dir`, which holds
    `triples` data triples; `subjects` is the file `kg.query.blocks.split_file` wrote their
    subject IRIs to (moved into the store)."""
    import numpy as np

    os.replace(subjects, store_dir / RECORD_SUBJECTS)
    lengths = np.fromiter(
        (len(line) for line in _lines(store_dir / RECORD_SUBJECTS)), dtype="<u8", count=len(blocks)
    )
    data = bytes(blocks.digests) + bytes(blocks.keys) + np.cumsum(lengths, dtype="<u8").tobytes()
    (store_dir / RECORD_DATA).write_bytes(data)
    meta = {
        "format": FORMAT,
        "blocks": len(blocks),
        "triples": triples,
        "prefixes": blocks.prefixes,
        "checksum": _checksum(store_dir),
        "fingerprint": store_fingerprint(store_dir),
    }
    (store_dir / RECORD_META).write_text(json.dumps(meta, sort_keys=True), encoding="utf-8")


def _lines(path: Path) -> Iterator[bytes]:
    with path.open("rb") as data:
        yield from data


def _checksum(store_dir: Path) -> str:
    digest = hashlib.blake2b(digest_size=DIGEST_SIZE)
    for name in _RECORD_FILES:
        with (store_dir / name).open("rb") as data:
            while chunk := data.read(1 << 22):
                digest.update(chunk)
    return digest.hexdigest()


def read_record(store_dir: Path) -> Record | str:
    """The store's block record, or why there is none that fits."""
    import numpy as np

    try:
        meta = json.loads((store_dir / RECORD_META).read_text(encoding="utf-8"))
        data = (store_dir / RECORD_DATA).read_bytes()
        checksum = _checksum(store_dir)
    except FileNotFoundError:
        return "no record of the blocks it was loaded from"
    except (OSError, ValueError) as exc:
        return f"its block record cannot be read ({exc})"
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        return "its block record is of another format"
    if meta.get("fingerprint") != store_fingerprint(store_dir):
        return "the store changed since its block record was written"
    count, triples = meta.get("blocks"), meta.get("triples")
    if meta.get("checksum") != checksum or not isinstance(count, int) or (
        not isinstance(triples, int) or len(data) != count * (2 * DIGEST_SIZE + 8)
    ):
        return "its block record is damaged"
    width = count * DIGEST_SIZE
    return Record(
        dict(meta["prefixes"]),
        triples,
        np.frombuffer(data[:width], dtype=f"S{DIGEST_SIZE}"),
        np.frombuffer(data[width : 2 * width], dtype=f"S{DIGEST_SIZE}"),
        np.frombuffer(data[2 * width :], dtype="<u8"),
        store_dir / RECORD_SUBJECTS,
    )


def plan(old: Record, new: Blocks) -> Delta | str:
    """What to purge and parse to go from the store of `old` to that of `new`, or why the store
    is better loaded whole."""
    import numpy as np

    if old.prefixes != new.prefixes:
        return "the graph declares other prefixes"
    # Sets of the digests (as bytes) rather than `np.isin`, which sorts or hashes both arrays
    # of 16-byte strings: 0.9 -> 0.3 s CPU for the 340,000 blocks of a 7,954-paper graph.
    digests, olds = new.digest_array().tolist(), old.digests.tolist()
    known, kept = set(olds), set(digests)
    fresh = np.fromiter((d not in known for d in digests), dtype=bool, count=len(digests))
    gone = np.fromiter((i for i, d in enumerate(olds) if d not in kept), dtype=np.int64)
    purged = set(old.keys[gone].tolist())
    parse = fresh | np.fromiter((k in purged for k in new.key_array().tolist()), dtype=bool,
                                count=len(digests))
    share = parse.sum() / max(len(parse), 1)
    if share > DELTA_LIMIT:
        return f"{share:.0%} of its blocks changed (more than {DELTA_LIMIT:.0%})"
    purge = sorted(set(old.subjects(gone.tolist())))
    return Delta(purge, parse, int(fresh.sum()), len(gone))


@dataclass(frozen=True, slots=True)
class Applied:
    """What `apply` changed: the subjects touched, the triples removed and added, and the IRIs
    the removed triples pointed at (`kg.query.reindex` looks again at those of them that are
    ranked concepts)."""

    touched: list[ox.NamedNode]
    removed: int
    added: int
    unlinked: frozenset[str] = frozenset()


def apply(store: ox.Store, path: Path | str, new: Blocks, delta: Delta) -> Applied | None:
    """Purge and add in `store` (a copy of the old one) what `delta` says; None when the new
    file's parsed blocks were not one statement each of their subject, or the file changed
    since it was split (the store is then to be loaded whole)."""
    import numpy as np

    chosen = np.flatnonzero(delta.parse).tolist()
    picked = (_read(path, chosen, new) if len(new.starts) == len(new) and
              not file_format(path).gzipped else _picked(statements(path), chosen, new.digests))
    if picked is None:
        return None
    text = new.header() + b"\n".join(picked) + b"\n"
    check = SubjectCheck(b"".join(new.keys[i * DIGEST_SIZE : (i + 1) * DIGEST_SIZE]
                                  for i in chosen))
    try:
        quads = set(check.wrap(ox.parse(text, ox.RdfFormat.TURTLE)))
    except SyntaxError:
        return None
    if not check.done():
        return None
    removed = 0
    unlinked = set()
    for iri in delta.purge:
        node = ox.NamedNode(iri)
        for quad in list(store.quads_for_pattern(node, None, None, ox.DefaultGraph())):
            store.remove(quad)
            removed += 1
            if isinstance(quad.object, ox.NamedNode):
                unlinked.add(quad.object.value)
    added = sum(1 for quad in quads if quad not in store)
    store.bulk_extend(quads)
    touched = {quad.subject for quad in quads if isinstance(quad.subject, ox.NamedNode)}
    touched.update(ox.NamedNode(iri) for iri in delta.purge)
    return Applied(sorted(touched, key=lambda node: node.value), removed, added,
                   frozenset(unlinked))


def _read(path: Path | str, chosen: list[int], new: Blocks) -> list[bytes] | None:
    """The blocks numbered `chosen`, read where `new` says they are (a file not compressed),
    or None when the file is no longer the one its digests were taken of."""
    found: list[bytes] = []
    with open(path, "rb") as data:
        for number in chosen:
            data.seek(new.starts[number])
            block = data.read(new.sizes[number])
            digest = hashlib.blake2b(block, digest_size=DIGEST_SIZE).digest()
            if digest != new.digests[number * DIGEST_SIZE : (number + 1) * DIGEST_SIZE]:
                return None
            found.append(block)
    return found


def _picked(blocks: Iterator[bytes], chosen: list[int], digests: bytearray) -> list[bytes] | None:
    """The blocks numbered `chosen` (ascending), or None when the file is no longer the one
    its digests were taken of."""
    found: list[bytes] = []
    wanted = iter(chosen)
    target = next(wanted, None)
    for number, block in enumerate(blocks):
        if number == target:
            digest = hashlib.blake2b(block, digest_size=DIGEST_SIZE).digest()
            if digest != digests[number * DIGEST_SIZE : (number + 1) * DIGEST_SIZE]:
                return None
            found.append(block)
            target = next(wanted, None)
            if target is None:
                break
    return found if target is None else None
