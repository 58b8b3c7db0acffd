"""How the background tables read the 35k paperlists abstracts (scripts/build_lexicon.py,
scripts/build_type_nouns.py): their tokens, clause breaks and phrase-edge stop words, and the
deterministic gzipped TSV they are written as (mtime 0, no file name: a rebuild is
byte-identical)."""

from __future__ import annotations

import gzip
import re
from collections.abc import Iterable
from pathlib import Path

TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[-'’][A-Za-z0-9]+)*|\d+[A-Za-z]+[A-Za-z0-9]*")
CLAUSE = re.compile(r"[.;:!?()\[\],\"“”]")
# Phrases may not start or end with these (they are not terms: "of the", "we propose").
EDGE_STOP = frozenset(
    """a an the of in on for to and or with by from as at is are was were be been being this
    that these those we our their its it which what how when where while can could may might
    will would should has have had not no but than then thus also such via using based into
    over under between across within without about through per each both all any more most
    less very i you they he she us them new novel""".split()
)


def write_tsv_gz(path: Path, lines: Iterable[str]) -> None:
    """Write `lines` (without their newlines) as a gzipped text file, byte-identical on rebuild."""
    text = "".join(line + "\n" for line in lines)
    with open(path, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as gz:
        gz.write(text.encode("utf-8"))
