"""Reading RDF: the one place that tells a graph file's format and opens a file or a store.

- `file_format(path)`: the format from the file name (a trailing `.gz` is ignored), else from
  the file's first bytes; `open_binary(path)` gives its bytes, decompressed.
- `load_file` / `parse_file` / `read_rdflib`: a graph file into a pyoxigraph store, as quads,
  or into an rdflib graph. pyoxigraph parses every format it has; the two it lacks (TriX,
  HexTuples) go through rdflib.
- `open_graph(source)`: a pyoxigraph store of a file, a store folder (read-only), an rdflib
  graph or triples in memory.
- Store folders (`kg load --store DIR`): `is_store`, `open_read_only`, and the swap protocol's
  lock and recovery that `kg.query.store.load_store` writes with and every reader opens through.

>>> file_format("graph.nt.gz")
FileFormat(name='nt', oxigraph=<RdfFormat N-Triples>, rdflib='nt', gzipped=True)
>>> sniff_format(b'@prefix kg: <https://w3id.org/paperkg/ontology#> .').name
'ttl'
"""

from __future__ import annotations

import fcntl
import gzip
import os
import re
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from itertools import chain, islice
from os import PathLike
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, cast
from xml.sax import SAXException

import pyoxigraph as ox

from kg.errors import InputError, StoreError
from kg.rdf.rdflib_io import bind_prefixes, triple_from_rdflib

if TYPE_CHECKING:
    import rdflib

__all__ = [
    "LOADING",
    "FileFormat",
    "file_format",
    "is_store",
    "load_file",
    "locked",
    "open_binary",
    "open_graph",
    "open_read_only",
    "parse_file",
    "quads",
    "read_rdflib",
    "recover",
    "sniff_format",
]

#: Anything `open_graph` reads: a file or store folder path, a pyoxigraph `Store`, an rdflib
#: `Graph`, or an iterable of pyoxigraph `Triple`s / `Quad`s (or rdflib triples).
GraphSource = Any


@dataclass(frozen=True, slots=True)
class FileFormat:
    """A graph file's format: pyoxigraph's name for it (None when only rdflib reads it),
    rdflib's, and whether the file is gzipped."""

    name: str
    oxigraph: ox.RdfFormat | None
    rdflib: str
    gzipped: bool = False

    @property
    def has_graphs(self) -> bool:
        """True for the formats that hold named graphs (rdflib reads them into a Dataset)."""
        return self.rdflib in ("nquads", "trig", "trix")


_FORMATS = {
    "ttl": FileFormat("ttl", ox.RdfFormat.TURTLE, "turtle"),
    "nt": FileFormat("nt", ox.RdfFormat.N_TRIPLES, "nt"),
    "nq": FileFormat("nq", ox.RdfFormat.N_QUADS, "nquads"),
    "trig": FileFormat("trig", ox.RdfFormat.TRIG, "trig"),
    "n3": FileFormat("n3", ox.RdfFormat.N3, "n3"),
    "rdf": FileFormat("rdf", ox.RdfFormat.RDF_XML, "xml"),
    "jsonld": FileFormat("jsonld", ox.RdfFormat.JSON_LD, "json-ld"),
    "trix": FileFormat("trix", None, "trix"),
    "hext": FileFormat("hext", None, "hext"),
}
#: File suffix -> format name.
SUFFIXES = {
    ".ttl": "ttl",
    ".turtle": "ttl",
    ".nt": "nt",
    ".ntriples": "nt",
    ".nq": "nq",
    ".nquads": "nq",
    ".trig": "trig",
    ".n3": "n3",
    ".rdf": "rdf",
    ".owl": "rdf",
    ".xml": "rdf",
    ".jsonld": "jsonld",
    ".json": "jsonld",
    ".trix": "trix",
    ".hext": "hext",
}
_UNKNOWN = (
    "unknown RDF format: name the file .ttl, .nt, .nq, .trig, .n3, .rdf, .jsonld, .trix or "
    ".hext (optionally + .gz)"
)
_SNIFF_BYTES = 4096
_DIRECTIVE = re.compile(r"(@prefix|@base|prefix\s|base\s)", re.IGNORECASE)


