"""How annotated papers type a span by the words around it (`kg.extract.context_types`):
the builder on invented files, the neighbouring words of invented text, the features read
from the shipped table."""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kg.extract.context_types import (
    COLUMNS,
    NAMES,
    SOURCE_COLUMNS,
    WINDOW,
    WINDOW_NAMES,
    Window,
    _window_evidence,
    context_type_features,
    neighbours,
    occurrence_context,
    window_type_features,
)
from kg.extract.features import FEATURE_GROUPS
from kg.train.decisions import TYPE_ONLY

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def bct(load_file: Callable[[Path], ModuleType]) -> ModuleType:
    """scripts/build_context_types.py, loaded by conftest's `load_file`."""
    return load_file(ROOT / "scripts/build_context_types.py")



def test_the_words_around_annotated_spans_are_counted_by_type(bct: ModuleType,
                                                              tmp_path: Path) -> None:
    scierc = tmp_path / "s.json"
    scierc.write_text(json.dumps({
        "sentences": [["We", "parse", "via", "Foo", "Net", "."], ["Bar", "parsing", "helps"]],
        "ner": [[[3, 4, "Method"]], [[6, 7, "Task"]]],
    }) + "\n", encoding="utf-8")
    assert list(bct.scierc_mentions(scierc)) == [("via", "Foo Net", ".", "Method"),
                                                 ("<s>", "Bar parsing", "helps", "Task")]
    scirex = json.dumps({"words": ["Results", "on", "Qux", "Set", ".", "Zap", "wins"],
                         "sentences": [[0, 5], [5, 7]],
                         "ner": [[2, 4, "Material"], [5, 6, "Method"]]})
    mentions = list(bct.scirex_mentions([scirex]))
    assert mentions == [("on", "Qux Set", ".", "Dataset"), ("<s>", "Zap", "wins", "Method")]
    found = bct.tables([("scierc", ("via", "Foo Net", ".", "Method")),
                        *(("scirex", m) for m in mentions)])
    assert found["scierc:prev:via"] == {"Method": 1}
    assert found["scirex:prev:on"] == {"Dataset": 1}
    assert found["scirex:span:qux set"] == {"Dataset": 1}
    assert not any(":head:" in key for key in found)
    assert "scierc:span:foo net" not in found  # SciERC's spans are span_types.tsv.gz's
    with pytest.raises(SystemExit, match=r"x: line 1: not a SciREX document"):
        list(bct.scirex_mentions(['{"words": []}'], "x"))


def test_neighbours_stay_inside_the_sentence() -> None:
    text = "Prior work fails. We segment cells via Blob Nets."
    start = text.index("Blob")
    assert neighbours(text, start, start + len("Blob Nets")) == ("via", ".")
    sent = text.index("We")
    assert neighbours(text, sent, sent + 2, sent, len(text)) == ("<s>", "segment")
    assert neighbours(text, 0, 5, 0, 17) == ("<s>", "work")


def test_the_shipped_table_types_the_neighbouring_words() -> None:
    with gzip.open(ROOT / "kg/data/context_types.tsv.gz", "rt", encoding="utf-8") as fh:
        assert fh.readline().rstrip("\n").split("\t") == ["key", *COLUMNS]
    via = context_type_features([("via", ".")], ["zorbic quandle"])
    purpose = context_type_features([("for", ".")], ["zorbic quandle"])
    assert via["ctx_scirex_prev_Method"] > via["ctx_scirex_prev_Task"]
    assert purpose["ctx_scirex_prev_Task"] > purpose["ctx_scirex_prev_Method"]
    # The same next word on both: only the word before differs.
    assert via["ctx_scirex_next_Task"] == purpose["ctx_scirex_next_Task"]
    # An invented phrase is no SciREX span; two occurrences average their neighbours.
    assert via["rx_span_n"] == 0.0
    both = context_type_features([("via", "."), ("for", ".")], ["zorbic quandle"])
    assert both["ctx_scirex_prev_Method"] == pytest.approx(
        (via["ctx_scirex_prev_Method"] + purpose["ctx_scirex_prev_Method"]) / 2)
    assert set(via) == set(NAMES)


def test_only_the_type_models_read_the_context_types() -> None:
    assert FEATURE_GROUPS["context_types"] == NAMES
    assert set(NAMES) <= TYPE_ONLY


