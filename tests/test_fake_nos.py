"""A NOS is a plugin: TinyOS (tests/fake_nos/), a distribution of its own with its own
pyproject, entry points, templates, switch model, parser, remediation, push, health, day 0 and
lab twin, is installed next to fabricctl and runs a tenant's whole life on the lab through the
CLI, with the health gate on: added, changed, removed, each planned, applied and re-planned clean.
Delivered as a rack, its switches boot from factory default by the same day-0 flow as every NOS's:
`rack add`, `ztp render`, the Kea configuration and `ztp serve`, each switch fetching its own
boot file, then in service (`rack accept`).

Nothing of it is registered in this process and nothing in it is borrowed from another NOS: the
CLI and the lab run as programs that find it through its entry points, as they find any NOS.

TinyOS is declarative: its config is one YAML object tree, changed by `set <path> <value>` and
`delete <path>` under a commit-confirm: no modes, no exit command, no negate prefix.
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import yaml

from fabricctl.lab.factory import DeviceSpec
from tests.conftest import TESTS

FAKE_NOS = TESTS / "fake_nos"
PACKAGE = FAKE_NOS / "fabricctl_fakenos"
#: Its example fabrics: the running pod, and the pod delivered as rack r01 (docs/day0.md).
FABRICS = ("fabric", "day0")
#: The modules a NOS's own package may not import: every other NOS, product side and twin.
OTHER_NOSES = (
    "fabricctl.platforms.comware",
    "fabricctl.platforms.eos",
    "fabricctl.platforms.nvue",
    "fabricctl.lab.devices",
)
LAB_START_SECONDS = 60


def _install(into: Path) -> Path:
    """TinyOS built and installed from a copy of its source (the build writes next to it), with
    the build backend already installed: no index is asked."""
    source = shutil.copytree(FAKE_NOS, into / "src", ignore=shutil.ignore_patterns(*FABRICS))
    site = into / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "--target",
            str(site),
            str(source),
        ],
        check=True,
        capture_output=True,
    )
    return site


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _install(tmp_path_factory.mktemp("tinyos"))


def _env(site: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("FABRICCTL_LAB_")}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(site), env.get("PYTHONPATH", "")) if p)
    return env


@contextmanager
def _program(argv: list[str], env: dict[str, str], log_path: Path) -> Iterator[subprocess.Popen[bytes]]:
    """`argv` running as a program, its output in `log_path`, stopped however the block ends."""
    with log_path.open("w") as log:
        proc = subprocess.Popen([sys.executable, *argv], env=env, stdout=log, stderr=log)
        try:
            yield proc
        finally:
            proc.terminate()
            proc.wait(timeout=30)


def _lab_json(root: Path) -> dict[str, Any]:
    return dict(json.loads((root / ".fabricctl" / "lab" / "lab.json").read_text(encoding="utf-8")))


@contextmanager
def _running_lab(root: Path, env: dict[str, str], log_path: Path) -> Iterator[None]:
    """The lab of the fabric at `root` running as a program, once it has written its lab.json."""
    with _program(["-m", "fabricctl.lab", "--root", str(root)], env, log_path) as proc:
        ready = root / ".fabricctl" / "lab" / "lab.json"
        deadline = time.monotonic() + LAB_START_SECONDS
        while not ready.is_file():
            assert proc.poll() is None, log_path.read_text()
            assert time.monotonic() < deadline, "the lab did not start"
            time.sleep(0.2)
        yield


@pytest.fixture
def lab(site: Path, tmp_path: Path) -> Iterator[tuple[Path, dict[str, str]]]:
    """The TinyOS example fabric copied to a fresh root, its lab running as a program (stopped
    however the test ends)."""
    root = shutil.copytree(FAKE_NOS / "fabric", tmp_path / "fabric")
    env = _env(site)
    with _running_lab(root, env, tmp_path / "lab.log"):
        yield root, env


def _run(env: dict[str, str], root: Path, *argv: str) -> tuple[int, str]:
    done = subprocess.run(
        [sys.executable, "-m", "fabricctl", *argv, "--root", str(root)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    return done.returncode, done.stdout + done.stderr


def _configs(root: Path) -> dict[str, dict[str, Any]]:
    """Each lab switch's running tree as it stores it, checked to be its startup tree too (every
    commit confirmed, then saved)."""
    out: dict[str, dict[str, Any]] = {}
    for folder in sorted((root / ".fabricctl" / "lab" / "state").iterdir()):
        running = (folder / "running-config").read_text(encoding="utf-8")
        assert (folder / "startup-config").read_text(encoding="utf-8") == running, folder.name
        out[folder.name] = yaml.safe_load(running)
    return out


def _holding(root: Path, vrf: str) -> dict[str, list[str]]:
    """Switch -> its ports in `vrf`, for each switch that holds the VRF."""
    return {
        name: sorted(p for p, body in tree["interface"].items() if body.get("vrf") == vrf)
        for name, tree in _configs(root).items()
        if vrf in tree.get("vrf", {})
    }


def _apply(env: dict[str, str], root: Path, expect: str, *flags: str) -> None:
    """Apply with the health gate on; its plan's diff names `expect`."""
    code, out = _run(env, root, "apply", "--lab", "--auto-approve", "--diff", *flags)
    assert code == 0 and expect in out and "Result: " in out and "rolled back" not in out, out
    record = json.loads(Path(out.rpartition("Record: ")[2].split()[0]).read_text(encoding="utf-8"))
    assert record["options"]["health_gate"] is True
    statuses = {s["status"] for s in record["switches"].values()}
    assert "changed" in statuses and statuses <= {"changed", "unchanged"}, statuses


