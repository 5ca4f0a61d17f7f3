"""The write guard (optmem.guard): refused characters, credentials, and no
false positives on ordinary prose.

Every secret below is fake and assembled from pieces, so this file does not
itself look like it leaks anything.
"""

from __future__ import annotations

import base64
import os
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from optmem import guard
from optmem.errors import BadInput, BadText, MemoError
from optmem.guard import check_text, find_problem

# Fake but realistic-looking secret bodies.
MIX = "A1b2C3d4"  # mixed case and digits, 8 characters
HEXISH = "9f3a7c2e"  # lowercase hex, 8 characters
LETTERS = "QwErTyUiOpAsDfGh"  # mixed-case letters only, 16 characters


def b64url(n: int) -> str:
    unit = MIX + "-x_Y"
    return (unit * (n // len(unit) + 1))[:n]


JWT = ".".join(
    [
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9",
        "eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkZha2UifQ",
        "c2lnbmF0dXJlLW5vdC1yZWFs" + MIX,
    ]
)
BASIC = base64.b64encode(b"admin:" + MIX.encode()).decode()

# (family, text with the secret, the secret, words the message must carry,
#  a text of the same family that must pass)
FAMILIES = [
    ("openai-project", "my key sk-proj-{}", "sk-proj-" + MIX * 6, "OpenAI",
     "we benchmark sk-learn and scikit-learn models; task-force sk-12"),
    ("openai-legacy", "OPENAI_API_KEY={}", "sk-" + MIX * 6, "OpenAI",
     "sk-learn-compatible-estimators-with-long-names is a phrase"),
    ("anthropic", "key: {}", "sk-ant-api03-" + b64url(93), "Anthropic",
     "sk-ant-colony-optimisation-library is a package name"),
    ("aws-access-key-id", "aws id {} in use", "AKIA" + "Z7Q2M4P8R1T6V3X9", "AWS",
     "AKIAS alone, and the docs example AKIAIOSFODNN7EXAMPLE"),
    ("aws-session-key-id", "temp creds {}", "ASIA" + "Q4W7E2R9T5Y1U8I3", "AWS",
     "ASIA and ASIAN markets; ASIAPACIFICREGION"),
    ("aws-secret-key", "aws_secret_access_key = {}",
     "wK7p/Q2m+R9sT4v" + "Xy8Zb3Nc6Df1Gh5Jk0Lm" + "P2qR5", "AWS secret",
     "aws_secret_access_key is read from ~/.aws/credentials"),
    ("github-classic", "token {} works", "ghp_" + MIX * 4 + "E5f6G7h8i9J0", "GitHub",
     "ghp_ tokens are classic PATs; gho_ too"),
    ("github-fine-grained", "GH_TOKEN={}",
     "github_pat_" + "11ABCDEFG0" + MIX + "1234" + "_" + MIX * 7 + "xyz", "GitHub",
     "fine-grained tokens start with github_pat_ and expire"),
    ("gitlab", "glab token {}", "glpat-" + "xY9" + MIX + "zQ7" + "-Ab12C3", "GitLab",
     "GitLab personal tokens start with glpat- and are 26 characters"),
    ("slack-bot", "bot {}", "xoxb-" + "123456789012-1234567890123-" + MIX * 3, "Slack",
     "xoxb- tokens are bot tokens; xoxo hugs-and-kisses-everyone-here"),
    ("slack-webhook", "post to https://{}",
     "hooks.slack.com/services/T0ABC1DEF/B0GHI2JKL/" + MIX * 3, "Slack webhook",
     "post to hooks.slack.com/services/ via the incoming webhook"),
    ("stripe", "STRIPE={}", "sk_live_" + MIX * 3 + "Zz", "Stripe",
     "pk_live_ keys are publishable; sk_live_ and sk_test_ are secret"),
    ("google-api", "maps {}", "AIza" + "Sy" + MIX * 4 + "q", "Google API",
     "Google keys start with AIza and AIzaSy is common"),
    ("google-oauth", "client secret {}", "GOCSPX-" + b64url(28), "Google OAuth",
     "OAuth client secrets start with GOCSPX- nowadays"),
    ("huggingface", "HF {}", "hf_" + LETTERS * 2 + "Zk", "Hugging Face",
     "hf_hub_download caches models; hf_transfer speeds it up"),
    ("npm", "//registry.npmjs.org/:_authToken {}", "npm_" + MIX * 4 + "Ab12", "npm",
     "npm_config_registry is an environment variable"),
    ("pypi", "twine {}", "pypi-AgEIcHlwaS5vcmc" + b64url(80), "PyPI",
     "upload with a pypi- token kept in ~/.pypirc"),
    ("sendgrid", "mail {}", "SG." + b64url(22) + "." + b64url(43), "SendGrid",
     "SG.com and S.G. are fine"),
    ("private-key-openssh", "{} b3BlbnNzaC1rZXktdjEAAAAA",
     "-----BEGIN OPENSSH PRIVATE KEY-----", "private key",
     "-----BEGIN PUBLIC KEY----- and -----BEGIN CERTIFICATE----- are public"),
    ("private-key-rsa", "{}MIIEpAIBAAKCAQEA", "-----BEGIN RSA PRIVATE KEY-----",
     "private key",
     "the deploy key is ~/.ssh/id_ed25519, see /etc/ssl/private/key.pem"),
    ("private-key-ec", "{}", "-----BEGIN EC PRIVATE KEY-----", "private key",
     "an EC private key lives in ~/.ssh/id_ecdsa"),
    ("private-key-pkcs8", "{}", "-----BEGIN ENCRYPTED PRIVATE KEY-----", "private key",
     "-----BEGIN ENCRYPTED MESSAGE----- is not a key"),
    ("private-key-pgp", "{}", "-----BEGIN PGP PRIVATE KEY BLOCK-----", "private key",
     "-----BEGIN PGP PUBLIC KEY BLOCK----- is public"),
    ("age", "{}", "AGE-SECRET-KEY-1" + "QZ7X9" * 11 + "ABC", "private key",
     "age keys are in ~/.config/age/keys.txt"),
    ("jwt", "cookie {}", JWT, "JSON Web Token",
     "a JWT starts with eyJ; version 1.2.3 and a.b.c are not tokens"),
    ("bearer", "curl -H 'Authorization: Bearer {}'", MIX * 4, "bearer",
     "use a bearer token for auth; Bearer authentication-is-configured"),
    ("basic", "Authorization: Basic {}", BASIC, "Basic",
     "Implemented basic command collections; Basic authentication is off"),
    ("authorization-token", "Authorization: Token {}", MIX * 5, "Authorization",
     "Authorization: required_for_every_route and authorization: handled"),
    ("url-password", "DATABASE_URL=postgres://app:{}@db.internal:5432/app",
     "s3cr3t" + MIX, "password in a URL",
     "https://github.com/pallets/click/pull/123, ssh git@github.com,"
     " http://localhost:8080/api, https://host:8080/,"
     " postgres://user:password@host/db"),
    ("password-assignment", "set password={} in prod", "hunter22", "password",
     "set password= in the env file, never in git; password=None by default"),
    ("passwd-yaml", "db:\u00a0passwd: {}", "Tr0ub4dor", "password",
     "the passwd: field is required; /etc/passwd: permission denied"),
    ("password-json", '{{"password": "{}"}}', "correcthorse", "password",
     '{"password": null, "user": "bob"}'),
    ("password-changeme", "admin password={}", "changeme", "password",
     "password=$DB_PASSWORD and password=${DB_PASSWORD} and password=<secret>"),
    ("api-key-assignment", "https://api.example.org/v1?api_key={}", MIX * 3, "secret",
     "api_key=<your key here> and api_key=*** and api_key=..."),
    ("secret-key-assignment", "SECRET_KEY = '{}'", "django-insecure-" + MIX * 3,
     "secret", "SECRET_KEY = os.environ['SECRET_KEY'] and secret_key = settings.KEY"),
    ("access-token-yaml", "access_token: {}", MIX * 3, "secret",
     "access_token: ${ACCESS_TOKEN}; max_token: 4096"),
    ("client-secret", "client_secret={}", HEXISH * 4, "secret",
     "client_secret=xxxxxxxx and client_secret=REDACTED"),
]


IDS = [row[0] for row in FAMILIES]


@pytest.mark.parametrize("family,template,secret,kind,_negative", FAMILIES, ids=IDS)
def test_credential_refused(family, template, secret, kind, _negative):
    text = template.format(secret)
    reason = find_problem(text)
    assert reason is not None, text
    assert reason.startswith("carries ")
    assert kind.lower() in reason.lower()
    assert "never the" in reason  # says what to write instead
    assert secret not in reason
    with pytest.raises(BadText) as info:
        check_text(text)
    msg = str(info.value)
    assert msg.startswith("the memory carries ")
    assert secret not in msg
    assert "\n" not in msg and msg.isprintable()


@pytest.mark.parametrize("family,_template,_secret,_kind,negative", FAMILIES, ids=IDS)
def test_credential_lookalike_passes(family, _template, _secret, _kind, negative):
    assert find_problem(negative) is None
    check_text(negative)


@pytest.mark.parametrize("family,template,secret,_kind,_negative", FAMILIES, ids=IDS)
def test_message_does_not_echo_the_secret_body(
    family, template, secret, _kind, _negative
):
    if family.startswith("private-key"):
        return  # the header found is public; the key body follows it
    reason = find_problem(template.format(secret))
    assert reason is not None
    # Nothing of the secret beyond the fixed prefix shown: no 6-character run.
    shown = reason.split("(", 1)[1].split("...", 1)[0]
    body = secret[len(shown):] if secret.startswith(shown) else secret
    runs = [body[i : i + 6] for i in range(len(body) - 5)]
    leaked = [r for r in runs if r in reason]
    assert not leaked, (reason, leaked)


PROSE = [
    "Initial commit",
    "fixed the build, see commit 3f2a9c1 and 9fceb02d0ae598e95dc970b74767f19372d61af8",
    "sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 of it",
    "trace id 123e4567-e89b-12d3-a456-426614174000 in the logs",
    "the key is at ~/.ssh/id_ed25519 and the cert at /etc/ssl/private/key.pem",
    "https://github.com/pallets/click/pull/123 fixed it",
    "ssh git@github.com to test; scp me@host:~/x .",
    "http://localhost:8080/api returns 200; https://example.com:8443/a?b=c&d=e",
    "rotated the API token today",
    "the password field must be hashed",
    "use a bearer token for auth",
    "set password= in the env file, never in git",
    "password: required, 12+ characters",
    "Password prompt now prints a newline on `^C`.",
    "the tokens: 4096 max; max_tokens=4096; token_normalize_func=str.lower",
    "secret: none; is_secret=True; secret_santa=bob",
    "api_key=API_KEY from the environment, password=password_from_vault",
    "password=getpass() and token=args.token and password=self.password",
    "passwd(1) changes a password; see /etc/passwd and /etc/shadow",
    "sk-learn, scikit-learn, task-force, AKIAS, xoxo",
    "iVBORw0KGgo is the PNG magic in base64; data:image/png;base64,iVBORw0KGgo",
    "Auto-detect `type=UNPROCESSED` when `flag_value` has non-basic types (#3363)",
    "Use detach for TextIOWrapper.  See http://bugs.python.org/issue21363",
    "version 8.1.7, python3.11, utf-8, sha1, md5, base64, x86_64",
    "moved docs to https://click.palletsprojects.com/en/8.1.x/",
    "email me at first.last@example.com or user+tag@example.org",
    "Basic auth over TLS only; bearer tokens expire after 1h",
    "Authorization: handled by the gateway",
    "token=abc and token=12345678901234 (a page number)",
    "the summary of 0-15 (16 memories)",
]

UNICODE_PROSE = [
    "café, naïve, Ångström, Straße, façade, résumé",
    "日本語のテキストと中文和한국어",
    "\u0627\u0644\u0639\u0631\u0628\u064a\u0629 and \u05e2\u05d1\u05e8\u05d9\u05ea letters",
    "emoji 😀 👍🏽 ❤️ 1️⃣ 🇫🇷 and 👩\u200d💻 and 👨\u200d👩\u200d👧\u200d👦",
    "🏳️\u200d🌈 and ❤️\u200d🔥 and 🧑🏽\u200d🚀 and 🏴\u200d☠️",
    "math ∀x ∈ ℝ: x² ≥ 0, ∑ ∫ √ ≠ ≈ → ⇒ ∞",
    "non\u00a0breaking\u00a0space, thin\u2009space, ideographic\u3000space",
    "quotes “like this” and ‘this’ — dashes – and … ellipsis",
    "Persian \u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645 uses ZWNJ",
    "Hindi \u0915\u094d\u200d\u0937 uses ZWJ",
    "a new emoji \U0001fa77 from a newer Unicode",
    "text\ufe0e selector after a character",
]


@pytest.mark.parametrize("text", PROSE + UNICODE_PROSE)
def test_ordinary_prose_passes(text):
    assert find_problem(text) is None
    assert check_text(text, "summary") is None


def _click_history() -> Path | None:
    here = Path(__file__).resolve()
    candidates = [here.parents[2] / "shared" / "data" / "click-history.txt"]
    if os.environ.get("OPTMEM_SHARED"):
        shared = Path(os.environ["OPTMEM_SHARED"])
        candidates += [
            shared / "data" / "click-history.txt",
            shared / "click-history.txt",
        ]
    return next((p for p in candidates if p.is_file()), None)


def test_click_history_passes_in_full():
    path = _click_history()
    if path is None:
        pytest.skip("click-history.txt not found (../shared/data or $OPTMEM_SHARED)")
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len(lines) > 2000
    refused = []
    for n, line in enumerate(lines, 1):
        text = line[11:]
        for candidate in (line, text):
            reason = find_problem(candidate)
            if reason is not None:
                refused.append((n, candidate, reason))
    assert not refused, refused[:5]


# ---------------------------------------------------------------- characters

REFUSED_CHARS = {
    # every str.splitlines() boundary
    "\n": "line break", "\r": "line break", "\v": "line break",
    "\f": "line break", "\x1c": "line break", "\x1d": "line break",
    "\x1e": "line break", "\x85": "line break", "\u2028": "line break",
    "\u2029": "line break",
    # other C0, DEL, C1
    "\t": "tab", "\x00": "control", "\x07": "control", "\x1b": "control",
    "\x1f": "control", "\x7f": "control", "\x80": "control", "\x9b": "control",
    "\x9f": "control",
    # Cf: invisible and bidirectional
    "\u200b": "invisible", "\u200c": "invisible", "\u200d": "invisible",
    "\u2060": "invisible", "\ufeff": "invisible", "\u00ad": "invisible",
    "\u180e": "invisible", "\u200e": "invisible", "\u200f": "invisible",
    "\u202a": "invisible", "\u202b": "invisible", "\u202c": "invisible",
    "\u202d": "invisible", "\u202e": "invisible", "\u2066": "invisible",
    "\u2067": "invisible", "\u2068": "invisible", "\u2069": "invisible",
    "\u061c": "invisible", "\U000e0001": "invisible", "\U000e0041": "invisible",
    "\U000e007f": "invisible", "\ufff9": "invisible", "\ufffb": "invisible",
    # invisible fillers outside Cf
    "\u034f": "invisible", "\u3164": "invisible", "\u115f": "invisible",
    # variation selectors other than the emoji ones
    "\ufe00": "variation selector", "\U000e0100": "variation selector",
    # surrogates, private use, unassigned, noncharacters
    "\ud800": "surrogate", "\udcff": "surrogate", "\ue000": "private-use",
    "\U000f0000": "private-use", "\u0378": "unassigned", "\ufdd0": "unassigned",
    "\uffff": "unassigned", "\U0010ffff": "unassigned",
}


@pytest.mark.parametrize(
    "ch,why", REFUSED_CHARS.items(), ids=[f"U+{ord(c):04X}" for c in REFUSED_CHARS]
)
def test_refused_character(ch, why):
    text = "fine text" + ch + "more text"
    reason = find_problem(text)
    assert reason is not None
    assert f"U+{ord(ch):04X} " in reason
    assert "at character 10 " in reason
    assert why in reason
    assert reason.isprintable() and ch not in reason
    with pytest.raises(BadText) as info:
        check_text(text, "summary")
    assert str(info.value).startswith("the summary contains U+")


def test_message_example_rlo():
    text = "the file is ev\u202elif.exe"
    assert str(_raises(text, "summary")) == (
        "the summary contains U+202E RIGHT-TO-LEFT OVERRIDE at character 15"
        " (invisible or bidirectional control); retype it as plain text."
    )


def test_tab_advice_and_line_break_advice():
    assert "use spaces" in find_problem("a\tb")
    assert "one line" in find_problem("a\nb")
    assert "one line" in find_problem("a\r\nb")
    assert "one line" in find_problem("a\u2028b")


def test_position_counts_characters_not_bytes():
    assert "at character 4 " in find_problem("日本語\u200bです")


def test_first_problem_wins_and_chars_come_first():
    text = "key sk-proj-" + MIX * 6 + " \x1b[31m"
    assert find_problem(text).startswith("contains U+001B ESCAPE at character")


def test_surrogateescape_argv_bytes_refused():
    text = b"caf\xe9".decode("utf-8", "surrogateescape")
    assert "U+DCE9" in find_problem(text)
    assert "UTF-8" in find_problem(text)


@pytest.mark.parametrize(
    "text",
    [
        "\u200dleading joiner 😀",
        "😀\u200d trailing space",
        "a\u200db between letters",
        "\ufe0fselector at the start",
        "x \ufe0f selector after a space",
        "😀\ufe0f\ufe0f doubled selector",
        "\u0627\u200c latin after ZWNJ x",
        "abc\u200cdef",
        "🏴\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f tag flag",
    ],
)
def test_emoji_exceptions_are_narrow(text):
    assert find_problem(text) is not None


def test_control_names_are_unicode_aliases():
    for o in [*range(0x20), 0x7F, *range(0x80, 0xA0)]:
        name = guard.char_name(chr(o)).split(" ", 1)[1]
        assert unicodedata.lookup(name) == chr(o), (hex(o), name)


def test_check_text_subject_and_hierarchy():
    assert check_text("hello") is None
    err = _raises("a\tb", "line 12 of notes.txt")
    assert str(err).startswith(
        "line 12 of notes.txt contains U+0009 CHARACTER TABULATION at character 2"
    )
    assert isinstance(err, BadInput) and isinstance(err, MemoError)
    err = _raises("a\tb", "line 3 of evil\x1b[2J.txt")
    assert str(err).isprintable() and "\x1b" not in str(err)


def _raises(text: str, what: str = "memory") -> BadText:
    with pytest.raises(BadText) as info:
        check_text(text, what)
    return info.value


# ---------------------------------------------------------------- properties

WORDS = (
    "the a memory log wake sleep note summary block fixed added removed "
    "Click option command group test docs build release version python "
    "café naïve 日本 中文 한국어 😀 👍 ✨ → ≥ ∞ Ångström (see) [x] #123 "
    "v8.1.7 2024-05-01 10:30 50% $5 e.g. i.e. it's don't".split()
)
SEPARATORS = [" ", ", ", ". ", "; ", " - ", ": ", " / "]

prose = st.lists(
    st.tuples(
        st.one_of(st.sampled_from(WORDS), st.integers(0, 10**9).map(str)),
        st.sampled_from(SEPARATORS),
    ),
    min_size=1,
    max_size=40,
).map(lambda parts: "".join(w + s for w, s in parts).strip())


@given(prose)
@settings(max_examples=200, deadline=None)
def test_property_prose_passes(text):
    assert find_problem(text) is None


@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789 .,!?'()", max_size=200))
@settings(max_examples=200, deadline=None)
def test_property_plain_lowercase_passes(text):
    # No credential family can be spelled without an upper-case letter, an
    # underscore, a dash or a separator (:, =), except a bearer/basic token.
    if "bearer" in text or "basic" in text:
        return
    assert find_problem(text) is None


def _always_refused(ch: str) -> bool:
    o = ord(ch)
    if ch in ("\u200c", "\u200d", "\ufe0e", "\ufe0f"):
        return False  # context-dependent
    if 0x1F000 <= o <= 0x1FAFF:
        return False  # future emoji
    return True


refused_char = st.one_of(
    st.sampled_from(sorted(REFUSED_CHARS)),
    st.characters(categories=("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp")),
).filter(_always_refused)


@given(prose, refused_char, st.integers(min_value=0))
@settings(max_examples=200, deadline=None)
def test_property_any_refused_char_anywhere_is_refused(text, ch, where):
    i = where % (len(text) + 1)
    bad = text[:i] + ch + text[i:]
    reason = find_problem(bad)
    assert reason is not None
    assert reason.startswith(f"contains U+{ord(ch):04X} ")
    assert f"at character {i + 1} " in reason
    assert reason.isprintable()


@given(prose)
@settings(max_examples=50, deadline=None)
def test_property_secret_in_prose_is_refused(text):
    secret = "ghp_" + MIX * 4 + "E5f6G7h8i9J0"
    reason = find_problem(text + " " + secret + " " + text)
    assert reason is not None and "GitHub" in reason and secret not in reason
