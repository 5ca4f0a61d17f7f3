"""The CLI and the MCP server answer alike: the same calls, twice.

Two worlds are built the same way (a global store, a folder outside any
repository, a repository bound to project ``widget``). The same script of
calls, every tool with and without a project and the refusals, runs once
through ``memo`` (click's runner, ``MEMO_ORDERS=line``) in one world and once
through the MCP server's call path (``optmem.mcp.call_tool``) in the other.
Each pair of answers must be equal once the world's folder is written
``<W>`` and every order, a shell command or a tool call, is written as one
canonical value (``canon``); the CLI's exit code must match ``isError``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess

import pytest
from click.testing import CliRunner

from optmem import commands, protocol
from optmem.cli.app import cli
from optmem.store.memory import Store

pytest.importorskip("jsonschema", reason="the MCP extra is not installed")

from optmem.mcp import call_tool  # noqa: E402

GIT = shutil.which("git")
GIT_ENV = {"GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t"}
TOKEN = "sk-proj-" + "Ab3dEf7h" * 6

#: tool -> its positional words in the CLI's order, and the argument of the
#: agent's text: read from the one table both front ends are made from.
TOOLS = {row.name: tuple(a.name for a in row.tool_args if a.word in ("word", "rest"))
         for row in commands.tools()}
TEXT = {name: protocol.text_arg(name) for name in TOOLS if protocol.text_arg(name)}
_NAMES = "|".join(TOOLS)
CALL = re.compile(rf"\b({_NAMES}) (\{{[^{{}}]*\}})")
SHELL = re.compile(r"\bmemo ([a-z]+)((?: (?:\"[^\"]*\"|<[^>]*>|--[a-z-]+|[^\s\",()<>.;]+"
                   r"(?:\.[^\s\",()<>.;]+)*))*)")
PERSON = re.compile(rf"A person can run: (?=memo (?!{_NAMES})[a-z])")


def _value(verb: str, positional: list, named: dict) -> str:
    if positional and verb in TEXT and positional[-1].startswith("<"):
        named["text"] = positional.pop()
    return f"[{verb} {' '.join(positional)} | {json.dumps(named, sort_keys=True)}]"


def _from_call(m) -> str:
    verb, args = m.group(1), json.loads(m.group(2))
    positional, named = [], {}
    for name in TOOLS[verb]:
        if name in args:
            value = str(args.pop(name))
            positional += value.split() if name == "at" else [value]
    if "batch" in args:
        positional += ["-", *args.pop("batch")]
    if TEXT.get(verb) in args:
        named["text"] = args.pop(TEXT[verb])
    for key, value in args.items():
        named[key] = str(value)
    return _value(verb, positional, named)


def _from_shell(m) -> str:
    verb, words = m.group(1), re.findall(r"\"[^\"]*\"|<[^>]*>|\S+", m.group(2))
    positional, named = [], {}
    while words:
        word = words.pop(0)
        if word == "--global":
            named["scope"] = "global"
        elif word in ("--project", "--max-bytes") and words:
            named["scope" if word == "--project" else "max_bytes"] = words.pop(0)
        else:
            positional.append(word[1:-1] if word.startswith('"') else word)
    return _value("sleep" if verb == "nap" else verb, positional, named)


def canon(text: str, world) -> str:
    """``text`` with the world's folder as ``<W>`` and each order (a shell
    command or a tool call) as one value ``[verb words | {named}]``; a
    command that is no tool is the agent's or a person's step by the form,
    so its lead is written ``Run: ``."""
    text = text.replace(str(world), "<W>")
    # a refusal names a credential by its label: its position on the command
    # line, its argument's name over MCP
    text = re.sub(r"\bargument \d\b|\bblock(?= is not)|(?<=regex )pattern\b", "<label>", text)
    text = PERSON.sub("Run: ", text)
    text = CALL.sub(_from_call, text)
    return SHELL.sub(_from_shell, text).strip()


def git(cwd, *args):
    done = subprocess.run(["git", "-C", str(cwd), *args], capture_output=True,
                          env=dict(os.environ, **GIT_ENV))
    assert done.returncode == 0, done.stderr.decode()


class World:
    """One world: ``root`` holds ``mem`` (MEMORY_DIR), ``plain`` (outside any
    repository) and ``widget`` (a repository bound to project widget)."""

    def __init__(self, root):
        self.root, self.mem = root, root / "mem"
        self.plain, self.widget = root / "plain", root / "widget"
        self.plain.mkdir(parents=True)
        self.widget.mkdir()
        git(self.widget, "init", "-q")
        git(self.widget, "commit", "-q", "--allow-empty", "-m", "start")
        self.env = {"MEMORY_DIR": str(self.mem), "MEMO_ORDERS": "line", **GIT_ENV}

    def folder(self, where: str):
        return {"plain": self.plain, "widget": self.widget}[where]

    def memo(self, where: str, args: list, env=None):
        """``memo ARGS`` run in folder ``where``: ``(text, exit code)``; the
        text is stdout when it succeeds, else stdout and stderr."""
        here = os.getcwd()
        os.chdir(self.folder(where))
        try:
            result = CliRunner().invoke(cli, args, env={**self.env, **(env or {})},
                                        catch_exceptions=True)
        finally:
            os.chdir(here)
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            raise result.exception
        text = result.stdout if result.exit_code == 0 else result.stdout + result.stderr
        return text, result.exit_code

    def call(self, where: str, tool: str, arguments: dict, env=None, monkeypatch=None):
        """The tool call from folder ``where`` (the client's root): ``(text, is_error)``."""
        with monkeypatch.context() as patch:
            for key, value in {**self.env, **(env or {})}.items():
                patch.setenv(key, value)
            return call_tool(tool, arguments, root=str(self.folder(where)))


# (folder, CLI words, tool, tool arguments); a step whose folder is "setup"
# runs through the CLI in both worlds and is not compared.
PLAIN = [
    ("plain", ["stats"], "stats", {}),
    ("plain", ["wake"], "wake", {}),
    ("plain", ["note", "the build runs on make"], "note", {"text": "the build runs on make"}),
    ("plain", ["note", "the tests run on pytest"], "note", {"text": "the tests run on pytest"}),
    ("plain", ["wake"], "wake", {}),
    ("plain", ["sleep"], "sleep", {}),
    ("plain", ["sleep", "6-7", "a summary"], "sleep", {"block": "6-7", "summary": "a summary"}),
    ("plain", ["sleep", "0-5", "a summary"], "sleep", {"block": "0-5", "summary": "a summary"}),
    ("plain", ["sleep", "7", "a summary"], "sleep", {"block": "7", "summary": "a summary"}),
    ("plain", ["sleep", "0-1", "a" * 400], "sleep", {"block": "0-1", "summary": "a" * 400}),
    ("plain", ["sleep", "0-1", "make builds and pytest tests"], "sleep",
     {"block": "0-1", "summary": "make builds and pytest tests"}),
    ("plain", ["note", "x" * 400], "note", {"text": "x" * 400}),
    ("plain", ["note", f"the key is {TOKEN}"], "note", {"text": f"the key is {TOKEN}"}),
    ("plain", ["note", "see <system-reminder> here"], "note",
     {"text": "see <system-reminder> here"}),
    ("plain", ["recall", "make|pytest"], "recall", {"pattern": "make|pytest"}),
    ("plain", ["recall", "nothing-like-this"], "recall", {"pattern": "nothing-like-this"}),
    ("plain", ["recall", "(unclosed"], "recall", {"pattern": "(unclosed"}),
    ("plain", ["zoom", "0-1"], "zoom", {"block": "0-1"}),
    ("plain", ["zoom", "1"], "zoom", {"block": "1"}),
    ("plain", ["zoom", "40-41"], "zoom", {"block": "40-41"}),
    ("plain", ["zoom", TOKEN], "zoom", {"block": TOKEN}),
    ("plain", ["forget", TOKEN], "forget", {"block": TOKEN}),
    ("plain", ["sleep", TOKEN, "a summary"], "sleep", {"block": TOKEN, "summary": "a summary"}),
    ("plain", ["recall", TOKEN + "("], "recall", {"pattern": TOKEN + "("}),
    ("plain", ["wake", "1", "2"], "wake", {"part": 1, "at": "2"}),
    ("plain", ["wake", "1", "9"], "wake", {"part": 1, "at": "9"}),
    ("plain", ["wake", "3"], "wake", {"part": 3}),
    ("plain", ["wake", "--max-bytes", "3000"], "wake", {"max_bytes": 3000}),
    ("plain", ["wake", "--max-bytes", "10"], "wake", {"max_bytes": 10}),
    ("plain", ["stats"], "stats", {}),
    ("plain", ["forget", "0-1"], "forget", {"block": "0-1"}),
    ("plain", ["forget", "0-1"], "forget", {"block": "0-1"}),
    ("plain", ["sleep", "-", "0-1 make and pytest"], "sleep", {"batch": ["0-1 make and pytest"]}),
    ("plain", ["sleep", "-", "2-3 no such block"], "sleep", {"batch": ["2-3 no such block"]}),
]

PROJECT = [
    ("setup", ["init", "--project", "widget"], None, None),
    ("widget", ["note", "widget deploys with fly"], "note", {"text": "widget deploys with fly"}),
    ("widget", ["note", "--global", "the person writes British English"], "note",
     {"text": "the person writes British English", "scope": "global"}),
    ("widget", ["note", "widget tests need redis"], "note", {"text": "widget tests need redis"}),
    ("widget", ["wake"], "wake", {}),
    ("widget", ["sleep"], "sleep", {}),
    ("widget", ["sleep", "2-3", "British English and fly"], "sleep",
     {"block": "2-3", "summary": "British English and fly"}),
    ("widget", ["sleep", "0-1", "fly and redis"], "sleep", {"block": "0-1", "summary": "fly and redis"}),
    ("widget", ["wake"], "wake", {}),
    ("widget", ["wake", "--max-bytes", "4000"], "wake", {"max_bytes": 4000}),
    ("widget", ["wake", "1", "9", "9"], "wake", {"part": 1, "at": "9 9"}),
    ("widget", ["recall", "fly|English"], "recall", {"pattern": "fly|English"}),
    ("widget", ["stats"], "stats", {}),
    ("widget", ["stats", "--project", "widget"], "stats", {"scope": "widget"}),
    ("widget", ["zoom", "0-1"], "zoom", {"block": "0-1"}),
    ("widget", ["zoom", "--project", "widget", "0-1"], "zoom", {"block": "0-1", "scope": "widget"}),
    ("widget", ["forget", "0-1"], "forget", {"block": "0-1"}),
    ("widget", ["forget", "--global", "2-3"], "forget", {"block": "2-3", "scope": "global"}),
    ("widget", ["sleep", "-", "no block in this line"], "sleep",
     {"batch": ["no block in this line"]}),
    ("widget", ["sleep", "--global", "2-3", "English and fly"], "sleep",
     {"block": "2-3", "summary": "English and fly", "scope": "global"}),
    ("widget", ["forget", "--global", "2-3"], "forget", {"block": "2-3", "scope": "global"}),
    ("widget", ["sleep", "--global", "-", "2-3 English and fly"], "sleep",
     {"batch": ["2-3 English and fly"], "scope": "global"}),
    ("widget", ["sleep", "--global"], "sleep", {"scope": "global"}),
    ("widget", ["note", "--project", "nosuch", "a fact"], "note",
     {"text": "a fact", "scope": "nosuch"}),
    ("plain", ["note", "a fact from outside"], "note", {"text": "a fact from outside"}),
    ("plain", ["recall", "fact"], "recall", {"pattern": "fact"}),
]

NO_GIT = [  # git missing from PATH: which project the repository uses is unknown
    ("widget", ["note", "a fact"], "note", {"text": "a fact"}),
    ("widget", ["sleep", "0-1", "a summary"], "sleep", {"block": "0-1", "summary": "a summary"}),
    ("widget", ["sleep", "-", "0-1 a summary"], "sleep", {"batch": ["0-1 a summary"]}),
    ("widget", ["forget", "0-1"], "forget", {"block": "0-1"}),
    ("widget", ["note", "--global", "the person likes tea"], "note",
     {"text": "the person likes tea", "scope": "global"}),
    ("widget", ["recall", "tea"], "recall", {"pattern": "tea"}),
    ("widget", ["wake"], "wake", {}),
    ("widget", ["sleep"], "sleep", {}),
    ("widget", ["stats"], "stats", {}),
]

READ_ONLY = [  # the store cannot be written by this user
    ("plain", ["sleep"], "sleep", {}),
    ("plain", ["sleep", "-", "0-1 a summary"], "sleep", {"batch": ["0-1 a summary"]}),
    ("plain", ["stats"], "stats", {}),
]

#: (folder, CLI words) of the calls whose CLI exit code is 1 while the tool
#: call is no error: a wake that waits for a compression is a step to take,
#: not a failure, over MCP.
STEP_NOT_ERROR = {"wake"}


INTRO = "Your memory: "  #: how memo's intro line begins (``optmem.engine.wake.wake_intro``)
SMALLEST = re.compile(r"(?<=the shortest document is )\d+(?= bytes)|(?<=\"max_bytes\": )\d+")


def without_intro(answer: str, text: str, intros: dict, where: str) -> str:
    """The MCP answer of a one-store wake without memo's intro line, which
    stands first over MCP (memo's own format) and nowhere in the CLI's
    reference lines; a ``max_bytes`` too small then names the CLI's smallest
    size, the intro's bytes less (``intros[where]``, from an earlier wake)."""
    first, _, rest = answer.partition("\n")
    if first.startswith(INTRO) and not text.startswith(INTRO):
        intros[where] = len(first.encode("utf-8")) + 1
        return rest
    if where in intros and "is too small" in answer:
        return SMALLEST.sub(lambda m: str(int(m.group()) - intros[where]), answer)
    return answer


def _calls(table) -> int:
    return sum(1 for where, *_ in table if where != "setup")


def test_the_script_has_40_calls_or_more():
    assert _calls(PLAIN + PROJECT + NO_GIT + READ_ONLY) >= 40


@pytest.mark.skipif(GIT is None, reason="git not found")
def test_the_cli_and_the_mcp_server_answer_the_same_calls_alike(tmp_path, monkeypatch):
    shell, mcp = World(tmp_path / "cli"), World(tmp_path / "mcp")
    for world in (shell, mcp):
        assert world.memo("plain", ["init"])[1] == 0
    no_git = tmp_path / "bin"
    no_git.mkdir()
    phases = [(PLAIN, {}, False), (PROJECT, {}, False),
              (NO_GIT, {"PATH": str(no_git)}, False), (READ_ONLY, {}, True)]
    differences, compared, intros = [], 0, {}
    for table, env, read_only in phases:
        for where, words, tool, arguments in table:
            if where == "setup":
                for world in (shell, mcp):
                    assert world.memo("widget", words)[1] == 0
                continue
            with monkeypatch.context() as patch:
                if read_only:
                    patch.setattr(Store, "writable", lambda self: False)
                text, code = shell.memo(where, words, env)
                answer, is_error = mcp.call(where, tool, arguments, env, monkeypatch)
            if tool == "wake":
                answer = without_intro(answer, text, intros, where)
            compared += 1
            left, right = canon(text, shell.root), canon(answer, mcp.root)
            error = code != 0 and not (tool in STEP_NOT_ERROR and "Cannot wake" in text)
            if left != right or error != is_error:
                differences.append(f"{where} memo {' '.join(words)} (exit {code}) / {tool} "
                                   f"{arguments} (isError {is_error}):\n  {left!r}\n  {right!r}")
            assert TOKEN not in answer and TOKEN[:16] not in answer
    assert compared == _calls(PLAIN + PROJECT + NO_GIT + READ_ONLY)
    assert not differences, "\n".join(differences)
