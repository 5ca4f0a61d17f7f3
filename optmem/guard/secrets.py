"""Credentials the write guard refuses: the one table of families (docs/guard.md).

``FAMILIES`` holds every kind of credential memo knows, each a ``Family``
with a short id, the kind a message names, its keywords, its pattern, a
check, the advice, and its source (the provider's documentation or the
public scanner rule its shape was learnt from). The README lists them; the
tests generate an example of each (never a real credential).

How a text is scanned, as secret scanners do it (gitleaks, trufflehog):
one pass of a keyword automaton over the lower-cased text finds which
families can match; only their patterns run (each compiled on first use),
then their check: entropy and length thresholds, shape (a DER private key
decodes), placeholders and prose words. Every pattern is linear in the
length of the text (bounded repeats, no nested unbounded ones).

Placeholders (``ghp_xxxx...``, ``AKIAXXXXXXXXXXXXXXXX``, ``<token>``,
``${TOKEN}``, ``...EXAMPLE``) pass: a run of one character, a value in
angle brackets or ``${}``, and AWS's documented ``EXAMPLE`` keys are not
secrets. Identifiers pass too: a commit hash, ``sha256:`` digest, UUID or
request id by itself, and a value after an identifier's name
(``RequestToken``, ``cache_key``, ``--lock-token``) or an ARN.

Sentences are read too: a credential word with a value next to it ("the
staging API token is ..."), a key's body line noted alone, shell forms
(see "credentials in sentences" below; ``docs/guard.md`` has the table).

Pure: no I/O. A message never repeats the secret it found, only a fixed
generic prefix.
"""

from __future__ import annotations

import math
import re
import string
from typing import Callable, NamedTuple

# ------------------------------------------------------------ how values are judged
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
#   - a placeholder (``<pw>``, ``$VAR``, ``${VAR}``, ``***``, ``...``,
#     ``changeme``: a value that says to replace it),
#     code (``args.password``, ``DB_PASSWORD``), a path or a file name
#     (``~/.pgpass``, ``foo/pk``, ``key.pem``; a key name may also be
#     followed by a snake_case file name such as ``id_rsa``);
#   - one word that is prose in a log line: a common English or tech word
#     (``password=invalid``, ``secret=rotated``, ``password=argon2id``):
#     a word of ``_PROSE_WORDS``, a word with a regular suffix (-ed, -ing,
#     -tion, -less, ... up to 14 letters), or a hash or cipher name with
#     its digits (sha256, pbkdf2, argon2id), in lower, Title or UPPER case.
#   Known default passwords (``_WEAK`` and ``_DEFAULTS``:
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
    "redacted hidden masked removed changeme changeit change-me change_me "
    "changethis replaceme".split()
)
#: Well-known default passwords: a secret even when they look like words.
_WEAK = frozenset(
    "letmein qwerty qwertyuiop iloveyou trustno1 "
    "passw0rd p@ssw0rd p@ssword p4ssw0rd passw0rd! p@ssw0rd! admin1 admin12 "
    "admin123 admin1234 hunter2 password1 password12 password123 "
    "password1234 password! secret1 secret12 secret123 qwerty1 qwerty123 "
    "abc123 abcd1234 welcome1 welcome123 1qaz2wsx test123 test1234 "
    "default123 pass123 pass1234 root123 toor123".split()
)
#: Example passwords famous from a joke or a film (bash.org's hunter2,
#: the Marx Brothers' swordfish, xkcd's correcthorsebatterystaple): still
#: refused as a value ("the password is hunter2"), allowed when a sentence
#: only mentions the phrase ("the password is hunter2 was a joke").
_FAMOUS = frozenset("hunter2 swordfish correcthorsebatterystaple".split())
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
    r"|license)[_.-]?key|apikey|token|(?:^|(?<=[_.-]))(?:auth|credentials|creds)"
    # any other name that ends in a key word: DATADOG_KEY, stripeKey, CREDENTIAL
    r"|(?P<gk>(?<=[_.-])(?:key|credential)|(?-i:(?<=[a-z0-9])(?:Key|Credential))))$"
)


def _code(v: str) -> bool:
    """``args.password``, ``DB_PASSWORD``: code that names a value. A dotted
    name with a generated part (``pk.<random>.<random>``) is a token."""
    return re.fullmatch(_CODE, v) is not None and not any(
        len(p) >= 16 and _random(p) for p in v.split("."))


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


def _digest(v: str) -> bool:
    """A digest named by its algorithm (``sha256:<hex>``, ``sha384-<base64>``,
    ``md5:<hex>``): an identifier of content, not a secret."""
    return re.match(r"(?i)(?:sha(?:1|224|256|384|512)|md5|blake2[bs]?|blake3)[:-]"
                    r"[0-9A-Za-z+/=]{16,}", v) is not None


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
    if _placeholder(v) or _code(v) or _path_like(v):
        return False
    if v.lower() in _WEAK or v.lower() in _DEFAULTS:
        return True
    return len(v) >= min_len and not _prose_word(v.rstrip(".,;:!?)"))


#: Marks written around a value: markdown emphasis and code, quotes.
_WRAPPERS = (("**", "**"), ("__", "__"), ("*", "*"), ("_", "_"), ("~~", "~~"),
             ("`", "`"), ('"', '"'), ("'", "'"), ("\u201c", "\u201d"),
             ("\u2018", "\u2019"), ("\u00ab", "\u00bb"))


def _unwrap(v: str) -> str:
    """``v`` without the emphasis or quotes written around it (``**X**``,
    ``*X*``, ``__X__``, a backtick pair, ``"X"``, ``“X”``, ``«X»``), peeled
    at most three times; ``***`` and ``__init__``-like runs of the mark
    alone are left as they are (a placeholder, a name)."""
    for _ in range(3):
        for left, right in _WRAPPERS:
            inner = v[len(left):len(v) - len(right)]
            if (len(v) > len(left) + len(right) and v.startswith(left)
                    and v.endswith(right) and inner.strip(left + right)
                    and inner[0] not in left and inner[-1] not in right):
                v = inner
                break
        else:
            return v
    return v


def _loose_secret(v: str) -> bool:
    """Does ``v``, written loosely after a password word, look like one?"""
    v = v.rstrip(".,;:!?")
    if _placeholder(v) or _code(v):
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
    v = _unwrap(v.rstrip(".,;:!?)"))
    low = v.lower()
    if low in _WEAK or low in _DEFAULTS:
        return True
    if (len(v) < 6 or _placeholder(v) or _code(v) or _path_like(v)
            or _expression(v) or _digest(v)):
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
    if _digest(v) or re.search(r"(?i)(?:sha[0-9]*|md5|blake[0-9a-z]*)[:-]$",
                               m.string[max(0, m.start("v") - 8):m.start("v")]):
        return False  # sha256:<hex> is a digest
    return _loose_secret(v) or _chosen_password(v) or _mixed_letters(v.rstrip(".,;:!?"))


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
    """Not AWS's documented example key, not a filler (``AKIAXXXX...``)."""
    return "EXAMPLE" not in m.group(0) and len(set(m.group(0)[4:])) >= 6


def _not_filler(m: re.Match) -> bool:
    """Not a placeholder such as ``ghp_xxxx...`` or ``ghp_0000...``: the
    body holds 6+ different characters."""
    return len(set(m.group(0)[len(m.group("p")):])) >= 6


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
    """A password in a URL's user part. One with a raw ``/`` (which a URL
    should encode, but people paste) must also look like a secret, and
    never starts as a port and a path do (``host:443/@scope``)."""
    v = m.group("v")
    if "/" in v:
        if re.match(r"[0-9]*/", v):  # a port and a path, or 1//0<token>
            return _sentence_secret(v.lstrip("0123456789/"), True)
        return _sentence_secret(v, True)
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
    v = _unwrap(m.group("v").rstrip(".,;:!?)"))
    if _mention(v, m.string, m.end("v")):
        return False
    if _chosen_password(v):
        return True
    if len(v) < 8 or _placeholder(v) or _digest(v):
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
    """A credential assignment (``_assignment_value``) that is not the tail
    of an ARN: ``arn:aws:secretsmanager:...:secret:name`` names a secret."""
    if not _assignment_value(m):
        return False
    k = m.start("k")
    return k == 0 or m.string[k - 1] != ":" or re.search(
        r"(?<![A-Za-z0-9])arn:\S*:$", m.string[max(0, k - 300):k]) is None