def test_the_words_a_few_words_from_annotated_spans_are_counted_by_type(
        bct: ModuleType, tmp_path: Path) -> None:
    scierc = tmp_path / "s.json"
    scierc.write_text(json.dumps({
        "sentences": [["On", "the", "new", "Qux", "Set", "corpus", "we", "win", "big", "now"],
                      ["Zap", "helps"]],
        "ner": [[[3, 4, "Material"]], [[10, 10, "Method"]]],
    }) + "\n", encoding="utf-8")
    assert WINDOW == 4
    windows = list(bct.scierc_mentions(scierc, bct.in_window))
    # Lower-cased, at most WINDOW words a side, never across the sentence's edge.
    assert windows == [(("on", "the", "new"), ("corpus", "we", "win", "big"), "Dataset"),
                       ((), ("helps",), "Method")]
    found = bct.window_tables([("scierc", w) for w in windows * 3]
                              + [("scierc", (("lone",), (), "Task"))])
    assert found["scierc:win_prev:new"] == {"Dataset": 3}
    assert found["scierc:win_next:helps"] == {"Method": 3}
    assert found["scierc:win:all"] == {"Dataset": 3, "Method": 3, "Task": 1}
    # A word near fewer than MIN_WINDOW_SPANS spans is left out; the total keeps its span.
    assert "scierc:win_prev:lone" not in found
    twice = bct.window_tables([("scierc", (("on", "on"), (), "Task"))] * 3)
    assert twice["scierc:win_prev:on"] == {"Task": 3}  # once per span and side


def test_the_window_of_an_occurrence_stays_inside_its_sentence() -> None:
    text = "Prior work fails. Results on the big new Foo Set, as shown here today."
    start = text.index("Foo")
    sent = text.index("Results")
    assert occurrence_context(text, start, start + len("Foo Set"), sent, len(text))[1] == (
        ("on", "the", "big", "new"), (",", "as", "shown", "here"))
    assert occurrence_context(text, sent, sent + len("Results"), sent, len(text))[1][0] == ()


def test_window_words_vote_for_the_type_of_the_spans_they_stand_near() -> None:
    benchmark = window_type_features([(("results", "on", "the"), ("dataset", ","))])
    network = window_type_features([(("we", "propose", "a", "deep"), ("network", "for"))])
    assert benchmark["win_scirex_Dataset"] > max(benchmark["win_scirex_Method"],
                                                 benchmark["win_scirex_Task"])
    assert network["win_scirex_Method"] > max(network["win_scirex_Dataset"],
                                              network["win_scirex_Task"])
    # Words no annotated span stands near, or no occurrence at all: no evidence either way.
    assert set(window_type_features([(("zorbleq",), ("quandlex",))]).values()) == {0.0}
    assert set(window_type_features([]).values()) == {0.0}
    # Two occurrences average their evidence.
    both = window_type_features([(("results", "on", "the"), ("dataset", ",")),
                                 (("we", "propose", "a", "deep"), ("network", "for"))])
    assert both["win_scirex_Dataset"] == pytest.approx(
        (benchmark["win_scirex_Dataset"] + network["win_scirex_Dataset"]) / 2)
    assert set(benchmark) == set(WINDOW_NAMES) and set(WINDOW_NAMES) <= set(NAMES)


# Words and marks of prose, one longer than the reach of `neighbours` and of `window`'s first
# tokenizing, and unicode, so that random text meets the cases where a shortcut could differ.
_WORDS = ("via", "the", "for", "results", "on", ",", ".", "(", ")", " ", "  ", "pre-trained",
          "x" * 70, "y" * 30, "y" * 30, " ", "é", "a_b", "\n", "network")


@settings(max_examples=400)
@given(st.lists(st.sampled_from(_WORDS), max_size=40).map("".join), st.data())
def test_one_reading_gives_the_neighbours_and_the_window(text: str, data: st.DataObject
                                                          ) -> None:
    cut = sorted(data.draw(st.lists(st.integers(0, len(text)), min_size=4, max_size=4)))
    sent_start, start, end, sent_end = cut
    tokens = re.compile(r"\w+|[^\w\s]")
    expected = (tuple(w.lower() for w in tokens.findall(text[sent_start:start])[-WINDOW:]),
                tuple(w.lower() for w in tokens.findall(text[end:sent_end])[:WINDOW]))
    assert occurrence_context(text, start, end, sent_start, sent_end) == (
        neighbours(text, start, end, sent_start, sent_end), expected)


@given(st.lists(st.tuples(*[st.lists(st.sampled_from(("results", "on", "the", "dataset", "we",
                                                      "propose", "via", "for", "zorbleq")),
                                     max_size=WINDOW).map(tuple)] * 2), max_size=4))
def test_window_evidence_is_summed_word_by_word_in_order(windows: list[Window]) -> None:
    expected = dict.fromkeys(WINDOW_NAMES, 0.0)
    for source, columns in SOURCE_COLUMNS.items():
        for before, after in windows:
            for side, words in (("win_prev", before), ("win_next", after)):
                for word in dict.fromkeys(words):
                    for c, value in zip(columns, _window_evidence(source, side, word),
                                        strict=False):
                        expected[f"win_{source}_{c}"] += value / len(windows)
    assert window_type_features(windows) == expected  # the same floats, not nearly


def test_a_long_word_at_the_edge_of_the_first_reading_is_read_whole() -> None:
    # Four tokens in the stretch `window` tokenizes first, the farthest of them cut: the
    # sentence is read again from its start.
    text = "intro " + "y" * 30 + " " + "y" * 30 + " " + "y" * 30 + " . end"
    start = text.index("end")
    assert occurrence_context(text, start, len(text), 0, len(text)) == (
        (".", "</s>"), (("y" * 30, "y" * 30, "y" * 30, "."), ()))
