"""The NVUE twin's REST API answers plain HTTP clients (httpx, requests) as NVIDIA's NVUE API
guide shows: basic auth, POST /nvue_v1/revision, PATCH ?rev=, PATCH the revision to apply (with
auto-prompt, and with confirm on the lab clock), GET its state, GET the configuration."""

from __future__ import annotations

import urllib.parse
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import requests
import urllib3

from fabricctl.lab import DeviceSpec, LabClock, LabFabric
from tests.lab.conftest import PASSWORD, USER

APPLY: dict[str, str | dict[str, str]] = {"state": "apply", "auto-prompt": {"ays": "ays_yes"}}


@pytest.fixture
def lab(tmp_path: Path) -> Iterator[LabFabric]:
    specs = [DeviceSpec("leaf01", "nvue", mgmt_ip="192.0.2.11")]
    with LabFabric(specs, state_dir=tmp_path / "state", clock=LabClock.frozen()) as fabric:
        yield fabric


@pytest.fixture
def api(lab: LabFabric) -> Iterator[httpx.Client]:
    ep = lab.endpoints()["leaf01"]
    assert ep.eapi_port is not None
    with httpx.Client(
        base_url=f"https://{ep.host}:{ep.eapi_port}/nvue_v1", auth=(USER, PASSWORD), verify=False
    ) as client:
        yield client


def test_the_documented_change_workflow(api: httpx.Client, lab: LabFabric) -> None:
    created = api.post("/revision")
    assert created.status_code == 200
    ((rev, state),) = created.json().items()
    assert state == {"state": "pending", "transition": {"issue": {}, "progress": ""}}
    patched = api.patch("/interface/lo/ipv4/address", params={"rev": rev}, json={"10.0.255.11/32": {}})
    assert patched.status_code == 200 and patched.json() == {"10.0.255.11/32": {}}
    api.patch(
        "/", params={"rev": rev}, json={"interface": {"swp1": {"link": {"mtu": 9216, "state": {"up": {}}}}}}
    )
    assert "swp1" not in lab.device("leaf01").running_config()
    applied = api.patch(f"/revision/{rev}", json=APPLY)
    assert applied.status_code == 200 and applied.json()["state"] == "apply"
    assert api.get(f"/revision/{rev}").json()["state"] == "applied"
    assert api.get("/interface/lo/ipv4/address", params={"rev": "applied"}).json() == {"10.0.255.11/32": {}}
    swp1 = api.get("/interface/swp1").json()
    assert swp1["link"]["mtu"] == 9216 and swp1["type"] == "swp"
    assert "carrier-transitions" in api.get("/interface/swp1/link/stats").json()
    assert "10.0.255.11/32" in lab.device("leaf01").startup_config()


def test_a_path_or_value_the_reference_refuses_changes_nothing(api: httpx.Client) -> None:
    rev = next(iter(api.post("/revision").json()))
    bad = api.patch("/interface/swp1/link", params={"rev": rev}, json={"mtu": 100, "state": {"up": {}}})
    assert bad.status_code == 400 and "100" in bad.json()["detail"]
    assert api.get("/interface", params={"rev": rev}).json().keys() == {"eth0", "lo"}
    assert api.patch("/interface/swp1/link", json={"mtu": 9000}).status_code == 400  # no ?rev=


def test_apply_with_confirm_rolls_back_on_the_lab_clock_unless_confirmed(
    api: httpx.Client, lab: LabFabric
) -> None:
    rev = next(iter(api.post("/revision").json()))
    api.patch("/interface/swp1/link/mtu", params={"rev": rev}, json=9000)
    assert api.patch(f"/revision/{rev}", json={**APPLY, "confirm": "60s"}).status_code == 200
    assert api.get(f"/revision/{rev}").json()["state"] == "confirm"
    lab.advance(61)
    assert api.get(f"/revision/{rev}").json()["state"] == "confirm_fail"
    assert "9000" not in lab.device("leaf01").running_config()
    rev = next(iter(api.post("/revision").json()))
    api.patch("/interface/swp1/link/mtu", params={"rev": rev}, json=9000)
    api.patch(f"/revision/{rev}", json={**APPLY, "confirm": "60s"})
    assert api.patch(f"/revision/{rev}", json={"state": "confirm_yes"}).status_code == 200
    lab.advance(120)
    assert api.get(f"/revision/{rev}").json()["state"] == "applied"
    assert "9000" in lab.device("leaf01").running_config()


def test_text_batch_unset_and_auth(api: httpx.Client, lab: LabFabric) -> None:
    rev = next(iter(api.post("/revision").json()))
    batch = "nv set interface swp2 link mtu 1500\nnv set interface swp2 description 'two words'\n"
    ok = api.patch("/", params={"rev": rev}, content=batch, headers={"Content-Type": "text/plain"})
    assert ok.status_code == 200
    assert api.get("/interface/swp2", params={"rev": rev}).json()["description"] == "two words"
    assert api.delete("/interface/swp2/description", params={"rev": rev}).status_code == 204
    assert "description" not in api.get("/interface/swp2", params={"rev": rev}).json()
    ep = lab.endpoints()["leaf01"]
    denied = httpx.get(
        f"https://{ep.host}:{ep.eapi_port}/nvue_v1/interface", auth=(USER, "wrong"), verify=False
    )
    assert denied.status_code == 401
    lab.set_faults("leaf01", auth_failure=True)
    assert api.get("/interface").status_code == 401


def test_requests_runs_nvidias_python_example(lab: LabFabric) -> None:
    """The guide's Python example, with requests as it is written there (verify=False)."""
    urllib3.disable_warnings()
    ep = lab.endpoints()["leaf01"]
    end_point = f"https://{ep.host}:{ep.eapi_port}/nvue_v1"
    auth = requests.auth.HTTPBasicAuth(username=USER, password=PASSWORD)
    changeset = requests.post(url=end_point + "/revision", auth=auth, verify=False).json().popitem()[0]
    r = requests.patch(
        url=end_point + "/interface/lo/ipv4/address",
        auth=auth,
        verify=False,
        json={"99.99.99.99/32": {}},
        params={"rev": changeset},
    )
    assert r.status_code == 200
    requests.patch(
        url=end_point + "/revision/" + urllib.parse.quote(changeset, safe=""),
        auth=auth,
        verify=False,
        json=APPLY,
    )
    assert (
        requests.get(end_point + f"/revision/{changeset}", auth=auth, verify=False).json()["state"]
        == "applied"
    )
    assert (
        "99.99.99.99/32"
        in requests.get(end_point + "/interface/lo/ipv4/address", auth=auth, verify=False).json()
    )
