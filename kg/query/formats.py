"""Writing query results: the SPARQL 1.1 results formats, RDF for graphs, a terminal table.

SELECT/ASK results are written as SPARQL 1.1 JSON, XML, CSV or TSV with the standard library's
json, xml.etree and csv writers (one code path for every engine, so the same result gives the
same bytes); graphs (CONSTRUCT/DESCRIBE) are sorted and written by pyoxigraph.
"""

from __future__ import annotations

import csv
import io
import json
import re
from enum import StrEnum
from xml.etree import ElementTree as ET

import pyoxigraph as ox

from kg.errors import QueryError
from kg.namespaces import DEFAULT_BASE, PREFIXES
from kg.query.result import QueryResult
from kg.query.terms import XSD, XSD_STRING, Term


class ResultFormat(StrEnum):
    """An output format; `media_type` is what an HTTP server sends it as."""

    TABLE = "table"
    JSON = "json"
    XML = "xml"
    CSV = "csv"
    TSV = "tsv"
    TURTLE = "turtle"
    NTRIPLES = "ntriples"
    RDFXML = "rdfxml"

    @property
    def media_type(self) -> str:
        return _MEDIA_TYPES[self]

    @property
    def for_graphs(self) -> bool:
        """True for the RDF formats that CONSTRUCT/DESCRIBE results are written in."""
        return self in (ResultFormat.TURTLE, ResultFormat.NTRIPLES, ResultFormat.RDFXML)


_MEDIA_TYPES = {
    ResultFormat.TABLE: "text/plain; charset=utf-8",
    ResultFormat.JSON: "application/sparql-results+json",
    ResultFormat.XML: "application/sparql-results+xml",
    ResultFormat.CSV: "text/csv; charset=utf-8",
    ResultFormat.TSV: "text/tab-separated-values; charset=utf-8",
    ResultFormat.TURTLE: "text/turtle",
    ResultFormat.NTRIPLES: "application/n-triples",
    ResultFormat.RDFXML: "application/rdf+xml",
}
_RDF_FORMATS = {
    ResultFormat.TURTLE: ox.RdfFormat.TURTLE,
    ResultFormat.NTRIPLES: ox.RdfFormat.N_TRIPLES,
    ResultFormat.RDFXML: ox.RdfFormat.RDF_XML,
}
SPARQL_RESULTS_NS = "http://www.w3.org/2005/sparql-results#"

# What XML 1.0 cannot hold (controls other than tab/newline/CR, lone surrogates, U+FFFE, U+FFFF)
# plus the other Unicode noncharacters (U+FDD0..U+FDEF, U+1FFFE, ...): no escape makes them
# well-formed, so the XML writers put U+FFFD in their place. A graph built by `kg build` holds
# none (ingest drops them); one loaded from elsewhere may.
_PLANE_ENDS = "".join(chr(plane + end) for plane in range(1 << 16, 17 << 16, 1 << 16)
                      for end in (0xFFFE, 0xFFFF))
_NOT_XML = re.compile(
    f"[^\t\n\r\x20-\ud7ff\ue000-\ufdcf\ufdf0-\ufffd\U00010000-\U0010ffff]|[{_PLANE_ENDS}]"
)
# What a terminal acts on: C0/C1 controls (ESC starts colour and cursor sequences, BEL rings)
# and the bidirectional overrides/isolates that reorder what is shown.
_TERMINAL_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def xml_safe(text: str) -> str:
    r"""`text` with every character XML cannot hold replaced by U+FFFD.

    >>> xml_safe("bell\x07 \ufffe ok \ufdd0") == "bell\ufffd \ufffd ok \ufffd"
    True
    """
    return _NOT_XML.sub("\ufffd", text)