def format_from_name(path: str | PathLike[str]) -> FileFormat | None:
    """The format a file name says (None when its suffix is not an RDF one)."""
    name = Path(path).name.lower()
    gzipped = name.endswith(".gz")
    found = SUFFIXES.get(Path(name.removesuffix(".gz")).suffix)
    if found is None:
        return None
    return replace(_FORMATS[found], gzipped=gzipped)


def sniff_format(head: bytes) -> FileFormat | None:
    """The format the first bytes of a file show: JSON-LD, RDF/XML or Turtle (N-Triples and
    Turtle's directives), else None."""
    text = head.removeprefix(b"\xef\xbb\xbf").decode("utf-8", "replace")
    lines = (line.strip() for line in text.splitlines())
    first = next((line for line in lines if line and not line.startswith("#")), "")
    if first.startswith(("{", "[")):
        return _FORMATS["jsonld"]
    if first.startswith(("<?xml", "<rdf:RDF")):
        return _FORMATS["rdf"]
    if _DIRECTIVE.match(first) or first.startswith(("<", "_:")):
        return _FORMATS["ttl"]
    return None


def file_format(path: str | PathLike[str]) -> FileFormat:
    """The format of a graph file: from its name, else (an existing file) from its first bytes.

    Raises InputError naming the file when neither tells.
    """
    source = Path(path)
    found = format_from_name(source)
    if found is not None:
        return found
    if source.is_file():
        gzipped = source.name.lower().endswith(".gz")
        with open_binary(source) as data:
            try:
                sniffed = sniff_format(data.read(_SNIFF_BYTES))
            except (gzip.BadGzipFile, EOFError) as exc:
                raise InputError(f"not a gzip file: {exc}", source=str(source)) from exc
        if sniffed is not None:
            return replace(sniffed, gzipped=gzipped)
    raise InputError(_UNKNOWN, source=str(source))


def open_binary(path: str | PathLike[str]) -> IO[bytes]:
    """The file's bytes, decompressed when its name ends in `.gz`."""
    source = Path(path)
    if not source.is_file():
        raise InputError("no such file", source=str(source))
    if source.name.lower().endswith(".gz"):
        return cast(IO[bytes], gzip.open(source, "rb"))
    return source.open("rb")


def load_file(store: ox.Store, path: str | PathLike[str], *, bulk: bool = False,
              batch: int | None = None,
              wrap: Callable[[Iterator[ox.Quad]], Iterator[ox.Quad]] | None = None) -> None:
    """Load a graph file into `store` (`bulk`: with `bulk_load`, for stores on disk).

    `batch` (with `bulk`): the file is parsed once, as a stream, and its quads go to the bulk
    loader `batch` at a time (`bulk_extend`), so that the loader's memory is bounded by the
    batch instead of growing with the file (`kg.query.store.LOAD_BATCH`); the store holds the
    same graph. Blank nodes are renamed to fresh ids, as `bulk_load` does, the same way in
    every batch (one parse), so a blank node used in two batches stays one node. `wrap` (with
    `batch`) is handed the parsed quads and gives those to load (`kg.query.blocks.SubjectCheck`
    looks at them on the way).
    Raises InputError naming the file when it is missing, of an unknown format or not valid.
    """
    source = Path(path)
    fmt = file_format(source)
    if bulk and batch is not None:
        _load_in_batches(store, source, fmt, batch, wrap)
        return
    load = store.bulk_load if bulk else store.load
    with _reading(source, fmt, "nothing loaded") as data:
        if fmt.oxigraph is None:
            load(_via_rdflib(data, fmt), ox.RdfFormat.N_TRIPLES)
        elif fmt.gzipped:
            load(data, fmt.oxigraph)
        else:  # pyoxigraph reads the file itself, faster than through a Python stream
            load(path=str(source), format=fmt.oxigraph)


