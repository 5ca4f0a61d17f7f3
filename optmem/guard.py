"""The write guard: what may go into the permanent log (DESIGN.md "write scan").

The log cannot be edited, so ``note``, ``sleep`` and ``import`` refuse text
that would be harmful to keep forever, and say what to write instead:

* characters: every line break ``str.splitlines()`` knows, tabs, C0/C1
  control characters (terminal escapes), invisible and bidirectional format
  characters (Unicode ``Cf``: zero-width spaces, RLO, tags, BOM, ...), lone
  surrogates, private-use and unassigned code points. Emoji still work: the
  variation selectors U+FE0E/U+FE0F and a zero-width joiner between two
  pictographs are allowed, and so is a ZWNJ/ZWJ between two letters of a
  script that needs them (Persian, Hindi, ...).
* credentials: API keys and tokens with a known shape, private-key blocks,
  JWTs, ``Authorization`` headers, passwords in URLs and ``password=...``
  style assignments (``CREDENTIALS`` is the one table of them).

Pure: no I/O. Positions in messages count characters (1-based), not bytes.
A message never repeats the secret it found, only a fixed generic prefix.
"""

from __future__ import annotations

import re
import unicodedata

from optmem.errors import BadText

# ---------------------------------------------------------------- characters

#: Every character ``str.splitlines()`` splits on.
LINE_BREAKS = frozenset("\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029")

# Unicode names (from NameAliases.txt) of the C0 controls, DEL and the C1
# controls, which ``unicodedata.name`` does not know.
_C0 = (
    "NULL|START OF HEADING|START OF TEXT|END OF TEXT|END OF TRANSMISSION|"
    "ENQUIRY|ACKNOWLEDGE|ALERT|BACKSPACE|CHARACTER TABULATION|LINE FEED|"
    "LINE TABULATION|FORM FEED|CARRIAGE RETURN|SHIFT OUT|SHIFT IN|"
    "DATA LINK ESCAPE|DEVICE CONTROL ONE|DEVICE CONTROL TWO|"
    "DEVICE CONTROL THREE|DEVICE CONTROL FOUR|NEGATIVE ACKNOWLEDGE|"
    "SYNCHRONOUS IDLE|END OF TRANSMISSION BLOCK|CANCEL|END OF MEDIUM|"
    "SUBSTITUTE|ESCAPE|INFORMATION SEPARATOR FOUR|INFORMATION SEPARATOR THREE|"
    "INFORMATION SEPARATOR TWO|INFORMATION SEPARATOR ONE"
).split("|")
_C1 = (
    "PADDING CHARACTER|HIGH OCTET PRESET|BREAK PERMITTED HERE|NO BREAK HERE|"
    "INDEX|NEXT LINE|START OF SELECTED AREA|END OF SELECTED AREA|"
    "CHARACTER TABULATION SET|CHARACTER TABULATION WITH JUSTIFICATION|"
    "LINE TABULATION SET|PARTIAL LINE FORWARD|PARTIAL LINE BACKWARD|"
    "REVERSE LINE FEED|SINGLE SHIFT TWO|SINGLE SHIFT THREE|"
    "DEVICE CONTROL STRING|PRIVATE USE ONE|PRIVATE USE TWO|"
    "SET TRANSMIT STATE|CANCEL CHARACTER|MESSAGE WAITING|"
    "START OF GUARDED AREA|END OF GUARDED AREA|START OF STRING|"
    "SINGLE GRAPHIC CHARACTER INTRODUCER|SINGLE CHARACTER INTRODUCER|"
    "CONTROL SEQUENCE INTRODUCER|STRING TERMINATOR|OPERATING SYSTEM COMMAND|"
    "PRIVACY MESSAGE|APPLICATION PROGRAM COMMAND"
).split("|")

# Invisible characters that are not in category Cf (Unicode's
# Default_Ignorable_Code_Point minus Cf, variation selectors and Mongolian).
_INVISIBLE = frozenset("\u034f\u115f\u1160\u17b4\u17b5\u3164\uffa0")

