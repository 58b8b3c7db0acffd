"""Corpus -> RDF triples, exactly as docs/VOCABULARY.md specifies.

The result is a sorted, deduplicated `list[pyoxigraph.Triple]` without blank nodes: the same
corpus always gives the same list, whatever the order of its dicts (see `kg.rdf.canonical`).
`Paper.extra` is never emitted: it holds personal data (e-mails, gender, ...).
"""

from __future__ import annotations

import logging
import os
import struct
import tempfile
from collections import defaultdict
from collections.abc import Iterator
from typing import IO
from urllib.parse import quote

from pyoxigraph import Literal, NamedNode, Triple

from kg import __version__
from kg.canon.paper_links import links_by_paper
from kg.collector import collector_paused
from kg.errors import InputError, KGError
from kg.ingest.shelf import PaperIndex, PaperShelf
from kg.namespaces import DEFAULT_BASE
from kg.rdf import terms as t
from kg.rdf.canonical import Block, Segments, TripleBuffer
from kg.rdf.decisions import add_decision_triples
from kg.rdf.iris import Iris, paper_key
from kg.rdf.links import add_vocabulary_links
from kg.rdf.ontology import ontology_triples
from kg.rdf.relations import add_relation_triples
from kg.rdf.reuse import range_digest
from kg.rdf.urls import is_code_host, web_iri
from kg.types import Concept, Corpus, Field, Link, Mention, Paper, Role, Span

logger = logging.getLogger(__name__)

SPILL_ENTRIES = 200_000
"""Triples of papers, concepts, people and links that wait in memory before the buffer writes
them to a sorted run on disk (`TripleBuffer(spill_at=...)`): about 25 MB (4,766 papers: 318 MB
peak against 365 MB with 1 M, as fast). A memory budget, not a tuning of the output: the graph
is the same bytes with any value. The 35k papers of `paperlists/` make about 4 M such entries
(~20 runs, one open file each while merged; 350k papers ~200); the example corpus a few
thousand (never spilled)."""


def build_triples(
    corpus: Corpus, base: str = DEFAULT_BASE, include_ontology: bool = True
) -> list[Triple]:
    """The RDF graph of a corpus as sorted pyoxigraph triples (ontology merged in if asked)."""
    with collector_paused():
        return list(iter_triples(corpus, base, include_ontology))


def iter_triples(
    corpus: Corpus, base: str = DEFAULT_BASE, include_ontology: bool = True,
    release_links: bool = False,
) -> Iterator[Triple]:
    """`build_triples` as a stream: the corpus is walked at the first `next()`, and each
    triple is made only as it is consumed (a writer streaming them to disk never holds
    them all; `kg.build` writes the graph this way). `release_links`: the writer takes the
    list `corpus.links` (leaving the corpus an empty one) and lets each paper's links go once
    it has read them (issue 14: their mentions are the largest part of a corpus; the writer
    keeps of them only what the graph needs, see `_GraphBuilder.build`)."""
    with collector_paused():
        out = TripleBuffer(spill_at=SPILL_ENTRIES)
        _GraphBuilder(corpus, Iris(base), out, release_links=release_links).build()
        if include_ontology:
            out.add_triples(ontology_triples())
    try:
        yield from out.iter_triples()
    finally:
        out.close()  # the builder and the corpus go with it (`TripleBuffer.close`)


def iter_segments(
    corpus: Corpus, base: str = DEFAULT_BASE, include_ontology: bool = True,
    release_links: bool = False,
) -> Segments:
    """`iter_triples` as the buffer's segments (`TripleBuffer.iter_segments`): each paper's
    evidence and sentence nodes, with whatever else lies under `<paper IRI>/`, are one
    `Region` carrying the digest of all they are made from, so that a writer can copy them
    from the previous graph when that digest is unchanged (`kg.rdf.reuse`). The corpus is
    walked when the segments or their ranges are first asked for (`Segments`)."""

    def fill() -> TripleBuffer:
        with collector_paused():
            out = TripleBuffer(spill_at=SPILL_ENTRIES)
            _GraphBuilder(corpus, Iris(base), out, release_links=release_links,
                          digests=True).build()
            if include_ontology:
                out.add_triples(ontology_triples())
        return out

    return Segments(fill)