def _load_in_batches(store: ox.Store, source: Path, fmt: FileFormat, batch: int,
                     wrap: Callable[[Iterator[ox.Quad]], Iterator[ox.Quad]] | None) -> None:
    """`bulk_extend` calls of at most `batch` quads each, from one parse of the file."""
    if batch < 1:
        raise ValueError(f"batch must be at least 1, not {batch}")
    with _reading(source, fmt, "nothing loaded") as data:
        if fmt.oxigraph is None:
            parsed = ox.parse(_via_rdflib(data, fmt), ox.RdfFormat.N_TRIPLES,
                              rename_blank_nodes=True)
        elif fmt.gzipped:
            parsed = ox.parse(data, fmt.oxigraph, rename_blank_nodes=True)
        else:  # pyoxigraph reads the file itself, faster than through a Python stream
            parsed = ox.parse(path=str(source), format=fmt.oxigraph, rename_blank_nodes=True)
        items: Iterator[ox.Quad] = parsed if wrap is None else wrap(parsed)
        # Each turn takes one quad and hands it, with the next batch - 1, to one loader call.
        for first in items:
            store.bulk_extend(chain((first,), islice(items, batch - 1)))


def parse_file(path: str | PathLike[str], *, nothing: str = "nothing read") -> Iterator[ox.Quad]:
    """The quads of a graph file, parsed as they are read; InputError (saying `nothing`, what
    the failure leaves undone) when the file is not valid."""
    source = Path(path)
    fmt = file_format(source)
    with _reading(source, fmt, nothing) as data:
        if fmt.oxigraph is None:
            yield from ox.parse(_via_rdflib(data, fmt), ox.RdfFormat.N_TRIPLES)
        else:
            yield from ox.parse(data, fmt.oxigraph)


@contextmanager
def _reading(source: Path, fmt: FileFormat, nothing: str) -> Iterator[IO[bytes]]:
    """The file's bytes; parse errors (and a broken gzip stream) become an InputError."""
    with open_binary(source) as data:
        try:
            yield data
        except (SyntaxError, gzip.BadGzipFile, EOFError) as exc:
            raise InputError(
                f"not valid RDF ({fmt.name}), {nothing}: {exc}", source=str(source)
            ) from exc


def _via_rdflib(data: IO[bytes], fmt: FileFormat) -> bytes:
    """N-Triples of a file only rdflib parses (named graphs merged)."""
    import rdflib

    graph = rdflib.Dataset(default_union=True)
    graph.parse(data, format=fmt.rdflib)
    return graph.serialize(format="nt", encoding="utf-8")


def read_rdflib(path: str | PathLike[str]) -> rdflib.Graph:
    """An rdflib graph of a file (a Dataset, default graph the union, for formats with named
    graphs), with the contract's prefixes bound.

    Raises InputError naming the file when it is missing, of an unknown format or malformed.
    """
    import rdflib.exceptions

    source = Path(path)
    fmt = file_format(source)
    graph = bind_prefixes(rdflib.Dataset(default_union=True) if fmt.has_graphs else rdflib.Graph())
    with open_binary(source) as data:
        try:
            graph.parse(data, format=fmt.rdflib)
        except (SyntaxError, ValueError, SAXException, rdflib.exceptions.Error, OSError) as exc:
            # rdflib has no common parse-error class: Turtle raises BadSyntax (a SyntaxError),
            # N-Triples ParserError, JSON-LD JSONDecodeError (ValueError), RDF/XML SAX errors;
            # a broken .gz raises BadGzipFile (an OSError).
            raise InputError(f"not valid RDF ({fmt.name}): {exc}", source=str(source)) from exc
    return graph


