"""Text cleaning, link and id helpers of kg.ingest."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kg.ingest.clean import clean_text, drop_noncharacters
from kg.ingest.ids import content_id, paper_id
from kg.ingest.records import BadRecord, as_link, to_paper
from kg.ingest.sources import Format, Source, venue_year


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("<p>First.</p><p>Second.</p>", "First. Second."),
        ("CO<sub>2</sub> and <jats:italic>x</jats:italic>", "CO2 and x"),
        ("<s> and </s> tokens, <unk>", "<s> and </s> tokens, <unk>"),
        ("a\u00a0b\u200bc\r\nd", "a bc d"),
        ("Cafe\u0301", "Café"),
        ("x &mdash; y &#65; &unknown; &amp", "x — y A &unknown; &amp"),
    ],
)
def test_clean_text(raw: str, clean: str) -> None:
    assert clean_text(raw) == clean


def test_content_id_ignores_case_and_whitespace_only() -> None:
    assert content_id("A  B\nc") == content_id("a b c") != content_id("a b c.")
    assert paper_id("", "x", None) == content_id("x")


@pytest.mark.parametrize(
    ("name", "value", "link"),
    [
        ("arxiv", "2106.01234v2", "https://arxiv.org/abs/2106.01234v2"),
        ("arxiv", "math.PR/0601001", "https://arxiv.org/abs/math.PR/0601001"),
        ("doi", "10.1007/978-3-030-58452-8_1", "https://doi.org/10.1007/978-3-030-58452-8_1"),
        ("project", "www.lab.org", "https://www.lab.org"),
        ("github", "http://github.com/a/b", "http://github.com/a/b"),
        ("github", "PKUnlp-icler", None),
        ("project", "adni.loni.usc.edu", "https://adni.loni.usc.edu"),
        ("pdf", "paper.pdf", None),
        ("project", "example.org", None),
    ],
)
def test_as_link(name: str, value: str, link: str | None) -> None:
    assert as_link(name, value) == link


SOURCE = Source("x.json", Format.JSON, False, "x")


def test_markdown_badges_give_links_and_keep_their_text() -> None:
    badge = (
        "[![github](/images/github_icon.svg) org/repo](https://github.com/org/repo) + "
        "[![Papers with Code](/images/pwc_icon.svg) 3 community implementations]"
        "(https://paperswithcode.com/paper/x)"
    )
    paper = to_paper({"id": "1", "title": "T", "github": badge}, source=SOURCE, record=1)
    assert paper.links == ("https://github.com/org/repo", "https://paperswithcode.com/paper/x")
    assert paper.extra == (("github", badge),)


def test_fields_match_case_insensitively_and_first_wins() -> None:
    paper = to_paper(
        {"Title": "T", "Authors": ["A"], "author": "B;C", "URL": "https://u", "site": "https://s"},
        source=SOURCE,
        record=1,
    )
    assert (paper.title, paper.authors, paper.url) == ("T", ("A",), "https://u")
    assert paper.links == ("https://u", "https://s")
    assert paper.extra == (("author", "B;C"),)


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        ({"id": 1.5, "title": "T"}, "field 'id' is a number"),
        ({"id": "x", "title": ["T"]}, "field 'title' is a list, expected text"),
        ({"id": "x", "authors": ["A", 3]}, "field 'authors' is a list, expected a list of text"),
        ({"id": "x", "year": True}, "field 'year' is a boolean"),
        ({"abstract": "   ", "title": ""}, "empty record"),
    ],
)
def test_wrong_types_are_bad_records(fields: dict[str, object], reason: str) -> None:
    with pytest.raises(BadRecord, match=reason):
        to_paper(fields, source=SOURCE, record=1)


def test_venue_year_needs_the_whole_stem() -> None:
    assert venue_year("iclr2025") == ("ICLR", 2025)
    assert venue_year("corl2021") == ("CoRL", 2021)
    assert venue_year("papers") == (None, None)
    assert venue_year("2025") == (None, None)


@given(st.text(st.sampled_from("ab \u00e9\ufdd0\ufdef\ufffe\uffff\U0001fffe\U0010ffff")))
def test_noncharacters_are_dropped_and_nothing_else(text: str) -> None:
    """`drop_noncharacters` returns ASCII text as it is (no noncharacter is ASCII): the
    shortcut gives what the pattern gives, on ASCII and on any mix."""
    kept = drop_noncharacters(text)
    assert kept == "".join(c for c in text if c not in NONCHARACTERS)
    assert drop_noncharacters(text.encode("ascii", "ignore").decode()) == text.encode(
        "ascii", "ignore").decode()


NONCHARACTERS = frozenset("\ufdd0\ufdef\ufffe\uffff\U0001fffe\U0010ffff")
