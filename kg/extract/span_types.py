"""How annotated scientific abstracts type a span (built by scripts/build_span_types.py).

SciERC (train + dev) and TDMSci (train) annotate entity spans of AI and NLP abstracts with
types; `kg/data/span_types.tsv.gz` counts, per normalised span and per last word of a
multi-word span, how often each type was given. Another annotation effort's view of a term
("… parsing" is a task, "… corpus" material, "approach" generic) is evidence for the type
and termhood of a candidate that no vocabulary lists.
"""

from __future__ import annotations

from kg.extract.count_tables import count_table

COLUMNS = ("Task", "Method", "Metric", "Dataset", "Concept", "generic")
# SciERC's (and SciREX's) labels as the project names the types.
SCIERC_TYPES = {"Task": "Task", "Method": "Method", "Metric": "Metric", "Material": "Dataset",
                "OtherScientificTerm": "Concept", "Generic": "generic"}

TABLE = "span_types.tsv.gz"


def span_types(key: str) -> tuple[int, ...]:
    """Annotated spans with this `norm_key`, by type (`COLUMNS` order; zeros if none)."""
    return count_table(TABLE).get("p:" + key, (0,) * len(COLUMNS))


def head_types(word: str) -> tuple[int, ...]:
    """Annotated multi-word spans ending in this (normalised) word, by type."""
    return count_table(TABLE).get("h:" + word, (0,) * len(COLUMNS))
