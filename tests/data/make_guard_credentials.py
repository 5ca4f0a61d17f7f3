"""Write tests/data/guard-credential-values.txt: FAKE credentials in real providers' shapes.

Every value is drawn from ``random.Random(SEED)``: none is, or was, a real
credential, and running the script again writes the same bytes. The file has
comment lines starting with ``#``, then one line per value, ``KIND<TAB>VALUE``,
kinds in the order of ``KINDS`` below. Values never hold whitespace, quotes,
backticks or braces, so any template of guard-credential-templates.txt can
hold any of them.

The templates are written by hand in guard-credential-templates.txt; this
script only checks their shape (exactly one ``{value}``, at most one
``{provider}``, each form's minimum count).

    python3 tests/data/make_guard_credentials.py           # write the values file
    python3 tests/data/make_guard_credentials.py --check   # exit 1 if it differs
    python3 tests/data/make_guard_credentials.py --sample 15   # filled sentences
"""

from __future__ import annotations

import argparse
import base64
import json
import random
import string
import sys
import uuid
from pathlib import Path

HERE = Path(__file__).resolve().parent
VALUES = HERE / "guard-credential-values.txt"
TEMPLATES = HERE / "guard-credential-templates.txt"

#: The random seed; change it and every value changes.
SEED = 20261201
#: Values written per kind (``pem-body`` gets ``PEM_LINES``).
PER_KIND = 4
PEM_LINES = 16
#: Fewest templates each form must have.
MIN_TEMPLATES = {"word-then-value": 60, "shell": 20, "continuation": 10}
#: Names a test may put in place of ``{provider}``.
PROVIDER_NAMES = ("Stripe", "GitHub", "OpenAI", "Twilio", "abbysale", "AWS",
                  "Slack", "SendGrid", "Datadog", "GitLab")

UPPER = string.ascii_uppercase
LOWER = string.ascii_lowercase
DIGITS = string.digits
ALNUM = UPPER + LOWER + DIGITS
URLSAFE = ALNUM + "-_"
B64 = ALNUM + "+/"
HEX = "0123456789abcdef"
HEXUP = HEX.upper()
B32 = UPPER + "234567"
BECH32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l".upper()
FORBIDDEN = set(" \t\r\n'\"`{}")


def pick(rng: random.Random, alphabet: str, n: int) -> str:
    """``n`` characters drawn uniformly from ``alphabet``."""
    return "".join(rng.choice(alphabet) for _ in range(n))


def raw(rng: random.Random, n: int) -> bytes:
    """``n`` random bytes from ``rng`` (``randbytes`` is 3.9+, this is any 3.x)."""
    return bytes(rng.getrandbits(8) for _ in range(n))


def b64(rng: random.Random, nbytes: int, urlsafe: bool = False) -> str:
    """Base64 (padded) of ``nbytes`` random bytes."""
    enc = base64.urlsafe_b64encode if urlsafe else base64.b64encode
    return enc(raw(rng, nbytes)).decode("ascii")


