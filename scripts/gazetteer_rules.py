"""Typing tables and label-cleaning rules of the gazetteer build (scripts/build_gazetteer.py).

Pure functions and plain tables only, so each rule can be read and tested alone. See
kg/data/GAZETTEER.md for why each decision was taken.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from urllib.parse import quote

# ---------------------------------------------------------------------------------------------
# PwC method collections -> the type of their member methods.
# Architectures and model families are Model; techniques, building blocks, optimizers,
# regularizers, losses, attention mechanisms, training/distributed schemes are Method.
# Every collection of methods.json is in exactly one of the two sets (the build fails on a new
# one, so that a human decides).


def _names(text: str) -> frozenset[str]:
    """A set from a '|'-separated table written over several lines."""
    return frozenset(name.strip() for name in text.split("|"))


def _words(text: str) -> frozenset[str]:
    """A set from a whitespace-separated table."""
    return frozenset(text.split())


MODEL_COLLECTIONS = _names(
    """3D Face Mesh Models|3D Object Detection Models|6D Pose Estimation Models|
    Action Recognition Models|Arbitrary Object Detectors|Autoencoding Transformers|
    Autoregressive Transformers|Backbone Architectures|Bidirectional Recurrent Neural Networks|
    Binary Neural Networks|Board Game Models|CAD Design Models|Cache Replacement Models|
    Card Game Models|Code Generation Transformers|Conditional Image-to-Image Translation Models|
    Contextualized Word Embeddings|Conversational Models|Convolutional Neural Networks|
    Deep Tabular Learning|Dependency Parsers|Deraining Models|Dialogue State Trackers|
    Diffusion Models|Document Embeddings|Document Understanding Models|Entity Recognition Models|
    Entity Retrieval Models|Exaggeration Detection Models|Face Detection Models|
    Face Recognition Models|Face Restoration Models|Factorization Machines|
    Font Generation Models|Gated Linear Networks|Generative Adversarial Networks|
    Generative Audio Models|Generative Models|Generative Sequence Models|Generative Video Models|
    Graph Models|Graphics Models|Human Object Interaction Detectors|Image Colorization Models|
    Image Decomposition Models|Image Denoising Models|Image Generation Models|
    Image Manipulation Models|Image Models|Image Quality Models|Image Restoration Models|
    Image Retrieval Models|Image Segmentation Models|Image Super-Resolution Models|
    Incident Aggregation Models|Inference Engines|Instance Segmentation Models|
    Interactive Semantic Segmentation Models|Lane Detection Models|Language Models|
    Layout Annotation Models|Learning to Rank Models|Light-weight neural networks|
    Likelihood-Based Generative Models|Localization Models|Machine Translation Models|
    Math Formula Detection Models|Medical Image Models|Mesh-Based Simulation Models|
    Monocular Depth Estimation Models|Motion Prediction Models|Multi-Object Tracking Models|
    OCR Models|Object Detection Models|One-Stage Object Detection Models|Open-Domain Chatbots|
    Oriented Object Detection Models|Paraphrase Generation Models|Passage Re-Ranking Models|
    Person Search Models|Point Cloud Models|Portrait Matting Models|Pose Estimation Models|
    Position Recovery Models|Q-Learning Networks|Question Answering Models|
    RGB-D Saliency Detection Models|RL Transformers|Reading Comprehension Models|
    Reading Order Detection Models|Recurrent Neural Networks|Relation Extraction Models|
    Reversible Image Conversion Models|Robotic Manipulation Models|Scene Text Models|
    Semantic Segmentation Models|Sentence Embeddings|Sequence Editing Models|
    Sequence To Sequence Models|Speech Embeddings|Speech Recognition|Speech Separation Models|
    Spreadsheet Formula Prediction Models|Static Word Embeddings|
    Stereo Depth Estimation Models|Style Transfer Models|Super-Resolution Models|
    Table Parsing Models|Table Question Answering Models|Taxonomy Expansion Models|
    Text Classification Models|Text-to-Speech Models|Textual Inference Models|
    Theorem Proving Models|Thermal Image Processing Models|Topic Embeddings|
    Trajectory Prediction Models|Transformers|Twin Networks|VQA Models|Video Game Models|
    Video Inpainting Models|Video Instance Segmentation Models|Video Interpolation Models|
    Video Object Segmentation Models|Video Panoptic Segmentation Models|Video Quality Models|
    Video Recognition Models|Video Super-Resolution Models|Video-Text Retrieval Models|
    Vision Transformers|Vision and Language Pre-Trained Models|Word Embeddings|
    Working Memory Models"""
)

METHOD_COLLECTIONS = _names(
    """2D Parallel Distributed Methods|3D Reconstruction|3D Representations|
    Action Recognition Blocks|Activation Functions|Active Learning|Actor-Critic Algorithms|
    Adaptive Activation Functions|Adaptive Computation|Adversarial Attacks|
    Adversarial Image Data Augmentation|Adversarial Training|Affinity Functions|
    Air Quality Forecasting|Anchor Generation Modules|Anchor Supervision|Approximate Inference|
    Asynchronous Data Parallel|Asynchronous Pipeline Parallel|Attention|Attention Mechanisms|
    Attention Modules|Attention Patterns|Audio Artifact Removal|Audio Model Blocks|
    Augmented Reality Methods|Auto Parallel Methods|AutoML|Bayesian Reinforcement Learning|
    Behaviour Policies|Bijective Transformation|Bot Detection|Cashier-Free Shopping|Clustering|
    Confidence Calibration|Confidence Estimators|Control and Decision Systems|Convolutions|
    Copy Mechanisms|Counting Methods|Data Parallel Methods|Degridding|Density Ratio Learning|
    Detection Assignment Rules|Dialog Adaptation|Dialog System Evaluation|
    Dimensionality Reduction|Discriminators|Distillation|Distributed Communication|
    Distributed Methods|Distributed Reinforcement Learning|Distribution Approximation|
    Distributions|Document Summary Evaluation|Domain Adaptation|Downsampling|Efficient Planning|
    Eligibility Traces|Ensembling|Environment Design Methods|Explainable CNNs|
    Exploration Strategies|Face Privacy|Face-to-Face Translation|Feature Extractors|
    Feature Matching|Feature Pyramid Blocks|Feature Upsampling|Feedforward Networks|
    Few-Shot Image-to-Image Translation|Fine-Tuning|Fourier-related Transforms|Fuzzy Logic|
    Generalization|Generalized Additive Models|Generalized Linear Models|
    Generative Discrimination|Generative Training|Geometric Matching|Global Context Modules|
    Graph Data Augmentation|Graph Embeddings|Graph Representation Learning|
    Heuristic Search Algorithms|Hybrid Fuzzing|Hybrid Optimization|Hybrid Parallel Methods|
    Hyperparameter Search|Image Data Augmentation|Image Feature Extractors|
    Image Inpainting Modules|Image Model Blocks|Image Representations|Image Scaling Strategies|
    Image Semantic Segmentation Metric|Imitation Learning Methods|Inference Attack|
    Inference Extrapolation|Information Bottleneck|Information Retrieval Methods|Initialization|
    Input Embedding Factorization|Instance Segmentation Modules|Interpretability|
    Intra-Layer Parallel|Kernel Methods|Knowledge Distillation|Label Correction|
    Language Model Components|Language Model Pre-Training|Large Batch Optimization|
    Latent Variable Sampling|Leadership Inference|Learning Rate Schedules|Lifelong Learning|
    Long-Range Interaction Layers|Loss Functions|Manifold Disentangling|
    Markov Chain Monte Carlo|Mask Branches|Medical waveform analysis|Meshing|
    Meta-Learning Algorithms|Miscellaneous Components|Mixture-of-Experts|Model Compression|
    Model Parallel Methods|Momentum Rules|Motion Control|Multi-Modal Methods|
    Multi-Scale Training|Multi-scale analysis|Music Transcription|Music source separation|
    Negative Sampling|Network Shrinking|Neural Architecture Search|Non-Parametric Classification|
    Non-Parametric Regression|Normalization|Object Detection Modules|Off-Policy TD Control|
    Offline Reinforcement Learning Methods|On-Policy TD Control|Optimization|
    Out-of-Distribution Example Detection|Output Functions|Output Heads|
    Parameter Norm Penalties|Parameter Server Methods|Parameter Sharing|Path Planning|
    Phase Reconstruction|Playstyle|Point Cloud Augmentation|Point Cloud Representations|
    Policy Evaluation|Policy Gradient Methods|Pooling Operations|Pose Estimation Blocks|
    Position Embeddings|Pre-Fine-Tuning Weight Recovery|Prioritized Sampling|
    Probability distribution representation|Prompt Engineering|Proposal Filtering|Pruning|
    Quantum Methods|Randomized Value Functions|Recommendation Systems|Region Proposal|
    Regularization|Reinforcement Learning Frameworks|Rendezvous|Replay Memory|
    Replicated Data Parallel|Representation Learning|RoI Feature Extractors|Robust Training|
    Robustness Methods|Rule Learners|Rule-based systems|SLAM Methods|Sample Re-Weighting|
    Self-Supervised Learning|Self-Training Methods|Semantic Segmentation Modules|
    Semi-Supervised Learning Methods|Sequence Decoding Methods|Sequential Blocks|
    Sharded Data Parallel Methods|Skip Connection Blocks|Skip Connections|Span Representations|
    Sparsity|Speaker Diarization|Speech Synthesis Blocks|Speech enhancement|
    State Similarity Metrics|Statistical Inference|Stochastic Optimization|
    Structured Prediction|Style Transfer Modules|Subword Segmentation|
    Synchronous Pipeline Parallel|Synthesized Attention Mechanisms|Tabular Data Generation|
    Temporal Convolutions|Ternarization|Text Augmentation|Text Data Augmentation|
    Text Instance Representations|Textual Meaning|Time Delay Estimation|Time Series Analysis|
    Time Series Modules|Tokenizers|Trajectory Data Augmentation|
    Unpaired Image-to-Image Translation|Value Function Estimation|Variational Optimization|
    Video Data Augmentation|Video Frame Interpolation|Video Model Blocks|Video Sampling|
    Webpage Object Detection Pipeline|Whitening"""
)

# Collections named like a task: their own label row is a Task, whatever their members are.
TASK_NAMED_COLLECTIONS = _names(
    """Air Quality Forecasting|Bot Detection|Music Transcription|Music source separation|
    Speaker Diarization|Speech Recognition|Speech enhancement|Time Delay Estimation|
    Video Frame Interpolation|Domain Adaptation|Active Learning|Cashier-Free Shopping"""
)

# Methods whose first-listed collection misleads (ties are broken by the first collection).
METHOD_TYPE_OVERRIDES = {"clip": "Model", "bert": "Model", "gpt": "Model", "gpt-2": "Model"}

# PwC method entries that are spam, deleted or not a method (by slug).
DROP_METHOD_SLUGS = _words(
    """library dhf stategame-maintain-picture-balanced-play poker-software-developer
    calculation-of-price-graphs-reversal-point"""
)

# ---------------------------------------------------------------------------------------------
# Generic labels: matching them alone (case-insensitively) is no evidence of the concept.
BROAD_KEYS = _names(
    """machine learning|deep learning|neural network|deep neural network|artificial neural network|
    artificial intelligence|computer vision|natural language processing|computer science|
    data mining|pattern recognition|image processing|signal processing|learning algorithm|
    learning system|learning model|deep model|neural model|statistical learning|
    representation learning|classification task|optimization problem|3d|2d|nlp|ai|ml|cv|
    model|algorithm|method|approach|framework|system|technique|data|dataset|training|
    inference|network|architecture|task|performance|benchmark|feature|representation|
    evaluation|experiment|application|problem|theory|information|knowledge|
    image|video|text|language|speech|audio|graph|signal"""
)

# Common English words (wordfreq Zipf >= GENERIC_ZIPF) that are nonetheless specific ML terms.
ML_SENSE = _words("accuracy precision recall adam bert cnn perplexity f1")
GENERIC_ZIPF = 3.5


def is_generic(key: str, zipf: float) -> bool:
    """True for a very broad key, or a one-word key that is a common English word.

    `zipf` is the wordfreq Zipf frequency of `key` (computed by the caller, so that this
    function stays pure).

    >>> is_generic("machine learning", 0.0), is_generic("step", 5.1), is_generic("accuracy", 4.2)
    (True, True, False)
    """
    if key in BROAD_KEYS:
        return True
    return " " not in key and key not in ML_SENSE and zipf >= GENERIC_ZIPF


# ---------------------------------------------------------------------------------------------
# CSO topics: the type from the head noun (the last word, parentheticals removed). CSO names no
# particular dataset or metric ("machining accuracy", "text corpora" are concepts), so those stay
# Concept.
HEAD_TYPES: dict[str, str] = {}
for _type, _heads in {
    "Task": """learning recognition classification detection segmentation estimation prediction
        retrieval translation tracking parsing summarization generation extraction answering
        labeling labelling tagging localization localisation captioning inpainting denoising
        forecasting disambiguation recommendation clustering super-resolution mining
        identification verification synthesis reconstruction understanding""",
    "Method": """algorithm algorithms method methods technique techniques descent search
        sampling regularization normalization optimization optimisation kernel kernels filter
        filters transform transforms embedding embeddings heuristic heuristics propagation
        boosting bagging pruning distillation augmentation quantization dropout attention""",
    "Model": """network networks net nets machine machines autoencoder autoencoders
        transformer transformers perceptron perceptrons classifier classifiers lstm lstms rnn
        rnns cnn cnns gan gans llm llms""",
}.items():
    for _head in _heads.split():
        HEAD_TYPES[_head] = _type


# "X model(s)" is a model family only after these words ("data model" is not).
MODEL_PHRASES = frozenset(
    f"{w} {m}"
    for w in _words(
        "language diffusion foundation generative markov topic mixture graphical "
        "sequence neural probabilistic autoregressive"
    )
    for m in ("model", "models")
)


def head_type(label: str) -> str:
    """The concept type a CSO topic's head noun implies ("Concept" when none does).

    >>> [head_type(x) for x in ["reinforcement learning", "genetic algorithms", "neural networks",
    ...                         "support vector machines (svms)", "ontology", "language models"]]
    ['Task', 'Method', 'Model', 'Model', 'Concept', 'Model']
    """
    base = re.sub(r"\([^)]*\)", " ", label).split()
    if len(base) >= 2 and " ".join(base[-2:]).lower() in MODEL_PHRASES:
        return "Model"
    return HEAD_TYPES.get(base[-1].lower(), "Concept") if base else "Concept"


# ---------------------------------------------------------------------------------------------
# Label cleaning.
SHORT_METRICS = frozenset({"AP", "EM"})  # two-letter metric names worth keeping
_JUNK = re.compile(r"^[\W\d_]*$")  # no letter at all: empty, quotes, numbers, punctuation
_WS = re.compile(r"\s+")


def clean_label(text: str) -> str:
    """Whitespace, HTML entities, wrapping quotes and stray trailing punctuation removed."""
    text = unicodedata.normalize("NFC", text).replace("&amp;", "&").replace("\u00a0", " ")
    text = _WS.sub(" ", text).strip()
    while len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        text = text[1:-1].strip()
    return text.rstrip(",;:").strip()


def is_junk(label: str) -> bool:
    """Empty, quotes-only, pure numbers, one or two characters (unless letter+digit like "T5"),
    sentence-long, or unbalanced brackets.

    >>> [is_junk(x) for x in ['""', "16", "a", "Go", "T5", "F1", "BERT", "x (y"]]
    [True, True, True, True, False, False, False, True]
    """
    if _JUNK.match(label):
        return True
    if len(label) <= 2:
        return not (any(c.isdigit() for c in label) and any(c.isalpha() for c in label))
    if len(label) > 80 or len(label.split()) > 10:
        return True
    return label.count("(") != label.count(")") or label.count("[") != label.count("]")


def is_abbreviation(short: str, long: str) -> bool:
    """True when `short` can abbreviate `long` (Schwartz & Hearst 2003, PSB, "A simple algorithm
    for identifying abbreviation definitions in biomedical text"): every letter and digit of the
    short form occurs in the long form in order, the first one at the start of a word.

    Hand-written because only this one check is needed at build time (scispacy's version would
    pull in a heavy dependency for a dozen lines).

    >>> is_abbreviation("VQA", "Visual Question Answering"), is_abbreviation("TM", "Teacher")
    (True, False)
    >>> is_abbreviation("GLaM", "Generalist Language Model")
    True
    """
    if not 2 <= len(short) <= 12 or " " in short.strip() or not any(c.isalpha() for c in short):
        return False
    if len(long.split()) > min(len(short) + 5, 2 * len(short)) or len(long) <= len(short):
        return False
    s, ll = short.lower(), long.lower()
    i, j = len(s) - 1, len(ll) - 1
    while i >= 0:
        c = s[i]
        if not c.isalnum():
            i -= 1
            continue
        while j >= 0 and (ll[j] != c or (i == 0 and j > 0 and ll[j - 1].isalnum())):
            j -= 1
        if j < 0:
            return False
        i -= 1
        j -= 1
    return True


_PAREN = re.compile(r"^(?P<before>[^()]*?)\s*\((?P<inner>[^()]+)\)\s*(?P<after>[^()]*)$")


def variants(label: str, *, qualifier_base: bool = False) -> list[str]:
    """Alias forms of a label with one parenthetical that is an acronym or an expansion:
    "X (ACR) Y" -> "X Y", "ACR Y"; "ACR (Expansion)" -> "ACR", "Expansion".

    A parenthetical qualifier ("Reinforcement Learning (Atari Games)") names a variant, so the
    base is no alias of it, unless `qualifier_base` says the source puts descriptions there.

    >>> variants("Visual Question Answering (VQA)")
    ['Visual Question Answering', 'VQA']
    >>> variants("Out of Distribution (OOD) Detection")
    ['Out of Distribution Detection', 'OOD Detection']
    >>> variants("GLaM (Generalist Language Model)")
    ['GLaM', 'Generalist Language Model']
    >>> variants("ObjectNet (ImageNet classes)")
    []
    >>> variants("AlexaTM (Teacher Models)", qualifier_base=True)
    ['AlexaTM']
    """
    m = _PAREN.match(label)
    if not m:
        return []
    before, inner, after = (m.group(g).strip() for g in ("before", "inner", "after"))
    if not before:
        return []
    base = _WS.sub(" ", f"{before} {after}").strip()
    if is_abbreviation(inner, before):
        return [base, _WS.sub(" ", f"{inner} {after}").strip()]
    if not after and (is_abbreviation(before, inner) or inner.startswith(before)):
        return [base, inner]
    return [base] if qualifier_base else []


def fix_cso_label(label: str) -> str:
    """Repair CSO's broken unicode escapes: "cramu00e9r-rao" -> "cramér-rao"."""
    return re.sub(r"u00([0-9a-f]{2})", lambda m: chr(int(m.group(1), 16)), label)


def cso_iri(label: str) -> str:
    """The CSO topic IRI of a label (spaces -> underscores, then percent-encoded)."""
    return "https://cso.kmi.open.ac.uk/topics/" + quote(label.replace(" ", "_"), safe="_-.()'")


def django_slug(text: str) -> str:
    """The slug Papers-with-Code (a Django site) derives from a name.

    Mirrors django.utils.text.slugify (three regexes; Django itself is not worth a dependency).
    PwC kept old slugs when it renamed a task or dataset, so a derived IRI may not resolve.

    >>> django_slug("Named Entity Recognition (NER)"), django_slug("Sequence To Sequence Models")
    ('named-entity-recognition-ner', 'sequence-to-sequence-models')
    """
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"[^\w\s-]", "", text.lower())
    return re.sub(r"[-\s]+", "-", text).strip("-_")


