"""Train the scientific-entity pipeline on SciERC (optionally + TDMSci), reproducibly, on CPU.

`train_model` converts the corpora to spaCy's binary format, fills `config.cfg` with the
chosen settings, runs spaCy's own training loop (fixed seed; dev = SciERC dev picks the best
checkpoint), copies the best pipeline to the output folder and scores it on dev with
`kg.eval.ner` (all gold spans, nested ones included). The settings and scores are written
next to the model in `training.json`.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kg import __version__
from kg.errors import InputError, ModelError
from kg.eval.corpora import read_scierc, read_tdmsci
from kg.eval.ner import EntityReport, evaluate_entities
from kg.extract.recogniser import SPANS_KEY

if TYPE_CHECKING:
    from spacy.language import Language

CONFIG = Path(__file__).with_name("config.cfg")
SPANCAT_CONFIG = Path(__file__).with_name("config_spancat.cfg")
# TDMSci's labels in SciERC's terms (TDMSci datasets are SciERC Materials).
TDMSCI_TO_SCIERC = {"TASK": "Task", "DATASET": "Material", "METRIC": "Metric"}


@dataclass(frozen=True, slots=True)
class TrainOptions:
    """What to train; the defaults are the shipped model's settings (docs/MODEL.md)."""

    component: str = "spancat"  # "spancat" or "ner"
    vectors: Path | None = None  # a .floret table from scripts/train_vectors.py
    tdmsci: Path | None = None  # TDMSci CoNLL to add to the training data
    init_tok2vec: Path | None = None  # weights from `spacy pretrain`
    width: int = 96
    depth: int = 4
    window: int = 1
    norm_rows: int = 5000
    dropout: float = 0.2
    learn_rate: float = 0.001
    max_steps: int = 2500
    patience: int = 1000
    eval_frequency: int = 100
    seed: int = 0
    limit: int = 0  # use only the first N training documents (0: all); for quick tests
    extra: dict[str, Any] = field(default_factory=dict)  # further config overrides

    def overrides(self) -> dict[str, Any]:
        """The config overrides these options stand for."""
        out: dict[str, Any] = {
            "system.seed": self.seed,
            "components.tok2vec.model.encode.width": self.width,
            "components.tok2vec.model.encode.depth": self.depth,
            "components.tok2vec.model.encode.window_size": self.window,
            "components.tok2vec.model.embed.rows": [self.norm_rows, 1000, 2500, 2500],
            "components.tok2vec.model.embed.include_static_vectors": self.vectors is not None,
            "training.dropout": self.dropout,
            "training.optimizer.learn_rate": self.learn_rate,
            "training.max_steps": self.max_steps,
            "training.patience": self.patience,
            "training.eval_frequency": self.eval_frequency,
        }
        out.update(self.extra)
        return out


@dataclass(frozen=True, slots=True)
class TrainResult:
    """A trained pipeline: where it is, its dev scores, how long training took, its size."""

    model_dir: Path
    dev: EntityReport
    seconds: float
    size_bytes: int


def train_model(
    train_path: Path | str,
    dev_path: Path | str,
    output_dir: Path | str,
    options: TrainOptions | None = None,
) -> TrainResult:
    """Train on SciERC `train_path`, select on SciERC `dev_path`, write the pipeline to
    `output_dir` (replacing a pipeline already there) and score it on dev."""
    from spacy.cli.train import train as spacy_train

    options = options or TrainOptions()
    output_dir = Path(output_dir)
    if (
        output_dir.exists()
        and any(output_dir.iterdir())
        and not (output_dir / "config.cfg").is_file()
    ):
        raise InputError(
            "exists and is not a spaCy pipeline; choose an empty or new folder",
            source=str(output_dir),
        )
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="kg-train-") as tmp:
        work = Path(tmp)
        paths = _prepare(Path(train_path), Path(dev_path), work, options)
        config = SPANCAT_CONFIG if options.component == "spancat" else CONFIG
        if options.init_tok2vec is not None:
            # spaCy loads pretrained weights only when the config has a [pretraining] block.
            from spacy.cli.init_config import fill_config

            fill_config(work / "config.cfg", config, pretraining=True, silent=True)
            config = work / "config.cfg"
        overrides = {**options.overrides(), **paths}
        spacy_train(config, work / "out", use_gpu=-1, overrides=overrides)
        best = work / "out" / "model-best"
        if not best.is_dir():
            raise ModelError(f"spaCy training produced no model in {best}")
        if output_dir.exists():
            shutil.rmtree(output_dir)
        shutil.copytree(best, output_dir)
    _clean_meta(output_dir)
    seconds = time.perf_counter() - started
    report = evaluate_entities(output_dir, dev_path)
    on_tokens = evaluate_entities(output_dir, dev_path, pretokenized=True).micro
    size = sum(p.stat().st_size for p in output_dir.rglob("*") if p.is_file())
    record = {
        "options": {k: (str(v) if isinstance(v, Path) else v) for k, v in asdict(options).items()},
        "train": str(train_path),
        "dev": str(dev_path),
        "train_seconds": round(seconds, 1),
        "size_bytes": size,
        "dev_micro_on_corpus_tokens": {
            "p": on_tokens.precision,
            "r": on_tokens.recall,
            "f": on_tokens.f1,
        },
        "dev_scores": {
            label: {"p": s.precision, "r": s.recall, "f": s.f1, "tp": s.tp, "fp": s.fp, "fn": s.fn}
            for label, s in [*report.by_type.items(), ("ALL", report.micro)]
        },
    }
    (output_dir / "training.json").write_text(json.dumps(record, indent=2, sort_keys=True) + "\n")
    return TrainResult(output_dir, report, seconds, size)