def terminal_safe(text: str) -> str:
    r"""`text` with control characters written as escapes, so that a terminal shows them
    instead of acting on them.

    >>> print(terminal_safe("red\x1b[31m bell\x07 \u202eflip"))
    red\x1b[31m bell\x07 \u202eflip
    """
    return _TERMINAL_CONTROL.sub(_escaped, text)


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def default_format(result: QueryResult) -> ResultFormat:
    """A table for SELECT/ASK, Turtle for graphs."""
    return ResultFormat.TURTLE if result.is_graph else ResultFormat.TABLE


def serialize(result: QueryResult, fmt: ResultFormat, *, max_width: int = 60) -> bytes:
    """The result in `fmt`; `QueryError` when the format does not fit the query form."""
    if result.is_graph:
        if not fmt.for_graphs:
            raise QueryError(
                f"a {result.form} result is a graph: use --format turtle, ntriples or rdfxml"
            )
        return write_graph(result.triples, fmt)
    if fmt.for_graphs:
        raise QueryError(
            f"a {result.form} result is not a graph: use --format table, csv, tsv, json or xml"
        )
    writer = {
        ResultFormat.TABLE: lambda r: write_table(r, max_width=max_width),
        ResultFormat.JSON: write_json,
        ResultFormat.XML: write_xml,
        ResultFormat.CSV: write_csv,
        ResultFormat.TSV: write_tsv,
    }[fmt]
    return writer(result).encode("utf-8")


def write_graph(triples: list[ox.Triple], fmt: ResultFormat) -> bytes:
    """Triples sorted (deterministic output), with the contract's prefixes for Turtle."""
    ordered = sorted(set(triples), key=lambda t: (str(t.subject), str(t.predicate), str(t.object)))
    if fmt is ResultFormat.RDFXML:
        ordered = [_xml_safe_triple(t) for t in ordered]
    prefixes = PREFIXES if fmt is ResultFormat.TURTLE else None
    data = ox.serialize(ordered, format=_RDF_FORMATS[fmt], prefixes=prefixes)
    assert data is not None  # no output file given: pyoxigraph returns the bytes
    return data


def _xml_safe_triple(triple: ox.Triple) -> ox.Triple:
    """The triple with its literal writable in XML: pyoxigraph's RDF/XML writer copies
    characters as they are. IRIs, blank nodes and language tags cannot hold such characters
    (pyoxigraph refuses them)."""
    obj = triple.object
    if not isinstance(obj, ox.Literal) or not _NOT_XML.search(obj.value):
        return triple
    value = xml_safe(obj.value)
    safe = (
        ox.Literal(value, language=obj.language)
        if obj.language
        else ox.Literal(value, datatype=obj.datatype)
    )
    return ox.Triple(triple.subject, triple.predicate, safe)


def _json_term(term: Term) -> dict[str, str]:
    if isinstance(term, ox.NamedNode):
        return {"type": "uri", "value": term.value}
    if isinstance(term, ox.BlankNode):
        return {"type": "bnode", "value": term.value}
    out = {"type": "literal", "value": term.value}
    if term.language:
        out["xml:lang"] = term.language
    elif term.datatype != XSD_STRING:
        out["datatype"] = term.datatype.value
    return out


def write_json(result: QueryResult) -> str:
    """SPARQL 1.1 Query Results JSON."""
    if result.form == "ASK":
        return json.dumps({"head": {}, "boolean": bool(result.boolean)}) + "\n"
    bindings = [
        {
            name: _json_term(term)
            for name, term in zip(result.variables, row, strict=True)
            if term is not None
        }
        for row in result.rows
    ]
    document = {"head": {"vars": list(result.variables)}, "results": {"bindings": bindings}}
    return json.dumps(document, ensure_ascii=False) + "\n"


