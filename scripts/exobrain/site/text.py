"""Small text helpers shared by every page: escaping, slugs, one-line summaries,
and the tokenizer/stemmer that the search index and ``assets/search.js`` must agree on.

The tokenizer and stemmer here are mirrored line by line in ``assets/search.js``
(functions ``tokens`` and ``stem``); ``tests/test_browser.py`` checks that both give
the same output on a sample of words. Change them together.
"""

from __future__ import annotations

import hashlib
import html
import re
import unicodedata

__all__ = ["esc", "one_line", "slug", "stem", "terms", "tokenize"]

_WORD = re.compile(r"[^\W_]+")
_SLUG_PLAIN = re.compile(r"[a-z0-9_-]+(?:/[a-z0-9_-]+)*")
_SLUG_BAD = re.compile(r"[^a-z0-9_.-]+")
_DIGIT = re.compile(r"\d")
_VOWEL = re.compile(r"[aeiouy]")
_STEM_CACHE: dict[str, str] = {}


def esc(value: object) -> str:
    """HTML-escape any value (quotes included) for text or attribute context."""
    return html.escape("" if value is None else str(value), quote=True)


def slug(value: str) -> str:
    """A file-name-safe, collision-free slug.

    A value made only of ``[a-z0-9_-]`` parts joined by ``/`` keeps its spelling with
    ``/`` turned into ``.`` (``groups/ml`` → ``groups.ml``). Anything else (upper case,
    dots, spaces, other characters) is lower-cased, reduced to ``[a-z0-9_.-]`` and given
    an 8-hex suffix of its SHA-1, so two different values never share a slug, also on
    case-insensitive file systems.
    """
    if value and _SLUG_PLAIN.fullmatch(value):
        return value.replace("/", ".")
    digest = hashlib.sha1(value.encode("utf-8")).hexdigest()[:8]
    base = _SLUG_BAD.sub("-", value.lower().replace("/", ".")).strip("-.")[:60]
    return f"{base}-{digest}" if base else f"x-{digest}"


def one_line(text: str, limit: int = 160) -> str:
    """The first line of ``text``, whitespace-collapsed, cut at a word before ``limit``."""
    first = " ".join((text or "").strip().splitlines()[:1]).strip()
    first = " ".join(first.split())
    if len(first) > limit:
        cut = first[: limit - 1].rsplit(" ", 1)[0]
        return cut + "…"
    return first


def tokenize(text: str) -> list[str]:
    """Lower-cased NFKC word tokens: runs of Unicode letters and digits."""
    return _WORD.findall(unicodedata.normalize("NFKC", text or "").lower())


def stem(word: str) -> str:
    """A light English stemmer (mirrored in ``assets/search.js``).

    Steps, in order: ``-ies``→``-y``, ``-sses``→``-ss``, drop a final ``-s`` (not after
    ``s``, ``u`` or ``i``); drop ``-ing``/``-ed`` when at least three letters with a vowel
    remain; drop a final ``-e`` when at least three letters remain. Words of three letters
    or fewer, and words containing digits, are kept as they are.
    """
    cached = _STEM_CACHE.get(word)
    if cached is not None:
        return cached
    w = word
    if len(w) > 3 and not _DIGIT.search(w):
        if w.endswith("ies") and len(w) > 4:
            w = w[:-3] + "y"
        elif w.endswith("sses"):
            w = w[:-2]
        elif w.endswith("s") and not w.endswith(("ss", "us", "is")):
            w = w[:-1]
        for suffix in ("ing", "ed"):
            if w.endswith(suffix):
                rest = w[: -len(suffix)]
                if len(rest) >= 3 and _VOWEL.search(rest):
                    w = rest
                break
        if w.endswith("e") and len(w) > 3:
            w = w[:-1]
    if len(_STEM_CACHE) < 200_000:
        _STEM_CACHE[word] = w
    return w


def terms(text: str) -> list[str]:
    """``tokenize`` then ``stem`` every token: what the index stores for a text."""
    return [stem(t) for t in tokenize(text)]
