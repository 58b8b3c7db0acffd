"""A corpus's links taken a paper at a time (canonicalisation's rekey, the graph writer).

Imports nothing but the data types: the graph writer, and through it the query server, use it
without canonicalisation's imports (numpy among them; tests/test_links.py).
"""

from __future__ import annotations

from collections.abc import Iterator

from kg.types import Link


def links_by_paper(links: list[Link], *, release: bool = False,
                   ) -> Iterator[tuple[str, list[Link]]]:
    """Each paper's links, papers in the order they first appear: slices of `links` when each
    paper's links are consecutive (`links_grouped`; as canonicalisation and `Canonical.rekey`
    make them; issue 14: not a list per paper for the whole corpus at once, ~0.25 KB a
    paper), else gathered through a map by paper. With `release` the caller gives `links`
    up: each paper's links leave it as they are yielded (the list ends empty)."""
    if links_grouped(links):
        yield from _cut_off(links) if release else _slices(links)
        return
    by_paper: dict[str, list[Link]] = {}
    for link in links:
        found = by_paper.get(link.paper_id)
        if found is None:
            by_paper[link.paper_id] = [link]
        else:
            found.append(link)
    if not release:
        yield from by_paper.items()
        return
    links.clear()
    for paper_id in list(by_paper):
        yield paper_id, by_paper.pop(paper_id)


def _slices(links: list[Link]) -> Iterator[tuple[str, list[Link]]]:
    """Each paper's links of grouped `links`, a slice a paper."""
    start = 0
    while start < len(links):
        end, paper_id = start + 1, links[start].paper_id
        while end < len(links) and links[end].paper_id == paper_id:
            end += 1
        yield paper_id, links[start:end]
        start = end


def _cut_off(links: list[Link]) -> Iterator[tuple[str, list[Link]]]:
    """`_slices`, each paper's links cut off `links` as they are taken: the list is reversed
    in place so that the next paper's links are always its tail (deleting a tail costs its
    length; deleting a head would move the whole list each time)."""
    links.reverse()
    while links:
        start, paper_id = len(links) - 1, links[-1].paper_id
        while start > 0 and links[start - 1].paper_id == paper_id:
            start -= 1
        group = links[start:]
        del links[start:]
        group.reverse()
        yield paper_id, group


def links_grouped(links: list[Link]) -> bool:
    """Whether each paper's links are consecutive in `links`."""
    seen: set[str] = set()
    last = None
    for link in links:
        if link.paper_id != last:
            last = link.paper_id
            if last in seen:
                return False
            seen.add(last)
    return True
