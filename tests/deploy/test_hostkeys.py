"""Each switch is checked against its own known_hosts entries (deploy/hostkeys.py `per_switch`):
the file is read once, hashed host names match, a switch the file has no key for gets none (its
login is refused as before: tests/deploy/test_failures_lab.py)."""

from __future__ import annotations

import base64
import hashlib
import hmac
from pathlib import Path

import asyncssh
import pytest

from fabricctl.deploy.hostkeys import HostKeyError, per_switch


def _public(key: asyncssh.SSHKey) -> str:
    return key.export_public_key().decode().split()[0] + " " + key.export_public_key().decode().split()[1]


def _hashed(name: str, salt: bytes) -> str:
    """OpenSSH's hashed form of a host name (`ssh-keygen -H`): |1|salt|HMAC-SHA1(salt, name)."""
    digest = hmac.new(salt, name.encode(), hashlib.sha1).digest()
    return f"|1|{base64.b64encode(salt).decode()}|{base64.b64encode(digest).decode()}"


def test_each_switch_gets_only_its_own_keys(tmp_path: Path) -> None:
    keys = [asyncssh.generate_private_key("ssh-ed25519") for _ in range(3)]
    known = tmp_path / "known_hosts"
    known.write_text(
        f"[10.0.0.1]:2201 {_public(keys[0])}\n"
        f"{_hashed('[10.0.0.2]:2202', b'0123456789abcdefghij')} {_public(keys[1])}\n"
        f"spine1.example,10.0.0.3 {_public(keys[2])}\n"
        "# a comment\n",
        encoding="utf-8",
    )
    own = per_switch(
        known,
        {
            "leaf1": ("10.0.0.1", 2201),
            "leaf2": ("10.0.0.2", 2202),
            "spine1": ("10.0.0.3", 22),
            "new": ("10.0.0.9", 22),
        },
    )
    assert own["leaf1"].read_text() == f"[10.0.0.1]:2201 {_public(keys[0])}\n"
    assert own["leaf2"].read_text() == f"[10.0.0.2]:2202 {_public(keys[1])}\n"  # a hashed name matches
    assert own["spine1"].read_text() == f"10.0.0.3 {_public(keys[2])}\n"  # port 22: the bare address
    assert own["new"].read_text() == ""  # no key: its login is refused, as with the whole file
    assert per_switch(known, {"again": ("10.0.0.1", 2201)})["again"] == own["leaf1"]  # written once


def test_a_file_that_is_not_known_hosts_is_named_before_any_login(tmp_path: Path) -> None:
    known = tmp_path / "known_hosts"
    known.write_text("# keys\nleaf1 ssh-ed25519 not-base64\n", encoding="utf-8")
    with pytest.raises(
        HostKeyError, match=r"known_hosts: line 2 is not a host key entry .*nothing was contacted"
    ):
        per_switch(known, {"leaf1": ("leaf1", 22)})
