"""The file formats ``memo setup`` edits, as pure functions over bytes
(docs/harness.md): a managed block in a text file (``md_*``), a hook entry
in a JSON settings file kept as written (``json_*``: indent, key order,
numbers), an MCP client's server entry (``mcp_*``), ``NAME=value`` lines
(``dotenv_*``); and ``Edit``, which ties one rule to one file.
``optmem.harness.edit`` plans and applies them."""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from typing import Callable, Optional

from optmem.errors import MemoError
from optmem.harness import agent_block


class Refused(MemoError):
    """A target cannot be edited safely; nothing was written."""


# -- text files: the managed block ------------------------------------------

BOM = b"\xef\xbb\xbf"


def _decode(data: bytes, path: str) -> tuple:
    """``(bom, text, newline)`` of a text file's bytes: the BOM (``b""`` or
    UTF-8's), the text after it, and its line end (``"\\r\\n"`` when most
    lines end so, else ``"\\n"``). Raises ``Refused`` for non-UTF-8 bytes."""
    bom = BOM if data.startswith(BOM) else b""
    try:
        text = data[len(bom):].decode("utf-8")
    except UnicodeDecodeError:
        raise Refused(f"{path} is not UTF-8 text; memo setup leaves it alone. Add the "
                      f"agent block by hand (AGENTS.snippet.md)") from None
    crlf = text.count("\r\n")
    newline = "\r\n" if crlf and crlf >= text.count("\n") - crlf else "\n"
    return bom, text, newline


def _markers(lines: list, path: str) -> Optional[tuple]:
    """``(begin, end)`` line indexes of the one managed block, or None.
    Raises ``Refused`` for markers that do not make one block."""
    begins = [i for i, line in enumerate(lines) if line.strip().startswith("<!-- optmem:begin")]
    ends = [i for i, line in enumerate(lines) if line.strip() == agent_block.END]
    if not begins and not ends:
        return None
    if len(begins) != 1 or len(ends) != 1 or ends[0] < begins[0]:
        raise Refused(f"{path} has {len(begins)} optmem:begin and {len(ends)} optmem:end "
                      f"lines, not one block; fix them by hand so one begin line comes "
                      f"before one end line (or delete both), then run memo setup again")
    return begins[0], ends[0]


def _legacy(lines: list, path: str) -> Optional[tuple]:
    """``(first, last)`` line indexes (inclusive) of a hand-pasted agent
    block: the markdown section (its heading up to the next heading of the
    same or a higher level, trailing blank lines left out) that holds one of
    ``agent_block.LEGACY_MARKS``. None when there is none."""
    for i, line in enumerate(lines):  # noqa: B007 - read after the break
        if any(mark in line for mark in agent_block.LEGACY_MARKS):
            break
    else:
        return None
    head = next((j for j in range(i, -1, -1) if lines[j].startswith("#")), None)
    if head is None:
        raise Refused(f"{path} line {i + 1} holds a hand-pasted memo block without a "
                      f"heading above it, so memo setup cannot tell where it ends; delete "
                      f"it (memo setup writes its own), then run memo setup again")
    level = len(lines[head]) - len(lines[head].lstrip("#"))
    last = len(lines) - 1
    for j in range(i + 1, len(lines)):
        m = re.match(r"(#+)\s", lines[j])
        if m and len(m.group(1)) <= level:
            last = j - 1
            break
    while last > head and not lines[last].strip():
        last -= 1
    return head, last


def md_state(data: Optional[bytes], path: str) -> str:
    """``"absent"``, ``"current"`` (our block, this wording), ``"stale"``
    (our markers, other wording) or ``"legacy"`` (a hand-pasted block)."""
    if not data:
        return "absent"
    _, text, newline = _decode(data, path)
    lines = text.splitlines(keepends=True)
    pair = _markers(lines, path)
    if pair:
        mine = agent_block.block().replace("\n", newline)
        got = "".join(lines[pair[0]:pair[1] + 1])
        return "current" if got.rstrip("\r\n") == mine.rstrip("\r\n") else "stale"
    return "legacy" if _legacy(lines, path) else "absent"