# Scripts whose ordinary text uses ZWNJ/ZWJ between letters (first word of
# the letters' Unicode names).
_JOINING_SCRIPTS = frozenset(
    "ARABIC SYRIAC NKO MANDAIC DEVANAGARI BENGALI GURMUKHI GUJARATI ORIYA "
    "TAMIL TELUGU KANNADA MALAYALAM SINHALA".split()
)

_ZWNJ, _ZWJ = "\u200c", "\u200d"
_EMOJI_VS = "\ufe0e\ufe0f"

# (why, advice) per kind of refused character.
_LINE = ("a line break", 'keep it on one line (join the parts with "; ")')
_TAB = ("a tab", "use spaces instead")
_CONTROL = (
    "a control character, as in terminal escapes",
    "remove it and retype the text as plain text",
)
_FORMAT = ("invisible or bidirectional control", "retype it as plain text")
_SELECTOR = (
    "a variation selector that is not part of an emoji",
    "retype it as plain text",
)
_SURROGATE = (
    "a lone surrogate: the input was not valid UTF-8",
    "send the text as UTF-8",
)
_PRIVATE = ("a private-use character", "retype it as plain text")
_UNASSIGNED = (
    "an unassigned code point or noncharacter",
    "retype it as plain text",
)


def _is_pictograph(ch: str) -> bool:
    """True for an emoji-like character (a part of an emoji ZWJ sequence).

    Code points U+1F000-U+1FAFF count even when this Python's Unicode data
    does not know them yet (Unicode reserves them as Extended_Pictographic).
    """
    o = ord(ch)
    return 0x1F000 <= o <= 0x1FAFF or unicodedata.category(ch) == "So"


def _in_joining_script(ch: str) -> bool:
    return unicodedata.category(ch)[0] in "LM" and (
        unicodedata.name(ch, "").split(" ", 1)[0] in _JOINING_SCRIPTS
    )


def _joiner_ok(text: str, i: int) -> bool:
    """May the ZWJ/ZWNJ at ``text[i]`` stay? (emoji or joining-script use)."""
    if i == 0 or i + 1 == len(text):
        return False
    before, after = text[i - 1], text[i + 1]
    if _in_joining_script(before) and _in_joining_script(after):
        return True
    if text[i] != _ZWJ:
        return False
    j = i - 1  # step back over an emoji's presentation selector / skin tone
    while j > 0 and (text[j] in _EMOJI_VS or 0x1F3FB <= ord(text[j]) <= 0x1F3FF):
        j -= 1
    return _is_pictograph(text[j]) and _is_pictograph(after)


def _char_kind(text: str, i: int) -> tuple[str, str] | None:
    """(why, advice) if the character at ``text[i]`` is refused, else None."""
    ch = text[i]
    o = ord(ch)
    if o < 0x20 or 0x7F <= o <= 0x9F:
        if ch in LINE_BREAKS:
            return _LINE
        return _TAB if ch == "\t" else _CONTROL
    if o < 0x7F:
        return None
    cat = unicodedata.category(ch)
    if cat in ("Zl", "Zp"):
        return _LINE
    if cat == "Cf":
        return None if ch in (_ZWJ, _ZWNJ) and _joiner_ok(text, i) else _FORMAT
    if cat == "Cs":
        return _SURROGATE
    if cat == "Co":
        return _PRIVATE
    if cat == "Cn":
        return None if 0x1F000 <= o <= 0x1FAFF else _UNASSIGNED
    if ch in _INVISIBLE:
        return _FORMAT
    if 0xFE00 <= o <= 0xFE0F or 0xE0100 <= o <= 0xE01EF:
        # Emoji presentation selectors, once, right after a visible character.
        if ch in _EMOJI_VS and i > 0:
            prev = text[i - 1]
            if not (prev.isspace() or prev in _EMOJI_VS or prev in (_ZWJ, _ZWNJ)):
                return None
        return _SELECTOR
    return None