def _assignment_value(m: re.Match) -> bool:
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
    if _placeholder(v) or _code(v) or _digest(v):
        return False
    low = v.lower()
    stripped = re.sub(r"[^a-z0-9]", "", low)
    if stripped and stripped in re.sub(r"[^a-z0-9]", "", m.group("k").lower()):
        return False  # password=password, api_key=apiKey: a variable
    if "_" in v and re.fullmatch(_IDENT, v) and re.search(_KEY_WORD, v):
        return False  # password=db_password, token=token_from_vault
    if low.startswith("arn:") or "://" in v:
        return False  # encryptionKey=arn:aws:kms:..., a URL: where it lives
    if low in _WEAK:
        return True
    if _name_like(v):
        return False  # --secret=db-password, SECRET_KEY=insecure-dev-only
    if key.group("kn") is not None:  # private_key=id_rsa names a file
        if re.fullmatch(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+", v):
            return False
    elif key.group("pw") is None:  # token, api key: long and machine-made
        if _public_name(m.group("k")):
            return False  # RequestToken=<uuid>, cache_key=<hash>
        return (len(v) >= 14 and _random(v)) or _high_entropy(v)
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


# ------------------------------------------------- checks added for #16

#: Words before ``key`` / ``token`` in a name that make it an identifier,
#: not a secret: ``cache_key``, ``RequestToken``, ``--lock-token``,
#: ``idempotency_key``, ``public_key``, ``NextToken`` (AWS pagination).
_PUBLIC_NAME_WORDS = frozenset(
    "cache idempotency idempotence partition sort primary foreign public pub "
    "publishable lookup routing row hash dedup dedupe object bucket s3 map "
    "dict index composite unique natural surrogate shard group host request "
    "lock next page pagination continuation client sync cancel resume marker "
    "cursor change start end correlation trace span upload etag version "
    "revision registration invite invitation share sharing ssh gpg pgp "
    "fingerprint foreign_key sign signing_public verify verification".split()
)


def _entropy(s: str) -> float:
    """Shannon entropy of ``s`` in bits per character (0.0 for "")."""
    n = len(s)
    if not n:
        return 0.0
    counts: dict = {}
    for ch in s:
        counts[ch] = counts.get(ch, 0) + 1
    return -sum(c / n * math.log2(c / n) for c in counts.values())


def _high_entropy(v: str, min_len: int = 20) -> bool:
    """A value that reads as generated: ``min_len``+ characters (default
    20, as scanners use) with 3.5+ bits of Shannon entropy per character
    (3.0 for hex, whose alphabet is 16); split at ``-_./=+:`` it is one run,
    or has a digit and is not all short lower-case words and numbers
    (``refresh-token-expired-after-30-days`` passes)."""
    if len(v) < min_len or " " in v:
        return False
    hexish = re.fullmatch(r"[0-9a-fA-F-]+", v) is not None
    if _entropy(v) < (3.0 if hexish else 3.5):
        return False
    parts = [p for p in re.split(r"[-_./=+:]+", v) if p]
    if len(parts) <= 1:
        return True
    if not any(ch.isdigit() for ch in v):
        return _random_cases(v)
    return not all(p.isdigit() or (p.isalpha() and p.islower() and len(p) <= 12)
                   or _prose_word(p) for p in parts)


def _machine_made(v: str) -> bool:
    """Looser than ``_random`` for a body after a distinctive prefix: 8+
    distinct characters and a digit, or both cases, and not one prose word."""
    return _random(v) or len(set(v)) >= 8 and (
        any(ch.isdigit() for ch in v)
        or (any(ch.isupper() for ch in v) and any(ch.islower() for ch in v))
        or _entropy(v) >= 3.5
    ) and not _name_like(v)


def _body_machine(m: re.Match) -> bool:
    g = m.re.groupindex
    return _machine_made(m.group("v") if "v" in g else m.group(0))


def _has_digit(m: re.Match) -> bool:
    return any(ch.isdigit() for ch in m.group(0))


def _public_name(name: str) -> bool:
    """Is ``name`` (``RequestToken``, ``cache_key``, ``--lock-token``) an
    identifier's name: its word before key/token in ``_PUBLIC_NAME_WORDS``?"""
    words = re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+", name)
    words = [w.lower() for w in words]
    return (len(words) >= 2 and words[-1] in ("key", "token", "keys", "tokens")
            and words[-2] in _PUBLIC_NAME_WORDS)


def _option_value(m: re.Match) -> bool:
    """A value after a long option named like a secret: not for an
    identifier's option (``--lock-token <uuid>``)."""
    v = m.group("v")
    return not _public_name(m.group("k")) and not _option_spec(v) and _loose_secret(v)


def _option_spec(v: str) -> bool:
    """``id=npm,src=$HOME/.npmrc`` (``docker build --secret``): a list of
    ``name=value`` where each value is a placeholder, a path or a plain word."""
    parts = v.strip("\"'").split(",")
    for part in parts:
        m = re.fullmatch(r"[a-z]{1,20}=(\S*)", part)
        if m is None:
            return False
        val = m.group(1)
        if not (_placeholder(val) or _path_like(val) or val.startswith(("$", "~"))
                or (re.fullmatch(r"[\w.-]{1,40}", val) and not _random(val))):
            return False
    return True


def _k8s_secret(m: re.Match) -> bool:
    """A value under ``data:`` of a Kubernetes ``kind: Secret`` written on
    one line: base64 that decodes to printable text."""
    if re.search(r"(?i)kind:[ \t]*[\"']?secret(?![\w-])", m.string) is None:
        return False
    raw = _b64decode(m.group("v"))
    try:
        return bool(raw) and len(raw) >= 4 and raw.decode("utf-8").isprintable()
    except UnicodeDecodeError:
        return False


def _curl_user(m: re.Match) -> bool:
    """``curl -u user:password``, or ``-u key:`` where the user is an API
    key with an empty password (Stripe, Mailgun): a generated user name."""
    if m.group("user") is not None:
        return _machine_made(m.group("user")) and not _placeholder(m.group("user"))
    return _secret_value(m.group("v"))


def _b64_jwt(m: re.Match) -> bool:
    """Base64 that decodes to a JWT's start (``eyJ``...)."""
    raw = _b64decode(m.group(0)[:12])
    return bool(raw) and raw.startswith(b"eyJ") and raw.isascii()


def _header_value(m: re.Match) -> bool:
    """A credential in a request header (``-H "X-Api-Key: ..."``): 8+
    characters, not a placeholder, not one plain word."""
    v = m.group("v")
    return len(v) >= 8 and not _placeholder(v) and not _code(v) and not _digest(v) and (
        _machine_made(v) or any(ch.isdigit() for ch in v))


# ------------------------------------------------- credentials in sentences
#
# Agents write sentences, not .env lines: "the staging API token is <v>",
# "deploy user secret <v>", "ssh root@host password <v>". A credential word
# (``_SENTENCE_WORD``: password, key, token, secret, credential, auth,
# bearer, cookie, session, seed, webhook and their spellings) counts when,
# within a few words, a value follows (``_sentence_value``):
#
# * between them only connectors (``is``, ``was``, ``=``, ``:``, ``now``,
#   ``set to``, ...), an aside in parentheses or between commas or dashes
#   (``_aside_end``) and prepositional phrases (``for the staging bot``,
#   ``of prod``) may stand; emphasis and quotes around the value are
#   peeled (``_unwrap``); after such a phrase a password must be
#   introduced by a connector ("the password for root is X"), a generated
#   value need not ("API key for abbysale <v>"); the word right after a
#   preposition is its object, never the value ("the token for <hash>");
# * the word names an identifier when the word before it says so (``cache
#   key``, ``primary key``, ``public key``, ``page token``:
#   ``_PUBLIC_NAME_WORDS``), or when its own next word does (``key id``,
#   ``token budget``: anything that is not a connector ends the search);
# * after a password word the value is one token a person chose
#   (``_chosen_password``) or letters of both cases mixed as no word or
#   identifier mixes them (``clsxHKifxi``: ``_mixed_letters``);
# * after any other word the value must look generated (``_generated``).

#: Words that may stand between a credential word and its value.
_CONNECTORS = frozenset(
    """is was are were be been being = == := : - -- -> => now still currently
    set reset changed updated rotated regenerated to as here value equals
    reads becomes became will would should must then just also literally
    temporarily always today yesterday again new one ones api the a an
    ist war sind est était es era é è são sono は が を 是 为 為 ：""".split()
)
#: Words between a value and the credential word after it.
_BACK_CONNECTORS = frozenset("is was are were as that's thats it's its -> =>".split())
#: Password words of other languages (``_sentence_word``).
_PW_FOREIGN = frozenset(
    "passwort kennwort passe contraseña contrasena senha パスワード 密码 口令".split()
)
#: Words after which a value is a digest or an identifier, not a credential.
_DIGEST_WORDS = frozenset(
    "sha1 sha256 sha384 sha512 md5 blake2b blake3 digest hash checksum commit "
    "fingerprint id uuid".split()
)
#: Words that open a phrase naming what a credential is for.
_PREPOSITIONS = frozenset(
    "for of on in at from with under into via per by für von de du des del di da do della"
    .split()
)
_ARTICLES = frozenset("the a an my our your their its this that these those".split())

#: A generated value's entropy is at least this share of the most its
#: length and alphabet allow (``_entropy_ratio``). Measured with
#: ``benchmarks/sentence_entropy.py`` on the allowed corpora and the
#: credential corpus of ``tests/data``: no value in a credential's place in
#: the allowed corpora has a generated value's shape at all (the shape tests
#: before entropy decide there); of the tokens anywhere in them that have
#: that shape (ids such as ``vpc-0a1b2c...``, age recipients) the median is
#: 0.84, and the lowest generated credential is at 0.757. The threshold
#: keeps every generated credential and drops the tokens a tool or a
#: person wrote with repeats (``aaaa1111bbbb2222...``).
_SENTENCE_ENTROPY = 0.75


_PW_WORDS = frozenset(
    "password passwords passwd passwds passphrase passphrases passcode passcodes pw pwd"
    .split()
)


def _sentence_word(first: str, words: str, camel: str, cjk: str = "",
                   exact: str = "") -> str:
    """The pattern of a credential word: ``words`` (an alternation, any
    case) or ``exact`` (this case only) standing alone, ``camel`` at the
    end of a camelCase name, or ``cjk`` anywhere (no spaces around words).
    ``first`` holds every character a word can start with: the pattern
    opens with it as a lookahead, which lets the re module skip ahead to
    such a character (half the time of the plain pattern on prose)."""
    alts = r"(?i:" + words + r")" + (r"|(?-i:" + exact + r")" if exact else "")
    return (r"(?=[" + first + r"])(?P<w>(?<![A-Za-z0-9])(?:" + alts + r")(?![A-Za-z0-9])"
            r"|(?<=[a-z])(?:" + camel + r")(?![A-Za-z0-9])"
            + (r"|" + cjk if cjk else "") + r")")


def _strip_value(tok: str) -> str:
    """One token as a value: without the quotes, brackets, markdown emphasis
    and sentence punctuation around it (base64 padding ``=`` and the angle
    brackets of a placeholder such as ``<password>`` stay)."""
    return _unwrap(tok.rstrip(".,;:!?)]}\"'`").lstrip("\"'`([{"))


_UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"


def _readable_b64(v: str) -> bool:
    """Base64 that decodes to readable text (``dGhpcyBpcyBhIHRlc3Q=``)."""
    if re.fullmatch(r"[A-Za-z0-9+/_-]{12,}={0,2}", v) is None:
        return False
    raw = _b64decode(v)
    if not raw:
        return False
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return text.isprintable() and sum(ch.isalpha() or ch == " " for ch in text) >= 0.8 * len(text)


def _entropy_ratio(v: str) -> float:
    """Shannon entropy of ``v`` over the most a string of its length and
    alphabet can have: ``log2(min(len, k))``, where k counts the classes
    ``v`` draws from (10 digits, 6 or 26 letters of each case: hex or not,
    and each symbol). 1.0 for a string whose characters are all different."""
    k = 0
    if any(ch.isdigit() for ch in v):
        k += 10
    for letters, hexes in ((string.ascii_lowercase, "abcdef"), (string.ascii_uppercase, "ABCDEF")):
        used = set(v) & set(letters)
        if used:
            k += 6 if used <= set(hexes) else 26
    k += len({ch for ch in v if not ch.isalnum()})
    top = math.log2(max(2, min(len(v), k)))
    return _entropy(v) / top


def _identifier_words(v: str) -> bool:
    """A name made of words: ``staging-environment-name``, ``getAccessToken``,
    ``com.example.app``, ``v1.2.3-rc1``. Split at ``_-./`` and at case humps
    into parts of 3.5+ characters on average, every part is a word (2+
    letters, lower or Title case, with a vowel), a number of at most 4
    digits or an acronym of at most 5 letters, and one is a word of 3+."""
    parts = re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+", v)
    if not parts or sum(map(len, parts)) < 3.5 * len(parts):
        return False
    return any(len(p) >= 3 and p[1:].islower() for p in parts) and all(
        (len(p) >= 2 and p[1:].islower()
         and (len(p) < 4 or re.search("[aeiouyAEIOUY]", p) is not None))
        or (p.isdigit() and len(p) <= 4) or (p.isupper() and len(p) <= 5) for p in parts)


def _generated(v: str) -> bool:
    """Does the value ``v`` (one token) look generated rather than written?

    Hex of 32+ characters with letters and digits; base32 of 16+ (an OTP
    seed: ``[A-Z2-7]`` with both); or 16+ characters of the base64 and
    url-safe alphabets with letters and digits (or both cases) mixed up,
    not a name made of words, and Shannon entropy of at least
    ``_min_entropy(len(v))``. A UUID, a digest after ``sha256:``, an ARN, a
    URL, a path, a placeholder or base64 of readable text is not.
    """
    if "=" in v.rstrip("="):  # session=VALUE: the value
        v = v.rstrip("=").rpartition("=")[2] + v[len(v.rstrip("=")):]
    if len(v) < 16 or _placeholder(v) or re.search(_UUID, v):
        return False  # a UUID, or an id built on one (req-<uuid>)
    if re.fullmatch(r"(?:0x)?[0-9a-fA-F]+", v):
        return len(v) >= 32 and _body_hex_str(v)
    if ":" in v or "$" in v or "|" in v:  # parts: 2/NNN/NNN:<hex>, a$b$<hex>
        if re.match(r"(?i)(?:sha[0-9]*|md5|blake[0-9a-z]*|arn|urn|[a-z0-9+.-]*//)[:-]", v) \
                or "://" in v:
            return False  # a digest, an ARN, a URL
        return any(_generated(p) for p in re.split(r"[:$|]+", v) if p != v)
    if re.fullmatch(r"[A-Za-z0-9+/=_.~-]+", v) is None:
        return False
    hexrun = re.search(r"[0-9a-fA-F]{32,}", v)
    if hexrun and _body_hex_str(hexrun.group(0)) and not _path_like(v):
        return True  # 0x..., <hex>NRAL: hex with a tag
    if re.fullmatch(r"[A-Z2-7]{16,}=*", v):
        return any(ch.isdigit() for ch in v) and len(set(v)) >= 8
    up = any(ch.isupper() for ch in v)
    low = any(ch.islower() for ch in v)
    digit = any(ch.isdigit() for ch in v)
    if not (_random(v) or _random_cases(v) or (up and low and digit)
            or (digit and (up or low) and _classes_change(v) >= 4)):
        return False
    if _path_like(v) or _name_like(v) or _identifier_words(v) or _readable_b64(v):
        return False
    return _entropy_ratio(v) >= _SENTENCE_ENTROPY


def _body_hex_str(v: str) -> bool:
    return (any(ch.isdigit() for ch in v) and any(ch.isalpha() for ch in v)
            and len(set(v.lower())) >= 8)


def _mixed_letters(v: str) -> bool:
    """Letters of both cases mixed as no word or identifier mixes them: an
    upper-case run of 2+ inside lower case (``clsxHKifxi``), or case
    changing 4+ times (``aBcdEfgH``), 8+ letters, not a name made of words."""
    if len(v) < 8 or not v.isalpha() or not v.isascii():
        return False
    if re.search(r"[a-z][A-Z]{2,}[a-z]", v):
        return True
    return _classes_change(v) >= 4 and not _identifier_words(v)


def _sentence_secret(v: str, pw: bool) -> bool:
    """Is the token ``v``, standing where a credential's value goes, one?
    After a password word: a chosen password, letters mixed as no word is,
    or a generated value; after any other word: a generated value, letters
    mixed as no word is, or 8+ characters with a letter, a digit and a
    symbol (``C4rous3l*3``)."""
    if re.search(_UUID, v) or _digest(v):
        return False  # an id built on a UUID, a digest: identifiers
    if _generated(v) or _mixed_letters(v):
        return True
    if pw:
        return _chosen_password(v)
    return (re.fullmatch(r"[\w!@#$%^&*+~.-]{8,64}", v) is not None and not _placeholder(v)
            and not _path_like(v) and re.search(r"[A-Za-z]", v) is not None
            and re.search(r"[0-9]", v) is not None
            and re.search(r"[!@#$%^&*+~]", v) is not None)


_LAST_WORD = re.compile(r"([A-Za-z0-9]+)[^A-Za-z0-9]*$")
_PHRASE_END = re.compile(r"\s*(?:$|[.,;:!?)\]]|(?:for|of|on|in|at|from|with|to)\b)")


def _sentence_value(m: re.Match) -> bool:
    """Is a credential's value written next to the word ``m`` matched? After
    it, within a few words (``_value_after``), or before it ("<v> is the
    staging token": ``_value_before``)."""
    text = m.string
    word = m.group("w").lower()
    pw = word in _PW_WORDS or word in _PW_FOREIGN or word.endswith("passe")
    before = text[max(0, m.start() - 40):m.start()]
    head = before.rsplit(None, 1)[-1] if before and not before[-1].isspace() else ""
    if head.endswith(":") or "arn:" in head.lower() or "://" in head or "@" in head \
            or "$" in head:
        return False  # arn:...:secret:name, a URL, $API_KEY
    if word.rstrip("s") in ("key", "apikey", "token", "session", "cookie"):
        # A hash its word names ("page commit <hash> token") stands aside.
        prev = _LAST_WORD.search(_NAMED_HASH_END.sub("", text[max(0, m.start() - 200):m.start()]))
        if prev and prev.group(1).lower() in _PUBLIC_NAME_WORDS:
            return False  # cache key, primary key, public key, next token
    return _value_after(m, pw) or _value_before(m, pw)


#: A hash named by the word before it, ending a text ("... commit <hex> ").
_NAMED_HASH_END = re.compile(r"(?i)\b(?:%s)[\s:=]+[0-9a-f]{7,}\s*$" % "|".join(
    sorted(_DIGEST_WORDS, key=len, reverse=True)))

_DASHES = ("-", "--", "\u2014", "\u2013")
#: Most words an aside between commas or dashes holds.
_ASIDE_WORDS = 8


def _aside_end(rest: list, i: int) -> int:
    """If ``rest[i]`` opens an aside between commas or dashes ("the
    password, in case you forget, is X", "the key - the old one - is X"),
    the index of the token that closes it, else -1. It opens with a lone
    ``,`` or dash, or a connector ending in ``,`` ("is, as agreed, X"), and
    closes within ``_ASIDE_WORDS`` words with a token ending in ``,`` or a
    lone dash."""
    tok = rest[i]
    if tok in _DASHES:
        closes = lambda t: t in _DASHES  # noqa: E731
    elif tok == "," or (tok.endswith(",") and tok[:-1].lower() in _CONNECTORS):
        closes = lambda t: t.endswith(",")  # noqa: E731
    else:
        return -1
    for j in range(i + 2, min(len(rest), i + 2 + _ASIDE_WORDS)):
        if closes(rest[j]):
            return j
        if rest[j][-1] in ".;!?":
            return -1  # the sentence ends first
    return -1


def _mention(v: str, text: str, end: int) -> bool:
    """Is the famous example password ``v`` (``_FAMOUS``: hunter2, ...)
    only mentioned: the clause it ends is the subject of a verb that
    follows it (``was``, ``became``, ``has been``, ``is a``: "the password
    is hunter2 was a joke in the chat")? ``text[end:]`` is what follows
    the value."""
    return v.lower() in _FAMOUS and re.match(
        r"[\"'`*_\u201d]*\s+(?:was|became|has\s+been|is\s+an?)\b",
        text[end:end + 40]) is not None


def _value_after(m: re.Match, pw: bool) -> bool:
    """The value follows the word: only connectors, a parenthesis, an aside
    between commas or dashes, a preposition's phrase or one name before
    ``:``/``=`` between."""
    seg = re.sub(r"\s*([\u2014\u2013])\s*", r" \1 ", m.string[m.end():m.end() + 240])
    rest = seg.split(None, 11)[:11]
    obj = False  # the next word is a preposition's object
    aside = False  # inside a parenthesis: "(expires in 90 days):"
    budget = 0
    introduced = True
    named = False
    skip = -1  # the last token of an aside between commas or dashes
    for i, tok in enumerate(rest):
        if i <= skip:
            continue
        bare = tok.strip("\"'`()[]{},;.!?").lower()
        if aside:
            if tok.endswith((")", "):", ")=")):
                aside = False
                introduced = tok[-1] in ":="
            continue
        if obj:
            if bare in _ARTICLES:
                continue
            if bare in _DIGEST_WORDS:
                return False  # "in the commit <hash>": what follows names it
            obj = False
            budget = 1
            introduced = tok[-1] in ":="
            continue
        if tok[0] == "(" and len(tok) > 1:  # an aside: "(prod):", "(in case you forget)"
            if (introduced or not pw) and _sentence_secret(_strip_value(tok), pw):
                return True
            if re.search(r"\)[:=]?$", tok):
                introduced = tok[-1] in ":="
            else:
                aside = True
            continue
        end = _aside_end(rest, i)
        if end > 0:
            skip = end
            introduced = introduced or bare in _CONNECTORS
            continue
        if not bare.strip(":=-\u2014\u2013") or bare.rstrip(":") in _CONNECTORS:
            if tok[-1] in ".;!?":
                return False  # the sentence ends: "... 4,000 tokens. <hash>"
            introduced = True
            continue
        if bare in _PREPOSITIONS:
            obj = True
            continue
        if tok[0] == "-" or bare in _DIGEST_WORDS:
            return False  # the next option; a digest, a commit, a fingerprint
        v = _strip_value(tok)
        if tok[0] in ":=" and len(tok) > 1:  # key:VALUE, key=VALUE
            v = _strip_value(tok.lstrip(":="))
        if (introduced or not pw) and _sentence_secret(v, pw):
            return not (pw and i + 1 < len(rest)
                        and _mention(v, " ".join(rest[i:]), len(tok)))
        if tok[-1] in ":=" or (i + 1 < len(rest) and rest[i + 1] in (":", "=", "->", "=>")):
            if budget or not named:  # a name before ":" ("clé API Stripe : <v>")
                budget = 0
                named = introduced = True
                continue
        if budget and tok[-1] not in ".;,!?":  # a clause ends: the search too
            budget -= 1
            introduced = False
            continue
        return False
    return False


def _value_before(m: re.Match, pw: bool) -> bool:
    """The value comes first: "<v> is the staging token", "<v> - that's the
    new deploy key", "use <v> as the redis password", "<v> (the live secret
    key, ...)". The word ends its phrase; between them stand a connector,
    an article and at most two names."""
    text = m.string
    # Words may trail the phrase only after "as": "use <v> as the admin token 85".
    trailing = _PHRASE_END.match(text, m.end(), m.end() + 8) is None
    before = text[max(0, m.start() - 200):m.start()].split()
    toks = before[-8:]
    names = 0
    conn = False
    for j in range(len(toks) - 1, -1, -1):
        tok = toks[j]
        bare = tok.strip("\"'`()[]{},;.!?").lower()
        if bare in _BACK_CONNECTORS or not bare.strip("-—–:="):
            if trailing and bare != "as":
                return False
            conn = True
            continue
        if conn:
            named = before[len(before) - len(toks) + j - 1] if len(before) - len(toks) + j else ""
            if named.strip("\"'`()[]{},;.!?").lower() in _DIGEST_WORDS:
                return False  # "commit <hash> - the api key ...": the word names it
            return _sentence_secret(_strip_value(tok), pw)
        if bare in _ARTICLES:
            pass
        elif names < 2 and re.fullmatch(r"[\w-]+", bare) and bare not in _PREPOSITIONS:
            names += 1
        else:
            return False
        if tok[0] == "(":
            conn = True
    return False


#: Words after which a base64 run is public: an SSH or age public key, a
#: subresource integrity digest.
_PUBLIC_LEADS = ("ssh-", "ecdsa-", "age1", "sha256-", "sha384-", "sha512-", "public key",
                 "public_key", "public-key", "publickey")


def _key_line(m: re.Match) -> bool:
    """A line of a key's body noted on its own: 60-76 characters of the
    standard base64 alphabet holding ``+`` or ``/`` or ending in ``=``, with
    an upper-case letter, a lower-case letter and a digit (the shape of a
    PEM body line). Not after an SSH/age public key or an integrity digest
    (``_PUBLIC_LEADS``), not an SSH public key's own body (``AAAA...``
    naming its algorithm), not a path of words, not base64 of readable text."""
    v = m.group("v")
    if not 60 <= len(v) <= 76 or not ("+" in v or "/" in v or v.endswith("=")):
        return False
    if not (any(ch.isupper() for ch in v) and any(ch.islower() for ch in v)
            and any(ch.isdigit() for ch in v)):
        return False
    before = m.string[max(0, m.start() - 200):m.start()].lower()
    if any(w in before for w in _PUBLIC_LEADS):
        return False
    if "/" in v and "+" not in v and all(
            not p or _identifier_words(p.rstrip("=")) or not _random(p)
            for p in v.split("/")):
        return False  # src/components/Header2/...: a path
    if v.startswith("AAAA"):
        raw = _b64decode(v[:40]) or b""
        if b"ssh-" in raw or b"ecdsa-" in raw or b"sk-" in raw:
            return False
    return not _readable_b64(v)


def _shell_value(m: re.Match) -> bool:
    """``set -x NAME value`` (fish), ``setenv NAME value`` (csh), ``export
    NAME value`` (a mistake for ``=``): NAME says credential and the value
    is a password or a generated value, not a placeholder or a variable."""
    key = re.search(_KEY_END, m.group("k"))
    if key is None:
        return False
    v = _strip_value(m.group("v"))
    if _placeholder(v) or _code(v) or v.startswith("$"):
        return False
    if key.group("pw") is not None:
        return _secret_value(v) and not _name_like(v)
    if _public_name(m.group("k")):
        return False
    return _generated(v) or (len(v) >= 14 and _random(v)) or _high_entropy(v)


def _vault_login(m: re.Match) -> bool:
    """``vault login <token>``: a token given on the command line."""
    v = m.group("v")
    return not _placeholder(v) and _sentence_secret(v, False)


def _quoted_p(m: re.Match) -> bool:
    """``-p'value'`` on a command line: a password, not a port mapping."""
    v = m.group("v")
    return _secret_value(v) and re.fullmatch(r"[0-9:./-]+", v) is None


# ------------------------------------------------------------- the table


class Family(NamedTuple):
    """One family of credentials (a row of ``FAMILIES``).

    ``keywords`` are lower-case literals: the pattern runs only when one of
    them is in the lower-cased text (``()``: always). ``shown`` is the
    generic prefix a message may show; None shows the fixed prefix the
    pattern matched (group ``p``, e.g. ``ghp_``). ``check(match)`` must also
    be true for a match to count. ``source`` says where the shape comes from
    (a provider's documentation or a scanner's public rule). The example
    shape of every family is generated in ``tests/test_secrets.py``.
    """

    id: str
    kind: str
    keywords: tuple
    pattern: str
    check: Callable | None
    advice: str
    shown: str | None = None
    source: str = ""


def _gl(rule: str) -> str:
    """The source of a shape learnt from a gitleaks rule (MIT licence)."""
    return f"gitleaks rule {rule} (github.com/gitleaks/gitleaks, config/gitleaks.toml)"


def _literals(prefix: str) -> tuple | None:
    """``"glpat-|gldt-"`` -> ``("glpat-", "gldt-")``; None if the prefix is
    not an alternation of plain literals."""
    out = []
    for part in prefix.split("|"):
        lit = part.replace("\\.", ".")
        if not lit or re.search(r"[\\\[\](){}?*+^$|]", lit):
            return None
        out.append(lit.lower())
    return tuple(out)


def _token(id: str, kind: str, prefix: str, body: str, check, noun: str, env: str,
           source: str = "", keywords: tuple | None = None) -> Family:
    """A provider token: a fixed ``prefix`` (shown in messages), a ``body``
    pattern, the token ends there. The keywords are the prefix's literals
    unless given."""
    vendor = re.sub(r"^an? | (?:API |IO |bot |service |secret )?(?:key|token)$", "", kind)
    if keywords is None:
        keywords = _literals(prefix)
        if keywords is None:
            raise ValueError(f"{id}: give the keywords of prefix {prefix!r}")
    return Family(id, kind, keywords, _L + f"(?P<p>{prefix})(?P<v>{body})" + _R, check,
                  _where(noun, f"{vendor} {noun} is in the {env} env var"),
                  None, source or _gl(id))


_PW_ONE = r"(?P<v>\"[^\"\s]{1,200}\"|'[^'\s]{1,200}'|[^\s\"'`;|&]{1,200})"  # one value

#: Provider tokens known by a prefix (``_token`` rows).
_PROVIDERS: tuple = (
    _token("groq-api-key", "a Groq API key", "gsk_", "[A-Za-z0-9]{40,100}", _body_random,
           "key", "GROQ_API_KEY", "console.groq.com/docs/api-keys"),
    _token("xai-api-key", "an xAI API key", "xai-", "[A-Za-z0-9]{40,200}", _body_random,
           "key", "XAI_API_KEY", "docs.x.ai/docs/api-reference"),
    _token("replicate-api-token", "a Replicate API token", "r8_", "[A-Za-z0-9]{30,60}",
           _body_random, "token", "REPLICATE_API_TOKEN", "replicate.com/docs/reference/http"),
    _token("perplexity-api-key", "a Perplexity API key", "pplx-", "[A-Za-z0-9]{32,100}",
           _body_random, "key", "PPLX_API_KEY"),
    _token("digitalocean-token", "a DigitalOcean token", "do[por]_v1_", "[a-f0-9]{64}",
           _body_hex, "token", "DIGITALOCEAN_TOKEN", _gl("digitalocean-pat"),
           ("dop_v1_", "doo_v1_", "dor_v1_")),
    _token("shopify-token", "a Shopify token", "shp(?:at|ss|ca|pa)_", "[a-fA-F0-9]{32}",
           _body_hex, "token", "SHOPIFY_ACCESS_TOKEN", _gl("shopify-access-token"),
           ("shpat_", "shpss_", "shpca_", "shppa_")),
    _token("atlassian-api-token", "an Atlassian API token", "ATATT3|ATCTT3|ATBB",
           "[A-Za-z0-9_=-]{24,400}", _body_random, "token", "JIRA_API_TOKEN"),
    _token("doppler-api-token", "a Doppler token", r"dp\.(?:st|pt|ct|sa|scim|audit)\.",
           r"(?:[a-z0-9_-]{1,40}\.)?[A-Za-z0-9]{40,44}", _body_machine, "token",
           "DOPPLER_TOKEN", _gl("doppler-api-token"), ("dp.",)),
    _token("vault-token", "a HashiCorp Vault token", r"hv[sbr]\.", "[A-Za-z0-9_-]{24,400}",
           _body_random, "token", "VAULT_TOKEN", _gl("vault-service-token"),
           ("hvs.", "hvb.", "hvr.")),
    _token("vault-legacy-token", "a HashiCorp Vault token", r"[sb]\.",
           "[A-Za-z0-9]{24}(?:[A-Za-z0-9_-]{114,200})?", _body_random, "token",
           "VAULT_TOKEN", _gl("vault-batch-token"), ("s.", "b.")),
    _token("databricks-api-token", "a Databricks token", "dapi", "[a-f0-9]{32}(?:-[0-9])?",
           _body_hex, "token", "DATABRICKS_TOKEN"),
    _token("linear-api-key", "a Linear API key", "lin_(?:api|oauth)_", "[A-Za-z0-9]{40}",
           _body_random, "key", "LINEAR_API_KEY", _gl("linear-api-key"),
           ("lin_api_", "lin_oauth_")),
    _token("twilio-api-key", "a Twilio API key", "SK", "[0-9a-fA-F]{32}", _body_hex,
           "key", "TWILIO_API_KEY", _gl("twilio-api-key"), ("sk",)),
    _token("mailgun-api-key", "a Mailgun API key", "key-", "[0-9a-f]{32}", _body_hex,
           "key", "MAILGUN_API_KEY", _gl("mailgun-private-api-token")),
    _token("postman-api-key", "a Postman API key", "PMAK-", "[0-9a-f]{24}-[0-9a-f]{34}",
           _body_hex, "key", "POSTMAN_API_KEY", _gl("postman-api-token")),
    _token("sentry-token", "a Sentry token", "sntry[su]_", "[A-Za-z0-9+/=_-]{40,400}",
           _body_random, "token", "SENTRY_AUTH_TOKEN", _gl("sentry-user-token"),
           ("sntrys_", "sntryu_")),
    _token("grafana-token", "a Grafana token", "glsa_|glc_", "[A-Za-z0-9+/_]{32,400}={0,2}",
           _body_random, "token", "GRAFANA_TOKEN", _gl("grafana-service-account-token")),
    _token("grafana-api-key", "a Grafana API key", "eyJrIjoi", "[A-Za-z0-9]{50,400}={0,3}",
           None, "key", "GRAFANA_API_KEY", _gl("grafana-api-key")),
    _token("new-relic-key", "a New Relic key", "NR(?:AK|II|IQ|JS)-", "[A-Za-z0-9_-]{27,32}",
           _body_random, "key", "NEW_RELIC_API_KEY", _gl("new-relic-user-api-key"),
           ("nrak-", "nrii-", "nriq-", "nrjs-")),
    _token("heroku-api-key", "a Heroku API key", "HRKU-", "[A-Za-z0-9_-]{30,300}",
           _body_machine, "key", "HEROKU_API_KEY", _gl("heroku-api-key-v2")),
    _token("supabase-key", "a Supabase key", "sbp_|sb_secret_", "[A-Za-z0-9_-]{32,100}",
           _body_random, "key", "SUPABASE_ACCESS_TOKEN", "supabase.com/docs/guides/api/api-keys"),
    _token("netlify-token", "a Netlify token", "nfp_", "[A-Za-z0-9]{36,60}", _body_random,
           "token", "NETLIFY_AUTH_TOKEN"),
    _token("planetscale-token", "a PlanetScale token", "pscale_(?:tkn|pw|oauth)_",
           "[A-Za-z0-9_.=-]{32,64}", _body_machine, "token", "PLANETSCALE_SERVICE_TOKEN",
           _gl("planetscale-api-token"), ("pscale_",)),
    _token("pulumi-token", "a Pulumi token", "pul-", "[a-f0-9]{40}", _body_hex,
           "token", "PULUMI_ACCESS_TOKEN", _gl("pulumi-api-token")),
    _token("square-token", "a Square token", "sq0(?:atp|csp)-|EAAA", "[A-Za-z0-9_-]{22,100}",
           _body_random, "token", "SQUARE_ACCESS_TOKEN", _gl("square-access-token"),
           ("sq0atp-", "sq0csp-", "eaaa")),
    _token("facebook-token", "a Facebook access token", "EAA[MC]", "[A-Za-z0-9]{100,400}",
           _body_machine, "token", "FB_ACCESS_TOKEN", _gl("facebook-page-access-token"),
           ("eaam", "eaac")),
    _token("mapbox-token", "a Mapbox secret token", r"sk\.",
           r"eyJ[A-Za-z0-9_-]{20,400}\.[A-Za-z0-9_-]{20,200}", None,
           "token", "MAPBOX_ACCESS_TOKEN", _gl("mapbox-api-token"), ("sk.",)),
    _token("notion-token", "a Notion token", "ntn_|secret_", "[A-Za-z0-9]{40,50}",
           _body_random, "token", "NOTION_TOKEN", _gl("notion-api-token")),
    _token("airtable-token", "an Airtable token", "pat", r"[A-Za-z0-9]{14}\.[a-f0-9]{64}",
           _body_random, "token", "AIRTABLE_TOKEN", _gl("airtable-personnal-access-token")),
    _token("figma-token", "a Figma token", "figd_", "[A-Za-z0-9_-]{38,60}", _body_random,
           "token", "FIGMA_TOKEN"),
    _token("tavily-api-key", "a Tavily API key", "tvly-", "(?:dev-|prod-)?[A-Za-z0-9]{24,64}",
           _body_random, "key", "TAVILY_API_KEY", "docs.tavily.com"),
    _token("langsmith-api-key", "a LangSmith API key", "lsv2_(?:pt|sk)_",
           "[a-f0-9]{32}_[a-f0-9]{10}", _body_hex, "key", "LANGSMITH_API_KEY",
           "docs.smith.langchain.com", ("lsv2_",)),
    _token("1password-service-token", "a 1Password service token", "ops_",
           "eyJ[A-Za-z0-9+/=_-]{50,4000}", None, "token", "OP_SERVICE_ACCOUNT_TOKEN",
           _gl("1password-service-account-token")),
    _token("docker-hub-token", "a Docker Hub token", "dckr_(?:pat|oat)_",
           "[A-Za-z0-9_-]{24,100}", _body_random, "token", "DOCKER_TOKEN",
           "docs.docker.com/security/for-developers/access-tokens", ("dckr_",)),
    _token("buildkite-token", "a Buildkite token", "bkua_", "[a-f0-9]{40}", _body_hex,
           "token", "BUILDKITE_API_TOKEN", "buildkite.com/docs/apis/managing-api-tokens"),
    _token("circleci-token", "a CircleCI token", "CCIPAT_", "[A-Za-z0-9_]{40,100}",
           _body_random, "token", "CIRCLECI_TOKEN", "circleci.com/docs/managing-api-tokens"),
    _token("rubygems-api-key", "a RubyGems API key", "rubygems_", "[a-f0-9]{48}", _body_hex,
           "key", "GEM_HOST_API_KEY", _gl("rubygems-api-token")),
    _token("clojars-token", "a Clojars token", "CLOJARS_", "[a-z0-9]{60}", _body_hex,
           "token", "CLOJARS_TOKEN", _gl("clojars-api-token")),
    _token("nuget-api-key", "a NuGet API key", "oy2", "[a-z0-9]{43}", _body_random,
           "key", "NUGET_API_KEY", "learn.microsoft.com/nuget/nuget-org/scoped-api-keys"),
    _token("brevo-api-key", "a Brevo API key", "xkeysib-|xsmtpsib-",
           "[a-f0-9]{64}-[A-Za-z0-9]{16}", _body_hex, "key", "BREVO_API_KEY",
           _gl("sendinblue-api-token")),
    _token("contentful-token", "a Contentful token", "CFPAT-", "[A-Za-z0-9_-]{43}",
           _body_random, "token", "CONTENTFUL_MANAGEMENT_TOKEN"),
    _token("adafruit-io-key", "an Adafruit IO key", "aio_", "[A-Za-z0-9]{28}", _body_random,
           "key", "ADAFRUIT_IO_KEY", "io.adafruit.com/api/docs"),
    _token("prefect-api-key", "a Prefect API key", "pnu_", "[A-Za-z0-9]{36}", _body_random,
           "key", "PREFECT_API_KEY", _gl("prefect-api-token")),
    _token("pinecone-api-key", "a Pinecone API key", "pcsk_", "[A-Za-z0-9_]{40,120}",
           _body_random, "key", "PINECONE_API_KEY", "docs.pinecone.io"),
    _token("resend-api-key", "a Resend API key", "re_", "[A-Za-z0-9]{8}_[A-Za-z0-9]{24}",
           _body_random, "key", "RESEND_API_KEY", "resend.com/docs/api-reference"),
    _token("flyio-token", "a Fly.io token", "fo1_|fm[12][ar]?_",
           "[A-Za-z0-9+/_-]{40,4000}={0,2}", _body_random, "token", "FLY_API_TOKEN",
           _gl("flyio-access-token"), ("fo1_", "fm1", "fm2")),
    _token("dropbox-token", "a Dropbox token", r"sl\.(?:u\.)?", "[A-Za-z0-9_=-]{100,2000}",
           _body_random, "token", "DROPBOX_TOKEN", _gl("dropbox-short-lived-api-token"),
           ("sl.",)),
    _token("elevenlabs-api-key", "an ElevenLabs API key", "sk_", "[a-f0-9]{48}", _body_hex,
           "key", "ELEVENLABS_API_KEY", "elevenlabs.io/docs/api-reference"),
    # Learnt from gitleaks' rule set (shapes, not its expressions; docs/guard.md).
    _token("1password-secret-key", "a 1Password secret key", "A3-",
           r"[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}"
           r"-[A-Z0-9]{5}", _has_digit, "key", "OP_SECRET_KEY"),
    _token("adobe-client-secret", "an Adobe client secret", "p8e-", "[A-Za-z0-9]{32}",
           _body_machine, "secret", "ADOBE_CLIENT_SECRET"),
    _token("alibaba-access-key-id", "an Alibaba Cloud access key id", "LTAI",
           "[A-Za-z0-9]{20}", _body_machine, "key", "ALIBABA_CLOUD_ACCESS_KEY_ID"),
    _token("aws-bedrock-api-key", "an Amazon Bedrock API key", "ABSK",
           "[A-Za-z0-9+/]{100,300}={0,2}", _body_machine, "key", "AWS_BEARER_TOKEN_BEDROCK",
           _gl("aws-amazon-bedrock-api-key-long-lived")),
    _token("aws-bedrock-short-key", "an Amazon Bedrock API key", "bedrock-api-key-",
           "YmVkcm9jay5hbWF6b25hd3MuY29t[A-Za-z0-9+/=]{0,4000}", None, "key",
           "AWS_BEARER_TOKEN_BEDROCK", _gl("aws-amazon-bedrock-api-key-short-lived")),
    _token("artifactory-api-key", "an Artifactory API key", "AKCp", "[A-Za-z0-9]{69}",
           _body_machine, "key", "ARTIFACTORY_API_KEY"),
    _token("artifactory-reference-token", "an Artifactory reference token", "cmVmd",
           "[A-Za-z0-9]{59}", _body_machine, "token", "ARTIFACTORY_TOKEN", keywords=("cmvmd",)),
    _token("authress-access-key", "an Authress access key", "(?:sc|ext|scauth|authress)_",
           r"[A-Za-z0-9]{5,30}\.[A-Za-z0-9]{4,6}\.acc[_-][A-Za-z0-9-]{10,32}"
           r"\.[A-Za-z0-9+/_=-]{30,120}", None, "key", "AUTHRESS_KEY",
           _gl("authress-service-client-access-key"), (".acc_", ".acc-")),
    _token("clickhouse-secret-key", "a ClickHouse Cloud secret key", "4b1d",
           "[A-Za-z0-9]{38}", _body_random, "key", "CLICKHOUSE_SECRET_KEY",
           _gl("clickhouse-cloud-api-secret-key")),
    _token("cloudflare-origin-ca-key", "a Cloudflare Origin CA key", r"v1\.0-",
           "[a-f0-9]{24}-[a-f0-9]{146}", None, "key", "CF_ORIGIN_CA_KEY"),
    _token("duffel-api-token", "a Duffel API token", "duffel_(?:test|live)_",
           "[A-Za-z0-9_=-]{43}", _body_machine, "token", "DUFFEL_ACCESS_TOKEN",
           keywords=("duffel_",)),
    _token("dynatrace-api-token", "a Dynatrace API token", r"dt0c01\.",
           r"[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}", None, "token", "DT_API_TOKEN"),
    _token("easypost-api-key", "an EasyPost API key", "EZ[AT]K", "[A-Za-z0-9]{54}",
           _body_machine, "key", "EASYPOST_API_KEY", _gl("easypost-api-token"),
           ("ezak", "eztk")),
    _token("flutterwave-secret-key", "a Flutterwave secret key", "FLWSECK(?:_TEST)?-",
           "[a-h0-9]{32}-X|[a-h0-9]{12}", _has_digit, "key", "FLW_SECRET_KEY",
           keywords=("flwseck",)),
    _token("frameio-api-token", "a Frame.io API token", "fio-u-", "[A-Za-z0-9_=-]{64}",
           _body_machine, "token", "FRAMEIO_TOKEN"),
    _token("harness-api-key", "a Harness API key", r"(?:pat|sat)\.",
           r"[A-Za-z0-9_-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}", _body_machine,
           "key", "HARNESS_API_KEY", keywords=("pat.", "sat.")),
    _token("huggingface-org-token", "a Hugging Face org token", "api_org_",
           "[A-Za-z]{34}", None, "token", "HF_TOKEN", _gl("huggingface-organization-api-token")),
    _token("infracost-api-key", "an Infracost API key", "ico-", "[A-Za-z0-9]{32}",
           _body_machine, "key", "INFRACOST_API_KEY", _gl("infracost-api-token")),
    _token("intra42-client-secret", "a 42 Intra client secret", "s-s4t2(?:ud|af)-",
           "[a-f0-9]{64}", None, "secret", "INTRA42_SECRET", keywords=("s-s4t2",)),
    _token("octopus-deploy-api-key", "an Octopus Deploy API key", "API-", "[A-Z0-9]{26}",
           _body_machine, "key", "OCTOPUS_API_KEY"),
    _token("openshift-user-token", "an OpenShift token", "sha256~", "[A-Za-z0-9_-]{43}",
           _body_machine, "token", "OPENSHIFT_TOKEN"),
    _token("readme-api-key", "a ReadMe API key", "rdme_", "[a-z0-9]{70}", _body_machine,
           "key", "README_API_KEY", _gl("readme-api-token")),
    _token("scalingo-api-token", "a Scalingo API token", "tk-us-", "[A-Za-z0-9_-]{48}",
           _body_machine, "token", "SCALINGO_API_TOKEN"),
    _token("settlemint-token", "a SettleMint token", "sm_(?:aat|pat|sat)_", "[A-Za-z0-9]{16}",
           _body_machine, "token", "SETTLEMINT_ACCESS_TOKEN",
           _gl("settlemint-personal-access-token"), ("sm_aat_", "sm_pat_", "sm_sat_")),
    _token("shippo-api-token", "a Shippo API token", "shippo_(?:live|test)_",
           "[a-fA-F0-9]{40}", _body_hex, "token", "SHIPPO_API_TOKEN", keywords=("shippo_",)),
    _token("sourcegraph-token", "a Sourcegraph token", "sgp_",
           "(?:[a-fA-F0-9]{16}_|local_)?[a-fA-F0-9]{40}", _body_hex, "token",
           "SRC_ACCESS_TOKEN", _gl("sourcegraph-access-token")),
    _token("gitlab-session-cookie", "a GitLab session cookie", "_gitlab_session=",
           "[0-9a-z]{32}", _body_hex, "cookie", "GITLAB_SESSION"),
    _token("gitlab-runner-registration-token", "a GitLab runner registration token",
           "GR1348941", "[A-Za-z0-9_-]{20}", _body_machine, "token", "RUNNER_TOKEN",
           _gl("gitlab-rrt")),
    _token("jwt-base64", "a base64-encoded JSON Web Token", "ZXlK",
           r"[A-Za-z0-9+/_\\-]{40,4000}={0,2}", _b64_jwt, "token", "API_TOKEN"),
)

#: Shapes without a fixed prefix at their start.
_SHAPES: tuple = (
    Family("maxmind-license-key", "a MaxMind license key", ("_mmk",),
           _L + r"(?P<v>[A-Za-z0-9]{6}_[A-Za-z0-9]{29})_mmk" + _R, _body_machine,
           _where("key", "MaxMind key is in the MAXMIND_LICENSE_KEY env var"),
           "..._mmk", _gl("maxmind-license-key")),
    Family("telegram-bot-token", "a Telegram bot token", (":aa",),
           r"(?<![0-9])[0-9]{8,10}:AA(?P<v>[A-Za-z0-9_-]{33})" + _R, _telegram,
           _where("token", "Telegram bot token is in the TELEGRAM_BOT_TOKEN env var"),
           "NNN:AA...", "core.telegram.org/bots/api#authorizing-your-bot"),
    Family("discord-bot-token", "a Discord bot token", (),
           _L + r"(?P<p>[MNO])[A-Za-z0-9_-]{23,25}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38}"
           + _R, _discord,
           _where("token", "Discord bot token is in the DISCORD_TOKEN env var"),
           None, "discord.com/developers/docs/reference#authentication"),
    Family("discord-webhook", "a Discord webhook URL", ("discord",),
           r"discord(?:app)?\.com/api/webhooks/[0-9]{5,30}/[A-Za-z0-9_-]{40,200}", None,
           _where("webhook URL", "Discord webhook URL is in the DISCORD_WEBHOOK env var"),
           "discord.com/api/webhooks/...", "discord.com/developers/docs/resources/webhook"),
    Family("teams-webhook", "a Microsoft Teams webhook URL", ("webhook.office.com",),
           r"webhook\.office\.com/webhookb2/[A-Za-z0-9@/-]{40,400}", None,
           _where("webhook URL", "Teams webhook URL is in the TEAMS_WEBHOOK env var"),
           "webhook.office.com/webhookb2/...", _gl("microsoft-teams-webhook")),
    Family("mailchimp-api-key", "a Mailchimp API key", ("-us",),
           r"(?<![A-Za-z0-9_-])(?P<v>[0-9a-f]{32})-us[0-9]{1,2}" + _R, _body_hex,
           _where("key", "Mailchimp key is in the MAILCHIMP_API_KEY env var"),
           "...-usNN", _gl("mailchimp-api-key")),
    Family("azure-client-secret", "an Azure client secret", ("q~",),
           r"(?<![A-Za-z0-9_~.-])(?P<v>[A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34})"
           r"(?![A-Za-z0-9_~.-])", _body_random,
           _where("secret", "Azure client secret is in the AZURE_CLIENT_SECRET env var"),
           "...Q~...", _gl("azure-ad-client-secret")),
    Family("terraform-cloud-token", "a Terraform Cloud token", ("atlasv1.",),
           _L + r"[A-Za-z0-9]{14}\.(?P<p>atlasv1\.)(?P<v>[A-Za-z0-9_=-]{60,70})" + _R,
           _body_machine,
           _where("token", "Terraform token is in ~/.terraform.d/credentials.tfrc.json"),
           None, _gl("hashicorp-tf-api-token")),
    Family("facebook-app-token", "a Facebook app token", ("|", "%7c"),
           r"(?<![0-9])[0-9]{15,16}(?:\||%7[Cc])(?P<v>[A-Za-z0-9_-]{27,40})" + _R,
           _body_machine, _where("token", "Facebook token is in the FB_ACCESS_TOKEN env var"),
           "NNN|...", _gl("facebook-access-token")),
    Family("sidekiq-license", "a Sidekiq Enterprise license", ("contribsys",),
           r"(?i:BUNDLE_(?:ENTERPRISE|GEMS)__CONTRIBSYS__COM)[\"']?[ \t]*[:=][ \t]*[\"']?"
           r"[a-f0-9]{8}:[a-f0-9]{8}(?![a-f0-9])", None,
           _where("license", "Sidekiq license is in the BUNDLE_ENTERPRISE__CONTRIBSYS__COM "
                  "env var"), "BUNDLE_..._CONTRIBSYS__COM=...", _gl("sidekiq-secret")),
    Family("nuget-password", "a NuGet feed password", ("password\"", "password'"),
           r"(?i:key[ \t]*=[ \t]*[\"'](?:ClearText)?Password)[\"'][ \t]*value[ \t]*=[ \t]*"
           r"[\"'](?P<v>[^\"'\s]{1,200})[\"']",
           _value_secret, _PW_ADVICE, 'key="ClearTextPassword" value="..."',
           _gl("nuget-config-password")),
)

#: Keys and passwords in config files and on command lines.
_CONFIGS: tuple = (
    Family("azure-storage-key", "an Azure storage key", ("accountkey", "sharedaccesskey"),
           r"(?i:AccountKey|SharedAccessKey)[ \t]*=[ \t]*(?P<v>[A-Za-z0-9+/]{20,400}={0,2})",
           _body_random,
           _where("key", "storage key is in the AZURE_STORAGE_CONNECTION_STRING env var"),
           "AccountKey=...", "learn.microsoft.com/azure/storage/common/storage-configure-connection-string"),
    Family("azure-sas", "an Azure SAS signature", ("sig=",),
           r"[?&;]sig=(?P<v>[A-Za-z0-9%+/]{30,200}(?:=|%3[Dd]){0,2})", _body_random,
           _where("signature", "SAS URL is in the AZURE_SAS_URL env var"), "sig=...",
           "learn.microsoft.com/azure/storage/common/storage-sas-overview"),
    Family("registry-auth", "a registry auth value", ("auth",),
           r"(?i)[\"']auth[\"'][ \t]*:[ \t]*[\"'](?P<v>[A-Za-z0-9+/]{8,2000}={0,2})[\"']",
           _docker_auth, _where("login", "registry login is in ~/.docker/config.json"),
           '"auth": "..."', "docs.docker.com/reference/cli/docker/login"),
    Family("der-private-key", "a private key body", (),
           r"(?<![A-Za-z0-9+/])(?P<v>M[A-Za-z0-9+/]{63})", _der_private, _KEY_ADVICE,
           "MII...", "RFC 5208 (PKCS#8), RFC 8017 (PKCS#1), RFC 5915 (SEC1)"),
    Family("openssh-private-key", "an OpenSSH private key body", ("b3blbnnzac1rzxktdje",),
           r"(?<![A-Za-z0-9+/])(?P<p>b3BlbnNzaC1rZXktdjE)", None, _KEY_ADVICE,
           None, "openssh PROTOCOL.key"),
    Family("putty-private-key", "a PuTTY private key", ("putty-user-key-file-",),
           r"(?P<p>PuTTY-User-Key-File-)[0-9]+:", None, _KEY_ADVICE, None,
           "the PuTTY manual, appendix C (PPK format)"),
    Family("kubernetes-secret", "a Kubernetes secret value", ("data:",),
           r"(?i)(?<![\w-])data:[ \t]*\{?[ \t]*[\"']?[\w.-]{1,100}[\"']?:[ \t]*[|>]?[ \t]*[\"']?"
           r"(?P<v>[A-Za-z0-9+/]{8,4000}={0,2})(?![A-Za-z0-9+/=])", _k8s_secret,
           _where("secret", "the app's secret is in the prod-app Secret, namespace web"),
           "kind: Secret ... data: ...", _gl("kubernetes-secret-yaml")),
    Family("cookie", "a session cookie", ("cookie",),
           r"(?<![A-Za-z0-9_-])(?i:set-cookie|cookie)[\"']?[ \t]*:[ \t]*"
           r"(?P<v>[^\"'`\r\n]{1,600})", _cookie,
           _where("cookie", "session cookie is in the browser's cookie jar"),
           "Cookie: ...", "RFC 6265"),
    Family("mysql-password", "a password on a command line", ("mysql", "mariadb"),
           r"(?<![A-Za-z0-9_./-])(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlshow"
           r"|mysqlcheck|mysqlpump|mysqlsh|mariadb|mariadb-dump|mariadb-admin"
           r"|mariadbd?ump)(?:\.exe)?(?:[ \t]+[^ \t]{1,200}){0,20}?[ \t]+-p" + _PW_ONE,
           _value_secret, _PW_ADVICE, "-p...", "the mysql manual, --password"),
    Family("sshpass-password", "a password on a command line", ("sshpass",),
           r"(?<![A-Za-z0-9_./-])sshpass(?:[ \t]+[^ \t]{1,200}){0,5}?[ \t]+-p[ \t]*" + _PW_ONE,
           _value_secret, _PW_ADVICE, "sshpass -p ...", "sshpass(1)"),
    Family("redis-password", "a password on a command line", ("redis-cli",),
           r"(?<![A-Za-z0-9_./-])redis-cli(?:[ \t]+[^ \t]{1,200}){0,10}?[ \t]+(?:-a|--pass)"
           r"[ \t]+" + _PW_ONE, _value_secret, _PW_ADVICE, "redis-cli -a ...", "redis-cli docs"),
    Family("curl-user", "a password on a command line", ("curl",),
           r"(?<![A-Za-z0-9_./-])curl(?:[ \t]+[^ \t]{1,200}){0,20}?[ \t]+(?:-u|--user)"
           r"[ \t=]*(?:[\"']?[^\s:\"']{0,100}[\"']?:[\"']?(?P<v>[^\s\"']{1,200})"
           r"|[\"']?(?P<user>[^\s:\"']{8,200}):(?![^\s\"']))", _curl_user,
           _PW_ADVICE, "-u user:...", _gl("curl-auth-user")),
    Family("login-password", "a password on a command line", ("login", "mongo"),
           r"(?<![A-Za-z0-9_./-])(?:(?:docker|podman|buildah|skopeo|helm|oras|crane)"
           r"(?:[ \t]+registry)?[ \t]+login|mongo|mongosh|mongodump|mongorestore"
           r"|mongoexport|mongoimport|mongostat|mongotop)(?:[ \t]+[^ \t]{1,200}){0,20}?"
           r"[ \t]+(?:-p|--password)[ \t]+(?!-)" + _PW_ONE,
           _value_secret, _PW_ADVICE, "-p ...", "docker login, mongosh docs"),
    Family("ldap-password", "a password on a command line", ("ldap",),
           r"(?<![A-Za-z0-9_./-])ldap(?:search|add|modify|delete|whoami|passwd|modrdn"
           r"|compare|exop)(?:[ \t]+[^ \t]{1,200}){0,20}?[ \t]+-w[ \t]*" + _PW_ONE,
           _value_secret, _PW_ADVICE, "ldapsearch -w ...", "ldapsearch(1)"),
    Family("smb-password", "a password on a command line", ("smb", "rpcclient"),
           r"(?<![A-Za-z0-9_./-])(?:smbclient|rpcclient|smbcacls|smbget|smbmap)"
           r"(?:[ \t]+[^ \t]{1,200}){0,20}?[ \t]+(?:-U|--user)[ \t=]*[\"']?"
           r"[^\s%\"']{1,100}%(?P<v>[^\s\"']{1,200})", _value_secret, _PW_ADVICE,
           "-U user%...", "smbclient(1)"),
    Family("openssl-password", "a password on a command line", ("pass:",),
           r"(?<![A-Za-z0-9_-])-pass(?:in|out)?[ \t]+pass:(?P<v>[^\s\"']{1,200})",
           _value_secret, _PW_ADVICE, "pass:...", "openssl-passphrase-options(1)"),
    Family("sqlcmd-password", "a password on a command line", ("sqlcmd", "bcp", "osql", "isql"),
           r"(?<![A-Za-z0-9_./-])(?:sqlcmd|bcp|osql|isql)(?:\.exe)?(?:[ \t]+[^ \t]{1,200}){0,20}?"
           r"[ \t]+-P[ \t]*(?!-)" + _PW_ONE, _value_secret, _PW_ADVICE, "sqlcmd -P ...",
           "the sqlcmd docs"),
    Family("htpasswd-password", "a password on a command line", ("htpasswd",),
           r"(?<![A-Za-z0-9_./-])htpasswd(?:[ \t]+-[A-Za-z]{1,8}){0,4}?[ \t]+-[A-Za-z]{0,6}b"
           r"[A-Za-z]{0,6}(?:[ \t]+-[A-Za-z]{1,8}){0,4}[ \t]+[^\s-][^ \t]{0,200}[ \t]+[^ \t]{1,100}"
           r"[ \t]+" + _PW_ONE, _value_secret, _PW_ADVICE, "htpasswd -b ...", "htpasswd(1)"),
    # Any long option named like a secret (--db-password, --client-secret,
    # --api-key) followed by a value that is not another option.
    Family("option-password", "a password on a command line",
           ("pass", "secret", "token", "api-key", "login"),
           r"(?<![A-Za-z0-9_-])(?P<k>--(?:[A-Za-z0-9]{1,20}-){0,4}(?i:password|passwd|pass|secret"
           r"|token|api-key)|-(?:password|passwd|pass)|(?<=login )-p)[ \t]+(?!-)" + _PW_ONE,
           _option_value, _PW_ADVICE, "--password ...", "GNU option conventions"),
    Family("netrc-password", "a password in a .netrc line", ("password",),
           r"(?<![A-Za-z0-9_-])(?:machine[ \t]+[^ \t]{1,200}|default)"
           r"(?:[ \t]+(?:account|port)[ \t]+[^ \t]{1,200}){0,2}"
           r"[ \t]+login[ \t]+[^ \t]{1,200}"
           r"(?:[ \t]+(?:account|port)[ \t]+[^ \t]{1,200}){0,2}"
           r"[ \t]+password[ \t]+(?P<v>[^ \t]{1,200})", _value_secret, _PW_ADVICE,
           "machine ... password ...", "netrc(5)"),
    Family("prose-password", "a password in prose", ("pass", "pw"),
           r"(?<![A-Za-z0-9_-])(?i:pass(?:word|wd|phrase|code)|pw)"
           r"(?:[ \t]+(?:for|of|on|to|at)(?:[ \t]+[^ \t]{1,80}){1,3}?)?"
           r"(?:[ \t]+(?i:is|was)(?:[ \t]+(?i:now|still|set[ \t]+to|changed[ \t]+to))?"
           r"|[ \t]+(?i:set|changed)[ \t]+to):?[ \t]+[\"'`]?(?P<v>[^\s\"'`]{1,200})",
           _prose_password, _PW_ADVICE, "password is ...", "optmem: how agents write"),
    Family("quoted-password", "a password", ("pass", "secret"),
           r"(?<![A-Za-z0-9_-])(?i:pass(?:word|wd|phrase)|secret)[\"']?[ \t]*=[ \t]*"
           r"(?P<q>[\"'])(?P<v>[^\"'\r\n]{1,200} [^\"'\r\n]{0,200})(?P=q)",
           _quoted_phrase, _PW_ADVICE, 'password="..."', "optmem: config files"),
    Family("login-pair", "a password", ("login", "cred"),
           r"(?<![A-Za-z0-9_-])(?i:login|logins|creds|credentials)(?:[ \t]+[^\s:]{1,80}){0,4}?"
           r"[ \t]*:?[ \t]+[^\s:/]{1,100}(?:[ \t]*/[ \t]*|:)(?P<v>[^\s\"'`]{1,200})",
           _pw_like, _PW_ADVICE, "login user / ...", "optmem: how agents write"),
    Family("pgpass-line", "a password in a .pgpass line", (),
           r"(?<![\w.:-])[^\s:]{1,200}:[0-9]{1,5}:[^\s:]{1,100}:[^\s:]{1,100}"
           r":(?P<v>[^\s:]{1,200})(?![:\w])", _value_secret, _PW_ADVICE,
           "host:port:db:user:...", "the PostgreSQL manual, The Password File"),
    Family("password-hash", "a password hash", ("$2", "$1$", "$5$", "$6$", "$apr1$", "$y$"),
           r"\$(?:2[abxy]?\$[0-9]{2}\$[./A-Za-z0-9]{53}"
           r"|[156]\$(?:rounds=[0-9]{1,9}\$)?[./A-Za-z0-9]{1,16}\$[./A-Za-z0-9]{22,86}"
           r"|apr1\$[./A-Za-z0-9]{1,8}\$[./A-Za-z0-9]{22}"
           r"|y\$[./A-Za-z0-9]{1,30}\$[./A-Za-z0-9]{1,86}\$[./A-Za-z0-9]{43})",
           None, _where("hash", "password hash is in /etc/shadow"), "$2b$...", "crypt(5)"),
    Family("hex-private-key", "a private key", ("priv", "secret"),
           r"(?<![A-Za-z0-9_-])(?i:priv(?:ate)?[ _-]?key|secret)[\"']?[ \t]*(?:is)?[ \t]*[:=]?"
           r"[ \t]*[\"']?(?P<v>(?:0x)?[0-9a-fA-F]{64})(?![0-9a-fA-F])", _body_hex, _KEY_ADVICE,
           "0x...", "SEC 1 (secp256k1 keys), Ethereum wallets"),
    Family("seed-phrase", "a seed phrase", ("seed", "recovery", "mnemonic"),
           r"(?i:seed[ _-]?phrase|seed[ _-]?words|recovery[ _-]?phrase|mnemonic)"
           r"[\"']?[ \t]*(?:is|[:=])[ \t]*[\"']?(?:[a-z]{3,8}[ \t]+){11,23}[a-z]{3,8}(?![A-Za-z])",
           None, _where("seed phrase", "wallet seed is in the hardware wallet"),
           "seed phrase: ...", "BIP-39"),
    Family("sentry-dsn", "a Sentry DSN", ("://",),
           r"https?://(?P<v>[0-9a-f]{32})(?::[0-9a-f]{32})?@[A-Za-z0-9.-]{1,200}/[0-9]{1,20}",
           _body_hex, _where("DSN", "Sentry DSN is in the SENTRY_DSN env var"),
           "https://...@...sentry...", "docs.sentry.io/concepts/key-terms/dsn-explainer"),
    Family("okta-token", "an Okta API token", ("ssws",),
           r"(?<![A-Za-z])SSWS[ \t]+(?P<v>[A-Za-z0-9_-]{30,60})" + _R, _body_random,
           _where("token", "Okta token is in the OKTA_API_TOKEN env var"), "SSWS ...",
           "developer.okta.com/docs/guides/create-an-api-token"),
    Family("firebase-server-key", "a Firebase server key", (":apa91b",),
           _L + r"AAAA[A-Za-z0-9_-]{7}:APA91b[A-Za-z0-9_-]{100,400}", None,
           _where("key", "Firebase key is in the FCM_SERVER_KEY env var"),
           "AAAA...:APA91b...", "firebase.google.com/docs/cloud-messaging"),
    Family("service-account-key-id", "a service account key id", ("private_key_id",),
           r"[\"']private_key_id[\"'][ \t]*:[ \t]*[\"'](?P<v>[0-9a-f]{40})[\"']", _body_hex,
           _where("key", "service account key is in ~/.config/gcloud/sa.json"),
           '"private_key_id": "..."', "cloud.google.com/iam/docs/keys-create-delete"),
)

_AWS_ADVICE = _where("key", "AWS keys are in ~/.aws/credentials, profile dev")
_GH_ADVICE = _where("token", "GitHub token is in the gh keyring (gh auth token)")
_GL_ADVICE = _where("token", "GitLab token is in ~/.config/glab-cli")

#: Credentials in sentences: a credential word, then within a few words a
#: value (``_sentence_value``); a key's body line noted alone; shell forms.
_SENTENCES: tuple = (
    Family("shell-export", "a credential in a shell command", ("set -", "setenv", "export"),
           r"(?<![A-Za-z0-9_./-])(?:set(?:[ \t]+-{1,2}[A-Za-z]{1,8}){1,3}|setenv|export)"
           r"[ \t]+(?P<k>[A-Za-z_][A-Za-z0-9_]{0,80})[ \t]+(?P<v>[^\s;|&]{1,300})",
           _shell_value, _where("value", "API token is in the API_TOKEN env var"),
           "set -x NAME ...", "fish set(1), csh setenv, sh export"),
    Family("user-then-password", "a password on a command line", ("-u", "--user"),
           r"(?<![A-Za-z0-9_-])(?:-u|--user(?:name)?)[ \t=]*[^\s-][^\s]{0,100}[ \t]+"
           r"(?:-p|--pass(?:word)?)[ \t]+(?!-)" + _PW_ONE, _value_secret, _PW_ADVICE,
           "-u ... -p ...", "twine, docker, mongosh: a user option, then -p"),
    Family("stdin-password", "a password on a command line", ("--password-stdin",),
           r"(?<![A-Za-z0-9_-])(?:echo|printf)(?:[ \t]+-[ne]{1,2})?[ \t]+" + _PW_ONE
           + r"[ \t]*\|[^|;&]{0,200}?--password-stdin", _value_secret, _PW_ADVICE,
           "echo ... | ... --password-stdin", "docker login --password-stdin"),
    Family("vault-login", "a Vault token on a command line", ("vault login",),
           r"(?<![A-Za-z0-9_./-])vault[ \t]+login(?:[ \t]+-[A-Za-z-]{1,30}(?:=[^\s]{0,100})?)*"
           r"[ \t]+(?P<v>[^\s\"'=-][^\s\"'=]{7,300}={0,2})(?![^\s])", _vault_login,
           _where("token", "Vault token is in ~/.vault-token"), "vault login ...",
           "developer.hashicorp.com/vault/docs/commands/login"),
    Family("quoted-p-password", "a password on a command line", ("-p'", '-p"'),
           r"(?<![A-Za-z0-9_-])-p(?P<q>['\"])(?P<v>[^'\"\s]{1,200})(?P=q)", _quoted_p,
           _PW_ADVICE, "-p'...'", "the mysql manual, --password"),
    Family("sentence-password", "a password in a sentence",
           ("pass", "pw", "kennwort", "contrase", "senha", "パスワード", "密码", "口令"),
           _sentence_word("PpMmKkCcSsパ密口",
                          r"pass(?:words?|wds?|phrases?|codes?)|pwd?|passwort|kennwort"
                          r"|mot de passe|contraseñas?|contrasenas?|senhas?",
                          "Password|Passwd", "パスワード|密码|口令"),
           _sentence_value, _PW_ADVICE, "password ...", "optmem: how agents write"),
    Family("sentence-key", "a key in a sentence",
           ("key", "schlüssel", "clé", "clave", "chave", "chiave", "キー", "密钥", "秘钥"),
           _sentence_word("AaKkSsCcキ密秘",
                          r"(?:api)?keys?|schlüssel|clés?|claves?|chaves?|chiavi|chiave",
                          "Keys?", "キー|密钥|秘钥"), _sentence_value,
           _where("key", "staging API key is in the STAGING_API_KEY env var"), "key ...",
           "optmem: how agents write"),
    Family("sentence-token", "a token in a sentence",
           ("token", "bearer", "auth", "webhook", "pat", "jeton", "トークン", "令牌"),
           _sentence_word("TtBbAaWwJjPト令", r"tokens?|bearer|auth|webhooks?|jetons?",
                          "Tokens?",
                          "トークン|令牌", "PATs?"), _sentence_value,
           _where("token", "staging token is in the STAGING_TOKEN env var"), "token ...",
           "optmem: how agents write"),
    Family("sentence-secret", "a secret in a sentence", ("secret", "cred"),
           _sentence_word("SsCc", r"secrets?|credentials?|creds?", "Secrets?|Credentials?"),
           _sentence_value,
           _where("secret", "staging secret is in the STAGING_SECRET env var"), "secret ...",
           "optmem: how agents write"),
    Family("sentence-cookie", "a session cookie in a sentence", ("cookie", "session"),
           _sentence_word("CcSs", r"cookies?|session(?:id)?s?", "Cookies?|Session"),
           _sentence_value,
           _where("cookie", "session cookie is in the browser's cookie jar"), "cookie ...",
           "optmem: how agents write"),
    Family("sentence-seed", "an OTP seed in a sentence", ("seed", "otp"),
           _sentence_word("SsOoTtHh", r"seeds?|otp|totp|hotp", "Seeds?"), _sentence_value,
           _where("seed", "TOTP seed is in the team's password manager"), "seed ...",
           "optmem: how agents write"),
    Family("key-continuation", "a line of a private key", (),
           r"(?<![A-Za-z0-9+/=_.:@-])(?P<v>[A-Za-z0-9+/]{58,76}={0,2})(?![A-Za-z0-9+/=_-])",
           _key_line, _KEY_ADVICE, "a base64 line of 60-76 characters",
           "RFC 7468 (64-character base64 lines)"),
)

#: The one table of credential families. Earlier rows win (their message).
FAMILIES: tuple = (
    Family("anthropic-api-key", "an Anthropic API key", ("sk-ant-",),
           _L + r"(?P<p>sk-ant-)(?P<v>[A-Za-z0-9_-]{20,300})", _body_machine,
           _where("key", "Anthropic key is in the ANTHROPIC_API_KEY env var"), None,
           "docs.anthropic.com/en/api/getting-started"),
    Family("openai-api-key", "an OpenAI-style API key", ("sk-",),
           _L + r"(?P<p>sk-(?:proj-|svcacct-|admin-)?)(?P<v>[A-Za-z0-9_-]{20,300})",
           _body_random, _where("key", "OpenAI key is in ~/.config/openai"), None,
           "platform.openai.com/docs/api-reference/authentication"),
    Family("aws-access-key-id", "an AWS access key id", ("akia", "asia", "abia", "acca", "a3t"),
           r"(?<![A-Za-z0-9])(?P<p>AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}(?![A-Za-z0-9])",
           _no_example, _AWS_ADVICE, None,
           "docs.aws.amazon.com/IAM/latest/UserGuide/reference_identifiers.html"),
    Family("aws-secret-access-key", "an AWS secret access key", ("secret",),
           r"(?i:aws_?secret_?(?:access_?)?key|secret_?access_?key)[\"']?\s*[:=]+\s*"
           r"[\"']?[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])",
           _no_example, _AWS_ADVICE, "aws_secret_access_key=...",
           "docs.aws.amazon.com/cli/latest/userguide/cli-configure-files.html"),
    Family("aws-secret-prose", "an AWS secret access key", ("aws",),
           r"(?i:aws)[ \t_-]*(?i:secret)(?:[ \t_-]*(?i:access))?(?:[ \t_-]*(?i:key))?"
           r"(?:[ \t]+(?i:is))?[ \t:=]*[\"']?(?P<v>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])",
           _aws_prose, _AWS_ADVICE, "aws secret ...", "as aws-secret-access-key"),
    Family("github-token", "a GitHub token", ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
           _L + r"(?P<p>gh[pousr]_)[A-Za-z0-9]{36,300}" + _R, _not_filler, _GH_ADVICE, None,
           "github.blog/2021-04-05-behind-githubs-new-authentication-token-formats"),
    Family("github-fine-grained-pat", "a GitHub token", ("github_pat_",),
           _L + r"(?P<p>github_pat_)(?P<v>[A-Za-z0-9_]{40,300})", _body_random, _GH_ADVICE,
           None, _gl("github-fine-grained-pat")),
    Family("gitlab-token", "a GitLab token",
           ("glpat-", "gldt-", "glrt-", "glptt-", "glcbt-", "glsoat-", "glft-", "glimt-",
            "glagent-", "gloas-", "glffct-"),
           _L + r"(?P<p>gl(?:pat|dt|rt|ptt|cbt|soat|ft|imt|agent|oas|ffct)-)"
           r"(?P<v>[A-Za-z0-9_.-]{20,300})", _body_machine, _GL_ADVICE, None,
           "docs.gitlab.com/ee/security/tokens/#token-prefixes"),
    Family("slack-token", "a Slack token", ("xox", "xapp-"),
           _L + r"(?P<p>xox[abeoprs]-|xapp-)(?P<v>[A-Za-z0-9-]{10,300})", _body_digit,
           _where("token", "Slack bot token is in the SLACK_BOT_TOKEN env var"), None,
           "api.slack.com/authentication/token-types"),
    Family("slack-webhook", "a Slack webhook URL", ("hooks.slack.com",),
           r"hooks\.slack\.com/(?:services|workflows|triggers)/T[A-Z0-9]{6,300}/"
           r"[A-Z0-9]{6,300}/[A-Za-z0-9]{12,300}", None,
           _where("webhook URL", "Slack webhook URL is in the SLACK_WEBHOOK env var"),
           "hooks.slack.com/services/...", "api.slack.com/messaging/webhooks"),
    Family("stripe-key", "a Stripe secret key",
           ("sk_live_", "sk_test_", "sk_prod_", "rk_live_", "rk_test_", "rk_prod_", "whsec_"),
           _L + r"(?P<p>(?:sk|rk)_(?:live|test|prod)_|whsec_)(?P<v>[A-Za-z0-9]{10,300})" + _R,
           _body_machine, _where("key", "Stripe key is in the STRIPE_API_KEY env var"), None,
           "docs.stripe.com/keys"),
    Family("google-api-key", "a Google API key", ("aiza",),
           _L + r"(?P<p>AIza)[A-Za-z0-9_-]{35}" + _R, _not_filler,
           _where("key", "Google API key is in ~/.config/gcloud"), None,
           "cloud.google.com/docs/authentication/api-keys"),
    Family("google-oauth-secret", "a Google OAuth secret", ("gocspx-", "ya29."),
           _L + r"(?P<p>GOCSPX-|ya29\.)(?P<v>[A-Za-z0-9_-]{24,300})", _body_random,
           _where("secret", "Google OAuth client is in ~/.config/gcloud"), None,
           "developers.google.com/identity/protocols/oauth2"),
    Family("huggingface-token", "a Hugging Face token", ("hf_",),
           _L + r"(?P<p>hf_)(?P<v>[A-Za-z]{34,300})" + _R, None,
           _where("token", "Hugging Face token is in ~/.cache/huggingface/token"), None,
           "huggingface.co/docs/hub/security-tokens"),
    Family("huggingface-token-digits", "a Hugging Face token", ("hf_",),
           _L + r"(?P<p>hf_)(?P<v>[A-Za-z0-9]{34,300})" + _R, _body_random,
           _where("token", "Hugging Face token is in ~/.cache/huggingface/token"), None,
           "huggingface.co/docs/hub/security-tokens"),
    Family("npm-token", "an npm token", ("npm_",),
           _L + r"(?P<p>npm_)[A-Za-z0-9]{36}" + _R, _not_filler,
           _where("token", "npm token is in ~/.npmrc"), None,
           "docs.npmjs.com/about-access-tokens"),
    Family("pypi-token", "a PyPI token", ("pypi-",),
           _L + r"(?P<p>pypi-)AgE[A-Za-z0-9_-]{50,300}", None,
           _where("token", "PyPI token is in ~/.pypirc"), None, "pypi.org/help/#apitoken"),
    Family("sendgrid-api-key", "a SendGrid API key", ("sg.",),
           _L + r"(?P<p>SG\.)(?P<v>[A-Za-z0-9_=.-]{60,70})" + _R, _body_machine,
           _where("key", "SendGrid key is in the SENDGRID_API_KEY env var"), None,
           _gl("sendgrid-api-token")),
    *_PROVIDERS,
    *_SHAPES,
    Family("pem-private-key", "a private key", ("-----begin",),
           r"-----BEGIN[A-Z0-9 _]{0,40}PRIVATE KEY(?: BLOCK)?-----", _pem_header, _KEY_ADVICE,
           "-----BEGIN ... PRIVATE KEY-----", "RFC 7468"),
    Family("age-secret-key", "a private key", ("age-secret-key-1",),
           r"(?<![A-Za-z0-9-])AGE-SECRET-KEY-1[0-9A-Z]{58}", None, _KEY_ADVICE,
           "AGE-SECRET-KEY-1...", "age-encryption.org/v1"),
    Family("pem-private-key-end", "a private key", ("-----end",),
           r"-----END[A-Z0-9 _]{0,40}PRIVATE KEY(?: BLOCK)?-----", None, _KEY_ADVICE,
           "-----END ... PRIVATE KEY-----", "RFC 7468"),
    Family("jwt", "a JSON Web Token", ("eyj",),
           _L + r"eyJ[A-Za-z0-9_-]{10,300}\.[A-Za-z0-9_-]{10,4000}\.[A-Za-z0-9_-]{10}",
           None, _where("token", "session token is in the browser's cookie jar"), "eyJ...",
           "RFC 7519"),
    Family("jwt-unsigned", "a JSON Web Token", (".ey",),
           _L + r"ey[A-Za-z0-9]{17,300}\.ey[A-Za-z0-9/\\_-]{17,4000}\.", _body_machine,
           _where("token", "session token is in the browser's cookie jar"), "eyJ...",
           "RFC 7519 (an unsigned JWT ends with a dot)"),
    Family("bearer-token", "a bearer token", ("bearer",),
           r"(?<![A-Za-z])(?:Bearer|BEARER|bearer) +(?P<v>[A-Za-z0-9._~+/-]{16,300}={0,2})",
           _body_random, _where("token", "API token is in the API_TOKEN env var"),
           "Bearer ...", "RFC 6750"),
    Family("basic-auth", "a Basic auth header", ("basic",),
           r"(?<![A-Za-z])(?:Basic|BASIC|basic) +(?P<v>[A-Za-z0-9+/]{8,300}={0,2})"
           r"(?![A-Za-z0-9+/=])", _basic_auth,
           _where("password", "proxy password is in ~/.netrc"), "Basic ...", "RFC 7617"),
    Family("authorization-header", "an Authorization header", ("authorization",),
           r"(?i:authorization)[\"']?\s*[:=]\s*[\"']?"
           r"(?:(?i:token|bot|apikey|api-key|api-token|key|sso-key) +)?"
           r"(?P<v>[A-Za-z0-9._~+/=-]{16,300})", _body_random,
           _where("token", "API token is in the API_TOKEN env var"), "Authorization: ...",
           "RFC 9110, section 11.6.2"),
    # The password may hold a raw "@": the host follows the last one.
    Family("url-password", "a password in a URL", ("://",),
           r"[A-Za-z][A-Za-z0-9+.-]{1,20}://[^\s/:@?#]{0,100}:"
           r"(?P<v>[^\s/?#]{1,200}|[^\s?#@]{1,200})@"
           r"(?=[A-Za-z0-9\[])", _url_password, _URL_ADVICE, "scheme://user:...@host",
           "RFC 3986, section 3.2.1"),
    Family("curl-header", "a credential in a request header", ("-h", "--header"),
           r"(?<![A-Za-z0-9_-])(?:-H|--header)[ \t=]*[\"']?(?i:authorization:[ \t]*"
           r"(?:(?:basic|bearer|token|api-token|apikey|api-key)[ \t]+)?"
           r"|(?:x-(?:[a-z]+-){0,2})?(?:api-?)?(?:key|token|secret):[ \t]*)"
           r"(?P<v>[A-Za-z0-9_=~@.+/:-]{8,400})", _header_value,
           _where("token", "API token is in the API_TOKEN env var"), '-H "...: ..."',
           _gl("curl-auth-header")),
    *_CONFIGS,
    Family("assignment", "a password or secret",
           ("pass", "pwd", "secret", "key", "token", "auth", "cred"),
           r"(?<![A-Za-z0-9_./-])(?P<k>[A-Za-z0-9_.-]{1,80})[\"']?"
           r"(?P<sep>[ \t]*(?:=>|:{1,3}=|\?=|==|[:=]|(?<=[\"']),)[ \t]*)"
           r"(?:(?P<q>[\"'`])(?P<qv>[^\"'`\s]{0,300})(?P=q)"
           r"|(?P<v>[^\s\"'`,;&)}\]]{0,300}))", _assignment, _ASSIGN_ADVICE, None,
           "generic-api-key in gitleaks; detect-secrets KeywordDetector"),
    *_SENTENCES,
)


# ------------------------------------------------------------ the engine
#
# As secret scanners do: one pass of a keyword automaton over the lower-cased
# text (a trie-shaped regular expression, built on first use), then only the
# families whose keyword is in the text run their pattern, then their check
# (entropy, shape, placeholders). A family's pattern is compiled the first
# time its keyword is seen, so text that never names a provider compiles
# none of the provider patterns.

_keyword_rx = None  # the trie of every keyword, compiled on first use
_by_keyword: dict = {}  # keyword -> indexes of the families that need it
_always: tuple = ()  # indexes of families with no keyword
_compiled: dict = {}  # family index -> compiled pattern


def _trie_pattern(words) -> str:
    """One regular expression matching any of ``words``, shaped as a trie
    (``gh(?:p_|o_)``...) so the re module tries few branches per position."""
    root: dict = {}
    for w in words:
        node = root
        for ch in w:
            node = node.setdefault(ch, {})
        node[""] = {}

    def emit(node) -> str:
        end = "" in node
        alts = [re.escape(ch) + emit(sub) for ch, sub in sorted(node.items()) if ch]
        if not alts:
            return ""
        body = alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"
        if end:
            return "(?:" + body + ")?"
        return body

    return emit(root)


def _index() -> None:
    global _keyword_rx, _always
    always = []
    for i, fam in enumerate(FAMILIES):
        if not fam.keywords:
            always.append(i)
        for k in fam.keywords:
            _by_keyword.setdefault(k, []).append(i)
    _always = tuple(always)
    # Longest first at each branch is implied by the trie; overlapping
    # keywords (``sk-`` inside ``sk-ant-``) are found by scanning every start.
    _keyword_rx = re.compile("(?=(" + _trie_pattern(_by_keyword) + "))")


def candidates(text: str) -> list:
    """The ``FAMILIES`` that may match ``text``, in table order: those with a
    keyword in ``text.lower()`` and those with none."""
    if _keyword_rx is None:
        _index()
    found = set(_always)
    for hit in set(_keyword_rx.findall(text.lower())):
        idx = _by_hit.get(hit)
        if idx is None:
            # every keyword that is a prefix of the longest one found here
            idx = _by_hit[hit] = tuple(
                i for n in range(1, len(hit) + 1) for i in _by_keyword.get(hit[:n], ()))
        found.update(idx)
    return [FAMILIES[i] for i in sorted(found)]


_by_hit: dict = {}  # a keyword match -> indexes of the families of its prefixes


def _pattern(fam: Family):
    i = _INDEX[fam.id]
    rx = _compiled.get(i)
    if rx is None:
        rx = _compiled[i] = re.compile(fam.pattern)
    return rx


_INDEX = {fam.id: i for i, fam in enumerate(FAMILIES)}


def find_credential(text: str) -> str | None:
    """The reason ``text`` is refused for carrying a credential, or None.

    The reason names the kind and a fixed generic prefix, never the secret,
    e.g. ``carries a GitHub token (ghp_...); write where the token lives
    instead (e.g. "..."), never the token itself.``
    """
    for fam in candidates(text):
        pattern = _pattern(fam)
        check = fam.check
        m = pattern.search(text)
        while m is not None and check is not None and not check(m):
            m = pattern.search(text, m.start() + 1)  # overlapping: try again
        if m is not None:
            shown = fam.shown
            if shown is None:
                if "p" in pattern.groupindex:
                    shown = m.group("p") + "..."
                else:
                    key = re.search(_KEY_END, m.group("k"))
                    shown = key.group(0).lower() + "=..." if key else "..."
            return f"carries {fam.kind} ({shown}); {fam.advice}."
    return None
