"""``memo import`` and ``memo export``: an import from a device or a pipe is
refused without reading it.
"""

from __future__ import annotations

import pytest


@pytest.mark.parametrize("source", ["/dev/zero", "fifo"])
def test_importing_a_device_or_a_pipe_is_refused_without_reading_it(memo, inited, tmp_path,
                                                                     source):
    """``memo import /dev/zero`` counted the lines of an endless file before
    its first check, and never ended."""
    import os
    if source == "fifo":
        source = str(tmp_path / "fifo")
        os.mkfifo(source)  # nobody writes: a read would block for ever
    result = memo("import", source)
    assert result.exit_code == 1 and "is not a regular file" in result.stderr
