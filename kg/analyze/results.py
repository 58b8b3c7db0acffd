"""The analytics of one graph, as plain data (concept and paper numbers of an `Incidence`)."""

from __future__ import annotations

from dataclasses import dataclass

from kg.analyze.communities import Community
from kg.analyze.incidence import Incidence
from kg.analyze.similarity import Related, Similar
from kg.analyze.trends import Trend


@dataclass(slots=True)
class Analysis:
    """Everything `kg analyze` computes; `kg.analyze.rdf` turns it into triples."""

    incidence: Incidence
    communities: list[Community]
    community_labels: list[str]
    link_strength: dict[int, int]  # concept -> total link strength (network concepts only)
    paper_rank: list[float]
    concept_rank: list[float]
    trends: list[Trend | None]  # per concept
    similar: list[Similar]
    related: list[Related]
    network_links: int = 0
