"""The real extraction pipeline (English model + gazetteer) on sentences of the sample corpus.

One `Extractor` per module (loading it takes seconds); marked `model`, and `dev`: these pin
exact answers on sentences of the sample corpus (development checks, they run in CI).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kg.extract import Extractor, extract_urls
from kg.extract.names import name_spans
from kg.extract.roles import token_roles
from kg.extract.textfix import repair
from kg.ingest import read_papers
from kg.types import ConceptType, Extraction, Field, Paper, Role

pytestmark = [pytest.mark.model, pytest.mark.dev]

CHATQA = (
    "In this work, we introduce ChatQA 2, an Llama 3.0-based model with a 128K context window, "
    "designed to bridge the gap between open-source LLMs and leading proprietary models (e.g., "
    "GPT-4-Turbo-2024-04-09) in long context un- derstanding and retrieval-augmented "
    "generation (RAG) capabilities. We present a detailed continued training recipe to extend "
    "the context window of Llama3- 70B-base from 8K to 128K tokens, along with a three-stage "
    "instruction tun- ing process to enhance the model’s instruction-following, RAG "
    "performance, and long-context understanding capabilities. Our results demonstrate that "
    "the Llama3-ChatQA-2-70B model outperforms most existing state-of-the-art models, "
    "including GPT-4-Turbo-2024-04-09, Qwen2-72B-Instruct, and Llama3.1-70B- Instruct, on "
    "ultra-long tasks beyond 100K tokens."
)
DSI = (
    "This paper introduces *distributed speculative inference (DSI)*, a novel inference "
    "algorithm that is provably faster than speculative inference (SI) [leviathan2023, "
    "chen2023, miao2024, sun2025, timor2025] and standard autoregressive inference (non-SI). "
    "DSI leverages *speculation parallelism (SP)*, a novel type of task parallelism."
)
FISAO = (
    "In this paper, we propose FiSAO (Fine-Grained Self-Alignment Optimization), a novel "
    "self-alignment method that utilizes the model’s own visual encoder as a fine-grained "
    "verifier. Our code is avaliable at \\url{https://anonymous.4open.science/r/FISAO-57F0/}."
)


@pytest.fixture(scope="module")
def extractor() -> Extractor:
    return Extractor.load()


@pytest.fixture(scope="module")
def sample(extractor: Extractor) -> dict[str, tuple[Paper, Extraction]]:
    papers = [
        Paper(id="chatqa", abstract=CHATQA, title="ChatQA 2: Bridging the Gap to Proprietary "
                                                   "LLMs in Long Context and RAG"),
        Paper(id="dsi", abstract=DSI),
        Paper(id="fisao", abstract=FISAO),
    ]
    extractions = list(extractor.extract_all(papers))
    return {p.id: (p, x) for p, x in zip(papers, extractions, strict=True)}


def labels(extraction: Extraction) -> set[str]:
    return {m.label for m in extraction.mentions}


def extract_one(extractor: Extractor, abstract: str) -> Extraction:
    return extractor.extract(Paper(id="t", abstract=abstract))


def test_every_mention_points_into_the_text_as_stored(
    sample: dict[str, tuple[Paper, Extraction]],
) -> None:
    for paper, extraction in sample.values():
        assert extraction.paper_id == paper.id
        assert extraction.mentions
        for m in extraction.mentions:
            text = paper.text(m.span.field)
            assert text[m.span.start : m.span.end] == m.text, m
            assert m.sentence.field is m.span.field
            assert m.sentence.start <= m.span.start < m.span.end <= m.sentence.end <= len(text)
        for s in extraction.sentences:
            assert 0 <= s.start < s.end <= len(paper.text(s.field))


def test_mentions_across_repaired_breaks_keep_the_broken_text(
    sample: dict[str, tuple[Paper, Extraction]],
) -> None:
    _, extraction = sample["chatqa"]
    surface = {m.text: m.label for m in extraction.mentions}
    assert surface["Llama3- 70B-base"] == "Llama3-70B-base"
    assert surface["Llama3.1-70B- Instruct"] == "Llama3.1-70B-Instruct"
    broken = [m for m in extraction.mentions if "tun- ing" in m.text]
    assert broken and all(m.label == repair(m.text).text for m in broken)
    assert "un- derstanding" not in labels(extraction)


def test_sample_names_are_whole_labels(sample: dict[str, tuple[Paper, Extraction]]) -> None:
    found = labels(sample["chatqa"][1])
    for name in ("ChatQA 2", "Llama 3.0", "GPT-4-Turbo-2024-04-09", "Llama3-ChatQA-2-70B",
                 "Qwen2-72B-Instruct", "Llama3.1-70B-Instruct", "Llama3-70B-base"):
        assert name in found
    assert not {"Qwen2", "72B", "Instruct", "GPT-4", "Llama3"} & found


def test_acronym_definitions_and_their_offsets(
    sample: dict[str, tuple[Paper, Extraction]],
) -> None:
    paper, extraction = sample["dsi"]
    defined = {(a.short, a.long) for a in extraction.acronyms}
    assert defined == {("DSI", "distributed speculative inference"),
                       ("SI", "speculative inference"),
                       ("SP", "speculation parallelism")}
    for a in extraction.acronyms:
        assert paper.text(a.span.field)[a.span.start : a.span.end] == a.short
    paper, extraction = sample["fisao"]
    assert {(a.short, a.long) for a in extraction.acronyms} == {
        ("FiSAO", "Fine-Grained Self-Alignment Optimization"),
    }
    fisao = [m for m in extraction.mentions if m.text == "FiSAO"]
    assert fisao and all(m.long_form == "Fine-Grained Self-Alignment Optimization" for m in fisao)
    _, extraction = sample["chatqa"]
    assert ("RAG", "retrieval-augmented generation") in {
        (a.short, a.long) for a in extraction.acronyms
    }


def test_urls_come_out_of_latex_markup(sample: dict[str, tuple[Paper, Extraction]]) -> None:
    assert sample["fisao"][1].urls == ("https://anonymous.4open.science/r/FISAO-57F0/",)
    assert sample["dsi"][1].urls == ()


def test_roles_in_sample_abstracts(sample: dict[str, tuple[Paper, Extraction]]) -> None:
    def strongest(extraction: Extraction, *names: str) -> Role:
        return min((m.role for m in extraction.mentions if m.label in names),
                   key=lambda r: r.rank)

    chatqa = sample["chatqa"][1]
    assert strongest(chatqa, "ChatQA 2") is Role.PROPOSES
    assert strongest(chatqa, "Qwen2-72B-Instruct") is Role.COMPARES_WITH
    fisao = sample["fisao"][1]
    assert strongest(fisao, "FiSAO", "Fine-Grained Self-Alignment Optimization") is Role.PROPOSES


def test_compared_long_form_is_not_proposed(sample: dict[str, tuple[Paper, Extraction]]) -> None:
    # "DSI, a novel inference algorithm that is provably faster than speculative inference
    # (SI)": SI and its long form are what the paper compares with (kg.extract.roles).
    dsi = sample["dsi"][1]
    roles = {m.role for m in dsi.mentions if m.label in {"speculative inference", "SI"}}
    assert Role.COMPARES_WITH in roles
    assert Role.PROPOSES not in roles


def test_title_is_extracted(sample: dict[str, tuple[Paper, Extraction]]) -> None:
    paper, extraction = sample["chatqa"]
    in_title = [m for m in extraction.mentions if m.span.field is Field.TITLE]
    assert "ChatQA 2" in {m.label for m in in_title}
    for m in in_title:
        assert paper.text(Field.TITLE)[m.span.start : m.span.end] == m.text


def test_paper_without_abstract_gives_an_empty_extraction(extractor: Extractor) -> None:
    extraction = extractor.extract(Paper(id="t", abstract=None, title="DuoAttention for LLMs"))
    assert extraction.paper_id == "t"
    assert extraction.mentions == extraction.acronyms == extraction.sentences == ()


def test_real_parse_names_and_roles(extractor: Extractor) -> None:
    doc = extractor.nlp("To enhance the performance of LLMs in such scenarios, we introduce the "
                        "Long Question Coreference Adaptation (LQCA) method.")
    proposed = {doc[i].text for i, r in token_roles(doc).items() if r is Role.PROPOSES}
    assert {"Long", "Question", "Coreference", "Adaptation"} <= proposed
    assert "LLMs" not in proposed
    sentences = {
        "In this work, we introduce ChatQA 2, an Llama 3.0-based model with a 128K context "
        "window.": ["ChatQA 2", "Llama 3.0"],
        "The Lottery Ticket Hypothesis (LTH) posits the existence of a sparse subnetwork.":
            ["Lottery Ticket Hypothesis", "LTH"],
        "Recent advancements in Inertial Confinement Fusion (ICF) have drawn significant "
        "attention.": ["Inertial Confinement Fusion", "ICF"],
        "Despite the increasing popularity of Shampoo, the theoretical foundations of its "
        "effectiveness are not well understood.": ["Shampoo"],
        "With a maximum individual resolve rate of 27.3% on SWE-Bench Lite, agents can achieve "
        "a 34.3% resolve rate with DEI.": ["SWE-Bench Lite", "DEI"],
    }
    for text, expected in sentences.items():
        assert [s.text for s in name_spans(extractor.nlp(text))] == expected


def test_sentence_final_magnitude_is_not_a_concept(extractor: Extractor) -> None:
    extraction = extract_one(extractor, "We extend the context window of Llama 3 from 8K to "
                                        "128K. The model has 2.5B.")
    assert not {"128K", "128K.", "2.5B", "2.5B."} & labels(extraction)


def test_magnitude_compound_is_not_a_concept(extractor: Extractor) -> None:
    extraction = extract_one(extractor, "We train a 7B-parameter model on 32K-token contexts "
                                        "and evaluate it on SQuAD.")
    assert "SQuAD" in labels(extraction)
    assert not {"7B-parameter", "32K-token"} & labels(extraction)


def test_t_sne_is_not_cut_to_sne(extractor: Extractor) -> None:
    extraction = extract_one(extractor, "We visualise the embeddings with t-SNE.")
    assert "SNE" not in labels(extraction)
    assert "t-SNE" in labels(extraction)


@pytest.mark.parametrize(
    ("text", "short", "long"),
    [
        ("We use computationally intensive Particle-in-Cell (PIC) simulations. PIC simulations "
         "are slow.", "PIC", "Particle-in-Cell"),
        ("This paper introduces Chain-of-Thought (CoT) distillation, and we show CoT helps.",
         "CoT", "Chain-of-Thought"),
    ],
    ids=["PIC", "CoT"],
)
def test_hyphenated_long_form_defines_its_acronym(
    extractor: Extractor, text: str, short: str, long: str
) -> None:
    extraction = extract_one(extractor, text)
    assert (short, long) in {(a.short, a.long) for a in extraction.acronyms}
    assert {m.long_form for m in extraction.mentions if m.label == short} == {long}


def test_urls_of_the_shared_sample(shared_data: Path) -> None:
    papers = list(read_papers([shared_data / "iclr2025_abstracts.txt"]))
    urls = [u for p in papers for u in extract_urls(p.abstract or "")]
    assert urls == [
        "https://github.com/OceannTwT/LQCA",
        "https://chatqa2-project.github.io/",
        "https://github.com/JungHunOh/AWS_ICLR2025.git",
        "https://anonymous.4open.science/r/FISAO-57F0/",
        "https://github.com/mit-han-lab/duo-attention",
        "https://oooolga.github.io/JEDi.github.io/",
        "https://github.com/BigML-CS-UCLA/MKDT",
        "https://github.com/thuml/dynamical-diffusion",
    ]


@pytest.mark.parametrize(
    ("text", "urls"),
    [
        ("Code: https://github.com/a/b. See www.x.org/p (and github.com/c/d).",
         ["https://github.com/a/b", "https://www.x.org/p", "https://github.com/c/d"]),
        ("twice: https://a.org/x and (https://a.org/x)", ["https://a.org/x"]),
        # A balanced closing parenthesis belongs to the URL.
        ("See https://en.wikipedia.org/wiki/Foo_(bar) for details.",
         ["https://en.wikipedia.org/wiki/Foo_(bar)"]),
        ("Code is provided in https://github.com/mit-han-lab/duo-attention.",
         ["https://github.com/mit-han-lab/duo-attention"]),
        ("no links here, e.g. github or a.b", []),
    ],
    ids=["three-kinds", "duplicates", "balanced-parenthesis", "full-stop", "none"],
)
def test_extract_urls(text: str, urls: list[str]) -> None:
    assert extract_urls(text) == urls


def test_title_prefix_named_in_the_abstract_is_one_term(extractor: Extractor) -> None:
    paper = Paper(
        id="t",
        title="Latent Theory of Mind: A Decentralized Diffusion Architecture",
        abstract="We present Latent Theory of Mind (LatentToM), a decentralized diffusion "
                 "policy architecture. LatentToM outperforms a naive baseline.",
    )
    extraction = extractor.extract(paper)
    title_labels = {m.label for m in extraction.mentions if m.span.field is Field.TITLE}
    assert "Latent Theory of Mind" in title_labels
    assert "Mind" not in labels(extraction)
    assert {m.role for m in extraction.mentions if m.label == "Latent Theory of Mind"} >= {
        Role.PROPOSES
    }


def test_catchy_title_prefix_is_not_a_concept(extractor: Extractor) -> None:
    paper = Paper(id="t", title="Beyond Surface Similarity: Probing Language Models",
                  abstract="We probe language models with paraphrased questions.")
    assert "Beyond Surface Similarity" not in labels(extractor.extract(paper))


def test_a_metric_achieved_is_measured(extractor: Extractor) -> None:
    extraction = extract_one(extractor, "Across these tasks, KineDex achieves an average "
                                        "success rate of 74.4%.")
    roles = {m.role for m in extraction.mentions if m.label == "average success rate"}
    assert roles == {Role.MEASURES}


def test_approximate_quantity_is_not_a_concept(extractor: Extractor) -> None:
    extraction = extract_one(extractor, "The policy keeps a near-100% success rate.")
    assert not {label for label in labels(extraction) if "100" in label}


def test_glued_acronym_parenthesis_defines_the_acronym(extractor: Extractor) -> None:
    text = "Multimodal sentiment analysis(MSA) is hard. We study MSA."
    extraction = extract_one(extractor, text)
    assert ("MSA", "Multimodal sentiment analysis") in {
        (a.short, a.long) for a in extraction.acronyms
    }
    long_mention = next(m for m in extraction.mentions if m.short_form == "MSA")
    assert text[long_mention.span.start:long_mention.span.end] == "Multimodal sentiment analysis"


def test_hyphen_compound_is_not_cut(extractor: Extractor) -> None:
    extraction = extract_one(extractor, "Pheye achieves a high efficiency while maintaining "
                                        "strong performance, particularly in tasks that demand "
                                        "fine-grained image understanding.")
    assert "fine-grained image understanding" in labels(extraction)
    assert "grained image understanding" not in labels(extraction)


def test_name_given_to_our_approach_is_proposed(extractor: Extractor) -> None:
    extraction = extract_one(extractor, "The clustering resulting from our probabilistic "
                                        "approach (PRCut) outperforms the Rayleigh quotient "
                                        "relaxation.")
    assert Role.PROPOSES in {m.role for m in extraction.mentions if m.label == "PRCut"}


def test_model_family_name_is_a_model_even_after_on(extractor: Extractor) -> None:
    extraction = extract_one(extractor, "PatchFinder achieves an accuracy of 94% on our dataset "
                                        "of 190 noisy scanned documents outperforming "
                                        "ChatGPT-4o by 18.5 percentage points.")
    types = {m.ctype for m in extraction.mentions if m.label == "ChatGPT-4o"}
    assert types == {ConceptType.MODEL}


def test_acronym_whose_letters_recur_takes_the_whole_long_form(extractor: Extractor) -> None:
    extraction = extract_one(extractor, "We introduce Actively Discovering and Adapting to "
                                        "Preferences for any Task (ADAPT) – a benchmark designed "
                                        "to evaluate agents. Agents fail on ADAPT.")
    long = "Actively Discovering and Adapting to Preferences for any Task"
    assert ("ADAPT", long) in {(a.short, a.long) for a in extraction.acronyms}
    # The whole long form is one mention (not a piece of it: "Actively Discovering",
    # "Preferences"), paired with its acronym. Its type is the learned models' call between
    # the apposition ("a benchmark": Dataset) and the long form's own last word ("Task"),
    # close either way (Dataset 0.44 / Task 0.34 before the retraining of session 29, Task
    # 0.48 / Dataset 0.42 after): not a rule this test can pin.
    spans = {m.text for m in extraction.mentions}
    assert {long, "ADAPT"} <= spans
    assert not any(t != long and t in long for t in spans - {"ADAPT"})


def test_unit_after_a_number_is_not_a_name(extractor: Extractor) -> None:
    extraction = extract_one(extractor, "We fine-tune OPT-175B on a mere 18GB GPU.")
    assert "GB" not in labels(extraction)
    assert "OPT-175B" in labels(extraction)


def test_a_term_cut_by_the_sentence_splitter_keeps_a_sentence_that_holds_it(
    extractor: Extractor,
) -> None:
    # spaCy splits this title inside "Sequential Decision Making".
    paper = Paper(id="t", title="Achieving Long-Term Fairness in Sequential Decision Making",
                  abstract="We study fairness in sequential decision making.")
    mentions = extractor.extract(paper).mentions
    assert "Sequential Decision Making" in {m.label for m in mentions}
    for m in mentions:
        assert m.sentence.field is m.span.field
        assert m.sentence.start <= m.span.start and m.span.end <= m.sentence.end, m.label


def test_relation_sentence_holds_a_mention_cut_by_the_splitter(extractor: Extractor) -> None:
    # spaCy ends a sentence inside "Entity Linking" in this title.
    paper = Paper(id="t", title="LlmLink: Dual LLMs for Dynamic Entity Linking on Long "
                                "Narratives with Collaborative Memorisation and Prompt "
                                "Optimisation",
                  abstract="We use LLMs for entity linking on long narratives.")
    relations = extractor.extract(paper).relations
    assert relations
    for rel in relations:
        for m in (rel.subject, rel.object):
            if m.span.field is rel.sentence.field:
                assert rel.sentence.start <= m.span.start and m.span.end <= rel.sentence.end


def test_citations_and_latex_are_not_concepts(extractor: Extractor) -> None:
    extraction = extract_one(extractor, "Our rates improve on Kim et al. (2018) and on Feng et "
                                        "al. for all $d \\geq 4$. We use a Transformer "
                                        "(Vaswani et al., 2017).")
    found = labels(extraction)
    assert "Transformer" in found
    assert not {label for label in found
                if "et al" in label or "\\" in label or label in {"Kim", "Feng", "Vaswani"}}
