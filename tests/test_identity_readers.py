"""Who a switch says it is, read as each vendor documents it, on real captures (NAPALM's EOS test
data, ntc-templates' Comware captures, NVIDIA's documented example) and on the lab, which must
answer in the same layouts with the serial its rack file names."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from netmiko import ConnectHandler
from ntc_templates.parse import parse_output

from fabricctl.lab import DeviceSpec, LabClock, LabFabric
from fabricctl.lab.runtime import lab_credentials
from fabricctl.platforms.comware import identity as comware
from fabricctl.platforms.eos import identity as eos
from fabricctl.platforms.identity import IdentityError, SwitchIdentity, same_model
from fabricctl.platforms.nvue import identity as nvue
from tests.conftest import send_text

CAPTURES = Path(__file__).parent / "captures"
MANUINFO = CAPTURES / "ntc-templates" / "hp_comware" / "display_device_manuinfo"


def _manuinfo(name: str) -> SwitchIdentity:
    text = (MANUINFO / name).read_text()
    return comware.parse(
        {comware.MANUINFO: parse_output(platform="hp_comware", command=comware.MANUINFO, data=text)}
    )


def _uncommented(path: Path) -> str:
    return "".join(line for line in path.read_text().splitlines(keepends=True) if not line.startswith("#"))


def test_eos_from_napalms_captures() -> None:
    data = json.loads((CAPTURES / "napalm" / "eos" / "show_version.json").read_text())
    assert eos.parse({eos.VERSION: data}) == SwitchIdentity("DE5B7D98C24A207BE70876CC0AD5546F", "cEOSLab")
    blank = json.loads(
        (CAPTURES / "napalm" / "eos" / "test_get_facts" / "normal" / "show_version.json").read_text()
    )
    with pytest.raises(IdentityError, match="'show version' names no serialNumber"):
        eos.parse({eos.VERSION: blank})  # a vEOS prints an empty serial: it cannot say who it is


def test_comware_from_ntc_templates_captures() -> None:
    assert _manuinfo("hp_comware_display_device_manuinfo_5930.raw") == SwitchIdentity(
        "CN43GG2001", "HP FlexFabirc 5930-32QSFP+ Switch JG726A"
    )  # the box's slot, never its fans' or power supplies' serials
    assert (
        _manuinfo("hp_comware_display_device_manuinfo.raw").model == "LS-12511-X-AC"
    )  # a chassis: `Chassis self`
    assert _manuinfo("hp_comware_display_device_manuinfo_no-slot-type.raw").serial == "219801A2X08218E0000M"
    for raw in sorted(MANUINFO.glob("*.raw")):
        if "cw5_only-new-chassis" in raw.name:
            assert _manuinfo(raw.name).serial == "21023LMAOPOPB113000172"  # the chassis prints none: slot 0
            continue
        assert _manuinfo(raw.name).serial, raw.name
    with pytest.raises(IdentityError, match="lists no chassis or slot"):
        comware.parse({comware.MANUINFO: []})


def test_nvue_from_nvidias_example() -> None:
    text = _uncommented(CAPTURES / "nvue" / "nv-show-platform.txt")
    assert nvue.parse({nvue.PLATFORM: text}) == SwitchIdentity("44:38:39:22:01:7a", "VX")
    with pytest.raises(IdentityError, match="names no serial-number"):
        nvue.parse({nvue.PLATFORM: "Error: The requested item does not exist: platform"})


def test_a_rack_files_model_is_found_in_what_the_switch_calls_itself() -> None:
    assert same_model("7060X5-64", "DCS-7060X5-64") and same_model("SN5600", "MSN5600")
    assert same_model("5930-32QSFP+", "HP FlexFabirc 5930-32QSFP+ Switch JG726A")
    assert not same_model("S9825-64D", "S9855-48CD8D") and not same_model("", "anything")


@pytest.mark.lab
def test_the_lab_answers_in_each_vendors_layout_with_the_rack_files_serial(tmp_path: Path) -> None:
    specs = [
        DeviceSpec("sw-eos", "eos", mgmt_ip="192.0.2.21", serial="JPE2210LF01"),
        DeviceSpec("sw-cw", "comware", mgmt_ip="192.0.2.22", serial="210235A3RVH21B000123"),
        DeviceSpec("sw-nv", "nvue", mgmt_ip="192.0.2.23", serial="MT2411X01234"),
    ]
    user, password = lab_credentials()
    with LabFabric(specs, state_dir=tmp_path / "state", clock=LabClock.frozen()) as lab:
        for spec, kind in zip(specs, ("arista_eos", "hp_comware", "cumulus_linux"), strict=True):
            ep = lab.endpoints()[spec.name]
            conn = ConnectHandler(
                device_type=kind, host=ep.host, port=ep.ssh_port, username=user, password=password
            )
            try:
                if spec.platform == "eos":
                    found = eos.parse({eos.VERSION: json.loads(send_text(conn, "show version | json"))})
                elif spec.platform == "comware":
                    rows = conn.send_command(comware.MANUINFO, use_textfsm=True)
                    found = comware.parse({comware.MANUINFO: rows})
                else:
                    found = nvue.parse({nvue.PLATFORM: send_text(conn, nvue.PLATFORM)})
            finally:
                conn.disconnect()
            assert found.serial == spec.serial and same_model(spec.model, found.model), (spec, found)
