"""Content negotiation: which results format answers a request's Accept header.

Hand-written because the standard library has no Accept parser and this is all the server
needs from a web framework: media ranges with q-values and wildcards, ties broken by the
server's order of preference.

>>> choose("text/csv, application/sparql-results+json;q=0.5", graph=False)
<ResultFormat.CSV: 'csv'>
>>> choose("*/*", graph=True)
<ResultFormat.TURTLE: 'turtle'>
>>> choose("image/png", graph=False) is None
True
"""

from __future__ import annotations

from kg.query.formats import ResultFormat

# Server preference first; each format answers several media types.
RESULT_TYPES: list[tuple[ResultFormat, tuple[str, ...]]] = [
    (ResultFormat.JSON, ("application/sparql-results+json", "application/json")),
    (ResultFormat.XML, ("application/sparql-results+xml", "application/xml", "text/xml")),
    (ResultFormat.CSV, ("text/csv",)),
    (ResultFormat.TSV, ("text/tab-separated-values",)),
]
GRAPH_TYPES: list[tuple[ResultFormat, tuple[str, ...]]] = [
    (ResultFormat.TURTLE, ("text/turtle", "application/x-turtle")),
    (ResultFormat.NTRIPLES, ("application/n-triples", "text/plain")),
    (ResultFormat.RDFXML, ("application/rdf+xml",)),
]


def _ranges(accept: str) -> list[tuple[str, float]]:
    ranges = []
    for part in accept.split(","):
        media, *options = (piece.strip() for piece in part.split(";"))
        if not media:
            continue
        quality = 1.0
        for option in options:
            key, _, value = option.partition("=")
            if key.strip().lower() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        ranges.append((media.lower(), quality))
    return ranges


def _quality(media_type: str, ranges: list[tuple[str, float]]) -> float:
    """The q-value of the most specific range that matches `media_type` (0 when none)."""
    kind = media_type.split("/")[0]
    best: tuple[int, float] = (-1, 0.0)
    for media, quality in ranges:
        if media == media_type:
            specificity = 2
        elif media == f"{kind}/*":
            specificity = 1
        elif media == "*/*":
            specificity = 0
        else:
            continue
        if specificity > best[0]:
            best = (specificity, quality)
    return best[1]


def choose(accept: str | None, *, graph: bool) -> ResultFormat | None:
    """The best format for an Accept header (None when nothing offered is acceptable)."""
    offers = GRAPH_TYPES if graph else RESULT_TYPES
    if not accept or not accept.strip():
        return offers[0][0]
    ranges = _ranges(accept)
    best: tuple[float, ResultFormat | None] = (0.0, None)
    for fmt, media_types in offers:
        quality = max(_quality(media, ranges) for media in media_types)
        if quality > best[0]:
            best = (quality, fmt)
    return best[1]


def offered(*, graph: bool) -> list[str]:
    """The media types the server can send for this kind of result (for a 406 message)."""
    offers = GRAPH_TYPES if graph else RESULT_TYPES
    return [media_types[0] for _, media_types in offers]


def from_name(name: str, *, graph: bool) -> ResultFormat | None:
    """A `format=` request parameter: a short name (csv) or a media type (text/csv)."""
    value = name.strip().lower()
    for fmt, media_types in GRAPH_TYPES if graph else RESULT_TYPES:
        if value == fmt.value or value in media_types:
            return fmt
    return None
