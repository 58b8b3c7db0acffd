"""Writing triples as Turtle, N-Triples or JSON-LD with pyoxigraph (fast, deterministic).

The triples are written in the order given; `build_triples` returns them canonically sorted,
so the same corpus gives byte-identical files. A path ending in `.gz` is gzipped (with a zero
timestamp, so the bytes stay reproducible); a file is written to a temporary name first and
renamed, so a failed write never leaves a truncated graph behind.

>>> from pyoxigraph import Literal, NamedNode, Triple
>>> from kg.rdf.terms import KG_TEXT
>>> t = Triple(NamedNode("https://w3id.org/paperkg/resource/x"), KG_TEXT, Literal("hi"))
>>> print(serialize_graph([t], GraphFormat.TURTLE).decode().splitlines()[-1])
<https://w3id.org/paperkg/resource/x> kg:text "hi" .
"""

from __future__ import annotations

import glob
import gzip
import os
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from os import PathLike
from pathlib import Path
from typing import IO, BinaryIO, cast

from pyoxigraph import Triple, serialize

from kg.errors import KGError
from kg.namespaces import PREFIXES
from kg.rdf.formats import GraphFormat


def serialize_graph(triples: Iterable[Triple], fmt: GraphFormat = GraphFormat.TURTLE) -> bytes:
    """The serialisation of `triples` as bytes."""
    data = serialize(triples, None, fmt.rdf_format, prefixes=PREFIXES)
    assert data is not None  # pyoxigraph returns bytes when no output is given
    return data


def write_graph(
    triples: Iterable[Triple],
    path: str | PathLike[str] | BinaryIO,
    fmt: GraphFormat | None = None,
) -> None:
    """Write `triples` to a file path or a binary file object.

    `fmt` defaults to the path's extension (`.ttl`, `.nt`, `.jsonld`, each optionally `.gz`),
    and to Turtle for a file object.
    """
    if not isinstance(path, str | PathLike):
        serialize(triples, path, (fmt or GraphFormat.TURTLE).rdf_format, prefixes=PREFIXES)
        return
    target = Path(path)
    fmt = fmt or GraphFormat.from_path(target)
    with replacing(target, "the graph") as raw:
        if target.suffix.lower() == ".gz":
            with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as zipped:
                serialize(triples, cast(IO[bytes], zipped), fmt.rdf_format, prefixes=PREFIXES)
        else:
            serialize(triples, raw, fmt.rdf_format, prefixes=PREFIXES)


def write_atomically(path: str | PathLike[str], text: str, what: str = "the file") -> None:
    """Write `text` as UTF-8 to `path` through `replacing` (a page, an export)."""
    with replacing(Path(path), what) as raw:
        raw.write(text.encode("utf-8"))


_PARTIAL = ".partial"


@contextmanager
def replacing(target: Path, what: str = "the file") -> Iterator[BinaryIO]:
    """A binary file that becomes `target` only if the block finishes: it is written under a
    hidden temporary name beside `target`, synced, then renamed over it. A failure (a full
    disk, an exception, Ctrl-C) removes the temporary file and leaves the old `target` as it
    was; an `OSError` becomes a `KGError` naming `target`. A process killed mid-write leaves
    its temporary file, which the next write to the same target removes.
    """
    try:
        _remove_leftovers(target)
        fd, tmp_name = tempfile.mkstemp(
            prefix=f".{target.name}.{os.getpid()}.", suffix=_PARTIAL, dir=target.parent
        )
    except OSError as exc:
        raise KGError(f"{target}: cannot write {what} ({exc}); check the directory") from exc
    try:
        with os.fdopen(fd, "wb") as raw:
            yield raw
            raw.flush()
            os.fsync(raw.fileno())
        os.chmod(tmp_name, 0o644)  # as any new file (mkstemp makes it private)
        os.replace(tmp_name, target)
    except OSError as exc:
        Path(tmp_name).unlink(missing_ok=True)
        raise KGError(
            f"{target}: cannot write {what} ({exc.strerror or exc}); the old file, if any, "
            "is unchanged"
        ) from exc
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise


def _remove_leftovers(target: Path) -> None:
    """Temporary files of earlier writes to `target` whose process is gone (killed)."""
    for leftover in target.parent.glob(f".{glob.escape(target.name)}.*{_PARTIAL}"):
        pid = leftover.name[len(target.name) + 2 :].split(".", 1)[0]
        if pid.isdigit() and not _running(int(pid)):
            leftover.unlink(missing_ok=True)


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process
    return True
