"""``memo mcp`` finds the project from the client's workspace roots
(docs/protocol.md, clients: the project is resolved from the client's
workspace roots, the MCP roots capability, when it offers them, else from
the server's working directory).

Driven by the SDK's own stdio client, with a ``list_roots_callback`` as an
editor gives one, against ``memo mcp`` started as a subprocess in a folder
that is not the repository (as Claude Desktop and Cursor start it).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from urllib.parse import quote

import pytest
from test_projects import GIT, make_repo, needs_git

if sys.version_info < (3, 10):
    pytest.skip("the MCP SDK (mcp) needs Python 3.10 or newer", allow_module_level=True)
pytest.importorskip("mcp", reason="the MCP SDK is not installed")

import anyio  # noqa: E402
from mcp import ClientSession, types  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402
from test_mcp import call, run  # noqa: E402
from test_mcp_scope import memo_in, server_in  # noqa: E402

from optmem import mcp as mcp_server  # noqa: E402
from optmem import protocol


def file_uri(path) -> str:
    """``path`` as a client sends a root: ``file://`` and percent-encoded."""
    return "file://" + quote(str(path))


class Client:
    """A client's roots: ``roots`` (URIs, in order) or ``fail`` (the
    callback raises); ``asked`` counts ``roots/list`` requests."""

    def __init__(self, roots=(), fail=False):
        self.roots, self.fail, self.asked = list(roots), fail, 0

    async def list_roots(self, ctx):
        self.asked += 1
        if self.fail:
            raise RuntimeError("this client's roots broke")
        return types.ListRootsResult(roots=[types.Root(uri=u) for u in self.roots])


async def session_with(params, client, work, errlog_path):
    """One SDK client session (with ``client``'s roots, or none when
    ``client`` is None) on a new server; ``await work(session)``."""
    callback = None if client is None else client.list_roots
    with open(errlog_path, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write, list_roots_callback=callback) as session:
                await session.initialize()
                return await work(session)


@pytest.fixture
def two_projects(tmp_path, memory_dir):
    """Repositories ``widget`` and ``gadget`` (paths with a space and
    non-ASCII, so their URIs are percent-encoded), each bound to its
    project, an unrelated folder, and the global store."""
    memo_in(tmp_path, memory_dir, "init")
    repos = {}
    for name in ("widget", "gadget"):
        repos[name] = make_repo(tmp_path / f"{name} repo ü")
        memo_in(repos[name], memory_dir, "init", "--project", name)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    return repos, elsewhere


def recall_in(memory_dir, where, *args):
    return memo_in(where, memory_dir, "recall", *args)


@needs_git
@pytest.mark.filterwarnings("ignore:The roots capability is deprecated")  # the client's
def test_the_first_usable_root_picks_the_project(tmp_path, memory_dir, two_projects):
    """Server started in an unrelated folder; the client's roots point at a
    repository: notes land in its project. A root that is a file or a
    missing folder is skipped; after ``roots/list_changed`` the new roots
    count, and they are asked once per change, not once per call."""
    repos, elsewhere = two_projects
    a_file = tmp_path / "notes.txt"
    a_file.write_text("x")
    client = Client([file_uri(a_file), file_uri(tmp_path / "gone"), file_uri(repos["widget"]),
                     file_uri(repos["gadget"])])

    async def work(s):
        out = [await call(s, "note", {"text": "roots fact one"}),
               await call(s, "note", {"text": "roots fact two"}),
               await call(s, "stats")]
        resource = await s.read_resource("memo://wake")
        out.append((resource.contents[0].text, False))
        asked = client.asked
        client.roots = [file_uri(repos["gadget"])]
        await s.send_roots_list_changed()
        out.append(await call(s, "note", {"text": "after the change"}))
        return out, asked

    errlog = tmp_path / "stderr.txt"
    out, asked = run(session_with(server_in(elsewhere, memory_dir), client, work, errlog))
    (one, e1), (two, e2), (stats, e3), (wake, _), (after, e4) = out
    assert not (e1 or e2 or e3 or e4)
    assert one.startswith("Saved as #0.\nScope: project widget"), one
    assert two.startswith("Saved as #1.\nScope: project widget"), two
    assert "Project memory: widget" in stats and "Project memory: widget" in wake
    assert after.startswith("Saved as #0.\nScope: project gadget"), after
    assert asked == 1 and client.asked == 2
    assert errlog.read_text() == ""  # no deprecation warning, nothing else
    # the CLI sees each note in its project's store, none in the global one
    assert "roots fact two" in recall_in(memory_dir, elsewhere, "--project", "widget", "roots")
    assert "after the change" in recall_in(memory_dir, elsewhere, "--project", "gadget",
                                           "after")
    assert recall_in(memory_dir, elsewhere, "--global", "roots|after").strip() == \
        protocol.NO_MATCH