def b64url_nopad(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode("ascii").rstrip("=")


def jwt(rng: random.Random) -> str:
    head = b64url_nopad(json.dumps({"alg": rng.choice(["HS256", "RS256"]), "typ": "JWT"},
                                   separators=(",", ":")).encode())
    claims = {"sub": str(rng.randrange(10**6, 10**9)), "role": rng.choice(["service_role", "admin", "deploy"]),
              "iat": rng.randrange(1_700_000_000, 1_790_000_000)}
    body = b64url_nopad(json.dumps(claims, separators=(",", ":")).encode())
    return f"{head}.{body}.{pick(rng, URLSAFE, 43)}"


def discord(rng: random.Random) -> str:
    snowflake = str(rng.randrange(10**17, 10**19))
    return f"{b64url_nopad(snowflake.encode())}.{pick(rng, URLSAFE, 6)}.{pick(rng, URLSAFE, rng.choice([27, 38]))}"


def password_letters(rng: random.Random) -> str:
    """Ten letters of both cases, like ``clsxHKifxi``."""
    while True:
        v = pick(rng, LOWER + UPPER, 10)
        if any(c.islower() for c in v) and any(c.isupper() for c in v):
            return v


WORDS = ("troubadour", "sunflower", "lighthouse", "marmalade", "avalanche",
         "pinecone", "dragonfly", "carousel", "harmonica", "blueberry")
LEET = {"o": "0", "a": "4", "e": "3", "i": "1", "s": "5"}


def password_leet(rng: random.Random) -> str:
    """A word with letters swapped for digits, a symbol and a digit, like ``Tr0ub4dor&3``."""
    word = rng.choice(WORDS)
    out = "".join(LEET[c] if c in LEET and rng.random() < 0.6 else c for c in word)
    return out[0].upper() + out[1:] + rng.choice("&!#%*") + rng.choice(DIGITS)


def pem_body(rng: random.Random) -> str:
    """A PEM body line: 64 base64 characters (or a 60-character last line ending ``=``),
    holding ``+`` or ``/`` and an upper-case letter, a lower-case letter and a digit."""
    while True:
        v = b64(rng, 48) if rng.random() < 0.8 else b64(rng, 44)
        if ((("+" in v) or ("/" in v)) and any(c.isupper() for c in v)
                and any(c.islower() for c in v) and any(c.isdigit() for c in v)):
            return v


def ids(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def dd(rng: random.Random, n: int) -> str:
    """``n`` digits, the first not 0."""
    return rng.choice("123456789") + pick(rng, DIGITS, n - 1)


#: (kind, generator). A kind names the provider and the credential.
KINDS = [
    ("github-pat-classic", lambda r: "ghp_" + pick(r, ALNUM, 36)),
    ("github-oauth", lambda r: "gho_" + pick(r, ALNUM, 36)),
    ("github-app-user", lambda r: "ghu_" + pick(r, ALNUM, 36)),
    ("github-app-installation", lambda r: "ghs_" + pick(r, ALNUM, 36)),
    ("github-refresh", lambda r: "ghr_" + pick(r, ALNUM, 36)),
    ("github-pat-fine-grained", lambda r: "github_pat_" + pick(r, ALNUM, 22) + "_" + pick(r, ALNUM, 59)),
    ("gitlab-pat", lambda r: "glpat-" + pick(r, URLSAFE, 20)),
    ("gitlab-runner", lambda r: "glrt-" + pick(r, URLSAFE, 20)),
    ("gitlab-trigger", lambda r: "glptt-" + pick(r, HEX, 40)),
    ("slack-bot", lambda r: f"xoxb-{dd(r, 12)}-{dd(r, 13)}-{pick(r, ALNUM, 24)}"),
    ("slack-user", lambda r: f"xoxp-{dd(r, 12)}-{dd(r, 12)}-{dd(r, 13)}-{pick(r, HEX, 32)}"),
    ("slack-app", lambda r: f"xapp-1-A{pick(r, UPPER + DIGITS, 10)}-{dd(r, 13)}-{pick(r, HEX, 64)}"),
    ("slack-webhook", lambda r: "https://hooks.slack.com/services/T" + pick(r, UPPER + DIGITS, 8)
     + "/B" + pick(r, UPPER + DIGITS, 10) + "/" + pick(r, ALNUM, 24)),
    ("stripe-secret-live", lambda r: "sk_live_" + (pick(r, ALNUM, 24) if r.random() < 0.4 else "51" + pick(r, ALNUM, 97))),
    ("stripe-restricted-live", lambda r: "rk_live_" + (pick(r, ALNUM, 24) if r.random() < 0.4 else "51" + pick(r, ALNUM, 97))),
    ("stripe-secret-test", lambda r: "sk_test_51" + pick(r, ALNUM, 97)),
    ("stripe-webhook-secret", lambda r: "whsec_" + pick(r, ALNUM, 32)),
    ("openai-project", lambda r: "sk-proj-" + pick(r, URLSAFE, 74) + "T3BlbkFJ" + pick(r, URLSAFE, 74)),
    ("openai-service-account", lambda r: "sk-svcacct-" + pick(r, URLSAFE, 74) + "T3BlbkFJ" + pick(r, URLSAFE, 74)),
    ("openai-legacy", lambda r: "sk-" + pick(r, ALNUM, 20) + "T3BlbkFJ" + pick(r, ALNUM, 20)),
    ("anthropic-api", lambda r: "sk-ant-api03-" + pick(r, URLSAFE, 93) + "AA"),
    ("anthropic-admin", lambda r: "sk-ant-admin01-" + pick(r, URLSAFE, 93) + "AA"),
    ("aws-access-key-id", lambda r: "AKIA" + pick(r, B32, 16)),
    ("aws-sts-access-key-id", lambda r: "ASIA" + pick(r, B32, 16)),
    ("aws-secret-access-key", lambda r: pick(r, B64, 40)),
    ("google-api-key", lambda r: "AIza" + pick(r, URLSAFE, 35)),
    ("google-oauth-client-secret", lambda r: "GOCSPX-" + pick(r, URLSAFE, 28)),
    ("google-oauth-refresh", lambda r: "1//0" + pick(r, URLSAFE, 99)),
    ("twilio-api-key", lambda r: "SK" + pick(r, HEX, 32)),
    ("twilio-auth-token", lambda r: pick(r, HEX, 32)),
    ("sendgrid", lambda r: "SG." + pick(r, URLSAFE, 22) + "." + pick(r, URLSAFE, 43)),
    ("npm", lambda r: "npm_" + pick(r, ALNUM, 36)),
    ("pypi", lambda r: "pypi-AgEIcHlwaS5vcmc" + pick(r, URLSAFE, 160)),
    ("rubygems", lambda r: "rubygems_" + pick(r, HEX, 48)),
    ("clojars", lambda r: "CLOJARS_" + pick(r, HEX, 60)),
    ("dockerhub-pat", lambda r: "dckr_pat_" + pick(r, URLSAFE, 27)),
    ("mailgun", lambda r: "key-" + pick(r, HEX, 32)),
    ("mailchimp", lambda r: pick(r, HEX, 32) + "-us" + str(r.randrange(1, 21))),
    ("shopify-admin", lambda r: "shpat_" + pick(r, HEX, 32)),
    ("shopify-shared-secret", lambda r: "shpss_" + pick(r, HEX, 32)),
    ("shopify-custom-app", lambda r: "shpca_" + pick(r, HEX, 32)),
    ("digitalocean-pat", lambda r: "dop_v1_" + pick(r, HEX, 64)),
    ("digitalocean-oauth", lambda r: "doo_v1_" + pick(r, HEX, 64)),
    ("heroku-api-key", lambda r: "HRKU-AA" + pick(r, URLSAFE, 58)),
    ("heroku-legacy-api-key", ids),
    ("datadog-api-key", lambda r: pick(r, HEX, 32)),
    ("vault-service-token", lambda r: "hvs." + (pick(r, URLSAFE, 24) if r.random() < 0.5 else "CAESI" + pick(r, URLSAFE, 86))),
    ("vault-batch-token", lambda r: "hvb." + pick(r, URLSAFE, 138)),
    ("doppler-service-token", lambda r: "dp.st." + r.choice(["prd", "dev", "stg"]) + "." + pick(r, ALNUM, 40)),
    ("doppler-personal-token", lambda r: "dp.pt." + pick(r, ALNUM, 43)),
    ("linear-api-key", lambda r: "lin_api_" + pick(r, ALNUM, 40)),
    ("notion-integration-legacy", lambda r: "secret_" + pick(r, ALNUM, 43)),
    ("notion-integration", lambda r: "ntn_" + dd(r, 11) + pick(r, ALNUM, 35)),
    ("atlassian-api-token", lambda r: "ATATT3xFfGF0" + pick(r, URLSAFE, 171) + "=" + pick(r, HEXUP, 8)),
    ("bitbucket-app-password", lambda r: "ATBB" + pick(r, ALNUM, 32) + pick(r, HEXUP, 8)),
    ("discord-bot-token", discord),
    ("telegram-bot-token", lambda r: dd(r, 10) + ":AA" + pick(r, URLSAFE, 33)),
    ("jwt", jwt),
    ("azure-storage-account-key", lambda r: b64(r, 64)),
    ("huggingface", lambda r: "hf_" + pick(r, UPPER + LOWER, 34)),
    ("pulumi", lambda r: "pul-" + pick(r, HEX, 40)),
    ("terraform-cloud", lambda r: pick(r, ALNUM, 14) + ".atlasv1." + pick(r, ALNUM, 67)),
    ("cloudflare-api-token", lambda r: pick(r, URLSAFE, 40)),
    ("cloudflare-origin-ca-key", lambda r: "v1.0-" + pick(r, HEX, 24) + "-" + pick(r, HEX, 146)),
    ("newrelic-user-key", lambda r: "NRAK-" + pick(r, UPPER + DIGITS, 27)),
    ("newrelic-license-key", lambda r: pick(r, HEX, 36) + "NRAL"),
    ("sentry-user-token", lambda r: "sntryu_" + pick(r, HEX, 64)),
    ("grafana-service-account", lambda r: "glsa_" + pick(r, ALNUM, 32) + "_" + pick(r, HEX, 8)),
    ("grafana-cloud", lambda r: "glc_eyJvIjoi" + pick(r, ALNUM, 100) + "In19"),
    ("postman", lambda r: "PMAK-" + pick(r, HEX, 24) + "-" + pick(r, HEX, 34)),
    ("dropbox-short-lived", lambda r: "sl.B" + pick(r, URLSAFE, 135)),
    ("databricks", lambda r: "dapi" + pick(r, HEX, 32)),
    ("figma-pat", lambda r: "figd_" + pick(r, URLSAFE, 40)),
    ("flyio", lambda r: "fo1_" + pick(r, URLSAFE, 43)),
    ("age-secret-key", lambda r: "AGE-SECRET-KEY-1" + pick(r, BECH32, 58)),
    ("square-access-token", lambda r: "EAAA" + pick(r, URLSAFE, 60)),
    ("square-oauth-secret", lambda r: "sq0csp-" + pick(r, URLSAFE, 43)),
    ("algolia-admin-key", lambda r: pick(r, HEX, 32)),
    ("ethereum-private-key", lambda r: "0x" + pick(r, HEX, 64)),
    ("braintree-access-token", lambda r: "access_token$production$" + pick(r, LOWER + DIGITS, 16) + "$" + pick(r, HEX, 32)),
    ("twitch-oauth", lambda r: pick(r, LOWER + DIGITS, 30)),
    ("okta-api-token", lambda r: "00" + pick(r, URLSAFE, 40)),
    ("supabase-pat", lambda r: "sbp_" + pick(r, HEX, 40)),
    ("netlify-pat", lambda r: "nfp_" + pick(r, ALNUM, 36)),
    ("replicate", lambda r: "r8_" + pick(r, ALNUM, 37)),
    ("groq", lambda r: "gsk_" + pick(r, ALNUM, 52)),
    ("perplexity", lambda r: "pplx-" + pick(r, ALNUM, 48)),
    ("xai", lambda r: "xai-" + pick(r, ALNUM, 80)),
    ("deepseek", lambda r: "sk-" + pick(r, HEX, 32)),
    ("mistral", lambda r: pick(r, ALNUM, 32)),
    ("cohere", lambda r: pick(r, ALNUM, 40)),
    ("alibaba-access-key-id", lambda r: "LTAI" + pick(r, ALNUM, 20)),
    ("tailscale-auth-key", lambda r: "tskey-auth-k" + pick(r, ALNUM, 10) + "CNTRL-" + pick(r, ALNUM, 33)),
    ("planetscale", lambda r: "pscale_tkn_" + pick(r, URLSAFE, 43)),
    ("contentful-pat", lambda r: "CFPAT-" + pick(r, URLSAFE, 43)),
    ("mapbox-secret", lambda r: "sk.eyJ1Ijoi" + pick(r, ALNUM, 50) + "." + pick(r, URLSAFE, 22)),
    ("airtable-pat", lambda r: "pat" + pick(r, ALNUM, 14) + "." + pick(r, HEX, 64)),
    ("firebase-fcm-server-key", lambda r: "AAAA" + pick(r, URLSAFE, 7) + ":APA91b" + pick(r, URLSAFE, 134)),
    ("adafruit-io", lambda r: "aio_" + pick(r, ALNUM, 28)),
    ("asana-pat", lambda r: f"2/{dd(r, 16)}/{dd(r, 16)}:{pick(r, HEX, 32)}"),
    # generic secrets with no provider prefix
    ("encryption-key-base64-32", lambda r: b64(r, 32)),
    ("fernet-key", lambda r: b64(r, 32, urlsafe=True)),
    ("totp-seed-base32", lambda r: pick(r, B32, r.choice([16, 32]))),
    ("master-key-hex-64", lambda r: pick(r, HEX, 64)),
    ("password-letters", password_letters),
    ("password-leet", password_leet),
    ("secret-40-mixed", lambda r: pick(r, ALNUM + "/+", 40)),
    ("session-cookie-40", lambda r: pick(r, ALNUM, 40)),
    ("pem-body", pem_body),
]


def values() -> list:
    """Every ``(kind, value)`` pair, in file order; the same list on every run."""
    rng = random.Random(SEED)
    out = []
    seen = set()
    for kind, make in KINDS:
        n = PEM_LINES if kind == "pem-body" else PER_KIND
        got = 0
        while got < n:
            v = make(rng)
            if v in seen:
                continue
            bad = FORBIDDEN & set(v)
            if bad:
                raise SystemExit(f"{kind} drew {sorted(bad)!r}: fix its generator")
            seen.add(v)
            out.append((kind, v))
            got += 1
    return out


def render() -> str:
    head = ("# FAKE credentials, generated by tests/data/make_guard_credentials.py "
            f"(random seed {SEED}): none is a real secret.\n"
            "# KIND<TAB>VALUE, one a line. Regenerate: python3 tests/data/make_guard_credentials.py\n")
    return head + "".join(f"{k}\t{v}\n" for k, v in values())


def templates() -> dict:
    """Templates by form, from guard-credential-templates.txt; exits on a malformed line."""
    forms: dict = {}
    form = None
    for n, line in enumerate(TEMPLATES.read_text(encoding="utf-8").splitlines(), 1):
        if line.startswith("# form: "):
            form = line[len("# form: "):].strip()
            forms.setdefault(form, [])
            continue
        if line.startswith("#") or not line.strip():
            continue
        if form is None:
            raise SystemExit(f"{TEMPLATES.name}:{n}: a template before any '# form:' line")
        rest = line.replace("{value}", "", 1).replace("{provider}", "", 1)
        if line.count("{value}") != 1 or "{" in rest or "}" in rest:
            raise SystemExit(f"{TEMPLATES.name}:{n}: needs one {{value}}, at most one {{provider}}")
        forms[form].append(line)
    for form, least in MIN_TEMPLATES.items():
        if len(forms.get(form, [])) < least:
            raise SystemExit(f"{TEMPLATES.name}: form {form} has {len(forms.get(form, []))} templates, needs {least}")
    return forms


def fill(template: str, value: str, provider: str) -> str:
    return template.replace("{provider}", provider).replace("{value}", value)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--check", action="store_true", help="exit 1 if the values file differs from what is generated")
    p.add_argument("--sample", type=int, metavar="N", help="print N filled sentences (seeded) and write nothing")
    args = p.parse_args(argv)
    forms = templates()
    text = render()
    if args.sample:
        rng = random.Random(SEED + 1)
        pairs = values()
        pem = [v for k, v in pairs if k == "pem-body"]
        other = [(k, v) for k, v in pairs if k != "pem-body"]
        names = sorted(forms)
        for i in range(args.sample):
            form = names[i % len(names)]
            t = rng.choice(forms[form])
            v = rng.choice(pem) if form == "continuation" else rng.choice(other)[1]
            print(f"{form}\t{fill(t, v, rng.choice(PROVIDER_NAMES))}")
        return 0
    if args.check:
        same = VALUES.exists() and VALUES.read_text(encoding="utf-8") == text
        if not same:
            print(f"{VALUES.name} differs from its generator. Run: python3 tests/data/make_guard_credentials.py")
        return 0 if same else 1
    VALUES.write_text(text, encoding="utf-8")
    counts = {f: len(ts) for f, ts in forms.items()}
    print(f"wrote {VALUES.name}: {len(KINDS)} kinds; templates per form: {counts}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
