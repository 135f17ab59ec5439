"""What the product reads of a running lab (fabricctl/endpoints.py): the files it publishes, a
sharded lab's joined, and a lab started as a program when none runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from fabricctl.deploy.hostkeys import HostKeyError, lab_known_hosts
from fabricctl.endpoints import (
    LabStartError,
    endpoints_from_json,
    known_hosts_of,
    lab_certificate,
    lab_json,
    published_known_hosts,
    running_lab,
    shards_dir,
    started_lab,
)
from fabricctl.procs import pid_alive
from tests.conftest import EOS_SMALL, copy_fabric


def _device(name: str, host: str, key: str) -> dict[str, object]:
    return {"name": name, "platform": "eos", "host": host, "port": 20022, "eapi_port": 20443, "host_key": key}


def _shard(root: Path, index: int, count: int, pid: int, device: dict[str, object], pem: str) -> None:
    folder = shards_dir(root)
    folder.mkdir(parents=True, exist_ok=True)
    info = folder / f"{index}.json"
    data = {
        "pid": pid,
        "root": str(root),
        "shard": f"{index}/{count}",
        "devices": [device],
        "tls_certificate": pem,
    }
    info.write_text(json.dumps(data))
    known_hosts_of(info).write_text(f"[{device['host']}]:20022 {device['host_key']}\n")


def test_a_sharded_labs_files_are_joined(tmp_path: Path) -> None:
    """Every live shard's switches, host keys and certificate; a dead shard's are not read."""
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    _shard(tmp_path, 1, 3, os.getpid(), _device("leaf2", "127.9.0.2", "ssh-ed25519 AAAAtwo"), "CERT-1\n")
    _shard(tmp_path, 2, 3, os.getpid(), _device("leaf1", "127.9.0.1", "ssh-ed25519 AAAAone"), "CERT-2\n")
    _shard(
        tmp_path, 3, 3, int(dead.stdout), _device("leaf3", "127.9.0.3", "ssh-ed25519 AAAAgone"), "CERT-3\n"
    )
    data = running_lab(tmp_path)
    assert data is not None
    assert list(endpoints_from_json(data)) == ["leaf1", "leaf2"]  # in address order
    assert not data["complete"]
    assert lab_certificate(data) == b"CERT-1\nCERT-2\n"
    files = published_known_hosts(tmp_path, data)
    assert files == [shards_dir(tmp_path) / "1.known_hosts", shards_dir(tmp_path) / "2.known_hosts"]
    joined = lab_known_hosts(files).read_text()
    assert joined == "[127.9.0.2]:20022 ssh-ed25519 AAAAtwo\n[127.9.0.1]:20022 ssh-ed25519 AAAAone\n"


def test_an_unsharded_labs_known_hosts_is_read_where_it_is(tmp_path: Path) -> None:
    path = lab_json(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"pid": os.getpid(), "devices": []}))
    data = running_lab(tmp_path)
    assert data is not None and lab_certificate(data) is None
    known_hosts_of(path).write_text("")
    assert lab_known_hosts(published_known_hosts(tmp_path, data)) == path.parent / "known_hosts"


def test_a_lab_for_one_command_is_a_process_of_its_own(tmp_path: Path) -> None:
    """Started with `python -m fabricctl.lab`, it publishes what a detached lab does; it is
    stopped (and its lab.json gone) when the block ends."""
    root = copy_fabric(EOS_SMALL, tmp_path / "fabric")
    with started_lab(root) as data:
        pid = int(data["pid"])
        assert pid != os.getpid() and pid_alive(pid)
        assert running_lab(root) == data
        keys = lab_known_hosts(published_known_hosts(root, data)).read_text().splitlines()
        assert len(keys) == len(data["devices"]) == 6
        assert lab_certificate(data) is not None
    assert not pid_alive(pid)
    assert running_lab(root) is None and not lab_json(root).exists()


def test_a_lab_that_cannot_start_is_one_error(tmp_path: Path) -> None:
    """No inventory: the lab program exits, and what it said is the error."""
    with (
        pytest.raises(LabStartError, match=r"^no Nornir inventory at .*inventory$"),
        started_lab(tmp_path),
    ):
        pass
    assert "inventory" in (tmp_path / ".fabricctl" / "lab" / "lab.log").read_text()


def test_a_known_hosts_file_the_lab_did_not_publish_is_refused(tmp_path: Path) -> None:
    with pytest.raises(HostKeyError, match=r"known_hosts file .* cannot be read"):
        lab_known_hosts([tmp_path / "known_hosts"])
