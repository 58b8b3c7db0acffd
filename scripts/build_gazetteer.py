"""Build the gazetteer and vocabulary hierarchy shipped in kg/data/ from ../shared/data/vocab/.

Writes kg/data/gazetteer.tsv.gz (label, type, source, source_id, key, generic) and
kg/data/vocab_hierarchy.tsv.gz (child_source_id, broader_source_id, source), sorted and gzipped
with mtime=0 so that a rebuild is byte-identical, then prints counts and a sample of rows.
Sources, licences and typing decisions: kg/data/GAZETTEER.md. Rules and tables:
scripts/gazetteer_rules.py.

Rebuild:  python scripts/build_gazetteer.py --vocab ../shared/data/vocab --out kg/data
"""

from __future__ import annotations

import argparse
import csv
import gzip
import io
import json
import random
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import gazetteer_rules as rules

from kg.extract.acronyms import initials_long_form
from kg.normalize import norm_key

ROOT = Path(__file__).resolve().parents[1]
PWC = "https://paperswithcode.com"
GAZETTEER_HEADER = ("label", "type", "source", "source_id", "key", "generic")
HIERARCHY_HEADER = ("child_source_id", "broader_source_id", "source")

# PwC "tasks" that are not tasks (spam, resolutions, list artefacts) and parents that the
# World-Snapshot export attaches to unrelated tasks (alphabetically first names).
JUNK_TASKS = rules._names("1 Image, 2*2 Stitchi|1 Image, 2*2 Stitching|All|Articles|Decoder|Object")
JUNK_TASK_PARENTS = JUNK_TASKS | rules._names("10-shot image generation|2D Classification|16k")
LANGUAGE_PAIR_TASK = re.compile(r"^Translation [a-z]{3}-[a-z]{3}$")  # 373 per-pair leaderboards
RESOLUTION = re.compile(r"^\d+k$")
# sota-extractor headings that are not tasks or datasets.
SOTA_NOT_TASKS = rules._names(
    "Task|References|Resources|Current SOTA|Evaluation|Penn Treebank|FewRel|Webis-TLDR-17 Corpus|"
    "Word Level Models|Character Level Models|Wsd Lexical Sample Task|Vision|Computer Vision|"
    "Multimodal"
)
SOTA_NOT_DATASETS = rules._names(
    "Datasets|Metrics|Supervised|Knowledge-based|Experimental Results|Smaller Datasets|"
    "Platforms|Social media|Base Dataset|Lexical Sample results|Google Dataset|Scholar|"
    "Personalized Chit-chat|Visual Common Sense|Noun Phrase Canonicalization|Computer Chess|"
    "Example|General|Conversational|Monologue|Restricted|Unrestricted|Restricted track|"
    "Low-resource track|Medical domain|Music domain|Binary classification|"
    "Fine-grained classification"
)
# Words that make a sota-extractor dataset heading a description ("fisher WER",
# "MNIST handwritten digit recognition", "Generative models of CIFAR-10 images").
NOT_A_DATASET_WORD = rules._words(
    "wer per bleu accuracy f1 em test results testclean testother recognition prediction "
    "answers trained images models examples"
)
# CSO 3.4.1 labels absent from the 2019 ontology are kept only when they read as ML terms.
CSO_NEW_CUES = rules._words(
    "learning neural network networks deep graph graphs language model models embedding "
    "embeddings generative adversarial transformer transformers attention reinforcement "
    "supervised rag llm llms diffusion encoder encoders autoencoder autoencoders gpt bert "
    "fine-tuning prompt prompting federated contrastive multimodal multi-modal knowledge"
)


@dataclass(frozen=True, order=True)
class Row:
    """One gazetteer row; field order is the sort order of the file."""

    key: str
    type: str
    source: str
    source_id: str
    label: str