def md_install(data: Optional[bytes], path: str) -> bytes:
    """The file with the agent block in it: our block's lines replaced in
    place, else a hand-pasted block replaced, else the block appended after
    a blank line. A new file is the block alone."""
    bom, text, newline = _decode(data or b"", path)
    block = agent_block.block().replace("\n", newline)
    lines = text.splitlines(keepends=True)
    span = _markers(lines, path) or _legacy(lines, path)
    if span:
        first, last = span
        tail = lines[last]
        if not tail.endswith("\n"):  # the block ended the file without a newline
            block = block[:-len(newline)]
        lines[first:last + 1] = [block]
        new = "".join(lines)
    else:
        new = text
        if new and not new.endswith("\n"):
            new += newline
        if new.strip() and not new.endswith(newline + newline):
            new += newline
        new += block
    return bom + new.encode("utf-8")


def md_uninstall(data: Optional[bytes], path: str) -> Optional[bytes]:
    """The file without our marked block (and the blank line that set it
    off at the end). A hand-pasted block is left alone. ``None`` (remove the
    file) when nothing but the block was in it."""
    if data is None:
        return None
    bom, text, newline = _decode(data, path)
    lines = text.splitlines(keepends=True)
    pair = _markers(lines, path)
    if not pair:
        return data
    first, last = pair
    del lines[first:last + 1]
    if first == len(lines) and first > 0 and not lines[first - 1].strip():
        del lines[first - 1]  # the blank line setup put before an appended block
    new = "".join(lines)
    if not new.strip() and not bom:
        return None
    return bom + new.encode("utf-8")


# -- JSON settings files: our hook entry ------------------------------------

#: A hook handler is ours when its command runs memo's session-start (or
#: session-end) hook
#: (whichever path or launcher it names): that is how an old entry with a
#: stale path is found and replaced, with no private key in the handler
#: (the Claude Code schema forbids unknown handler keys).
OURS = re.compile(r"(memo|optmem)\S*['\"]?\s.*\bhook\s+session-(?:start|end)\b")


def is_ours(handler) -> bool:
    """Whether a hook handler object is one ``memo setup`` writes."""
    return isinstance(handler, dict) and bool(OURS.search(str(handler.get("command", ""))))


class RawNumber:
    """A JSON number kept exactly as the file wrote it (``text``), so a
    rewrite never changes it: ``1e400`` stays ``1e400`` (not ``Infinity``),
    ``1.50`` stays ``1.50``, ``-0`` stays ``-0``. Integers that print back
    as written stay plain ``int``s; every float is one of these."""
    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text

    def __eq__(self, other):
        return isinstance(other, RawNumber) and other.text == self.text

    def __hash__(self):
        return hash(self.text)

    def __repr__(self):
        return self.text


class _NotStrict(ValueError):
    """A JSON text Python would read but another reader would not read alike."""


def _pairs(pairs: list) -> dict:
    """``object_pairs_hook``: an object, refusing a key written twice (readers
    disagree on which value wins, and a rewrite would keep only one)."""
    obj = {}
    for key, value in pairs:
        if key in obj:
            shown = key if len(key) <= 40 else key[:39] + "\u2026"
            raise _NotStrict(f"the key {json.dumps(shown, ensure_ascii=False)} appears twice "
                             f"in one object")
        obj[key] = value
    return obj


def _constant(name: str):
    """``parse_constant``: ``NaN``, ``Infinity`` and ``-Infinity`` are not JSON."""
    raise _NotStrict(f"{name} is not a JSON number")


def _int(text: str):
    """``parse_int``: an ``int``, unless printing it back would change it
    (``-0``) or the number is too long for Python to convert."""
    if len(text) > 4000:
        return RawNumber(text)
    value = int(text)
    return value if str(value) == text else RawNumber(text)


