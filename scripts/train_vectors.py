"""Train floret word vectors on the conference abstracts in ../shared/data/paperlists/.

floret (fastText with hashed subword buckets, Bloom-style; Boyd & Warmerdam, explosion.ai 2022)
gives every word a vector, seen or not, from its character n-grams: unseen method names still
get a sensible embedding. One thread makes the output reproducible.

Usage: python scripts/train_vectors.py OUT.floret [--paperlists DIR] [--dim 100] [--bucket 50000]
Then `kg train --vectors OUT.floret` turns it into the model's static vectors.
"""

from __future__ import annotations

import argparse
import gzip
import json
import tempfile
from pathlib import Path

DEFAULT_PAPERLISTS = Path(__file__).resolve().parents[2] / "shared" / "data" / "paperlists"


def abstracts(folder: Path) -> list[str]:
    """Every distinct non-empty abstract in the folder's *.json.gz files, in file order."""
    seen: set[str] = set()
    out: list[str] = []
    for path in sorted(folder.glob("*.json.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            records = json.load(fh)
        for record in records:
            text = " ".join(str(record.get("abstract") or "").split())
            if text and text not in seen:
                seen.add(text)
                out.append(text)
    return out


def write_corpus(texts: list[str], path: Path) -> int:
    """Tokenise with spaCy's English rules and lowercase, one abstract a line; returns tokens."""
    import spacy
    from spacy.tokenizer import Tokenizer

    tokenizer = spacy.blank("en").tokenizer
    # spaCy types a pipeline's tokenizer as any callable; a blank pipeline's is its Tokenizer.
    assert isinstance(tokenizer, Tokenizer)
    n = 0
    with path.open("w", encoding="utf-8") as fh:
        for doc in tokenizer.pipe(texts, batch_size=1000):
            words = [t.lower_ for t in doc if not t.is_space]
            n += len(words)
            fh.write(" ".join(words) + "\n")
    return n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="where to write the .floret vectors table")
    parser.add_argument("--paperlists", type=Path, default=DEFAULT_PAPERLISTS)
    parser.add_argument("--dim", type=int, default=100)
    parser.add_argument("--bucket", type=int, default=50000, help="hash buckets (table rows)")
    parser.add_argument("--epoch", type=int, default=10)
    parser.add_argument("--min-count", type=int, default=3)
    args = parser.parse_args()

    import floret

    texts = abstracts(args.paperlists)
    with tempfile.TemporaryDirectory() as tmp:
        corpus = Path(tmp) / "abstracts.txt"
        tokens = write_corpus(texts, corpus)
        model = floret.train_unsupervised(
            str(corpus),
            model="cbow",
            mode="floret",
            hashCount=2,
            bucket=args.bucket,
            minn=3,
            maxn=5,
            minCount=args.min_count,
            dim=args.dim,
            epoch=args.epoch,
            thread=1,
            verbose=0,
        )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    model.save_floret_vectors(str(args.out))
    print(f"{len(texts)} abstracts, {tokens} tokens -> {args.out} ({args.bucket} x {args.dim})")


if __name__ == "__main__":
    main()