@dataclass
class Builder:
    """Collects rows and broader edges from every source."""

    rows: set[Row] = field(default_factory=set)
    edges: set[tuple[str, str, str]] = field(default_factory=set)

    def add(
        self,
        label: str,
        ctype: str,
        source: str,
        source_id: str = "",
        *,
        qualifier_base: bool = False,
    ) -> bool:
        """Add a cleaned label and its parenthetical variants; False when it is junk."""
        label = rules.clean_label(label)
        if rules.is_junk(label) and not (ctype == "Metric" and label in rules.SHORT_METRICS):
            return False
        for form in [label, *rules.variants(label, qualifier_base=qualifier_base)]:
            key = norm_key(form)
            if key and (form == label or not rules.is_junk(form)):
                self.rows.add(Row(key, ctype, source, source_id, form))
        return True

    def broader(self, child: str, parent: str, source: str) -> None:
        if child and parent and child != parent:
            self.edges.add((child, parent, source))


# --------------------------------------------------------------------------------- PwC methods
def method_type(method: dict, slug: str) -> str:
    """Majority type of a method's collections (ties: the first-listed one); Method if none."""
    if slug in rules.METHOD_TYPE_OVERRIDES:
        return rules.METHOD_TYPE_OVERRIDES[slug]
    types = [collection_type(c["collection"]) for c in method["collections"]]
    if not types:
        return "Method"
    counts = Counter(types)
    return max(types, key=lambda t: (counts[t], -types.index(t)))


def collection_type(name: str) -> str:
    if name in rules.MODEL_COLLECTIONS:
        return "Model"
    if name in rules.METHOD_COLLECTIONS:
        return "Method"
    raise SystemExit(
        f"pwc/methods.json.gz: collection {name!r} is in neither MODEL_COLLECTIONS nor "
        "METHOD_COLLECTIONS of scripts/gazetteer_rules.py: decide its type there"
    )


def is_title_like(full_name: str, method: dict) -> bool:
    """PwC often stores the paper title as the method's full name: not an alias."""
    titles = {
        (method.get("source_title") or "").lower(),
        ((method.get("paper") or {}).get("title") or "").lower(),
    }
    return ":" in full_name or len(full_name.split()) > 8 or full_name.lower() in titles


def spells(name: str, full_name: str) -> bool:
    """Whether the method's name is the full name's initials, a word per letter ("TRPO" for
    "Trust Region Policy Optimization"): then the full name is the method's name even when
    the introducing paper was titled with it ("Attention Is All You Need" spells no
    "Transformer")."""
    return initials_long_form(name, full_name) == full_name


def pwc_methods(vocab: Path, b: Builder) -> None:
    with gzip.open(vocab / "pwc/methods.json.gz", "rt", encoding="utf-8") as fh:
        methods = json.load(fh)
    for m in methods:
        iri = m["url"].rstrip("/")
        slug = iri.rsplit("/", 1)[1]
        if slug in rules.DROP_METHOD_SLUGS or "(deleted" in m["name"]:
            continue
        ctype = method_type(m, slug)
        if not b.add(m["name"], ctype, "pwc-method", iri):
            continue
        full = rules.clean_label(m.get("full_name") or "")
        if full and full != m["name"] and not is_title_like(full, m):
            b.add(full, ctype, "pwc-method", iri)
        for c in m["collections"]:
            name = c["collection"]
            c_iri = f"{PWC}/methods/category/{rules.django_slug(name)}"
            c_type = "Task" if name in rules.TASK_NAMED_COLLECTIONS else collection_type(name)
            b.add(name, c_type, "pwc-collection", c_iri)
            b.broader(iri, c_iri, "pwc-collection")


# ----------------------------------------------------------------------------------- PwC tasks
def task_iri(name: str) -> str:
    return f"{PWC}/task/{rules.django_slug(name)}"


MODEL_HEADS = rules._words("model models network networks llm llms")


def task_type(name: str) -> str:
    """Task, except PwC "tasks" named as a model family ("Large Language Model", "Graph Neural
    Network"); "Probing Language Models" or "... with Transformer" stay tasks."""
    words = name.lower().split()
    if words and words[-1] in MODEL_HEADS and not words[0].endswith("ing") and "with" not in words:
        return "Model"
    return "Task"


def is_task_name(name: str) -> bool:
    return not (name in JUNK_TASKS or LANGUAGE_PAIR_TASK.match(name) or RESOLUTION.match(name))


