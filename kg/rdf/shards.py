"""Sharded N-Triples: the graph split into N files for the bulk loaders of large stores.

A subject's triples all go to one shard, chosen by a CRC-32 of its IRI, so the split is the
same on every run and each shard keeps the graph's canonical order. The files are plain
N-Triples (`part-00000-of-00004.nt`, ...): `oxigraph load`, QLever's index builder and
Virtuoso's `ld_dir` read them as they are, in parallel (docs/SCALE.md). The folder is written
beside its final name and renamed into place, so a failed build leaves the old shards.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import zlib
from collections.abc import Iterable, Iterator
from pathlib import Path
from types import TracebackType
from typing import BinaryIO

from pyoxigraph import Triple

from kg.errors import KGError


def shard_name(index: int, count: int) -> str:
    """The file name of shard `index` of `count`.

    >>> shard_name(0, 4)
    'part-00000-of-00004.nt'
    """
    return f"part-{index:05d}-of-{count:05d}.nt"


def shard_of(subject: str, count: int) -> int:
    """The shard of a subject IRI: stable across runs and platforms."""
    return zlib.crc32(subject.encode("utf-8")) % count


class ShardWriter:
    """Writes triples into `count` N-Triples files in a new folder that replaces `folder`
    when the writer closes without an error."""

    def __init__(self, folder: str | Path, count: int) -> None:
        if count < 1:
            raise ValueError(f"shards must be at least 1, not {count}")
        self.folder = Path(folder)
        self.count = count
        self.triples = 0
        self._work: Path | None = None
        self._files: list[BinaryIO] = []

    def __enter__(self) -> ShardWriter:
        try:
            self.folder.parent.mkdir(parents=True, exist_ok=True)
            self._work = Path(tempfile.mkdtemp(prefix=f".{self.folder.name}.", suffix=".partial",
                                               dir=self.folder.parent))
            self._files = [(self._work / shard_name(i, self.count)).open("wb", buffering=1 << 20)
                           for i in range(self.count)]
        except OSError as exc:
            self._discard()
            raise KGError(f"{self.folder}: cannot write the shards ({exc})") from exc
        return self

    def add(self, triple: Triple) -> None:
        subject = triple.subject
        index = shard_of(subject.value, self.count) if self.count > 1 else 0  # type: ignore[union-attr]
        self._files[index].write(f"{triple} .\n".encode())
        self.triples += 1

    def add_all(self, triples: Iterable[Triple], name: str) -> None:
        """Triples that come after the graph (the analytics) as one more file `name`."""
        assert self._work is not None
        with (self._work / name).open("wb") as out:
            for triple in triples:
                out.write(f"{triple} .\n".encode())

    def tap(self, triples: Iterable[Triple]) -> Iterator[Triple]:
        """`triples`, each written to its shard as it passes."""
        add = self.add
        for triple in triples:
            add(triple)
            yield triple

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        try:
            for file in self._files:
                file.close()
        except OSError as error:
            self._discard()
            raise KGError(f"{self.folder}: cannot write the shards ({error})") from error
        if kind is not None:
            self._discard()
            return
        assert self._work is not None
        old = None
        if self.folder.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{self.folder.name}.", suffix=".old",
                                        dir=self.folder.parent))
            os.replace(self.folder, old / "shards")
        os.chmod(self._work, 0o755)  # as any new folder (mkdtemp makes it private)
        os.replace(self._work, self.folder)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)

    def _discard(self) -> None:
        for file in self._files:
            file.close()
        if self._work is not None:
            shutil.rmtree(self._work, ignore_errors=True)
