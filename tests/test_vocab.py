"""kg.vocab.gazetteer: the shipped gazetteer and hierarchy, and the loader on hand-made files."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from kg.errors import KGError
from kg.types import ConceptType
from kg.vocab.gazetteer import GAZETTEER_FILE, HIERARCHY_FILE, Entry, Gazetteer

PWC = "https://paperswithcode.com"
CSO = "https://cso.kmi.open.ac.uk/topics"


@pytest.fixture(scope="module")
def gaz() -> Gazetteer:
    return Gazetteer.load()


def test_load_is_cached(gaz: Gazetteer) -> None:
    assert Gazetteer.load() is gaz
    assert len(gaz) > 20_000


@pytest.mark.parametrize(
    ("text", "ctype"),
    [
        ("ResNet", ConceptType.MODEL),
        ("BERT", ConceptType.MODEL),
        ("LSTM", ConceptType.MODEL),
        ("GPT-4", ConceptType.MODEL),
        ("Adam", ConceptType.METHOD),
        ("Dropout", ConceptType.METHOD),
        ("Batch Normalization", ConceptType.METHOD),
        ("question answering", ConceptType.TASK),
        ("named entity recognition", ConceptType.TASK),
        ("ImageNet", ConceptType.DATASET),
        ("CIFAR-10", ConceptType.DATASET),
        ("BLEU", ConceptType.METRIC),
        ("accuracy", ConceptType.METRIC),
        ("Word Error Rate", ConceptType.METRIC),
        ("large language models", ConceptType.MODEL),
        ("semantic web", ConceptType.CONCEPT),
    ],
)
def test_best_entry_type_of_well_known_terms(gaz: Gazetteer, text: str, ctype: ConceptType) -> None:
    assert gaz.lookup(text)[0].type is ctype
    assert gaz.types_of(text).most_common(1)[0][0] is ctype


@pytest.mark.parametrize("variant", ["resnet", "Resnets", "ResNets", "ResNet"])
def test_lookup_folds_case_hyphens_and_plurals(gaz: Gazetteer, variant: str) -> None:
    assert gaz.lookup(variant)[0].source_id == f"{PWC}/method/resnet"


def test_lookup_prefers_the_exact_spelling(gaz: Gazetteer) -> None:
    assert gaz.lookup("Adam")[0].type is ConceptType.METHOD
    assert gaz.lookup("ADAM")[0].type is ConceptType.DATASET  # the PwC dataset "ADAM"
    assert gaz.lookup("adam")[0].source == "pwc-method"  # no exact spelling: source trust


def test_aliases_share_the_source_id(gaz: Gazetteer) -> None:
    vqa = {e.source_id for e in gaz.lookup("VQA") if e.source == "pwc-task"}
    long = {e.source_id for e in gaz.lookup("Visual Question Answering") if e.source == "pwc-task"}
    assert vqa & long
    svm = gaz.lookup("Support Vector Machine")
    assert f"{PWC}/method/svm" in {e.source_id for e in svm}
    assert {e.label for e in gaz.entries_for(f"{PWC}/method/svm")} >= {
        "SVM",
        "Support Vector Machine",
    }


def test_unknown_text_finds_nothing(gaz: Gazetteer) -> None:
    assert gaz.lookup("zzzz qqqq") == ()
    assert gaz.lookup("") == ()
    assert not gaz.types_of("zzzz qqqq")


@pytest.mark.parametrize(
    ("text", "generic"),
    [
        ("attention", True),
        ("machine learning", True),
        ("deep learning", True),
        ("neural networks", True),
        ("classification", True),
        ("accuracy", False),
        ("F1", False),
        ("Adam", False),
        ("ResNet", False),
        ("question answering", False),
    ],
)
def test_generic_flag(gaz: Gazetteer, text: str, generic: bool) -> None:
    assert {e.generic for e in gaz.lookup(text)} == {generic}


def test_terms_leave_out_generic_labels_unless_asked(gaz: Gazetteer) -> None:
    terms = dict(gaz.terms())
    assert terms["ResNet"] is ConceptType.MODEL
    assert "Attention" not in terms
    assert "Attention" in dict(gaz.terms(generic=True))


def test_cased_terms_are_generic_but_distinctive(gaz: Gazetteer) -> None:
    cased = dict(gaz.cased_terms())
    assert cased["BLOOM"] is ConceptType.MODEL
    assert "Attention" not in cased


def test_no_junk_labels(gaz: Gazetteer) -> None:
    labels = [label for label, _ in gaz.terms(generic=True)]
    assert all(
        len(label) > 2 or label in {"AP", "EM"} or any(c.isdigit() for c in label)
        for label in labels
    )
    assert not any(label.strip('"') == "" or label.isdigit() for label in labels)


def test_broader_relations(gaz: Gazetteer) -> None:
    assert f"{PWC}/methods/category/stochastic-optimization" in gaz.broader(f"{PWC}/method/adam")
    assert f"{CSO}/artificial_intelligence" in gaz.broader(f"{CSO}/machine_learning")
    ner = f"{PWC}/task/named-entity-recognition-ner"
    assert ner in gaz.broader(f"{PWC}/task/cross-domain-named-entity-recognition")
    assert gaz.broader("https://example.org/nothing") == ()
    # every broader IRI has a label row
    for child in (f"{PWC}/method/adam", f"{CSO}/machine_learning"):
        for parent in gaz.broader(child):
            assert gaz.entries_for(parent)


def test_entry_distinctive() -> None:
    assert Entry("T5", ConceptType.MODEL, "pwc-method", "", False).distinctive
    assert not Entry("Claude", ConceptType.MODEL, "llm-list", "", True).distinctive


# ------------------------------------------------------------------ the loader on hand-made files
def write(path: Path, text: str) -> None:
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        fh.write(text)


HEADER = "label\ttype\tsource\tsource_id\tkey\tgeneric\n"


def test_load_from_folder(tmp_path: Path) -> None:
    write(
        tmp_path / GAZETTEER_FILE,
        HEADER
        + "widget net\tModel\tcso\thttp://x/w\twidget net\t0\n"
        + "Widget Net\tModel\tpwc-method\thttp://y/w\twidget net\t0\n",
    )
    write(
        tmp_path / HIERARCHY_FILE,
        "child_source_id\tbroader_source_id\tsource\nhttp://y/w\thttp://y/p\tpwc\n",
    )
    gaz = Gazetteer.load(tmp_path)
    assert [e.source for e in gaz.lookup("widget nets")] == ["pwc-method", "cso"]
    assert gaz.broader("http://y/w") == ("http://y/p",)
    assert len(gaz) == 2


def test_bad_rows_name_file_and_line(tmp_path: Path) -> None:
    write(tmp_path / GAZETTEER_FILE, HEADER + "x\tGadget\tcso\t\tx\t0\n")
    write(tmp_path / HIERARCHY_FILE, "child_source_id\tbroader_source_id\tsource\n")
    with pytest.raises(KGError, match=r"gazetteer\.tsv\.gz, line 2: unknown type 'Gadget'"):
        Gazetteer.load(tmp_path)
    write(tmp_path / GAZETTEER_FILE, HEADER + "x\tModel\tcso\n")
    with pytest.raises(KGError, match="line 2: 3 fields, expected 6"):
        Gazetteer.load(tmp_path)


def test_missing_file_says_how_to_rebuild(tmp_path: Path) -> None:
    with pytest.raises(KGError, match=r"build_gazetteer\.py"):
        Gazetteer.load(tmp_path)