# ---------------------------------------------------------------------------------------------
# Metrics: a name is kept when every word is a metric word or a modifier, and one is a metric.
METRIC_WORDS = _words(
    """accuracy acc error err f1 f fscore measure bleu sacrebleu rouge meteor cider spice chrf
    ter bleurt bertscore map ap auc auroc aupr auprc roc iou miou psnr ssim lpips fid kid fvd
    rmse mse mae mape nll perplexity ppl wer cer per eer mrr ndcg hits hit recall precision
    r@ p@ hits@ hit@ recall@ ndcg@ map@ mrr@ pass@ ap@ precision@ em exact dice jaccard mcc
    nmi ari correlation spearman pearson kendall loss bpc bpb fps flops gflops macs params
    parameters mota motp idf1 hota pq sdr sdri stoi pesq mos sari smatch las uas return reward
    success specificity sensitivity epe mpjpe pck chamfer emd purity elo gleu"""
)
METRIC_MODIFIERS = _words(
    """mean average avg macro micro weighted balanced overall top class box mask total
    normalized normalised absolute squared root rate score per character word bit bits of number
    at k rank match end point frechet inception distance coefficient intersection over union
    area under curve log likelihood negative equal sentence token span entity joint goal strict
    unlabeled labeled attachment si snr rho tau l m"""
)
_METRIC_WORD = re.compile(r"[a-z]+\d*@?|\d+")
_NOT_A_METRIC_CHAR = re.compile(r"[,/&=≤≥°<>]")
_SPLIT_PREFIX = re.compile(r"^(?:%\s*|(?:test|validation|val|dev)\s+)", re.IGNORECASE)