def _prepare(train_path: Path, dev_path: Path, work: Path, options: TrainOptions) -> dict[str, str]:
    """Write the corpora (and vectors) where the config expects them; return [paths]."""
    import spacy
    from spacy.tokens import DocBin

    nlp = spacy.blank("en")
    train_docs = read_scierc(train_path)
    if options.limit:
        train_docs = train_docs[: options.limit]
    train_bin = DocBin(attrs=["ORTH", "SENT_START", "ENT_IOB", "ENT_TYPE"], store_user_data=True)
    for gold in train_docs:
        train_bin.add(_training_doc(gold.to_doc(nlp.vocab), options))
    if options.tdmsci is not None:
        for gold in read_tdmsci(options.tdmsci):
            train_bin.add(_partial_doc(gold, nlp))
    train_bin.to_disk(work / "train.spacy")
    dev_bin = DocBin(store_user_data=True)
    for gold in read_scierc(dev_path):
        dev_bin.add(_training_doc(gold.to_doc(nlp.vocab), options))
    dev_bin.to_disk(work / "dev.spacy")
    paths = {"paths.train": str(work / "train.spacy"), "paths.dev": str(work / "dev.spacy")}
    if options.vectors is not None:
        paths["paths.vectors"] = str(_vectors_pipeline(options.vectors, work / "vectors"))
    if options.init_tok2vec is not None:
        paths["paths.init_tok2vec"] = str(options.init_tok2vec)
    return paths


def _training_doc(doc: Any, options: TrainOptions) -> Any:
    """A span categorizer learns every gold span, nested ones included."""
    if options.component == "spancat":
        doc.spans[SPANS_KEY] = list(doc.spans["gold"])
    return doc


def _partial_doc(gold: Any, nlp: Language) -> Any:
    """A TDMSci sentence as a training Doc: its entities are known, but every other token is
    marked missing (not "outside"), since TDMSci does not annotate methods or other terms."""
    doc = gold.to_doc(nlp.vocab, label_map=TDMSCI_TO_SCIERC)
    doc.set_ents(list(doc.ents), default="missing")
    return doc


def _vectors_pipeline(vectors: Path, out: Path) -> Path:
    """Turn a .floret table (lowercased tokens, see scripts/train_vectors.py) into a blank
    pipeline holding the vectors, which `[initialize] vectors` reads."""
    import spacy
    from spacy.training.initialize import convert_vectors

    if not vectors.is_file():
        raise InputError(
            "vectors file not found; make it with scripts/train_vectors.py", source=str(vectors)
        )
    nlp = spacy.blank("en")
    convert_vectors(nlp, vectors, truncate=0, prune=-1, mode="floret", attr="LOWER")
    nlp.to_disk(out)
    return out


def _clean_meta(model_dir: Path) -> None:
    """Name the pipeline and drop the temporary corpus paths from its saved config, so that
    the same training gives the same files."""
    from confection import Config

    config_path = model_dir / "config.cfg"
    config = Config().from_disk(config_path, interpolate=False)
    config["paths"] = {key: None for key in config["paths"]}
    config.to_disk(config_path)
    meta_path = model_dir / "meta.json"
    meta = json.loads(meta_path.read_text())
    meta.update(
        name="paperkg_sci_entities",
        version=__version__,
        description="SciERC entity types (Task, Method, Metric, Material, OtherScientificTerm, "
        "Generic) for ML abstracts; trained by `kg train` (docs/MODEL.md).",
        license="MIT (code); trained on SciERC (Luan et al., 2018)",
    )
    meta.pop("performance", None)  # spaCy's scores on its own re-aligned dev; see training.json
    meta_path.write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n")
