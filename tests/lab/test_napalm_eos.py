"""Real NAPALM `eos` driver over the lab eAPI: merge, replace, compare, commit, revert."""

from __future__ import annotations

import pytest
from napalm.base.exceptions import MergeConfigException

from fabricctl.lab import LabFabric

from .conftest import napalm_eos


def test_merge_compare_commit(lab: LabFabric) -> None:
    dev = napalm_eos(lab, "leaf01")
    dev.load_merge_candidate(config="vlan 60\n   name storage\ninterface Ethernet4\n   mtu 9214\n")
    diff = dev.compare_config()
    assert "+vlan 60" in diff and "+   name storage" in diff and "+   mtu 9214" in diff
    assert "vlan 60" not in lab.device("leaf01").running_config()
    dev.commit_config()
    assert dev.compare_config() == ""
    cfg = dev.get_config(retrieve="all")
    dev.close()
    assert "vlan 60\n   name storage" in cfg["running"]
    assert cfg["startup"] == cfg["running"]  # napalm's commit ends with write memory


def test_invalid_line_is_reported_over_eapi(lab: LabFabric) -> None:
    dev = napalm_eos(lab, "leaf01")
    with pytest.raises(MergeConfigException, match="Invalid input"):
        dev.load_merge_candidate(config="vlan 61\nbogus stuff\n")
    dev.close()
    assert "vlan 61" not in lab.device("leaf01").running_config()
    assert lab.device("leaf01").transactions() == {}


def test_replace_candidate_keeps_only_given_config(lab: LabFabric) -> None:
    dev = napalm_eos(lab, "leaf02")
    running = dev.get_config(retrieve="running")["running"]
    new = running.replace("ntp server 192.0.2.250\n", "ntp server 192.0.2.99\n")
    dev.load_replace_candidate(config=new)
    diff = dev.compare_config()
    assert "-ntp server 192.0.2.250" in diff and "+ntp server 192.0.2.99" in diff
    dev.commit_config()
    dev.close()
    assert "ntp server 192.0.2.99" in lab.device("leaf02").running_config()


def test_commit_revert_in_reverts_when_not_confirmed(lab: LabFabric) -> None:
    before = lab.device("leaf01").running_config()
    dev = napalm_eos(lab, "leaf01")
    dev.load_merge_candidate(config="vlan 70\n")
    dev.commit_config(revert_in=1)
    assert dev.has_pending_commit()
    assert "vlan 70" in lab.device("leaf01").running_config()
    lab.advance(1)
    assert not dev.has_pending_commit()
    assert lab.device("leaf01").running_config() == before
    dev.close()


def test_commit_revert_in_confirmed_stays(lab: LabFabric) -> None:
    dev = napalm_eos(lab, "leaf01")
    dev.load_merge_candidate(config="vlan 71\n")
    dev.commit_config(revert_in=1)
    dev.confirm_commit()
    lab.advance(1)
    dev.close()
    assert "vlan 71" in lab.device("leaf01").running_config()


def test_discard_and_rollback(lab: LabFabric) -> None:
    dev = napalm_eos(lab, "leaf01")
    dev.load_merge_candidate(config="vlan 80\n")
    dev.discard_config()
    assert dev.compare_config() == ""
    assert lab.device("leaf01").transactions() == {}
    dev.load_merge_candidate(config="vlan 81\n")
    dev.commit_config()
    assert "vlan 81" in lab.device("leaf01").running_config()
    dev.rollback()  # configure replace flash:rollback-0 (startup before the commit)
    dev.close()
    assert "vlan 81" not in lab.device("leaf01").running_config()
    assert "hostname leaf01" in lab.device("leaf01").running_config()