def json_load(data: Optional[bytes], path: str) -> tuple:
    """``(object, layout)`` of a JSON settings file; a missing or blank file
    is ``{}``. ``layout`` (BOM, indent, line end, final newline) is what
    ``json_dump`` needs to write it back alike. Numbers are kept as written
    (``RawNumber``). Raises ``Refused`` for a file that is not one strict
    JSON object, or whose values would not come back as they are: a key
    twice in one object, ``NaN`` or ``Infinity``, a string that is not
    Unicode text (a lone surrogate escape), nesting too deep to read."""
    raw = data or b""
    bom = BOM if raw.startswith(BOM) else b""
    try:
        text = raw[len(bom):].decode("utf-8")
        obj = json.loads(text, object_pairs_hook=_pairs, parse_float=RawNumber,
                         parse_int=_int, parse_constant=_constant) if text.strip() else {}
        _text(obj, None).encode("utf-8")
    except RecursionError:
        raise Refused(f"{path} is nested too deeply for memo setup to read; memo setup does "
                      f"not rewrite it. Fix it, or add the entry by hand, then run memo setup "
                      f"again") from None
    except (UnicodeError, ValueError) as err:
        why = ("a string holds a lone surrogate" if isinstance(err, UnicodeEncodeError)
               else str(err))
        raise Refused(f"{path} is not strict JSON ({why}); memo setup does not rewrite "
                      f"it. Fix it, or add the entry by hand (memo setup --dry-run on a "
                      f"copy shows it), then run memo setup again") from None
    if not isinstance(obj, dict):
        raise Refused(f"{path} holds a JSON {type(obj).__name__}, not an object; fix it, "
                      f"then run memo setup again")
    m = re.search(r"\n([ \t]+)\S", text)
    layout = {"bom": bom, "indent": m.group(1) if m else "  ",
              "newline": "\r\n" if "\r\n" in text else "\n",
              "final": text.endswith("\n") or not text.strip()}
    return obj, layout


def _text(obj, indent) -> str:
    """``json.dumps`` of ``obj`` with every ``RawNumber`` written as its text.

    ``json`` has no hook that writes raw text, so each number goes out as a
    string holding a random marker, and those strings are put back as the
    numbers (a marker that the file's own strings happen to hold is drawn
    again)."""
    while True:
        mark = "\u0001optmem-" + os.urandom(8).hex()
        numbers = []

        def default(value, numbers=numbers, mark=mark):
            if isinstance(value, RawNumber):
                numbers.append(value.text)
                return f"{mark}{len(numbers) - 1}{mark}"
            raise TypeError(f"{type(value).__name__} is not JSON")

        text = json.dumps(obj, indent=indent, ensure_ascii=False, default=default)
        quoted = json.dumps(mark)[1:-1]
        if text.count(quoted) == 2 * len(numbers):
            break
    if not numbers:
        return text
    return re.sub(f'"{re.escape(quoted)}([0-9]+){re.escape(quoted)}"',
                  lambda m: numbers[int(m.group(1))], text)


def json_dump(obj: dict, layout: dict) -> bytes:
    """``obj`` written in ``layout`` (see ``json_load``), numbers as read."""
    text = _text(obj, layout["indent"])
    if layout["final"]:
        text += "\n"
    if layout["newline"] != "\n":
        text = text.replace("\n", layout["newline"])
    return layout["bom"] + text.encode("utf-8")


def _container(obj: dict, key: str, kind: type, path: str, where: str):
    value = obj.get(key)
    if value is None:
        value = obj[key] = kind()
    if not isinstance(value, kind):
        raise Refused(f"{path}: {where} is a JSON {type(value).__name__}, not "
                      f"{'an object' if kind is dict else 'a list'}; fix it, then run memo setup again")
    return value


def json_install(data: Optional[bytes], path: str, event: str, group: dict,
                 env: Optional[dict] = None) -> bytes:
    """The settings file with ``group`` as the only group of ours under
    ``hooks.<event>`` (our older entries dropped, every other entry kept in
    place) and ``env`` merged into its ``env`` object. An ``env`` name that
    already holds another value is refused, not overwritten."""
    obj, layout = json_load(data, path)
    before = _text(obj, None)
    for name, value in (env or {}).items():
        have = _container(obj, "env", dict, path, "env")
        if name in have and have[name] != value:
            raise Refused(f"{path} already sets {name} to {have[name]!r}; to use that "
                          f"memory pass --memory-dir with it as an absolute path, or "
                          f"remove it from {path}, then run memo setup again")
        have[name] = value
    hooks = _container(obj, "hooks", dict, path, "hooks")
    groups = _container(hooks, event, list, path, f"hooks.{event}")
    mine = [g for g in groups if isinstance(g, dict) and any(map(is_ours, g.get("hooks") or []))]
    if mine != [group]:
        _drop_ours(groups)
        groups.append(group)
    if _text(obj, None) == before:
        return data  # already installed: not one byte changes
    return json_dump(obj, layout)


