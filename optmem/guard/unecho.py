"""A refusal never repeats a credential it was handed: ``unechoed`` puts the
argument's label in place of each value a credential rule matches."""

from __future__ import annotations

import re

from optmem.guard.secrets import find_credential


def unechoed(text: str, named) -> str:
    """``text`` (a refusal) with each value of ``named`` that a credential
    rule matches (``secrets.find_credential``) replaced by its label, quoted
    or not and in any case: ``[("argument 2", word), ...]`` for the CLI, a
    tool's argument names for another front end. A refusal so never repeats
    a token pasted where a block id, a pattern or a name was expected. For
    ``NAME=VALUE`` words the value alone counts too. Values under 8
    characters are never credentials and are left alone."""
    folded = text.casefold()
    for label, word in named:
        if not isinstance(word, str):
            continue
        for part in {word, word.split("=", 1)[-1]}:
            if len(part) < 8 or part.casefold() not in folded:
                continue
            if find_credential(part) is None and find_credential(word) is None:
                continue
            text = re.sub("[\"']?" + re.escape(part) + "[\"']?", label, text,
                          flags=re.IGNORECASE)
            folded = text.casefold()
    return text