def read_csv(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def split_list(cell: str) -> list[str]:
    """A '; '-separated cell, without the trailing '...' the export truncates with."""
    items = [rules.clean_label(x) for x in (cell or "").split(";")]
    return [x for x in items if x and x not in {"...", "N/A"} and not x.endswith("...")]


def pwc_tasks(vocab: Path, b: Builder) -> dict[str, str]:
    """Tasks, their datasets and metric names; returns norm_key -> task IRI."""
    base = vocab / "pwc_tasks_world_snapshot"
    names: set[str] = set()
    with (base / "all_tasks.txt").open(encoding="utf-8") as fh:
        names.update(rules.clean_label(line) for line in fh)
    detailed = [*sorted(base.glob("*/*_tasks_detailed.csv")), base / "all_tasks_detailed.csv"]
    for path in detailed:
        for r in read_csv(path):
            names.add(rules.clean_label(r["Task Name"]))
            names.update(split_list(r.get("Subtasks", "")))
            for dataset in split_list(r["Common Datasets (Top 10)"]):
                add_dataset(
                    b, dataset, "pwc-dataset", f"{PWC}/dataset/{rules.django_slug(dataset)}"
                )
            for metric in split_list(r["SOTA Metrics"]):
                for name in rules.clean_metric(metric):
                    b.add(name, "Metric", "pwc-metric")
    parents: set[tuple[str, str]] = set()
    for path in sorted(base.glob("hierarchical/*_hierarchy.csv")):
        for r in read_csv(path):
            child, parent = rules.clean_label(r["Task Name"]), rules.clean_label(r["Parent Task"])
            names.add(child)
            if parent and parent not in JUNK_TASK_PARENTS:
                parents.add((child, parent))
    for r in read_csv(base / "task_hierarchy.csv"):
        parent = rules.clean_label(r["Parent Task"])
        if parent in JUNK_TASK_PARENTS:
            continue
        for child in split_list(r["Child Tasks"]):
            parents.add((child, parent))
    iris: dict[str, str] = {}
    for name in sorted(names):
        if is_task_name(name) and b.add(name, task_type(name), "pwc-task", task_iri(name)):
            iris.setdefault(norm_key(name), task_iri(name))
    for child, parent in sorted(parents):
        if is_task_name(child) and is_task_name(parent):
            b.broader(task_iri(child), task_iri(parent), "pwc-task")
    return iris


def add_dataset(b: Builder, name: str, source: str, iri: str = "") -> None:
    """Datasets named "Acronym: long title" keep the acronym only."""
    head, sep, _ = name.partition(":")
    if sep:
        if " " in head.strip():
            return
        name = head
    b.add(name, "Dataset", source, iri if not sep else f"{PWC}/dataset/{rules.django_slug(name)}")


# ----------------------------------------------------------------------------- sota-extractor
def sota_extractor(vocab: Path, b: Builder, task_iris: dict[str, str]) -> None:
    base = vocab / "pwc_sota_extractor"

    def datasets(items: Iterable[dict]) -> Iterator[dict]:
        for d in items:
            yield d
            yield from datasets(d.get("subdatasets", []))

    def tasks(items: Iterable[dict]) -> Iterator[dict]:
        for t in items:
            yield t
            yield from tasks(t.get("subtasks", []))

    for path in sorted(base.glob("*.json")):
        with path.open(encoding="utf-8") as fh:
            for task in tasks(json.load(fh)):
                name = rules.clean_label(task["task"])
                if name not in SOTA_NOT_TASKS:
                    b.add(name, "Task", "sota-task")
                for d in datasets(task.get("datasets", [])):
                    add_sota_dataset(b, d.get("dataset") or d.get("subdataset") or "")
                    sota = d.get("sota") or {}
                    for metric in sota.get("metrics", []):
                        for m in rules.clean_metric(metric):
                            b.add(m, "Metric", "sota-metric")
                    for row in sota.get("rows", []):
                        model = rules.clean_model_name(row.get("model_name") or "")
                        if model:
                            b.add(model, "Model", "sota-model")
    with (base / "synonyms.csv").open(encoding="utf-8", newline="") as fh:
        for row in csv.DictReader(fh, skipinitialspace=True):
            label, synonym = rules.clean_label(row["task"]), rules.clean_label(row["synonym"])
            if label in SOTA_NOT_TASKS:
                continue
            iri = task_iris.get(norm_key(synonym)) or task_iris.get(norm_key(label)) or ""
            b.add(label, "Task", "sota-synonym", iri)
            b.add(synonym, "Task", "sota-synonym", iri)


def add_sota_dataset(b: Builder, raw: str) -> None:
    name = rules.clean_label(raw)
    if ":" in raw or name in SOTA_NOT_DATASETS or len(name.split()) >= 5:
        return
    if any(w.lower() in NOT_A_DATASET_WORD for w in re.split(r"[\s\-]+", name)):
        return
    b.add(name, "Dataset", "sota-dataset")


# ---------------------------------------------------------------------------------- NLP-TDMS
def nlp_tdms(vocab: Path, b: Builder) -> None:
    kb = vocab / "nlp_tdms/kb"
    for ctype, file in (
        ("Task", "taskKB.tsv"),
        ("Dataset", "datasetKB.tsv"),
        ("Metric", "evaMatrixKB.tsv"),
    ):
        with (kb / file).open(encoding="utf-8") as fh:
            for line in fh:
                name = line.split("\t")[1].replace("_", " ")
                names = rules.clean_metric(name) if ctype == "Metric" else [name]
                for n in names:
                    b.add(n, ctype, "nlp-tdms")


# --------------------------------------------------------------------------------------- CSO
def cso(vocab: Path, b: Builder) -> None:
    """CSO 2019 topics (equivalents share the IRI of their primary label) and superTopicOf
    edges, plus CSO 3.4.1 labels that are new and read as ML terms."""
    triples: list[tuple[str, str, str]] = []
    with gzip.open(
        vocab / "cso/cso_from_cso-classifier-2.3.2.csv.gz", "rt", encoding="utf-8"
    ) as fh:
        for s, p, o in csv.reader(fh, delimiter=";", quotechar='"'):
            triples.append((rules.fix_cso_label(s), p, rules.fix_cso_label(o)))
    topics = sorted({s for s, p, _ in triples if p == "rdf:type"})
    primary = {s: o for s, p, o in triples if p == "klink:primaryLabel"}
    members: dict[str, list[str]] = defaultdict(list)
    for t in topics:
        members[primary.get(t, t)].append(t)
    for prime, labels in sorted(members.items()):
        ctype = rules.head_type(prime)
        if ctype == "Concept":  # the most common head type among the equivalents, if any
            heads = Counter(t for t in map(rules.head_type, sorted(labels)) if t != "Concept")
            ctype = heads.most_common(1)[0][0] if heads else "Concept"
        for label in labels:
            if "," not in label and not label.endswith("(co)"):
                own = rules.head_type(label)  # a label's own head noun wins over its cluster's
                b.add(label, own if own != "Concept" else ctype, "cso", rules.cso_iri(prime))
    for s, p, o in triples:
        if p == "klink:broaderGeneric":
            b.broader(rules.cso_iri(primary.get(o, o)), rules.cso_iri(primary.get(s, s)), "cso")
    known = set(topics)
    with (vocab / "cso/cso_3.4.1_concept_labels.csv").open(encoding="utf-8", newline="") as fh:
        for (label,) in csv.reader(fh):
            label = rules.fix_cso_label(label)
            if label == "Label" or label in known or "," in label:
                continue
            words = set(re.split(r"[\s\-]+", label))
            if rules.head_type(label) != "Concept" or words & CSO_NEW_CUES:
                b.add(label, rules.head_type(label), "cso", rules.cso_iri(label))


# ---------------------------------------------------------------------------------- LLM list
def llm_list(vocab: Path, b: Builder) -> None:
    """LLM names; "X and Y" rows keep X, and Y when it is a name on its own ("o4-mini")."""
    with (vocab / "llm_list/wikipedia_list_of_llms_2026-05-17.tsv").open(encoding="utf-8") as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            name = re.sub(r"\[\d+\]", "", row["name"]).strip()
            first, _, second = name.partition(" and ")
            b.add(first, "Model", "llm-list", qualifier_base=True)
            if second and any(c.isdigit() for c in second):
                b.add(second, "Model", "llm-list", qualifier_base=True)


# ------------------------------------------------------------------------------------- output
def finalize(b: Builder) -> tuple[list[tuple[str, ...]], list[tuple[str, str, str]]]:
    """Deduplicated gazetteer rows with the generic flag, and edges between known entries."""
    from wordfreq import zipf_frequency

    best: dict[tuple[str, str, str, str], str] = {}
    for r in sorted(b.rows):
        slot = (r.key, r.type, r.source, r.source_id)
        # One label per entry and key: prefer the capitalised form ("Adam" over "adam").
        if slot not in best or (best[slot].islower(), best[slot]) > (r.label.islower(), r.label):
            best[slot] = r.label
    generic: dict[str, bool] = {}
    rows: list[tuple[str, ...]] = []
    for (key, ctype, source, source_id), label in sorted(best.items()):
        if key not in generic:
            zipf = zipf_frequency(key, "en") if " " not in key else 0.0
            generic[key] = rules.is_generic(key, zipf)
        rows.append((label, ctype, source, source_id, key, "1" if generic[key] else "0"))
    ids = {r[3] for r in rows if r[3]}
    edges = sorted(e for e in b.edges if e[0] in ids and e[1] in ids)
    return rows, edges


def write_tsv_gz(path: Path, header: tuple[str, ...], rows: Iterable[tuple[str, ...]]) -> None:
    """Tab-separated, gzipped with mtime=0 and no file name: byte-identical on rebuild."""
    buf = io.StringIO()
    buf.write("\t".join(header) + "\n")
    for row in rows:
        if any("\t" in c or "\n" in c for c in row):
            raise SystemExit(f"{path}: a tab or newline inside {row!r}")
        buf.write("\t".join(row) + "\n")
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as gz:
        gz.write(buf.getvalue().encode("utf-8"))


def build(vocab: Path) -> tuple[list[tuple[str, ...]], list[tuple[str, str, str]]]:
    if not vocab.is_dir():
        raise SystemExit(f"{vocab} is not a directory: pass --vocab ../shared/data/vocab")
    b = Builder()
    pwc_methods(vocab, b)
    task_iris = pwc_tasks(vocab, b)
    sota_extractor(vocab, b, task_iris)
    nlp_tdms(vocab, b)
    cso(vocab, b)
    llm_list(vocab, b)
    return finalize(b)


def report(rows: list[tuple[str, ...]], edges: list[tuple[str, str, str]], sample: int) -> str:
    """Counts per source and type, per type, edges per source, and a seeded random sample."""
    keys = len({r[4] for r in rows})
    out = [f"{len(rows)} gazetteer rows, {keys} keys, {len(edges)} broader edges"]
    by_type = Counter(r[1] for r in rows)
    out.append("per type: " + ", ".join(f"{t} {n}" for t, n in sorted(by_type.items())))
    out.append(f"generic rows: {sum(r[5] == '1' for r in rows)}")
    for (source, ctype), n in sorted(Counter((r[2], r[1]) for r in rows).items()):
        out.append(f"  {source:15} {ctype:8} {n:6}")
    for source, n in sorted(Counter(e[2] for e in edges).items()):
        out.append(f"  edges {source:15} {n:6}")
    out.append(f"sample of {sample} rows (seed 0):")
    out.extend("  " + " | ".join(r) for r in random.Random(0).sample(rows, min(sample, len(rows))))
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--vocab",
        type=Path,
        default=ROOT.parent / "shared/data/vocab",
        help="the shared vocab folder (default: ../shared/data/vocab)",
    )
    parser.add_argument("--out", type=Path, default=ROOT / "kg/data", help="output folder")
    parser.add_argument("--sample", type=int, default=20, help="random rows to print")
    args = parser.parse_args()
    rows, edges = build(args.vocab)
    write_tsv_gz(args.out / "gazetteer.tsv.gz", GAZETTEER_HEADER, rows)
    write_tsv_gz(args.out / "vocab_hierarchy.tsv.gz", HIERARCHY_HEADER, edges)
    print(report(rows, edges, args.sample))


if __name__ == "__main__":
    main()
