"""kg.extract.roles: what a sentence proposes, compares with, evaluates on, addresses, uses.

The role rules read the dependency parse. The docs here carry a parse written by hand
(`parse`: the one en_core_web_sm gives where that is right), so the tests check the rules and
not the statistical parser; test_extract_sample.py checks them on the real parser's output.
"""

from __future__ import annotations

import pytest
import spacy
from spacy.language import Language
from spacy.tokens import Doc

from kg.extract import roles
from kg.extract.tokenizer import install_name_tokens
from kg.types import Role


@pytest.fixture(scope="module")
def nlp() -> Language:
    blank = spacy.blank("en")
    install_name_tokens(blank)
    return blank


def parse(nlp: Language, text: str, spec: str) -> Doc:
    """`text` tokenized, with a hand-written parse: one `POS:dep:head[:lemma]` per token."""
    tokens = nlp(text)
    rows = [item.split(":") for item in spec.split()]
    assert len(rows) == len(tokens), [t.text for t in tokens]
    return Doc(
        nlp.vocab,
        words=[t.text for t in tokens],
        spaces=[bool(t.whitespace_) for t in tokens],
        pos=[r[0] for r in rows],
        deps=[r[1] for r in rows],
        heads=[int(r[2]) for r in rows],
        lemmas=[r[3] if len(r) > 3 else t.lower_ for r, t in zip(rows, tokens, strict=True)],
    )


def texts(doc: Doc, indices: set[int]) -> list[str]:
    return [doc[i].text for i in sorted(indices)]


def by_role(doc: Doc) -> dict[str, list[str]]:
    """token_roles as role -> the words holding it, in text order."""
    out: dict[str, list[str]] = {}
    for i, role in sorted(roles.token_roles(doc).items()):
        out.setdefault(role.value, []).append(doc[i].text)
    return out


@pytest.fixture(scope="module")
def dei(nlp: Language) -> Doc:
    return parse(nlp, "We propose DEI, a framework that leverages their unique expertise.",
                 "PRON:nsubj:1 VERB:ROOT:1 PROPN:dobj:1 PUNCT:punct:2 DET:det:5 NOUN:appos:2 "
                 "PRON:nsubj:7 VERB:relcl:5:leverage PRON:poss:10 ADJ:amod:10 NOUN:dobj:7 "
                 "PUNCT:punct:1")


def test_proposes_the_object_not_its_apposition_or_clause(dei: Doc) -> None:
    assert texts(dei, roles.proposed_tokens(dei)) == ["DEI"]
    assert by_role(dei) == {"proposes": ["DEI"], "uses": ["their", "unique", "expertise"]}


def test_proposes_a_whole_compound_object(nlp: Language) -> None:
    doc = parse(nlp, "In this paper, we introduce the Long Question Coreference Adaptation "
                     "method.",
                "ADP:prep:5 DET:det:2 NOUN:pobj:0 PUNCT:punct:5 PRON:nsubj:5 VERB:ROOT:5 "
                "DET:det:11 PROPN:compound:8 PROPN:compound:10 PROPN:compound:10 "
                "NOUN:compound:11 NOUN:dobj:5 PUNCT:punct:5")
    assert texts(doc, roles.proposed_tokens(doc)) == [
        "the", "Long", "Question", "Coreference", "Adaptation", "method",
    ]


def test_proposes_needs_the_authors_as_subject(nlp: Language) -> None:
    doc = parse(nlp, "Prior work introduced LoRA.",
                "ADJ:amod:1 NOUN:nsubj:2 VERB:ROOT:2:introduce PROPN:dobj:2 PUNCT:punct:2")
    assert roles.proposed_tokens(doc) == set()
    doc = parse(nlp, "This work introduces Diff-PIC.",
                "DET:det:1 NOUN:nsubj:2 VERB:ROOT:2:introduce PROPN:dobj:2 PUNCT:punct:2")
    assert texts(doc, roles.proposed_tokens(doc)) == ["Diff-PIC"]


def test_passive_proposal_in_this_paper(nlp: Language) -> None:
    doc = parse(nlp, "A new sampler is proposed in this paper.",
                "DET:det:2 ADJ:amod:2 NOUN:nsubjpass:4 AUX:auxpass:4:be VERB:ROOT:4:propose "
                "ADP:prep:4 DET:det:7 NOUN:pobj:5 PUNCT:punct:4")
    assert texts(doc, roles.proposed_tokens(doc)) == ["A", "new", "sampler"]


def test_proposal_on_a_conjoined_verb(nlp: Language) -> None:
    doc = parse(nlp, "We analyze the data and then introduce GraphX .",
                "PRON:nsubj:1 VERB:ROOT:1 DET:det:3 NOUN:dobj:1:datum CCONJ:cc:1 ADV:advmod:6 "
                "VERB:conj:1 PROPN:dobj:6 PUNCT:punct:1")
    assert texts(doc, roles.proposed_tokens(doc)) == ["GraphX"]