def _drop_ours(groups: list) -> bool:
    """Remove our handlers from ``groups`` in place (and the groups they
    leave empty); return whether any went."""
    gone = False
    for g in list(groups):
        if not isinstance(g, dict) or not isinstance(g.get("hooks"), list):
            continue
        keep = [h for h in g["hooks"] if not is_ours(h)]
        if len(keep) != len(g["hooks"]):
            gone = True
            if keep:
                g["hooks"] = keep
            else:
                groups.remove(g)
    return gone


def json_uninstall(data: Optional[bytes], path: str, event: str,
                   env: Optional[dict] = None) -> Optional[bytes]:
    """The settings file without our handlers under ``hooks.<event>`` and
    without the ``env`` values setup added (each only if it still holds the
    value written). Containers emptied by that go too; a file left holding
    ``{}`` is removed (``None``). A file with nothing of ours is returned
    unchanged."""
    if data is None:
        return None
    obj, layout = json_load(data, path)
    changed = False
    hooks = obj.get("hooks")
    if isinstance(hooks, dict) and isinstance(hooks.get(event), list):
        if _drop_ours(hooks[event]):
            changed = True
            if not hooks[event]:
                del hooks[event]
            if not hooks:
                del obj["hooks"]
    have = obj.get("env")
    for name, value in (env or {}).items():
        if isinstance(have, dict) and have.get(name) == value:
            del have[name]
            changed = True
            if not have:
                del obj["env"]
    if not changed:
        return data
    return json_dump(obj, layout) if obj else None


def json_state(data: Optional[bytes], path: str, event: str, group: dict) -> str:
    """``"absent"``, ``"current"`` (exactly ``group``) or ``"stale"`` (an
    entry of ours that differs: another path, store or matcher)."""
    try:
        obj, _ = json_load(data, path)
    except Refused:
        return "unreadable"
    groups = (obj.get("hooks") or {}).get(event) if isinstance(obj.get("hooks"), dict) else None
    if not isinstance(groups, list):
        return "absent"
    mine = [g for g in groups if isinstance(g, dict) and any(map(is_ours, g.get("hooks") or []))]
    if not mine:
        return "absent"
    return "current" if mine == [group] else "stale"


# -- MCP client files: ``mcpServers.memo`` ----------------------------------

#: Where MCP clients (Claude Desktop, Cursor) list their stdio servers, and
#: the name memo's entry has there.
MCP_SERVERS = "mcpServers"
MCP_NAME = "memo"


def is_our_server(entry) -> bool:
    """Whether an ``mcpServers`` entry runs ``memo mcp`` (the launcher
    ``.../memo`` or ``python -m optmem``, last argument ``mcp``)."""
    if not isinstance(entry, dict) or not isinstance(entry.get("args", []), list):
        return False
    args = [str(a) for a in entry.get("args") or []]
    command = os.path.basename(str(entry.get("command", "")))
    return args[-1:] == ["mcp"] and (command == "memo" or args[-3:-1] == ["-m", "optmem"])


def _servers(obj: dict, path: str):
    value = obj.get(MCP_SERVERS)
    if value is not None and not isinstance(value, dict):
        raise Refused(f"{path}: {MCP_SERVERS} is a JSON {type(value).__name__}, not an "
                      f"object; fix it, then run memo setup again")
    return value


def mcp_install(data: Optional[bytes], path: str, entry: dict) -> bytes:
    """The MCP client file with ``entry`` as ``mcpServers.memo``, every
    other key and server kept in place. A ``memo`` server that does not run
    ``memo mcp`` is someone else's: refused, not overwritten. Unchanged
    bytes when the same entry is already there."""
    obj, layout = json_load(data, path)
    servers = _servers(obj, path)
    if servers is None:
        servers = obj[MCP_SERVERS] = {}
    have = servers.get(MCP_NAME)
    if have == entry:
        return data
    if have is not None and not is_our_server(have):
        raise Refused(f"{path} already has an MCP server named {MCP_NAME!r} that does not "
                      f"run memo mcp; rename or remove it, then run memo setup again")
    servers[MCP_NAME] = entry
    return json_dump(obj, layout)


