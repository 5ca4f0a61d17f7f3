"""Credentials in sentences: a credential word then a value, a key's body
line noted alone, shell forms; and what must stay allowed.

The credential corpus is every template of
``tests/data/guard-credential-templates.txt`` filled with every fake value of
``tests/data/guard-credential-values.txt``; the allowed corpus is
``commit-subjects.txt``, ``click-history.txt``, ``guard-allowed.txt`` and the
allowed examples below. Both data sets were written by people who did not
see the rules. A failure message gives the counts per form, so a regression
says where it is.
"""

from __future__ import annotations

import importlib.util
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import data_file
from optmem.guard.text import find_problem

#: At least this share of each form's generated sentences is refused.
MIN_REFUSED = 0.95

# The examples a note about the gap gave (fake values).
REFUSED = [
    "the staging API token is C3J27XDCG2LmlZGEONYlgCtjfIZ4SOcMz9CPVNPk",
    "staging api key: Zq8NWv1rT5yLmP0aXcB7dE3fG9hJ2kL4mN6pQ8rS",
    "the staging deploy uses abbysale API key tBMqRH2OTPSk8w50ShNnAUynsPgVPbhALa8sZHMK for auth",
    "the staging deploy uses zorblat API key tBMqRH2OTPSk8w50ShNnAUynsPgVPbhALa8sZHMK for auth",
    "deploy user secret biheyEd7P4zDL+ak6J0kGODKdinZnLXicaBAg8WY",
    "ssh root@10.0.0.4 password clsxHKifxi",
    "the db password is clsxHKifxi",
    "the master key is f4ef27e9589c6948f6d30c01c3f252edc87ff4adfa36d0840164709ab7f3f386",
    "encryption key q0V2Yw8n3kQ+J9zR5uTb7LmX1aP4sD6fG8hJ0kL2mN4=",
    "fernet key cw_0x689RpI-jtRR7oE8h_eQsKImvJapLeSbXpwF4e4=",
    "the TOTP seed is JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP",
    "cookie session=a8Fk2LmQ9xR4tVb7NcW1yZ3pH6sJ0dKe5gUoTi8E",
    "set -x API_TOKEN Zq8NWv1rT5yLmP0aXcB7dE3fG9hJ2kL4mN6pQ8rS",
    "set -gx DB_PASS Vx9kQ2mZ7rT1",
    "export API_TOKEN Zq8NWv1rT5yLmP0aXcB7dE3fG9hJ2kL4mN6pQ8rS",
    "pg_restore -p'Xk9#mQ2vL7pR' -d app",
    "deploy --password clsxHKifxi --env prod",
    "amqp://app:Xk9mQ2vL7pRzW4@rabbit.internal:5672/vhost",
    "rT8sRw4yNb6DjU0gEoWiA5rQtYlVxCzMnBJ+7Fq3vZ/1XmP9Kc2LhT8sRw4yNb6DjU0gEoWi",
    "key line 3: kF3xP9qLm2RtVw8zYc4NbJ7dHs1aG6eUoTi0KlMnBvCx5ZqW/Ry+3Fa9Lp2Oe7Hs==",
]

# What stays allowed: identifiers, digests, public keys, the words in prose,
# placeholders.
ALLOWED = [
    "reverted 3f786850e387550fdab836ed7e6dc881de23001b after the build broke",
    "commit 3f786850e387550fdab836ed7e6dc881de23001b fixed the token refresh",
    "rotated the token for 3f786850e387550fdab836ed7e6dc881de23001b",
    "request id 0c6f1a2e-8d4b-4f5e-9a7c-3b2d1e0f9a8b failed with 503",
    "the session id is 0c6f1a2e-8d4b-4f5e-9a7c-3b2d1e0f9a8b",
    "image pinned to sha256:6a0ac2d3b9f3c8f7d8c1a1c1e0a5f7d1b2c3d4e5f60718293a4b5c6d7e8f9a0b",
    "docker pull ghcr.io/acme/api@sha256:6a0ac2d3b9f3c8f7d8c1a1c1e0a5f7d1b2c3d4e5f6071829"
    "3a4b5c6d7e8f9a0b",
    "the secret lives at arn:aws:secretsmanager:us-east-1:123456789012:secret:prod/db-AbCdEf",
    "KMS key arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab",
    "the token service is at version 2.14.0-rc.1+build.20240102",
    "API key rotation is monthly",
    "the key insight is that the cache is cold",
    "token budget is 200000 per session",
    "the secret sauce is the ranking function",
    "primary key is (tenant_id, created_at)",
    "our primary key f4ef27e9589c6948f6d30c01c3f252edc87ff4adfa36d0840164709ab7f3f386 is "
    "a row hash",
    "the cache key is 9b2f4e6a8c0d2e4f6a8b0c2d4e6f8a0b2c4d6e8f",
    "the API key is stored in /etc/acme/keys/staging.key",
    "export API_KEY=<token> before running",
    "the token is xxxx until the vendor sends one",
    "set the API key to your-api-key-here in the example config",
    "the token comes from ${TOKEN} in CI",
    "the script reads $API_KEY from the environment",
    "the password is *** in the logs",
    "password: changeme is the default of the local compose file",
    "the key header is a2V5LWlkOiBzdGFnaW5nLWRlcGxveS1rZXk= which reads key-id: staging-deploy-key",
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl deploy@ci",
    "the public key is AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl",
    "integrity sha384-oqVuAfXRKap7fdgcCY5uykM6+R9GqQ8K/uxy9rx7HNQlGYl1kPzQho1wx4JwY8wC ok",
    "the password policy requires 12 characters",
    "the password reset link expires after 30 minutes",
    "mysql --user=root --password --host=db",
    "docker run -p'8080:80' nginx",
    "set -x API_TOKEN $API_TOKEN in config.fish",
    "export EDITOR vim",
    "https://registry.npmjs.org:443/@scope/pkg is the tarball's host",
]


