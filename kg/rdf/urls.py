"""Web links of a paper: which are code repositories, and which are valid enough to emit.

>>> is_code_host("https://www.github.com/org/repo")
True
>>> is_code_host("https://org.github.io/project")
False
>>> web_iri("github.com/org/repo")
'https://github.com/org/repo'
>>> web_iri("javascript:alert(1)") is None
True
>>> web_iri("http://[bad") is None
True
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from pyoxigraph import NamedNode

CODE_HOSTS = frozenset({"github.com", "gitlab.com", "bitbucket.org", "huggingface.co", "hf.co"})

# "github.com/org/repo" as written in an abstract: a host name, then a path or the end.
_BARE_HOST = re.compile(r"^(?:www\.)?[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}(?:[/?#]|$)", re.I)


def web_iri(url: str) -> str | None:
    """The http(s) IRI of a link, or None when it is not one.

    A bare `host/path` gets `https://`; other schemes (`javascript:`, `mailto:`, `file:`) are
    refused because viewers render these IRIs as clickable links.
    """
    text = url.strip()
    if "://" not in text and _BARE_HOST.match(text):
        text = "https://" + text
    try:
        parts = urlsplit(text)
        NamedNode(text)
    except ValueError:  # malformed host or code point: not an IRI, the caller logs it
        return None
    if parts.scheme.lower() not in {"http", "https"} or not parts.netloc:
        return None
    return text


def is_code_host(url: str) -> bool:
    """True when the link points at a code or model hosting site (GitHub, Hugging Face, ...)."""
    host = (urlsplit(url).hostname or "").lower()
    return host.removeprefix("www.") in CODE_HOSTS
