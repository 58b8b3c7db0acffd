"""The analyze stage: a map of the field computed with networkx and written into the graph.

graph (RDF) -> `Incidence` (papers × concepts, years; `incidence`) -> the co-occurrence network
(`cooccurrence`), its communities (`communities`), centrality (`centrality`), trends and bursts
(`trends`), similar papers and related concepts (`similarity`) -> triples (`rdf`). `run` reads
and writes graph files and stores; settings are one frozen `AnalyzeConfig` (`config`).

    from kg.analyze import analyze_file
    print(analyze_file("out/graph.ttl").format())
"""

from __future__ import annotations

from kg.analyze.config import AnalyzeConfig
from kg.analyze.run import (
    AnalyzeReport,
    analyze,
    analyze_file,
    analyze_read,
    analyze_store,
    analyze_triples,
    append_triples,
)

__all__ = [
    "AnalyzeConfig",
    "AnalyzeReport",
    "analyze",
    "analyze_file",
    "analyze_read",
    "analyze_store",
    "analyze_triples",
    "append_triples",
]
