"""The verify command: exit codes, text and JSON output, --configs folders, the --lab hook."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from rich.console import Console

from fabricctl.cli.verify import run_verify, verify_command

from .conftest import FABRICS, Rendered


def write_configs(folder: Path, configs: dict[str, str]) -> None:
    folder.mkdir(exist_ok=True)
    for name, text in configs.items():
        (folder / f"{name}.cfg").write_text(text, encoding="utf-8")


def test_clean_fabric_exits_0_with_capacity_table() -> None:
    result = CliRunner().invoke(verify_command, ["--root", str(FABRICS["eos"])])
    assert result.exit_code == 0, result.output
    assert "verify: ok" in result.output
    assert "oversubscription" in result.output and "GPUs per tenant" in result.output
    assert "storage <-> team-llm" in result.output  # allowed exceptions are shown


def test_json_is_machine_readable() -> None:
    result = CliRunner().invoke(verify_command, ["--root", str(FABRICS["eos"]), "--format", "json"])
    assert result.exit_code == 0
    assert "\x1b[" not in result.output
    data = json.loads(result.output)
    assert data["ok"] is True and data["violations"] == []
    assert {"scope", "metric", "used", "limit", "ok", "detail"} <= set(data["capacity"][0])
    assert data["exceptions"]


def test_saved_running_configs_with_foreign_lines_and_a_fault(
    rendered: dict[str, Rendered], tmp_path: Path
) -> None:
    configs = dict(rendered["eos"].configs)
    # a running config carries lines fabricctl does not own; and someone left a port up
    configs["leaf1"] = "hostname leaf1\nusername admin secret 0 x\n!\n" + configs["leaf1"].replace(
        "   description node07 nic0 unassigned\n   mtu 9164\n   no switchport\n   shutdown\n",
        "   description node07 nic0 unassigned\n   mtu 9164\n   no switchport\n",
    )
    write_configs(tmp_path, configs)
    args = ["--root", str(FABRICS["eos"]), "--configs", str(tmp_path)]
    result = CliRunner().invoke(verify_command, args)
    assert result.exit_code == 1
    assert "port-not-shut" in result.output and "leaf1" in result.output and "Ethernet15" in result.output
    data = json.loads(CliRunner().invoke(verify_command, [*args, "--format", "json"]).output)
    (v,) = data["violations"]
    assert (v["check"], v["switch"], v["object"]) == ("port-not-shut", "leaf1", "Ethernet15")
    assert configs["leaf1"].splitlines()[v["line"] - 1] == "interface Ethernet15"


def test_missing_config_file_is_a_violation(rendered: dict[str, Rendered], tmp_path: Path) -> None:
    configs = {k: v for k, v in rendered["eos"].configs.items() if k != "spine2"}
    write_configs(tmp_path, configs)
    result = CliRunner().invoke(
        verify_command, ["--root", str(FABRICS["eos"]), "--configs", str(tmp_path), "--format", "json"]
    )
    assert result.exit_code == 1
    assert [v["check"] for v in json.loads(result.output)["violations"]] == ["config-missing"]


def test_fetch_hook_is_used(rendered: dict[str, Rendered]) -> None:
    asked: list[list[str]] = []

    def fetch(names: list[str]) -> dict[str, str]:
        asked.append(names)
        return {n: t for n, t in rendered["eos"].configs.items() if n != "leaf4"}

    console = Console(record=True, width=200)
    assert run_verify(FABRICS["eos"], fetch=fetch, console=console) == 1
    assert sorted(asked[0]) == sorted(rendered["eos"].configs)
    assert "config-missing" in console.export_text()


def test_bad_input_exits_1(tmp_path: Path) -> None:
    (tmp_path / "inventory").mkdir()
    result = CliRunner().invoke(verify_command, ["--root", str(tmp_path), "--format", "json"])
    assert result.exit_code == 1
    assert json.loads(result.output)["ok"] is False


def test_violation_message_is_one_line_with_line_and_witness(rendered: dict[str, Rendered]) -> None:
    from fabricctl import pipeline

    configs = dict(rendered["eos"].configs)
    configs["spine1"] = configs["spine1"].replace(
        "qos map dscp 26 to traffic-class 3", "qos map dscp 26 to traffic-class 4"
    )
    (v,) = pipeline.verify(rendered["eos"].compiled, configs).violations
    assert v.message.startswith("DSCP 26 (line ") and "qos map dscp 26 to traffic-class 4" in v.message
    assert "\n" not in v.message