def char_name(ch: str) -> str:
    """``U+XXXX NAME`` for one character, named even when Unicode gives it
    no name (controls, surrogates, private use, unassigned)."""
    o = ord(ch)
    if o < 0x20:
        name = _C0[o]
    elif o == 0x7F:
        name = "DELETE"
    elif 0x80 <= o <= 0x9F:
        name = _C1[o - 0x80]
    else:
        name = unicodedata.name(ch, "")
        if not name:
            name = {
                "Cs": "(surrogate)",
                "Co": "(private use)",
            }.get(unicodedata.category(ch), "(unassigned)")
    return f"U+{o:04X} {name}"


def find_char_problem(text: str) -> str | None:
    """The reason the first refused character of ``text`` is refused, or None.

    The position is counted in characters from 1, not bytes.
    """
    if text.isascii() and text.isprintable():
        return None  # the common case: no control character
    for i in range(len(text)):
        kind = _char_kind(text, i)
        if kind is not None:
            why, advice = kind
            where = f"{char_name(text[i])} at character {i + 1}"
            return f"contains {where} ({why}); {advice}."
    return None


# --------------------------------------------------------------- credentials

_L = r"(?<![A-Za-z0-9_-])"  # a token starts here
_R = r"(?![A-Za-z0-9_-])"  # and ends here

#: Things a value may be that stand for a secret without being one.
_PLACEHOLDER_WORDS = frozenset(
    "none null nil true false undefined empty required optional str string "
    "int bool bytes password passwd pass pwd secret token key apikey api_key "
    "redacted hidden masked removed".split()
)
#: Well-known default passwords: a secret even when they look like words.
_WEAK = frozenset(
    "changeme changeit letmein qwerty qwertyuiop iloveyou trustno1 "
    "passw0rd p@ssw0rd p@ssword admin123 hunter2".split()
)
_CODE = (
    r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+"  # args.password
    r"|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+"  # DB_PASSWORD, an env var's name
)
# Helper patterns stay strings (the re module caches them on first use), so
# that importing this module compiles nothing.
_IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
_KEY_WORD = r"(?i)passw(?:or)?d|secret|token|key"
_KEY_END = (
    r"(?i)(?:(?P<pw>passw(?:or)?d|passphrase|secret|secret[_.-]?key)"
    r"|api[_.-]?key|apikey|token)$"
)


def _classes_change(s: str) -> int:
    """How often ``s`` switches between lower case, upper case and digits."""
    n = 0
    prev = ""
    for ch in s:
        if ch.isdigit():
            c = "d"
        elif ch.isalpha():
            c = "u" if ch.isupper() else "l"
        else:
            continue
        n += bool(prev) and c != prev
        prev = c
    return n


def _random(s: str) -> bool:
    """Does ``s`` look machine-made: letters and digits, mixed up?"""
    alnum = [ch for ch in s if ch.isascii() and ch.isalnum()]
    return (
        any(ch.isdigit() for ch in alnum)
        and any(ch.isalpha() for ch in alnum)
        and _classes_change(alnum) >= max(3, len(alnum) / 4)
    )


def _random_cases(s: str) -> bool:
    """Mixed upper and lower case, switching often (letter-only tokens)."""
    return (
        any(ch.isupper() for ch in s)
        and any(ch.islower() for ch in s)
        and _classes_change(s) >= max(3, len(s) / 4)
    )


def _placeholder(v: str) -> bool:
    """True for a value that stands for a secret: ``<token>``, ``${VAR}``,
    ``$VAR``, ``***``, ``xxx``, ``...``, a path, code, an example."""
    low = v.lower()
    return (
        not v
        or v[0] in "<{[($%*/~"
        or v.startswith("./")
        or "..." in v
        or "…" in v
        or len(set(low)) == 1
        or set(low) <= set("*x.#•-_")
        or low in _PLACEHOLDER_WORDS
        or "example" in low
        or "redacted" in low
        or "placeholder" in low
        or low.startswith("your")
        or "(" in v
        or "[" in v
    )


def _no_example(m: re.Match) -> bool:
    return "EXAMPLE" not in m.group(0)


