"""Text matchers shared by key-fact coverage and route scoring: ``(fact, text) -> bool``.

Matcher names (``exact``, ``fuzzy``) are the choices of the ``matchers`` settings in YAML.

Example:
    >>> exact_match("3600 Seconds", "Tokens expire after 3600 seconds.")
    True
    >>> fuzzy_match("token expiry", "expiry of the access token")
    True
"""

from collections.abc import Callable

Matcher = Callable[[str, str], bool]


def exact_match(fact: str, text: str) -> bool:
    """Exact substring match."""
    return fact.lower() in text.lower()


def fuzzy_match(fact: str, text: str) -> bool:
    """Word-level fuzzy match."""
    text_lower = text.lower()
    fact_lower = fact.lower()
    if fact_lower in text_lower:
        return True
    # If all words from the fact appear in the text
    words = fact_lower.split()
    if len(words) >= 2 and all(w in text_lower for w in words):
        return True
    return False


MATCHERS: dict[str, Matcher] = {"exact": exact_match, "fuzzy": fuzzy_match}
