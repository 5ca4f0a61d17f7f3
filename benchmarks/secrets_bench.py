#!/usr/bin/env python3
"""Measure the write guard against an outside secret scanner's rule set.

The rule set is not in this repository: point ``OPTMEM_SCANNER_RULES`` at a
local copy of gitleaks (its checkout, or just its ``config/gitleaks.toml``)::

    git clone https://github.com/gitleaks/gitleaks /tmp/gitleaks
    OPTMEM_SCANNER_RULES=/tmp/gitleaks python benchmarks/secrets_bench.py
    OPTMEM_SCANNER_RULES=/tmp/gitleaks python benchmarks/secrets_bench.py \
        --repo /path/to/other/checkout          # measure another optmem

For every rule it makes samples the way docs/guard.md describes:

* random strings matching the rule's regular expression (a small generator
  over Python's regex parser, seeded, so runs repeat), plus the literal
  true positives found in the rule generator's Go sources
  (``cmd/generate/config/rules/*.go``) when the checkout has them;
* each put in a one-line sentence of at most 280 characters an agent might
  write, in one of three forms:

  - ``alone``: a structured credential (a rule whose expression is not a
    ``name = value`` assignment) standing in a sentence, or a literal true
    positive from the sources;
  - ``named``: the value of an assignment rule given to a name that says
    credential (``DATADOG_KEY=``, ``datadog_api_key:``, ``datadog_secret =``,
    ``DATADOG_TOKEN:``);
  - ``bare``: the same value given to the bare provider name
    (``datadog=<value>``): reported, no target;

* kept only where the scanner itself would flag the sentence: a keyword of
  the rule is in it, the regex matches, the secret's Shannon entropy reaches
  the rule's ``entropy``, and no allowlist regex or stopword (the rule's or
  the global one) lets it pass.

Rules for public identifiers (client ids, user ids, publishable keys) are
left out. It prints refused/total per rule, per form and overall, the goal
lines of docs/guard.md, every secret a refusal message echoed (there should be
none) and the false alarms on the real corpora (``--corpus``, default: the
repository's click history and commit subjects), each line listed.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import re
import string
import sys
import time
from collections import Counter, defaultdict

try:
    import re._constants as C
    import re._parser as sre_parse  # Python 3.11+
except ImportError:  # pragma: no cover - older Pythons
    import sre_constants as C  # type: ignore
    import sre_parse  # type: ignore

try:
    import tomllib
except ImportError:  # pragma: no cover
    tomllib = None

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SEED = 16
MAX_BYTES = 280

#: Rule ids that name public identifiers, not secrets (left out).
PUBLIC = re.compile(r"client-id$|access-id$|user-api-id$|-pub-|public-key$")
#: The operator group of a scanner's ``name = value`` rules.
ASSIGNMENT = r"(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)"

ALONE = (
    "the staging deploy used {} until Monday",
    "found {} in the old CI config, rotated it",
    "note: {} was pasted into the chat",
    "ran the job with {} and it worked",
)
NAMED = ("{P}_KEY={v}", "{P}_API_KEY={v}", "{p}_secret = '{v}'", "{p}_token: {v}",
         '"{p}_api_key": "{v}"', "{P}_SECRET: {v}")
BARE = ("{p}={v}", "{p}: {v}")
SENTENCE = "set {} in the env file for the worker"


# ------------------------------------------------------------ the rule set


def go_to_python(pattern: str) -> tuple:
    """A Go (RE2) pattern as a Python one: (pattern, flags)."""
    flags = 0
    if "(?i)" in pattern:
        flags |= re.IGNORECASE  # Go scopes it to the group; near enough here
        pattern = pattern.replace("(?i)", "")
    pattern = pattern.replace("[[:alnum:]]", "[A-Za-z0-9]").replace("[:alnum:]", "A-Za-z0-9")
    pattern = pattern.replace(r"\z", r"\Z")
    return pattern, flags


def load_rules(path: str) -> tuple:
    """(global allowlist, rules) from gitleaks.toml at ``path`` (a file or a
    checkout that has ``config/gitleaks.toml``)."""
    if os.path.isdir(path):
        path = os.path.join(path, "config", "gitleaks.toml")
    with open(path, "rb") as f:
        cfg = tomllib.load(f)
    rules = []
    for r in cfg["rules"]:
        if "regex" not in r:
            continue  # a path-only rule (pkcs12 files)
        pat, flags = go_to_python(r["regex"])
        try:
            rx = re.compile(pat, flags)
        except re.error as e:
            print(f"skip {r['id']}: {e}", file=sys.stderr)
            continue
        allow = []
        for a in r.get("allowlists", []) + ([r["allowlist"]] if "allowlist" in r else []):
            allow.append({
                "regexes": [re.compile(*go_to_python(x)) for x in a.get("regexes", [])],
                "target": a.get("regexTarget", "secret"),
                "stopwords": [w.lower() for w in a.get("stopwords", [])],
            })
        rules.append({
            "id": r["id"], "pattern": pat, "flags": flags, "rx": rx,
            "keywords": [k.lower() for k in r.get("keywords", [])],
            "entropy": r.get("entropy", 0.0), "group": r.get("secretGroup", 0),
            "allow": allow,
            "assign": ASSIGNMENT in r["regex"],
        })
    g = cfg.get("allowlist", {})
    glob = {"regexes": [re.compile(*go_to_python(x)) for x in g.get("regexes", [])],
            "target": "secret", "stopwords": [w.lower() for w in g.get("stopwords", [])]}
    return glob, rules


def entropy(s: str) -> float:
    if not s:
        return 0.0
    n = len(s)
    return -sum(c / n * math.log2(c / n) for c in Counter(s).values())


def flagged(rule: dict, glob: dict, line: str):
    """The secret the scanner would report in ``line`` for ``rule``, or None."""
    low = line.lower()
    if rule["keywords"] and not any(k in low for k in rule["keywords"]):
        return None
    for m in rule["rx"].finditer(line):
        g = rule["group"] or (1 if m.re.groups else 0)
        secret = m.group(g) if g <= m.re.groups else m.group(0)
        if secret is None:
            secret = next((x for x in m.groups() if x), m.group(0))
        if rule["entropy"] and entropy(secret) < rule["entropy"]:
            continue
        ok = True
        for a in rule["allow"] + [glob]:
            target = {"match": m.group(0), "line": line}.get(a["target"], secret)
            if any(x.search(target) for x in a["regexes"]) or any(
                    w in secret.lower() for w in a["stopwords"]):
                ok = False
                break
        if ok:
            return secret
    return None


# --------------------------------------------------- strings from a pattern

_ALNUM = string.ascii_letters + string.digits


def _category(cat) -> str:
    return {
        C.CATEGORY_DIGIT: string.digits,
        C.CATEGORY_WORD: _ALNUM + "_",
        C.CATEGORY_SPACE: " ",
        C.CATEGORY_NOT_DIGIT: string.ascii_letters,
        C.CATEGORY_NOT_WORD: "-.:/ ",
        C.CATEGORY_NOT_SPACE: _ALNUM,
    }.get(cat, _ALNUM)


def _charset(items) -> str:
    chars = []
    negate = False
    for op, av in items:
        if op is C.NEGATE:
            negate = True
        elif op is C.LITERAL:
            chars.append(chr(av))
        elif op is C.RANGE:
            lo, hi = av
            chars.extend(chr(c) for c in range(lo, min(hi, lo + 200) + 1))
        elif op is C.CATEGORY:
            chars.extend(_category(av))
    if negate:
        pool = _ALNUM + "-_./+="
        return "".join(c for c in pool if c not in chars) or "x"
    printable = [c for c in chars if c.isprintable() and c not in " \t"]
    return "".join(printable or chars)


class Generator:
    """Random strings matching a parsed pattern; records each group's text."""

    def __init__(self, rng: random.Random):
        self.rng = rng

    def run(self, pattern: str, flags: int = 0) -> tuple:
        self.groups = {}
        self.upper = bool(flags & re.IGNORECASE) and False
        out = self._seq(sre_parse.parse(pattern, flags))
        return out, self.groups

    def _seq(self, seq) -> str:
        return "".join(self._node(op, av) for op, av in seq)

    def _count(self, lo, hi) -> int:
        if hi is C.MAXREPEAT or hi > lo + 40:
            hi = lo + (8 if lo < 20 else 0)
        if lo == 0 and hi <= 50 and self.rng.random() < 0.7:
            return 0 if hi > 3 else self.rng.randint(lo, hi)  # prefix junk
        return self.rng.randint(lo, hi)

    def _node(self, op, av) -> str:
        r = self.rng
        if op is C.LITERAL:
            return chr(av)
        if op is C.NOT_LITERAL:
            return r.choice([c for c in _ALNUM if ord(c) != av])
        if op is C.ANY:
            return r.choice(_ALNUM)
        if op is C.IN:
            return r.choice(_charset(av))
        if op is C.BRANCH:
            return self._seq(r.choice(av[1]))
        if op is C.SUBPATTERN:
            gid, _, _, sub = av
            text = self._seq(sub)
            if gid:
                self.groups[gid] = text
            return text
        if op in (C.MAX_REPEAT, C.MIN_REPEAT, getattr(C, "POSSESSIVE_REPEAT", None)):
            lo, hi, sub = av
            return "".join(self._seq(sub) for _ in range(self._count(lo, hi)))
        if op is C.ATOMIC_GROUP if hasattr(C, "ATOMIC_GROUP") else False:
            return self._seq(av)
        if op is C.GROUPREF:
            return self.groups.get(av, "")
        return ""  # AT, ASSERT, ASSERT_NOT, ...