def _body_random(m: re.Match) -> bool:
    return _random(m.group("v"))


def _body_cases(m: re.Match) -> bool:
    return _random_cases(m.group("v"))


def _body_digit(m: re.Match) -> bool:
    return any(ch.isdigit() for ch in m.group("v"))


def _basic_auth(m: re.Match) -> bool:
    """``Basic <base64>`` whose value decodes to ``user:password``."""
    import binascii

    v = m.group("v")
    try:
        raw = binascii.a2b_base64(v + "=" * (-len(v) % 4)).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return False
    user, colon, password = raw.partition(":")
    return bool(colon and user and password) and raw.isprintable()


def _url_password(m: re.Match) -> bool:
    v = m.group("v")
    return len(v) >= 3 and not _placeholder(v)


def _assignment(m: re.Match) -> bool:
    """``password=hunter2``, ``"api_key": "..."``, ``SECRET_KEY = '...'``.

    Written tightly (``key=value`` or a quoted value) any plausible value
    counts; written loosely (``key: value``, ``key = value``) it must also
    look like a secret, so that prose such as ``Password: required`` passes.
    """
    key = re.search(_KEY_END, m.group("k"))
    if key is None:
        return False
    quoted = m.group("qv") is not None
    v = m.group("qv") if quoted else m.group("v")
    if _placeholder(v) or re.fullmatch(_CODE, v):
        return False
    low = v.lower()
    stripped = re.sub(r"[^a-z0-9]", "", low)
    if stripped and stripped in re.sub(r"[^a-z0-9]", "", m.group("k").lower()):
        return False  # password=password, api_key=apiKey: a variable
    if "_" in v and re.fullmatch(_IDENT, v) and re.search(_KEY_WORD, v):
        return False  # password=db_password, token=token_from_vault
    if low in _WEAK:
        return True
    if key.group("pw") is None:  # token, api key: long and machine-made
        return len(v) >= 16 and _random(v)
    if quoted or m.group("sep") == "=":
        return len(v) >= 6
    # Loose: "Password: SHA-256" or "secret: vault/prod/db" is prose.
    v = v.rstrip(".,;:!?")
    return len(v) >= 6 and (_random(v) or any(ch in "!@#$%^&*+=\\|<>~" for ch in v))


# Key-shaped advice, e.g. write where the key lives instead (e.g. "...").
def _where(noun: str, example: str) -> str:
    return (
        f'write where the {noun} lives instead (e.g. "{example}"), '
        f"never the {noun} itself"
    )


_URL_ADVICE = (
    "write the URL without the password and where the password lives "
    '(e.g. "password is in the PGPASSWORD env var"), never the password itself'
)
_ASSIGN_ADVICE = (
    'write where the value lives instead (e.g. "DB password is in '
    '~/.pgpass"), never the value itself'
)