def test_novel_apposition_proposes_its_head(nlp: Language) -> None:
    doc = parse(nlp, "We propose FiSAO, a novel self-alignment method.",
                "PRON:nsubj:1 VERB:ROOT:1 PROPN:dobj:1 PUNCT:punct:2 DET:det:9 ADJ:amod:9 "
                "NOUN:compound:8 PUNCT:punct:8 NOUN:compound:9 NOUN:appos:2 PUNCT:punct:1")
    assert texts(doc, roles.proposed_tokens(doc)) == ["FiSAO"]


def test_container_noun_introduces_its_of_complement(nlp: Language) -> None:
    doc = parse(nlp, "We propose the principle of interaction asymmetry.",
                "PRON:nsubj:1 VERB:ROOT:1 DET:det:3 NOUN:dobj:1 ADP:prep:3 NOUN:compound:6 "
                "NOUN:pobj:4 PUNCT:punct:1")
    assert texts(doc, roles.introduced_tokens(doc)) == ["interaction", "asymmetry"]
    assert texts(doc, roles.proposed_tokens(doc)) == [
        "the", "principle", "of", "interaction", "asymmetry",
    ]


def test_quoted_term_is_introduced(nlp: Language) -> None:
    doc = parse(nlp, 'We introduce the concept of the "unfair region" in the latent space.',
                "PRON:nsubj:1 VERB:ROOT:1 DET:det:3 NOUN:dobj:1 ADP:prep:3 DET:det:8 "
                "PUNCT:punct:8 ADJ:amod:8 NOUN:pobj:4 PUNCT:punct:8 ADP:prep:8 DET:det:13 "
                "ADJ:amod:13 NOUN:pobj:10 PUNCT:punct:1")
    assert texts(doc, roles.introduced_tokens(doc)) == ["the", "unfair", "region"]
    proposed = texts(doc, roles.proposed_tokens(doc))
    assert "region" in proposed and "space" not in proposed


def test_naming_pattern_proposes_a_capitalised_name(nlp: Language) -> None:
    doc = parse(nlp, "Heads that focus on recent tokens, referred to as Streaming Heads, do not "
                     "require full attention.",
                "NOUN:nsubj:7:head PRON:nsubj:2 VERB:relcl:0 ADP:prep:2 ADJ:amod:5 "
                "NOUN:pobj:3:token PUNCT:punct:0 VERB:ROOT:7:refer ADP:prep:7 ADP:prep:7 "
                "PROPN:compound:11 PROPN:pobj:9 PUNCT:punct:7 AUX:aux:15 PART:neg:15 "
                "VERB:conj:7 ADJ:amod:17 NOUN:dobj:15 PUNCT:punct:7")
    assert by_role(doc) == {"proposes": ["Streaming", "Heads"],
                            "addresses": ["recent", "tokens"]}


def test_naming_pattern_without_authors_or_capital_proposes_nothing(nlp: Language) -> None:
    doc = parse(nlp, "A phenomenon called grokking appears.",
                "DET:det:1 NOUN:nsubj:4 VERB:acl:1:call NOUN:oprd:2 VERB:ROOT:4:appear "
                "PUNCT:punct:4")
    assert roles.proposed_tokens(doc) == set()


@pytest.mark.parametrize(
    ("text", "spec", "compared"),
    [
        ("DSI is provably faster than speculative inference.",
         "PROPN:nsubj:1 AUX:ROOT:1:be ADV:advmod:1 ADJ:acomp:1:fast ADP:prep:3 ADJ:amod:6 "
         "NOUN:pobj:4 PUNCT:punct:1", ["speculative", "inference"]),
        ("Our method outperforms IRM-TV in most situations.",
         "PRON:poss:1 NOUN:nsubj:2 VERB:ROOT:2:outperform NOUN:dobj:2 ADP:prep:2 ADJ:amod:6 "
         "NOUN:pobj:4:situation PUNCT:punct:2", ["IRM-TV"]),
        ("Compared with Adagrad, our optimizer converges faster.",
         "VERB:prep:6:compare ADP:prep:0 PROPN:pobj:1 PUNCT:punct:6 PRON:poss:6 "
         "NOUN:compound:6 VERB:ROOT:6:converge ADV:advmod:6:fast PUNCT:punct:6", ["Adagrad"]),
        ("Baselines such as LoRA and DoRA are weaker.",
         "NOUN:nsubj:6:baseline ADJ:amod:2 ADP:prep:0 PROPN:pobj:2 CCONJ:cc:3 PROPN:conj:3 "
         "AUX:ROOT:6:be ADJ:acomp:6:weak PUNCT:punct:6", ["LoRA", "DoRA"]),
    ],
    ids=["than", "outperform", "compared-with", "baselines"],
)
def test_compared_with(nlp: Language, text: str, spec: str, compared: list[str]) -> None:
    doc = parse(nlp, text, spec)
    assert texts(doc, roles.compared_tokens(doc)) == compared


