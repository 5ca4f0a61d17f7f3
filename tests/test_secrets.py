"""The credential families of ``optmem.guard.secrets`` (docs/guard.md).

Every family has a generated example shape here (``SHAPES``: a template of
random runs, never a real credential), refused in several sentence forms;
the real corpora pass line by line; no refusal echoes its secret, nor names a credential argument but by its
position; the work
on a text is bounded by its length (a step count, not a clock).
"""

from __future__ import annotations

import random
import re
import string
from pathlib import Path

import pytest

from conftest import data_file
from optmem.guard import secrets
from optmem.guard.text import find_problem
from optmem.store.config import MAX_ENTRY_BYTES

ALPHABETS = {
    "a": string.ascii_lowercase + string.digits,
    "A": string.ascii_letters + string.digits,
    "U": string.ascii_uppercase + string.digits,
    "h": "0123456789abcdef",
    "H": "0123456789abcdefABCDEF",
    "l": string.ascii_lowercase,
    "L": string.ascii_letters,
    "b": string.ascii_letters + string.digits + "+/",
    "u": string.ascii_letters + string.digits + "_-",
    "d": string.digits,
    "B": string.ascii_uppercase + "234567",
}


def fill(template: str, seed: int) -> str:
    """``"ghp_{A:36}"`` -> ``ghp_`` and 36 random letters and digits. A run
    over an alphabet with letters and digits always holds both."""
    rng = random.Random(seed)

    def run(m):
        chars, n = ALPHABETS[m.group(1)], int(m.group(2))
        while True:
            s = "".join(rng.choice(chars) for _ in range(n))
            mixed = any(c.isdigit() for c in chars) and any(c.isalpha() for c in chars)
            if n < 4 or not mixed or (any(c.isdigit() for c in s) and any(c.isalpha() for c in s)):
                return s

    return re.sub(r"\{(\w):(\d+)\}", run, template)