def quads(items: Iterable[Any]) -> Iterator[ox.Quad]:
    """pyoxigraph quads of pyoxigraph `Quad`s or `Triple`s, or rdflib (s, p, o) triples."""
    for item in items:
        if isinstance(item, ox.Quad):
            yield item
        elif isinstance(item, ox.Triple):
            yield ox.Quad(item.subject, item.predicate, item.object)
        else:
            triple = triple_from_rdflib(item)
            yield ox.Quad(triple.subject, triple.predicate, triple.object)


def open_graph(source: GraphSource) -> ox.Store:
    """A pyoxigraph store of `source` (see `GraphSource`): a file is loaded into memory, a store
    folder opened read-only (through `open_read_only`, which recovers an interrupted load).

    >>> store = open_graph([ox.Triple(ox.NamedNode("http://a"), ox.NamedNode("http://b"),
    ...                               ox.Literal("c"))])
    >>> store.query("ASK { ?s ?p 'c' }")
    <QueryBoolean true>
    """
    if isinstance(source, ox.Store):
        return source
    if isinstance(source, str | PathLike):
        path = Path(source)
        if path.is_dir() or _interrupted(path):
            return open_read_only(path)
        store = ox.Store()
        load_file(store, path)
        return store
    store = ox.Store()
    if type(source).__module__.startswith("rdflib"):
        # rdflib's N-Triples writer is its fastest; pyoxigraph then parses it natively.
        store.load(source.serialize(format="nt", encoding="utf-8"), ox.RdfFormat.N_TRIPLES)
        return store
    if isinstance(source, Iterable):
        items = list(source)
        if all(isinstance(t, ox.Triple) for t in items):
            # Serialising and parsing natively is ~10x faster than building Quads in Python.
            store.load(ox.serialize(items, format=ox.RdfFormat.N_TRIPLES), ox.RdfFormat.N_TRIPLES)
        else:
            store.extend(quads(items))
        return store
    raise TypeError(
        f"cannot read a graph from {type(source).__name__}: pass a file path, a pyoxigraph "
        "Store, an rdflib Graph or an iterable of triples"
    )


# ---- store folders ----

#: Marks the work folders of a load (`.<store name>.loading-*`, next to the store).
LOADING = ".loading-"


def is_store(path: Path) -> bool:
    """True when `path` is an Oxigraph (RocksDB) store folder."""
    return (path / "CURRENT").is_file() and any(path.glob("MANIFEST-*"))


def open_read_only(path: str | PathLike[str]) -> ox.Store:
    """Open the store in `path` for reading; other readers and a running load may share it.

    A load cut short between its two renames is undone first (`recover`).
    """
    path = Path(path)
    if not path.exists() and path.parent.is_dir():
        with locked(path):
            recover(path)
    if not is_store(path):
        raise StoreError(
            f"{path} is not an Oxigraph store; create it with `kg load GRAPH --store {path}`"
        )
    try:
        return ox.Store.read_only(str(path))
    except OSError as exc:
        raise StoreError(f"{path}: cannot open the Oxigraph store: {exc}") from exc


def _interrupted(path: Path) -> bool:
    """True when `path` is missing but a load's work folder holds the store it replaced."""
    return not path.exists() and any(path.parent.glob(f".{path.name}{LOADING}*/old"))


def recover(store_dir: Path) -> None:
    """Undo a swap cut short between its two renames: put the previous store back."""
    if store_dir.exists():
        return
    for old in sorted(store_dir.parent.glob(f".{store_dir.name}{LOADING}*/old")):
        if is_store(old):
            os.rename(old, store_dir)
            return


@contextmanager
def locked(store_dir: Path) -> Iterator[None]:
    """One writer at a time per store (an advisory lock file next to the store)."""
    lock_path = store_dir.parent / f".{store_dir.name}.lock"
    with lock_path.open("w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise StoreError(
                f"{store_dir}: another load is running (lock {lock_path}); wait for it"
            ) from None
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
