"""How each node type and link role looks on the page: one place for colours, shapes and sizes.

Type colours are the Okabe-Ito palette (distinguishable with the common colour-vision
deficiencies); papers are dark squares so that they differ from concepts by shape alone.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

PAPER = "Paper"

#: Node colour per concept type (`kg:` class local name), and for papers.
TYPE_COLORS: dict[str, str] = {
    "Model": "#0072B2",
    "Method": "#E69F00",
    "Task": "#009E73",
    "Dataset": "#CC79A7",
    "Metric": "#F0E442",
    "Concept": "#8C8C8C",
    PAPER: "#34495E",
}

#: Legend order of the node types.
TYPE_ORDER: tuple[str, ...] = ("Model", "Method", "Task", "Dataset", "Metric", "Concept", PAPER)

PAPER_SHAPE = "square"
CONCEPT_SHAPE = "dot"
PAPER_SIZE = 8.0


@dataclass(frozen=True, slots=True)
class RoleStyle:
    """How the edges of one role are drawn and named in the legend."""

    color: str
    width: float
    dashes: bool | tuple[int, ...]
    legend: str


#: Edge style per link role (`kg:` property local name), strongest role first.
ROLE_STYLES: dict[str, RoleStyle] = {
    "proposes": RoleStyle("#C0392B", 3.0, False, "proposes"),
    "addresses": RoleStyle("#1E8449", 2.0, False, "addresses"),
    "evaluatesOn": RoleStyle("#8E44AD", 2.0, False, "evaluates on"),
    "measures": RoleStyle("#D68910", 2.0, (6, 3), "measures"),
    "comparesWith": RoleStyle("#2E86C1", 2.0, (2, 4), "compares with"),
    "uses": RoleStyle("#7F8C8D", 1.5, False, "uses"),
    "hasKeyword": RoleStyle("#B7950B", 1.0, (8, 4), "has keyword"),
    "mentions": RoleStyle("#BFC5CA", 1.0, (2, 3), "mentions"),
    # The concept map: concepts linked by the papers they share.
    "shared": RoleStyle("#95A5A6", 1.0, False, "shared papers"),
    # Any other predicate a query result connects two drawn nodes with.
    "query": RoleStyle("#16A085", 1.5, (4, 2), "query result"),
}

#: Link roles strongest first (a paper's role for a concept is the strongest one it has).
ROLE_ORDER: tuple[str, ...] = (
    "proposes",
    "addresses",
    "evaluatesOn",
    "measures",
    "comparesWith",
    "uses",
    "hasKeyword",
    "mentions",
)


def concept_size(paper_count: int) -> float:
    """Node size of a concept: grows with the square root of its number of papers (area ∝ count).

    >>> concept_size(1), concept_size(4), concept_size(10_000)
    (10.0, 14.0, 60.0)
    """
    return min(60.0, 6.0 + 4.0 * math.sqrt(max(1, paper_count)))


#: Community colours on the map, largest community first (Tableau 20's saturated half, then its
#: light half); communities past the palette are grey.
COMMUNITY_COLORS: tuple[str, ...] = (
    "#1F77B4", "#FF7F0E", "#2CA02C", "#D62728", "#9467BD", "#8C564B", "#E377C2", "#17BECF",
    "#BCBD22", "#7F7F7F", "#AEC7E8", "#FFBB78", "#98DF8A", "#FF9896", "#C5B0D5", "#C49C94",
    "#F7B6D2", "#9EDAE5", "#DBDB8D", "#393B79",
)
OTHER_COMMUNITY = "#C8CDD0"
#: The mean-year overlay: viridis stops, oldest to newest (perceptually uniform, colour-blind safe).
YEAR_RAMP: tuple[str, ...] = ("#440154", "#3B528B", "#21918C", "#5EC962", "#FDE725")
