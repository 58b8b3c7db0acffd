"""Read paper collections (text, JSON, JSON Lines, CSV/TSV, BibTeX; `.gz` too) into `Paper`s.

>>> from kg.ingest import read_papers, IngestReport
>>> report = IngestReport()
>>> papers = list(read_papers([], report=report))
>>> papers, report.read, report.skipped, report.duplicates
([], 0, [], [])
"""

from __future__ import annotations

from kg.ingest.reader import read_papers
from kg.ingest.report import Duplicate, DuplicateAction, IngestReport, Place
from kg.ingest.sources import Format

__all__ = ["Duplicate", "DuplicateAction", "Format", "IngestReport", "Place", "read_papers"]
