"""The scrapli most engineers run today (the 2025 releases, with scrapli-community for Comware)
opens, reads and configures the lab on both platforms.

Legacy scrapli and the 2026 rewrite share the import name `scrapli`, so one environment holds only
one of them: this test builds a small venv with `scrapli<2026` + scrapli-community (+ paramiko)
and drives the lab from there, while the lab runs here.
"""

from __future__ import annotations

import json
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from fabricctl.lab import LabFabric

from .conftest import PASSWORD, USER

_DRIVE = r"""
import json, sys
from scrapli import Scrapli

host, port, user, password, platform, show, *config = sys.argv[1:]
conn = Scrapli(
    host=host, port=int(port), auth_username=user, auth_password=password,
    auth_strict_key=False, platform=platform, transport="paramiko", timeout_ops=60,
)
conn.open()
try:
    shown = conn.send_command(show)
    configured = conn.send_configs(config)
    print(json.dumps({"shown": shown.result, "failed": shown.failed or configured.failed}))
finally:
    conn.close()
"""


_LEGACY = ("scrapli[paramiko]<2026", "scrapli-community<2026")


@pytest.fixture(scope="module")
def legacy_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("scrapli-2025")
    venv.create(where, with_pip=False)
    python = where / "bin" / "python"
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", *_LEGACY],
        check=True,
    )
    return python


@pytest.mark.parametrize(
    ("device", "platform", "show", "expect", "config"),
    [
        (
            "leaf01",
            "arista_eos",
            "show version",
            "Arista DCS-",
            ["interface Ethernet1", "description legacy-scrapli"],
        ),
        (
            "spine01",
            "hp_comware",
            "display version",
            "H3C Comware Software",
            ["interface FourHundredGigE1/0/1", "description legacy-scrapli"],
        ),
    ],
)
def test_legacy_scrapli_reads_and_configures(
    lab: LabFabric, legacy_python: Path, device: str, platform: str, show: str, expect: str, config: list[str]
) -> None:
    ep = lab.endpoints()[device]
    done = subprocess.run(
        [
            str(legacy_python),
            "-c",
            _DRIVE,
            ep.host,
            str(ep.ssh_port),
            USER,
            PASSWORD,
            platform,
            show,
            *config,
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert expect in out["shown"] and not out["failed"], out
    assert "description legacy-scrapli" in lab.device(device).running_config()
