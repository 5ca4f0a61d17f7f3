"""The TOML line ``memo setup codex`` prints for a person to paste.

Codex reads ``~/.codex/config.toml``; the printed step names the table and
gives the one line that goes under it. Pasted under that table header, the
line must parse as TOML and set ``MEMORY_DIR`` to the store, quotes and all.
"""

import sys

import pytest

from optmem.harness import Context, codex


@pytest.mark.skipif(sys.version_info < (3, 11), reason="tomllib is in the standard library from 3.11")
@pytest.mark.parametrize("store", ["/home/ana/memory", "/tmp/with space/m", "/srv/naïve/m"])
def test_the_printed_line_parses_under_its_table(store):
    import tomllib
    ctx = Context(home="/home/ana", project="/home/ana/p", scope="user", memory_dir=store)
    step = next(s for s in codex.next_steps(ctx) if "config.toml" in s)
    assert "[shell_environment_policy]" in step
    line = step.rsplit(": ", 1)[1]  # what the step says to paste, after its last colon
    parsed = tomllib.loads("[shell_environment_policy]\n" + line + "\n")
    assert parsed == {"shell_environment_policy": {"set": {"MEMORY_DIR": store}}}
