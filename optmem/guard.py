"""The write guard: what may go into the permanent log (DESIGN.md "write scan").

The log cannot be edited, so ``note``, ``sleep`` and ``import`` refuse text
that would be harmful to keep forever, and say what to write instead:

* characters: every line break ``str.splitlines()`` knows, tabs, C0/C1
  control characters (terminal escapes), invisible and bidirectional format
  characters (Unicode ``Cf``: zero-width spaces, RLO, tags, BOM, ...), lone
  surrogates, private-use and unassigned code points. Emoji still work: the
  variation selectors U+FE0E/U+FE0F and a zero-width joiner between two
  pictographs are allowed, and so is a ZWNJ/ZWJ between two letters of a
  script that needs them (Persian, Hindi, ...) or right after a virama
  (a Malayalam chillu: ``അവന്`` and ZWJ). TAG characters are allowed only
  inside an emoji tag sequence (the flags of England, Scotland, Wales).
* credentials: API keys and tokens with a known shape (the prefixes of
  many providers), private keys (PEM blocks, bare base64 DER or OpenSSH
  bodies), JWTs, ``Authorization`` headers and cookies, passwords in URLs,
  on command lines (``mysql -pX``, ``sshpass -p X``), in ``.netrc`` lines
  and in prose ("the root password is X"), and ``password=...`` style
  assignments (``CREDENTIALS`` is the one table of them; the rules that
  keep prose such as ``password=invalid`` out are above ``_L`` below).

Every pattern is linear in the length of the text (bounded repeats, no
nested unbounded ones), so a long adversarial text costs time in
proportion, never more.

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
_BLACK_FLAG, _CANCEL_TAG = "\U0001f3f4", "\U000e007f"
#: The tag specification of an emoji tag sequence (UTS #51): a Unicode
#: subdivision code such as ``gbeng``, spelled in TAG characters.
_TAG_SPEC = r"[a-z]{2}[a-z0-9]{1,4}"

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


def _after_virama(text: str, i: int) -> bool:
    """Is ``text[i - 1]`` a virama (a nonspacing mark of combining class 9)
    that ends a letter? ZWJ/ZWNJ there picks a conjunct form or, as in the
    old-style Malayalam chillu (U+0D7A..), ends a word (``അവന്`` and ZWJ)."""
    if i < 2:
        return False
    virama, base = text[i - 1], text[i - 2]
    return (
        unicodedata.combining(virama) == 9
        and unicodedata.category(virama) == "Mn"
        and unicodedata.category(base)[0] in "LM"
    )


def _joiner_ok(text: str, i: int) -> bool:
    """May the ZWJ/ZWNJ at ``text[i]`` stay? (emoji or joining-script use)."""
    if _after_virama(text, i):
        return True
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


def _is_tag_spec_char(ch: str) -> bool:
    return 0xE0020 <= ord(ch) <= 0xE007E


def _tag_ok(text: str, i: int) -> bool:
    """May the TAG character at ``text[i]`` stay? Only inside a valid emoji
    tag sequence: U+1F3F4 WAVING BLACK FLAG, a subdivision code of 3 to 6
    lowercase letters or digits in TAG characters, U+E007F CANCEL TAG (the
    flags of England, Scotland, Wales). Anywhere else TAG characters are
    refused: they are the invisible ASCII a prompt can be smuggled in."""
    n = len(text)
    e = i
    if text[i] != _CANCEL_TAG:
        while e < n and _is_tag_spec_char(text[e]):
            e += 1
            if e - i > 6:
                return False
    s = i
    while s > 0 and _is_tag_spec_char(text[s - 1]):
        s -= 1
        if e - s > 6:
            return False
    if s == 0 or text[s - 1] != _BLACK_FLAG or e >= n or text[e] != _CANCEL_TAG:
        return False
    spec = "".join(chr(ord(ch) - 0xE0000) for ch in text[s:e])
    return re.fullmatch(_TAG_SPEC, spec) is not None


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
        if 0xE0020 <= o <= 0xE007F:
            return None if _tag_ok(text, i) else _FORMAT
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
#
# How a value is judged (the false-positive rules):
#
# * A provider token is found by its fixed prefix and shape; a body that
#   could be prose (``sk-learn-...``, ``hf_hub_download``) must also look
#   machine-made: letters and digits mixed up (``_random``), or hex with
#   both digits and letters (Twilio ``SK`` + 32 lower-case hex, exactly).
# * A password where only a password can be: ``password=X``, ``secret=X``,
#   ``MYSQL_PWD=X``, ``ENCRYPTION_KEY=X``, ``private_key=X`` written tightly
#   (``=`` or a quoted value), ``mysql -pX``, ``sshpass -p X``, a ``.netrc``
#   line. X counts when it has 6+ characters, except:
#   - a placeholder (``<pw>``, ``$VAR``, ``${VAR}``, ``***``, ``...``),
#     code (``args.password``, ``DB_PASSWORD``), a path or a file name
#     (``~/.pgpass``, ``foo/pk``, ``key.pem``; a key name may also be
#     followed by a snake_case file name such as ``id_rsa``);
#   - one word that is prose in a log line: a common English or tech word
#     (``password=invalid``, ``secret=rotated``, ``password=argon2id``):
#     a word of ``_PROSE_WORDS``, a word with a regular suffix (-ed, -ing,
#     -tion, -less, ... up to 14 letters), or a hash or cipher name with
#     its digits (sha256, pbkdf2, argon2id), in lower, Title or UPPER case.
#   Known default passwords (``_WEAK`` and ``_DEFAULTS``: changeme,
#   password123, admin123, letmein, P@ssw0rd, hunter2, admin, root, ...)
#   always count, and so does any other single word (``correcthorse``,
#   ``hunter22``, ``invalid123``): a word list cannot tell a chosen
#   password from prose, so only the listed words pass.
# * Written loosely (``password: X``, ``password = X``, ``--password X``) X
#   must look like a secret (machine-made, with a symbol, or one of the
#   default passwords in ``_WEAK``); a policy such as
#   ``password: min_length=12`` or ``length>=12`` is prose.
# * A token, API key or cookie value (``token=``, ``AccountKey=``,
#   ``Cookie: sessionid=``) must be long (16+) and machine-made (a cookie
#   named like a session needs only 16+ varied characters).
# * "the password is X" / "password: X" in prose: X counts when it is one
#   token that is a known default password, or has 6+ characters with a
#   letter and a digit, or a symbol (``sunshine2024``, ``hunter2``); plain
#   words (stored, rotated, wrong), hash names (utf-8, argon2id-hashed) and
#   compounds ending in a prose word (2FA-protected) pass. A passphrase of
#   several plain words passes ("wifi password is correct horse ...").
# * A secret's name is no value: lower-case words joined by - or _
#   (``--secret=db-password``, ``SECRET_KEY=insecure-dev-only``) pass; an
#   option value that starts with ``-`` is the next option, not a password.
# * A PEM header followed by prose (``... is the header``, ``... not
#   found``) and no base64 run of 40+ characters passes; alone, or before a
#   body, it counts.
# * A base64 run starting with ``M`` counts as a private key only when its
#   DER decodes to a private key structure (a version INTEGER first, or an
#   encryption algorithm): certificates and public keys pass.

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
    "passw0rd p@ssw0rd p@ssword p4ssw0rd passw0rd! p@ssw0rd! admin1 admin12 "
    "admin123 admin1234 hunter2 password1 password12 password123 "
    "password1234 password! secret1 secret12 secret123 qwerty1 qwerty123 "
    "abc123 abcd1234 welcome1 welcome123 1qaz2wsx test123 test1234 "
    "default123 pass123 pass1234 root123 toor123".split()
)
#: Default passwords that are also plain words or numbers: a secret only
#: where nothing but a password can be (``password=admin``, ``mysql -proot``).
_DEFAULTS = frozenset(
    "admin administrator root toor guest welcome monkey dragon sunshine "
    "football baseball superman qazwsx zxcvbnm 123456 1234567 12345678 "
    "123456789 1234567890 mysql postgres oracle raspberry alpine vagrant "
    "ubnt".split()
)
#: Single words that are prose after ``password=`` or ``secret=`` (a log
#: line such as ``login failed with password=invalid``), not a secret.
_PROSE_WORDS = frozenset(
    """invalid valid correct incorrect wrong right strong weak bad good fine
    ok okay missing present absent empty blank unset set reset new old
    current previous same different default custom random temporary secure
    insecure unsafe safe long short length too plain plaintext cleartext
    hidden visible required optional mandatory mismatch match prompt stdin
    env environment file vault keyring keychain agent auto manual on off yes
    no always never later unknown error failure success hash salt crypt
    bcrypt scrypt yescrypt sha md argon pbkdf hmac ntlm kerberos ldap oauth
    saml sso totp otp mfa digest basic bearer cookie session given sent
    forbidden none pending ignore skip keep clear text input field console
    keyboard terminal tty login user username nothing anything whatever
    something unknown omit sample dummy fake demo""".split()
)
#: Word endings of ordinary English words: ``password=rotated``, ``missing``.
_PROSE_SUFFIX = r"(?:ed|ing|tion|sion|able|ible|less|ment|ness|ity|ous|ive|ly)"
#: Hash and cipher names that carry digits: ``argon2id``, ``sha256``.
_TECH_STEMS = frozenset(
    "argon sha md pbkdf aes blake ed rsa x crc ripemd utf base des".split()
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
    r"(?i)(?:(?P<pw>passw(?:or)?d|passphrase|secret"
    r"|secret[_.-]?key(?:[_.-]?base)?|^_auth(?:token)?|(?<=[_.-])pwd"
    r"|(?-i:(?<=[A-Z0-9])_PASS))"  # MYSQL_PWD, SMTP_PASS
    r"|(?P<kn>(?:private|encryption|signing|master|hmac|cipher|crypt)[_.-]?key)"
    r"|(?:api|access|account|shared[_.-]?access|auth|client|app|session"
    r"|license)[_.-]?key|apikey|token|(?:^|(?<=[_.-]))(?:auth|credentials|creds))$"
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
        or "${" in v
        or re.search(r"<[^<>]+>", v) is not None  # pass:<password>
    )


def _prose_word(v: str) -> bool:
    """Is ``v`` one ordinary word (``invalid``, ``rotated``, ``argon2id``)
    rather than a password? Known default passwords never are."""
    low = v.lower()
    if low in _WEAK or low in _DEFAULTS:
        return False
    if not (v.islower() or v.isupper() or v.istitle()):
        return False
    m = re.fullmatch(r"([a-z]{2,})([0-9]*)([a-z]{0,5})", low)
    if m is None:
        return False
    stem, digits, tail = m.groups()
    if digits:  # sha256, argon2id, pbkdf2, blake2b
        return stem in _TECH_STEMS and (not tail or len(tail) <= 2 or tail == "crypt")
    return low in _PROSE_WORDS or (
        len(low) <= 14 and re.search(_PROSE_SUFFIX + "$", low) is not None
    )


def _path_like(v: str) -> bool:
    """A file name or a path of words (``foo/pk``, ``tpm2-private.pem``,
    ``projects/ID/locations/``): where a secret lives, not the secret."""
    return (
        re.fullmatch(r"[\w.-]+\.(?:pem|key|p8|p12|pfx|der|crt|cer|jks|keystore"
                     r"|json|txt|gpg|asc|pub|ppk|enc|bin|env|yml|yaml|toml)", v) is not None
        or (re.fullmatch(r"[\w.-]+(?:/[\w.-]*)+", v) is not None and not _random(v))
    )


def _secret_value(v: str, min_len: int = 6) -> bool:
    """Is ``v``, given where a password goes, a password? (see the rules
    above: not a placeholder, code or a prose word; a default password
    always is)."""
    if len(v) >= 2 and v[0] == v[-1] and v[0] in "'\"`":
        v = v[1:-1]
    if _placeholder(v) or re.fullmatch(_CODE, v) or _path_like(v):
        return False
    if v.lower() in _WEAK or v.lower() in _DEFAULTS:
        return True
    return len(v) >= min_len and not _prose_word(v.rstrip(".,;:!?)"))


def _loose_secret(v: str) -> bool:
    """Does ``v``, written loosely after a password word, look like one?"""
    v = v.rstrip(".,;:!?")
    if _placeholder(v) or re.fullmatch(_CODE, v):
        return False
    if v.lower() in _WEAK:
        return True
    return len(v) >= 6 and (_random(v) or any(ch in "!@#$%^&*+=\\|<>~" for ch in v))


def _name_like(v: str) -> bool:
    """Lower-case words joined by ``-`` or ``_`` (``db-password``,
    ``from-env``, ``insecure-dev-only``): the name of a secret, not one."""
    return re.fullmatch(r"[a-z]{2,}(?:[-_][a-z]{2,}){1,8}", v) is not None


def _chosen_password(v: str) -> bool:
    """One token after a password word in prose (``password is X``,
    ``password: X``): a known default password, or 6+ characters with a
    letter and a digit or with a symbol (``sunshine2024``, ``p@ss-word``).
    Plain words pass (``stored``, ``rotated``), and so do hash names and
    compounds that end in a prose word (``utf-8``, ``argon2id-hashed``,
    ``2FA-protected``). A passphrase of several plain words passes: a word
    list cannot tell it from prose."""
    v = v.rstrip(".,;:!?)")
    if len(v) >= 2 and v[0] == v[-1] and v[0] in "'\"`":
        v = v[1:-1]
    low = v.lower()
    if low in _WEAK or low in _DEFAULTS:
        return True
    if (len(v) < 6 or _placeholder(v) or re.fullmatch(_CODE, v) or _path_like(v)
            or _expression(v)):
        return False
    parts = [x for x in re.split(r"[-_.]", v) if x]
    if all(x.isdigit() or _prose_word(x) for x in parts) or _prose_word(low.replace("-", "")):
        return False
    if len(parts) > 1 and parts[-1].isalpha() and parts[-1].islower() and _prose_word(parts[-1]):
        return False  # 2FA-protected, JavaScript-based
    letters = any(ch.isalpha() for ch in v)
    return (letters and any(ch.isdigit() for ch in v)) or any(
        ch in "!@#$%^&*+=~\\|<>" for ch in v)


def _pw_like(m: re.Match) -> bool:
    """A value after a password word: machine-made, with a symbol, or chosen."""
    v = m.group("v")
    return _loose_secret(v) or _chosen_password(v)


def _quoted_phrase(m: re.Match) -> bool:
    """``password="my secret pass 42"``: a quoted phrase with a digit or symbol."""
    v = m.group("v")
    return not _placeholder(v) and len(v) >= 6 and bool(re.search(r"[0-9!@#$%^&*+=~]", v))


def _pem_header(m: re.Match) -> bool:
    """A PEM header counts unless prose follows it (``... is the header``,
    ``... not found``) and no base64 body (40+ characters) is in the text."""
    global _last_body
    text = m.string
    if re.match(r"[ \t\"'`]*[a-z]{1,15}(?![A-Za-z0-9+/=])", text[m.end():m.end() + 20]) is None:
        return True
    if _last_body[0] is not text:  # once per text: the end of its last body
        end = -1
        for b in re.finditer(r"[A-Za-z0-9+/]{40,}", text):
            end = b.end()
        _last_body = (text, end)
    return _last_body[1] > m.end() + 39


_last_body: tuple = (None, -1)  # (text, end of its last base64 run of 40+)


def _aws_prose(m: re.Match) -> bool:
    v = m.group("v")
    return ("/" in v or "+" in v) and _random(v)


def _no_example(m: re.Match) -> bool:
    return "EXAMPLE" not in m.group(0)


def _body_random(m: re.Match) -> bool:
    return _random(m.group("v"))


def _body_cases(m: re.Match) -> bool:
    return _random_cases(m.group("v"))


def _body_digit(m: re.Match) -> bool:
    return any(ch.isdigit() for ch in m.group("v"))


def _body_hex(m: re.Match) -> bool:
    """Hex with digits and letters both, as a random key's hex always has."""
    v = m.group("v")
    return any(ch.isdigit() for ch in v) and any(ch.isalpha() for ch in v)