def is_metric_name(name: str) -> bool:
    """True when `name` reads as a metric ("Top-1 Accuracy", "mAP@0.5", "BLEU-4").

    >>> [is_metric_name(x) for x in ["Top-1 Accuracy", "mAP@0.5:0.95", "Accuracy on Books",
    ...                              "Score", "Word Error Rate", "Kitchen"]]
    [True, True, False, False, True, False]
    """
    words = [w for w in _METRIC_WORD.findall(name.lower()) if not w.isdigit()]
    words = [re.sub(r"(?<=[a-z])\d+$", "", w) if w not in METRIC_WORDS else w for w in words]
    if not words:
        return False
    vocab = METRIC_WORDS | METRIC_MODIFIERS
    return all(w in vocab for w in words) and any(w in METRIC_WORDS for w in words)


def clean_metric(raw: str) -> list[str]:
    """The real metric names in a leaderboard column header (none, one, or name + acronym).

    Units and split qualifiers are dropped ("Accuracy (%)" -> "Accuracy", "Test F1 score" ->
    "F1 score"), an acronym in parentheses becomes its own name, anything that does not read
    as a metric is dropped.

    >>> clean_metric("Word Error Rate (WER)"), clean_metric("Accuracy (%)")
    (['Word Error Rate', 'WER'], ['Accuracy'])
    >>> clean_metric("Test F1 score"), clean_metric("Accuracy on Books"), clean_metric("Dev")
    (['F1 score'], [], [])
    """
    name = clean_label(raw)
    name = re.sub(r"\s*\[[^\]]*\]\s*", " ", name).strip()
    while _SPLIT_PREFIX.match(name):  # "% Test Accuracy" -> "Accuracy"
        name = _SPLIT_PREFIX.sub("", name, count=1)
    name = name.rstrip("% ").strip()
    if _NOT_A_METRIC_CHAR.search(name) or not name[:1].isalpha():
        return []  # "R@1,IoU=0.5", "PSNR/SSIM", "F1≤20°", "1:1 Accuracy": settings, not names
    out = variants(name, qualifier_base=True) if "(" in name else [name]
    return _unique(n for n in out if (n in SHORT_METRICS or not is_junk(n)) and is_metric_name(n))


