"""kg.extract.textfix: PDF hyphenation and markup repair, and the offset map back to the input."""

from __future__ import annotations

import pytest

from kg.extract.textfix import Repaired, repair

SAMPLE = (
    "to bridge the gap in long context un- derstanding and retrieval-augmented generation. "
    "We extend the context window of Llama3- 70B-base from 8K to 128K tokens, along with a "
    "three-stage instruction tun- ing process. Qwen2-72B-Instruct, and Llama3.1-70B- Instruct "
    "win. This paper introduces *distributed speculative inference (DSI)*, a novel algorithm. "
    r"Our code is avaliable at \url{https://anonymous.4open.science/r/FISAO-57F0/}."
)


def assert_maps_back(original: str, fixed: Repaired) -> None:
    """Every repaired character comes from the same character of the original."""
    assert len(fixed.offsets) == len(fixed.text)
    assert fixed.original_length == len(original)
    assert list(fixed.offsets) == sorted(set(fixed.offsets)), "offsets must strictly increase"
    for i, ch in enumerate(fixed.text):
        assert original[fixed.offsets[i]] == ch, (i, ch, fixed.offsets[i])


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("long context un- derstanding", "long context understanding"),
        ("a three-stage instruction tun- ing process", "a three-stage instruction tuning process"),
        ("Trans- former models", "Transformer models"),
        # Names and versions keep their hyphen: it belongs to the name.
        ("Llama3- 70B-base", "Llama3-70B-base"),
        ("Llama3.1-70B- Instruct, on", "Llama3.1-70B-Instruct, on"),
        ("GPT- 4o", "GPT-4o"),
        # A real hyphenated compound broken at its hyphen keeps the hyphen.
        ("self- supervised learning", "self-supervised learning"),
        ("state-of-the- art", "state-of-the-art"),
        # Suspended hyphens are not line breaks.
        ("pre- and post-training", "pre- and post-training"),
        ("first- or second-order", "first- or second-order"),
        ("intra- vs inter-class", "intra- vs inter-class"),
        # Nothing to repair.
        ("retrieval-augmented generation (RAG)", "retrieval-augmented generation (RAG)"),
        ("", ""),
    ],
)
def test_repair_text(text: str, expected: str) -> None:
    fixed = repair(text)
    assert fixed.text == expected
    assert_maps_back(text, fixed)


def test_latex_url_markup_is_removed() -> None:
    text = r"Code: \url{https://a.org/x} and \href{https://b.org/y}."
    fixed = repair(text)
    assert fixed.text == "Code: https://a.org/x and https://b.org/y."
    assert_maps_back(text, fixed)


def test_markdown_emphasis_is_removed() -> None:
    text = "This paper introduces *distributed speculative inference (DSI)*, and **SP**."
    fixed = repair(text)
    assert fixed.text == "This paper introduces distributed speculative inference (DSI), and SP."
    assert_maps_back(text, fixed)


@pytest.mark.parametrize(("text", "expected", "name"), [
    # Commands around words, and citations, which are no text of the sentence.
    (r"The \emph{Quill Scansion Network} (QSN) of \textbf{verse} models "
     r"\cite{DBLP:journals/corr/Abc15} beats metre tagging~\citep[p. 3]{smith99}.",
     "The Quill Scansion Network (QSN) of verse models beats metre tagging.",
     "Quill Scansion Network"),
    # The older declarations inside a group; unknown ones and math are kept.
    (r"a tagger referred to as {\it Quill Net}, {\bf much} faster; {\foo bar} and {\it $x$}",
     r"a tagger referred to as Quill Net, much faster; {\foo bar} and {\it $x$}",
     "Quill Net"),
])
def test_latex_formatting_keeps_its_words_and_citations_go(text: str, expected: str,
                                                           name: str) -> None:
    fixed = repair(text)
    assert fixed.text == expected
    assert_maps_back(text, fixed)
    s = fixed.text.index(name)
    start, end = fixed.to_original(s, s + len(name))
    assert text[start:end] == name


def test_latex_math_and_unknown_commands_are_kept() -> None:
    text = r"a bound $\mathcal{O}(\sqrt{n})$ and \foo{bar} and \emph{$x$}"
    assert repair(text).text == text


def test_arithmetic_asterisks_are_kept() -> None:
    assert repair("2*3 = 6 and a*b").text == "2*3 = 6 and a*b"


def test_span_across_a_repaired_break_maps_to_the_broken_word() -> None:
    original = "long context un- derstanding of Llama3- 70B-base"
    fixed = repair(original)
    s = fixed.text.index("understanding")
    start, end = fixed.to_original(s, s + len("understanding"))
    assert (start, end) == (13, 28)
    assert original[start:end] == "un- derstanding"
    s = fixed.text.index("Llama3-70B-base")
    start, end = fixed.to_original(s, s + len("Llama3-70B-base"))
    assert original[start:end] == "Llama3- 70B-base"


def test_span_after_removed_markup_maps_to_the_same_word() -> None:
    original = r"see \url{https://x.org/a} and *DSI* here"
    fixed = repair(original)
    for word in ("https://x.org/a", "DSI", "here"):
        s = fixed.text.index(word)
        start, end = fixed.to_original(s, s + len(word))
        assert original[start:end] == word


def test_every_word_of_the_sample_maps_back() -> None:
    fixed = repair(SAMPLE)
    assert "understanding" in fixed.text
    assert "Llama3-70B-base" in fixed.text
    assert "tuning" in fixed.text
    assert "Llama3.1-70B-Instruct" in fixed.text
    assert "*" not in fixed.text and r"\url" not in fixed.text
    assert_maps_back(SAMPLE, fixed)
    spans = {
        "understanding": "un- derstanding",
        "tuning": "tun- ing",
        "Llama3.1-70B-Instruct": "Llama3.1-70B- Instruct",
        "distributed": "distributed",
        "https://anonymous.4open.science/r/FISAO-57F0/": "https://anonymous.4open.science/r/FISAO-57F0/",
    }
    for word, in_original in spans.items():
        s = fixed.text.index(word)
        start, end = fixed.to_original(s, s + len(word))
        assert SAMPLE[start:end] == in_original


def test_to_original_at_and_past_the_end() -> None:
    original = "un- derstanding"
    fixed = repair(original)
    assert fixed.to_original(len(fixed.text), len(fixed.text)) == (len(original), len(original))
    assert fixed.to_original(0, 0) == (0, 0)
    assert fixed.to_original(0, len(fixed.text)) == (0, len(original))