TENANT = """\
name: intern-01
id: 21
description: Single GPU for an intern project
isolation: l3
address_block: 172.20.21.0/30
lossless: false
gpus:
  - server: node07
    nics: [{nics}]
"""


@pytest.mark.lab
def test_a_nos_of_its_own_distribution_runs_a_tenants_life_on_the_lab(
    lab: tuple[Path, dict[str, str]],
) -> None:
    root, env = lab
    code, out = _run(env, root, "apply", "--lab", "--auto-approve")  # the fabric, with team-llm
    assert code == 0, out
    assert len(_holding(root, "tnt-team-llm")) == 4

    tenant = root / "tenants" / "intern-01.yaml"
    tenant.write_text(TENANT.format(nics="2"), encoding="utf-8")  # added
    _apply(env, root, "vrf tnt-intern-01")
    ((leaf, ports),) = _holding(root, "tnt-intern-01").items()
    tree = _configs(root)[leaf]
    assert tree["vrf"]["tnt-intern-01"]["vni"] == "50021" and len(ports) == 1
    assert (
        tree["interface"][ports[0]]["acl"] == "tnt-intern-01-in"
        and "shutdown" not in tree["interface"][ports[0]]
    )

    tenant.write_text(TENANT.format(nics="2, 3"), encoding="utf-8")  # changed: a second GPU
    _apply(env, root, "tnt-intern-01")
    held = _holding(root, "tnt-intern-01")
    assert sum(map(len, held.values())) == 2 and ports[0] in held[leaf]

    tenant.unlink()  # removed
    _apply(env, root, "-vrf tnt-intern-01", "--allow-disruptive")
    assert not _holding(root, "tnt-intern-01")
    configs = _configs(root)
    assert "tnt-intern-01-in" not in configs[leaf]["acl"]
    assert all(configs[sw]["interface"][p]["shutdown"] == "on" for sw, ps in held.items() for p in ps)
    code, out = _run(env, root, "plan", "--lab", "--detailed-exitcode")
    assert code == 0, out
    code, out = _run(env, root, "check", "--lab")  # what the gate read: TinyOS's own `show health`
    assert code == 0 and out.startswith("healthy"), out
    assert all(
        f"{check} " in out for check in ("bgp-underlay", "bgp-evpn", "lldp", "gpu-port", "vrf", "vni")
    ), out


RACK_SWITCHES = ("spine1", "spine2", "leaf1", "leaf2", "leaf3", "leaf4")


