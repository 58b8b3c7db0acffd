"""The paper that introduced a method, as the Papers-with-Code vocabulary records it.

`kg/data/origins.tsv.gz` (built by `scripts/build_origins.py` from the PwC methods we ship in
the gazetteer) holds, for 2,050 methods, the introducing paper's title, arXiv id and year,
under the key of each name of the method (`kg.normalize.norm_key`: name and full name).

A paper is a method's introducing paper when its arXiv id or its title is the recorded one
(`Origin.is_paper`); titles compare by `title_key`, which folds case, diacritics and
punctuation only.

>>> origins = Origins.load()
>>> [(o.title, o.year) for o in origins.lookup("Barlow Twins")]
[('Barlow Twins: Self-Supervised Learning via Redundancy Reduction', 2021)]
>>> origins.lookup("barlow twin")[0].is_paper("Barlow twins: self-supervised learning via "
...                                           "redundancy reduction.", None)
True
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from functools import cache
from importlib import resources

from kg.normalize import fold_diacritics, norm_key
from kg.vocab.gazetteer import Source, tsv_rows

ORIGINS_FILE = "origins.tsv.gz"
ORIGINS_HEADER = ("key", "source_id", "title", "arxiv_id", "year")
_NOT_WORD = re.compile(r"[\W_]+")


def title_key(title: str) -> str:
    """A title with case, diacritics and punctuation folded: 'Barlow Twins: Self-Supervised ...'
    -> 'barlow twins self supervised ...'."""
    return _NOT_WORD.sub(" ", fold_diacritics(title).casefold()).strip()


@dataclass(frozen=True, slots=True)
class Origin:
    """The paper a vocabulary entry says introduced a method."""

    source_id: str  # the entry's IRI (the gazetteer's source_id)
    title: str
    arxiv_id: str | None = None
    year: int | None = None  # from the arXiv id or the proceedings address; None if neither

    def is_paper(self, title: str | None, arxiv_id: str | None) -> bool:
        """Whether a paper with this title / arXiv id is the introducing paper."""
        if arxiv_id and self.arxiv_id and arxiv_id.split("v")[0] == self.arxiv_id:
            return True
        return bool(title) and title_key(title or "") == title_key(self.title)


class Origins:
    """Introducing papers by name key."""

    def __init__(self, by_key: dict[str, tuple[Origin, ...]]) -> None:
        self.by_key = by_key

    @classmethod
    def load(cls) -> Origins:
        """The shipped table (read once per process)."""
        return _load_shipped()

    @classmethod
    def read(cls, path: Source) -> Origins:
        by_key: dict[str, list[Origin]] = defaultdict(list)
        for _, (key, source_id, title, arxiv_id, year) in tsv_rows(
                path, ORIGINS_HEADER, "scripts/build_origins.py"):
            by_key[key].append(Origin(source_id, title, arxiv_id or None,
                                      int(year) if year else None))
        return cls({key: tuple(found) for key, found in by_key.items()})

    def lookup(self, label: str) -> tuple[Origin, ...]:
        """The introducing papers of the methods named `label` (up to `norm_key`)."""
        return self.by_key.get(norm_key(label), ())

    def __len__(self) -> int:
        return len(self.by_key)


@cache
def _load_shipped() -> Origins:
    return Origins.read(resources.files("kg") / "data" / ORIGINS_FILE)
