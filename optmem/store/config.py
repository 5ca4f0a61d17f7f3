"""The user knobs: one table, loaded into a frozen object (docs/format.md).

``$MEMORY_DIR/config`` holds optional ``NAME=VALUE`` lines; ``#`` starts a
comment. A missing file means every default. Values are whole numbers in
ASCII digits. Parsing and validation live here; reading and writing the file
is ``optmem.store.memory``'s job.

Every file the reference OptMem accepts is read with its meaning: names in
any case, spaces around ``=``, lines without ``=`` ignored, any value from
1 up. ``ENTRY_CHARS`` is at most 280 (the reference refuses a store above
that); a file that already says 281-287 (memo allowed it once) is still
read, and ``legacy_entry`` names the command that brings it back to 280.
"""

from __future__ import annotations

from optmem.errors import ConfigError

#: Longest text a record can hold, in bytes: a TREE record is 288 bytes with
#: its newline, so a summary is at most 287 bytes of UTF-8.
MAX_ENTRY_BYTES = 287
#: Highest ENTRY_CHARS the reference OptMem reads (``min(288 - 8, 320 - 40)``):
#: memo never sets more, so a store it configured stays readable there.
REFERENCE_ENTRY_MAX = 280
_HUGE = 10 ** 12

#: name -> (default, lowest, highest, meaning). Every knob lives here.
KNOBS = {
    "ENTRY_CHARS": (280, 1, REFERENCE_ENTRY_MAX,
                    "longest memory or summary, in bytes of UTF-8"),
    "WAKE_LINES": (256, 1, _HUGE,
                   "lines of memory `memo wake` prints, one per block"),
    "PART_CHARS": (20000, 1, _HUGE,
                   "most bytes in one part of wake or recall output"),
    "PART_LINES": (500, 1, _HUGE,
                   "most lines of document in one part of wake output"),
}

def legacy_entry(value: int, top: int, flag: str = "") -> str:
    """The one-line notice for a config that says ``ENTRY_CHARS={value}``
    (281..287), above the ``top`` bytes the reference OptMem reads; its
    order carries ``flag``, the scope flag that names the store."""
    from optmem.protocol import Order
    order = Order("config", (f"ENTRY_CHARS={top}",), Order.scoped(flag), flag_first=True)
    return (f"config sets ENTRY_CHARS={value}, above the {top} bytes the reference "
            f"OptMem reads (memo still reads it). {order.line()}")


class Config:
    """The knob values in force for one command (frozen; pass it down).

    Attributes are the ``KNOBS`` names. (A plain class, not a dataclass:
    ``dataclasses`` costs ~30 ms of start-up.)
    """

    __slots__ = tuple(KNOBS)

    def __init__(self, **values: int) -> None:
        for name, (default, *_rest) in KNOBS.items():
            object.__setattr__(self, name, values.pop(name, default))
        if values:
            raise TypeError(f"unknown settings: {', '.join(values)}")

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Config is frozen")

    def __getattr__(self, name: str) -> int:
        """Only for a name that is no knob (every knob is a slot): for the
        type checker, each knob is an ``int``."""
        raise AttributeError(f"no setting {name!r}")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Config) and all(
            getattr(self, n) == getattr(other, n) for n in KNOBS)

    def __repr__(self) -> str:
        return "Config(" + ", ".join(f"{n}={getattr(self, n)}" for n in KNOBS) + ")"


def limits(name: str) -> str:
    """The values knob ``name`` takes, in words: ``from 1 to 280`` or
    ``1 or more``."""
    _, low, high, _ = KNOBS[name]
    return f"from {low} to {high}" if high < _HUGE else f"{low} or more"


def check_value(name: str, raw: str, where: str = "") -> int:
    """Parse and range-check one knob value; return it as an int.

    ``raw`` must be ASCII digits only. ``where`` (e.g. ``"config line 3"``)
    marks a value read from the file: the message then prefixes it and ends
    with the order that repairs the file; a value given to ``memo config``
    ends with ``Run: memo config`` (the table of values and ranges). Raises
    ``ConfigError`` naming the valid choices (and, for a misspelt name, the
    nearest).
    """
    prefix = f"{where}: " if where else ""
    from optmem.protocol import Order
    fix = Order("config", ("--repair",) if where else ())
    name = name.strip().upper()
    if name not in KNOBS:
        import difflib
        near = difflib.get_close_matches(name, list(KNOBS), n=1)
        hint = f" (did you mean {near[0]}?)" if near else ""
        raise ConfigError(
            f"{prefix}unknown setting {name!r}{hint}; the settings are "
            f"{', '.join(KNOBS)}.", then=fix)
    default, low, high, _ = KNOBS[name]
    span = limits(name)
    value = raw.strip()
    if not value.isdecimal():  # any script's digits, as the reference
        raise ConfigError(
            f"{prefix}{name} must be a whole number, {span} "
            f"(default {default}), not {value!r}.", then=fix)
    number = int(value) if len(value) <= 15 else high + 1
    if where and name == "ENTRY_CHARS" and high < number <= MAX_ENTRY_BYTES:
        return number  # written by an older memo: still read (see legacy_entry)
    if number > high:  # "1 or more" would be wrong here: name the top
        span = f"from {low} to {high}"
    if not low <= number <= high:
        raise ConfigError(
            f"{prefix}{name}={number if len(value) <= 15 else value} is out of range; "
            f"it must be {span} "
            f"(default {default}).", then=fix)
    return number


