"""Readers for the annotated corpora the entity model learns from and is scored on.

SciERC (Luan et al., EMNLP 2018, "Multi-Task Identification of Entities, Relations, and
Coreference for Scientific Knowledge Graph Construction") comes as JSON lines in the DyGIE
format: one abstract per line, `sentences` of tokens and `ner` spans as document-level token
offsets with inclusive ends. TDMSci (Hou et al., EACL 2021, "TDMSci: A Specialized Corpus for
Scientific Literature Entity Tagging of Tasks Datasets and Metrics") comes as CoNLL: one token a
line (`token<TAB>char offset<TAB>BIO tag`), a blank line between sentences.

Both are read into `GoldDoc`s: plain values on the corpus's own tokenisation, so that scoring
needs no spaCy and `GoldDoc.to_doc` makes a training `Doc` for any vocab.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING

from kg.errors import InputError

if TYPE_CHECKING:
    from spacy.tokens import Doc
    from spacy.vocab import Vocab

SCIERC_LABELS = ("Task", "Method", "Metric", "Material", "OtherScientificTerm", "Generic")
TDMSCI_LABELS = ("TASK", "DATASET", "METRIC")


class CorpusFormat(StrEnum):
    """The annotated-corpus formats `read_gold` understands."""

    SCIERC = "scierc"
    TDMSCI = "tdmsci"


@dataclass(frozen=True, slots=True)
class GoldSpan:
    """An annotated entity: tokens `[start, end)` of its document, and its label."""

    start: int
    end: int
    label: str


@dataclass(frozen=True, slots=True)
class GoldDoc:
    """One annotated document on the corpus's own tokenisation.

    `entities` keeps every annotation, overlapping ones included (SciERC has a few nested
    spans); `flat_entities` is the non-overlapping subset a token tagger can learn.
    """

    id: str
    words: tuple[str, ...]
    spaces: tuple[bool, ...]
    sent_starts: tuple[bool, ...]
    entities: tuple[GoldSpan, ...]

    @property
    def text(self) -> str:
        """The document's text: its tokens joined by their trailing spaces."""
        return "".join(
            w + (" " if sp else "") for w, sp in zip(self.words, self.spaces, strict=True)
        )

    @property
    def token_offsets(self) -> tuple[int, ...]:
        """The character offset in `text` where each token starts."""
        offsets, pos = [], 0
        for w, sp in zip(self.words, self.spaces, strict=True):
            offsets.append(pos)
            pos += len(w) + sp
        return tuple(offsets)

    def char_entities(self) -> tuple[tuple[int, int, str], ...]:
        """Every entity as `(start char, end char, label)` in `text`."""
        starts = self.token_offsets
        return tuple(
            (starts[e.start], starts[e.end - 1] + len(self.words[e.end - 1]), e.label)
            for e in self.entities
        )

    @property
    def flat_entities(self) -> tuple[GoldSpan, ...]:
        """The entities without overlaps: longer spans win, then earlier ones (as spaCy's
        `filter_spans` does)."""
        chosen: list[GoldSpan] = []
        taken: set[int] = set()
        for span in sorted(self.entities, key=lambda s: (-(s.end - s.start), s.start)):
            tokens = set(range(span.start, span.end))
            if not tokens & taken:
                chosen.append(span)
                taken |= tokens
        return tuple(sorted(chosen, key=lambda s: s.start))

    def to_doc(self, vocab: Vocab, *, label_map: dict[str, str] | None = None) -> Doc:
        """A spaCy `Doc` with the flat entities as `doc.ents` and all of them in
        `doc.spans["gold"]`; `label_map` renames labels (a label mapped to "" is dropped)."""
        from spacy.tokens import Doc, Span

        doc = Doc(
            vocab,
            words=list(self.words),
            spaces=list(self.spaces),
            sent_starts=list(self.sent_starts),
        )

        def spans(entities: tuple[GoldSpan, ...]) -> list[Span]:
            out = []
            for e in entities:
                label = label_map.get(e.label, e.label) if label_map else e.label
                if label:
                    out.append(Span(doc, e.start, e.end, label=label))
            return out

        doc.set_ents(spans(self.flat_entities), default="outside")
        doc.spans["gold"] = spans(self.entities)
        return doc


def sniff_format(path: Path | str) -> CorpusFormat | None:
    """SciERC when the first line is a JSON object with `sentences` and `ner`, TDMSci when it
    is `token<TAB>offset<TAB>tag`, else None (e.g. paperkg's own gold JSON)."""
    path = Path(path)
    first = next((line for line in _lines(path) if line.strip()), "")
    if first.lstrip().startswith("{"):
        try:
            record = json.loads(first)
        except json.JSONDecodeError:
            return None
        is_scierc = isinstance(record, dict) and {"sentences", "ner"} <= record.keys()
        return CorpusFormat.SCIERC if is_scierc else None
    parts = first.rstrip("\n").split("\t")
    return CorpusFormat.TDMSCI if len(parts) == 3 and parts[1].isdigit() else None


def detect_format(path: Path) -> CorpusFormat:
    """The corpus format of `path`, or an `InputError` saying which formats are understood."""
    kind = sniff_format(path)
    if kind is None:
        raise InputError(
            "neither SciERC JSON lines (records with 'sentences' and 'ner') nor TDMSci CoNLL "
            "(token<TAB>char offset<TAB>BIO tag); pass the format explicitly if it is one",
            source=str(path),
        )
    return kind