def _const(node: NamedNode) -> tuple[NamedNode, str]:
    return node, node.value


_ARTICLE = _const(t.SCHEMA_SCHOLARLY_ARTICLE)
_COLLECTION = _const(t.SCHEMA_COLLECTION)
_PERSON = _const(t.SCHEMA_PERSON)
_SKOS_CONCEPT = _const(t.SKOS_CONCEPT)
_SCHEME = _const(t.SKOS_CONCEPT_SCHEME)
_EXTRACTOR = _const(t.KG_EXTRACTOR)
_AGENT = _const(t.PROV_SOFTWARE_AGENT)
_TYPE_CLASS = {ctype: _const(node) for ctype, node in t.TYPE_CLASS.items()}


class _GraphBuilder:
    """Walks a corpus once and adds every resource's triples to a `TripleBuffer`."""

    def __init__(
        self, corpus: Corpus, iris: Iris, out: TripleBuffer, release_links: bool = False,
        digests: bool = False,
    ) -> None:
        self.corpus = corpus
        self.digests = digests  # each paper's evidence range with its inputs' digest
        self.iris = iris
        self.out = out
        self.release_links = release_links
        self.papers = self._index_papers()  # a paper's IRI is made where needed (`Iris.paper`)
        self.concept_iri = iris.concepts(corpus.concepts)
        self.concept_node = {iri: NamedNode(iri) for iri in self.concept_iri.values()}
        self.extractors: dict[str, tuple[str, NamedNode]] = {}
        self.collections: set[tuple[str, str]] = set()  # (IRI, name) whose triples are added
        self.integers: dict[int, Literal] = {}
        # What a paper's packed evidence (`_pack_claims`) numbers: concept IRIs, extractors.
        self.concept_list = list(self.concept_node)
        self.concept_index = {iri: i for i, iri in enumerate(self.concept_list)}
        self.extractor_list: list[str] = []
        self.extractor_index: dict[str, int] = {}
        self.claims: IO[bytes]  # every paper's packed claims, in a temporary file (`build`)

    def build(self) -> None:
        # The links' triples now, and of their mentions only each paper's evidence, packed
        # (issue 14: the mentions are the largest part of a corpus and the evidence nodes are
        # written last, so the writer held every one of them until its last paper).
        paper_count: dict[str, int] = defaultdict(int)
        evidence: dict[str, tuple[int, int]] = {}  # paper key -> where its claims are
        names: set[str] = set()
        # Packed, to disk: the ranges hold where (issue 14: not a few hundred bytes a paper).
        claims = self.claims = tempfile.TemporaryFile(prefix="paperkg-evidence-")  # noqa: SIM115
        for key, paper_links in self._links_by_paper():
            s = self.iris.paper(key)
            for link in paper_links:
                paper_count[link.concept_key] += 1
                self._link(s, link)
            packed = self._pack_claims(key, paper_links, names)
            evidence[key] = (claims.tell(), len(packed))
            claims.write(packed)
        claims.flush()
        for key, paper in self.papers.items():
            try:
                self._paper(key, paper)
            except ValueError as exc:  # pyoxigraph refuses e.g. lone surrogates in a literal
                raise InputError(
                    f"paper {key!r} cannot be written as RDF ({exc}); "
                    "the reader must decode every field to valid Unicode",
                    source=paper.source,
                    record=paper.record,
                ) from exc
        self._concept_scheme()
        for concept_key, concept in self.corpus.concepts.items():
            try:
                self._concept(concept_key, concept, paper_count[concept_key])
            except ValueError as exc:
                raise KGError(
                    f"concept {concept_key!r} cannot be written as RDF ({exc}); "
                    "its labels must be valid Unicode"
                ) from exc
        self._evidence(evidence, names)
        add_vocabulary_links(self.corpus.matches, self.concept_iri, self.out)
        add_relation_triples(self.out, self.corpus, self.iris, self.concept_iri)
        add_decision_triples(self.out, self.corpus, self.iris, self.concept_iri)

    # -- inputs ---------------------------------------------------------------------------

    def _index_papers(self) -> PaperIndex:
        """The papers by key (`paper_key`), as positions, not papers: a `PaperShelf`'s papers
        are read as the writer reaches them. When every id of a shelf is given and unique,
        the keys are the ids and the shelf's own index by id is this map."""
        papers = self.corpus.papers
        if isinstance(papers, PaperShelf) and "" not in papers.by_id and (
                len(papers.by_id) == len(papers)):
            return papers.by_id
        index: dict[str, int] = {}
        for i, paper in enumerate(papers):
            key = paper_key(paper)
            at = index.get(key)
            if at is not None:
                first = papers[at]
                raise InputError(
                    f"paper id {key!r} also used by {first.source}, record {first.record}; "
                    "give every record a unique id or drop the duplicate",
                    source=paper.source,
                    record=paper.record,
                )
            index[key] = i
        return PaperIndex(papers, index)

    def _links_by_paper(self) -> Iterator[tuple[str, list[Link]]]:
        """Each paper's links, one per concept in the order the corpus first links it: the
        corpus's own `Link`s, not copies; a pair linked twice is one `Link` (the strongest
        role, every mention). A paper at a time, straight from `corpus.links` when each
        paper's links are consecutive there (as canonicalisation makes them), else through a
        map by paper (issue 14: not a list per paper for the whole corpus at once). With
        `release_links`, each paper's links are let go once taken."""
        links = self.corpus.links
        for link in links:
            self._check_link(link)
        if self.release_links:
            self.corpus.links = []
        for paper, group in links_by_paper(links, release=self.release_links):
            yield paper, _merged(group) if _repeats(group) else group

    def _check_link(self, link: Link) -> None:
        if link.paper_id not in self.papers:
            raise KGError(
                f"link to concept {link.concept_key!r} names paper {link.paper_id!r}, "
                "which is not in the corpus: canonicalisation must only link read papers"
            )
        if link.concept_key not in self.concept_iri:
            raise KGError(
                f"paper {link.paper_id!r} links to concept {link.concept_key!r}, which is "
                "not in corpus.concepts: canonicalisation must add every linked concept"
            )

    # -- papers ---------------------------------------------------------------------------

    def _paper(self, key: str, paper: Paper) -> None:
        s = self.iris.paper(key)
        add = self.out.add
        add(s, t.RDF_TYPE, *_ARTICLE)
        add(s, t.DCTERMS_IDENTIFIER, *t.str_term(key))
        if paper.title:
            add(s, t.DCTERMS_TITLE, *t.str_term(paper.title))
        if paper.abstract:
            add(s, t.DCTERMS_ABSTRACT, *t.str_term(paper.abstract))
        if paper.collection:
            collection = self.iris.collection(paper.collection)
            add(s, t.DCTERMS_IS_PART_OF, *t.iri_term(collection))
            if (collection, paper.collection) not in self.collections:  # not 2 entries a paper
                self.collections.add((collection, paper.collection))
                add(collection, t.RDF_TYPE, *_COLLECTION)
                add(collection, t.RDFS_LABEL, *t.str_term(paper.collection))
        authors = [name for name in paper.authors if name.strip()]
        for name in authors:
            person = self.iris.person(name)
            add(s, t.SCHEMA_AUTHOR, *t.iri_term(person))
            add(person, t.RDF_TYPE, *_PERSON)
            add(person, t.SCHEMA_NAME, *t.str_term(name))
        if authors:
            add(s, t.KG_AUTHOR_LIST, *t.str_term("; ".join(authors)))
        for keyword in paper.keywords:
            if keyword.strip():
                add(s, t.SCHEMA_KEYWORDS, *t.str_term(keyword))
        if paper.year is not None:
            year = gyear(paper.year)
            add(s, t.SCHEMA_DATE_PUBLISHED, Literal(year, datatype=t.XSD_GYEAR), year)
        if paper.venue:
            add(s, t.KG_VENUE, *t.str_term(paper.venue))
        if paper.status:
            add(s, t.KG_STATUS, *t.str_term(paper.status))
        for subject in paper.subjects:
            add(s, t.DCTERMS_SUBJECT, *t.str_term(subject))
        same = self._identifiers(s, paper)
        self._web_links(s, key, paper, same)

    def _identifiers(self, s: str, paper: Paper) -> set[str]:
        """DOI and arXiv id as literals, and their resolver IRIs as `schema:sameAs`."""
        same = set()
        for value, predicate, resolver in (
            (paper.doi, t.KG_DOI, "https://doi.org/"),
            (paper.arxiv_id, t.KG_ARXIV_ID, "https://arxiv.org/abs/"),
        ):
            if not value:
                continue
            self.out.add(s, predicate, *t.str_term(value))
            iri = web_iri(resolver + quote(value, safe="/:;()._-"))
            if iri is not None:
                self.out.add(s, t.SCHEMA_SAME_AS, *t.iri_term(iri))
                same.add(iri)
        return same

    def _web_links(self, s: str, key: str, paper: Paper, same: set[str]) -> None:
        page = None
        if paper.url:
            page = self._checked_url(key, paper, paper.url)
            if page:
                self.out.add(s, t.SCHEMA_URL, *t.iri_term(page))
        extraction = self.corpus.extractions.get(paper.id) or self.corpus.extractions.get(key)
        found = extraction.urls if extraction else ()
        for url in (*paper.links, *found):
            iri = self._checked_url(key, paper, url)
            if iri is None or iri == page or iri in same:
                continue
            predicate = t.SCHEMA_CODE_REPOSITORY if is_code_host(iri) else t.RDFS_SEE_ALSO
            self.out.add(s, predicate, *t.iri_term(iri))

    @staticmethod
    def _checked_url(key: str, paper: Paper, url: str) -> str | None:
        iri = web_iri(url)
        if iri is None:
            logger.warning(
                "paper %r (%s, record %d): skipped link %r: not a valid http(s) IRI",
                key, paper.source, paper.record, url,
            )  # fmt: skip
        return iri

    # -- links and concepts ---------------------------------------------------------------

    def _link(self, s: str, link: Link) -> None:
        concept = self.concept_iri[link.concept_key]
        obj = self.concept_node[concept]
        self.out.add(s, t.KG_MENTIONS, obj, concept)
        if link.role is not Role.MENTIONS:
            self.out.add(s, t.ROLE_PROPERTY[link.role], obj, concept)
        if any(m.span.field is Field.KEYWORDS for m in link.mentions):
            self.out.add(s, t.KG_HAS_KEYWORD, obj, concept)

    def _concept_scheme(self) -> None:
        add, scheme = self.out.add, self.iris.scheme
        add(scheme, t.RDF_TYPE, *_SCHEME)
        add(scheme, t.RDFS_LABEL, *t.str_term("paperkg concepts"))

    def _concept(self, concept_key: str, concept: Concept, papers: int) -> None:
        s = self.concept_iri[concept_key]
        add = self.out.add
        add(s, t.RDF_TYPE, *_SKOS_CONCEPT)
        add(s, t.RDF_TYPE, *_TYPE_CLASS[concept.ctype])
        add(s, t.SKOS_IN_SCHEME, *t.iri_term(self.iris.scheme))
        add(s, t.SKOS_PREF_LABEL, *t.str_term(concept.pref_label))
        add(s, t.RDFS_LABEL, *t.str_term(concept.pref_label))
        # SKOS makes prefLabel and altLabel disjoint; acronyms are alt labels too.
        for label in (*concept.alt_labels, *concept.acronyms):
            if label and label != concept.pref_label:
                add(s, t.SKOS_ALT_LABEL, *t.str_term(label))
        for acronym in concept.acronyms:
            if acronym:
                add(s, t.KG_ACRONYM, *t.str_term(acronym))
        add(s, t.KG_PAPER_COUNT, *t.int_term(papers))

    # -- evidence -------------------------------------------------------------------------

    def _pack_claims(self, key: str, links: list[Link], names: set[str]) -> bytes:
        """One paper's evidence claims (one per span and concept) as bytes, made from its
        merged links: per claim, what `_paper_evidence` needs of the mention that speaks for
        it (`_CLAIM`: concept, span, sentence, role, how many extractors) and the numbers of
        its mentions' extractors (`_AGENT_NUMBER`). The extractors of the mentions that are
        evidence are added to `names`; a mention that cannot be evidence is logged and left
        out."""
        paper = self.papers[key]
        claims: dict[Span, dict[str, list[Mention]]] = defaultdict(dict)
        for link in links:
            concept_key = link.concept_key
            for mention in link.mentions:
                problem = _mention_problem(paper, mention)
                if problem:
                    logger.warning(
                        "paper %r (%s, record %d): no evidence for %r at %s %d-%d: %s",
                        key, paper.source, paper.record, mention.text, mention.span.field.value,
                        mention.span.start, mention.span.end, problem,
                    )  # fmt: skip
                    continue
                names.add(mention.extractor)
                claims[mention.span].setdefault(concept_key, []).append(mention)
        packed = bytearray()
        for span, by_concept in claims.items():
            for concept_key, mentions in by_concept.items():
                first = mentions[0] if len(mentions) == 1 else min(mentions, key=_evidence_order)
                agents = sorted({self._extractor_number(m.extractor) for m in mentions})
                where = first.sentence  # in the span's field (`_mention_problem`)
                packed += _CLAIM.pack(
                    self.concept_index[self.concept_iri[concept_key]], _FIELDS[span.field],
                    span.start, span.end, where.start, where.end, _ROLES[first.role],
                    len(agents))
                for agent in agents:
                    packed += _AGENT_NUMBER.pack(agent)
        return bytes(packed)

    def _extractor_number(self, name: str) -> int:
        number = self.extractor_index.get(name)
        if number is None:
            number = self.extractor_index[name] = len(self.extractor_list)
            self.extractor_list.append(name)
        return number

    def _evidence(self, evidence: dict[str, tuple[int, int]], names: set[str]) -> None:
        """Each paper's evidence and sentence nodes (the bulk of the graph) as one lazy range
        of the buffer: made from the paper's packed claims only when the writer reaches the
        paper's IRI, so they are never all held at once."""
        for name in sorted(names):  # the extractors' own triples now, with the other subjects
            self._extractor(name)
        # One bound method for every range, and each paper's node made with its evidence
        # (issue 14: a node and a method object per paper held until the last range).
        make = self._paper_evidence
        for key, (offset, size) in evidence.items():
            self.out.add_lazy_range(self.iris.paper(key) + "/", make, key, offset, size,
                                    digest=self._range_digest(key, offset, size)
                                    if self.digests else None)

    def _range_digest(self, key: str, at: int, size: int) -> bytes:
        """A digest of everything `_paper_evidence(key, at, size)` makes its blocks from: the
        paper's IRI and texts, and its packed claims with each concept's IRI and each
        extractor's name in place of their numbers (which depend on the whole corpus)."""
        packed = os.pread(self.claims.fileno(), size, at)
        paper = self.papers[key]
        parts = [self.iris.paper(key), *(paper.text(f) for f in _FIELD_LIST)]
        concepts, names = self.concept_list, self.extractor_list
        offset, width = 0, _CLAIM.size
        while offset < size:
            concept, *_, n = _CLAIM.unpack_from(packed, offset)
            end = offset + width + n * _AGENT_NUMBER.size
            # The claim's other fields as they are packed (hex: a string like the rest).
            parts += (concepts[concept], packed[offset + 4 : offset + width].hex(),
                      *(names[number] for (number,) in _AGENT_NUMBER.iter_unpack(
                          packed[offset + width : end])))
            offset = end
        return range_digest(parts)

    def _paper_evidence(self, key: str, at: int, size: int) -> list[tuple[str, Block]]:
        """One paper's evidence nodes, one per span and concept, and their sentences' nodes,
        from its packed claims (`_pack_claims`), `size` bytes at `at` of the claims file."""
        # Read at its offset, not from the file's position: a process forked to make ranges
        # ahead of the writer shares that position (`kg.rdf.ahead`).
        packed = os.pread(self.claims.fileno(), size, at)
        claims: list[tuple[Span, int, Span, Role, list[int]]] = []
        offset = 0
        while offset < size:
            concept, field, start, end, s_start, s_end, role, n = _CLAIM.unpack_from(
                packed, offset)
            offset += _CLAIM.size
            agents = [number for (number,) in _AGENT_NUMBER.iter_unpack(
                packed[offset : offset + n * _AGENT_NUMBER.size])]
            offset += n * _AGENT_NUMBER.size
            span_field = _FIELD_LIST[field]
            claims.append((Span(span_field, start, end), concept,
                           Span(span_field, s_start, s_end), _ROLE_LIST[role], agents))
        blocks: list[tuple[str, Block]] = []
        sentences: dict[str, NamedNode] = {}
        paper_iri = self.iris.paper(key)
        paper_node = NamedNode(paper_iri)
        paper = self.papers[key]  # read once for its claims (from a shelf: read from disk)
        i = 0
        while i < len(claims):  # the claims of one span are consecutive
            j = i + 1
            while j < len(claims) and claims[j][0] == claims[i][0]:
                j += 1
            shared = j - i > 1
            for span, concept_number, where, role, agents in claims[i:j]:
                concept = self.concept_list[concept_number]
                suffix = concept.rpartition("/")[2] if shared else ""
                self._one_evidence(paper_iri, paper, paper_node, span, concept, where, role,
                                   agents, suffix, sentences, blocks)
            i = j
        return blocks

    def _one_evidence(
        self, paper_iri: str, paper: Paper, paper_node: NamedNode, span: Span, concept: str,
        where: Span, role: Role, agent_numbers: list[int], suffix: str,
        sentences: dict[str, NamedNode], blocks: list[tuple[str, Block]],
    ) -> None:
        """One evidence node (and its sentence's, the first time): its Triples are made
        directly in canonical order (a test checks the order), when the writer takes them."""
        sentence = Iris.sentence(paper_iri, where)
        sentence_node = sentences.get(sentence)
        new_sentence = sentence_node is None
        if sentence_node is None:
            sentence_node = sentences[sentence] = NamedNode(sentence)
        names = self.extractor_list
        if len(agent_numbers) == 1:
            agents = [self._extractor(names[agent_numbers[0]])[1]]
        else:
            agents = [n for _, n in sorted({self._extractor(names[a]) for a in agent_numbers})]
        # The mention's text is its span of the field (`_mention_problem` checked it).
        text = paper.text(span.field)[span.start : span.end]
        evidence = Iris.evidence(paper_iri, span, suffix)
        blocks.append((evidence, (_evidence_block, (
            evidence, tuple(agents), self.concept_node[concept], self._integer(span.end),
            t.FIELD_LITERAL[span.field], sentence_node, paper_node,
            t.ROLE_PROPERTY[role], self._integer(span.start), text))))
        if new_sentence:
            sentence_text = paper.text(where.field)[where.start : where.end]
            blocks.append((sentence, (_sentence_block, (
                sentence_node, self._integer(where.end), t.FIELD_LITERAL[where.field],
                self._integer(where.start), sentence_text))))

    def _integer(self, value: int) -> Literal:
        """An xsd:integer literal of an offset (offsets repeat: cached)."""
        literal = self.integers.get(value)
        if literal is None:
            literal = self.integers[value] = Literal(str(value), datatype=t.XSD_INTEGER)
        return literal

    def _extractor(self, name: str) -> tuple[str, NamedNode]:
        """(IRI, node) of an extractor; its own triples are added on first use."""
        agent = self.extractors.get(name)
        if agent is None:
            iri = self.iris.extractor(name, __version__)
            agent = self.extractors[name] = (iri, NamedNode(iri))
            add = self.out.add
            add(iri, t.RDF_TYPE, *_EXTRACTOR)
            add(iri, t.RDF_TYPE, *_AGENT)
            add(iri, t.RDFS_LABEL, *t.str_term(f"paperkg {name}"))
            add(iri, t.SCHEMA_SOFTWARE_VERSION, *t.str_term(__version__))
        return agent