def _b64decode(v: str) -> bytes | None:
    import binascii

    v = v.replace("-", "+").replace("_", "/").rstrip("=")
    try:
        return binascii.a2b_base64(v + "=" * (-len(v) % 4))
    except binascii.Error:
        return None


def _basic_auth(m: re.Match) -> bool:
    """``Basic <base64>`` whose value decodes to ``user:password``."""
    raw = _b64decode(m.group("v"))
    try:
        text = raw.decode("utf-8") if raw else ""
    except UnicodeDecodeError:
        return False
    user, colon, password = text.partition(":")
    return bool(colon and user and password) and text.isprintable()


def _docker_auth(m: re.Match) -> bool:
    """``"auth": "<base64>"`` (a Docker or npm config): ``user:password``
    encoded, or any long machine-made value."""
    v = m.group("v")
    return _basic_auth(m) or (len(v) >= 16 and _random(v))


def _der_private(m: re.Match) -> bool:
    """Does the base64 at ``v`` start a DER private key? A PKCS#1, SEC1,
    PKCS#8 or PKCS#12 key is a SEQUENCE whose first element is a small
    version INTEGER (0, 1 or 3); an encrypted PKCS#8 key starts with a
    PBES (1.2.840.113549.1.5.13) or PKCS#12 PBE algorithm. Certificates
    and public keys start with a SEQUENCE instead: they pass."""
    der = _b64decode(m.group("v")[:48])
    if not der or len(der) < 8 or der[0] != 0x30:
        return False
    n = der[1]
    i = 2 if n < 0x80 else 2 + (n - 0x80) if 0x81 <= n <= 0x83 else 0
    if not i:
        return False
    if der[i : i + 3] in (b"\x02\x01\x00", b"\x02\x01\x01", b"\x02\x01\x03"):
        return True
    if der[i] != 0x30:
        return False
    j = i + 2 if der[i + 1] < 0x80 else i + 2 + (der[i + 1] - 0x80)
    oid = der[j : j + 11]
    return oid.startswith(
        (b"\x06\x09\x2a\x86\x48\x86\xf7\x0d\x01\x05\x0d",
         b"\x06\x0a\x2a\x86\x48\x86\xf7\x0d\x01\x0c\x01")
    )