def test_comparison_overrides_proposal(nlp: Language) -> None:
    doc = parse(nlp, "We propose DSI, which is faster than SI.",
                "PRON:nsubj:1 VERB:ROOT:1 PROPN:dobj:1 PUNCT:punct:2 PRON:nsubj:5 "
                "AUX:relcl:2:be ADJ:acomp:5:fast ADP:prep:6 PROPN:pobj:7 PUNCT:punct:1")
    assert by_role(doc) == {"proposes": ["DSI"], "comparesWith": ["SI"]}


def test_evaluated_on_in_an_experiment_sentence(nlp: Language) -> None:
    doc = parse(nlp, "Experiments on SWE-Bench Lite show large gains.",
                "NOUN:nsubj:4:experiment ADP:prep:0 PROPN:compound:3 PROPN:pobj:1 VERB:ROOT:4 "
                "ADJ:amod:6 NOUN:dobj:4:gain PUNCT:punct:4")
    assert texts(doc, roles.evaluated_tokens(doc)) == ["SWE-Bench", "Lite"]


def test_on_outside_an_evaluation_sentence_is_not_evaluation(nlp: Language) -> None:
    doc = parse(nlp, "Agents rely on tools.",
                "NOUN:nsubj:1:agent VERB:ROOT:1 ADP:prep:1 NOUN:pobj:2:tool PUNCT:punct:1")
    assert roles.evaluated_tokens(doc) == set()


def test_settings_list_is_evaluated_on(nlp: Language) -> None:
    doc = parse(nlp, "We study this in three challenging settings -- autonomous driving, "
                     "humanoid locomotion, and dexterous manipulation.",
                "PRON:nsubj:1 VERB:ROOT:1 PRON:dobj:1 ADP:prep:1 NUM:nummod:6 ADJ:amod:6 "
                "NOUN:pobj:3:setting PUNCT:punct:6 ADJ:amod:9 NOUN:appos:6 PUNCT:punct:9 "
                "NOUN:compound:12 NOUN:conj:9 PUNCT:punct:12 CCONJ:cc:12 ADJ:amod:16 "
                "NOUN:conj:12 PUNCT:punct:1")
    evaluated = texts(doc, roles.evaluated_tokens(doc))
    assert {"driving", "locomotion", "manipulation"} <= set(evaluated)


def test_addressed(nlp: Language) -> None:
    doc = parse(nlp, "We tackle the misalignment problem in VLLMs.",
                "PRON:nsubj:1 VERB:ROOT:1 DET:det:4 NOUN:compound:4 NOUN:dobj:1 ADP:prep:4 "
                "NOUN:pobj:5:vllm PUNCT:punct:1")
    assert texts(doc, roles.addressed_tokens(doc)) == ["the", "misalignment", "problem"]
    doc = parse(nlp, "We focus on long-context understanding.",
                "PRON:nsubj:1 VERB:ROOT:1 ADP:prep:1 ADJ:amod:5 PUNCT:punct:5 NOUN:compound:6 "
                "NOUN:pobj:2 PUNCT:punct:1")
    assert texts(doc, roles.addressed_tokens(doc)) == [
        "long", "-", "context", "understanding",
    ]


def test_used(nlp: Language) -> None:
    doc = parse(nlp, "We leverage coreference resolution to bridge context gaps.",
                "PRON:nsubj:1 VERB:ROOT:1 NOUN:compound:3 NOUN:dobj:1 PART:aux:5 "
                "VERB:advcl:1 NOUN:compound:7 NOUN:dobj:5:gap PUNCT:punct:1")
    assert texts(doc, roles.used_tokens(doc)) == ["coreference", "resolution"]
    doc = parse(nlp, "Our method is based on contrastive learning.",
                "PRON:poss:1 NOUN:nsubjpass:3 AUX:auxpass:3:be VERB:ROOT:3:base ADP:prep:3 "
                "ADJ:amod:6 NOUN:pobj:4 PUNCT:punct:3")
    assert texts(doc, roles.used_tokens(doc)) == ["contrastive", "learning"]


def test_x_based_proposal_uses_x(nlp: Language) -> None:
    doc = parse(nlp, "We build a Transformer-based VAE with a novel regularizer.",
                "PRON:nsubj:1 VERB:ROOT:1 DET:det:6 PROPN:npadvmod:5 PUNCT:punct:5 "
                "VERB:amod:6:base PROPN:dobj:1 ADP:prep:1 DET:det:10 ADJ:amod:10 NOUN:pobj:7 "
                "PUNCT:punct:1")
    assert texts(doc, roles.based_on_tokens(doc)) == ["Transformer"]
    token_roles = roles.token_roles(doc)
    assert token_roles[6] is Role.PROPOSES  # VAE
    assert token_roles[3] is Role.USES  # Transformer