# A packed evidence claim (`_GraphBuilder._pack_claims`): concept number, span field, start,
# end, sentence start, end, role, number of extractors; then each extractor's number.
_CLAIM = struct.Struct("<IBIIIIBB")
_AGENT_NUMBER = struct.Struct("<H")
_FIELD_LIST = list(Field)
_FIELDS = {f: i for i, f in enumerate(_FIELD_LIST)}
_ROLE_LIST = list(Role)
_ROLES = {r: i for i, r in enumerate(_ROLE_LIST)}


def _repeats(links: list[Link]) -> bool:
    """Whether a paper's links name a concept twice."""
    return len({link.concept_key for link in links}) < len(links)


def _merged(links: list[Link]) -> list[Link]:
    """One link per concept, where it first appears: the strongest role (the first of equal
    ones) and the mentions of every link of the pair, in order."""
    merged: dict[str, Link] = {}
    for link in links:
        old = merged.get(link.concept_key)
        if old is None:
            merged[link.concept_key] = link
        else:
            role = link.role if link.role.rank < old.role.rank else old.role
            merged[link.concept_key] = Link(old.paper_id, old.concept_key, role,
                                            old.mentions + link.mentions)
    return list(merged.values())


def _evidence_block(
    evidence: str, agents: tuple[NamedNode, ...], concept: NamedNode, end: Literal,
    field: Literal, sentence: NamedNode, paper: NamedNode, role: NamedNode, start: Literal,
    text: str,
) -> list[Triple]:
    """An evidence node's triples, in canonical order (a test checks the order)."""
    node = NamedNode(evidence)
    return [
        Triple(node, t.RDF_TYPE, t.KG_EVIDENCE),
        *[Triple(node, t.PROV_WAS_ATTRIBUTED_TO, agent) for agent in agents],
        Triple(node, t.KG_CONCEPT, concept),
        Triple(node, t.KG_END, end),
        Triple(node, t.KG_FIELD, field),
        Triple(node, t.KG_IN_SENTENCE, sentence),
        Triple(node, t.KG_PAPER, paper),
        Triple(node, t.KG_ROLE, role),
        Triple(node, t.KG_START, start),
        Triple(node, t.KG_TEXT, Literal(text)),
    ]