# ------------------------------------------------------------- the samples


def go_literals(root: str) -> dict:
    """{rule file stem: [string literals after ``tps``]} from the generator's
    Go sources (literal true positives), when the checkout has them."""
    out = {}
    base = os.path.join(root, "cmd", "generate", "config", "rules")
    if not os.path.isdir(base):
        return out
    lit = re.compile(r'"((?:[^"\\\n]|\\.)*)"|`([^`]*)`')
    for name in sorted(os.listdir(base)):
        if not name.endswith(".go"):
            continue
        with open(os.path.join(base, name), encoding="utf-8") as f:
            src = f.read()
        found = []
        for block in re.findall(r"tps\s*(?::=|=)[^\n]*?(?:\{|\()(.*?)\n\s*(?:fps|return|\})",
                                src, re.S):
            for m in lit.finditer(block):
                if m.group(1) is not None:
                    try:
                        s = m.group(1).encode().decode("unicode_escape")
                    except UnicodeDecodeError:
                        s = m.group(1)
                else:
                    s = m.group(2)
                found.append(s)
        out[name[:-3]] = found
    return out


def provider_name(rule: dict) -> str:
    """The provider word to assign to: the rule's first keyword that is a
    word (``datadog``), else the id's first part."""
    for k in rule["keywords"]:
        if re.fullmatch(r"[a-z][a-z0-9]{2,}", k):
            return k
    return rule["id"].split("-")[0]


