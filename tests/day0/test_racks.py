"""racks/<rack>.yaml as input: `rack add` writes it from a template and the factory's serials,
validate checks it against the inventory and cabling rules with file, line and field, and a rack
that is not accepted holds no placeable GPU."""

from __future__ import annotations

from pathlib import Path

import pytest

from fabricctl import pipeline
from fabricctl.model.problems import InputError
from tests.conftest import EOS_SMALL, copy_fabric, run_cli
from tests.day0.helpers import DAY0, day0_pod


@pytest.fixture
def pod(tmp_path: Path) -> Path:
    return day0_pod(tmp_path / "pod")


def problems(root: Path) -> list[str]:
    with pytest.raises(InputError) as exc:
        pipeline.load(root)
    return [p.render() for p in exc.value.problems]


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_rack_add_writes_rack_and_inventory_that_validate(
    pod: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fabric, _docs, topo, _alloc = pipeline.load(pod)
    assert [s.name for s in fabric.switches] == ["spine1", "spine2", *(f"leaf{i}" for i in range(1, 9))]
    rack = (pod / "racks" / "r02.yaml").read_text(encoding="utf-8")
    assert "rail_group: 2" in rack and 'spine_ports: "17-32"' in rack and "node16" in rack
    assert "address: 192.0.2.106" in rack  # the pool's next free address after r01's six
    assert len(topo.servers) == 16
    code, out, _ = run_cli(["validate", "--root", str(pod)], capsys)
    assert code == 0, out


def test_rack_add_dry_run_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = day0_pod(tmp_path / "pod", racks=(("r01", "spine-rack-template.yaml"),))
    hosts = (root / "inventory" / "hosts.yaml").read_text(encoding="utf-8")
    argv = ["rack", "add", "r02", "--template", str(root / "rack-template.yaml")]
    code, out, _ = run_cli(
        [*argv, "--serials", str(root / "serials-r02.csv"), "--root", str(root), "--dry-run"], capsys
    )
    assert code == 0 and "leaf5:" in out and "name: r02" in out
    assert not (root / "racks" / "r02.yaml").exists()
    assert (root / "inventory" / "hosts.yaml").read_text(encoding="utf-8") == hosts


def test_rack_add_refuses_a_short_or_wrong_serial_list(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = day0_pod(tmp_path / "pod", racks=(("r01", "spine-rack-template.yaml"),))
    short = tmp_path / "short.csv"
    short.write_text(
        "\n".join((root / "serials-r02.csv").read_text(encoding="utf-8").splitlines()[:8]) + "\n"
    )
    argv = ["rack", "add", "r02", "--template", str(root / "rack-template.yaml"), "--root", str(root)]
    code, _, err = run_cli([*argv, "--serials", str(short)], capsys)
    assert code == 1 and "short.csv:end: expected 'server,<serial>,' and 4 NIC MACs for node12" in err
    wrong = tmp_path / "wrong.csv"
    wrong.write_text("leaf,SN0001,02:00:00:00:00:01\nspine,SN0002,02:00:00:00:00:02\n")
    code, _, err = run_cli([*argv, "--serials", str(wrong)], capsys)
    assert (
        code == 1
        and "wrong.csv:2: expected 'leaf,<serial>,<management mac>' for the leaf with index 6" in err
    )
    assert not (root / "racks" / "r02.yaml").exists()


def test_rack_add_leaves_nothing_behind_when_the_fabric_refuses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = day0_pod(tmp_path / "pod", racks=(("r01", "spine-rack-template.yaml"),))
    hosts = (root / "inventory" / "hosts.yaml").read_text(encoding="utf-8")
    serials = tmp_path / "dup.csv"  # r02's list with r01's first leaf MAC: two switches, one MAC
    text = (root / "serials-r02.csv").read_text(encoding="utf-8")
    serials.write_text(text.replace("02:1c:73:02:02:00", "02:1c:73:01:02:00"), encoding="utf-8")
    argv = ["rack", "add", "r02", "--template", str(root / "rack-template.yaml"), "--root", str(root)]
    code, _, err = run_cli([*argv, "--serials", str(serials)], capsys)
    assert code == 1
    assert "racks/r02.yaml:13: switches[0].mac: 02:1c:73:01:02:00 is also in racks/r01.yaml (leaf1)" in err
    assert not (root / "racks" / "r02.yaml").exists()
    assert (root / "inventory" / "hosts.yaml").read_text(encoding="utf-8") == hosts


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ('mac: "02:1c:73:02:02:08"', 'mac: "01:00:5e:00:00:01"', "racks/r02.yaml:19: switches[1].mac: "),
        (
            "address: 192.0.2.107",
            "address: 192.0.2.50",
            "racks/r02.yaml:20: switches[1].address: 192.0.2.50 is not leaf6's management address",
        ),
        (
            'spine_ports: "17-32"',
            'spine_ports: "1-16"',
            "racks/r02.yaml:7: plugs_into.spine_ports: 1-16: the cabling rules give 17-32",
        ),
        (
            "- name: node09",
            "- name: node01",
            "racks/r02.yaml:34: servers[0].name: node01 is also in racks/r01.yaml",
        ),
        (
            "rail_group: 2",
            "rail_group: 7",
            "racks/r02.yaml:5: plugs_into.rail_group: rail group 7 has no leaves",
        ),
        (
            "role: leaf",
            "role: spine",
            "racks/r02.yaml:10: switches[0].role: leaf5 is a leaf in inventory/hosts.yaml, not a spine",
        ),
    ],
)
def test_rack_file_errors_name_file_line_field(pod: Path, old: str, new: str, expected: str) -> None:
    edit(pod / "racks" / "r02.yaml", old, new)
    found = problems(pod)
    assert any(p.startswith(expected) for p in found), found


def test_rack_file_must_be_named_for_its_rack(pod: Path) -> None:
    (pod / "racks" / "r02.yaml").rename(pod / "racks" / "r03.yaml")
    assert problems(pod) == [
        "racks/r03.yaml:2: name: file is named r03.yaml but the rack is 'r02' (allowed: r02.yaml)"
    ]


def test_racks_not_accepted_hold_no_placeable_gpu(pod: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(["tenant", "new", "t1", "--gpus", "4", "--root", str(pod)], capsys)
    assert (
        code == 1
        and "no GPU is free (64 more are in racks not accepted: r01, r02; fabricctl rack accept RACK)" in err
    )
    code, out, _ = run_cli(["show", "free", "--root", str(pod)], capsys)
    assert code == 0 and "Free GPU ports: 0 of 64 (64 more in racks not accepted: r01, r02)" in out


def test_a_fabric_without_racks_places_as_before(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = copy_fabric(EOS_SMALL, tmp_path / "small")
    code, out, _ = run_cli(["show", "free", "--root", str(root)], capsys)
    assert code == 0 and "not accepted" not in out
    code, _, err = run_cli(["tenant", "new", "t9", "--gpus", "4", "--root", str(root), "--dry-run"], capsys)
    assert code == 0, err


def test_example_is_a_pod_before_its_first_rack() -> None:
    assert not (DAY0 / "racks").exists()