def _sentence_block(
    node: NamedNode, end: Literal, field: Literal, start: Literal, text: str
) -> list[Triple]:
    """A sentence node's triples, in canonical order."""
    return [
        Triple(node, t.RDF_TYPE, t.KG_SENTENCE),
        Triple(node, t.KG_END, end),
        Triple(node, t.KG_FIELD, field),
        Triple(node, t.KG_START, start),
        Triple(node, t.KG_TEXT, Literal(text)),
    ]


def _evidence_order(mention: Mention) -> tuple[int, int, int, str]:
    """Which of several mentions of one span speaks for it: strongest role first."""
    return mention.role.rank, mention.sentence.start, mention.sentence.end, mention.extractor


def _mention_problem(paper: Paper, mention: Mention) -> str | None:
    """Why a mention cannot be evidence (offsets off its field's text), or None."""
    span, sentence = mention.span, mention.sentence
    text = paper.text(span.field)
    if not 0 <= span.start < span.end <= len(text):
        return f"offsets outside the {span.field.value} ({len(text)} characters)"
    if text[span.start : span.end] != mention.text:
        return f"the {span.field.value} has {text[span.start : span.end]!r} there"
    if sentence.field is not span.field or not (
        0 <= sentence.start <= span.start and span.end <= sentence.end <= len(text)
    ):
        return f"sentence {sentence.field.value} {sentence.start}-{sentence.end} does not hold it"
    return None


def gyear(year: int) -> str:
    """The xsd:gYear lexical form of a year: at least four digits, a minus sign before years
    before 1 CE (XSD 1.1: 0000 is 1 BCE). Ingest keeps only years 1-9999; a `Paper` made in
    code may hold any.

    >>> gyear(2025), gyear(7), gyear(-1), gyear(0), gyear(12345)
    ('2025', '0007', '-0001', '0000', '12345')
    """
    return f"-{-year:04d}" if year < 0 else f"{year:04d}"
