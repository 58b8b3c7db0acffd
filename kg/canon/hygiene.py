"""Nodes that are not concepts: quantities, hardware and products, word fragments, capitalised
common words — judged on the whole corpus's evidence, not one mention.

Rules (their names are recorded with each rejection):
- `quantity`: a number with a unit or multiplier ("10X", "100K", "1.5B", "8%").
- `product`: every word is a company, device or product name from `PRODUCT_WORDS` or a model
  number ("NVIDIA H100", "iPhone 13", "RTX 3090"), or a processor noun after names or model
  numbers ("Titan Xp GPU", "Tesla V100 GPUs") — unless a paper is about it (a mention in a
  title).
- `fragment`: every mention in every paper is part of a longer word or of another concept's
  mention, and the label is an ordinary word ("Multi" of "Multi-bit", "cross" of
  "cross-modal") or a code of at most three characters with a digit ("L1" of "smooth L1
  loss"); names such as "LSTM" in "LSTM-based" stay; unless in a title. Also a label cut
  across punctuation: it starts or ends with a hyphen or dash ("-play framework" of
  "plug-and-play framework") or holds an em dash ("metrics——Consistency Score").
- `common-word`: one (maybe hyphenated) word, every mention capitalised only by its position
  (a title, or a sentence's first word), no title has it standing alone ("Zero-Shot vs.
  Translation-Based ...", "X: ..." are about it; "Fine-Grained Image ..." modifies), and the same
  words appear in more of the corpus's abstracts as ordinary text than there are papers linked
  to the concept ("Fine-Grained" from titles, "fine-grained" in hundreds of abstracts).

The cut-offs are "every mention" and "more than": no fitted threshold.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping

from kg.types import Concept, Field, Link, Mention, Paper

QUANTITY = "quantity"
PRODUCT = "product"
FRAGMENT = "fragment"
COMMON_WORD = "common-word"

_QUANTITY = re.compile(
    r"^[~<>≈]?\d+(?:[.,]\d+)*\s*(?:x|×|k|m|b|t|g|%|gb|mb|tb|kb|fps|hz|khz|mhz|ghz|ms|s|h|"
    r"min|px|bit|bits|d)?$", re.I)
_MODEL_NUMBER = re.compile(r"^[a-z]{0,3}\d+[a-z0-9]*$|^\d+$", re.I)
# Companies, devices and product lines (general knowledge; lower case).
PRODUCT_WORDS = frozenset(
    # Words that are also method names or ordinary words ("ARM", "Pro", "Switch") are left out.
    """nvidia amd intel apple google microsoft openai anthropic amazon ibm samsung huawei
    qualcomm iphone ipad ipod macbook android linux jetson xavier orin geforce quadro tesla
    rtx gtx radeon xeon snapdragon raspberry pi arduino kinect hololens oculus playstation
    xbox nintendo alexa siri cortana a100 h100 v100 h200 b200 a6000 a40 l40 p100 k80 tpu tpuv3
    tpuv4""".split()
)
_WORD = re.compile(r"[a-z0-9]+")
# A span cut across punctuation: a leading or trailing hyphen or dash, or an em dash inside.
_CUT = re.compile(r"^\s*[-‐‑‒–—]|[-‐‑‒–—]\s*$|—")
# A title word that modifies nothing: the title ends, or a colon, "?" or "vs." follows.
_STANDS_ALONE = re.compile(r"^\s*($|[:?]|vs\.?\s|versus\s)", re.I)


def reject(
    concepts: Mapping[str, Concept], links: Iterable[Link], papers: Mapping[str, Paper]
) -> dict[str, str]:
    """Concept key -> the rule that rejects it, for every node that is not a concept."""
    # Links by key and by paper, not a (paper, mention) pair and a span tuple per mention
    # (issue 14: those took ~3 KB a paper at once); each key's pairs are made in turn.
    by_key: dict[str, list[Link]] = defaultdict(list)
    by_paper: dict[str, list[Link]] = defaultdict(list)
    for link in links:
        by_key[link.concept_key].append(link)
        by_paper[link.paper_id].append(link)
    out: dict[str, str] = {}
    common: list[str] = []
    for key, concept in concepts.items():
        found = [(link.paper_id, m) for link in by_key.get(key, ()) for m in link.mentions]
        in_title = any(m.span.field is Field.TITLE for _, m in found)
        if _QUANTITY.match(concept.pref_label.strip()):
            out[key] = QUANTITY
        elif _CUT.search(concept.pref_label):
            out[key] = FRAGMENT
        elif not in_title and _is_product(concept.pref_label):
            out[key] = PRODUCT
        elif not in_title and found and _fragment_shaped(concept.pref_label) and all(
            _is_fragment(papers[pid], m, _spans(by_paper[pid])) for pid, m in found
        ):
            out[key] = FRAGMENT
        elif found and _position_capitalised(concept, found, papers):
            common.append(key)
    if common:
        plain = _plain_text_papers({key for key in common}, papers.values())
        for key in common:
            if plain[key] > len(by_key[key]):
                out[key] = COMMON_WORD
    return out


# A processor named by its maker's or model's name before this noun is a product.
_PROCESSORS = frozenset({"gpu", "gpus", "cpu", "cpus", "tpu", "tpus"})


def _is_product(label: str) -> bool:
    """Every word a product word or model number, or a processor with a name before it.

    >>> [_is_product(x) for x in ["NVIDIA H100", "Titan Xp GPU", "single GPU", "GPU memory"]]
    [True, True, False, False]
    """
    words = _WORD.findall(label.lower())
    if len(words) >= 2 and words[-1] in _PROCESSORS:
        names = label.split()[:-1]
        if names and all(w[:1].isupper() or any(c.isdigit() for c in w) for w in names):
            return True
    return bool(words) and any(w in PRODUCT_WORDS for w in words) and all(
        w in PRODUCT_WORDS or _MODEL_NUMBER.match(w) for w in words)


def _fragment_shaped(label: str) -> bool:
    """An ordinary word ("Multi", "cross") or a short code ("L1"), not a name ("LSTM")."""
    if " " in label or "-" in label:
        return False
    return (label.isalpha() and label[1:].islower()) or (
        len(label) <= 3 and any(c.isdigit() for c in label))


def _spans(links: list[Link]) -> list[tuple[Field, int, int]]:
    """The spans of every mention of one paper's links."""
    return [(m.span.field, m.span.start, m.span.end) for link in links for m in link.mentions]