#: id -> ("token", shape) for a credential that stands alone (put in every
#: sentence form), or ("phrase", shape) for one known by its context.
SHAPES = {
    "anthropic-api-key": ("token", "sk-ant-api03-{u:90}"),
    "openai-api-key": ("token", "sk-proj-{A:48}"),
    "aws-access-key-id": ("token", "AKIA{U:16}"),
    "aws-secret-access-key": ("phrase", "aws_secret_access_key={b:40}"),
    "aws-secret-prose": ("phrase", "the aws secret key is {A:18}/{A:10}+{A:10}"),
    "github-token": ("token", "ghp_{A:36}"),
    "github-fine-grained-pat": ("token", "github_pat_{A:22}_{A:59}"),
    "gitlab-token": ("token", "glimt-{A:25}"),
    "slack-token": ("token", "xoxb-{d:12}-{d:13}-{A:24}"),
    "slack-webhook": ("token", "https://hooks.slack.com/services/T{U:8}/B{U:8}/{A:24}"),
    "stripe-key": ("token", "sk_live_{A:24}"),
    "google-api-key": ("token", "AIza{u:35}"),
    "google-oauth-secret": ("token", "GOCSPX-{A:28}"),
    "huggingface-token": ("token", "hf_{L:34}"),
    "huggingface-token-digits": ("token", "hf_{A:34}"),
    "npm-token": ("token", "npm_{A:36}"),
    "pypi-token": ("token", "pypi-AgEIcHlwaS5vcmc{u:60}"),
    "sendgrid-api-key": ("token", "SG.{u:22}.{u:43}"),
    "groq-api-key": ("token", "gsk_{A:52}"),
    "xai-api-key": ("token", "xai-{A:80}"),
    "replicate-api-token": ("token", "r8_{A:37}"),
    "perplexity-api-key": ("token", "pplx-{A:48}"),
    "digitalocean-token": ("token", "dop_v1_{h:64}"),
    "shopify-token": ("token", "shpat_{h:32}"),
    "atlassian-api-token": ("token", "ATATT3xFfGF0{u:180}"),
    "doppler-api-token": ("token", "dp.st.prd.{A:43}"),
    "vault-token": ("token", "hvs.{u:90}"),
    "vault-legacy-token": ("token", "s.{A:24}"),
    "databricks-api-token": ("token", "dapi{h:32}"),
    "linear-api-key": ("token", "lin_api_{A:40}"),
    "twilio-api-key": ("token", "SK{h:32}"),
    "mailgun-api-key": ("token", "key-{h:32}"),
    "postman-api-key": ("token", "PMAK-{h:24}-{h:34}"),
    "sentry-token": ("token", "sntrys_{A:120}"),
    "grafana-token": ("token", "glsa_{A:32}_{h:8}"),
    "grafana-api-key": ("token", "eyJrIjoi{A:70}"),
    "new-relic-key": ("token", "NRAK-{U:27}"),
    "heroku-api-key": ("token", "HRKU-{u:60}"),
    "supabase-key": ("token", "sbp_{h:40}"),
    "netlify-token": ("token", "nfp_{A:40}"),
    "planetscale-token": ("token", "pscale_tkn_{u:43}"),
    "pulumi-token": ("token", "pul-{h:40}"),
    "square-token": ("token", "sq0atp-{u:22}"),
    "facebook-token": ("token", "EAAC{A:120}"),
    "mapbox-token": ("token", "sk.eyJ1Ijoi{u:40}.{u:22}"),
    "notion-token": ("token", "ntn_{A:46}"),
    "airtable-token": ("token", "pat{A:14}.{h:64}"),
    "figma-token": ("token", "figd_{u:40}"),
    "tavily-api-key": ("token", "tvly-dev-{A:32}"),
    "langsmith-api-key": ("token", "lsv2_pt_{h:32}_{h:10}"),
    "1password-service-token": ("token", "ops_eyJzaWduSW5BZGRyZXNzIjoi{b:200}"),
    "docker-hub-token": ("token", "dckr_pat_{u:27}"),
    "buildkite-token": ("token", "bkua_{h:40}"),
    "circleci-token": ("token", "CCIPAT_{A:22}_{h:40}"),
    "rubygems-api-key": ("token", "rubygems_{h:48}"),
    "clojars-token": ("token", "CLOJARS_{a:60}"),
    "nuget-api-key": ("token", "oy2{a:43}"),
    "brevo-api-key": ("token", "xkeysib-{h:64}-{A:16}"),
    "contentful-token": ("token", "CFPAT-{u:43}"),
    "adafruit-io-key": ("token", "aio_{A:28}"),
    "prefect-api-key": ("token", "pnu_{A:36}"),
    "pinecone-api-key": ("token", "pcsk_{A:6}_{A:60}"),
    "resend-api-key": ("token", "re_{A:8}_{A:24}"),
    "flyio-token": ("token", "fm2_{b:120}"),
    "dropbox-token": ("token", "sl.u.{u:140}"),
    "elevenlabs-api-key": ("token", "sk_{h:48}"),
    "1password-secret-key": ("token", "A3-{U:6}-{U:11}-{U:5}-{U:5}-{U:5}"),
    "adobe-client-secret": ("token", "p8e-{A:32}"),
    "alibaba-access-key-id": ("token", "LTAI{A:20}"),
    "aws-bedrock-api-key": ("token", "ABSK{b:120}"),
    "aws-bedrock-short-key": ("token", "bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t{b:60}"),
    "artifactory-api-key": ("token", "AKCp{A:69}"),
    "artifactory-reference-token": ("token", "cmVmdGtuOjAxOjE3{A:48}"),
    "authress-access-key": ("token", "sc_{a:12}.{a:5}.acc_{a:12}.{u:60}"),
    "clickhouse-secret-key": ("token", "4b1d{A:38}"),
    "cloudflare-origin-ca-key": ("token", "v1.0-{h:24}-{h:146}"),
    "duffel-api-token": ("token", "duffel_test_{u:43}"),
    "dynatrace-api-token": ("token", "dt0c01.{U:24}.{A:64}"),
    "easypost-api-key": ("token", "EZAK{A:54}"),
    "flutterwave-secret-key": ("token", "FLWSECK_TEST-{h:32}-X"),
    "frameio-api-token": ("token", "fio-u-{u:64}"),
    "harness-api-key": ("token", "pat.{u:22}.{A:24}.{A:20}"),
    "huggingface-org-token": ("token", "api_org_{L:34}"),
    "infracost-api-key": ("token", "ico-{A:32}"),
    "intra42-client-secret": ("token", "s-s4t2ud-{h:64}"),
    "octopus-deploy-api-key": ("token", "API-{U:26}"),
    "openshift-user-token": ("token", "sha256~{u:43}"),
    "readme-api-key": ("token", "rdme_{a:70}"),
    "scalingo-api-token": ("token", "tk-us-{u:48}"),
    "settlemint-token": ("token", "sm_pat_{A:16}"),
    "shippo-api-token": ("token", "shippo_live_{h:40}"),
    "sourcegraph-token": ("token", "sgp_{h:16}_{h:40}"),
    "gitlab-session-cookie": ("token", "_gitlab_session={h:32}"),
    "gitlab-runner-registration-token": ("token", "GR1348941{u:20}"),
    "jwt-base64": ("token", "ZXlKaGJHY2lPaUpJVXpJMU5pSjkuZXlK{b:60}"),
    "maxmind-license-key": ("token", "{A:6}_{A:29}_mmk"),
    "telegram-bot-token": ("token", "{d:10}:AA{u:33}"),
    "discord-bot-token": ("token", "MTA5NzQ2NjA4NTk0ODQ5{A:6}.{u:6}.{u:38}"),
    "discord-webhook": ("token", "https://discord.com/api/webhooks/{d:18}/{u:68}"),
    "teams-webhook": ("token", "https://acme.webhook.office.com/webhookb2/{h:8}-{h:4}-{h:4}-{h:4}"
                      "-{h:12}@{h:8}-{h:4}-{h:4}-{h:4}-{h:12}/IncomingWebhook/{h:32}"),
    "mailchimp-api-key": ("token", "{h:32}-us21"),
    "azure-client-secret": ("token", "{A:3}8Q~{A:34}"),
    "terraform-cloud-token": ("token", "{A:14}.atlasv1.{u:67}"),
    "facebook-app-token": ("token", "{d:15}|{u:27}"),
    "sidekiq-license": ("phrase", "BUNDLE_ENTERPRISE__CONTRIBSYS__COM={h:8}:{h:8}"),
    "nuget-password": ("phrase", '<add key="ClearTextPassword" value="{A:14}" />'),
    "pem-private-key": ("token", "-----BEGIN RSA PRIVATE KEY----- MIIEpAIBAAKCAQEA{b:60}"),
    "age-secret-key": ("token", "AGE-SECRET-KEY-1{U:58}"),
    "pem-private-key-end": ("phrase", "{b:60} -----END PRIVATE KEY-----"),
    "jwt": ("token", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOi{u:30}.{u:43}"),
    "jwt-unsigned": ("token", "eyJhbGciOiJub25lIn0.eyJzdWIiOiIxMjM0{u:20}."),
    "bearer-token": ("phrase", 'curl -H "Authorization: Bearer {A:40}" https://api.example.org'),
    "basic-auth": ("phrase", "Authorization: Basic " + "ZGVwbG95OnMzY3JldC1QYXNzLTQy"),
    "authorization-header": ("phrase", "Authorization: token {A:40}"),
    "url-password": ("phrase", "postgres://app:{A:16}@db.internal:5432/app"),
    "curl-header": ("phrase", 'curl -H "X-Api-Key: {A:32}" https://api.example.org/v1'),
    "azure-storage-key": ("phrase", "AccountName=acme;AccountKey={b:86}=="),
    "azure-sas": ("phrase", "https://acme.blob.core.windows.net/c?sv=2022-11-02&sig={b:43}%3D"),
    "registry-auth": ("phrase", '"auth": "ZGVwbG95OnMzY3JldC1QYXNzLTQy"'),
    "der-private-key": ("token", "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC{b:40}"),
    "openssh-private-key": ("token", "b3BlbnNzaC1rZXktdjEAAAAA{b:60}"),
    "putty-private-key": ("phrase", "PuTTY-User-Key-File-3: ssh-ed25519"),
    "kubernetes-secret": ("phrase", "apiVersion: v1 kind: Secret data: password: "
                          "czNjcmV0LVBhc3MtNDI="),
    "cookie": ("phrase", "Cookie: sessionid={a:32}; theme=dark"),
    "mysql-password": ("phrase", "mysql -u root -p{A:12} app"),
    "sshpass-password": ("phrase", "sshpass -p {A:12} ssh deploy@web1"),
    "redis-password": ("phrase", "redis-cli -h cache -a {A:16} ping"),
    "curl-user": ("phrase", "curl -u deploy:{A:14} https://ci.internal/api"),
    "login-password": ("phrase", "docker login -u deploy -p {A:20} registry.internal"),
    "ldap-password": ("phrase", 'ldapsearch -D "cn=admin" -w {A:14} -b dc=acme'),
    "smb-password": ("phrase", "smbclient //fs/share -U deploy%{A:12}"),
    "openssl-password": ("phrase", "openssl pkcs12 -in a.p12 -passin pass:{A:12}"),
    "sqlcmd-password": ("phrase", "sqlcmd -S db -U sa -P {A:14}"),
    "htpasswd-password": ("phrase", "htpasswd -b .htpasswd deploy {A:12}"),
    "option-password": ("phrase", "deploy --db-password {A:14} --env prod"),
    "netrc-password": ("phrase", "machine ci.internal login deploy password {A:14}"),
    "prose-password": ("phrase", "the staging root password is {A:12}"),
    "quoted-password": ("phrase", 'password="blue horse {d:4} battery"'),
    "login-pair": ("phrase", "login for the router: admin / {A:12}"),
    "pgpass-line": ("phrase", "db.internal:5432:app:deploy:{A:14}"),
    "password-hash": ("phrase", "root hash $6$saltsalt${b:86}"),
    "hex-private-key": ("phrase", "private key: 0x{h:64}"),
    "seed-phrase": ("phrase", "seed phrase: abandon ability able about above absent absorb "
                    "abstract absurd abuse access accident"),
    "sentry-dsn": ("phrase", "https://{h:32}@o1.ingest.sentry.io/{d:7}"),
    "okta-token": ("phrase", "Authorization: SSWS {u:42}"),
    "firebase-server-key": ("token", "AAAA{u:7}:APA91b{u:134}"),
    "service-account-key-id": ("phrase", '"private_key_id": "{h:40}"'),
    "assignment": ("phrase", "DATADOG_KEY={h:32}"),
    "sentence-password": ("phrase", "ssh root@10.0.0.4 password {A:14}"),
    "sentence-key": ("phrase", "the staging deploy uses abbysale API key {A:40} for auth"),
    "sentence-token": ("phrase", "the staging bearer for the crawler is {u:40}"),
    "sentence-secret": ("phrase", "deploy user secret {b:40}"),
    "sentence-cookie": ("phrase", "cookie session={A:40}"),
    "sentence-seed": ("phrase", "the TOTP seed is JBSW{B:28}"),
    "key-continuation": ("phrase", "{b:63}="),
    "shell-export": ("phrase", "set -gx DB_PASS {A:14}"),
    "quoted-p-password": ("phrase", "pg_restore -p'{A:14}' -d app"),
    "user-then-password": ("phrase", "twine upload -u __token__ -p {A:24} dist/*"),
    "stdin-password": ("phrase", "echo {A:20} | docker login --username ci --password-stdin"),
    "vault-login": ("phrase", "vault login {A:26}"),
}

#: Sentence forms a standalone credential is refused in.
FORMS = (
    "noted {} for the deploy",
    "CI_CREDENTIAL={}",
    "config: '{}'",
    '{{"credential": "{}"}}',
    "deploy-tool --with {} --env prod",
)


def _cases():
    for fam in secrets.FAMILIES:
        how, shape = SHAPES[fam.id]
        for seed in range(2):
            value = fill(shape, seed * 7919 + len(fam.id))
            forms = FORMS if how == "token" else ("{}", "noted: {} (old setup)")
            for form in forms:
                yield pytest.param(fam.id, value, form.format(value),
                                   id=f"{fam.id}-{seed}-{forms.index(form)}")


def test_every_family_has_a_shape_and_a_source():
    assert set(SHAPES) == {fam.id for fam in secrets.FAMILIES}
    for fam in secrets.FAMILIES:
        assert fam.source, fam.id
        assert fam.kind.startswith(("a ", "an ")), fam.id
        assert all(k == k.lower() for k in fam.keywords), fam.id


def test_placeholder_shapes_are_not_in_the_table():
    """Shapes are generated: no template is a literal credential."""
    for _how, shape in SHAPES.values():
        assert "{" in shape or shape.startswith(("Authorization: Basic", '"auth"', "PuTTY", "apiVersion")) \
            or "seed phrase" in shape


@pytest.mark.parametrize("fid,secret,text", list(_cases()))
def test_family_refused_in_every_form(fid, secret, text):
    reason = find_problem(text)
    assert reason is not None, text
    assert reason.startswith("carries ")
    # the echo check: no 12-character piece of the secret beyond the
    # fixed prefix the message shows
    shown = " ".join(re.findall(r"\(([^()]*)\)", reason))
    for i in range(0, max(1, len(secret) - 11)):
        piece = secret[i:i + 12]
        assert piece not in reason or piece in shown, (text, reason)


def test_the_table_keywords_are_in_every_match():
    """The prefilter never hides a match: each family's sample contains one
    of its keywords (lower-cased), or the family has none."""
    for fam in secrets.FAMILIES:
        _, shape = SHAPES[fam.id]
        value = fill(shape, 1).lower()
        assert not fam.keywords or any(k in value for k in fam.keywords), fam.id


@pytest.mark.parametrize("name", ["click-history.txt", "commit-subjects.txt"])
def test_real_corpus_passes_line_by_line(name):
    path = data_file(name)
    with open(path, encoding="utf-8") as f:
        lines = [ln.rstrip("\n") for ln in f if ln.strip()]
    assert len(lines) >= (5000 if name == "commit-subjects.txt" else 2000)
    refused = [(i, ln, find_problem(ln)) for i, ln in enumerate(lines, 1)]
    refused = [r for r in refused if r[2] is not None]
    assert refused == []


@pytest.mark.parametrize("text", [
    "reverted 3f786850e387550fdab836ed7e6dc881de23001b after the build broke",
    "image pinned to sha256:6a0ac2d3b9f3c8f7d8c1a1c1e0a5f7d1b2c3d4e5f60718293a4b5c6d7e8f9a0b",
    "request id 0c6f1a2e-8d4b-4f5e-9a7c-3b2d1e0f9a8b failed with 503",
    '"RequestToken": "5f40c577-3534-4b20-9599-0b0123456789"',
    "aws secretsmanager get-secret-value --secret-id arn:aws:secretsmanager:us-west-2:"
    "123456789012:secret:prod-db-a1b2c3",
    '"encryptionKey": "arn:aws:kms:us-east-1:123456789012:alias/aws/s3"',
    "cache_key=9b2f4e6a8c0d2e4f6a8b0c2d4e6f8a0b2c4d6e8f",
    "--lock-token 7b3bcec2-374e-4c5a-b2b9-563bf47249f0",
    "the GITHUB_TOKEN secret is rotated by the workflow",
    "placeholder ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx in the docs",
    "AKIAIOSFODNN7EXAMPLE is AWS's documented example key",
    "AKIAXXXXXXXXXXXXXXXX and npm_000000000000000000000000000000000000 are fillers",
    "export API_KEY=<token> before running",
    '"key": "48c67f3c-63bb-4f92-a98a-4ee0fbc2bef6"',
    "page_token=CiAKGjBpNDd2Nmp2Zml2cXRwYjBpOXA",
    "i18n_key=checkout.button.submit_order_now",
    "DOCKER_BUILDKIT=1 docker build --secret id=npm,src=$HOME/.npmrc .",
    "token, secret, password are all read from vault",
    'os.getenv("API_TOKEN", "")',
])

def test_identifiers_and_placeholders_pass(text):
    assert find_problem(text) is None


@pytest.mark.parametrize("text", [
    'api_token = os.getenv("API_TOKEN", "dafa7817-e246-48f3-91a7-e87653d587b8")',
    "set CONFLUENT_KEY=zw9yra4wpdnq8cv3 in the worker env",
    "tool --secret id=x,value=Zk39fjA0qpW8xq",
    "curl -u sk_test_4eC39HqLyjWDarjtT1zdp7dc: https://api.stripe.example",
])
def test_more_forms_refused(text):
    assert find_problem(text) is not None


@pytest.mark.parametrize("fragment", ["sk-", "ghp_", "xoxb-", "eyJ", '"auth": "',
                                      "AccountKey=", "token: ", "password=", "-----BEGIN ",
                                      "https://u:", "curl -u a:", "DATADOG_KEY="])
def test_work_is_bounded_by_the_text_length(monkeypatch, fragment):
    """On a text of ENTRY_CHARS characters made of a credential's start,
    every family's check runs at most once per character (the search moves
    on by one each time): the work grows with the length, never faster."""
    text = (fragment * MAX_ENTRY_BYTES)[:MAX_ENTRY_BYTES]
    calls = {}

    def counting(fam):
        def check(m):
            calls[fam.id] = calls.get(fam.id, 0) + 1
            return False
        return check

    fams = tuple(f._replace(check=counting(f)) for f in secrets.FAMILIES)
    monkeypatch.setattr(secrets, "FAMILIES", fams)
    assert secrets.find_credential(text) is None
    assert all(n <= len(text) + 1 for n in calls.values()), calls


def test_docs_page_holds_the_table_of_every_family():
    """docs/guard.md holds the table ``tests/guard_table.py`` writes: every
    family, what it refuses, a refused and an allowed example."""
    import guard_table

    page = guard_table.PAGE.read_text(encoding="utf-8")
    assert guard_table.page_table(page) == guard_table.render(), (
        "docs/guard.md's table is out of date: run python tests/guard_table.py")
    for fam in secrets.FAMILIES:
        assert f"| `{fam.id}` |" in page, fam.id


@pytest.mark.parametrize("fid", [fam.id for fam in secrets.FAMILIES])
def test_docs_allowed_example_passes(fid):
    import guard_table

    example = guard_table.allowed_example(fid, SHAPES[fid][1])
    assert find_problem(example) is None, (fid, example)


def test_readme_points_to_the_docs_page():
    readme = Path(__file__).resolve().parent.parent / "README.md"
    assert "(docs/guard.md)" in readme.read_text(encoding="utf-8")


#: A credential shape every rule set knows (an OpenAI project key), made up.
TOKEN = "sk-proj-" + "Ab3dEf7h" * 6


@pytest.mark.parametrize("args, pos", [
    (["zoom", TOKEN], 2),
    (["forget", TOKEN], 2),
    (["wake", "1", TOKEN], 3),
    (["config", TOKEN], 2),
    (["config", f"WAKE_LINES={TOKEN}"], 2),
    (["redact", TOKEN, "--yes"], 2),
    (["sleep", TOKEN, "a line"], 2),
    (["note", f"--project={TOKEN}", "a fact"], 2),
])
def test_a_refusal_names_a_credential_argument_by_its_position(memo, inited, args, pos):
    result = memo(*args)
    assert result.exit_code in (1, 2)
    assert TOKEN not in result.stderr and TOKEN.upper() not in result.stderr
    assert TOKEN[:12] not in result.stderr
    assert f"argument {pos}" in result.stderr, result.stderr


def test_an_ordinary_argument_is_still_quoted(memo, inited):
    assert "'not-a-block'" in memo("zoom", "not-a-block").stderr
