"""The gazetteer of ML terms and the vocabulary hierarchy shipped as package data.

`kg/data/gazetteer.tsv.gz` maps labels of Papers-with-Code methods, tasks and datasets, metric
names, LLM names and CSO topics to a concept type and the IRI of the source entry;
`kg/data/vocab_hierarchy.tsv.gz` holds their broader relations. Both are built by
`scripts/build_gazetteer.py` (sources and decisions: `kg/data/GAZETTEER.md`).

Lookup is by `norm_key`, so case, hyphens and plurals do not matter:

>>> gaz = Gazetteer.load()
>>> [e.type.value for e in gaz.lookup("ResNets")][:1]
['Model']
>>> gaz.types_of("adam").most_common(1)
[(<ConceptType.METHOD: 'Method'>, 1)]
>>> gaz.lookup("Adam")[0].source_id
'https://paperswithcode.com/method/adam'
"""

from __future__ import annotations

import gzip
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

from kg.errors import KGError
from kg.normalize import norm_key
from kg.types import ConceptType

GAZETTEER_FILE = "gazetteer.tsv.gz"
HIERARCHY_FILE = "vocab_hierarchy.tsv.gz"
GAZETTEER_HEADER = ("label", "type", "source", "source_id", "key", "generic")
HIERARCHY_HEADER = ("child_source_id", "broader_source_id", "source")
Source = Path | Traversable  # a file on disk or inside the installed package

# Lower is more trusted for typing: curated registries first, CSO's automatic topics last.
SOURCE_RANK = {
    "pwc-method": 0,
    "pwc-task": 0,
    "llm-list": 1,
    "pwc-dataset": 1,
    "pwc-collection": 1,
    "nlp-tdms": 2,
    "pwc-metric": 2,
    "sota-metric": 3,
    "sota-task": 3,
    "sota-dataset": 3,
    "sota-synonym": 3,
    "sota-model": 4,
    "cso": 5,
}


@dataclass(frozen=True, slots=True)
class Entry:
    """One gazetteer entry: a label of a source entry, typed.

    `generic` marks labels that are ordinary English words or very broad ("attention",
    "machine learning"): a match on them alone is no evidence of the concept.
    """

    label: str
    type: ConceptType
    source: str
    source_id: str
    generic: bool

    @property
    def distinctive(self) -> bool:
        """True when the written form sets the term apart from the ordinary word: a capital or
        digit after the first character ("BLOOM", "PaLM", "T5"), so a case-sensitive match
        is safe even for a generic key.

        >>> Entry("PaLM", ConceptType.MODEL, "pwc-method", "", True).distinctive
        True
        >>> Entry("Attention", ConceptType.METHOD, "pwc-collection", "", True).distinctive
        False
        """
        return any(c.isupper() or c.isdigit() for c in self.label[1:])


def _rank(entry: Entry) -> tuple[int, str, str, str, str]:
    return (
        SOURCE_RANK.get(entry.source, 9),
        entry.source,
        entry.type,
        entry.source_id,
        entry.label,
    )


