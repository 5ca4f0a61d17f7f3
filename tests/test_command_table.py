"""One row per command (``optmem.commands``): the click command, the MCP tool
and its arguments, and the tool call of an order are all made from it.

These tests check that each front end is made from the row and nothing
else (the parity test, tests/test_parity.py, checks they then behave
alike): the click command's help and parameters, the tool's description
and input schema, the CLI group's table, and that an order of each tool
renders a call its schema accepts.
"""

from __future__ import annotations

import json

import click
import pytest

from optmem import commands, protocol
from optmem.cli.app import COMMANDS, cli

TOOL_NAMES = [row.name for row in commands.tools()]


def _command(name: str) -> click.Command:
    return cli.get_command(click.Context(cli), name)


@pytest.mark.parametrize("row", commands.ROWS, ids=lambda r: r.name)
def test_the_click_command_is_made_from_its_row(row):
    cmd = _command(row.name)
    assert cmd.help == row.help and cmd.short_help == row.short_help
    names = [p.name for p in cmd.params]
    expected = [p.name for p in row.params] + (["project", "global_"] if row.scoped else [])
    assert names == expected
    assert COMMANDS[row.name] == f"optmem.cli.{row.cli}"
    for param, p in zip(cmd.params, row.params):
        assert param.required == p.required
        if p.kind != "argument":
            assert param.opts == list(p.decls) and param.help == p.help
            assert getattr(param, "is_flag", False) == (p.kind == "flag")


def test_every_store_command_has_a_row_and_the_scope_flags():
    store_commands = {"wake", "note", "sleep", "nap", "recall", "zoom", "forget", "stats",
                      "config", "check", "redact", "scope", "import", "export"}
    assert store_commands <= set(commands.BY_NAME)
    for name in store_commands:
        opts = {o for p in _command(name).params for o in getattr(p, "opts", [])}
        assert {"--project", "--global"} <= opts, name


def test_each_tool_is_made_from_its_row():
    pytest.importorskip("jsonschema", reason="the MCP call path needs it")
    from optmem import mcp
    assert list(mcp.TOOLS) == TOOL_NAMES
    assert set(mcp.CALLS) == set(TOOL_NAMES)  # every tool has its call
    for name, (description, schema) in mcp.TOOLS.items():
        row = commands.BY_NAME[name]
        assert description == row.tool
        assert list(schema["properties"]) == [a.name for a in row.tool_args] + ["scope"]
        assert schema.get("required", []) == [a.name for a in row.tool_args if a.required]
        assert schema["additionalProperties"] is False


#: An order of each tool, as memo prints them, and the call it must become.
ORDERS = [
    (protocol.Order("wake", ("2", "40")), "wake", {"part": 2, "at": "40"}),
    (protocol.Order("wake", ("2", "40", "9"), "widget"), "wake",
     {"part": 2, "at": "40 9", "scope": "widget"}),
    (protocol.Order("wake", options=(("--max-bytes", 300),)), "wake", {"max_bytes": 300}),
    (protocol.Order("note", text="<one line>"), "note", {"text": "<one line>"}),
    (protocol.summary_order("0-1", "--global"), "sleep",
     {"block": "0-1", "summary": "<your line>", "scope": "global"}),
    (protocol.Order("sleep"), "sleep", {}),
    (protocol.Order("recall", ("-F", protocol.Value("$HOME x"))), "recall",
     {"pattern": "$HOME x", "fixed": True}),
    (protocol.Order("zoom", ("0-15",), "global"), "zoom", {"block": "0-15", "scope": "global"}),
    (protocol.Order("forget", ("0-1",)), "forget", {"block": "0-1"}),
    (protocol.Order("stats"), "stats", {}),
]


@pytest.mark.parametrize("order, tool, args", ORDERS, ids=[o[1] for o in ORDERS])
def test_an_order_becomes_the_call_its_tool_schema_accepts(order, tool, args):
    call = order.call()
    name, _, text = call.partition(" ")
    assert name == tool and json.loads(text) == args
    jsonschema = pytest.importorskip("jsonschema")
    from optmem import mcp
    jsonschema.validate(json.loads(text), mcp.TOOLS[tool][1])


def test_every_tool_has_an_order_here():
    assert {tool for _, tool, _ in ORDERS} == set(TOOL_NAMES)


def test_a_command_that_is_no_tool_is_a_persons_step_over_mcp():
    for name in commands.BY_NAME:
        if name not in TOOL_NAMES:
            assert protocol.Order(name).call() is None
            assert protocol.Order(name).line(protocol.MCP_FORM).startswith(protocol.PERSON)
    assert protocol.Order("forget", ("0-1", "--dry-run")).call() is None  # no such argument


def test_the_shell_form_of_a_value_is_one_quoted_word():
    order = protocol.Order("recall", ("-F", protocol.Value("it's $HOME")), "global",
                           flag_first=True)
    assert order.line("heredoc") == "Run: memo recall --global -F 'it'\"'\"'s $HOME'"
    assert order.line("heredoc") != order.line(protocol.MCP_FORM)
