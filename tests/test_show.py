"""`fabricctl show gpus|free`: per GPU port and per leaf/rail, as a table within 100 columns, JSON
or CSV with the same fields."""

from __future__ import annotations

import csv
import io
import json

import pytest

from fabricctl import pipeline
from tests.conftest import EOS_SMALL, REFERENCE, run_cli


def test_gpus_in_every_format(capsys: pytest.CaptureFixture[str]) -> None:
    compiled = pipeline.compile(EOS_SMALL)
    held = sum(len(a.ports) for a in compiled.allocation.tenants)
    code, out, _ = run_cli(["show", "gpus", "--root", str(EOS_SMALL), "--format", "json"], capsys)
    assert code == 0
    rows = json.loads(out)
    assert len(rows) == held == 27
    first = next(r for r in rows if r["tenant"] == "team-llm")
    assert first == {
        "tenant": "team-llm", "server": "node01", "nic": 0, "leaf": "leaf1", "port": "Ethernet9",
        "switch_ip": "172.20.11.0/31", "host_ip": "172.20.11.1/31", "vlan": None, "vni": 50011,
        "vrf": "tnt-team-llm",
    }  # fmt: skip
    l2 = next(r for r in rows if r["tenant"] == "team-hpc")
    assert l2["vlan"] and l2["vni"] != 50012 and l2["host_ip"] is None and l2["switch_ip"].endswith("/27")
    code, out, _ = run_cli(["show", "gpus", "--root", str(EOS_SMALL), "--format", "csv"], capsys)
    parsed = list(csv.DictReader(io.StringIO(out)))
    assert len(parsed) == held and parsed[0]["switch_ip"] == rows[0]["switch_ip"]
    assert parsed[0].keys() == rows[0].keys()
    code, out, _ = run_cli(["show", "gpus", "--root", str(EOS_SMALL), "--tenant", "intern-01"], capsys)
    assert code == 0 and "GPU ports held (1)" in out and "node07" in out and "team-llm" not in out


def test_unknown_tenant_is_one_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(["show", "gpus", "--root", str(EOS_SMALL), "--tenant", "nobody"], capsys)
    assert (code, out) == (1, "")
    assert err.startswith("error: --tenant nobody: no such tenant (allowed: intern-01, storage,")
    assert "Traceback" not in err and err.count("\n") == 1


def test_free_per_leaf_and_rail(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["show", "free", "--root", str(EOS_SMALL), "--format", "json"], capsys)
    rows = json.loads(out)
    assert [(r["leaf"], r["rail"]) for r in rows] == [
        ("leaf1", "0"),
        ("leaf2", "1"),
        ("leaf3", "2"),
        ("leaf4", "3"),
    ]
    assert sum(r["free"] for r in rows) == 32 - 27
    leaf3 = rows[2]
    assert leaf3["free"] == len(leaf3["free_ports"]) and "Ethernet15" not in leaf3["free_ports"], (
        "intern-01's"
    )
    code, out, _ = run_cli(["show", "free", "--root", str(EOS_SMALL), "--format", "csv"], capsys)
    assert out.splitlines()[0] == "leaf,rail,free,total,free_ports,free_servers"
    code, out, _ = run_cli(["show", "free", "--root", str(EOS_SMALL)], capsys)
    assert code == 0 and out.startswith("Free GPU ports: 5 of 32")


@pytest.mark.parametrize("what", ["gpus", "free"])
def test_tables_fit_100_columns(what: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["show", what, "--root", str(REFERENCE)], capsys)
    assert code == 0
    assert max(len(line) for line in out.splitlines()) <= 100
    assert "…" not in out, "nothing cut"


def test_allocations_table_fits_and_json_has_every_field(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["show", "allocations", "--root", str(REFERENCE)], capsys)
    assert code == 0 and max(len(line) for line in out.splitlines()) <= 100 and "…" not in out
    assert "VRF tnt-<tenant>, ACL tnt-<tenant>-in" in out
    code, out, _ = run_cli(["show", "allocations", "--root", str(REFERENCE), "--format", "json"], capsys)
    rows = json.loads(out)
    compiled = pipeline.compile(REFERENCE)
    for row, a in zip(rows, compiled.allocation.tenants, strict=True):
        assert (row["vrf"], row["acl"]) == (f"tnt-{a.name}", f"tnt-{a.name}-in"), "what the title says"
        assert row["l3vni"] == a.l3vni and row["gpus"] == len(a.ports)
    code, out, _ = run_cli(["show", "allocations", "--root", str(REFERENCE), "--format", "csv"], capsys)
    assert len(list(csv.DictReader(io.StringIO(out)))) == len(rows)


def test_show_tenant_names_what_exists(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(["show", "tenant", "intern-01", "--root", str(EOS_SMALL)], capsys)
    assert code == 0, err
    assert out.startswith("tenant intern-01 (id ")
    assert "last change: no recorded run changed it" in out
    code, _, err = run_cli(["show", "tenant", "nobody", "--root", str(EOS_SMALL)], capsys)
    assert code == 1
    assert "show tenant 'nobody': no such tenant (allowed: intern-01, storage, team-hpc, team-llm)" in err
