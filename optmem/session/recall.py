"""``memo recall``: each store the selection reads, in its own headed
section where there are several; ``--json`` as one list (docs/protocol.md,
"JSON"); the hints and refusals that name ``recall -F`` where a pattern is
held as written."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from optmem import protocol
from optmem.errors import BadInput
from optmem.session.stores import Result, Stores, heading_global, heading_project, lazy_json

if TYPE_CHECKING:  # for the annotations alone (a command opens stores through its front end)
    from optmem.store.memory import Store


def recall_sections(scope: Any, gstore: Store, pstore: Store, pattern: str, budget: int,
                    fixed: bool = False) -> list:
    """``[(heading, RecallResult), ...]`` for the global and project stores,
    each searched within half of ``budget`` bytes; with ``fixed`` the
    pattern is a text found literally (``core.recall``)."""
    from optmem.engine import core
    half = max(1, budget // 2)
    return [(heading_global(scope), core.recall(gstore, pattern, half, fixed)),
            (heading_project(scope), core.recall(pstore, pattern, half, fixed))]


def _rows(result: Any) -> list:
    """Recall's lines as ``{id, date, text}`` objects. A line whose head is
    not ``#<id> <date> `` (a damaged record, matched as its raw bytes) is
    ``{"id": null, "date": null, "text": <the whole line>}``: nothing of it
    is dropped or read as a date it is not."""
    from optmem.store.memory import is_date
    out = []
    for line in result.lines:
        head, date, text = (line.split(" ", 2) + ["", ""])[:3]
        if head[:1] == "#" and head[1:].isdigit() and head[1:].isascii() and is_date(date):
            out.append({"id": int(head[1:]), "date": date, "text": text})
        else:
            out.append({"id": None, "date": None, "text": line})
    return out


def _size(rows: list) -> int:
    return 2 + sum(len(lazy_json().dumps(o, ensure_ascii=False).encode()) + 2 for o in rows)


def _newest(rows: list, budget: int) -> list:
    """``rows`` without its oldest entries until their JSON is at most
    ``budget`` bytes (escaping may grow a line: the newest are kept)."""
    size = _size(rows)
    while rows and size > budget:
        size -= len(lazy_json().dumps(rows.pop(0), ensure_ascii=False).encode()) + 2
    return rows


def recall_json(store: Store, pattern: str, fixed: bool = False) -> tuple:
    """``memo recall --json`` over one store: ``(json text, notice or
    None)``, the list of ``{id, date, text}`` within ``PART_CHARS`` bytes,
    the newest kept, and the notice when fewer than all matches are shown.
    With ``fixed`` the pattern is a text found literally."""
    from optmem.engine import core
    budget = store.config().PART_CHARS
    result = core.recall(store, pattern, max(budget - 200, budget // 2), fixed)
    rows = _newest(_rows(result), budget)
    return lazy_json().dumps(rows, ensure_ascii=False), _notice(len(rows), result.total)


def recall_json_both(sc: Any, gstore: Store, pstore: Store, pattern: str,
                     fixed: bool = False) -> tuple:
    """``recall --json`` over both stores: ``(JSON list as text, notice or
    None)``: the global store's items, then the project's, each
    ``{"store": "global" or the project's name, "id", "date", "text"}``
    (``store`` first), each store's within half of ``PART_CHARS`` bytes as
    ``recall_json`` keeps it, with the same notice when either shows fewer
    than all its matches. One shape whatever the scope: a list (docs/commands.md)."""
    from optmem.scope import GLOBAL
    budget = gstore.config().PART_CHARS
    out, shown, total = [], 0, 0
    for name, (_, result) in zip((GLOBAL, sc.project),
                                 recall_sections(sc, gstore, pstore, pattern, budget - 400,
                                                 fixed)):
        rows = [{"store": name, **row} for row in _rows(result)]
        rows = _newest(rows, max(1, (budget - 4) // 2))
        out += rows
        shown, total = shown + len(rows), total + result.total
    return lazy_json().dumps(out, ensure_ascii=False), _notice(shown, total)


def _notice(shown: int, total: int) -> str | None:
    if shown < total:
        return f"showing the newest {shown} of {total} matches; narrow the regex"
    return None


def _counted(result: Any) -> list:
    """A recall result's lines, then its count line."""
    return [*result.lines, protocol.recall_count(len(result.lines), result.total, result.cut)]


def recall(st: Stores, pattern: str, fixed: bool = False, as_json: bool = False) -> Result:
    """``memo recall PATTERN``: the matching lines, then the count line, each
    store's within ``PART_CHARS`` bytes (200 of them kept for the count
    line). With a project active and no scope named, both stores, each
    under its heading with its own count line, within half the budget
    each (``recall_sections``). ``as_json``: ``recall_json`` (or
    ``recall_json_both``), its notice as a note. ``fixed``: the pattern is
    a text found literally."""
    from optmem.engine import core
    st.g  # noqa: B018 - the global store is read first, whichever store answers
    both = st.sel.several
    if pattern and not fixed:
        refused = _bad_regex(st, [st.g, st.p] if both else [st.p or st.g], pattern)
        if refused is not None:
            raise refused
    if as_json:
        text, notice = (recall_json_both(st.sc, st.g, st.written(), pattern, fixed) if both
                        else recall_json(st.written(), pattern, fixed))
        return Result([text], [f"memo: {notice}"] if notice else [])
    if both:
        lines, total = [], 0
        for heading, result in recall_sections(st.sc, st.g, st.written(), pattern,
                                               st.g.config().PART_CHARS - 400, fixed):
            lines += [heading, *_counted(result)]
            total += result.total
        return Result(lines, _as_written(st, [st.g, st.p], pattern) if not (total or fixed)
                      else [])
    store = st.p or st.g
    budget = store.config().PART_CHARS
    result = core.recall(store, pattern, max(budget - 200, budget // 2), fixed)
    return Result(_counted(result), _as_written(st, [store], pattern)
                  if not (result.total or fixed) else [])


#: Characters that make a regex read a text other than as written.
_REGEX_SYNTAX = frozenset("$^()[]{}.*+?|\\")


def _fixed_order(st: Stores, pattern: str) -> str:
    """``Run: memo recall -F PATTERN`` (the scope flag as given, the pattern
    one shell word), or in the ``mcp`` form the tool call with ``fixed``."""
    return protocol.run(protocol.Order("recall", ("-F", protocol.Value(pattern)),
                                       protocol.Order.scoped(st.sel.given()), flag_first=True))


def _held_as_written(st: Stores, stores: list, pattern: str) -> str | None:
    """``N lines hold it as written. Run: memo recall -F PATTERN`` when
    lines of ``stores`` hold ``pattern`` as written (a fixed recall, which
    counts them), else None."""
    from optmem.engine import core
    found = sum(core.recall(store, pattern, 1, True).total for store in stores)
    if not found:
        return None
    return (f"{found} line{'s hold' if found > 1 else ' holds'} it as written. "
            f"{_fixed_order(st, pattern)}")


def _bad_regex(st: Stores, stores: list, pattern: str) -> BadInput | None:
    """For a pattern Python's ``re`` refuses (``f(``, ``[x``) that some line
    holds as written: the refusal (``BadInput``) naming how many lines hold
    it and ending with the ``-F`` order that finds them; else None (the
    search's own refusal stands)."""
    import re
    try:
        re.compile(pattern, re.IGNORECASE)
        return None
    except (re.error, RecursionError, OverflowError, ValueError) as err:
        reason = err
    held = _held_as_written(st, stores, pattern)
    if held is None:
        return None
    from optmem.textform import quoted
    return BadInput(f"bad regex {quoted(pattern)}: {reason}; {held}")


def _as_written(st: Stores, stores: list, pattern: str) -> list:
    """After a regex recall that matched nothing: when ``pattern`` holds
    regex syntax and some line holds it as written (``$HOME/.config``,
    ``f(x)``), the note (stderr) that says so, ending with the order that
    finds it (``Run: memo recall -F PATTERN``, the scope flag as given;
    the tool call in the ``mcp`` form); else no note."""
    if not _REGEX_SYNTAX.intersection(pattern):
        return []
    held = _held_as_written(st, stores, pattern)
    if held is None:
        return []
    from optmem.textform import quoted
    return [f"memo: {quoted(pattern)} is read as a regex ($ ( ) . [ ] * + ? \\ | are regex "
            f"syntax), and {held}"]