def mcp_uninstall(data: Optional[bytes], path: str) -> Optional[bytes]:
    """The file without memo's server (only one that runs ``memo mcp``);
    an ``mcpServers`` emptied by that goes too, and a file left holding
    ``{}`` is removed (``None``). Nothing of ours: unchanged bytes."""
    if data is None:
        return None
    obj, layout = json_load(data, path)
    servers = _servers(obj, path)
    if not servers or not is_our_server(servers.get(MCP_NAME)):
        return data
    del servers[MCP_NAME]
    if not servers:
        del obj[MCP_SERVERS]
    return json_dump(obj, layout) if obj else None


def mcp_state(data: Optional[bytes], path: str, entry: dict) -> str:
    """``"absent"``, ``"current"`` (exactly ``entry``), ``"stale"`` (ours,
    another launcher or store) or ``"unreadable"``."""
    try:
        obj, _ = json_load(data, path)
        servers = _servers(obj, path) or {}
    except Refused:
        return "unreadable"
    have = servers.get(MCP_NAME)
    if not is_our_server(have):
        return "absent"
    return "current" if have == entry else "stale"


def mcp_entry(launcher: list, memory_dir: Optional[str]) -> dict:
    """The ``mcpServers.memo`` entry: the absolute launcher (a desktop app
    does not get the shell's PATH), ``mcp``, and ``MEMORY_DIR`` in ``env``."""
    entry = {"command": launcher[0], "args": list(launcher[1:]) + ["mcp"]}
    if memory_dir:
        entry["env"] = {"MEMORY_DIR": memory_dir}
    return entry


# -- one file, one edit -----------------------------------------------------

@dataclass
class Edit:
    """One change ``memo setup`` makes to one file.

    ``install`` and ``uninstall`` map the file's bytes (``None``: no file)
    to its new bytes (``None``: remove it); ``uninstall`` also gets the
    manifest record (``env`` values setup added). ``state`` names what is
    installed there. ``local`` says the file stays on this machine, so it
    may hold a path of this machine (docs/harness.md)."""
    path: str
    what: str
    install: Callable
    uninstall: Callable
    state: Callable
    local: bool
    env: dict = field(default_factory=dict)


def settings_edit(path: str, event: str, group: dict, env: Optional[dict] = None,
                  local: bool = True, what: str = "", also: Optional[dict] = None,
                  drop: tuple = ()) -> Edit:
    """An ``Edit`` that puts ``group`` under ``hooks.<event>`` of a JSON
    settings file (and ``env`` into its ``env``), each group of ``also``
    (``{event: group}``) under its event, and takes our handlers out of
    every event of ``drop`` that ``also`` does not name (a hook a store no
    longer needs). Uninstalling takes ours out of all of them."""
    env = dict(env or {})
    also = dict(also or {})
    gone = [e for e in drop if e not in also]

    def install(data):
        new = json_install(data, path, event, group, env)
        for other, other_group in also.items():
            new = json_install(new, path, other, other_group, {})
        for other in gone:
            new = json_uninstall(new, path, other)
        return new

    def uninstall(data, added):
        new = json_uninstall(data, path, event, added)
        for other in list(also) + gone:
            if new is not None:
                new = json_uninstall(new, path, other)
        return new

    return Edit(
        path=path, what=what or ", ".join(f"{e} hook" for e in [event, *also])
        + (", env " + ", ".join(env) if env else ""),
        install=install, uninstall=uninstall,
        state=lambda data: json_state(data, path, event, group),
        local=local, env=env)


# -- dotenv files: ``NAME=value`` lines ----------------------------------------

_DOTENV_SAFE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
                         "/._-+,:@%~")


def _dotenv_value(value: str) -> str:
    """``value`` as a dotenv line writes it: bare when every character is
    plain, else in double quotes with ``\\`` and ``"`` escaped."""
    if value and all(c in _DOTENV_SAFE for c in value):
        return value
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _dotenv_read(value: str) -> str:
    """A dotenv value as a loader reads it (quotes taken off, ``\\`` and
    ``"`` unescaped in double quotes; a bare value up to `` #``)."""
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] == '"':
        return value[1:-1].replace('\\"', '"').replace("\\\\", "\\")
    if len(value) >= 2 and value[0] == value[-1] == "'":
        return value[1:-1]
    return value.split(" #", 1)[0].strip()