def read_gold(path: Path | str, *, fmt: CorpusFormat | str | None = None) -> list[GoldDoc]:
    """Read an annotated corpus file, detecting its format unless `fmt` is given."""
    path = Path(path)
    kind = CorpusFormat(fmt) if fmt is not None else detect_format(path)
    return read_scierc(path) if kind is CorpusFormat.SCIERC else read_tdmsci(path)


def read_scierc(path: Path | str) -> list[GoldDoc]:
    """Read SciERC JSON lines (`sentences`, `ner` with inclusive document-level ends)."""
    path = Path(path)
    return list(_scierc_docs(path))


def _scierc_docs(path: Path) -> Iterator[GoldDoc]:
    for number, line in enumerate(_lines(path), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(
                f"not valid JSON ({exc.msg}, column {exc.colno})", source=str(path), record=number
            ) from exc
        yield _scierc_doc(record, path, number)


def _scierc_doc(record: object, path: Path, number: int) -> GoldDoc:
    def bad(why: str) -> InputError:
        return InputError(
            f"{why}; expected a SciERC record with 'sentences' (lists of tokens) "
            "and 'ner' (per sentence, [start, end, label] with inclusive "
            "document-level token offsets)",
            source=str(path),
            record=number,
        )

    if not isinstance(record, dict) or "sentences" not in record or "ner" not in record:
        raise bad("missing 'sentences' or 'ner'")
    sentences, ner = record["sentences"], record["ner"]
    if not isinstance(sentences, list) or not isinstance(ner, list) or len(ner) != len(sentences):
        raise bad("'ner' must have one list per sentence")
    words: list[str] = []
    sent_starts: list[bool] = []
    entities: list[GoldSpan] = []
    for sentence, spans in zip(sentences, ner, strict=True):
        if (
            not isinstance(sentence, list)
            or not sentence
            or not all(isinstance(w, str) and w for w in sentence)
        ):
            raise bad("a sentence is not a non-empty list of non-empty strings")
        first, last = len(words), len(words) + len(sentence) - 1
        words.extend(sentence)
        sent_starts.extend([True] + [False] * (len(sentence) - 1))
        for span in spans:
            if (
                not isinstance(span, list)
                or len(span) != 3
                or not isinstance(span[0], int)
                or not isinstance(span[1], int)
                or not isinstance(span[2], str)
            ):
                raise bad(f"malformed entity {span!r}")
            start, end, label = span
            if not first <= start <= end <= last:
                raise bad(f"entity {span!r} lies outside its sentence (tokens {first}-{last})")
            entities.append(GoldSpan(start, end + 1, label))
    doc_id = str(record.get("doc_key", number))
    spaces = tuple([True] * (len(words) - 1) + [False])
    return GoldDoc(doc_id, tuple(words), spaces, tuple(sent_starts), tuple(entities))


def read_tdmsci(path: Path | str) -> list[GoldDoc]:
    """Read TDMSci CoNLL: `token<TAB>char offset<TAB>BIO tag`, one sentence per block.

    Each sentence becomes one `GoldDoc`; token spacing comes from the character offsets.
    """
    path = Path(path)
    docs: list[GoldDoc] = []
    block: list[tuple[int, str, int, str]] = []
    for number, line in enumerate(_lines(path), start=1):
        if not line.strip():
            if block:
                docs.append(_tdmsci_doc(block, path, len(docs) + 1))
                block = []
            continue
        parts = line.rstrip("\n").split("\t")
        if len(parts) != 3 or not parts[1].isdigit():
            raise InputError(
                f"expected 'token<TAB>char offset<TAB>BIO tag', got {line.strip()!r}",
                source=str(path),
                record=number,
            )
        block.append((number, parts[0], int(parts[1]), parts[2]))
    if block:
        docs.append(_tdmsci_doc(block, path, len(docs) + 1))
    return docs


def _tdmsci_doc(block: list[tuple[int, str, int, str]], path: Path, sentence: int) -> GoldDoc:
    words = tuple(token for _, token, _, _ in block)
    gaps = (nxt[2] > cur[2] + len(cur[1]) for cur, nxt in itertools.pairwise(block))
    spaces = (*gaps, False)
    entities: list[GoldSpan] = []
    start: int | None = None
    label = ""
    for i, (number, _, _, tag) in enumerate([*block, (0, "", 0, "O")]):
        prefix, _, kind = tag.partition("-")
        if prefix not in {"B", "I", "O"} or (prefix != "O") != bool(kind):
            raise InputError(
                f"bad BIO tag {tag!r} (expected O, B-TYPE or I-TYPE)",
                source=str(path),
                record=number,
            )
        continues = prefix == "I" and start is not None and kind == label
        if start is not None and not continues:
            entities.append(GoldSpan(start, i, label))
            start = None
        if prefix != "O" and not continues:
            # An I- tag with no matching entity open starts one, as conlleval reads it.
            start, label = i, kind
    sent_starts = (True,) + (False,) * (len(words) - 1)
    return GoldDoc(f"sentence-{sentence}", words, spaces, sent_starts, tuple(entities))


def _lines(path: Path) -> Iterator[str]:
    try:
        with path.open(encoding="utf-8") as fh:
            yield from fh
    except OSError as exc:
        raise InputError(f"cannot read the file ({exc.strerror})", source=str(path)) from exc
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text ({exc.reason})", source=str(path)) from exc
