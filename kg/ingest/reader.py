"""`read_papers`: every input file, in order, as `Paper`s; bad records reported, not fatal."""

from __future__ import annotations

import dataclasses
import logging
import os
from collections.abc import Callable, Iterable, Iterator
from typing import BinaryIO

from kg.errors import InputError
from kg.ingest.dedup import Deduplicator
from kg.ingest.limits import DEFAULT_LIMITS, ReadLimits
from kg.ingest.records import WHOLE_FILE, BadRecord, RawRecord, to_paper
from kg.ingest.report import DuplicateAction, IngestReport
from kg.ingest.sources import Format, Source, expand, inspect
from kg.types import Paper, SkippedRecord

log = logging.getLogger("kg.ingest")


def _reader(source: Source) -> Callable[[BinaryIO, ReadLimits], Iterator[RawRecord]]:
    """The record reader of a format (format modules are imported only when used)."""
    if source.format is Format.TEXT:
        from kg.ingest.text import read_text

        return read_text
    if source.format is Format.JSON:
        from kg.ingest.jsonfile import read_json

        return read_json
    if source.format is Format.JSONL:
        from kg.ingest.jsonfile import read_jsonl

        return read_jsonl
    if source.format in (Format.CSV, Format.TSV):
        from kg.ingest.csvfile import read_csv

        delimiter = "\t" if source.format is Format.TSV else source.delimiter
        return lambda stream, limits: read_csv(stream, delimiter, limits)
    if source.format is Format.RIS:
        from kg.ingest.ris import read_ris

        return read_ris
    if source.format is Format.NBIB:
        from kg.ingest.ris import read_medline

        return read_medline
    if source.format is Format.ATOM:
        from kg.ingest.atom import read_atom

        return read_atom
    from kg.ingest.bibtex import read_bibtex

    return read_bibtex


def read_papers(
    paths: Iterable[str | os.PathLike[str]],
    *,
    report: IngestReport | None = None,
    strict: bool = False,
    limits: ReadLimits = DEFAULT_LIMITS,
    input_format: Format | str | None = None,
    deduplicate: bool = True,
) -> Iterator[Paper]:
    """The papers in `paths`, in input order, read lazily (JSON Lines, CSV, text stream).

    All paths are checked before the first paper is yielded: a missing or unreadable file or
    an unknown format raises `InputError`. A bad record is logged (logger `kg.ingest`), added
    to `report.skipped` and skipped; with `strict=True` it raises `InputError` instead, as
    does a duplicate id. Duplicate ids are merged (same title and abstract) or renamed
    `{id}~2` (different content) and listed in `report.duplicates`.

    A directory stands for its supported files; `-` is standard input (`input_format` names
    its format when the content does not say it). `limits` is the size policy.
    """
    report = report if report is not None else IngestReport()
    if isinstance(paths, str | os.PathLike):  # one path, not an iterable of characters
        paths = [paths]
    fmt = Format(input_format) if input_format is not None else None
    sources = [inspect(path, fmt) for path in expand(paths)]
    dedup = Deduplicator()
    for source in sources:
        separators = ",;" if source.format is Format.BIBTEX else ";"
        report.formats[source.path] = source.describe()
        if source.encoding != "utf-8":
            log.info("%s: read as %s", source.path, source.encoding.upper())
        with source.open() as stream:
            try:
                for raw in _reader(source)(stream, limits):
                    if raw.fields is not None:
                        report.see(source.path, raw.fields)
                    paper = _paper(raw, source, separators, report, strict, limits)
                    if paper is None:
                        continue
                    duplicate = dedup.check(paper) if deduplicate else None
                    report.read += 1
                    if duplicate is None:
                        yield paper
                        continue
                    if strict:
                        raise InputError(
                            duplicate.describe(), source=source.path, record=raw.number
                        )
                    report.duplicates.append(duplicate)
                    log.warning("%s", duplicate.describe(),
                                extra={"kg_source": source.path, "kg_kind": "duplicate id"})
                    if duplicate.action is DuplicateAction.RENAMED:
                        yield dataclasses.replace(paper, id=duplicate.new_id)
            except (OSError, EOFError) as exc:  # gzip.BadGzipFile is an OSError
                raise InputError(
                    f"cannot read the file ({exc}); is it truncated or corrupt?", source=source.path
                ) from exc


def _paper(
    raw: RawRecord, source: Source, separators: str, report: IngestReport, strict: bool,
    limits: ReadLimits,
) -> Paper | None:
    """The paper of one raw record, or None after reporting why it is skipped."""
    reason = raw.error
    if reason is None and raw.fields is not None:
        notes: list[str] = []
        try:
            paper = to_paper(raw.fields, source=source, record=raw.number,
                             list_separators=separators, limits=limits, notes=notes)
        except BadRecord as exc:
            reason = str(exc)
        else:
            for note in notes:
                if strict:
                    raise InputError(note, source=source.path, record=raw.number)
                report.repaired.append(SkippedRecord(source.path, raw.number, note))
                log.warning("%s, record %d: %s", source.path, raw.number, note,
                            extra={"kg_source": source.path, "kg_kind": "repaired record"})
            return paper
    reason = reason or "record has no fields"
    record = None if raw.number == WHOLE_FILE else raw.number
    if strict:
        raise InputError(reason, source=source.path, record=record)
    report.skipped.append(SkippedRecord(source.path, raw.number, reason))
    where = source.path if record is None else f"{source.path}, record {record}"
    log.warning("%s: skipped: %s", where, reason,
                extra={"kg_source": source.path, "kg_kind": "skipped record"})
    return None
