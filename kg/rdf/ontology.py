"""The packaged ontology (`kg/data/ontology.ttl`) and SHACL shapes (`kg/data/shapes.ttl`)."""

from __future__ import annotations

from functools import lru_cache
from importlib.resources import files
from pathlib import Path

from pyoxigraph import RdfFormat, Triple, parse


def ontology_path() -> Path:
    """The ontology file: every class and property of docs/VOCABULARY.md, labelled."""
    return Path(str(files("kg") / "data" / "ontology.ttl"))


def shapes_path() -> Path:
    """The SHACL shapes of the graph contract (validate with pyshacl)."""
    return Path(str(files("kg") / "data" / "shapes.ttl"))


@lru_cache(maxsize=1)
def ontology_triples() -> tuple[Triple, ...]:
    """The ontology's triples, parsed once per process."""
    path = ontology_path()
    return tuple(q.triple for q in parse(path=path, format=RdfFormat.TURTLE))