#: The one table of credentials: (kind, shown, pattern, check, advice).
#: ``shown`` is the generic prefix a message may show; None shows the fixed
#: prefix the pattern matched (group ``p``, e.g. ``ghp_``). ``check(match)``
#: must also be true for a match to count. Earlier rows win.
CREDENTIALS: tuple = (
    ("an Anthropic API key", None,
     _L + r"(?P<p>sk-ant-)(?P<v>[A-Za-z0-9_-]{20,300})", _body_random,
     _where("key", "Anthropic key is in the ANTHROPIC_API_KEY env var")),
    ("an OpenAI-style API key", None,
     _L + r"(?P<p>sk-(?:proj-|svcacct-|admin-)?)(?P<v>[A-Za-z0-9_-]{20,300})",
     _body_random, _where("key", "OpenAI key is in ~/.config/openai")),
    ("an AWS access key id", None,
     r"(?<![A-Za-z0-9])(?P<p>AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])",
     _no_example, _where("key", "AWS keys are in ~/.aws/credentials, profile dev")),
    ("an AWS secret access key", "aws_secret_access_key=...",
     r"(?i:aws_?secret_?(?:access_?)?key|secret_?access_?key)[\"']?\s*[:=]+\s*"
     r"[\"']?[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])",
     _no_example, _where("key", "AWS keys are in ~/.aws/credentials, profile dev")),
    ("a GitHub token", None,
     _L + r"(?P<p>gh[pousr]_)[A-Za-z0-9]{36,300}" + _R, None,
     _where("token", "GitHub token is in the gh keyring (gh auth token)")),
    ("a GitHub token", None,
     _L + r"(?P<p>github_pat_)(?P<v>[A-Za-z0-9_]{40,300})", _body_random,
     _where("token", "GitHub token is in the gh keyring (gh auth token)")),
    ("a GitLab token", None,
     _L + r"(?P<p>gl(?:pat|dt|rt|ptt|cbt|soat)-)[A-Za-z0-9_-]{20,300}", None,
     _where("token", "GitLab token is in ~/.config/glab-cli")),
    ("a Slack token", None,
     _L + r"(?P<p>xox[abeprs]-|xapp-)(?P<v>[A-Za-z0-9-]{10,300})", _body_digit,
     _where("token", "Slack bot token is in the SLACK_BOT_TOKEN env var")),
    ("a Slack webhook URL", "hooks.slack.com/services/...",
     r"hooks\.slack\.com/(?:services|workflows|triggers)/T[A-Z0-9]{6,300}/"
     r"[A-Z0-9]{6,300}/[A-Za-z0-9]{12,300}", None,
     _where("webhook URL", "Slack webhook URL is in the SLACK_WEBHOOK env var")),
    ("a Stripe secret key", None,
     _L + r"(?P<p>(?:sk|rk)_(?:live|test)_|whsec_)[A-Za-z0-9]{24,300}", None,
     _where("key", "Stripe key is in the STRIPE_API_KEY env var")),
    ("a Google API key", None,
     _L + r"(?P<p>AIza)[A-Za-z0-9_-]{35}" + _R, None,
     _where("key", "Google API key is in ~/.config/gcloud")),
    ("a Google OAuth secret", None,
     _L + r"(?P<p>GOCSPX-|ya29\.)(?P<v>[A-Za-z0-9_-]{24,300})", _body_random,
     _where("secret", "Google OAuth client is in ~/.config/gcloud")),
    ("a Hugging Face token", None,
     _L + r"(?P<p>hf_)(?P<v>[A-Za-z0-9]{34,300})" + _R, _body_cases,
     _where("token", "Hugging Face token is in ~/.cache/huggingface/token")),
    ("an npm token", None,
     _L + r"(?P<p>npm_)[A-Za-z0-9]{36}" + _R, None,
     _where("token", "npm token is in ~/.npmrc")),
    ("a PyPI token", None,
     _L + r"(?P<p>pypi-)AgE[A-Za-z0-9_-]{50,300}", None,
     _where("token", "PyPI token is in ~/.pypirc")),
    ("a SendGrid API key", None,
     _L + r"(?P<p>SG\.)[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}" + _R, None,
     _where("key", "SendGrid key is in the SENDGRID_API_KEY env var")),
    ("a private key", "-----BEGIN ... PRIVATE KEY-----",
     r"-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----"
     r"|(?<![A-Za-z0-9-])AGE-SECRET-KEY-1[0-9A-Z]{58}", None,
     _where("key", "deploy key is ~/.ssh/id_ed25519")),
    ("a JSON Web Token", "eyJ...",
     _L + r"eyJ[A-Za-z0-9_-]{10,300}\.[A-Za-z0-9_-]{10,4000}\.[A-Za-z0-9_-]{10}",
     None, _where("token", "session token is in the browser's cookie jar")),
    ("a bearer token", "Bearer ...",
     r"(?<![A-Za-z])(?:Bearer|BEARER|bearer) +(?P<v>[A-Za-z0-9._~+/-]{16,300}={0,2})",
     _body_random, _where("token", "API token is in the API_TOKEN env var")),
    ("a Basic auth header", "Basic ...",
     r"(?<![A-Za-z])(?:Basic|BASIC|basic) +(?P<v>[A-Za-z0-9+/]{8,300}={0,2})"
     r"(?![A-Za-z0-9+/=])", _basic_auth,
     _where("password", "proxy password is in ~/.netrc")),
    ("an Authorization header", "Authorization: ...",
     r"(?i:authorization)[\"']?\s*[:=]\s*[\"']?"
     r"(?:(?i:token|bot|apikey|api-key|key|sso-key) +)?"
     r"(?P<v>[A-Za-z0-9._~+/=-]{16,300})", _body_random,
     _where("token", "API token is in the API_TOKEN env var")),
    ("a password in a URL", "scheme://user:...@host",
     r"[A-Za-z][A-Za-z0-9+.-]{1,20}://[^\s/:@?#]{0,100}:(?P<v>[^\s/@?#]{1,200})@"
     r"(?=[A-Za-z0-9\[])", _url_password, _URL_ADVICE),
    ("a password or secret", None,
     r"(?<![A-Za-z0-9_./-])(?P<k>[A-Za-z0-9_.-]{1,80})[\"']?"
     r"(?P<sep>[ \t]*(?:=>|:=|==|[:=])[ \t]*)"
     r"(?:(?P<q>[\"'`])(?P<qv>[^\"'`\s]{0,300})(?P=q)"
     r"|(?P<v>[^\s\"'`,;&)}\]]{0,300}))", _assignment, _ASSIGN_ADVICE),
)