def _discord(m: re.Match) -> bool:
    """A Discord bot token: its first part is a user id (digits) in base64,
    or at least the parts look machine-made."""
    first, _, rest = m.group(0).partition(".")
    raw = _b64decode(first)
    if raw and raw.isdigit() and 15 <= len(raw) <= 21:
        return True
    return _random(first) and _random(rest.rpartition(".")[2])


def _telegram(m: re.Match) -> bool:
    return len(set(m.group("v"))) > 4  # not AAAA... or xxxx...


def _url_password(m: re.Match) -> bool:
    v = m.group("v")
    return len(v) >= 3 and not _placeholder(v)


def _cookie(m: re.Match) -> bool:
    """A ``Cookie:`` / ``Set-Cookie:`` header with a session-like value:
    16+ characters, machine-made, or named like a session."""
    for part in m.group("v").split(";"):
        name, eq, value = part.strip().partition("=")
        value = value.strip().strip("\"'")
        if not eq or len(value) < 16 or " " in value or _placeholder(value):
            continue
        if _random(value) or (
            re.search(r"(?i)sess|sid|token|auth|jwt|login|remember|csrf|xsrf", name)
            and len(set(value)) > 8
        ):
            return True
    return False


def _value_secret(m: re.Match) -> bool:
    """A value where only a password can be (``mysql -pX``, ``.netrc``)."""
    return _secret_value(m.group("v"))


