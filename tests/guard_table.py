"""The table of credential families in ``docs/guard.md``, written from code.

One row per family of ``optmem.guard.secrets.FAMILIES``: its id, what it refuses
(the kind its message names), one refused example and one allowed example.
The refused example is the family's generated shape from ``SHAPES`` in
``tests/test_secrets.py`` with each random run written as ``<N x ALPHABET>``
(so the page holds no credential-shaped string; the test fills the runs and
checks the refusal); the allowed example is ``ALLOWED[id]``, or the shape
with each run replaced by the placeholder ``<token>``. ``tests/test_secrets.py``
checks that every allowed example passes the guard and that the page holds
exactly this table. Rewrite the page's table with::

    python tests/guard_table.py
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from optmem.guard import secrets  # noqa: E402

PAGE = HERE.parent / "docs" / "guard.md"
BEGIN = "<!-- the table of families: written by tests/guard_table.py -->"
END = "<!-- end of the table -->"

#: Allowed examples written by hand where the placeholder form of the shape
#: would not say enough (or is itself refused).
ALLOWED = {
    "aws-bedrock-short-key": "bedrock-api-key- tokens expire after 12 hours",
    "pem-private-key": "-----BEGIN RSA PRIVATE KEY----- is the header openssl writes",
    "pem-private-key-end": "the END PRIVATE KEY line closes the block",
    "basic-auth": "Basic auth is off for the API; it takes bearer tokens",
    "registry-auth": '"auth": "" is what docker writes before a login',
    "openssh-private-key": "the key starts with -----BEGIN OPENSSH PRIVATE KEY----- not found",
    "putty-private-key": "PuTTY keys (.ppk) are converted with puttygen",
    "kubernetes-secret": "kind: Secret objects are created by the helm chart, not by hand",
    "seed-phrase": "the seed phrase is on paper in the office safe",
    "assignment": "DATADOG_KEY=<token> in the example env file",
    "sentence-password": "the password policy requires 12 characters",
    "sentence-key": "API key rotation is monthly",
    "sentence-token": "the token budget is 200000 per session",
    "sentence-secret": "the secret lives at arn:aws:secretsmanager:us-east-1:123456789012:"
                       "secret:prod/db-AbCdEf",
    "sentence-cookie": "the session id is 0c6f1a2e-8d4b-4f5e-9a7c-3b2d1e0f9a8b",
    "sentence-seed": "the random seed is 42 for every run",
    "key-continuation": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoq"
                        "KLsabgH5C9okWi0dh2l9GKJl",
    "shell-export": "set -x API_TOKEN $API_TOKEN in config.fish",
    "quoted-p-password": "docker run -p'8080:80' nginx",
    "user-then-password": "twine upload -u __token__ -p $PYPI_TOKEN dist/*",
    "stdin-password": 'echo "$CR_PAT" | docker login ghcr.io -u ci --password-stdin',
    "vault-login": "vault login -method=oidc",
}

_NAMES = {"a": "a-z0-9", "A": "A-Za-z0-9", "U": "A-Z0-9", "h": "hex", "H": "hex",
          "l": "a-z", "L": "A-Za-z", "b": "base64", "u": "url-safe base64",
          "d": "digits", "B": "base32"}


def _cell(text: str) -> str:
    return "`" + text.replace("|", "\\|").replace("`", "'") + "`"


def shapes() -> dict:
    from test_secrets import SHAPES

    return SHAPES


def refused_example(shape: str) -> str:
    """``ghp_{A:36}`` -> ``ghp_<36 x A-Za-z0-9>``."""
    return re.sub(r"\{(\w):(\d+)\}", lambda m: f"<{m.group(2)} x {_NAMES[m.group(1)]}>", shape)


def allowed_example(fid: str, shape: str) -> str:
    """``ALLOWED[fid]``, or the shape with each run a ``<token>`` placeholder."""
    return ALLOWED.get(fid) or re.sub(r"\{(\w):(\d+)\}", "<token>", shape)


def render() -> str:
    """The table (Markdown), one row per family in table order."""
    rows = ["| family | what it refuses | refused (random runs shown as <N x alphabet>) "
            "| allowed |", "| --- | --- | --- | --- |"]
    table = shapes()
    for fam in secrets.FAMILIES:
        _, shape = table[fam.id]
        rows.append(f"| `{fam.id}` | {fam.kind} | {_cell(refused_example(shape))} | "
                    f"{_cell(allowed_example(fam.id, shape))} |")
    return "\n".join(rows) + "\n"


def page_table(text: str) -> str:
    """The table part of the page ``text`` (between the markers)."""
    return text.split(BEGIN + "\n", 1)[1].split(END, 1)[0]


def main() -> int:
    text = PAGE.read_text(encoding="utf-8")
    head, rest = text.split(BEGIN + "\n", 1)
    _, tail = rest.split(END, 1)
    PAGE.write_text(head + BEGIN + "\n" + render() + END + tail, encoding="utf-8")
    print(f"{PAGE}: {len(secrets.FAMILIES)} families")
    return 0


if __name__ == "__main__":
    sys.exit(main())
