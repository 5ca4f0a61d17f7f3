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


def check_value(name: str, raw: str, where: str = "") -> int:
    """Parse and range-check one knob value; return it as an int.

    ``raw`` must be ASCII digits only. ``where`` (e.g. ``"config line 3"``)
    prefixes the message. Raises ``ConfigError`` naming the valid choices.
    """
    prefix = f"{where}: " if where else ""
    if name not in KNOBS:
        raise ConfigError(
            f"{prefix}unknown setting {name!r}; the settings are "
            f"{', '.join(KNOBS)}. Run: memo config")
    default, low, high, _ = KNOBS[name]
    value = raw.strip()
    if not (value.isascii() and value.isdigit()):
        raise ConfigError(
            f"{prefix}{name} must be a whole number from {low} to {high} "
            f"(default {default}), not {value!r}. Run: memo config {name}={default}")
    number = int(value)
    if not low <= number <= high:
        raise ConfigError(
            f"{prefix}{name}={number} is out of range; it must be from {low} "
            f"to {high} (default {default}). Run: memo config {name}={default}")
    return number


def parse(text: str, path: str = "config") -> dict:
    """Parse config file text into ``{NAME: int}`` (only the names set).

    Blank lines and ``#`` comments are skipped; a later line wins. Raises
    ``ConfigError`` naming ``path`` and the line number.
    """
    values = {}
    for number, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        where = f"{path} line {number}"
        if "=" not in line:
            raise ConfigError(
                f"{where}: expected NAME=VALUE, got {line!r}; the settings are "
                f"{', '.join(KNOBS)}. Run: memo config")
        name, raw = line.split("=", 1)
        name = name.strip()
        values[name] = check_value(name, raw, where)
    return values


def from_values(values: dict) -> Config:
    """A ``Config`` with ``values`` over the defaults."""
    return Config(**values)


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
