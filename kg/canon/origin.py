"""`proposes` at corpus level means origin: the paper(s) that introduce a concept.

A paper's "we propose X" can mean "we introduce X" or "we propose to use X". One paper alone
cannot tell; the corpus can: a concept that more than `MAX_ORIGINS` papers link to is used by
most of them — at most `MAX_ORIGINS` can have introduced it — so only the papers whose text
*introduces* it keep `proposes`; the others use it (their link becomes `uses`; the mention's
own role stays in its evidence). "chain-of-thought" in 22 papers, "proposed" by one that
designs "a three-step CoT template", is used there.

A paper introduces a concept when (rule names as recorded in the graph):
- `title-name`: its title starts with one of the concept's names and a colon ("CRAFT: ..."),
  or with a coined name, a colon and the concept's name ("NLNL: Negative Learning for ...");
- `vocabulary-origin`: the vocabulary records it as the concept's introducing paper (same
  title or arXiv id, `kg.vocab.origins`; the preferred label or a long form is the method's
  name, not a short form alone), and it is not more than `PREPRINT_YEARS` later than the
  corpus's first use (a corpus can cite a preprint) — and the vocabulary records one work
  for the name: a name it records for two ("differentiable neural architecture search": DARTS
  and FBNet) is a family of methods neither introduced (`one_work`);
- `naming-cue`: a sentence names it: "called/named/dubbed/termed X" where the paper is the one
  naming — the words before the cue have the paper as the agent of a verb of making ("we
  propose a model for continual learning, called X") or offer something new ("a novel
  technique called X"); not "We study a subclass of these games, named X", "there exist
  perturbations, called X", "Recently, an approach, named X, has been proposed" — or "X, a
  novel/new ..."; not a name given before: "the so-called X", "a recent (or existing, popular,
  standard ...) subspace method called X";
- `novel-instance`: a sentence offers a new one of it ("a novel 3D representation", "a unified
  3D representation space": the paper's own) — but not of a concept more than `MAX_ORIGINS`
  papers link to: there it is one more of an established kind ("a new approximate Bayesian
  method", "a novel probabilistic convolutional sparse coding (CSC) model"). On all of
  paperlists the cue had kept, of such crowded concepts, 5 wrong origins in 6 (convolutional
  sparse coding, cross-modal knowledge distillation, Feature Fusion Module, difference-of-convex
  programming, approximate Bayesian method; right: panoptic quality).

`MAX_ORIGINS` = 2 comes from the data, not from examples: over all 35k paperlists papers
(`scripts/origin_threshold.py`), 98.1% of the names papers put before a colon in their title
are introduced by one paper and 99.7% by at most two (a re-used name, or a paper and its
extended version); more than two papers introducing one name is the 0.3% tail.

Two papers can introduce one name (`MAX_ORIGINS`), so a concept two papers link to keeps every
proposer when it is shaped like a coined name (`name_shaped`: "FooNet", "FLAIR", "YOLOv8");
a phrase ("Dilated Convolution", "Cross-attention module") another paper also links to is kept
only by a paper that introduces it.

A concept its papers write as an ordinary noun phrase (`common_noun`: most of its mentions
inside an abstract's sentences are all lower case — "fine-tuning", "training-free framework",
"citation") is not a name anyone introduced: once a second paper links to it, a paper keeps
`proposes` only where a sentence names it (`naming-cue`) and writes it as a name (not all lower
case: "named entity extraction" is no naming); a title about it ("Citation: ...") or "a novel
training-free framework" offers a new one of a kind, not the kind itself.

A concept more than `MAX_ORIGINS` papers link to, which a paper writes only in lower-case
words ("a novel framework called hierarchical federated learning (H-FL)"), is the term the
other papers use: a naming cue, or a title starting with the paper's abbreviation of it
("H-FL: A Hierarchical ..."), names the paper's version of it, not the term.

An origin comes first: of a concept more than `MAX_ORIGINS` papers link to, a paper published
after the first year in which a paper of the corpus links to it is not its origin (a 2024
"ChatGPT: ..." title is about ChatGPT; the corpus used it in 2023). And whatever the number of
papers: a paper more than `PREPRINT_YEARS` later than the introducing paper the vocabulary
records (all of them, when several methods share the name) is not the origin of that method
(a 2023 "Barlow Graph Auto-Encoder" does not introduce the 2021 Barlow Twins, even as the only
paper of the corpus "proposing" it). `PREPRINT_YEARS` = 1 comes from the data: of the 262
paperlists papers that introduced a Papers-with-Code method, 98.6% appeared in their
preprint's year or the next (`scripts/origin_threshold.py`).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import replace

from kg.types import CanonDecision, Concept, Field, Link, Mention, Paper, Role
from kg.vocab.origins import Origin, Origins, title_key

MAX_ORIGINS = 2
# A paper appears within this many years of its preprint: over the 262 paperlists papers that
# introduced a Papers-with-Code method, 98.6% appeared the preprint's year or the next
# (`scripts/origin_threshold.py`, second table).
PREPRINT_YEARS = 1
RULE = "origin"
RECORDED_RULE = "origin-recorded"  # links given `proposes`: the vocabulary names the paper
TITLE_NAME = "title-name"
NAMING_CUE = "naming-cue"
NOVEL_INSTANCE = "novel-instance"
VOCABULARY = "vocabulary-origin"
KEPT = "proposes"  # nothing cut the role (in a decision's list of the papers that kept it)

_BEFORE = re.compile(r"\b(called|named|dubbed|termed|coined|namely)\s*[\"'“‘]?\s*$", re.I)
# A name given before this paper: "the so-called X", "a recent subspace method called X".
_PRIOR_NAME = re.compile(
    r"(\bso-?\s*|\b(recent|recently proposed|existing|previous|prior|popular|well-known|"
    r"classical|classic|standard|conventional|established|traditional)\s+(?:[\w-]+\s+){0,3})"
    r"(called|named|dubbed|termed|coined)\s*[\"'“‘]?\s*$", re.I)
_NOVEL = re.compile(r"\b(novel|new|unified)\s+(?:[\w-]+\s+){0,2}$", re.I)
_AFTER = re.compile(
    r"^\s*(\([^()]{1,20}\)\s*)?[,:]?\s*(which is |that is )?(a|an)\s+(\w+[\s-]+){0,2}?"
    r"(novel|new|first)\b", re.I)
# "called X" names X for the paper only when the paper is the one naming: the words before the
# cue have the paper as agent of a verb of making ("we propose a model ..., called X"), or offer
# something new ("a novel technique called X"); not "We study a subclass of these games, named
# X", "there exist perturbations, called X", "Recently, an approach, named X, has been ...".
_AGENT = re.compile(r"\b(we|our|us|this (paper|work|article|study|note)|here(in)?)\b", re.I)
_MAKING = re.compile(
    r"\b(propos|present|introduc|develop|design|devis|build|built|creat|construct|formulat|"
    r"offer|put forward|call|nam|term|dub|coin|refer)\w*", re.I)
_NEW = re.compile(r"\b(novel|new|first)\b", re.I)
# "a novel OOD detection method for neural networks, GEM, which ...": a name in apposition to
# something offered as new (the mirror of `_AFTER`'s "GEM, a novel method").
_NEW_APPOSITION = re.compile(r"\b(an?|our)\s+(novel|new)\b[^.;:()\[\]]{0,80},\s*$", re.I)


def introduction(paper: Paper, link: Link, concept: Concept) -> str | None:
    """The rule by which `paper` introduces the linked concept, or None."""
    title = (paper.title or "").strip()
    head, colon, rest = title.partition(":")
    if colon and head:
        names = {concept.pref_label, *concept.alt_labels, *concept.acronyms}
        names |= {m.text for m in link.mentions}
        folded = {n.casefold() for n in names}
        if head.strip().casefold() in folded:
            return TITLE_NAME
        if name_shaped(head.strip()) and _leads(rest.strip().casefold(), folded):
            return TITLE_NAME  # "NLNL: Negative Learning for Noisy Labels"
    found = vocabulary_origins(concept)
    if one_work(found) and any(origin.is_paper(paper.title, paper.arxiv_id) for origin in found):
        return VOCABULARY
    for mention in link.mentions:
        if mention.span.field is Field.KEYWORDS:
            continue
        text = paper.text(mention.span.field)
        prefix = text[mention.sentence.start: mention.span.start]
        before = prefix[-40:]
        after = text[mention.span.end: min(mention.sentence.end, mention.span.end + 60)]
        cue = _BEFORE.search(before)
        if (cue and not _PRIOR_NAME.search(before)
                and _names_it(prefix[: len(prefix) - len(before) + cue.start()])):
            return NAMING_CUE
        if _AFTER.match(after):
            return NAMING_CUE
        if _NOVEL.search(before):
            return NOVEL_INSTANCE
    return None


def names_here(paper: Paper, mention: Mention, labels: Iterable[str] = ()) -> bool:
    """Whether the paper gives this name itself where it writes it: a naming cue with the paper
    as namer, "X, a novel ...", "a novel ..., X", or a short form in parentheses after the
    words it stands for in a sentence whose agent makes something ("we propose an effective
    "disentangling the skeleton from the details" (DSD) module") — not after one of `labels`,
    the concept's own names ("we propose ... reinforcement learning (RL)").

    >>> from kg.types import ConceptType, Span
    >>> def at(text, name):
    ...     start = text.index(name)
    ...     span = Span(Field.ABSTRACT, start, start + len(name))
    ...     sentence = Span(Field.ABSTRACT, 0, len(text))
    ...     found = Mention(name, name, span, sentence, ConceptType.METHOD, Role.USES, "rules")
    ...     return names_here(Paper("p", text), found)
    >>> at("We propose a pluggable skeleton-details (SKD) module.", "SKD")
    True
    >>> at("We use a deep residual network (ResNet).", "ResNet")
    False
    >>> at("It motivates a novel detection method for networks, GEMX, which works.", "GEMX")
    True
    """
    if mention.span.field is Field.KEYWORDS:
        return False
    text = paper.text(mention.span.field)
    prefix = text[mention.sentence.start: mention.span.start]
    before = prefix[-40:]
    after = text[mention.span.end: min(mention.sentence.end, mention.span.end + 60)]
    cue = _BEFORE.search(before)
    if cue and not _PRIOR_NAME.search(before):
        return _names_it(prefix[: len(prefix) - len(before) + cue.start()])
    if _AFTER.match(after) or _NEW_APPOSITION.search(prefix):
        return True
    words = prefix.rstrip()[:-1].rstrip().casefold()
    return (prefix.rstrip().endswith("(") and after.lstrip().startswith(")")
            and _names_it(words) and not any(words.endswith(label.casefold())
                                             for label in labels if label))


def _names_it(words: str) -> bool:
    """Whether the words before a naming cue make the paper the one naming: an agent of a verb
    of making, or something offered as new (see `_AGENT`)."""
    return bool((_AGENT.search(words) and _MAKING.search(words)) or _NEW.search(words))


_PHRASE_END = re.compile(r"^(\s*[,:;.?!-]|\s+(for|with|via|in|on|of|to|from|using|by|"
                         r"through|towards?|beyond|and|as|at)\b|\s*$)")


def _leads(text: str, names: set[str]) -> bool:
    """Whether `text` starts with one of `names` as its whole first noun phrase: followed by
    punctuation, a preposition or the end ("negative learning for noisy labels"; not
    "multi-branch volumetric semantic completion", where the name only modifies the phrase)."""
    return any(text.startswith(n) and _PHRASE_END.match(text[len(n):]) for n in names if n)


def vocabulary_origins(concept: Concept) -> tuple[Origin, ...]:
    """The introducing papers the vocabulary records for the concept's labels (`kg.vocab.
    origins`); not for a coined name of one word ("GEM", "MoNet", "RAM"), which names too many
    different things: "MoNet: Moments Embedding Network" (2018) and "RAM: Retrieval-Based
    Affordance Transfer" (2024) are not the 2016 MoNet or the 2014 RAM the vocabulary records."""
    origins = Origins.load()
    found: dict[str, Origin] = {}
    for label in (concept.pref_label, *concept.alt_labels):
        if _short(label):
            continue
        for origin in origins.lookup(label):
            found.setdefault(origin.source_id, origin)
    return tuple(found[k] for k in sorted(found))


def _short(label: str) -> bool:
    return " " not in label.strip() and name_shaped(label)


def common_noun(mentions: Iterable[Mention]) -> bool:
    """Whether the mentions write the concept as an ordinary noun phrase: more of those inside
    an abstract's sentences (where case is the writer's choice, not the title's or the
    sentence's) are all lower case than not.

    >>> from kg.types import ConceptType, Role, Span
    >>> def at(text, start):
    ...     return Mention(text, text, Span(Field.ABSTRACT, start, start + len(text)),
    ...                    Span(Field.ABSTRACT, 0, 99), ConceptType.METHOD, Role.USES, "rules")
    >>> common_noun([at("training-free framework", 9), at("Training-free framework", 0)])
    True
    >>> common_noun([at("FooNet", 9), at("foonet", 20)]), common_noun([at("fine-tuning", 0)])
    (False, False)
    """
    lower = other = 0
    for mention in mentions:
        if mention.span.field is not Field.ABSTRACT or mention.span.start == mention.sentence.start:
            continue
        text = mention.text
        if text == text.lower() and any(ch.isalpha() for ch in text):
            lower += 1
        else:
            other += 1
    return lower > other


def origin_roles(
    links: list[Link], concepts: Mapping[str, Concept], papers: Mapping[str, Paper]
) -> tuple[list[Link], list[CanonDecision]]:
    """Links with `proposes` kept only by the papers that introduce a concept others link to
    too (see the module docstring), and one decision per concept whose proposers were cut."""
    proposers = Counter(link.concept_key for link in links if link.role is Role.PROPOSES)
    linked = Counter(link.concept_key for link in links)
    mentions: dict[str, list[Mention]] = defaultdict(list)
    for link in links:
        if proposers[link.concept_key] and linked[link.concept_key] > 1:
            mentions[link.concept_key].extend(link.mentions)
    common = {key for key, found in mentions.items() if common_noun(found)}
    crowded = {key for key in proposers if linked[key] > MAX_ORIGINS}
    # Two papers may both introduce a name ("FooNet"), not a phrase ("Dilated Convolution"):
    # a shared concept not shaped like a name needs an introduction too.
    shared = {key for key in proposers if linked[key] > 1
              and not name_shaped(concepts[key].pref_label)}
    checked = crowded | common | shared
    # What the vocabulary records as introduced earlier: a later paper is not its origin.
    recorded = {key: found for key in proposers if (found := vocabulary_origins(concepts[key]))}
    promoted: dict[str, list[str]] = defaultdict(list)  # concept -> papers given `proposes`
    first_year: dict[str, int] = {}
    for link in links:
        if link.concept_key in crowded and (year := papers[link.paper_id].year) is not None:
            first_year[link.concept_key] = min(year, first_year.get(link.concept_key, year))
    kept: dict[str, list[str]] = {key: [] for key in checked | set(recorded)}
    before: dict[str, tuple[Origin, ...]] = {}  # concepts a proposer of lost the role to them
    # Concept key -> the one work the vocabulary records as introducing it, or (): looked up
    # once a key, not once a link (issue 14).
    sole: dict[str, tuple[Origin, ...]] = {}
    out: list[Link] = []
    for link in links:
        key = link.concept_key
        if link.role is not Role.PROPOSES:
            work = sole.get(key)
            if work is None:
                found = vocabulary_origins(concepts[key])
                work = sole[key] = found if one_work(found) else ()
            if work and _introduced_here(papers[link.paper_id], work):
                link = replace(link, role=Role.PROPOSES)
                promoted[key].append(f"{link.paper_id} ({VOCABULARY})")
        elif key in checked or key in recorded:
            paper = papers[link.paper_id]
            found = recorded.get(key, ())
            rule = introduction(paper, link, concepts[key])
            if (one_work(found) and any(origin.is_paper(paper.title, paper.arxiv_id)
                                        for origin in found)
                    and (paper.year or 0) <= first_year.get(key, paper.year or 0) + PREPRINT_YEARS):
                rule = VOCABULARY  # the paper the vocabulary names, not long after a first use
            elif _recorded_before(found, paper.year):
                rule = None
                before[key] = found
            elif key not in checked:
                rule = rule or KEPT  # one paper, or two a coined name: nothing cuts it
            elif key in common and not (rule == NAMING_CUE and _written_as_name(link)):
                rule = None
            elif (key in crowded and _named_in_lower_case(link) and (
                    rule == NAMING_CUE
                    or (rule == TITLE_NAME and _title_names_short(paper, link)))):
                rule = None  # "H-FL: ..., a framework called hierarchical federated learning"
            elif rule is not None and (paper.year or 0) > first_year.get(key, paper.year or 0):
                rule = None  # the corpus used it before this paper
            elif rule == NOVEL_INSTANCE and key in crowded:
                rule = None  # "a novel X" of what most papers use: one more of a kind
            if rule is None:
                link = replace(link, role=Role.USES)
            else:
                kept[key].append(f"{link.paper_id} ({rule})")
        out.append(link)
    decisions = [
        CanonDecision(key, RULE, tuple(sorted(kept[key])), proposers[key] - len(kept[key]),
                      _note(linked[key], proposers[key], len(kept[key]), key in common,
                            before.get(key, ()), key in checked))
        for key in sorted(kept) if proposers[key] > len(kept[key])
    ]
    decisions += [
        CanonDecision(key, RECORDED_RULE, tuple(found), len(found),
                      f"the vocabulary records {_works(vocabulary_origins(concepts[key]))} as "
                      "the work introducing it: the paper proposes it, whatever its sentences "
                      "made of the role")
        for key, found in sorted(promoted.items())
    ]
    decisions.sort(key=lambda d: d.concept_key)
    return out, decisions


def _introduced_here(paper: Paper, work: tuple[Origin, ...]) -> bool:
    """Whether the paper (its title or arXiv id) is `work`, the one work the vocabulary records
    as introducing a concept: a paper that introduced a method now well known often writes it
    as something it uses ("the novel X algorithm allows ..."), and only a vocabulary knows it
    was new there ("Unbiased Online Recurrent Optimization", 2018, for UORO)."""
    return any(o.is_paper(paper.title, paper.arxiv_id) for o in work)


def _works(origins: tuple[Origin, ...]) -> str:
    return "; ".join(f"{o.title} ({o.year})" for o in origins)


def one_work(origins: tuple[Origin, ...]) -> bool:
    """Whether the vocabulary's introducing papers of a name are one work: a name it records
    for two different works ("differentiable neural architecture search": DARTS and FBNet) is
    a family of methods, which neither introduced.

    >>> a = Origin("pwc/a", "DARTS: Differentiable Architecture Search", None, 2018)
    >>> b = Origin("pwc/b", "FBNet: Hardware-Aware ConvNet Design", None, 2018)
    >>> c = Origin("pwc/c", "FBNet: hardware-aware  ConvNet design", None, 2018)
    >>> one_work((a,)), one_work((a, b)), one_work((b, c)), one_work(())
    (True, False, True, False)
    """
    return len({title_key(o.title) for o in origins}) == 1


def _recorded_before(origins: tuple[Origin, ...], year: int | None) -> bool:
    """Whether every introducing paper the vocabulary records for a concept is dated and came
    out more than `PREPRINT_YEARS` before `year`."""
    years = [origin.year for origin in origins]
    return (year is not None and bool(years) and None not in years
            and year > max(y for y in years if y is not None) + PREPRINT_YEARS)


_CAMEL = re.compile(r"[a-z][A-Z]|[A-Za-z][0-9]")


def name_shaped(label: str) -> bool:
    """Written as a coined name: a word in capitals ("FLAIR", "SGD"), with a capital inside
    ("GenRES", "FooNet", "3DzAL") or a digit after a letter ("YOLOv8", "C3D").

    >>> [name_shaped(x) for x in ["FooNet", "FLAIR", "YOLOv8", "Dilated Convolution", "3D loss"]]
    [True, True, True, False, False]
    """
    for word in re.split(r"[\s\-/]+", label):
        letters = [ch for ch in word if ch.isalpha()]
        if (len(letters) > 1 and all(ch.isupper() for ch in letters)) or _CAMEL.search(word):
            return True
    return False


def _written_as_name(link: Link) -> bool:
    """The paper writes the concept with a capital somewhere in its text (not only where a
    title or a sentence start capitalises it)."""
    return any(m.span.field is Field.ABSTRACT and m.span.start != m.sentence.start
               and m.text != m.text.lower() for m in link.mentions)


def _named_in_lower_case(link: Link) -> bool:
    """The paper writes the concept's name only in lower-case words inside its abstract's
    sentences, one of them a phrase ("a novel framework called hierarchical federated learning
    (H-FL)"): a description, the term other papers use, not a coined name. Its abbreviations
    (upper case by nature) and sentence-initial words say nothing of that.

    >>> from kg.types import ConceptType, Span
    >>> def at(text, start=9, long=None):
    ...     return Mention(text, text, Span(Field.ABSTRACT, start, start + len(text)),
    ...                    Span(Field.ABSTRACT, 0, 99), ConceptType.METHOD, Role.USES, "rules",
    ...                    long)
    >>> def link(*mentions):
    ...     return Link("p", "k", Role.PROPOSES, mentions)
    >>> lower = _named_in_lower_case
    >>> lower(link(at("tiered edge learning"), at("TEL", 40, "tiered edge learning")))
    True
    >>> lower(link(at("Tiered Edge Learning"))), lower(link(at("tel")))
    (False, False)
    """
    written = [m.text for m in link.mentions if m.span.field is Field.ABSTRACT
               and m.span.start != m.sentence.start and m.long_form is None]
    return (bool(written) and all(t == t.lower() for t in written)
            and any(" " in t.strip() for t in written))


def _title_names_short(paper: Paper, link: Link) -> bool:
    """The title starts with the paper's abbreviation of the concept and a colon ("H-FL: A
    Hierarchical ..."), not with the concept's name ("CosFace: Large Margin Cosine Loss")."""
    head, colon, _ = (paper.title or "").partition(":")
    short = head.strip().casefold()
    return bool(colon) and any(m.long_form is not None and m.text.casefold() == short
                               for m in link.mentions)


def _note(linked: int, proposers: int, kept: int, common: bool,
          recorded: tuple[Origin, ...] = (), checked: bool = True) -> str:
    if not checked:
        why = f"{proposers} of the {linked} papers linking to it propose it"
    elif common:
        why = (f"{linked} papers link to it and write it as an ordinary noun phrase; "
               f"{proposers} propose it; {kept} name it (called X, X, a new ...)")
    elif linked > MAX_ORIGINS:
        why = (f"{linked} papers link to it, more than the {MAX_ORIGINS} that can introduce "
               f"one name, and {proposers} propose it; {kept} introduce it (none later than "
               "the first year it is used)")
    else:
        why = (f"{linked} papers link to it and it is a phrase, not a coined name; "
               f"{proposers} propose it; {kept} introduce it")
    if recorded:
        why += (f"; the vocabulary records it as introduced by {_works(recorded)}: a paper "
                f"more than {PREPRINT_YEARS} year later is not its origin")
    return why + " and keep the role, the others use it"