def _unique(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(items))


# ---------------------------------------------------------------------------------------------
# sota-extractor model names: words that make a row label a description, not a model name.
NOT_A_MODEL_WORD = _words(
    "baseline anonymous single ensemble model models layer layers encoders encoder with et al "
    "and the of for on team system microsoft ibm msra cmu google kakao brain nec uiuc deepl"
)
# Leaderboard submission handles rather than model names: "baseline1", "Model_Team_34".
SUBMISSION_HANDLE = re.compile(r"_|^(baseline|ensemble|model|team|batch)", re.IGNORECASE)


def clean_model_name(raw: str) -> str | None:
    """A leaderboard row's model name reduced to a model name, or None when it is a
    description ("BERT + X (single model)", "Baseline", "Lee et al. (2017)").

    >>> clean_model_name("AWD-LSTM-MoS (2018)"), clean_model_name("BERT Large (single model)")
    ('AWD-LSTM-MoS', 'BERT Large')
    >>> clean_model_name("BERT + BiLSTM"), clean_model_name("Attentive reader")
    (None, None)
    """
    name = re.sub(r"\([^)]*\)|\*", " ", clean_label(raw))
    name = re.sub(r"\b(19|20)\d\d\b", " ", name)
    name = " ".join(name.split())
    if not name or not name[0].isalpha() or re.search(r"[+&/,:?;]| w/", name):
        return None
    if SUBMISSION_HANDLE.search(name):
        return None
    words = name.split()
    if len(words) > 3 or any(w.lower().strip(".") in NOT_A_MODEL_WORD for w in words):
        return None
    # A model name has a capital after its first letter or a digit: "ESIM", "BiDAF", "T5".
    if not any(c.isupper() or c.isdigit() for w in words for c in w[1:]):
        return None
    return name
