"""Merging two replicas of one log: pure functions, no I/O (docs/machines.md).

A *record* is ``(date, text)``: the ``YYYY-MM-DD`` date and the text of one
``LOG.txt`` record as decoded (no id: an id is a position). Two records are
the same memory when their ``merge_key`` is equal: the date and the text's
NFC form as UTF-8, so a text typed on macOS (NFD) and on Linux (NFC) is one
memory.

``plan_merge(ours, theirs)`` computes the merged log:

1. ``P`` = the longest prefix of records equal on both sides (same bytes).
2. After ``P`` each side's suffix is a chain of order constraints. The two
   suffixes are aligned by a longest common subsequence of their keys, so a
   text repeated on one side is matched where the orders agree, never by
   occurrence number, which would invent cycles (``[a, b]`` against
   ``[b, a, b]``). When the alignment cannot pair every memory both sides
   hold, the orders conflict somewhere, and repeated texts are matched by
   occurrence number instead (so merging the result with either side again
   finds the same groups and changes nothing). What is left over is a
   side's own record: a memory one side holds ``n`` times and the other
   ``m`` times is there ``max(n, m)`` times (a multiset union).
3. The union of both chains is emitted in canonical topological order:
   Kahn's algorithm, always taking the free record with the smallest
   ``(date, text bytes)`` first. Where the two sides hold the same memories
   in opposite orders the constraints form a cycle; each strongly connected
   component is emitted whole, its members in key order.
4. Both orientations are computed and the smaller result (as a list of
   ``(date, text bytes)``) is taken, so ``plan_merge(a, b)`` and
   ``plan_merge(b, a)`` give the same records byte for byte. The merged
   records after ``P`` are written in NFC, so a memory the two sides hold
   with different bytes (NFC against NFD) comes out one way.

Dates stay non-decreasing when both inputs' are: a record is only ever held
back by a record of no later date, and a cycle only forms within one date.

Redactions travel as *tombstones*: ``tombstone(record, salt)`` is the text
``[redacted <salt>:<hash>]`` where the hash is a deliberately slow salted
hash (scrypt, else PBKDF2) of the record's ``merge_key``.
``apply_tombstones`` turns every record the other side redacted into that
side's tombstone before the merge, so a redacted text never comes back. A
leaked log lets someone confirm a guess at a redacted text only at the
price of one slow hash per guess (per salt); there is no cheap dictionary.
"""

from __future__ import annotations

import base64
import bisect
import hashlib
import heapq
import re
from collections import Counter, deque
from typing import NamedTuple, Optional

from optmem.textform import nfc

#: A record as decoded from the log: ``(date "YYYY-MM-DD", text str)``.
Record = tuple

#: The text a redaction made before tombstones existed (no hash).
PLAIN_REDACTED = "[redacted]"
#: Bytes of a salt (``tombstone``); a salt is made by the caller (``os.urandom``).
SALT_BYTES = 16
#: Bytes of a tombstone's hash.
HASH_BYTES = 16
_B64 = r"[A-Za-z0-9_-]{22}"  # 16 bytes, base64url without padding
#: ``[redacted SALT:HASH]`` (scrypt), or ``[redacted pbkdf2 SALT:HASH]``
#: from a Python whose hashlib has no scrypt.
_TOMBSTONE = re.compile(r"\[redacted (?:(pbkdf2) )?(" + _B64 + "):(" + _B64 + r")\]")
#: scrypt's cost: 2**14 * 8 * 128 bytes = 16 MiB, and 40-70 ms per hash on
#: a loaded 2-core machine (``slow_hash``; fixed: a tombstone made with other
#: parameters would never match).
_SCRYPT = {"n": 1 << 14, "r": 8, "p": 1, "maxmem": 64 << 20}
#: Most pairs of equal records (over both suffixes) the alignment looks at;
#: past it (hundreds of one text on one date on both sides) repeated texts
#: are matched by occurrence. 100,000 pairs take about a tenth of a second,
#: so a merge's planning stays within seconds whatever the texts.
_MAX_PAIRS = 100_000
#: Most slow hashes (``slow_hash``, tens of milliseconds each) one
#: ``apply_tombstones`` computes unless its caller allows more: a minute or
#: less of hashing.
MAX_SLOW_HASHES = 600