def write_xml(result: QueryResult) -> str:
    """SPARQL Query Results XML."""
    root = ET.Element("sparql", xmlns=SPARQL_RESULTS_NS)
    head = ET.SubElement(root, "head")
    if result.form == "ASK":
        ET.SubElement(root, "boolean").text = "true" if result.boolean else "false"
    else:
        for name in result.variables:
            ET.SubElement(head, "variable", name=name)
        results = ET.SubElement(root, "results")
        for row in result.rows:
            solution = ET.SubElement(results, "result")
            for name, term in zip(result.variables, row, strict=True):
                if term is None:
                    continue
                binding = ET.SubElement(solution, "binding", name=name)
                if isinstance(term, ox.NamedNode):
                    ET.SubElement(binding, "uri").text = term.value
                elif isinstance(term, ox.BlankNode):
                    ET.SubElement(binding, "bnode").text = term.value
                else:
                    literal = ET.SubElement(binding, "literal")
                    literal.text = xml_safe(term.value)
                    if term.language:
                        literal.set("xml:lang", term.language)
                    elif term.datatype != XSD_STRING:
                        literal.set("datatype", term.datatype.value)
    body = ET.tostring(root, encoding="unicode")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + body + "\n"


def _csv_value(term: Term | None) -> str:
    if term is None:
        return ""
    if isinstance(term, ox.BlankNode):
        return f"_:{term.value}"
    return term.value


def write_csv(result: QueryResult) -> str:
    """SPARQL 1.1 CSV: plain values, CRLF line ends; an ASK answer is `true` or `false`."""
    if result.form == "ASK":
        return "true\r\n" if result.boolean else "false\r\n"
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(result.variables)
    writer.writerows([_csv_value(term) for term in row] for row in result.rows)
    return out.getvalue()


def write_tsv(result: QueryResult) -> str:
    """SPARQL 1.1 TSV: terms in N-Triples syntax (written by pyoxigraph), `?var` headers."""
    if result.form == "ASK":
        return "true\n" if result.boolean else "false\n"
    lines = ["\t".join(f"?{name}" for name in result.variables)]
    lines.extend("\t".join("" if t is None else str(t) for t in row) for row in result.rows)
    return "\n".join(lines) + "\n"


_NUMERIC = {XSD + name for name in ("integer", "decimal", "double", "float", "int", "long")}


def compact(term: Term | None) -> str:
    """A short form for tables: prefixed IRIs, resource IRIs relative to the default base.

    >>> compact(ox.NamedNode("https://w3id.org/paperkg/ontology#uses"))
    'kg:uses'
    >>> compact(ox.NamedNode("https://w3id.org/paperkg/resource/concept/lqca"))
    'concept/lqca'
    """
    if term is None:
        return ""
    if isinstance(term, ox.NamedNode):
        iri = term.value
        if iri.startswith(DEFAULT_BASE):
            return iri[len(DEFAULT_BASE) :]
        for prefix, namespace in PREFIXES.items():
            if iri.startswith(namespace) and len(iri) > len(namespace):
                return f"{prefix}:{iri[len(namespace) :]}"
        return iri
    if isinstance(term, ox.BlankNode):
        return f"_:{term.value}"
    text = term.value
    return f"{text}@{term.language}" if term.language else text


def write_table(result: QueryResult, *, max_width: int = 60) -> str:
    """An aligned text table; cells longer than `max_width` are cut with '…'."""
    if result.form == "ASK":
        return ("true" if result.boolean else "false") + "\n"
    headers = list(result.variables)
    cells = [
        [_cut(terminal_safe(" ".join(compact(t).split())), max_width) for t in row]
        for row in result.rows
    ]
    numeric = [
        bool(result.rows) and all(_is_number_or_none(row[i]) for row in result.rows)
        for i in range(len(headers))
    ]
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(headers)]

    def line(values: list[str]) -> str:
        parts = [
            v.rjust(w) if num else v.ljust(w)
            for v, w, num in zip(values, widths, numeric, strict=True)
        ]
        return "  ".join(parts).rstrip()

    out = [line(headers), "  ".join("-" * w for w in widths)]
    out.extend(line(row) for row in cells)
    return "\n".join(out) + "\n"


def _is_number_or_none(term: Term | None) -> bool:
    return term is None or (isinstance(term, ox.Literal) and term.datatype.value in _NUMERIC)


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(width - 1, 1)] + "…"