def _is_fragment(paper: Paper, mention: Mention, spans: list[tuple[Field, int, int]]) -> bool:
    """Glued to a longer word ("Multi-bit") or strictly inside another mention's span."""
    span = mention.span
    text = paper.text(span.field)
    before = text[span.start - 1] if span.start > 0 else " "
    after = text[span.end] if span.end < len(text) else " "
    if before.isalnum() or after.isalnum() or before == "-" or after == "-":
        return True
    return any(f is span.field and s <= span.start and span.end <= e and (s, e) != (
        span.start, span.end) for f, s, e in spans)


def _position_capitalised(
    concept: Concept, found: list[tuple[str, Mention]], papers: Mapping[str, Paper]
) -> bool:
    """Title-case words of the ordinary vocabulary, capitalised only where they stand, and not
    the name a title gives its contribution."""
    label = concept.pref_label
    if " " in label.strip():
        return False
    words = label.split("-")
    if not all(w[:1].isupper() and w[1:].islower() and w.isalpha() for w in words):
        return False
    for pid, m in found:
        if m.span.field is Field.TITLE:
            after = (papers[pid].title or "")[m.span.end:]
            if _STANDS_ALONE.match(after):
                return False  # "Zero-Shot vs. ...", "X: ...": the paper is about it
        elif m.span.start != m.sentence.start:
            return False
    return True


def _plain_text_papers(keys: set[str], papers: Iterable[Paper]) -> Counter[str]:
    """For each key, the papers whose abstract has its words in lower case."""
    wanted = {tuple(key.split()): key for key in keys}
    # Looked for only where a key's first word is (issue 14: every build runs this over every
    # abstract; a tuple per position and key length took most of its time).
    first = {words[0] for words in wanted if words}
    sizes = sorted({len(words) for words in wanted if words})
    blank = {wanted[()]} if () in wanted else set()  # no words: in every abstract
    counts: Counter[str] = Counter()
    for paper in papers:
        text = paper.abstract or ""
        tokens = re.findall(r"[a-z0-9]+", text)  # lower-case words only: capitals do not count
        seen = set(blank)
        for i, token in enumerate(tokens):
            if token in first:
                for n in sizes:
                    key = wanted.get(tuple(tokens[i: i + n])) if i + n <= len(tokens) else None
                    if key is not None:
                        seen.add(key)
        counts.update(seen)
    return counts