@needs_git
@pytest.mark.parametrize("client", [None, Client(fail=True), Client([]),
                                    Client(["file:///no/such/folder"])],
                         ids=["no-roots-capability", "callback-errors", "no-roots",
                              "no-usable-root"])
def test_without_a_usable_root_the_server_folder_decides(tmp_path, memory_dir,
                                                         two_projects, client):
    """No roots capability, a callback that errors, no roots or none usable:
    the server's working directory picks the project, and the server
    answers every call."""
    repos, elsewhere = two_projects

    async def work(s):
        return [await call(s, "note", {"text": f"fact {i}"}) for i in range(3)]

    errlog = tmp_path / "stderr.txt"
    got = run(session_with(server_in(repos["gadget"], memory_dir), client, work, errlog))
    for i, (text, err) in enumerate(got):
        assert not err and text.startswith(f"Saved as #{i}.\nScope: project gadget"), text
    if client is not None:
        assert client.asked == 1  # the failed answer is kept too, until a change
    assert errlog.read_text() == ""
    # and started elsewhere, the same clients reach the global memory
    got = run(session_with(server_in(elsewhere, memory_dir), client, work, errlog))
    assert all(not err and "Scope:" not in text for text, err in got), got


@needs_git
def test_roots_are_not_asked_without_project_memories(tmp_path, memory_dir):
    """No ``projects/`` folder: the folder cannot matter, so no request."""
    memo_in(tmp_path, memory_dir, "init")
    repo = make_repo(tmp_path / "repo")
    client = Client([file_uri(repo)])

    async def work(s):
        return [await call(s, "note", {"text": "plain"}), await call(s, "wake")]

    got = run(session_with(server_in(tmp_path, memory_dir), client, work,
                           tmp_path / "stderr.txt"))
    assert got[0] == ("Saved as #0.", False)
    assert client.asked == 0


@needs_git
def test_an_explicit_scope_needs_no_roots(tmp_path, memory_dir, two_projects):
    repos, elsewhere = two_projects
    client = Client([file_uri(repos["widget"])])

    async def work(s):
        return await call(s, "note", {"text": "named", "scope": "gadget"})

    text, err = run(session_with(server_in(elsewhere, memory_dir), client, work,
                                 tmp_path / "stderr.txt"))
    assert not err and text.startswith("Saved as #0.\nScope: project gadget"), text
    assert client.asked == 0


@pytest.mark.parametrize("where,safe", [("bare-shaped", None), ("bare-shaped", "explicit"),
                                        ("hostile-remote", None)])
