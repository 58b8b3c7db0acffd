"""Text normalisation shared by canonicalisation, the gazetteer and evaluation.

`norm_key` is the matching key of a label: two labels with the same key name the same concept
(up to acronym handling, which is canonicalisation's job). It folds case, diacritics,
hyphen/space/underscore variants and a simple English plural on the last word, as the gold
guidelines describe. Only a word written as a plural is folded: a capital "S" is a letter of the
name ("GenRES"), and a CamelCase name is judged by its last part ("DecoderLens" keeps its lens,
"ResNets" is a plural).

>>> norm_key("Large Language Models")
'large language model'
>>> norm_key("large-language model")
'large language model'
>>> norm_key("Fréchet Video Distance") == norm_key("frechet video distances")
True
>>> norm_key("LLMs")
'llm'
>>> norm_key("GPT-4o")
'gpt 4o'
>>> norm_key("analysis")
'analysis'
>>> norm_key("MTHS"), norm_key("extensible stylesheet language (XSLT)")
('mths', 'extensible stylesheet language xslt')
>>> norm_key("GenRES"), norm_key("DecoderLens"), norm_key("ResNets"), norm_key("CNNs")
('genres', 'decoderlens', 'resnet', 'cnn')
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache

_SEPARATORS = re.compile(r"[\s\-‐‑‒–—_/]+")
_STRIP = re.compile(r"^[^\w]+|[^\w+#]+$")
_WS = re.compile(r"\s+")

# Last words that end in "s" but are not plurals (or whose singular is the same word).
_NOT_PLURAL = frozenset(
    """analysis basis axis thesis hypothesis synthesis diagnosis emphasis prognosis parenthesis
    kinematics dynamics physics mathematics statistics economics robotics linguistics semantics
    genomics graphics electronics optics mechanics ethics logistics pragmatics phonetics
    series species news bias gas lens corpus status focus consensus census calculus radius
    stimulus bonus campus virus nexus apparatus plus minus versus atlas canvas chaos cos
    process success access loss less class mass gauss boss pass glass cross express
    this its is was has does always sometimes perhaps whereas thus various previous
    numerous continuous autonomous heterogeneous homogeneous simultaneous spontaneous
    anonymous ambiguous analogous endogenous exogenous
    us gps os ios mas kits ars lps mis qs
    """.split()
)


def fold_diacritics(text: str) -> str:
    """'Fréchet' -> 'Frechet' (compatibility decomposition, combining marks dropped)."""
    if text.isascii():  # most labels: no ASCII character decomposes or combines
        return text
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def singularize(word: str) -> str:
    """A conservative English singular of one lower-cased word.

    >>> [singularize(w) for w in ["models", "llms", "queries", "boxes", "analysis", "heads"]]
    ['model', 'llm', 'query', 'box', 'analysis', 'head']
    """
    if len(word) <= 3 or word in _NOT_PLURAL or not word.endswith("s"):
        return word
    if word.endswith(("ss", "us", "is")):
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "xes", "zes", "sses")):
        return word[:-2]
    if word.endswith("'s"):
        return word[:-2]
    return word[:-1]


# Small: most calls come from `norm_key`'s misses (a tenth of calls hit a cache of 1 << 18
# labels, which took ~25 MB of each extraction worker on a large corpus).
@lru_cache(maxsize=1 << 14)
def norm_text(label: str) -> str:
    """`norm_key` without the plural folding: case, diacritics, separators, edge punctuation.

    >>> norm_text("Large-Language Models")
    'large language models'
    """
    text = fold_diacritics(label).lower()
    text = text.replace("’", "'")
    text = _SEPARATORS.sub(" ", text)
    text = _STRIP.sub("", text.strip())
    text = _WS.sub(" ", text).strip()
    if text.count("(") != text.count(")"):
        text = _WS.sub(" ", text.replace("(", " ").replace(")", " ")).strip()
    return text


# `norm_key`'s results for every label seen inside `keys_kept` (None: outside it).
_kept: dict[str, str] | None = None


@contextmanager
def keys_kept() -> Iterator[None]:
    """Keep every `norm_key` result of the block, not only the last 1 << 18 (re-entrant).

    The corpus stage (`kg.canon`, the vocabulary links) keys every mention of the corpus
    several times, pass after pass: at 35k papers ~1.3 M calls over more distinct labels than
    the LRU holds, so each pass evicted what the next one asked for and nearly every call
    missed (cProfile: `norm_text` ran once per `norm_key` call). A plain dict for the stage holds
    one entry per distinct label (those strings the corpus holds anyway) and goes with it.
    """
    global _kept
    if _kept is not None:
        yield
        return
    _kept = {}
    try:
        yield
    finally:
        _kept = None


def norm_key(label: str) -> str:
    """The matching key of a label (see module docstring); cached, labels repeat a lot."""
    kept = _kept
    if kept is None:
        return _norm_key(label)
    found = kept.get(label)
    if found is None:
        found = kept[label] = _norm_key(label)
    return found


@lru_cache(maxsize=1 << 18)
def _norm_key(label: str) -> str:
    text = norm_text(label)
    if not text:
        return ""
    head, _, last = text.rpartition(" ")
    original_last = label.strip().rsplit(maxsplit=1)[-1] if label.strip() else ""
    if written_plural(original_last):
        last = singularize(last)
    return f"{head} {last}" if head else last


_TRAILING = ").,;:!?\"'’]}"


def written_plural(word: str) -> bool:
    """Whether `word`, as written, may end in a plural "s" (`singularize` then decides how).

    Not when the "s" is a capital ("MTHS", "GenRES": letters of a name), nor when the last
    part of a CamelCase name is itself not a plural ("DecoderLens", "WinoBias", "MovieLens");
    a lower-case "s" after capitals is ("LLMs", "ResNets").

    >>> [written_plural(w) for w in ["models", "LLMs", "ResNets", "GenRES", "DecoderLens", "MTHS"]]
    [True, True, True, False, False, False]
    """
    word = word.rstrip(_TRAILING)
    if not word.endswith("s"):
        return False
    capitals = [i for i, ch in enumerate(word) if i > 0 and ch.isupper()]
    if capitals:
        part = word[capitals[-1]:].lower()
        return part not in _NOT_PLURAL and not part.endswith(("ss", "us", "is"))
    return True


def slug(key: str) -> str:
    """An IRI-safe slug of a key: lower-case ASCII letters, digits, '.', '-' and '_'.

    Characters outside that set become '-' runs, except '+' -> 'plus' and '#' -> 'sharp' so that
    'C++' and 'C#' keep distinct slugs.

    >>> slug("large language model")
    'large-language-model'
    >>> slug("gpt 4o")
    'gpt-4o'
    """
    text = fold_diacritics(key).lower().replace("+", "plus").replace("#", "sharp")
    text = re.sub(r"[^a-z0-9._]+", "-", text).strip("-.")
    return text or "_"