def _dotenv_lines(data: Optional[bytes], path: str) -> tuple:
    bom, text, newline = _decode(data or b"", path)
    return bom, text.splitlines(keepends=True), newline


def _dotenv_find(lines: list, name: str):
    for k, line in enumerate(lines):
        body = line.strip()
        if body.startswith("export "):
            body = body[len("export "):].lstrip()
        key, eq, value = body.partition("=")
        if eq and key.strip() == name:
            return k, _dotenv_read(value)
    return None, None


def dotenv_install(data: Optional[bytes], path: str, env: dict) -> Optional[bytes]:
    """The dotenv file with each ``NAME=value`` of ``env`` in it (appended;
    a line already holding that value is kept as it is). A name that
    already holds another value is refused, not overwritten."""
    bom, lines, newline = _dotenv_lines(data, path)
    changed = False
    for name, value in env.items():
        k, have = _dotenv_find(lines, name)
        if k is not None:
            if have != value:
                raise Refused(f"{path} already sets {name} to {have!r}; to use that memory "
                              f"pass --memory-dir with it as an absolute path, or remove the "
                              f"line from {path}, then run memo setup again")
            continue
        if lines and not lines[-1].endswith(("\n", "\r")):
            lines[-1] += newline
        lines.append(f"{name}={_dotenv_value(value)}{newline}")
        changed = True
    if not changed:
        return data
    return bom + "".join(lines).encode("utf-8")


def dotenv_uninstall(data: Optional[bytes], path: str, added: dict) -> Optional[bytes]:
    """The dotenv file without the lines setup added (each only if it still
    holds the value written); a file left empty is removed (``None``)."""
    if data is None:
        return None
    bom, lines, _newline = _dotenv_lines(data, path)
    changed = False
    for name, value in (added or {}).items():
        k, have = _dotenv_find(lines, name)
        if k is not None and have == value:
            del lines[k]
            changed = True
    if not changed:
        return data
    if not "".join(lines).strip():
        return None
    return bom + "".join(lines).encode("utf-8")


def dotenv_state(data: Optional[bytes], path: str, env: dict) -> str:
    """``"absent"``, ``"current"`` (every name holds its value) or
    ``"stale"`` (a name holds another value)."""
    try:
        _bom, lines, _newline = _dotenv_lines(data, path)
    except Refused:
        return "unreadable"
    found = [_dotenv_find(lines, name)[1] for name in env]
    if all(v is None for v in found):
        return "absent"
    return "current" if found == list(env.values()) else "stale"


def dotenv_edit(path: str, env: dict) -> Edit:
    """An ``Edit`` that puts ``env`` as ``NAME=value`` lines into a dotenv
    file a harness loads into its own environment (and so into every shell
    command it runs). It holds this machine's paths: local."""
    env = dict(env)
    return Edit(path=path, what="env " + ", ".join(env),
                install=lambda data: dotenv_install(data, path, env),
                uninstall=lambda data, added: dotenv_uninstall(data, path, added),
                state=lambda data: dotenv_state(data, path, env), local=True, env=env)


def block_edit(path: str) -> Edit:
    """An ``Edit`` that puts the agent block into a markdown memory file."""
    return Edit(path=path, what="agent block",
                install=lambda data: md_install(data, path),
                uninstall=lambda data, added: md_uninstall(data, path),
                state=lambda data: md_state(data, path), local=False)


def mcp_edit(path: str, entry: dict) -> Edit:
    """An ``Edit`` that puts ``entry`` as ``mcpServers.memo`` into an MCP
    client's user-level JSON file (it holds this machine's paths, so it is
    never a file a repository commits)."""
    return Edit(path=path, what="MCP server memo" + (", env MEMORY_DIR" if entry.get("env") else ""),
                install=lambda data: mcp_install(data, path, entry),
                uninstall=lambda data, added: mcp_uninstall(data, path),
                state=lambda data: mcp_state(data, path, entry), local=True)
