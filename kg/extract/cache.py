"""The parse cache: spaCy parses, the recogniser's spans and whole extraction records, kept on
disk by text hash so that a rebuild re-parses nothing it parsed before.

Five kinds of entry, each under a version that changes whenever what made it changes:

- `parse`: the English pipeline's `Doc` of one (repaired) text, as a `DocBin`. Version: the
  spaCy version, the pipeline package's name, meta (its version) and config, the excluded
  components, and paperkg's tokenizer rules.
- `spans`: the entity recogniser's raw spans of one text, with the spans it judged (the
  candidates' suggestions; a later build that suggests more runs the model again). Version:
  the recogniser's files (weights and config).
- `prepared`: one paper's state just before the learned decision models run: its parsed
  fields with their candidates, the candidate groups and every group's features
  (`kg.extract.assemble.Prepared`, pickled; the type evidence only of the groups the
  acceptance kept when it was stored: a lower cut later makes the rest). Version: the two
  above, the extractor configuration without its decision thresholds, and every rule and
  data file except those that only run after the features (`DECISION_ONLY`: the decision
  models and their code, turning decided groups into mentions, the relation patterns).
- `scores`: what the learned decision models said of a `prepared` entry's groups
  (`kg.extract.learned.Scores`: every group's acceptance probability; the type and `proposes`
  probability of the groups some acceptance cut kept). Version: the `prepared` version, the
  decisions model file's digest (`DecisionModel.identity`) and the code that evaluates it
  (`kg/extract/learned.py`); none for a model not read from a file.
- `record`: the whole `Extraction` of one paper text (`kg.extract.records`). Version: the two
  above, the extractor configuration, every rule (the source of `kg.extract`, `kg.vocab`,
  `kg.normalize`, `kg.types`) and every data file the rules read (gazetteer, lexicon, learned
  decisions in `kg/data/`), and the records' layout (`RECORD_FORMAT`). The files that only
  orchestrate (`ORCHESTRATION`: which worker extracts which papers, reading and writing
  records) are in no version: editing them misses nothing.

A change of the decision thresholds or of the relation patterns therefore misses on `record`
only: the decisions are made again from the cached scores, the models running only for the
groups a lower acceptance cut keeps first (one batch per partition), and only papers with
two or more mentions in a field read that field's cached parse again (for the relation
patterns). A retrained model (`decisions.json.gz`) misses on `scores` too: the models run
again on the cached features. Any other rule change, or a vocabulary change, also misses on
`prepared` and re-runs candidates and features from the cached parses; a new paper misses on
everything. Corrections and canonicalisation run after extraction (`kg.canon`) and never
touch the cache.

The cache is one SQLite file in write-ahead-log mode: several worker processes read and write
it at once. Deleting the folder is always safe.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import zlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

import spacy

from kg import __version__
from kg.errors import KGError
from kg.extract.decisions import DEFAULT_THRESHOLDS
from kg.extract.nlp import EXCLUDE, english_model_name
from kg.extract.recogniser import MODEL_DIR
from kg.extract.records import RECORD_FORMAT, Record

if TYPE_CHECKING:
    from kg.extract.extractor import ExtractorConfig

CACHE_FILE = "extraction-cache.sqlite"
ENV_VAR = "KG_CACHE_DIR"
PARSE, SPANS, PREPARED, SCORES, RECORD = "parse", "spans", "prepared", "scores", "record"

_PACKAGE = Path(__file__).resolve().parents[1]
# What the rules are: the code of extraction and the data files it reads.
_RULE_SOURCES = ("extract", "vocab", "normalize.py", "types.py")
_RULE_DATA = "data"
# What runs only after the features (`prepared` entries): the decision models and their code,
# the mentions made of their decisions, the relation patterns (which read the decided
# mentions and the parse).
DECISION_ONLY = frozenset({
    "data/decisions.json.gz", "extract/learned.py", "extract/mentions.py",
    "extract/relation_mentions.py", "extract/relation_patterns.py", "extract/relation_words.py",
})


# What does not change what extraction makes (issue 14: an edit of them missed every record):
# who extracts which papers where, and reading and writing records, whose layout has a
# version of its own (`kg.extract.records.RECORD_FORMAT`, part of the record version).
ORCHESTRATION = frozenset({"extract/partition.py", "extract/cluster.py", "extract/records.py"})


def default_cache_dir() -> Path:
    """`$KG_CACHE_DIR`, else `$XDG_CACHE_HOME/paperkg`, else `~/.cache/paperkg`."""
    if os.environ.get(ENV_VAR):
        return Path(os.environ[ENV_VAR])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "paperkg"


def text_key(*parts: str) -> str:
    """The cache key of a text (or of several, joined unambiguously)."""
    digest = hashlib.sha256()
    for part in parts:
        data = part.encode("utf-8", "surrogatepass")
        digest.update(len(data).to_bytes(8, "little"))
        digest.update(data)
    return digest.hexdigest()[:32]


@cache
def pipeline_versions(config: ExtractorConfig) -> tuple[str, str | None]:
    """The versions of the parses and of the recogniser's spans an extractor with `config`
    makes (see module docstring), from the pipelines' files, without loading them."""
    name = config.spacy_model or english_model_name()
    where = Path(name) if Path(name).is_dir() else spacy.util.get_package_path(name)
    described = sorted([*where.rglob("meta.json"), *where.rglob("config.cfg")])
    tokenizer = _PACKAGE / "extract" / "tokenizer.py"
    parse = _digest(spacy.__version__, name, ",".join(EXCLUDE),
                    *_files(described), *_files([tokenizer]))
    if not config.entity_model:
        return parse, None
    weights = sorted(p for p in MODEL_DIR.rglob("*") if p.is_file())
    return parse, _digest(spacy.__version__, *_files(weights))


