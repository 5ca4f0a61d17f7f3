"""The user knobs: one table, loaded into a frozen object (DESIGN.md "Files").

``$MEMORY_DIR/config`` holds optional ``NAME=VALUE`` lines; ``#`` starts a
comment. A missing file means every default. Values are whole numbers in
ASCII digits. Parsing and validation live here; reading and writing the file
is ``optmem.store``'s job.
"""

from __future__ import annotations

from .errors import ConfigError

#: Longest text a record can hold, in bytes: a TREE record is 288 bytes with
#: its newline, so a summary is at most 287 bytes of UTF-8.
MAX_ENTRY_BYTES = 287

#: name -> (default, lowest, highest, meaning). Every knob lives here.
KNOBS = {
    "ENTRY_CHARS": (280, 16, MAX_ENTRY_BYTES,
                    "longest memory or summary, in bytes of UTF-8"),
    "WAKE_LINES": (256, 1, 1_000_000,
                   "how many memory lines `memo wake` prints"),
    "PART_CHARS": (20000, 2048, 100_000_000,
                   "most bytes in one part of wake or recall output"),
    "PART_LINES": (500, 10, 1_000_000,
                   "most lines in one part of wake output"),
}


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

    def __setattr__(self, name, value):
        raise AttributeError("Config is frozen")

    def __eq__(self, other):
        return isinstance(other, Config) and all(
            getattr(self, n) == getattr(other, n) for n in KNOBS)

    def __repr__(self):
        return "Config(" + ", ".join(f"{n}={getattr(self, n)}" for n in KNOBS) + ")"


REPAIR = "Run: memo config --repair"  #: the order that disables bad lines


def check_value(name: str, raw: str, where: str = "") -> int:
    """Parse and range-check one knob value; return it as an int.

    ``raw`` must be ASCII digits only. ``where`` (e.g. ``"config line 3"``)
    marks a value read from the file: the message then prefixes it and ends
    with the order that repairs the file. Raises ``ConfigError`` naming the
    valid choices.
    """
    prefix = f"{where}: " if where else ""
    fix = f" {REPAIR}" if where else ""
    if name not in KNOBS:
        raise ConfigError(
            f"{prefix}unknown setting {name!r}; the settings are "
            f"{', '.join(KNOBS)}.{fix}")
    default, low, high, _ = KNOBS[name]
    value = raw.strip()
    if not (value.isascii() and value.isdigit()) or len(value) > 12:
        raise ConfigError(
            f"{prefix}{name} must be a whole number from {low} to {high} "
            f"(default {default}), not {value!r}.{fix}")
    number = int(value)
    if not low <= number <= high:
        raise ConfigError(
            f"{prefix}{name}={number} is out of range; it must be from {low} "
            f"to {high} (default {default}).{fix}")
    return number


def _parse_line(line: str, where: str):
    """``None`` for a blank or comment line, else ``(name, value)``; raises
    ``ConfigError``."""
    line = line.split("#", 1)[0].strip()
    if not line:
        return None
    if "=" not in line:
        raise ConfigError(
            f"{where}: expected NAME=VALUE, got {line[:40]!r}; the settings are "
            f"{', '.join(KNOBS)}. {REPAIR}")
    name, raw = line.split("=", 1)
    name = name.strip()
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
    active = {}
    for i, line in enumerate(lines):
        try:
            item = _parse_line(line, f"line {i + 1}")
        except ConfigError:
            notes.append(f"disabled line {i + 1} ({line.strip()[:40]!r}), which was not valid")
            lines[i] = f"# disabled by memo: {line}"
            continue
        if item:
            active.setdefault(item[0], []).append(i)
    for name, value in changes.items():
        where = active.get(name, [])
        for i in where[:-1]:
            lines[i] = "#" + lines[i]
        new = f"{name}={value}" if value is not None else f"#{name}={KNOBS[name][0]}"
        if where:
            lines[where[-1]] = new
        elif value is not None:
            template = [i for i, line in enumerate(lines)
                        if line.lstrip("# ").split("=", 1)[0].strip() == name and "=" in line]
            if template:
                lines.insert(template[-1] + 1, new)
            else:
                lines.append(new)
    return "\n".join(lines) + "\n", notes


def render(values: dict) -> str:
    """The config file text for ``values``: every knob, unset ones commented.

    A knob left at its default stays a comment, so the defaults stay the
    tool's (DESIGN.md: ``init`` writes every knob commented out).
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
