"""One declarative table per source: where each paper field is in that source's records.

A new source is a new `Table` here (and, if its records are not JSON, CSV or one of the parsed
formats, a small reader); `detect` picks the table of a record by its keys. Records no table
matches are read by field name (`kg.ingest.records`: `id`, `title`, `abstract`, ...).

Shapes follow each tool's documentation: OpenAlex Work objects
(docs.openalex.org/api-entities/works/work-object), the Semantic Scholar Graph API and its
datasets (api.semanticscholar.org/api-docs), the arXiv metadata snapshot (Kaggle
"arxiv-metadata-oai-snapshot.json") and API Atom feed (info.arxiv.org/help/api/user-manual),
OpenReview notes (API v1 and v2, `content.title.value`), CSL-JSON (citationstyles.org), Zotero's
CSV export, RIS as rispy names its tags, and MEDLINE (.nbib) tags.

>>> detect({"id": "https://openalex.org/W1", "abstract_inverted_index": {}}).name
'openalex'
>>> detect({"title": "A", "abstract": "B"}) is None
True
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kg.ingest import convert as c
from kg.ingest.mapping import Field, Table


def _keys(*sets: str) -> tuple[frozenset[str], ...]:
    """Signatures written as "a, b, c" strings of required keys."""
    return tuple(frozenset(key.strip() for key in s.split(",")) for s in sets)


OPENALEX = Table(
    "openalex",
    signatures=_keys("abstract_inverted_index", "authorships", "publication_year, display_name"),
    fields={
        "id": Field("id", convert=c.openalex_id),
        "title": Field("title", "display_name"),
        "abstract": Field("abstract_inverted_index", convert=c.inverted_index),
        "authors": Field("authorships[].author.display_name", "authorships[].raw_author_name"),
        "year": Field("publication_year", "publication_date", convert=c.year),
        "venue": Field("primary_location.source.display_name", "host_venue.display_name"),
        "doi": Field("doi", "ids.doi", convert=c.doi),
        "arxiv": Field("locations[].landing_page_url", "primary_location.landing_page_url",
                       convert=c.arxiv_id_in),
        "subjects": Field("keywords[].display_name", "topics[].display_name",
                          "concepts[].display_name"),
        "url": Field("primary_location.landing_page_url", "doi"),
        "links": Field("primary_location.pdf_url", "best_oa_location.pdf_url"),
    },
)  # fmt: skip

SEMANTIC_SCHOLAR = Table(
    "semantic-scholar",
    signatures=_keys("paperId", "corpusId, externalIds", "corpusid"),
    fields={
        "id": Field("paperId", "corpusId", "corpusid"),
        "title": Field("title"),
        "abstract": Field("abstract"),
        "authors": Field("authors[].name"),
        "year": Field("year", "publicationDate", "publicationdate", convert=c.year),
        "venue": Field("venue", "publicationVenue.name", "journal.name"),
        "doi": Field("externalIds.DOI", "externalids.DOI", convert=c.doi),
        "arxiv": Field("externalIds.ArXiv", "externalids.ArXiv", convert=c.arxiv_id),
        "subjects": Field("fieldsOfStudy", "s2FieldsOfStudy[].category",
                          "s2fieldsofstudy[].category"),
        "url": Field("url"),
        "links": Field("openAccessPdf.url", "openaccessinfo.url"),
    },
)  # fmt: skip

ARXIV_SNAPSHOT = Table(
    "arxiv-snapshot",
    signatures=_keys("versions, update_date", "authors_parsed", "submitter, categories"),
    fields={
        "id": Field("id"),
        "title": Field("title", convert=c.latex),
        "abstract": Field("abstract", convert=c.latex),
        "authors": Field("authors", convert=c.and_list),
        "year": Field("versions[0].created", "update_date", convert=c.year),
        "venue": Field("journal-ref", convert=c.latex),
        "doi": Field("doi", convert=c.doi),
        "arxiv": Field("id", convert=c.arxiv_id),
        "subjects": Field("categories", convert=c.words),
        "url": Field("id", convert=lambda v: f"https://arxiv.org/abs/{v}"),
    },
)

ARXIV_ATOM = Table(
    "arxiv-atom",
    marker="arxiv-atom",
    fields={
        "id": Field("id", convert=c.arxiv_id),
        "title": Field("title", convert=c.latex),
        "abstract": Field("summary", convert=c.latex),
        "authors": Field("authors", convert=c.latex),
        "year": Field("published", convert=c.year),
        "venue": Field("journal_ref", convert=c.latex),
        "doi": Field("doi", convert=c.doi),
        "arxiv": Field("id", convert=c.arxiv_id),
        "subjects": Field("categories"),
        "url": Field("alternate", "id"),
        "links": Field("pdf"),
    },
)

# API v2 wraps every content value in {"value": …}; API v1 does not: the v2 path comes first.
OPENREVIEW = Table(
    "openreview",
    signatures=_keys("content, forum", "content, invitation", "content, invitations"),
    fields={
        "id": Field("forum", "id"),
        "title": Field("content.title.value", "content.title"),
        "abstract": Field("content.abstract.value", "content.abstract", "content.TL;DR.value"),
        "authors": Field("content.authors.value", "content.authors"),
        # The venue ("ICLR 2024 poster") names the conference year; dates are of the note.
        "year": Field("content.venue.value", "content.venue", "pdate", "cdate", "tcdate",
                      convert=c.year),
        "venue": Field("content.venue.value", "content.venue"),
        "keywords": Field("content.keywords.value", "content.keywords"),
        "url": Field("forum", "id", convert=c.openreview_url),
        "links": Field("content.pdf.value", "content.pdf", convert=c.openreview_pdf),
    },
)  # fmt: skip

CSL_JSON = Table(
    "csl-json",
    signatures=_keys("issued", "container-title", "citation-key"),
    fields={
        "id": Field("citation-key", "id"),
        "title": Field("title"),
        "abstract": Field("abstract"),
        "authors": Field("author", convert=c.csl_names),
        "year": Field("issued", "event-date", convert=c.year),
        "venue": Field("container-title", "event-title", "event"),
        "doi": Field("DOI", convert=c.doi),
        "arxiv": Field("number", "note", "URL", "DOI", convert=c.arxiv_id_in),
        "keywords": Field("keyword", convert=c.comma_list),
        "url": Field("URL"),
    },
)

ZOTERO_CSV = Table(
    "zotero-csv",
    signatures=_keys("Key, Item Type", "Abstract Note", "Publication Year", "Manual Tags"),
    fields={
        "id": Field("Key"),
        "title": Field("Title"),
        "abstract": Field("Abstract Note"),
        "authors": Field("Author", convert=c.last_first),
        "year": Field("Publication Year", "Date", convert=c.year),
        "venue": Field("Publication Title", "Proceedings Title", "Conference Name"),
        "doi": Field("DOI", convert=c.doi),
        "arxiv": Field("Extra", "Archive ID", "Url", "DOI", "Report Number",
                       convert=c.arxiv_id_in),
        "keywords": Field("Manual Tags", convert=c.semicolon_list),
        "subjects": Field("Automatic Tags", convert=c.semicolon_list),
        "url": Field("Url"),
    },
)  # fmt: skip

RIS = Table(
    "ris",
    marker="ris",
    fields={
        "id": Field("id", "accession_number", "label"),
        "title": Field("title", "primary_title", "translated_title", convert=c.first),
        "abstract": Field("abstract", "notes_abstract"),
        "authors": Field("authors", "first_authors", convert=c.last_first),
        "year": Field("year", "publication_year", "date", convert=c.year),
        "venue": Field("secondary_title", "journal_name", "alternate_title3", "alternate_title1",
                       "alternate_title2"),
        "doi": Field("doi", convert=c.doi),
        "arxiv": Field("urls", "doi", "notes", "note", convert=c.arxiv_id_in),
        "keywords": Field("keywords"),
        "url": Field("urls", convert=c.first),
        "links": Field("file_attachments1", "file_attachments2"),
    },
)  # fmt: skip

MEDLINE = Table(
    "medline",
    marker="medline",
    fields={
        "id": Field("PMID", convert=c.first),
        "title": Field("TI", convert=c.first),
        "abstract": Field("AB", convert=c.first),
        "authors": Field("FAU", "AU", convert=c.last_first),
        "year": Field("DP", "DEP", convert=lambda v: c.year(c.first(v))),
        "venue": Field("JT", "TA", convert=c.first),
        "doi": Field("LID", "AID", convert=c.doi),
        "keywords": Field("OT"),
        "subjects": Field("MH"),
        "url": Field("PMID", convert=lambda v: f"https://pubmed.ncbi.nlm.nih.gov/{c.first(v)}/"),
    },
)

# Most specific first: a record is read with the first table it matches.
TABLES: tuple[Table, ...] = (
    RIS, MEDLINE, ARXIV_ATOM, OPENALEX, SEMANTIC_SCHOLAR, ARXIV_SNAPSHOT, OPENREVIEW, CSL_JSON,
    ZOTERO_CSV,
)  # fmt: skip


def detect(record: Mapping[str, Any]) -> Table | None:
    """The table of the first source whose signature `record` has, else None (field names)."""
    for table in TABLES:
        if table.matches(record):
            return table
    return None