def samples(rule: dict, glob: dict, literals: list, rng: random.Random, per: int = 4):
    """[(form, sentence, secret)] for one rule, each one the scanner flags."""
    gen = Generator(rng)
    out = []
    seen = set()

    def keep(form, line):
        line = " ".join(line.split())
        if len(line.encode()) > MAX_BYTES or line in seen:
            return False
        secret = flagged(rule, glob, line)
        if secret is None:
            return False
        seen.add(line)
        out.append((form, line, secret))
        return True

    for _ in range(per * 6):
        if sum(1 for f, *_ in out if f != "literal") >= per * (3 if rule["assign"] else 1):
            break
        text, groups = gen.run(rule["pattern"], rule["flags"])
        if rule["assign"]:
            v = groups.get(rule["group"] or 1, "")
            p = provider_name(rule)
            if not v:
                continue
            for tpl in rng.sample(NAMED, 2):
                keep("named", SENTENCE.format(tpl.format(p=p, P=p.upper(), v=v)))
            tpl = rng.choice(BARE)
            keep("bare", SENTENCE.format(tpl.format(p=p, v=v)))
        else:
            token = text.strip(" \t'\"`;=\n")
            token = re.sub(r"\\[nr]$", "", token)
            keep("alone", rng.choice(ALONE).format(token))
    for s in literals:
        if rule["rx"].search(s) and flagged(rule, glob, s):
            keep("alone", f"found this in a repo: {s}")
    return out


# ----------------------------------------------------------------- running


def load_guard(repo: str):
    sys.path.insert(0, repo)
    for name in [m for m in sys.modules if m == "optmem" or m.startswith("optmem.")]:
        del sys.modules[name]
    from optmem.guard import text as guard
    return guard


def echoes(message: str, secret: str) -> bool:
    """Does ``message`` hold a 12-character piece of ``secret`` that is not
    part of the fixed prefix it shows (``(ghp_...)``, ``(-----BEGIN ...)``)?"""
    n = 12
    shown = " ".join(re.findall(r"\(([^()]*)\)", message))
    return any(secret[i:i + n] in message and secret[i:i + n] not in shown
               for i in range(0, max(1, len(secret) - n + 1)))


def default_corpora(repo: str) -> list:
    out = []
    for rel in ("tests/data/click-history.txt", "tests/data/commit-subjects.txt"):
        p = os.path.join(repo, rel)
        if os.path.exists(p):
            out.append(p)
    shared = os.path.join(repo, "..", "shared", "data", "click-history.txt")
    if not any(p.endswith("click-history.txt") for p in out) and os.path.exists(shared):
        out.insert(0, shared)
    return out