def _parse_line(line: str, where: str) -> tuple | None:
    """``None`` for a blank or comment line, or a line without ``=`` (the
    reference ignores those too), else ``(NAME, value)`` with the name in
    upper case; raises ``ConfigError``."""
    line = line.split("#", 1)[0].strip()
    if not line or "=" not in line:
        return None
    name, raw = line.split("=", 1)
    name = name.strip().upper()
    return name, check_value(name, raw, where)


def parse(text: str, path: str = "config") -> dict:
    """Parse config file text into ``{NAME: int}`` (only the names set).

    Blank lines and ``#`` comments are skipped; a later line wins. Raises
    ``ConfigError`` naming ``path`` and the line number.
    """
    values = {}
    for number, line in enumerate(text.splitlines(), 1):
        item = _parse_line(line, f"{path} line {number}")
        if item:
            values[item[0]] = item[1]
    return values


def idle_lines(text: str, path: str = "config") -> list:
    """One line for each line of config ``text`` that is neither blank nor a
    comment and sets nothing (it has no ``=``: the reference ignores it, and
    so does memo), naming ``path``, the line number (from 1) and what memo
    reads there; ``[]`` when every line sets something or is blank."""
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        body = line.split("#", 1)[0].strip()
        if not body or "=" in body:
            continue
        words = body.replace(":", " ", 1).split(None, 1)
        name = words[0].upper()
        if len(words) == 2 and name in KNOBS:
            value = words[1].strip()
            shape = "NAME: VALUE" if ":" in body.split(None, 1)[0] else "NAME VALUE"
            fix = f"memo reads only NAME=VALUE, so write {name}={value}"
        else:
            shape = "a line without \"=\""
            fix = f"memo reads only NAME=VALUE (the settings are {', '.join(KNOBS)})"
        shown = body[:40].encode("ascii", "backslashreplace").decode("ascii")
        out.append(f"{path} line {number} ({shown!r}) sets nothing: it is {shape}, which "
                   f"memo ignores as the reference OptMem does; {fix}")
    return out


def update(text: str, changes: dict) -> tuple:
    """Apply ``{NAME: int or None}`` to config file text, keeping everything
    a person wrote; return ``(new_text, notes)``.

    A value replaces the knob's active line (or follows its commented
    template line, or is appended); ``None`` comments the active line out,
    so the default applies. Lines that do not parse are commented out too
    (``# disabled by memo: ...``) and named in ``notes``.
    """
    lines = text.splitlines()
    notes = []
    active: dict = {}
    for i, line in enumerate(lines):
        try:
            item = _parse_line(line, f"line {i + 1}")
        except ConfigError:
            notes.append(f"disabled line {i + 1} ({line.strip()[:40]!r}), which was not valid")
            lines[i] = f"# disabled by memo: {line}"
            continue
        if item:
            active.setdefault(item[0], []).append(i)
    drop = set()  # active lines whose default line is already there (unset)
    for name, value in changes.items():
        where = active.get(name, [])
        for i in where[:-1]:
            lines[i] = "#" + lines[i]
        default = f"#{name}={KNOBS[name][0]}"
        new = f"{name}={value}" if value is not None else default
        template = [i for i, line in enumerate(lines)
                    if line.lstrip("# ").split("=", 1)[0].strip().upper() == name
                    and "=" in line and i not in where]
        if where:
            if value is None and any(lines[i].strip() == default for i in template):
                drop.add(where[-1])  # the default line stands already: no second one
            else:
                lines[where[-1]] = new
        elif value is not None:
            # After its commented line, which stays (unset drops the value
            # again, so set and unset leave the file as it was).
            if template:
                lines.insert(template[-1] + 1, new)
            else:
                lines.append(new)
    lines = [line for i, line in enumerate(lines) if i not in drop]
    return "\n".join(lines) + "\n", notes


def render(values: dict) -> str:
    """The config file text for ``values``: every knob, unset ones commented.

    A knob left at its default stays a comment, so the defaults stay the
    tool's (docs/format.md: ``init`` writes every knob commented out).
    """
    lines = ["# memo settings: NAME=VALUE, one a line. A commented line keeps the default.",
             "# Run `memo config` to see them, `memo config NAME=VALUE` to change one."]
    for name, (default, low, high, meaning) in KNOBS.items():
        lines.append(f"# {name}: {meaning} ({low}..{high})")
        if name in values:
            lines.append(f"{name}={values[name]}")
        else:
            lines.append(f"#{name}={default}")
    return "\n".join(lines) + "\n"
