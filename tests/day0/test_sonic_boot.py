"""SONiC racks boot from factory default by the same Kea flow: the ZTP JSON option 67 names, its
configdb-json section installing the switch's day-0 CONFIG_DB (its name and management address
merged into the rendered tables). FRR's configuration is no ZTP plugin's: the first apply sends
it through vtysh (platforms/sonic/ztp.py), and the fabric then plans clean."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.day0.helpers import booted_pod

#: A JSON Patch operation as the plan's diff prints it (`+ add /PORT/...`).
_PATCH_OP = re.compile(r"^[+-] (?:add|remove|replace) /")


def test_a_sonic_rack_boots_on_its_config_db_and_its_first_apply_is_frr_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with booted_pod(tmp_path / "pod", "sonic", how="json") as pod:
        assert all(b.ok for b in pod.boots), [b.line() for b in pod.boots]
        code, out, err = pod.run("plan", "--lab", "--diff", capsys=capsys)
        assert code == 0, out + err
        changed = [ln for ln in out.splitlines() if ln.startswith(("+ ", "- "))]
        assert changed and all(ln.startswith("+ ") for ln in changed), changed
        assert not [ln for ln in changed if _PATCH_OP.match(ln)]  # CONFIG_DB is the day-0 one
        assert "+ router bgp 65200" in changed
        code, out, err = pod.run("apply", "--lab", "--auto-approve", capsys=capsys)
        assert code == 0 and "rolled back" not in out, out + err
        code, out, err = pod.run("plan", "--lab", "--detailed-exitcode", capsys=capsys)
        assert code == 0 and "0 unreachable (+0 -0 lines)" in out, out + err