class Gazetteer:
    """Labels -> typed entries, and source IRIs -> broader IRIs. Build with `load()`."""

    def __init__(self, entries: dict[str, tuple[Entry, ...]], hierarchy: Source) -> None:
        self._by_key = entries
        self._hierarchy = hierarchy
        self._broader: dict[str, tuple[str, ...]] | None = None  # read on first use
        self._by_id: dict[str, tuple[Entry, ...]] | None = None

    @classmethod
    def load(cls, folder: Path | None = None) -> Gazetteer:
        """The shipped gazetteer (read once, then cached), or the one in `folder`.

        The hierarchy file is read on the first `broader()` call.
        """
        if folder is None:
            return _load_shipped()
        return cls._read(folder / GAZETTEER_FILE, folder / HIERARCHY_FILE)

    @classmethod
    def _read(cls, gazetteer: Source, hierarchy: Source) -> Gazetteer:
        grouped: dict[str, list[Entry]] = defaultdict(list)
        types = {t.value: t for t in ConceptType}
        for n, row in tsv_rows(gazetteer, GAZETTEER_HEADER):
            label, ctype, source, source_id, key, generic = row
            if ctype not in types:
                raise KGError(
                    f"{gazetteer}, line {n}: unknown type {ctype!r}; rebuild it with "
                    "scripts/build_gazetteer.py"
                )
            grouped[key].append(Entry(label, types[ctype], source, source_id, generic == "1"))
        entries = {
            key: tuple(sorted(group, key=_rank)) if len(group) > 1 else (group[0],)
            for key, group in grouped.items()
        }
        return cls(entries, hierarchy)

    def __len__(self) -> int:
        return sum(len(group) for group in self._by_key.values())

    def keys(self) -> Iterator[str]:
        """Every `norm_key` the gazetteer has entries for."""
        return iter(self._by_key)

    def lookup(self, text: str) -> tuple[Entry, ...]:
        """Entries whose label has the `norm_key` of `text`, best first: by source trust (PwC,
        LLM list, NLP-TDMS, leaderboards, CSO), except that a distinctive spelling ("ADAM",
        "SQuAD") puts the entries spelled exactly so first."""
        found = self._by_key.get(norm_key(text), ())
        if not any(c.isupper() or c.isdigit() for c in text[1:]):
            return found
        exact = tuple(e for e in found if e.label == text)
        return exact + tuple(e for e in found if e.label != text) if exact else found

    def types_of(self, text: str) -> Counter[ConceptType]:
        """How many entries of each type share the key of `text` (insertion order: best first)."""
        return Counter(e.type for e in self.lookup(text))

    def terms(self, *, generic: bool = False) -> Iterator[tuple[str, ConceptType]]:
        """Distinct (label, type) pairs for a case-insensitive PhraseMatcher: each label with the
        type of the best entry of its key; generic labels only when asked."""
        for group in self._by_key.values():
            if group[0].generic and not generic:
                continue
            for label in dict.fromkeys(e.label for e in group):
                yield label, group[0].type

    def cased_terms(self) -> Iterator[tuple[str, ConceptType]]:
        """Generic labels whose spelling is distinctive ("BLOOM", "USE", "PaLM"), for a
        case-sensitive (ORTH) matcher next to the `terms()` one."""
        for group in self._by_key.values():
            if group[0].generic:
                for label in dict.fromkeys(e.label for e in group if e.distinctive):
                    yield label, group[0].type

    def broader(self, source_id: str) -> tuple[str, ...]:
        """The IRIs directly broader than `source_id` (CSO super-topics, PwC parent tasks,
        PwC method collections)."""
        if self._broader is None:
            parents: dict[str, list[str]] = defaultdict(list)
            for _, (child, parent, _source) in tsv_rows(self._hierarchy, HIERARCHY_HEADER):
                parents[child].append(parent)
            self._broader = {child: tuple(dict.fromkeys(ps)) for child, ps in parents.items()}
        return self._broader.get(source_id, ())

    def entries_for(self, source_id: str) -> tuple[Entry, ...]:
        """Every label of a source entry (its name and aliases)."""
        if self._by_id is None:
            by_id: dict[str, list[Entry]] = defaultdict(list)
            for group in self._by_key.values():
                for e in group:
                    if e.source_id:
                        by_id[e.source_id].append(e)
            self._by_id = {k: tuple(v) for k, v in by_id.items()}
        return self._by_id.get(source_id, ())


@cache
def _load_shipped() -> Gazetteer:
    data = resources.files("kg") / "data"
    return Gazetteer._read(data / GAZETTEER_FILE, data / HIERARCHY_FILE)


def tsv_rows(
    path: Source, header: tuple[str, ...], script: str = "scripts/build_gazetteer.py"
) -> Iterator[tuple[int, list[str]]]:
    """(line number, fields) of a gzipped TSV whose first line is `header` (built by `script`)."""
    try:
        with path.open("rb") as raw, gzip.open(raw, "rt", encoding="utf-8") as fh:
            lines = fh.read().split("\n")
    except OSError as exc:
        raise KGError(
            f"{path}: cannot read ({exc}); rebuild it with {script}"
        ) from exc
    if tuple(lines[0].split("\t")) != header:
        raise KGError(f"{path}: header is not {'/'.join(header)}; rebuild it with {script}")
    for n, line in enumerate(lines[1:], start=2):
        if not line:
            continue
        fields = line.split("\t")
        if len(fields) != len(header):
            raise KGError(f"{path}, line {n}: {len(fields)} fields, expected {len(header)}")
        yield n, fields