def _files(paths: Iterable[Path]) -> Iterator[bytes]:
    for path in paths:
        yield path.name.encode()
        yield path.read_bytes()


@cache
def rules_version() -> str:
    """A digest of paperkg's extraction code and data files (see module docstring)."""
    return _rules_digest(ORCHESTRATION)


@cache
def feature_rules_version() -> str:
    """A digest of the extraction code and data files that candidates and features depend
    on: all of `rules_version`'s but `DECISION_ONLY`."""
    return _rules_digest(DECISION_ONLY | ORCHESTRATION)


def _rules_digest(leave_out: frozenset[str]) -> str:
    digest = hashlib.sha256(__version__.encode())
    paths: list[Path] = []
    for name in _RULE_SOURCES:
        where = _PACKAGE / name
        paths += sorted(where.rglob("*.py")) if where.is_dir() else [where]
    paths += sorted(p for p in (_PACKAGE / _RULE_DATA).iterdir() if p.is_file())
    for path in paths:
        name = path.relative_to(_PACKAGE).as_posix()
        if name not in leave_out:
            digest.update(name.encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:32]


def record_version(config: ExtractorConfig, parse: str, spans: str | None) -> str:
    """The version of extraction records made with `config` on top of those parses."""
    return _digest(repr(config), parse, spans or "-", rules_version(),
                   f"record format {RECORD_FORMAT}")


def prepared_version(config: ExtractorConfig, parse: str, spans: str | None) -> str | None:
    """The version of `prepared` entries (what the learned decisions read) made with
    `config` on top of those parses; None when `config` decides by the rules alone."""
    if not config.learned:
        return None
    return _digest(PREPARED, repr(replace(config, thresholds=DEFAULT_THRESHOLDS)), parse,
                   spans or "-", feature_rules_version())


@cache
def scores_version(prepared: str | None, model: str) -> str | None:
    """The version of `scores` entries: the learned models' outputs on `prepared` entries of
    that version, by the decisions model whose `DecisionModel.identity` is `model` and the
    code that evaluates it; None when either is unknown (nothing kept)."""
    if prepared is None or not model:
        return None
    learned = _PACKAGE / "extract" / "learned.py"
    return _digest(SCORES, prepared, model, learned.read_bytes())


def _digest(*parts: str | bytes) -> str:
    digest = hashlib.sha256()
    for part in parts:
        data = part.encode() if isinstance(part, str) else part
        digest.update(len(data).to_bytes(8, "little"))
        digest.update(data)
    return digest.hexdigest()[:32]


