"""Named things by their shape: "GPT-4o", "DuoAttention", "ChatQA 2", "SWE-Bench Lite".

A token is name-like when its spelling marks it: an upper-case letter after the first
character (CamelCase, acronyms), letters mixed with digits, or a capital in mid-sentence.
Runs of such tokens, version numbers ("Llama 3.0") and capitalised continuations ("Lite",
"Instruct") form one name. Runs of capitalised words ("Lottery Ticket Hypothesis") are names
too, except in title-cased text such as paper titles.
"""

from __future__ import annotations

import re

from spacy.tokens import Doc, Span, Token

from kg.extract.lexicon import DETERMINERS, NAME_TYPE_CUES

_QUANTITY = re.compile(
    # "near-100", "~50": an approximate quantity is a quantity
    r"^(?:(?:near|nearly|over|under|about|around|almost|sub|above|below)-|~)?"
    r"(\d+(\.\d+)?[kKmMbBtT]|\d+(\.\d+)?[x×%]|\d+(st|nd|rd|th)|\d+[dD]|\d{4}s?|[\d.,]+)$"
)
# Spelled like a model: a parameter count ("70B"), a chat/instruct variant, or a well-known
# model family's name at the start ("ChatGPT-4o", "Qwen2-72B", "ResNet-50"; not "BERTScore").
MODEL_NAME = re.compile(
    r"\d+(\.\d+)?[BbMm]\b|-(Instruct|Chat|Base|base|chat|instruct)\b|"
    r"^(GPT|ChatGPT|Llama|LLaMA|Qwen|Mistral|Mixtral|Gemma|Claude|Gemini|Phi|"
    r"DeepSeek|Vicuna|Falcon|OPT|BERT|RoBERTa|T5|ViT|CLIP|ResNet)(?=$|[-\s\d.])"
)
_VERSION = re.compile(r"^(v?\d+(\.\d+)*[a-z]?|[IVX]{1,4}|XL|XXL|Pro|Plus|Max|Mini|Lite|Turbo)$")
_HAS_LETTER = re.compile(r"[A-Za-z]")
_NAME_CHARS = re.compile(r"^[\w.+/'’&-]+$")
_CITATION_KEY = re.compile(r"^[a-z]+\d{4}[a-z]?$")
_CONNECTORS = frozenset({"of", "in", "for", "and", "on", "to"})
# Capitalised words that are not names even in mid-sentence.
_NOT_NAMES = frozenset(
    """I AI ML DL NLP CV RL LLM LLMs GPU GPUs CPU CPUs TPU API APIs PDF URL URLs HTTP
    GitHub Github Table Figure Fig Section Appendix Eq Theorem Lemma Corollary Definition
    Proposition Algorithm English Chinese Internet Web Python PyTorch TensorFlow JAX
    However Moreover Furthermore Additionally Finally First Second Third Then Thus Hence
    Specifically Notably Importantly Interestingly Experimental Extensive Code Our We
    Project Appendix Supplementary OpenReview arXiv January February March April May June
    July August September October November December NOT AND OR XOR""".split()
)
# Name-like tokens that are too generic to be concepts in their own right.
GENERIC_NAMES = frozenset({"AI", "ML", "DL", "GPU", "GPUs", "CPU", "API", "APIs", "SOTA", "URL"})


def is_quantity(text: str) -> bool:
    """Numbers with units or multipliers: '128K', '70B' alone, '2.5x', '34%', '3D', '2024'.

    >>> [is_quantity(t) for t in ["128K", "2.18x", "3D", "2024", "near-100", "GPT-4o", "A100", "."]]
    [True, True, True, True, True, False, False, False]
    """
    text = text.rstrip("+")  # "1M+"
    return bool(_QUANTITY.match(text)) and any(c.isdigit() for c in text)


_UNITS = frozenset(
    "KB MB GB TB PB GiB TiB Hz kHz MHz GHz FLOPs FLOPS GFLOPs TFLOPs PFLOPs TOPS ms Mbps Gbps "
    "kWh MWh dB".split()
)


def is_name_like(token: Token, *, title_case_text: bool = False) -> bool:
    """Is this token spelled like part of a name?"""
    text = token.text.removesuffix(".") if len(token.text) > 2 else token.text
    if not _HAS_LETTER.search(text) or is_quantity(text) or token.is_punct or token.like_url:
        return False
    if len(text) < 2 or not _NAME_CHARS.match(text) or _CITATION_KEY.match(text):
        return False
    if text in _NOT_NAMES:
        return False
    if text in _UNITS and token.i > 0 and token.nbor(-1).like_num:
        return False  # "18 GB", "3 TFLOPs": a unit after its number
    tail = text[1:]
    camel = any(c.isupper() for c in tail) and not text.isupper()
    if camel or (len(text) >= 2 and text.isupper()):
        return True
    if any(c.isdigit() for c in text):
        return True
    if title_case_text:
        return False
    # A capital in mid-sentence: "Shampoo", "Adagrad", "Transformer".
    return (
        text[:1].isupper()
        and not token.is_sent_start
        and token.i > 0
        and doc_prev_is_word(token)
        and token.pos_ in {"PROPN", "NOUN", "ADJ", "X"}
        and not _modifies_next_noun(token)
    )


