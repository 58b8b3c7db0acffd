"""The overlap features of candidate groups (`kg.extract.overlaps`) on invented text."""

from __future__ import annotations

import math

import pytest

from kg.extract.candidates import Occurrence
from kg.extract.decisions import CandidateGroup
from kg.extract.overlaps import NAMES, overlap_features
from kg.extract.terms import Term
from kg.normalize import norm_key
from kg.types import Field

TEXT = ("We train a frobnic wavelet network on glyphs. The frobnic wavelet network beats "
        "every wavelet network we tried.")


def _groups(*labels: tuple[str, str]) -> dict[str, CandidateGroup]:
    """Groups of every occurrence in TEXT of each (label, kind)."""
    groups: dict[str, CandidateGroup] = {}
    for label, kind in labels:
        group = groups.setdefault(norm_key(label), CandidateGroup(norm_key(label)))
        start = TEXT.find(label)
        while start >= 0:
            term = Term(start, start + len(label.split()), label, kind)
            group.occurrences.append((Field.ABSTRACT, Occurrence(
                term=term, role=None, introduced=False, type_cues=(), sentence=0,
                sent_start=0, sent_end=len(TEXT), char_start=start,
                char_end=start + len(label))))
            group.labels[label] += 1
            start = TEXT.find(label, start + 1)
    return groups


BACKGROUND = {"frobnic wavelet network": 0, "frobnic wavelet": 0, "wavelet network": 40,
              "frobnic": 2, "network": 9000}


def _features() -> dict[str, dict[str, float]]:
    groups = _groups(("frobnic wavelet network", "chunk"), ("frobnic wavelet", "span"),
                     ("wavelet network", "gazetteer"), ("glyphs", "chunk"))
    return overlap_features(groups, lambda key: BACKGROUND.get(key, 0))


def test_a_piece_always_inside_a_longer_form_as_frequent_is_seen_as_one() -> None:
    f = _features()["frobnic wavelet"]
    assert f["ov_outer_share"] == 1.0  # both occurrences inside "frobnic wavelet network"
    assert f["ov_outer_ratio"] == 1.0  # the longer form is as frequent
    assert f["ov_inner_ratio"] == 0.0  # no one-word-shorter candidate inside it
    assert f["ov_outer_bg_gain"] == 0.0  # neither is in the background


def test_a_shorter_form_said_on_its_own_and_common_elsewhere_is_seen() -> None:
    whole = _features()["frobnic wavelet network"]
    assert whole["ov_outer_share"] == 0.0
    assert whole["ov_inner_ratio"] == 1.5  # "wavelet network" three times, the whole twice
    assert whole["ov_inner_known"] == 1.0  # the gazetteer knows "wavelet network"
    assert whole["ov_inner_bg"] == pytest.approx(math.log1p(40))
    assert whole["ov_inner_bg_gain"] == pytest.approx(math.log1p(40))
    assert whole["ov_drop_first_gain"] == pytest.approx(math.log1p(40))  # "wavelet network"
    assert whole["ov_drop_last_gain"] == 0.0  # "frobnic wavelet": as rare
    shorter = _features()["wavelet network"]
    assert shorter["ov_outer_share"] == pytest.approx(2 / 3)  # once on its own
    assert shorter["ov_outer_ratio"] == pytest.approx(2 / 3)


def test_a_group_overlapping_nothing_has_no_overlap_features() -> None:
    f = _features()[norm_key("glyphs")]
    assert f == dict.fromkeys(NAMES, 0.0)
