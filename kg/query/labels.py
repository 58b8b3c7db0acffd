"""A label index for Oxigraph: case-insensitive label lookups without scanning every label.

Named queries match concepts by label ignoring case (`FILTER(LCASE(?label) = LCASE(?text))`),
which no index answers: on a graph of 35k papers that is a scan of ~10^5 labels per query. So
a store keeps, in its own named graph, one `?concept idx:labelKey "casefolded label"` triple per
label, and a named query's `label(?c)` parameter lets the source pre-bind `?c` to the concepts
whose key matches. The query's own FILTER still decides, so results are the same with or
without the index (casefold equality holds whenever LCASE equality does); the index only saves
the scan. User queries never see the index graph (see `data_graphs`).

>>> store = ox.Store()
>>> c = ox.NamedNode("https://w3id.org/paperkg/resource/concept/llm")
>>> store.add(ox.Quad(c, ox.NamedNode(SKOS + "altLabel"), ox.Literal("LLMs")))
>>> build_label_index(store), index_size(store)
(1, 1)
>>> candidates(store, "llms") == [c]
True
>>> entry = ox.NamedNode("https://paperswithcode.com/method/transformer")
>>> store.add(ox.Quad(entry, ox.NamedNode(RDFS + "label"), ox.Literal("Transformer")))
>>> build_label_index(store), candidates(store, "TRANSFORMER") == [entry]
(2, True)
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import islice
from typing import cast

import pyoxigraph as ox

SKOS = "http://www.w3.org/2004/02/skos/core#"
INDEX_GRAPH = ox.NamedNode("https://w3id.org/paperkg/index")
LABEL_KEY = ox.NamedNode("https://w3id.org/paperkg/index#labelKey")

RDFS = "http://www.w3.org/2000/01/rdf-schema#"
# rdfs:label too: vocabulary entries (kg:VocabularyEntry) carry only that one.
_LABEL_PROPERTIES = (
    ox.NamedNode(SKOS + "prefLabel"), ox.NamedNode(SKOS + "altLabel"), ox.NamedNode(RDFS + "label")
)


def label_key(text: str) -> str:
    """The index key of a label: its Unicode case folding (equal LCASE implies equal keys)."""
    return text.casefold()


def data_graphs(store: ox.Store) -> list[ox.DefaultGraph | ox.NamedNode | ox.BlankNode]:
    """The graphs queries see as their default graph: all but the index graph."""
    return [ox.DefaultGraph(), *(g for g in store.named_graphs() if g != INDEX_GRAPH)]


#: Label keys handed to the store's bulk loader per call: its memory grows with what one call
#: gets (as `kg.query.store.LOAD_BATCH` for the graph), so a large graph's keys go in slices.
INDEX_BATCH = 250_000


def build_label_index(store: ox.Store) -> int:
    """Add a key for every skos:prefLabel/altLabel and rdfs:label of the store; returns how
    many it added (a key that two labels of one resource share counts once per slice of
    `INDEX_BATCH` labels it is found in).

    Idempotent (a store is a set), so adding to a store only needs another call; a store whose
    labels were removed needs the index graph dropped first.
    """
    keys = (
        (quad.subject, label_key(quad.object.value))
        for prop in _LABEL_PROPERTIES
        for quad in store.quads_for_pattern(None, prop, None)
        if isinstance(quad.subject, ox.NamedNode) and isinstance(quad.object, ox.Literal)
    )
    added = 0
    while batch := set(islice(keys, INDEX_BATCH)):
        store.bulk_extend(ox.Quad(c, LABEL_KEY, ox.Literal(key), INDEX_GRAPH)
                          for c, key in batch)
        added += len(batch)
    return added


def refresh_label_index(store: ox.Store, subjects: Iterable[ox.NamedNode]) -> None:
    """Make the index keys of `subjects` those of their labels now (after a load by difference
    changed them): the index is then the one `build_label_index` makes of the whole store."""
    for subject in subjects:
        for quad in list(store.quads_for_pattern(subject, LABEL_KEY, None, INDEX_GRAPH)):
            store.remove(quad)
        keys = {
            label_key(quad.object.value)
            for prop in _LABEL_PROPERTIES
            for quad in store.quads_for_pattern(subject, prop, None)
            if isinstance(quad.object, ox.Literal)
        }
        store.extend(ox.Quad(subject, LABEL_KEY, ox.Literal(key), INDEX_GRAPH) for key in keys)


def index_size(store: ox.Store) -> int:
    """The number of triples in the index graph."""
    query = f"SELECT (COUNT(*) AS ?n) WHERE {{ GRAPH {INDEX_GRAPH} {{ ?s ?p ?o }} }}"
    rows = cast(ox.QuerySolutions, store.query(query))
    return int(next(iter(rows))["n"].value)


def has_label_index(store: ox.Store) -> bool:
    """True when the store carries a label index."""
    return store.contains_named_graph(INDEX_GRAPH)


def candidates(store: ox.Store, text: str) -> list[ox.NamedNode]:
    """The resources (concepts, vocabulary entries) with a label equal to `text` ignoring
    case, sorted (from the index)."""
    key = ox.Literal(label_key(text))
    found = {
        quad.subject
        for quad in store.quads_for_pattern(None, LABEL_KEY, key, INDEX_GRAPH)
        if isinstance(quad.subject, ox.NamedNode)
    }
    return sorted(found, key=lambda node: node.value)
