"""How a candidate group compares with the candidates its occurrences nest in or contain.

The noun-phrase pieces (`kg.extract.subspans`) put several boundaries on one phrase ("novel
graph neural network", "graph neural network", "graph neural", "neural network"); which
one is the concept shows in how the forms are used: a piece whose every occurrence lies
inside one longer form that is as frequent in the paper ("graph neural" always inside
"graph neural network") is a piece of it; a longer form whose shorter form recurs on its
own, or is far more common in the background abstracts ("novel graph neural network"
against "graph neural network"), carries words the term does not have. These features
give the learned acceptance (`kg.extract.learned`) the comparison; they are counts of the
paper's own candidates and of the background abstracts, never a probability.

The "neighbours" of a group are the groups with an occurrence that strictly contains one
of its occurrences (outer) or lies strictly inside one (inner) with one word more (outer)
or one word less (inner): the forms one boundary step away.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping

from kg.extract.decisions import CandidateGroup

NAMES = ("ov_outer_share", "ov_outer_ratio", "ov_outer_bg", "ov_outer_bg_gain",
         "ov_outer_known", "ov_inner_ratio", "ov_inner_bg", "ov_inner_bg_gain",
         "ov_inner_known", "ov_drop_first_gain", "ov_drop_last_gain")
_KNOWN = frozenset({"acronym", "name", "gazetteer"})

Span = tuple[int, int, int]  # field index, char start, char end


def _log(count: int) -> float:
    return math.log1p(count)


def overlap_features(
    groups: Mapping[str, CandidateGroup], background: Callable[[str], int]
) -> dict[str, dict[str, float]]:
    """The `NAMES` features of every group of one paper (by key); `background` gives the
    number of background abstracts using a key (`kg.extract.background.phrase_count`).

    - ov_outer_share: the share of its occurrences strictly inside another candidate's;
    - ov_outer_ratio / ov_inner_ratio: the highest count in the paper of a group one word
      longer around it / one word shorter inside it, over its own count;
    - ov_outer_bg / ov_inner_bg: the highest background count (log) of such a group, and
      ov_*_bg_gain the same minus its own (log counts: a ratio);
    - ov_outer_known / ov_inner_known: such a group is an acronym, a name or a gazetteer term;
    - ov_drop_first_gain / ov_drop_last_gain: the background count (log) of its words
      without the first / the last word, minus its own (0 for one word).
    """
    words = {key: len(key.split()) for key in groups}
    spans: dict[int, list[tuple[int, int, str]]] = {}
    field_index: dict[object, int] = {}
    for key, group in groups.items():
        for fld, occ in group.occurrences:
            i = field_index.setdefault(fld, len(field_index))
            spans.setdefault(i, []).append((occ.char_start, occ.char_end, key))
    outer: dict[str, set[str]] = {k: set() for k in groups}
    inner: dict[str, set[str]] = {k: set() for k in groups}
    nested: dict[str, set[Span]] = {k: set() for k in groups}
    for i, occurrences in spans.items():
        occurrences.sort(key=lambda s: (s[0], -s[1]))
        for a, (s, e, k) in enumerate(occurrences):
            for s2, e2, k2 in occurrences[a + 1:]:
                if s2 >= e:
                    break
                if k2 == k or e2 > e or (s2, e2) == (s, e):
                    continue
                # (s2, e2) strictly inside (s, e)
                nested[k2].add((i, s2, e2))
                if words[k2] == words[k] - 1:
                    inner[k].add(k2)
                    outer[k2].add(k)
    bg = {k: _log(background(k)) for k in groups}
    out: dict[str, dict[str, float]] = {}
    for key, group in groups.items():
        f = dict.fromkeys(NAMES, 0.0)
        count = max(group.count, 1)
        own = {(field_index[fld], o.char_start, o.char_end) for fld, o in group.occurrences}
        f["ov_outer_share"] = len(nested[key] & own) / max(len(own), 1)
        for side, near in (("outer", outer[key]), ("inner", inner[key])):
            if not near:
                continue
            f[f"ov_{side}_ratio"] = max(groups[k].count for k in near) / count
            best = max(bg[k] for k in near)
            f[f"ov_{side}_bg"] = best
            f[f"ov_{side}_bg_gain"] = best - bg[key]
            f[f"ov_{side}_known"] = float(any(groups[k].kinds & _KNOWN for k in near))
        parts = key.split()
        if len(parts) > 1:
            f["ov_drop_first_gain"] = _log(background(" ".join(parts[1:]))) - bg[key]
            f["ov_drop_last_gain"] = _log(background(" ".join(parts[:-1]))) - bg[key]
        out[key] = f
    return out
