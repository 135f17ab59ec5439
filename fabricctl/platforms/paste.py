"""Send configuration lines to a CLI in chunks and watch every reply as it arrives.

netmiko's per-line `send_command` waits out a round trip and its own read delays for each line
(tens of ms a line; a first push of a leaf is hundreds of lines). A switch's CLI reads typed-ahead
input, so a chunk is written at once and the replies are read as they come: one prompt per line,
and the first error reply stops the push the moment it is seen.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable

from netmiko.base_connection import BaseConnection

from fabricctl.platforms.push import StageError

CHUNK = 64


def paste(
    conn: BaseConnection,
    lines: list[str],
    timeout: float,
    prompt: re.Pattern[str],
    error: re.Pattern[str],
    first_error: Callable[[str], str],
    before_chunk: Callable[[int], None] | None = None,
) -> None:
    """Send `lines`, CHUNK at a time, each chunk answered by one `prompt` per line; raise a `load`
    StageError with `first_error(replies)` on the first reply matching `error`.

    `before_chunk(sent)` runs before every chunk but the first (a push checks its timer there)."""
    for start in range(0, len(lines), CHUNK):
        if start and before_chunk is not None:
            before_chunk(start)
        chunk = lines[start : start + CHUNK]
        conn.write_channel("".join(line + "\n" for line in chunk))
        buf = ""
        deadline = time.monotonic() + timeout
        while len(prompt.findall(buf)) < len(chunk):
            data = conn.read_channel()
            if data:
                buf += data
                deadline = time.monotonic() + timeout
                if error.search(buf):  # seen the moment it arrives, not after the whole chunk
                    raise StageError("load", f"line rejected: {first_error(buf)}")
            elif getattr(conn.remote_conn, "closed", False):  # a closed channel reads as silence
                raise StageError("load", "the switch closed the session while loading")
            elif time.monotonic() > deadline:
                raise StageError("load", f"no reply from the switch within {timeout:.0f} s while loading")
            else:
                time.sleep(0.002)
        if error.search(buf):
            raise StageError("load", f"line rejected: {first_error(buf)}")