class ExtractionCache:
    """The cache folder's SQLite file: entries by (kind, version, key)."""

    def __init__(self, directory: str | Path) -> None:
        self.directory = Path(directory)
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.directory / CACHE_FILE, timeout=120,
                                       isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS entries (kind TEXT, version TEXT, key TEXT, "
                "value BLOB, PRIMARY KEY (kind, version, key)) WITHOUT ROWID")
        except (OSError, sqlite3.Error) as exc:
            raise KGError(f"{self.directory}: cannot open the parse cache ({exc}); give "
                          "another folder with --cache, or build with --no-cache") from exc

    def get(self, kind: str, version: str, keys: Sequence[str]) -> dict[str, bytes]:
        """The stored values of those keys that are present."""
        found: dict[str, bytes] = {}
        unique = sorted(set(keys))
        for start in range(0, len(unique), 500):
            part = unique[start : start + 500]
            rows = self._db.execute(
                f"SELECT key, value FROM entries WHERE kind = ? AND version = ? "
                f"AND key IN ({','.join('?' * len(part))})", (kind, version, *part))
            found.update(rows)
        return found

    def present(self, kind: str, version: str, keys: Sequence[str]) -> set[str]:
        """Those of the keys that have a stored value (without reading the values)."""
        found: set[str] = set()
        unique = sorted(set(keys))
        for start in range(0, len(unique), 500):
            part = unique[start : start + 500]
            rows = self._db.execute(
                f"SELECT key FROM entries WHERE kind = ? AND version = ? "
                f"AND key IN ({','.join('?' * len(part))})", (kind, version, *part))
            found.update(key for (key,) in rows)
        return found

    def put(self, kind: str, version: str, items: Iterable[tuple[str, bytes]]) -> None:
        """Store values (one transaction; an existing key is replaced)."""
        rows = [(kind, version, key, value) for key, value in items]
        if not rows:
            return
        try:
            with self._transaction():
                self._db.executemany("INSERT OR REPLACE INTO entries VALUES (?, ?, ?, ?)", rows)
        except sqlite3.Error as exc:
            raise KGError(f"{self.directory}: cannot write the parse cache ({exc}); "
                          "build with --no-cache or free some disk space") from exc

    def get_records(self, version: str, keys: Sequence[str]) -> dict[str, Record]:
        return {key: json.loads(zlib.decompress(value))
                for key, value in self.get(RECORD, version, keys).items()}

    def put_records(self, version: str, items: Iterable[tuple[str, Record]]) -> None:
        self.put(RECORD, version, (
            (key, zlib.compress(json.dumps(record, ensure_ascii=False,
                                           separators=(",", ":")).encode(), 1))
            for key, record in items))

    def counts(self) -> dict[str, int]:
        """Entries by kind (all versions)."""
        return dict(self._db.execute("SELECT kind, count(*) FROM entries GROUP BY kind"))

    def close(self) -> None:
        self._db.close()

    def _transaction(self) -> _Transaction:
        return _Transaction(self._db)


class _Transaction:
    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind: object, *_: object) -> None:
        self.db.execute("COMMIT" if kind is None else "ROLLBACK")


_OPEN: dict[tuple[int, str], ExtractionCache] = {}


def open_cache(directory: str | Path) -> ExtractionCache:
    """The cache in `directory`, one connection per process (never shared across a fork)."""
    key = (os.getpid(), str(Path(directory).resolve()))
    found = _OPEN.get(key)
    if found is None:
        found = _OPEN[key] = ExtractionCache(directory)
    return found


class CacheView:
    """The parse, span and (with `prepared`) prepared-paper entries of one extractor's
    pipelines in a cache (what `Extractor.parse` and `Extractor._run_chunk` read and
    write)."""

    def __init__(self, store: ExtractionCache, parse: str, spans: str | None,
                 prepared: str | None = None, scores: str | None = None) -> None:
        self.store = store
        self.parse = parse
        self.spans = spans
        self.prepared = prepared
        self.scores = scores