@pytest.mark.filterwarnings("ignore:The roots capability is deprecated")  # the client's
def test_a_root_that_names_no_project_of_its_own_reaches_none(tmp_path, memory_dir, where,
                                                              safe):
    """A root in a folder shaped like a bare repository whose config names
    the victim's project (with and without the person's
    ``safe.bareRepository=explicit``), or in a clone whose remote git would
    fetch from another host than the victim's: the server finds no project
    there, as the CLI does, and a note lands in the global memory."""
    from test_project_binding import VICTIM_FACT, VICTIM_REMOTE, bare_shaped
    plain = tmp_path / "plain"
    plain.mkdir()
    memo_in(plain, memory_dir, "init")
    memo_in(plain, memory_dir, "init", "--project", "private")
    (memory_dir / "projects" / "private" / "REMOTES").write_text(VICTIM_REMOTE + "\n")
    memo_in(plain, memory_dir, "note", "--project", "private", VICTIM_FACT)
    if where == "bare-shaped":
        folder = bare_shaped(tmp_path / "download" / "docs")
    else:
        if GIT is None:
            pytest.skip("git not found")
        folder = make_repo(tmp_path / "clone", "https://evil.invalid?@github.com/victim/private")
    client = Client([file_uri(folder)])

    async def work(s):
        return [await call(s, "note", {"text": "typed through mcp"}),
                await call(s, "recall", {"pattern": "vault"})]

    params = server_in(plain, memory_dir)
    if safe:
        person = tmp_path / "person.gitconfig"
        person.write_text(f"[safe]\n\tbareRepository = {safe}\n")
        params.env["GIT_CONFIG_GLOBAL"] = str(person)
    (note, e1), (recall, e2) = run(session_with(params, client, work, tmp_path / "stderr.txt"))
    assert not e1 and note.startswith("Saved as #0.") and "private" not in note, note
    assert VICTIM_FACT not in recall
    private_log = (memory_dir / "projects" / "private" / "LOG.txt").read_bytes()
    assert b"typed through mcp" not in private_log
    assert b"typed through mcp" in (memory_dir / "LOG.txt").read_bytes()


# -- the pieces, in process ------------------------------------------------------

def test_root_folder_decodes_and_skips(tmp_path):
    odd = tmp_path / "a b%c ü"
    odd.mkdir()
    a_file = tmp_path / "f.txt"
    a_file.write_text("x")
    assert mcp_server.root_folder([file_uri(odd)]) == str(odd)
    assert mcp_server.root_folder(["file://localhost" + quote(str(odd))]) == str(odd)
    assert mcp_server.root_folder(["https://example.com/x", "file://otherhost/tmp",
                                   file_uri(a_file), file_uri(tmp_path / "gone"),
                                   "file:///%00", "file:relative", "", file_uri(odd),
                                   file_uri(tmp_path)]) == str(odd)
    assert mcp_server.root_folder([]) is None
    assert mcp_server.root_folder(["mailto:x@y", file_uri(a_file)]) is None


class FakeSession:
    """What ``_Roots`` uses of the SDK's ``ServerSession``."""

    def __init__(self, roots_capability=True, answer=None, hang=False):
        caps = types.ClientCapabilities(roots=types.RootsCapability(list_changed=True)) \
            if roots_capability else types.ClientCapabilities()
        self.client_capabilities, self.answer, self.hang, self.asked = caps, answer, hang, 0

    async def list_roots(self):
        self.asked += 1
        if self.hang:
            await anyio.sleep_forever()
        return types.ListRootsResult(roots=[types.Root(uri=u) for u in self.answer])


def test_a_client_that_never_answers_costs_one_bounded_wait(tmp_path):
    """No answer within the timeout: the server's folder, kept (the next
    calls do not wait again) until the client's roots change."""

    async def main():
        roots = mcp_server.Roots(timeout=0.05)
        silent = FakeSession(hang=True)
        got = [await roots.folder(silent), await roots.folder(silent)]
        roots.changed()
        got.append(await roots.folder(FakeSession(answer=[file_uri(tmp_path)])))
        none = FakeSession(roots_capability=False, answer=[file_uri(tmp_path)])
        got.append(await mcp_server.Roots().folder(none))
        return got, silent.asked, none.asked

    got, asked, none_asked = anyio.run(main)
    assert got == [None, None, str(tmp_path), None]
    assert asked == 1 and none_asked == 0


def test_needs_cwd_only_when_the_folder_can_decide(tmp_path, memory_dir, monkeypatch):
    from optmem import scope
    monkeypatch.delenv("MEMO_PROJECT", raising=False)
    (memory_dir / "projects").mkdir(parents=True)
    assert scope.needs_cwd() is True
    assert scope.needs_cwd("") is False and scope.needs_cwd("widget") is False
    monkeypatch.setenv("MEMO_PROJECT", "widget")
    assert scope.needs_cwd() is False
    monkeypatch.delenv("MEMO_PROJECT")
    os.rmdir(memory_dir / "projects")
    assert scope.needs_cwd() is False
    monkeypatch.setenv("MEMORY_DIR", "relative/path")
    assert scope.needs_cwd() is False
    assert Path(memory_dir).exists()
