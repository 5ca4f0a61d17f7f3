"""How a memory is dated: dates never go backwards in the log.

The rule (README "Dates never go backwards"), one for ``note`` and
``import``:

* A note is dated today (this host's local date), or the newest memory's
  date when that is later (another host, further east, wrote it first).
  So the log's dates never decrease, and a host behind never dead-ends.
* An import line keeps its own date when that is the newest memory's date
  or later. A line up to ``ZONE_SPAN_DAYS`` days before the newest memory is
  "today" somewhere else on Earth: it is stored with the newest memory's
  date (and the import says how many were). An earlier line is refused.
* No date may be after the latest date anywhere on Earth now
  (``latest_today``: the date at UTC+14, the easternmost time zone), so a
  host behind can import tomorrow's lines written further east, and no line
  comes from the future.
* memo trusts this host's clock: a clock set years ahead dates the note
  years ahead, and every later note keeps that date (never backwards) until
  the calendar catches up; ``note`` then says so on stderr
  (``ahead_of_earth``), and ``memo check`` is not affected.

Dates are ``YYYY-MM-DD`` strings (ISO order is date order).
"""

from __future__ import annotations

# ``datetime`` is imported where a date is computed: ``span`` (used by every
# wake) needs none of it.

#: Time zones run from UTC-12 to UTC+14: 26 hours, so two hosts' local dates
#: differ by at most 2 days.
ZONE_SPAN_DAYS = 2
#: The easternmost offset in use (Line Islands, UTC+14), in hours.
EASTMOST_HOURS = 14


def today() -> str:
    """This host's local date, ``YYYY-MM-DD``."""
    import datetime
    return datetime.date.today().isoformat()


def latest_today(now: datetime.datetime | None = None) -> str:  # noqa: F821 (imported when called)
    """The latest calendar date anywhere on Earth at ``now`` (default: this
    host's clock), i.e. the date at UTC+14."""
    import datetime
    now = now or datetime.datetime.now(datetime.timezone.utc)
    return (now.astimezone(datetime.timezone.utc)
            + datetime.timedelta(hours=EASTMOST_HOURS)).date().isoformat()


def shift(date: str, days: int) -> str:
    """``date`` moved by ``days`` (negative: earlier)."""
    import datetime
    return (datetime.date.fromisoformat(date) + datetime.timedelta(days=days)).isoformat()


def note_date(newest: str | None, local: str | None = None) -> str:
    """The date of a new note: ``local`` (default today), or ``newest`` (the
    newest memory's date) when that is later."""
    local = local or today()
    return newest if newest is not None and newest > local else local


def ahead_of_earth(date: str) -> str | None:
    """When ``date`` is after the latest date anywhere on Earth, the one
    line that says so (a clock was set ahead), else None."""
    latest = latest_today()
    if date <= latest:
        return None
    return (f"the newest memory is dated {date}, after today anywhere on Earth "
            f"({latest}): a clock was set ahead. Dates never go backwards, so new "
            f"memories keep {date} until the calendar catches up")


def span(first: str, last: str) -> tuple:
    """``(earlier, later)`` of two dates, for a range shown to a reader: a
    log written by another tool may hold dates out of order, and a range is
    never printed backwards."""
    return (first, last) if first <= last else (last, first)