class TooManyHashes(ValueError):
    """``apply_tombstones`` would compute ``needed`` slow hashes, more than
    allowed; nothing was hashed."""

    def __init__(self, needed: int, stones: int):
        super().__init__(f"{needed} slow hashes for {stones} tombstones")
        self.needed = needed
        self.stones = stones
#: PBKDF2-HMAC-SHA256 iterations where hashlib has no scrypt: about 100 ms
#: a hash on the same machine (fixed too).
_PBKDF2_ROUNDS = 200_000


class Plan(NamedTuple):
    """What merging ``theirs`` into ``ours`` gives (``plan_merge``).

    ``records``: the merged log, a list of ``(date, text)``.
    ``prefix``: ``P``, how many leading records both sides hold byte for
    byte (ids below ``P`` never change).
    ``fast_forward``: ``"same"`` (the two logs are equal), ``"ours"`` (the
    merged log is ours exactly: nothing to write), ``"theirs"`` (the merged
    log is theirs exactly, as when ours is a prefix of theirs: every summary
    of theirs applies), or None.
    ``added``: the 0-based positions in ``records`` of the records ours
    lacked, ascending.
    ``renumbered``: how many of our records at or after ``P`` changed position.
    ``missing_ours``: how many records of theirs ours lacked (a multiset
    count; ``len(added)``).
    """

    records: list
    prefix: int
    fast_forward: Optional[str]
    added: list
    renumbered: int
    missing_ours: int


def merge_key(record) -> tuple:
    """``(date, NFC(text) as UTF-8 bytes)``: equal for the same memory on
    every machine. ``record`` is ``(date, text)``; never raises for str parts."""
    date, text = record
    return (date, nfc(text).encode("utf-8", "surrogatepass"))


def _bytes(record) -> tuple:
    """``(date, text as UTF-8)``: the order results are compared in."""
    return (record[0], record[1].encode("utf-8", "surrogatepass"))


def related(ours, theirs) -> bool:
    """True when the two logs share at least one memory (by ``merge_key``),
    or either is empty: two logs with memories and none in common are
    likely two identities, which a merge refuses unless asked."""
    if not ours or not theirs:
        return True
    keys = {merge_key(r) for r in ours}
    return any(merge_key(r) in keys for r in theirs)


def common_prefix(ours, theirs) -> int:
    """How many leading records are equal on both sides (exact strings)."""
    n = min(len(ours), len(theirs))
    i = 0
    while i < n and ours[i] == theirs[i]:
        i += 1
    return i


def _lcs_pairs(ka: list, kb: list) -> list:
    """A longest common subsequence of two key lists as ``[(i, j), ...]``,
    both ascending (Hunt-Szymanski: ``O(r log n)`` for ``r`` equal pairs)."""
    where = {}
    for j, k in enumerate(kb):
        where.setdefault(k, []).append(j)
    tails = []  # tails[L]: smallest end j of a common subsequence of length L+1
    ends = []   # ends[L]: the link of that subsequence's last pair
    for i, k in enumerate(ka):
        js = where.get(k)
        if not js:
            continue
        for j in reversed(js):
            at = bisect.bisect_left(tails, j)
            link = (i, j, ends[at - 1] if at else None)
            if at == len(tails):
                tails.append(j)
                ends.append(link)
            else:
                tails[at] = j
                ends[at] = link
    out = []
    link = ends[-1] if ends else None
    while link is not None:
        out.append((link[0], link[1]))
        link = link[2]
    out.reverse()
    return out


