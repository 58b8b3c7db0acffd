"""kg.vocab.origins: the introducing paper of a vocabulary method, read from the shipped table."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from kg.errors import KGError
from kg.vocab.origins import ORIGINS_HEADER, Origin, Origins, title_key

ZORP = "https://paperswithcode.com/method/zorp"


def write(path: Path, lines: list[str]) -> Path:
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")
    return path


def test_shipped_table_names_introducing_papers_with_years() -> None:
    origins = Origins.load()
    assert len(origins) > 2000
    (adam,) = origins.lookup("Adam")
    assert (adam.title, adam.arxiv_id, adam.year) == (
        "Adam: A Method for Stochastic Optimization", "1412.6980", 2014)
    # Full names are keys too, folded like concept keys.
    (batch_norm,) = origins.lookup("Batch-Normalizations")
    assert batch_norm.source_id == "https://paperswithcode.com/method/batch-normalization"
    assert origins.lookup("no such method at all") == ()


def test_read_keys_rows_and_leaves_unknown_years_empty(tmp_path: Path) -> None:
    path = write(tmp_path / "o.tsv.gz", [
        "\t".join(ORIGINS_HEADER),
        f"zorp\t{ZORP}\tZORP: Zero-Order Rotations\t1901.00001\t2019",
        f"zorp net\t{ZORP}\tZORP: Zero-Order Rotations\t1901.00001\t2019",
        "klop\thttps://paperswithcode.com/method/klop\tKlop Layers\t\t",
    ])
    origins = Origins.read(path)
    assert origins.lookup("ZORP-Nets") == (
        Origin(ZORP, "ZORP: Zero-Order Rotations", "1901.00001", 2019),)
    assert origins.lookup("KLOP")[0].year is None and origins.lookup("KLOP")[0].arxiv_id is None


def test_a_paper_is_the_origin_by_title_or_arxiv_id() -> None:
    zorp = Origin("https://paperswithcode.com/method/zorp", "ZORP: Zero-Order Rotations",
                  "1901.00001", 2019)
    assert zorp.is_paper("Zorp — zero-order rotations.", None)
    assert zorp.is_paper("A Different Conference Title", "1901.00001v3")
    assert not zorp.is_paper("ZORP: Zero-Order Rotations Revisited", "2203.00002")
    assert not zorp.is_paper(None, None)
    assert title_key("Barlow Twins: Self-Supervised") == "barlow twins self supervised"


def test_a_bad_table_is_named_with_its_script(tmp_path: Path) -> None:
    path = write(tmp_path / "o.tsv.gz", ["key\ttitle", "zorp\tZORP"])
    with pytest.raises(KGError, match=r"o\.tsv\.gz: header is not .*build_origins\.py"):
        Origins.read(path)
