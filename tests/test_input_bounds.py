"""Caps on input size (model/bounds.py) and the rules that need the whole fabric: each cap is a
clear error that names it, reached without walking the oversized input (a CPU-time ceiling,
`time.process_time()`, far above what a cap costs and far below what walking 10^12 servers
would: a busy or slow machine never trips it), and none is hit by a fabric of 100,000 GPUs.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from fabricctl import pipeline
from fabricctl.model import bounds
from fabricctl.model.fabric import Cabling, check_ports
from fabricctl.model.problems import InputError
from fabricctl.model.tenant import Tenant
from fabricctl.platforms import PLATFORMS
from tests.conftest import EOS_SMALL, copy_fabric

TENANT: dict[str, Any] = {
    "name": "alpha",
    "id": 30,
    "description": "Alpha team",
    "isolation": "l3",
    "address_block": "172.20.30.0/28",
    "gpus": [{"server": "node07", "nics": [0, 1]}],
}


CPU_CEILING = 10.0  # seconds of CPU; a cap costs milliseconds, an uncapped walk hours


@contextmanager
def cpu_under(seconds: float = CPU_CEILING) -> Iterator[None]:
    start = time.process_time()
    yield
    used = time.process_time() - start
    assert used < seconds, f"{used:.2f} s of CPU (allowed: under {seconds} s)"


def _tenant_errors(**changes: Any) -> list[tuple[tuple[Any, ...], str]]:
    with cpu_under(), pytest.raises(ValidationError) as caught:
        Tenant.model_validate({**TENANT, **changes})
    return [(tuple(e["loc"]), e["type"]) for e in caught.value.errors()]


@pytest.mark.parametrize(
    ("changes", "loc"),
    [
        ({"gpus": [{"servers": ["node01"]}] * (bounds.MAX_GPU_SELECTIONS + 1)}, ("gpus",)),
        ({"gpus": [{"servers": ["node01"] * (bounds.MAX_SERVERS + 1)}]}, ("gpus", 0, "servers")),
        ({"gpus": [{"leaf": "leaf1", "ports": [9] * (bounds.MAX_PORT + 1)}]}, ("gpus", 0, "ports")),
        ({"gpus": [{"server": "node07", "nics": [0] * (bounds.MAX_NICS + 1)}]}, ("gpus", 0, "nics")),
        ({"shared_with": ["beta"] * (bounds.MAX_SHARED_WITH + 1)}, ("shared_with",)),
    ],
    ids=["gpu-selections", "servers", "ports", "nics", "shared_with"],
)
def test_list_caps(changes: dict[str, Any], loc: tuple[Any, ...]) -> None:
    assert _tenant_errors(**changes) == [(loc, "too_long")]


def test_the_caps_leave_room_for_100000_gpus() -> None:
    """A tenant holding a 100,000-GPU fabric (12,500 servers of 8) fits every cap, and its file
    (written with ranges) is far below the file cap."""
    servers = [f"gpu{i:05d}" for i in range(1, 12_501)]
    assert len(servers) <= bounds.MAX_SERVERS and bounds.MAX_GPU_SELECTIONS >= 100_000
    Tenant.model_validate({**TENANT, "gpus": [{"servers": servers}], "address_block": "10.0.0.0/14"})
    assert len("servers: [gpu00001-gpu12500]") < bounds.MAX_TENANT_FILE_BYTES // 1000
    assert max(m.ports for p in PLATFORMS.values() for m in p.models) * 2 <= bounds.MAX_PORT  # every lane


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("1-200000,1", "port 200000 is above 4096"),
        ("33-999999999", "port 999999999 is above 4096"),
        ("1-" + "9" * 5000, "is above 4096"),  # never int() of 5,000 digits
        (",".join(["1-4096"] * 4000), "listed more than once"),  # expansion stops at the cap
        ("16-1", "runs backwards"),
        ("0-3", "numbered from 1"),
    ],
    ids=["quadratic-before", "huge-range", "huge-number", "repeated-ranges", "backwards", "zero"],
)
def test_port_ranges_are_checked_before_they_are_expanded(spec: str, message: str) -> None:
    with cpu_under(), pytest.raises(ValueError, match=message):
        check_ports(spec)


def test_a_port_range_string_is_capped_in_length() -> None:
    spec = ",".join(str(1 + i % 64) for i in range(bounds.MAX_PORT * 2))
    with cpu_under(), pytest.raises(ValidationError) as caught:
        Cabling.model_validate(
            {
                "leaf_uplinks_per_spine": 1,
                "leaf_uplink_ports": "1",
                "leaf_gpu_ports": spec,
                "spine_downlink_ports": "1",
            }
        )
    assert [e["type"] for e in caught.value.errors()] == ["string_too_long"]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return copy_fabric(EOS_SMALL, tmp_path / "fabric")


def _write_tenant(root: Path, gpus: str) -> None:
    (root / "tenants" / "alpha.yaml").write_text(
        "name: alpha\nid: 30\ndescription: Alpha team\nisolation: l3\naddress_block: 172.20.30.0/24\n"
        f"gpus:\n{gpus}",
        encoding="utf-8",
    )


@pytest.mark.parametrize(
    ("gpus", "message"),
    [
        (
            "  - servers: [gpu100-gpu999999999999]\n",
            "range 'gpu100-gpu999999999999' names 999999999900 servers",
        ),
        (
            "  - servers: [" + ", ".join(f"{c}1-{c}60000" for c in "ab") + "]\n",
            "this tenant names more than 100000 servers",
        ),
        ("  - servers: [node1-node100000]\n", "range 'node1-node100000' reaches unknown server"),
    ],
    ids=["one-huge-range", "ranges-add-up", "largest-allowed-range"],
)
def test_server_ranges_are_capped_before_expansion(root: Path, gpus: str, message: str) -> None:
    _write_tenant(root, gpus)
    with cpu_under(), pytest.raises(InputError) as caught:
        pipeline.load(root)
    assert any(message in p.message for p in caught.value.problems), caught.value.render()


# --- reserved names ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("platform", "names"),
    [
        ("eos", ["default", "MGMT", "mgmt", "management", "fabricctl"]),
        ("comware", ["mgmt", "Mgmt", "management", "default", "fabricctl-ops"]),
    ],
)
def test_platforms_reserve_their_default_and_management_names(platform: str, names: list[str]) -> None:
    p = PLATFORMS[platform]
    for name in names:
        for spelling in (name, name.upper(), name.capitalize()):
            assert p.reserved(spelling) is not None, (platform, spelling)
    assert p.reserved("team-llm") is None and p.reserved("mgmt2") is None


def test_every_platform_reserves_at_least_the_common_names() -> None:
    for p in PLATFORMS.values():
        assert {"default", "mgmt", "management", "fabricctl*"} <= set(p.reserved_list())


def test_a_reserved_tenant_name_is_refused_on_a_mixed_fabric(root: Path) -> None:
    """Names are checked against every platform in the fabric (here: a Comware leaf too)."""
    hosts = root / "inventory" / "hosts.yaml"
    groups = root / "inventory" / "groups.yaml"
    hosts.write_text(
        hosts.read_text(encoding="utf-8").replace(
            "  groups: [leaf, eos]\n  data:\n    index: 4", "  groups: [leaf, comware]\n  data:\n    index: 4"
        ),
        encoding="utf-8",
    )
    assert "comware" in groups.read_text(encoding="utf-8")
    (root / "tenants" / "intern-01.yaml").rename(root / "tenants" / "mgmt.yaml")
    path = root / "tenants" / "mgmt.yaml"
    path.write_text(
        path.read_text(encoding="utf-8").replace("name: intern-01", "name: mgmt"), encoding="utf-8"
    )
    with pytest.raises(InputError) as caught:
        pipeline.load(root)
    (problem,) = [p for p in caught.value.problems if p.file == "tenants/mgmt.yaml"]
    assert (problem.line, problem.path) == (2, "name") and "is reserved" in problem.message
