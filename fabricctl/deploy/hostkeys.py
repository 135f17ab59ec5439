"""SSH host keys are checked before any login is sent: strict, against one known_hosts file.

Real switches: the file named by FABRICCTL_KNOWN_HOSTS (CI writes it from a secret), else
`~/.ssh/known_hosts`; a missing file is an error before anything is contacted. The lab: the
file of its switches' own keys it publishes (`<root>/.fabricctl/lab/known_hosts`, a sharded
lab's shards one each, joined here; fabricctl/endpoints.py), so the same strict path runs in
every lab test. `--insecure-host-keys` (meant for lab fabrics) turns the check off for
one command, says so on stderr and in the run record. The inventory cannot turn it off: these
options are set over whatever its connection extras say, since a pull request can edit it.
"""

from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import Iterable, Iterator, Mapping
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from fabricctl.errors import StageError
from fabricctl.outputs import write_file

ENV = "FABRICCTL_KNOWN_HOSTS"
_insecure: ContextVar[bool] = ContextVar("fabricctl_insecure_host_keys", default=False)


class HostKeyError(StageError):
    """Host keys cannot be checked (no known_hosts file): nothing is contacted."""


@contextlib.contextmanager
def insecure_host_keys() -> Iterator[None]:
    """No host key is checked inside this block (`--insecure-host-keys`)."""
    token = _insecure.set(True)
    try:
        yield
    finally:
        _insecure.reset(token)


def checking() -> bool:
    return not _insecure.get()


def known_hosts_file() -> Path:
    """The known_hosts file real switches are checked against (it must exist)."""
    named = os.environ.get(ENV)
    path = Path(named).expanduser() if named else Path.home() / ".ssh" / "known_hosts"
    if not path.is_file():
        where = f"{ENV}={named}" if named else f"{path} ({ENV} is not set)"
        raise HostKeyError(
            f"SSH host keys are checked and there is no known_hosts file: {where}; nothing was contacted "
            f"(allowed: {ENV} naming a known_hosts file with every switch's key, e.g. from 'ssh-keyscan' "
            "checked against each switch's console; --insecure-host-keys for a lab fabric)"
        )
    return path


def lab_known_hosts(published: Iterable[Path]) -> Path:
    """One known_hosts file of the lab's switches: the file it published, or its shards' joined
    (in this process's folder of host key files). A file a lab did not publish is an error."""
    files = list(published)
    texts = []
    for path in files:
        try:
            texts.append(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as exc:
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else type(exc).__name__
            raise HostKeyError(
                f"the lab's known_hosts file {path} cannot be read ({why}); nothing was contacted "
                "(allowed: a running lab, which publishes its switches' host keys; --insecure-host-keys)"
            ) from None
    if len(files) == 1:
        return files[0]
    return _kept("".join(texts))


def per_switch(known_hosts: Path, targets: Mapping[str, tuple[str, int | None]]) -> dict[str, Path]:
    """name -> a known_hosts file holding only that switch's keys (`targets`: name -> the address
    and SSH port it is reached at). paramiko reads the whole file given at every login, parsing
    each line under the logging module's lock: at hundreds of switches that costs more than the
    logins themselves and grows with the square of the fabric. The file is read once here
    (hashed host names too); a switch it has no key for gets an empty file, so its login is
    refused as before. The files are public keys, in a folder of this process's, removed at exit."""
    import paramiko

    try:
        keys = paramiko.HostKeys(str(known_hosts))
    except (OSError, UnicodeDecodeError, paramiko.hostkeys.InvalidHostKey) as exc:
        raise HostKeyError(f"{known_hosts}: {_unreadable(known_hosts, exc)}; nothing was contacted") from None
    out = {}
    for name, (host, port) in targets.items():
        lookup = host if port in (None, 22) else f"[{host}]:{port}"
        found = keys.lookup(lookup)
        lines = sorted(f"{lookup} {kind} {found[kind].get_base64()}\n" for kind in found or ())
        out[name] = _kept("".join(lines))
    return out


def _unreadable(path: Path, exc: Exception) -> str:
    bad = getattr(exc, "line", None)
    if not isinstance(bad, str):
        return f"cannot be read ({exc})"
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    number = next((i for i, line in enumerate(lines, 1) if line.strip() == bad.strip()), None)
    where = f"line {number}" if number is not None else "a line"
    return (
        f"{where} is not a host key entry ({bad.strip()[:80]!r}; allowed: "
        "'<host>[,<host>...] <key type> <base64 key>', as ssh-keyscan writes it)"
    )


def _kept(text: str) -> Path:
    """`text` in this process's folder of host key files, named by its digest (written once)."""
    import hashlib

    path = _folder() / hashlib.sha256(text.encode()).hexdigest()[:32]
    if not path.exists():
        write_file(path, text)  # whole: another thread may read it as soon as it is there
    return path


@functools.cache
def _folder() -> Path:
    import atexit
    import shutil
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="fabricctl-host-keys-"))
    atexit.register(shutil.rmtree, folder, True)
    return folder


def ssh_options(known_hosts: Path | None) -> dict[str, Any]:
    """netmiko connection options: strict checking against `known_hosts`, or none at all (None)."""
    if known_hosts is None:
        return {"ssh_strict": False, "system_host_keys": False, "alt_host_keys": False}
    return {
        "ssh_strict": True,
        "system_host_keys": False,
        "alt_host_keys": True,
        "alt_key_file": str(known_hosts),
    }