@pytest.mark.lab
def test_a_tinyos_rack_boots_from_factory_default_by_ztp(site: Path, tmp_path: Path) -> None:
    root = shutil.copytree(FAKE_NOS / "day0", tmp_path / "pod")
    env = _env(site)
    code, out = _run(
        env, root, "rack", "add", "r01", "--template", str(root / "rack-template.yaml"),
        "--serials", str(root / "serials-r01.csv"),
    )  # fmt: skip
    assert code == 0, out
    code, out = _run(env, root, "ztp", "render", "--lab")
    assert code == 0, out
    folder = root / ".fabricctl" / "ztp"
    assert sorted(p.name for p in folder.glob("*.tiny.yaml")) == sorted(
        f"{n}.tiny.yaml" for n in RACK_SWITCHES
    )
    kea = json.loads((folder / "kea-dhcp4.json").read_text(encoding="utf-8"))
    (subnet,) = kea["Dhcp4"]["subnet4"]
    boot_files = {r["hostname"]: r["option-data"] for r in subnet["reservations"]}
    assert boot_files["leaf1"] == [
        {"name": "boot-file-name", "data": "http://192.0.2.5:8080/leaf1/leaf1.tiny.yaml"}
    ], boot_files
    log = tmp_path / "lab.log"
    with _running_lab(root, env, log):
        deadline = time.monotonic() + LAB_START_SECONDS
        while "ztp_waiting" not in _lab_json(root):  # the lab's ZTP agent has listed them
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.2)
        assert sorted(_lab_json(root)["ztp_waiting"]) == sorted(RACK_SWITCHES)  # factory default
        serve = ["-m", "fabricctl", "ztp", "serve", "--lab", "--port", "0", "--root", str(root)]
        with _program(serve, env, tmp_path / "serve.log"):
            deadline = time.monotonic() + LAB_START_SECONDS
            while _lab_json(root).get("ztp_waiting", RACK_SWITCHES):
                assert time.monotonic() < deadline, log.read_text() + (tmp_path / "serve.log").read_text()
                time.sleep(0.5)
        booted = [ln for ln in log.read_text().splitlines() if ln.startswith("ztp: ") and "boot file" in ln]
        assert len(booted) == len(RACK_SWITCHES) and all(
            "rebooted with the startup-config" in ln for ln in booted
        )
        fetched = [
            json.loads(ln) for ln in (folder / "fetches.jsonl").read_text(encoding="utf-8").splitlines()
        ]
        assert sorted((r["switch"], r["path"], r["status"]) for r in fetched) == sorted(
            (n, f"/{n}/{n}.tiny.yaml", 200) for n in RACK_SWITCHES
        )  # each switch its own file, once
        code, out = _run(env, root, "plan", "--lab", "--detailed-exitcode")  # it runs its day-0 config
        assert code == 0 and "6 unchanged" in out, out
        code, out = _run(env, root, "rack", "accept", "r01", "--lab", "--soak", "0s")  # in service
        assert code == 0 and "rack r01 accepted" in out, out


def test_the_fake_nos_borrows_nothing_from_another_nos() -> None:
    imported: set[str] = set()
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                imported.add(node.module)
            elif isinstance(node, ast.Import):
                imported |= {a.name for a in node.names}
    assert "fabricctl.platforms" in {m.rpartition(".")[0] for m in imported}  # the test can see imports
    assert not [m for m in imported if m.startswith(OTHER_NOSES)]


def test_its_entry_points_are_its_own(site: Path) -> None:
    (dist,) = site.glob("fabricctl_fakenos-*.dist-info")
    points = (dist / "entry_points.txt").read_text(encoding="utf-8")
    assert "[fabricctl.platforms]\ntinyos = fabricctl_fakenos.platform:PLATFORM" in points
    assert "[fabricctl.lab_devices]\ntinyos = fabricctl_fakenos.lab:NOS" in points
    code = "from fabricctl.platforms import PLATFORMS; print(PLATFORMS.source('tinyos'))"
    done = subprocess.run([sys.executable, "-c", code], env=_env(site), capture_output=True, text=True)
    assert done.stdout.strip() == "entry point fabricctl_fakenos.platform:PLATFORM", done.stderr


def test_an_unknown_lab_platform_names_the_known_ones() -> None:
    with pytest.raises(ValueError, match=r"unsupported lab platform 'vyos' \(known: comware, eos"):
        DeviceSpec("x", "vyos")