_compiled: list | None = None


def _rules() -> list:
    """``CREDENTIALS`` with compiled patterns (compiled on first use, so that
    importing this module stays cheap)."""
    global _compiled
    if _compiled is None:
        _compiled = [
            (kind, shown, re.compile(pattern), check, advice)
            for kind, shown, pattern, check, advice in CREDENTIALS
        ]
    return _compiled


def find_credential(text: str) -> str | None:
    """The reason ``text`` is refused for carrying a credential, or None.

    The reason names the kind and a fixed generic prefix, never the secret.
    """
    for kind, shown, pattern, check, advice in _rules():
        m = pattern.search(text)
        while m is not None and check is not None and not check(m):
            m = pattern.search(text, m.start() + 1)  # overlapping: try again
        if m is not None:
            if shown is None:
                if "p" in pattern.groupindex:
                    shown = m.group("p") + "..."
                else:
                    key = re.search(_KEY_END, m.group("k"))
                    shown = key.group(0).lower() + "=..." if key else "..."
            return f"carries {kind} ({shown}); {advice}."
    return None


# ------------------------------------------------------------------- the API


def find_problem(text: str) -> str | None:
    """Return the one-line reason ``text`` may not be written, or None.

    The reason has no subject, e.g. ``contains U+202E RIGHT-TO-LEFT OVERRIDE
    at character 14 (invisible or bidirectional control); retype it as plain
    text.`` or ``carries an OpenAI API key (sk-...); write where ...``.
    Characters are checked before credentials; the first problem wins.
    Positions count characters from 1, not bytes.
    """
    return find_char_problem(text) or find_credential(text)


def _subject(what: str) -> str:
    """``memory`` -> ``the memory``; ``line 12 of notes.txt`` stays as is,
    with any unprintable character in it shown as an escape."""
    if not what.isprintable():
        what = "".join(
            ch if ch.isprintable() else ascii(ch)[1:-1] for ch in what
        )
    return what if " " in what else f"the {what}"


def check_text(text: str, what: str = "memory") -> None:
    """Raise ``BadText`` if ``text`` may not be written; else return None.

    ``what`` names the text in the message: ``"memory"``, ``"summary"`` (a
    single word gets "the"), or a phrase such as ``"line 12 of notes.txt"``.
    The message is one line, e.g. ``the summary contains U+202E
    RIGHT-TO-LEFT OVERRIDE at character 14 (invisible or bidirectional
    control); retype it as plain text.`` It never contains the secret found.
    """
    reason = find_problem(text)
    if reason is not None:
        raise BadText(f"{_subject(what)} {reason}")
