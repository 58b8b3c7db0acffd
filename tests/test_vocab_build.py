"""scripts/build_gazetteer.py: its rules, and a rebuild byte-identical to the shipped files."""

from __future__ import annotations

import doctest
import gzip
import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = ROOT / "scripts"


def load_rules() -> ModuleType:
    """scripts/ is not a package: load the rules module from its file."""
    spec = importlib.util.spec_from_file_location("gazetteer_rules", SCRIPTS / "gazetteer_rules.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


rules = load_rules()


def test_rule_doctests_pass() -> None:
    result = doctest.testmod(rules)
    assert result.attempted > 10
    assert result.failed == 0


def test_every_collection_has_exactly_one_type() -> None:
    assert not rules.MODEL_COLLECTIONS & rules.METHOD_COLLECTIONS
    assert "Convolutional Neural Networks" in rules.MODEL_COLLECTIONS
    assert "Stochastic Optimization" in rules.METHOD_COLLECTIONS
    assert "" not in rules.MODEL_COLLECTIONS | rules.METHOD_COLLECTIONS


@pytest.mark.parametrize(
    ("raw", "names"),
    [
        ("Accuracy (%)", ["Accuracy"]),
        ("Mean IoU (test)", ["Mean IoU"]),
        ("Bit per Character (BPC)", ["Bit per Character", "BPC"]),
        ("Validation perplexity", ["perplexity"]),
        ("% Test Accuracy", ["Accuracy"]),
        ("mAP@0.5:0.95", ["mAP@0.5:0.95"]),
        ("AP", ["AP"]),
        ("Params (M)", ["Params"]),
        ("Accuracy on Books", []),
        ("AVERAGE AUC ON 14 LABEL", []),
        ("Kitchen", []),
        ("Test", []),
        ("R@1,IoU=0.5", []),
        ("N/A", []),
    ],
)
def test_clean_metric(raw: str, names: list[str]) -> None:
    assert rules.clean_metric(raw) == names


@pytest.mark.parametrize(
    ("label", "junk"),
    [
        ("", True),
        ('""', True),
        ("2019", True),
        ("x", True),
        ("Go", True),
        ("T5", False),
        ("ResNet", False),
        ("a (b", True),
        ("word " * 11, True),
    ],
)
def test_is_junk(label: str, junk: bool) -> None:
    assert rules.is_junk(rules.clean_label(label)) is junk


@pytest.mark.parametrize(
    ("key", "zipf", "generic"),
    [
        ("machine learning", 0.0, True),
        ("layer", 4.4, True),
        ("step", 5.1, True),
        ("accuracy", 4.2, False),
        ("dropout", 3.1, False),
        ("convolution", 2.5, False),
        ("question answering", 0.0, False),
    ],
)
def test_is_generic(key: str, zipf: float, generic: bool) -> None:
    assert rules.is_generic(key, zipf) is generic


def test_cso_iri_and_label_repair() -> None:
    assert rules.cso_iri("machine learning") == "https://cso.kmi.open.ac.uk/topics/machine_learning"
    assert rules.fix_cso_label("cramu00e9r-rao lower bound") == "cramér-rao lower bound"


def test_model_name_cleaning() -> None:
    assert rules.clean_model_name("BiDAF (single model)") == "BiDAF"
    assert rules.clean_model_name("hoanganh_VB_ensemble3") is None
    assert rules.clean_model_name("Lee et al. (2017)") is None
    assert rules.clean_model_name("baseline1") is None


@pytest.mark.shared
def test_rebuild_is_byte_identical(shared_data: Path, tmp_path: Path) -> None:
    """The shipped files are exactly what the script builds from ../shared/data/vocab."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    result = subprocess.run(
        [
            sys.executable,
            str(SCRIPTS / "build_gazetteer.py"),
            "--vocab",
            str(shared_data / "vocab"),
            "--out",
            str(tmp_path),
            "--sample",
            "3",
        ],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "gazetteer rows" in result.stdout
    for name in ("gazetteer.tsv.gz", "vocab_hierarchy.tsv.gz"):
        built = (tmp_path / name).read_bytes()
        shipped = (ROOT / "kg" / "data" / name).read_bytes()
        assert built == shipped, f"kg/data/{name} is stale: run scripts/build_gazetteer.py"


@pytest.mark.shared
def test_origins_rebuild_is_byte_identical(shared_data: Path, tmp_path: Path) -> None:
    """kg/data/origins.tsv.gz is exactly what scripts/build_origins.py builds; PwC's placeholder
    year 2000 is not used (years come from arXiv ids and proceedings addresses)."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    result = subprocess.run(
        [sys.executable, str(SCRIPTS / "build_origins.py"), "--vocab", str(shared_data / "vocab"),
         "--out", str(tmp_path)],
        capture_output=True, text=True, env=env, check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "methods" in result.stdout
    built = (tmp_path / "origins.tsv.gz").read_bytes()
    assert built == (ROOT / "kg" / "data" / "origins.tsv.gz").read_bytes(), (
        "kg/data/origins.tsv.gz is stale: run scripts/build_origins.py")
    rows = [line.split("\t") for line in gzip.decompress(built).decode().splitlines()[1:]]
    assert all(year == "" or 1950 < int(year) < 2030 for *_, year in rows)
    barlow = [r for r in rows if r[0] == "barlow twin"]
    assert barlow and barlow[0][3:] == ["2103.03230", "2021"]  # PwC's introduced_year says 2000


def test_origins_years_come_from_addresses() -> None:
    spec = importlib.util.spec_from_file_location("build_origins", SCRIPTS / "build_origins.py")
    assert spec and spec.loader
    sys.path.insert(0, str(SCRIPTS))
    try:
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(SCRIPTS))
    assert doctest.testmod(module).failed == 0
    cvf = "http://openaccess.thecvf.com/content_cvpr_2017/html/Wang_CVPR_2017_paper.html"
    assert module.year_of(cvf) == "2017"
    assert module.year_of("http://proceedings.neurips.cc/paper/2020/hash/7d9-Abstract.html") == (
        "2020")
    assert module.arxiv_id("https://arxiv.org/abs/2103.03230v3") == "2103.03230"


def test_a_title_the_methods_name_spells_word_by_word_is_an_origin_name() -> None:
    """PwC stores many a method's paper title as its full name; a title is no alias, but the
    origins table keeps one the name spells ("TRPO": "Trust Region Policy Optimization")."""
    sys.path.insert(0, str(SCRIPTS))
    try:
        spec = importlib.util.spec_from_file_location("build_origins",
                                                      SCRIPTS / "build_origins.py")
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(SCRIPTS))

    def method(name: str, full: str, title: str) -> dict[str, object]:
        return {"name": name, "full_name": full, "source_title": title, "paper": {"title": title},
                "url": f"https://paperswithcode.com/method/{name.lower()}", "source_url": ""}

    trpo = "Trust Region Policy Optimization"
    attention = "Attention Is All You Need"
    keys = {row[0] for row in module.rows([
        method("TRPO", trpo, trpo), method("Transformer", attention, attention),
        method("RAM", "Recurrent models of visual attention",
               "Recurrent models of visual attention")])}
    assert keys == {"trpo", "trust region policy optimization", "transformer", "ram"}
    assert module.spells("TRPO", trpo) and not module.spells("Transformer", attention)