def _value_loose(m: re.Match) -> bool:
    """A value after a password option or word that may also be prose."""
    return _loose_secret(m.group("v"))


def _prose_password(m: re.Match) -> bool:
    """"the root password is X": X must look machine-made (letters and
    digits mixed up, or with a symbol) and have 8+ characters."""
    v = m.group("v").rstrip(".,;:!?)")
    if _chosen_password(v):
        return True
    if len(v) < 8 or _placeholder(v):
        return False
    return _random(v) or (
        any(ch.isdigit() for ch in v)
        and any(ch.isalpha() for ch in v)
        and any(ch in "!@#$%^&*+=~" for ch in v)
    )


def _expression(v: str) -> bool:
    """``min_length=12``, ``length>=12``, ``>=12``: a policy, not a value."""
    parts = re.split(r"[<>=!≤≥]+", v)
    return len(parts) > 1 and all(
        not p or p.isdigit() or (re.fullmatch(_IDENT, p) and not _random(p))
        for p in parts
    )


def _assignment(m: re.Match) -> bool:
    """``password=hunter22``, ``"api_key": "..."``, ``SECRET_KEY = '...'``.

    Written tightly (``key=value`` or a quoted value) any plausible value
    counts but a prose word; written loosely (``key: value``, ``key =
    value``) it must also look like a secret, so that prose such as
    ``Password: required`` passes.
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
    if _name_like(v):
        return False  # --secret=db-password, SECRET_KEY=insecure-dev-only
    if key.group("kn") is not None:  # private_key=id_rsa names a file
        if re.fullmatch(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+", v):
            return False
    elif key.group("pw") is None:  # token, api key: long and machine-made
        return len(v) >= 16 and _random(v)
    if quoted or m.group("sep") == "=":
        return _secret_value(v)
    # Loose: "Password: SHA-256", "secret: vault/prod/db" and
    # "password: min_length=12" are prose.
    v = v.rstrip(".,;:!?")
    return not _expression(v) and (_loose_secret(v) or _chosen_password(v))


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
_PW_ADVICE = _where("password", "DB password is in ~/.pgpass")
_KEY_ADVICE = _where("key", "deploy key is ~/.ssh/id_ed25519")


#: pattern -> a cheaper pattern (a bare prefix, which the re module finds
#: with a fast literal scan) that must match before the pattern is tried.
_GATES: dict = {}


def _token(kind: str, prefix: str, body: str, check, noun: str, env: str) -> tuple:
    """A row for a provider token: a fixed ``prefix`` (shown in messages),
    a ``body`` pattern, the token ends there."""
    vendor = re.sub(r"^an? | (?:API |IO |bot |service |secret )?(?:key|token)$", "", kind)
    pattern = _L + f"(?P<p>{prefix})(?P<v>{body})" + _R
    _GATES[pattern] = prefix
    return (kind, None, pattern, check,
            _where(noun, f"{vendor} {noun} is in the {env} env var"))


#: Provider tokens known by a prefix (``_token`` rows), newer formats.
_PROVIDERS: tuple = (
    _token("a Groq API key", "gsk_", "[A-Za-z0-9]{40,100}", _body_random,
           "key", "GROQ_API_KEY"),
    _token("an xAI API key", "xai-", "[A-Za-z0-9]{40,200}", _body_random,
           "key", "XAI_API_KEY"),
    _token("a Replicate API token", "r8_", "[A-Za-z0-9]{30,60}", _body_random,
           "token", "REPLICATE_API_TOKEN"),
    _token("a Perplexity API key", "pplx-", "[A-Za-z0-9]{32,100}", _body_random,
           "key", "PPLX_API_KEY"),
    _token("a DigitalOcean token", "do[por]_v1_", "[a-f0-9]{64}", _body_hex,
           "token", "DIGITALOCEAN_TOKEN"),
    _token("a Shopify token", "shp(?:at|ss|ca|pa)_", "[a-fA-F0-9]{32}", _body_hex,
           "token", "SHOPIFY_ACCESS_TOKEN"),
    _token("an Atlassian API token", "ATATT3|ATCTT3|ATBB", "[A-Za-z0-9_=-]{24,400}",
           _body_random, "token", "JIRA_API_TOKEN"),
    _token("a Doppler token", r"dp\.(?:st|pt|ct|sa|scim|audit)\.",
           r"(?:[a-z0-9_-]{1,40}\.)?[A-Za-z0-9]{40,44}", _body_random,
           "token", "DOPPLER_TOKEN"),
    _token("a HashiCorp Vault token", r"hv[sbr]\.", "[A-Za-z0-9_-]{24,400}",
           _body_random, "token", "VAULT_TOKEN"),
    _token("a Databricks token", "dapi", "[a-f0-9]{32}(?:-[0-9])?", _body_hex,
           "token", "DATABRICKS_TOKEN"),
    _token("a Linear API key", "lin_(?:api|oauth)_", "[A-Za-z0-9]{40}", _body_random,
           "key", "LINEAR_API_KEY"),
    _token("a Twilio API key", "SK", "[0-9a-f]{32}", _body_hex,
           "key", "TWILIO_API_KEY"),
    _token("a Mailgun API key", "key-", "[0-9a-f]{32}", _body_hex,
           "key", "MAILGUN_API_KEY"),
    _token("a Postman API key", "PMAK-", "[0-9a-f]{24}-[0-9a-f]{34}", _body_hex,
           "key", "POSTMAN_API_KEY"),
    _token("a Sentry token", "sntry[su]_", "[A-Za-z0-9+/=_-]{40,400}", _body_random,
           "token", "SENTRY_AUTH_TOKEN"),
    _token("a Grafana token", "glsa_|glc_", "[A-Za-z0-9+/_]{32,400}={0,2}", _body_random,
           "token", "GRAFANA_TOKEN"),
    _token("a New Relic key", "NR(?:AK|II|IQ)-", "[A-Za-z0-9_-]{27,32}", _body_random,
           "key", "NEW_RELIC_API_KEY"),
    _token("a Heroku API key", "HRKU-", "[A-Za-z0-9_-]{30,300}", _body_random,
           "key", "HEROKU_API_KEY"),
    _token("a Supabase key", "sbp_|sb_secret_", "[A-Za-z0-9_-]{32,100}", _body_random,
           "key", "SUPABASE_ACCESS_TOKEN"),
    _token("a Netlify token", "nfp_", "[A-Za-z0-9]{36,60}", _body_random,
           "token", "NETLIFY_AUTH_TOKEN"),
    _token("a PlanetScale token", "pscale_(?:tkn|pw|oauth)_", "[A-Za-z0-9_.-]{32,64}",
           _body_random, "token", "PLANETSCALE_SERVICE_TOKEN"),
    _token("a Pulumi token", "pul-", "[a-f0-9]{40}", _body_hex,
           "token", "PULUMI_ACCESS_TOKEN"),
    _token("a Square token", "sq0(?:atp|csp)-|EAAA", "[A-Za-z0-9_-]{22,100}",
           _body_random, "token", "SQUARE_ACCESS_TOKEN"),
    _token("a Mapbox secret token", r"sk\.",
           r"eyJ[A-Za-z0-9_-]{20,400}\.[A-Za-z0-9_-]{20,200}", None,
           "token", "MAPBOX_ACCESS_TOKEN"),
    _token("a Notion token", "ntn_|secret_", "[A-Za-z0-9]{40,50}", _body_random,
           "token", "NOTION_TOKEN"),
    _token("an Airtable token", "pat", r"[A-Za-z0-9]{14}\.[a-f0-9]{64}", _body_random,
           "token", "AIRTABLE_TOKEN"),
    _token("a Figma token", "figd_", "[A-Za-z0-9_-]{38,60}", _body_random,
           "token", "FIGMA_TOKEN"),
    _token("a Tavily API key", "tvly-", "(?:dev-|prod-)?[A-Za-z0-9]{24,64}",
           _body_random, "key", "TAVILY_API_KEY"),
    _token("a LangSmith API key", "lsv2_(?:pt|sk)_", "[a-f0-9]{32}_[a-f0-9]{10}",
           _body_hex, "key", "LANGSMITH_API_KEY"),
    _token("a 1Password service token", "ops_", "eyJ[A-Za-z0-9+/=_-]{50,4000}", None,
           "token", "OP_SERVICE_ACCOUNT_TOKEN"),
    _token("a Docker Hub token", "dckr_(?:pat|oat)_", "[A-Za-z0-9_-]{24,100}",
           _body_random, "token", "DOCKER_TOKEN"),
    _token("a Buildkite token", "bkua_", "[a-f0-9]{40}", _body_hex,
           "token", "BUILDKITE_API_TOKEN"),
    _token("a CircleCI token", "CCIPAT_", "[A-Za-z0-9_]{40,100}", _body_random,
           "token", "CIRCLECI_TOKEN"),
    _token("a RubyGems API key", "rubygems_", "[a-f0-9]{48}", _body_hex,
           "key", "GEM_HOST_API_KEY"),
    _token("a Clojars token", "CLOJARS_", "[a-z0-9]{60}", _body_hex,
           "token", "CLOJARS_TOKEN"),
    _token("a NuGet API key", "oy2", "[a-z0-9]{43}", _body_random,
           "key", "NUGET_API_KEY"),
    _token("a Brevo API key", "xkeysib-|xsmtpsib-", "[a-f0-9]{64}-[A-Za-z0-9]{16}",
           _body_hex, "key", "BREVO_API_KEY"),
    _token("a Contentful token", "CFPAT-", "[A-Za-z0-9_-]{43}", _body_random,
           "token", "CONTENTFUL_MANAGEMENT_TOKEN"),
    _token("an Adafruit IO key", "aio_", "[A-Za-z0-9]{28}", _body_random,
           "key", "ADAFRUIT_IO_KEY"),
    _token("a Prefect API key", "pnu_", "[A-Za-z0-9]{36}", _body_random,
           "key", "PREFECT_API_KEY"),
    _token("a Pinecone API key", "pcsk_", "[A-Za-z0-9_]{40,120}", _body_random,
           "key", "PINECONE_API_KEY"),
    _token("a Resend API key", "re_", "[A-Za-z0-9]{8}_[A-Za-z0-9]{24}", _body_random,
           "key", "RESEND_API_KEY"),
    _token("a Fly.io token", "fo1_|fm[12][ar]?_", "[A-Za-z0-9+/_-]{40,4000}={0,2}",
           _body_random, "token", "FLY_API_TOKEN"),
    _token("a Dropbox token", r"sl\.(?:u\.)?", "[A-Za-z0-9_-]{100,2000}", _body_random,
           "token", "DROPBOX_TOKEN"),
    _token("an ElevenLabs API key", "sk_", "[a-f0-9]{48}", _body_hex,
           "key", "ELEVENLABS_API_KEY"),
    ("a Telegram bot token", "NNN:AA...",
     r"(?<![0-9])[0-9]{8,10}:AA(?P<v>[A-Za-z0-9_-]{33})" + _R, _telegram,
     _where("token", "Telegram bot token is in the TELEGRAM_BOT_TOKEN env var")),
    ("a Discord bot token", None,
     _L + r"(?P<p>[MNO])[A-Za-z0-9_-]{23,25}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38}"
     + _R, _discord,
     _where("token", "Discord bot token is in the DISCORD_TOKEN env var")),
    ("a Discord webhook URL", "discord.com/api/webhooks/...",
     r"discord(?:app)?\.com/api/webhooks/[0-9]{5,30}/[A-Za-z0-9_-]{40,200}", None,
     _where("webhook URL", "Discord webhook URL is in the DISCORD_WEBHOOK env var")),
    ("a Mailchimp API key", "...-usNN",
     r"(?<![A-Za-z0-9_-])(?P<v>[0-9a-f]{32})-us[0-9]{1,2}" + _R, _body_hex,
     _where("key", "Mailchimp key is in the MAILCHIMP_API_KEY env var")),
    ("an Azure client secret", "...Q~...",
     r"(?<![A-Za-z0-9_~.-])(?P<v>[A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34})"
     r"(?![A-Za-z0-9_~.-])", _body_random,
     _where("secret", "Azure client secret is in the AZURE_CLIENT_SECRET env var")),
    ("a Terraform Cloud token", None,
     _L + r"[A-Za-z0-9]{14}\.(?P<p>atlasv1\.)(?P<v>[A-Za-z0-9_=-]{60,70})" + _R,
     _body_random, _where("token", "Terraform token is in ~/.terraform.d/credentials.tfrc.json")),
)

#: Keys and passwords in config files and on command lines.
_CONFIGS: tuple = (
    ("an Azure storage key", "AccountKey=...",
     r"(?i:AccountKey|SharedAccessKey)[ \t]*=[ \t]*(?P<v>[A-Za-z0-9+/]{20,400}={0,2})",
     _body_random,
     _where("key", "storage key is in the AZURE_STORAGE_CONNECTION_STRING env var")),
    ("an Azure SAS signature", "sig=...",
     r"[?&;]sig=(?P<v>[A-Za-z0-9%+/]{30,200}(?:=|%3[Dd]){0,2})", _body_random,
     _where("signature", "SAS URL is in the AZURE_SAS_URL env var")),
    ("a registry auth value", '"auth": "..."',
     r"(?i)[\"']auth[\"'][ \t]*:[ \t]*[\"'](?P<v>[A-Za-z0-9+/]{8,2000}={0,2})[\"']",
     _docker_auth, _where("login", "registry login is in ~/.docker/config.json")),
    ("a private key body", "MII...",
     r"(?<![A-Za-z0-9+/])(?P<v>M[A-Za-z0-9+/]{63})", _der_private, _KEY_ADVICE),
    ("an OpenSSH private key body", None,
     r"(?<![A-Za-z0-9+/])(?P<p>b3BlbnNzaC1rZXktdjE)", None, _KEY_ADVICE),
    ("a PuTTY private key", None,
     r"(?P<p>PuTTY-User-Key-File-)[0-9]+:", None, _KEY_ADVICE),
    ("a session cookie", "Cookie: ...",
     r"(?<![A-Za-z0-9_-])(?i:set-cookie|cookie)[\"']?[ \t]*:[ \t]*"
     r"(?P<v>[^\"'`\r\n]{1,600})", _cookie,
     _where("cookie", "session cookie is in the browser's cookie jar")),
    ("a password on a command line", "-p...",
     r"(?<![A-Za-z0-9_./-])(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlshow"
     r"|mysqlcheck|mysqlpump|mysqlsh|mariadb|mariadb-dump|mariadb-admin"
     r"|mariadbd?ump)(?:\.exe)?(?:[ \t]+[^ \t]{1,200}){0,20}?[ \t]+-p"
     r"(?P<v>\"[^\"\s]{1,200}\"|'[^'\s]{1,200}'|[^\s\"'`;|&]{1,200})", _value_secret,
     _PW_ADVICE),
    ("a password on a command line", "sshpass -p ...",
     r"(?<![A-Za-z0-9_./-])sshpass(?:[ \t]+[^ \t]{1,200}){0,5}?[ \t]+-p[ \t]*"
     r"(?P<v>\"[^\"\s]{1,200}\"|'[^'\s]{1,200}'|[^\s\"'`;|&]{1,200})", _value_secret,
     _PW_ADVICE),
    ("a password on a command line", "redis-cli -a ...",
     r"(?<![A-Za-z0-9_./-])redis-cli(?:[ \t]+[^ \t]{1,200}){0,10}?[ \t]+(?:-a|--pass)"
     r"[ \t]+(?P<v>\"[^\"\s]{1,200}\"|'[^'\s]{1,200}'|[^\s\"'`;|&]{1,200})",
     _value_secret, _PW_ADVICE),
    ("a password on a command line", "-u user:...",
     r"(?<![A-Za-z0-9_./-])curl(?:[ \t]+[^ \t]{1,200}){0,20}?[ \t]+(?:-u|--user)"
     r"[ \t]*[\"']?[^\s:\"']{1,100}:(?P<v>[^\s\"']{1,200})", _value_secret,
     _PW_ADVICE),
    ("a password on a command line", "-p ...",
     r"(?<![A-Za-z0-9_./-])(?:(?:docker|podman|buildah|skopeo|helm|oras|crane)"
     r"(?:[ \t]+registry)?[ \t]+login|mongo|mongosh|mongodump|mongorestore"
     r"|mongoexport|mongoimport|mongostat|mongotop)(?:[ \t]+[^ \t]{1,200}){0,20}?"
     r"[ \t]+(?:-p|--password)[ \t]+(?!-)"
     r"(?P<v>\"[^\"\s]{1,200}\"|'[^'\s]{1,200}'|[^\s\"'`;|&]{1,200})",
     _value_secret, _PW_ADVICE),
    ("a password on a command line", "ldapsearch -w ...",
     r"(?<![A-Za-z0-9_./-])ldap(?:search|add|modify|delete|whoami|passwd|modrdn"
     r"|compare|exop)(?:[ \t]+[^ \t]{1,200}){0,20}?[ \t]+-w[ \t]*"
     r"(?P<v>\"[^\"\s]{1,200}\"|'[^'\s]{1,200}'|[^\s\"'`;|&]{1,200})",
     _value_secret, _PW_ADVICE),
    ("a password on a command line", "-U user%...",
     r"(?<![A-Za-z0-9_./-])(?:smbclient|rpcclient|smbcacls|smbget|smbmap)"
     r"(?:[ \t]+[^ \t]{1,200}){0,20}?[ \t]+(?:-U|--user)[ \t=]*[\"']?"
     r"[^\s%\"']{1,100}%(?P<v>[^\s\"']{1,200})", _value_secret, _PW_ADVICE),
    ("a password on a command line", "pass:...",
     r"(?<![A-Za-z0-9_-])-pass(?:in|out)?[ \t]+pass:(?P<v>[^\s\"']{1,200})",
     _value_secret, _PW_ADVICE),
    ("a password on a command line", "sqlcmd -P ...",
     r"(?<![A-Za-z0-9_./-])(?:sqlcmd|bcp|osql|isql)(?:\.exe)?(?:[ \t]+[^ \t]{1,200}){0,20}?"
     r"[ \t]+-P[ \t]*(?!-)(?P<v>\"[^\"\s]{1,200}\"|'[^'\s]{1,200}'|[^\s\"'`;|&]{1,200})",
     _value_secret, _PW_ADVICE),
    ("a password on a command line", "htpasswd -b ...",
     r"(?<![A-Za-z0-9_./-])htpasswd(?:[ \t]+-[A-Za-z]{1,8}){0,4}?[ \t]+-[A-Za-z]{0,6}b"
     r"[A-Za-z]{0,6}(?:[ \t]+-[A-Za-z]{1,8}){0,4}[ \t]+[^\s-][^ \t]{0,200}[ \t]+[^ \t]{1,100}"
     r"[ \t]+(?P<v>\"[^\"\s]{1,200}\"|'[^'\s]{1,200}'|[^\s\"'`;|&]{1,200})",
     _value_secret, _PW_ADVICE),
    # Any long option named like a secret (--db-password, --client-secret,
    # --api-key) followed by a value that is not another option.
    ("a password on a command line", "--password ...",
     r"(?<![A-Za-z0-9_-])(?:--(?:[A-Za-z0-9]{1,20}-){0,4}(?i:password|passwd|pass|secret"
     r"|token|api-key)|-(?:password|passwd|pass)|(?<=login )-p)[ \t]+(?!-)"
     r"(?P<v>\"[^\"\s]{1,200}\"|'[^'\s]{1,200}'|[^\s\"'`;|&]{1,200})", _value_loose,
     _PW_ADVICE),
    ("a password in a .netrc line", "machine ... password ...",
     r"(?<![A-Za-z0-9_-])(?:machine[ \t]+[^ \t]{1,200}|default)"
     r"(?:[ \t]+(?:account|port)[ \t]+[^ \t]{1,200}){0,2}"
     r"[ \t]+login[ \t]+[^ \t]{1,200}"
     r"(?:[ \t]+(?:account|port)[ \t]+[^ \t]{1,200}){0,2}"
     r"[ \t]+password[ \t]+(?P<v>[^ \t]{1,200})", _value_secret, _PW_ADVICE),
    ("a password in prose", "password is ...",
     r"(?<![A-Za-z0-9_-])(?i:pass(?:word|wd|phrase|code)|pw)"
     r"(?:[ \t]+(?:for|of|on|to|at)(?:[ \t]+[^ \t]{1,80}){1,3}?)?"
     r"(?:[ \t]+(?i:is|was)(?:[ \t]+(?i:now|still|set[ \t]+to|changed[ \t]+to))?"
     r"|[ \t]+(?i:set|changed)[ \t]+to):?[ \t]+[\"'`]?(?P<v>[^\s\"'`]{1,200})",
     _prose_password, _PW_ADVICE),
    ("a password", 'password="..."',
     r"(?<![A-Za-z0-9_-])(?i:pass(?:word|wd|phrase)|secret)[\"']?[ \t]*=[ \t]*"
     r"(?P<q>[\"'])(?P<v>[^\"'\r\n]{1,200} [^\"'\r\n]{0,200})(?P=q)",
     _quoted_phrase, _PW_ADVICE),
    ("a password", "login user / ...",
     r"(?<![A-Za-z0-9_-])(?i:login|logins|creds|credentials)(?:[ \t]+[^\s:]{1,80}){0,4}?"
     r"[ \t]*:?[ \t]+[^\s:/]{1,100}(?:[ \t]*/[ \t]*|:)(?P<v>[^\s\"'`]{1,200})",
     _pw_like, _PW_ADVICE),
    ("a password in a .pgpass line", "host:port:db:user:...",
     r"(?<![\w.:-])[^\s:]{1,200}:[0-9]{1,5}:[^\s:]{1,100}:[^\s:]{1,100}"
     r":(?P<v>[^\s:]{1,200})(?![:\w])", _value_secret, _PW_ADVICE),
    ("a password hash", "$2b$...",
     r"\$(?:2[abxy]?\$[0-9]{2}\$[./A-Za-z0-9]{53}"
     r"|[156]\$(?:rounds=[0-9]{1,9}\$)?[./A-Za-z0-9]{1,16}\$[./A-Za-z0-9]{22,86}"
     r"|apr1\$[./A-Za-z0-9]{1,8}\$[./A-Za-z0-9]{22}"
     r"|y\$[./A-Za-z0-9]{1,30}\$[./A-Za-z0-9]{1,86}\$[./A-Za-z0-9]{43})",
     None, _where("hash", "password hash is in /etc/shadow")),
    ("a private key", "0x...",
     r"(?<![A-Za-z0-9_-])(?i:priv(?:ate)?[ _-]?key|secret)[\"']?[ \t]*(?:is)?[ \t]*[:=]?"
     r"[ \t]*[\"']?(?P<v>(?:0x)?[0-9a-fA-F]{64})(?![0-9a-fA-F])", _body_hex, _KEY_ADVICE),
    ("a seed phrase", "seed phrase: ...",
     r"(?i:seed[ _-]?phrase|seed[ _-]?words|recovery[ _-]?phrase|mnemonic)"
     r"[\"']?[ \t]*(?:is|[:=])[ \t]*[\"']?(?:[a-z]{3,8}[ \t]+){11,23}[a-z]{3,8}(?![A-Za-z])",
     None, _where("seed phrase", "wallet seed is in the hardware wallet")),
    ("a Sentry DSN", "https://...@...sentry...",
     r"https?://(?P<v>[0-9a-f]{32})(?::[0-9a-f]{32})?@[A-Za-z0-9.-]{1,200}/[0-9]{1,20}",
     _body_hex, _where("DSN", "Sentry DSN is in the SENTRY_DSN env var")),
    ("an Okta API token", "SSWS ...",
     r"(?<![A-Za-z])SSWS[ \t]+(?P<v>[A-Za-z0-9_-]{30,60})" + _R, _body_random,
     _where("token", "Okta token is in the OKTA_API_TOKEN env var")),
    ("a Firebase server key", "AAAA...:APA91b...",
     _L + r"AAAA[A-Za-z0-9_-]{7}:APA91b[A-Za-z0-9_-]{100,400}", None,
     _where("key", "Firebase key is in the FCM_SERVER_KEY env var")),
    ("a service account key id", '"private_key_id": "..."',
     r"[\"']private_key_id[\"'][ \t]*:[ \t]*[\"'](?P<v>[0-9a-f]{40})[\"']", _body_hex,
     _where("key", "service account key is in ~/.config/gcloud/sa.json")),
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
    ("an AWS secret access key", "aws secret ...",
     r"(?i:aws)[ \t_-]*(?i:secret)(?:[ \t_-]*(?i:access))?(?:[ \t_-]*(?i:key))?"
     r"(?:[ \t]+(?i:is))?[ \t:=]*[\"']?(?P<v>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])",
     _aws_prose, _where("key", "AWS keys are in ~/.aws/credentials, profile dev")),
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
    *_PROVIDERS,
    ("a private key", "-----BEGIN ... PRIVATE KEY-----",
     r"-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----", _pem_header, _KEY_ADVICE),
    ("a private key", "AGE-SECRET-KEY-1...",
     r"(?<![A-Za-z0-9-])AGE-SECRET-KEY-1[0-9A-Z]{58}", None, _KEY_ADVICE),
    ("a private key", "-----END ... PRIVATE KEY-----",
     r"-----END[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----", None, _KEY_ADVICE),
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
    # The password may hold a raw "@": the host follows the last one.
    ("a password in a URL", "scheme://user:...@host",
     r"[A-Za-z][A-Za-z0-9+.-]{1,20}://[^\s/:@?#]{0,100}:(?P<v>[^\s/?#]{1,200})@"
     r"(?=[A-Za-z0-9\[])", _url_password, _URL_ADVICE),
    *_CONFIGS,
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
            (kind, shown, re.compile(pattern), check, advice,
             re.compile(_GATES[pattern]) if pattern in _GATES else None)
            for kind, shown, pattern, check, advice in CREDENTIALS
        ]
    return _compiled


def find_credential(text: str) -> str | None:
    """The reason ``text`` is refused for carrying a credential, or None.

    The reason names the kind and a fixed generic prefix, never the secret.
    """
    for kind, shown, pattern, check, advice, gate in _rules():
        if gate is not None and gate.search(text) is None:
            continue
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