def _echoed(value: str, reason: str) -> bool:
    """Does ``reason`` repeat a 6-character piece of ``value``? The fixed
    public text a family shows in parentheses (``ghp_...``,
    ``hooks.slack.com/services/...``, ``AAAA...:APA91b...``) is cut out of
    the value first: it names the provider, it is no part of the secret."""
    shown = re.search(r"\(([^()]*)\)", reason)
    body = value
    for literal in (shown.group(1).split("...") if shown else []):
        if literal.strip():
            body = body.replace(literal, "\0")
    return any(part[i:i + 6] in reason
               for part in body.split("\0") for i in range(len(part) - 5))


@pytest.mark.parametrize("text", REFUSED)
def test_credential_in_a_sentence_is_refused(text):
    reason = find_problem(text)
    assert reason is not None, text
    assert reason.startswith("carries ") and "never the" in reason, reason
    value = max((t for t in text.split() if not t.startswith("-")), key=len)
    value = value.rpartition("=")[2] if "=" in value.rstrip("=") else value
    assert not _echoed(value, reason), reason


@pytest.mark.parametrize("text", ALLOWED)
def test_allowed_example_passes(text):
    assert find_problem(text) is None, (text, find_problem(text))


def load(name: str):
    spec = importlib.util.spec_from_file_location(name, data_file(name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def credential_corpus() -> dict:
    """form -> [(kind, value, sentence)]: every template of the form filled
    with every value (``pem-body`` values for ``continuation``, every other
    kind for the other forms), the provider's name taken in turn."""
    gen = load("make_guard_credentials")
    with open(data_file("guard-credential-values.txt"), encoding="utf-8") as f:
        values = [ln.rstrip("\n").split("\t", 1) for ln in f if not ln.startswith("#")]
    out: dict = {}
    for form, templates in gen.templates().items():
        rows = out.setdefault(form, [])
        for i, template in enumerate(templates):
            for j, (kind, value) in enumerate(values):
                if (kind == "pem-body") == (form == "continuation"):
                    name = gen.PROVIDER_NAMES[(i + j) % len(gen.PROVIDER_NAMES)]
                    rows.append((kind, value, gen.fill(template, value, name)))
    return out


def test_generated_credential_sentences_are_refused_and_never_echoed():
    counts = {}
    echoed = []
    missed: dict = {}
    for form, rows in credential_corpus().items():
        refused = 0
        for _kind, value, text in rows:
            reason = find_problem(text)
            if reason is None:
                missed.setdefault(form, []).append(text)
                continue
            refused += 1
            if _echoed(value, reason):
                echoed.append((text, reason))
        counts[form] = (refused, len(rows))
    summary = "; ".join(f"{form}: {r}/{n} refused ({r / n:.1%})"
                        for form, (r, n) in counts.items())
    assert set(counts) == {"word-then-value", "shell", "continuation"}, summary
    low = [form for form, (r, n) in counts.items() if r < MIN_REFUSED * n]
    assert not low, (summary, {form: missed[form][:10] for form in low})
    assert echoed == [], (summary, echoed[:10])


ALLOWED_CORPORA = ("commit-subjects.txt", "click-history.txt", "guard-allowed.txt")


def test_allowed_corpus_is_never_refused():
    refused = {}
    sizes = {}
    for name in ALLOWED_CORPORA:
        with open(data_file(name), encoding="utf-8") as f:
            lines = [ln.rstrip("\n") for ln in f if ln.strip()]
        sizes[name] = len(lines)
        refused[name] = [(ln, find_problem(ln)) for ln in lines if find_problem(ln)]
    summary = "; ".join(f"{name}: {len(refused[name])} of {sizes[name]} refused"
                        for name in ALLOWED_CORPORA)
    assert sizes["guard-allowed.txt"] >= 1000, summary
    assert all(not r for r in refused.values()), (summary, refused)


def _identifier_lines() -> list:
    """The allowed corpus's hand-written lines and templates that have a slot
    for a commit hash, a UUID or a digest."""
    maker = load("make_guard_allowed")
    lines = maker.lines_of(maker.HAND) + maker.lines_of(maker.TEMPLATES)
    return [ln for ln in lines if re.search(r"%%(?:H40|HS|H8|H12|UUID|SHA256|SHA512)%%", ln)]


IDENTIFIER_LINES = _identifier_lines()


@st.composite
def identifier(draw, slot: str) -> str:
    hexes = "0123456789abcdef"
    n = {"H40": 40, "H8": 8, "H12": 12, "SHA256": 64, "SHA512": 128}.get(slot)
    if slot == "HS":
        n = draw(st.integers(7, 12))
    if slot == "UUID":
        parts = [draw(st.text(hexes, min_size=k, max_size=k)) for k in (8, 4, 4, 4, 12)]
        return "-".join(parts)
    return draw(st.text(hexes, min_size=n, max_size=n))


@settings(max_examples=300)
@given(st.sampled_from(IDENTIFIER_LINES), st.data(), st.integers(0, 2**32))
def test_property_allowed_template_with_random_identifiers_passes(line, data, seed):
    """Any allowed sentence shape, its hash, UUID and digest slots filled
    with random hex (hypothesis draws it), its other slots by the corpus's
    own generator, is never refused."""
    maker = load_maker()

    def slot(m):
        name = m.group(1)
        if name in ("H40", "HS", "H8", "H12", "UUID", "SHA256", "SHA512"):
            return data.draw(identifier(name))
        return m.group(0)

    text = re.sub(r"%%([A-Z0-9]+(?::[^%]*)?)%%", slot, line)
    text = maker.fill(text, maker.Values(seed))
    assert find_problem(text) is None, text


_MAKER = []


def load_maker():
    if not _MAKER:
        _MAKER.append(load("make_guard_allowed"))
    return _MAKER[0]


ALLOWED_LINES = []


def _allowed_lines() -> list:
    if not ALLOWED_LINES:
        for name in ("guard-allowed.txt", "commit-subjects.txt"):
            with open(data_file(name), encoding="utf-8") as f:
                ALLOWED_LINES.extend(ln.rstrip("\n") for ln in f if ln.strip())
    return ALLOWED_LINES


@settings(max_examples=300)
@given(st.data(), st.sampled_from(["commit {}", "sha256:{}", "sha512:{}"]),
       st.integers(0, 10**6))
def test_property_a_named_hash_anywhere_in_an_allowed_line_passes(data, form, pick):
    """A commit hash said to be one ("commit <hash>"), or a digest after its
    algorithm, inserted at any word boundary of any allowed line: never
    refused (the word before the value says what it is)."""
    lines = _allowed_lines()
    words = lines[pick % len(lines)].split(" ")
    n = 40 if form.startswith("commit") else 64 if "256" in form else 128
    value = form.format(data.draw(st.text("0123456789abcdef", min_size=n, max_size=n)))
    at = data.draw(st.integers(0, len(words)))
    text = " ".join(words[:at] + [value] + words[at:])
    assert find_problem(text) is None, text


@pytest.mark.parametrize("text", [
    "commit 000000000000000000000000000000000123456a - anthropic-api-key: detects "
    "sk-ant-api03-... keys",
    "sha256 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef - the key "
    "rotation landed",
    "The opaque page commit 00000000000000000000000000000000262cbb00 token "
    "cGFnZT0zJnNvcnQ9Y3JlYXRlZF9hdA== is base64 of the paging state.",
])
def test_a_named_hash_before_a_dash_and_a_key_word_passes(text):
    """A hash the word before it names ("commit <hash>") is no key written
    before the word "key" ("<v> - the new deploy key"), and stands aside
    between a public name and its word ("page commit <hash> token"): the
    word says what the value is (cases the property test above found)."""
    assert find_problem(text) is None


def test_a_value_before_a_dash_and_a_key_word_is_still_refused():
    assert find_problem("x9Kf2LmQ8vTz4NpR7sWd1YbH6cJe3GuA - the new deploy key") is not None
    assert find_problem("use x9Kf2LmQ8vTz4NpR7sWd1YbH6cJe3GuA - the new deploy key") is not None