def _modifies_next_noun(token: Token) -> bool:
    """An eponym used as a modifier ("Kronecker product", "Taylor expansions"): the term is the
    whole noun phrase, which the chunk rules find, not the bare capitalised word."""
    doc = token.doc
    if token.i + 1 >= len(doc):
        return False
    nxt = doc[token.i + 1]
    if nxt.text in {"’s", "'s"}:
        return True
    return nxt.is_lower and nxt.pos_ in {"NOUN", "PROPN"} and nxt.lower_ not in NAME_TYPE_CUES


def doc_prev_is_word(token: Token) -> bool:
    """True unless the previous token ends a sentence or opens a quote/bracket/heading."""
    prev = token.doc[token.i - 1]
    return prev.text not in {".", "!", "?", ":", "“", "\"", "(", "[", "—", "*", "-", "--"}


def _is_title_word(token: Token) -> bool:
    """A plain capitalised word ("Key", "Value"), not a name like "GPT-4o" or "MHA"."""
    return token.text.istitle() and token.is_alpha and token.text not in _NOT_NAMES


def _is_capitalised_word(token: Token) -> bool:
    text = token.text
    return bool(text[:1].isupper() and _HAS_LETTER.search(text) and not token.is_punct)


def name_spans(doc: Doc, *, title_case_text: bool = False) -> list[Span]:
    """Maximal name spans in `doc` (see module docstring), left to right, non-overlapping."""
    spans: list[Span] = []
    tokens = list(doc)
    n = len(tokens)
    name_like = [is_name_like(t, title_case_text=title_case_text) for t in tokens]
    i = 0
    while i < n:
        if name_like[i] or (
            not title_case_text and _starts_title_run(doc, i)
        ):
            end = i + 1
            while end < n:
                nxt = tokens[end]
                if nxt.is_sent_start or tokens[end - 1].text.endswith("."):
                    break  # a name never runs across a sentence boundary
                if nxt.whitespace_ == "" and end + 1 < n and nxt.text in {"-", "--"}:
                    end += 1
                    continue
                if name_like[end]:
                    end += 1
                    continue
                if (_VERSION.match(nxt.text) and not is_quantity(nxt.text)) or (
                    nxt.like_num and len(nxt.text) <= 4 and "." in nxt.text
                ):
                    end += 1
                    continue
                if nxt.like_num and len(nxt.text) <= 2 and end == i + 1:
                    end += 1
                    continue
                if (
                    not title_case_text
                    and _is_capitalised_word(nxt)
                    and nxt.text not in _NOT_NAMES
                ):
                    end += 1
                    continue
                if (
                    not title_case_text
                    and nxt.lower_ in _CONNECTORS
                    and (nxt.lower_ != "and" or end == i + 1)  # "Key and Value", not lists
                    and end + 1 < n
                    and _is_title_word(doc[end + 1])
                    and _is_title_word(doc[end - 1])
                ):
                    end += 2
                    continue
                if (
                    not title_case_text
                    and is_quantity(nxt.text)
                    and end + 1 < n
                    and _is_title_word(doc[end + 1])
                    and _is_title_word(doc[end - 1])
                ):
                    end += 2  # "Inflated 3D Convnet"
                    continue
                break
            span = doc[i:end]
            if span[-1].text.endswith(".") and len(span[-1].text) > 1:
                # "MiP." at a sentence end: spaCy kept the full stop on the token.
                span = span[:-1] if len(span) > 1 else span
            while len(span) > 1 and (span[-1].text in {"-", "--"} or span[-1].lower_ in
                                     _CONNECTORS):
                span = span[:-1]
            if span[0].lower_ in DETERMINERS:
                span = span[1:]
            if len(span) and not (len(span) == 1 and span.text in GENERIC_NAMES):
                spans.append(span)
            i = end
        else:
            i += 1
    return spans


def _starts_title_run(doc: Doc, i: int) -> bool:
    """Two or more capitalised words in a row, e.g. "Lottery Ticket Hypothesis".

    At a sentence start the first word's capital proves nothing, so the run must go on with a
    capitalised word after it ("Inertial Confinement Fusion" counts, "Diffusion models" not).
    """
    token = doc[i]
    if not _is_capitalised_word(token) or token.text in _NOT_NAMES or token.lower_ in DETERMINERS:
        return False
    if token.is_sent_start and token.pos_ in {
        "VERB", "AUX", "PRON", "ADP", "CCONJ", "SCONJ", "ADV", "PART"
    }:
        return False
    if i + 1 >= len(doc):
        return False
    nxt = doc[i + 1]
    if nxt.text in {"-", "--"} and nxt.whitespace_ == "" and i + 2 < len(doc):
        nxt = doc[i + 2]
    return _is_capitalised_word(nxt) and nxt.text not in _NOT_NAMES and nxt.pos_ not in {
        "VERB", "AUX", "PRON", "ADP", "CCONJ", "SCONJ", "ADV", "DET"
    }


def looks_title_cased(text: str) -> bool:
    """True for headline-style text where most words are capitalised (paper titles).

    >>> looks_title_cased("BEARCUBS: A Benchmark for Computer-Using Web Agents")
    True
    >>> looks_title_cased("Dynamical diffusion for temporal prediction")
    False
    """
    words = [w for w in re.findall(r"[A-Za-z][\w'-]*", text) if len(w) > 3]
    if len(words) < 2:
        return False
    capitalised = sum(1 for w in words if w[0].isupper())
    return capitalised / len(words) >= 0.6