def _sccs(n: int, succ: list) -> list:
    """Strongly connected components of a graph on ``0 .. n-1`` (Tarjan,
    iterative): a list of lists of nodes, one per component."""
    index = [-1] * n
    low = [0] * n
    on = [False] * n
    stack = []
    out = []
    counter = 0
    for root in range(n):
        if index[root] >= 0:
            continue
        work = [(root, 0)]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on[root] = True
        while work:
            v, k = work[-1]
            if k < len(succ[v]):
                work[-1] = (v, k + 1)
                w = succ[v][k]
                if index[w] < 0:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on[w] = True
                    work.append((w, 0))
                elif on[w]:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                u = work[-1][0]
                low[u] = min(low[u], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on[w] = False
                    comp.append(w)
                    if w == v:
                        break
                out.append(comp)
    return out


def _merge_suffixes(sa: list, sb: list) -> list:
    """The merged suffix as ``[(record, ia, ib), ...]``: ``ia``/``ib`` the
    record's index in ``sa``/``sb`` (None where that side lacks it)."""
    ka = [merge_key(r) for r in sa]
    kb = [merge_key(r) for r in sb]
    node_a = [-1] * len(sa)
    node_b = [-1] * len(sb)
    nodes = []  # (ia, ib)
    ca, cb = Counter(ka), Counter(kb)
    if sum(n * cb[k] for k, n in ca.items()) > _MAX_PAIRS:
        pairs = []  # thousands of one text on one date on both sides: by occurrence
    else:
        pairs = _lcs_pairs(ka, kb)
        if len(pairs) < sum(min(n, cb[k]) for k, n in ca.items()):
            pairs = []  # the two orders conflict: match by occurrence (below)
    for i, j in pairs:
        node_a[i] = node_b[j] = len(nodes)
        nodes.append((i, j))
    # What the alignment left over (everything, when matching by occurrence):
    # paired key by key, in order; a record with no partner is one side's own.
    left = {}
    for j, k in enumerate(kb):
        if node_b[j] < 0:
            left.setdefault(k, deque()).append(j)
    for i, k in enumerate(ka):
        if node_a[i] < 0:
            js = left.get(k)
            if js:
                j = js.popleft()
                node_a[i] = node_b[j] = len(nodes)
                nodes.append((i, j))
            else:
                node_a[i] = len(nodes)
                nodes.append((i, None))
    for j in range(len(sb)):
        if node_b[j] < 0:
            node_b[j] = len(nodes)
            nodes.append((None, j))
    n = len(nodes)
    succ = [[] for _ in range(n)]
    for chain in (node_a, node_b):
        for x, y in zip(chain, chain[1:]):
            succ[x].append(y)

    def record(v):
        ia, ib = nodes[v]
        date, text = sa[ia] if ia is not None else sb[ib]
        return (date, nfc(text))  # one spelling on every machine: NFC

    recs = [record(v) for v in range(n)]
    order = [(ka[nodes[v][0]] if nodes[v][0] is not None else kb[nodes[v][1]],
              _bytes(recs[v])[1], v) for v in range(n)]
    comps = _sccs(n, succ)
    comp_of = [0] * n
    for c, members in enumerate(comps):
        members.sort(key=order.__getitem__)
        for v in members:
            comp_of[v] = c
    indeg = [0] * len(comps)
    csucc = [set() for _ in comps]
    for v in range(n):
        for w in succ[v]:
            a, b = comp_of[v], comp_of[w]
            if a != b and b not in csucc[a]:
                csucc[a].add(b)
                indeg[b] += 1
    heap = [(order[comps[c][0]], c) for c in range(len(comps)) if indeg[c] == 0]
    heapq.heapify(heap)
    out = []
    while heap:
        _, c = heapq.heappop(heap)
        for v in comps[c]:
            out.append((recs[v], nodes[v][0], nodes[v][1]))
        for d in csucc[c]:
            indeg[d] -= 1
            if indeg[d] == 0:
                heapq.heappush(heap, (order[comps[d][0]], d))
    return out


def _repeats(keys) -> bool:
    seen = set()
    for k in keys:
        if k in seen:
            return True
        seen.add(k)
    return False


def plan_merge(ours, theirs) -> Plan:
    """Merge two logs (lists of ``(date, text)``); pure, never raises for
    well-formed records. Tombstones are not applied here: call
    ``apply_tombstones`` first. The result holds every record of both
    sides as a multiset union by ``merge_key``, keeps each side's order
    where the two agree, and is the same for ``(ours, theirs)`` and
    ``(theirs, ours)``. See the module docstring for the rule."""
    ours = list(ours)
    theirs = list(theirs)
    P = common_prefix(ours, theirs)
    if P == len(ours) == len(theirs):
        return Plan(ours, P, "same", [], 0, 0)
    if P == len(ours):
        return Plan(theirs, P, "theirs", list(range(P, len(theirs))), 0, len(theirs) - P)
    if P == len(theirs):
        return Plan(ours, P, "ours", [], 0, 0)
    sa, sb = ours[P:], theirs[P:]
    merged = _merge_suffixes(sa, sb)
    ka = [merge_key(r) for r in sa]
    kb = [merge_key(r) for r in sb]
    if _repeats(ka) or _repeats(kb):
        # A repeated text can be matched more than one way; the other
        # orientation may match it otherwise, so take the smaller result.
        # (With every text once per side the matching is forced, and both
        # orientations give the same records.)
        other = [(r, ia, ib) for r, ib, ia in _merge_suffixes(sb, sa)]
        if [_bytes(r) for r, _, _ in other] < [_bytes(r) for r, _, _ in merged]:
            merged = other
    records = ours[:P] + [r for r, _, _ in merged]
    added = [P + k for k, (_, ia, _) in enumerate(merged) if ia is None]
    renumbered = sum(1 for k, (_, ia, _) in enumerate(merged) if ia is not None and ia != k)
    if records == ours:
        ff = "ours"
    elif records == theirs:
        ff = "theirs"
    else:
        ff = None
    return Plan(records, P, ff, added, renumbered, len(added))


# --- summaries -------------------------------------------------------------

def pick_summary(a: str, b: str) -> str:
    """Of two summaries of the same block, the one with fewer UTF-8 bytes,
    ties by byte order: the same choice on every machine."""
    ea, eb = a.encode("utf-8", "surrogatepass"), b.encode("utf-8", "surrogatepass")
    return a if (len(ea), ea) <= (len(eb), eb) else b


def reusable_summaries(records, sources, sizes=None) -> dict:
    """The summaries of the merged log that can be kept without a new
    compression: ``{(lo, hi): text}`` with ``(lo, hi)`` a half-open block
    of 0-based record positions (as ``optmem.blocks`` and ``Store.summary``).

    ``records``: the merged log (``(date, text)`` list). ``sources``: a list
    of ``(source_records, built)``, ``built`` a mapping ``{(lo, hi): text}``
    of the blocks that source has built, and ``source_records`` the records
    those summaries were built over, as that source holds them (before
    ``apply_tombstones``: a summary over a text a tombstone now hides must
    not be kept). Pass both sides even when the logs are the same, so the
    two machines' words are reconciled. ``sizes``: the block sizes to
    consider (2, 4, 8, ...; default every size with a block in
    ``records``). A block is kept when some source has it built over
    exactly the same records at the same positions, and (size > 2) both its
    halves are kept; each level is kept from its start as far as it goes
    without a gap (a level file is a dense prefix). Where two sources built
    the block with different words, ``pick_summary`` decides.
    """
    T = len(records)
    if sizes is None:
        sizes = []
        s = 2
        while s <= T:
            sizes.append(s)
            s *= 2
    sources = [(list(src), built) for src, built in sources]
    same = [common_prefix(records, src) for src, _ in sources]
    out = {}
    for size in sorted(sizes):
        if size < 2 or size & (size - 1):
            continue
        for lo in range(0, T - T % size, size):
            hi = lo + size
            if size > 2:
                mid = lo + size // 2
                if (lo, mid) not in out or (mid, hi) not in out:
                    break
            text = None
            for (src, built), n in zip(sources, same):
                if hi > len(src) or not (hi <= n or src[lo:hi] == records[lo:hi]):
                    continue
                if (lo, hi) in built:  # asked only over the same records
                    found = built[(lo, hi)]
                    text = found if text is None else pick_summary(text, found)
            if text is None:
                break
            out[(lo, hi)] = text
    return out


# --- tombstones ------------------------------------------------------------

def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def slow_hash(record, salt: bytes, scheme: str = "scrypt") -> bytes:
    """``HASH_BYTES`` bytes: a deliberately slow salted hash of the record's
    ``merge_key``, the bytes ``YYYY-MM-DD <NFC text as UTF-8>``.

    ``scheme`` ``"scrypt"``: scrypt with N = 2**14, r = 8, p = 1 (16 MiB,
    tens of milliseconds); ``"pbkdf2"``: PBKDF2-HMAC-SHA256 with
    ``_PBKDF2_ROUNDS`` rounds, what a Python without scrypt writes. Raises
    ``MemoError`` (one line) for scrypt on a Python whose hashlib lacks it:
    a redaction made elsewhere cannot be matched here, so nothing may be
    merged."""
    date, text = merge_key(record)
    data = date.encode("ascii", "surrogateescape") + b" " + text
    if scheme == "pbkdf2":
        return hashlib.pbkdf2_hmac("sha256", data, salt, _PBKDF2_ROUNDS, dklen=HASH_BYTES)
    if not hasattr(hashlib, "scrypt"):
        from optmem.errors import MemoError
        raise MemoError("this Python's hashlib has no scrypt (it comes with OpenSSL 1.1 or "
                        "later), which a redaction's tombstone from another machine needs to "
                        "be matched; nothing was changed. A person runs memo with a Python "
                        "built with OpenSSL 1.1 or later")
    return hashlib.scrypt(data, salt=salt, dklen=HASH_BYTES, **_SCRYPT)


def tombstone(record, salt: bytes) -> str:
    """The text a redaction leaves: ``[redacted <salt>:<hash>]`` (56 ASCII
    bytes; ``[redacted pbkdf2 <salt>:<hash>]``, 63, on a Python without
    scrypt), naming the memory by ``slow_hash`` without revealing it. Salt
    and hash are base64url without padding. The salt travels in the text,
    so a lone log is enough to match it. ``salt`` must be ``SALT_BYTES``
    bytes (``ValueError`` otherwise)."""
    if len(salt) != SALT_BYTES:
        raise ValueError(f"a tombstone's salt is {SALT_BYTES} bytes, not {len(salt)}")
    if hasattr(hashlib, "scrypt"):
        return f"[redacted {_b64(salt)}:{_b64(slow_hash(record, salt))}]"
    return f"[redacted pbkdf2 {_b64(salt)}:{_b64(slow_hash(record, salt, 'pbkdf2'))}]"


def _parse(text: str):
    """``(scheme, salt, hash)`` of a tombstone text, or None."""
    m = _TOMBSTONE.fullmatch(text)
    if m is None:
        return None
    return m.group(1) or "scrypt", _unb64(m.group(2)), _unb64(m.group(3))


def parse_tombstone(text: str):
    """``(salt, hash)`` (bytes) of a tombstone text, or None (for any other
    text, the plain ``[redacted]`` included)."""
    parsed = _parse(text)
    return None if parsed is None else parsed[1:]


def is_redacted(text: str) -> bool:
    """True for a text a redaction left: ``[redacted]`` or a tombstone."""
    return text == PLAIN_REDACTED or (text.startswith("[redacted ") and parse_tombstone(text) is not None)


def _neighbours_agree(x: list, y: list, i: int) -> bool:
    """Both logs hold the same memory before position ``i`` (or ``i`` is 0)
    and after it (or one of them ends at ``i``)."""
    if i > 0 and merge_key(x[i - 1]) != merge_key(y[i - 1]):
        return False
    if i + 1 < len(x) and i + 1 < len(y) and merge_key(x[i + 1]) != merge_key(y[i + 1]):
        return False
    return True


def apply_tombstones(ours, theirs, max_hashes: int | None = None) -> tuple:
    """Both sides' redactions applied to both: ``(ours', theirs', killed)``.

    ``max_hashes``: the most slow hashes to compute (None: no limit); when
    more would be needed, ``TooManyHashes`` is raised before any is.

    A record on one side becomes the other side's tombstone record when it
    has the tombstone's date and its ``slow_hash`` under the tombstone's
    salt matches. Only records that side holds more often than the
    tombstone's side does are hashed (the redacted memory is one the
    tombstone's side no longer holds), and only those of the tombstone's
    date, so a merge pays one slow hash per such record and salt, not one
    per record; a tombstone the other side already holds is taken as
    applied there. A plain ``[redacted]`` (no hash) on one side blanks the
    record at the same position on the other when it has the same date and
    both logs agree on the records around it; that record becomes
    ``[redacted]`` too. ``killed`` lists ``(side, position)`` of every record
    changed, ``side`` ``"ours"`` or ``"theirs"``, position 0-based in that
    list, ascending; whether a blanked record was matched by hash or only
    by position shows in its new text (a tombstone, or ``[redacted]``: the
    latter is for a person to confirm). The lists keep their lengths.
    """
    before = [list(ours), list(theirs)]
    names = ("ours", "theirs")
    found = {}  # (side, position) -> the tombstone record it becomes
    cache = {}
    # Both directions are decided on the logs as given, so the outcome does
    # not depend on which side is "ours". First what is to be hashed (so the
    # cost is known before any slow hash), then the hashing.
    work = []
    for s in (0, 1):
        src, dst = before[s], before[1 - s]
        stones = {r for r in src if r[1].startswith("[redacted ")} - set(dst)
        stones = [(r, _parse(r[1])) for r in sorted(stones)]
        stones = [(r, parsed) for r, parsed in stones if parsed is not None]
        if not stones:
            continue
        extra = Counter(map(merge_key, dst)) - Counter(map(merge_key, src))
        by_date = {}
        for j, cand in enumerate(dst):
            if not is_redacted(cand[1]):
                k = merge_key(cand)
                if extra[k]:
                    by_date.setdefault(cand[0], []).append((j, cand, k))
        for rec, parsed in stones:
            work.append((s, rec, parsed, by_date.get(rec[0], [])))
    needed = {(parsed[0], parsed[1], k) for _, _, parsed, cands in work for _, _, k in cands}
    if max_hashes is not None and len(needed) > max_hashes:
        raise TooManyHashes(len(needed), len(work))
    for s, rec, (scheme, salt, digest), cands in work:
        for j, cand, k in cands:
            if (scheme, salt, k) not in cache:
                cache[(scheme, salt, k)] = slow_hash(cand, salt, scheme)
            if cache[(scheme, salt, k)] == digest:
                at = (1 - s, j)
                found[at] = min(found.get(at, rec), rec)  # two salts: the smaller text
    hashed = [list(side) for side in before]
    for (side, j), rec in found.items():
        hashed[side][j] = rec
    for s in (0, 1):
        src, dst = hashed[s], hashed[1 - s]
        for i, rec in enumerate(src):
            if rec[1] != PLAIN_REDACTED or i >= len(dst):
                continue
            cand = dst[i]
            if cand[0] == rec[0] and not is_redacted(cand[1]) and _neighbours_agree(src, dst, i):
                found[(1 - s, i)] = (cand[0], PLAIN_REDACTED)
    sides = [list(side) for side in before]
    for (side, j), rec in found.items():
        sides[side][j] = rec
    killed = [(names[side], j) for side, j in found]
    killed.sort(key=lambda k: (names.index(k[0]), k[1]))
    return sides[0], sides[1], killed
