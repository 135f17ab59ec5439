"""SONiC's `PLATFORM` and the parts only it assembles: the render through templates/sonic/ (one
line handing the intent to the CONFIG_DB builder), day 0 (a ZTP JSON whose configdb-json section
installs the CONFIG_DB, as SONiC's twin runs it) and what an unsaved change looks like."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import jinja2
import pytest
from jinja2.sandbox import SandboxedEnvironment

from fabricctl.compile.build import Compiled
from fabricctl.compile.intent import DeviceIntent
from fabricctl.lab.devices.sonic.factory import ztp_boot
from fabricctl.platforms import PLATFORMS, register, unregister
from fabricctl.platforms.sonic import PLATFORM
from fabricctl.platforms.sonic.document import render, split
from fabricctl.platforms.sonic.terminal import pending
from fabricctl.render import BUILTIN_TEMPLATES, normalise
from tests.conftest import render_one
from tests.test_sonic import as_sonic


@pytest.fixture(scope="module")
def sonic(nvue_small: Compiled) -> Iterator[dict[str, DeviceIntent]]:
    """The example's intents as SONiC switches, with SONiC known (registered here when no entry
    point has made it so)."""
    ours = "sonic" not in PLATFORMS
    if ours:
        register(PLATFORM)
    try:
        yield {name: as_sonic(intent) for name, intent in nvue_small.intents.items()}
    finally:
        if ours:
            unregister("sonic")


def test_the_platform_assembles_every_part() -> None:
    assert PLATFORM.name == "sonic" and PLATFORM.device_template == "sonic/device.j2"
    assert PLATFORM.release().name == "202511" and PLATFORM.model().name == "SN5600"
    assert PLATFORM.pusher().fetch is not None
    assert PLATFORM.port_name(64) == "Ethernet504" and PLATFORM.port_position("Ethernet504") == (64, None)


def test_the_render_is_the_config_db_document_through_the_template(sonic: dict[str, DeviceIntent]) -> None:
    intent = sonic["leaf1"]
    text = render_one(intent)
    assert text == normalise(render(intent))
    db, frr, _line = split("leaf1", text)
    assert db["DEVICE_METADATA"]["localhost"]["hostname"] == "leaf1"
    assert "router bgp" in frr


def _header(name: str, address: str = "192.0.2.11") -> str:
    """day0.j2 as `ztp render` fills it (deploy/ztp.py's context)."""
    env = SandboxedEnvironment(loader=jinja2.FileSystemLoader(BUILTIN_TEMPLATES))
    env.filters.update(PLATFORM.filters)
    context = {"name": name, "address": address, "prefixlen": 24, "username": "admin", "secret": "x"}
    return env.get_template(PLATFORM.day0.header_template).render(day0=context)


def _day0(intent: DeviceIntent) -> str:
    return _header(intent.name).rstrip("\n") + "\n" + render_one(intent)


def test_day0_is_a_ztp_json_the_twin_runs(sonic: dict[str, DeviceIntent]) -> None:
    intent = sonic["leaf1"]
    base = "http://192.0.2.1:8080/leaf1"
    made = PLATFORM.day0.files("leaf1", _day0(intent), base)
    boot = PLATFORM.day0.boot_file("leaf1")
    assert set(made) == {boot, "leaf1.config_db.json"}
    ztp = json.loads(made[boot])
    assert ztp == {"ztp": {"01-configdb-json": {"url": {"source": f"{base}/leaf1.config_db.json"}}}}
    served = {f"{base}/{name}": text for name, text in made.items()}
    text, booted = ztp_boot(f"{base}/{boot}", made[boot], served.__getitem__)
    assert booted
    db: dict[str, Any] = json.loads(made["leaf1.config_db.json"])
    assert db["MGMT_INTERFACE"] == {"eth0|192.0.2.11/24": {}}
    # The day-0 row is merged into the rendered one, not put in its place.
    assert db["DEVICE_METADATA"]["localhost"] == {
        "hostname": "leaf1",
        "docker_routing_config_mode": "split-unified",
    }
    assert split("leaf1", text)[0] == db
    assert PLATFORM.day0.dhcp_options(f"{base}/{boot}", "192.0.2.1") == [
        {"name": "boot-file-name", "data": f"{base}/{boot}"}
    ]


def test_a_name_cannot_open_a_json_key_of_its_own() -> None:
    name = 'x", "evil": "1'
    header = json.loads(_header(name))
    assert header["DEVICE_METADATA"] == {"localhost": {"hostname": name}}


def test_an_unsaved_change_is_pending(sonic: dict[str, DeviceIntent]) -> None:
    running = render(sonic["leaf1"])
    db = split("leaf1", running)[0]
    assert pending(running, json.dumps(db), None) is None
    del db["VLAN"]
    assert pending(running, json.dumps(db), None) == (
        "the running CONFIG_DB differs from /etc/sonic/config_db.json (a change applied and not saved)"
    )
    assert pending("", json.dumps(db), None) is None