def corpus_lines(path: str) -> list:
    with open(path, encoding="utf-8") as f:
        return [ln.rstrip("\n") for ln in f if ln.strip()]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rules", default=os.environ.get("OPTMEM_SCANNER_RULES"),
                    help="gitleaks checkout or gitleaks.toml (default: $OPTMEM_SCANNER_RULES)")
    ap.add_argument("--repo", default=ROOT, help="the optmem checkout to measure")
    ap.add_argument("--corpus", action="append", help="a real-text file, one memory a line")
    ap.add_argument("--per", type=int, default=4, help="generated samples per rule and form")
    ap.add_argument("--quiet", action="store_true", help="only the summary lines")
    args = ap.parse_args(argv)
    if not args.rules:
        ap.error("set OPTMEM_SCANNER_RULES to a local copy of the gitleaks repository")
    if tomllib is None:
        ap.error("needs Python 3.11+ (tomllib)")
    guard = load_guard(os.path.abspath(args.repo))
    glob, rules = load_rules(args.rules)
    lits = go_literals(args.rules) if os.path.isdir(args.rules) else {}
    all_lits = [s for v in lits.values() for s in v]
    rng = random.Random(SEED)

    per_rule = {}
    per_form = defaultdict(lambda: [0, 0])
    goal = defaultdict(lambda: [0, 0])
    echoed = []
    left_out = []
    weak = []
    for rule in rules:
        if PUBLIC.search(rule["id"]):
            left_out.append(rule["id"])
            continue
        got = samples(rule, glob, all_lits, rng, args.per)
        refused = 0
        misses = []
        for form, line, secret in got:
            msg = guard.find_problem(line)
            hit = msg is not None
            refused += hit
            per_form[form][0] += hit
            per_form[form][1] += 1
            if form == "alone":
                key = "structured, alone"
            elif form == "named" and len(secret) >= 20 and entropy(secret) >= 3.0:
                key = "named, 20+ chars, high entropy"
            else:
                key = None
            if key:
                goal[key][0] += hit
                goal[key][1] += 1
            if hit and echoes(msg, secret):
                echoed.append((rule["id"], msg))
            if not hit:
                misses.append(line)
        per_rule[rule["id"]] = (refused, len(got), misses)
        core = [(f, ln) for f, ln, _ in got if f != "bare"]
        core_hit = sum(1 for f, ln in core if guard.find_problem(ln) is not None)
        weak.append((core_hit / len(core) if core else 1.0, rule["id"], core_hit, len(core),
                     [ln for f, ln in core if guard.find_problem(ln) is None][:2]))

    if not args.quiet:
        print("rule                                             refused/total")
        for rid, (r, n, misses) in sorted(per_rule.items()):
            print(f"  {rid:<46} {r:>3}/{n:<3}" + ("" if r == n or not misses else
                                                 f"  e.g. {misses[0][:90]}"))
        print(f"left out (public identifiers): {', '.join(left_out)}")
    tot_r = sum(r for r, n, _ in per_rule.values())
    tot_n = sum(n for r, n, _ in per_rule.values())
    full = sum(1 for r, n, _ in per_rule.values() if n and r == n)
    none = sum(1 for r, n, _ in per_rule.values() if n and r == 0)
    rated = sum(1 for r, n, _ in per_rule.values() if n)
    print("== summary ==")
    for form in ("alone", "named", "bare"):
        r, n = per_form[form]
        print(f"form {form:<6} {r}/{n} ({100 * r / max(n, 1):.1f}%)")
    for key, (r, n) in sorted(goal.items()):
        print(f"goal {key}: {r}/{n} ({100 * r / max(n, 1):.1f}%)")
    print(f"overall {tot_r}/{tot_n} ({100 * tot_r / max(tot_n, 1):.1f}%); rules fully refused "
          f"{full} of {rated}, not at all {none}")
    print("weakest rules (alone and named forms):")
    for _ratio, rid, r, n, miss in sorted(weak)[:5]:
        print(f"  {rid}: {r}/{n}" + (f"  e.g. {miss[0][:100]}" if miss else ""))
    print(f"secrets echoed: {len(echoed)}")
    for rid, msg in echoed:
        print(f"  ECHO {rid}: {msg}")
    corpora = args.corpus or default_corpora(os.path.abspath(args.repo))
    for path in corpora:
        lines = corpus_lines(path)
        t0 = time.perf_counter()
        bad = [(i, ln, guard.find_problem(ln)) for i, ln in enumerate(lines, 1)]
        dt = time.perf_counter() - t0
        bad = [b for b in bad if b[2] is not None and not b[2].startswith("contains")]
        print(f"false alarms {os.path.basename(path)}: {len(bad)}/{len(lines)} "
              f"({100 * len(bad) / max(len(lines), 1):.2f}%), "
              f"{1e6 * dt / max(len(lines), 1):.0f} us/line in-process")
        for i, ln, msg in bad:
            print(f"  line {i}: {ln[:120]}  -> {msg[:80]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
