"""The project's exceptions: one base class, a subclass per kind of failure.

Messages name the file, the record and the fix; the CLI turns them into a clean message and an
exit code (`exit_code`).
"""

from __future__ import annotations


class KGError(Exception):
    """Base class of every error paperkg raises on purpose."""

    exit_code = 1


class InputError(KGError):
    """An input file or record cannot be read (missing file, unknown format, bad record)."""

    exit_code = 2

    def __init__(self, message: str, *, source: str | None = None, record: int | None = None):
        where = ""
        if source is not None:
            where = f"{source}"
            if record is not None:
                where += f", record {record}"
            where += ": "
        super().__init__(f"{where}{message}")
        self.source = source
        self.record = record
        self.reason = message


class ModelError(KGError):
    """The spaCy pipeline (or the trained component) cannot be loaded."""


class QueryError(KGError):
    """A SPARQL query is malformed, has unbound parameters, or the store refused it."""

    exit_code = 2


class StoreError(KGError):
    """A graph store or remote endpoint failed (load, connect, transaction)."""


class ClusterError(KGError):
    """The Dask cluster of `kg build --dask` cannot be reached, or it lost a task on every
    worker that ran it."""
