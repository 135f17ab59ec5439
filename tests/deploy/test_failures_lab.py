"""Each failure cause end to end: lab faults at plan time, strict host keys, a name that does not
resolve and a closed port on a real-switch run, a switch that does not converge; the stage log.

Apply-time faults (rejected line, refused commit, hang, dropped session) are named in
test_faults.py, where each also proves the switch is left exactly as before.
"""

from __future__ import annotations

import json
import logging
import socket
from pathlib import Path

import pytest
import yaml

from fabricctl.deploy.failures import HINTS, LAB_AUTH_HINT
from fabricctl.lab import Faults
from fabricctl.logs import reset_logging, setup_logging
from fabricctl.secrets import register_secret
from tests.conftest import EOS_SMALL, copy_fabric, run_cli

from .conftest import PASSWORD, LabRoot

PLAN_FAULTS = {
    "auth": (Faults(auth_failure=True), "auth", LAB_AUTH_HINT),
    "refused": (Faults(unreachable=True), "refused", HINTS["refused"]),
    "timeout": (Faults(latency=3600), "timeout", HINTS["timeout"]),  # the lab clock is frozen: never answers
}


@pytest.mark.parametrize("small_lab", ["comware", "eos"], indirect=True)
@pytest.mark.parametrize("case", list(PLAN_FAULTS))
def test_plan_names_why_a_switch_cannot_be_read(
    small_lab: LabRoot, capsys: pytest.CaptureFixture[str], case: str
) -> None:
    faults, cause, hint = PLAN_FAULTS[case]
    small_lab.lab.set_faults("leaf2", faults)
    code, out, err = small_lab.run("plan", "--lab", "--timeout", "2", "--compact", capsys=capsys)
    assert code == 1
    assert f"! leaf2: unreachable ({_word(cause)}):" in out, out
    assert f"hint: {hint}" in out
    assert "NornirSubTaskError" not in out + err, "the cause, not Nornir's wrapper"
    assert err.rstrip().endswith(f"plan incomplete: 1 switch(es) unreachable: leaf2 ({cause})"), err
    code, out, _ = small_lab.run("plan", "--lab", "--timeout", "2", "--format", "json", capsys=capsys)
    leaf2 = json.loads(out)["switches"]["leaf2"]
    assert (leaf2["status"], leaf2["cause"], leaf2["hint"]) == ("unreachable", cause, hint)


def _word(cause: str) -> str:
    from fabricctl.deploy.failures import CAUSE_WORDS

    return CAUSE_WORDS[cause]


@pytest.mark.parametrize("small_lab", ["comware"], indirect=True)
@pytest.mark.parametrize("known", ["missing", "mismatch"])
def test_host_keys_are_checked(small_lab: LabRoot, capsys: pytest.CaptureFixture[str], known: str) -> None:
    """Host keys are checked by default (the lab's own keys are its known_hosts): a switch whose
    key is unknown or changed is refused by name, though the inventory asks for no check; with
    --insecure-host-keys the same plan reads it, says so, and nothing else changes."""
    import asyncssh

    from fabricctl.endpoints import endpoints_from_json, known_hosts_of, lab_json

    path = known_hosts_of(lab_json(small_lab.root))  # the keys the lab published
    leaf2 = endpoints_from_json(json.loads(lab_json(small_lab.root).read_text()))["leaf2"]
    other = asyncssh.generate_private_key("ssh-ed25519").export_public_key().decode().strip()
    lines = path.read_text().splitlines()
    ours = f"[{leaf2.host}]:{leaf2.ssh_port} "
    assert any(line.startswith(ours) for line in lines)
    kept = [line for line in lines if not line.startswith(ours)]  # one nobody recorded
    if known == "mismatch":  # a switch answering with another key
        kept.append(ours + other)
    path.write_text("".join(f"{line}\n" for line in kept))
    groups = small_lab.root / "inventory" / "groups.yaml"
    inventory = yaml.safe_load(groups.read_text())
    inventory["comware"]["connection_options"]["netmiko"]["extras"]["ssh_strict"] = False
    groups.write_text(yaml.safe_dump(inventory))
    code, out, err = small_lab.run(
        "plan", "--lab", "--limit", "leaf1,leaf2", "--format", "json", capsys=capsys
    )
    assert code == 1
    switches = json.loads(out)["switches"]
    assert switches["leaf1"]["status"] != "unreachable", "leaf1's key is the one recorded"
    assert switches["leaf2"]["cause"] == "host-key", switches["leaf2"]
    words = "does not match known_hosts" if known == "mismatch" else "not in known_hosts"
    assert words in switches["leaf2"]["error"]
    assert err.rstrip().endswith("plan incomplete: 1 switch(es) unreachable: leaf2 (host-key)"), err
    code, out, err = small_lab.run(
        "plan", "--lab", "--limit", "leaf2", "--format", "json", "--insecure-host-keys", capsys=capsys
    )
    assert code == 0, err
    assert json.loads(out)["switches"]["leaf2"]["status"] != "unreachable"
    assert "warning: --insecure-host-keys: no SSH host key is checked" in err


def test_real_switches_need_a_known_hosts_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without a known_hosts file nothing is contacted: one line naming what to set."""
    root = copy_fabric(EOS_SMALL, tmp_path / "fabric")
    monkeypatch.setenv("FABRICCTL_USERNAME", "ops")
    monkeypatch.setenv("FABRICCTL_PASSWORD", "s3cret-never-shown")
    monkeypatch.setenv("FABRICCTL_KNOWN_HOSTS", str(tmp_path / "absent"))
    code, out, err = run_cli(["plan", "--root", str(root), "--limit", "leaf1"], capsys)
    assert code == 1
    assert f"FABRICCTL_KNOWN_HOSTS={tmp_path / 'absent'}" in err and "nothing was contacted" in err
    assert "--insecure-host-keys for a lab fabric" in err
    assert "Traceback" not in err and "s3cret" not in out + err
    assert len(err.strip().splitlines()) == 1 or "error:" in err.strip().splitlines()[-1]


@pytest.fixture
def offline_resolver(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Nothing leaves the machine: `.invalid` names fail as the resolver fails them (RFC 6761
    reserves the TLD), loopback resolves, any other name fails the test."""
    real = socket.getaddrinfo
    asked: list[str] = []

    def getaddrinfo(host: object, *args: object, **kwargs: object) -> object:
        name = host.decode() if isinstance(host, bytes) else str(host)
        asked.append(name)
        if name.endswith(".invalid"):
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        if name not in ("127.0.0.1", "localhost", "::1"):
            pytest.fail(f"a real-switch test tried to resolve {name}")
        return real(host, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return asked


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_real_switches_dns_and_refused(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    offline_resolver: list[str],
) -> None:
    """No --lab: a name that does not resolve and a port nothing listens on, told apart."""
    root = copy_fabric(EOS_SMALL, tmp_path / "fabric")
    hosts = root / "inventory" / "hosts.yaml"
    data = yaml.safe_load(hosts.read_text())
    data["leaf1"].update(hostname="127.0.0.1", port=_closed_port())
    data["leaf2"]["hostname"] = "no-such-switch.invalid"
    hosts.write_text(yaml.safe_dump(data))
    monkeypatch.setenv("FABRICCTL_USERNAME", "ops")
    monkeypatch.setenv("FABRICCTL_PASSWORD", "real-switch-secret")
    (tmp_path / "known_hosts").write_text("")  # refused and dns fail before any host key is seen
    monkeypatch.setenv("FABRICCTL_KNOWN_HOSTS", str(tmp_path / "known_hosts"))
    code, out, err = run_cli(
        ["plan", "--root", str(root), "--limit", "leaf1,leaf2", "--timeout", "5", "--format", "json"], capsys
    )
    assert code == 1
    switches = json.loads(out)["switches"]
    assert switches["leaf1"]["cause"] == "refused", switches["leaf1"]
    assert "127.0.0.1" in switches["leaf1"]["error"]
    assert switches["leaf2"]["cause"] == "dns", switches["leaf2"]
    assert "no-such-switch.invalid" in switches["leaf2"]["error"]
    assert "leaf1 (refused), leaf2 (dns)" in err
    assert "no-such-switch.invalid" in offline_resolver
    assert "real-switch-secret" not in out + err


@pytest.mark.parametrize("small_lab", ["comware", "eos"], indirect=True)
def test_a_switch_that_does_not_converge_is_a_verify_mismatch(small_lab: LabRoot) -> None:
    """The switch took every line but does not run the intent afterwards (here: the intent asks
    for one more VRF than the commands create): verify mismatch, and the switch is as before."""
    from fabricctl import pipeline
    from fabricctl.deploy.apply import ApplyOptions, apply_plan
    from fabricctl.deploy.context import open_fabric
    from fabricctl.deploy.service import PlanOptions

    root = small_lab.root
    plan, prepared = pipeline.plan(root, PlanOptions(limit=("leaf2",)), lambda _, limit: limit, lab=True)
    before = small_lab.running("leaf2")
    extra = (
        "ip vpn-instance tnt-ghost\n"
        if small_lab.lab.devices["leaf2"].platform == "comware"
        else "vrf instance tnt-ghost\n"
    )
    prepared.configs["leaf2"] += extra
    with open_fabric(root, True, {"leaf2"}) as nr:
        report = apply_plan(plan, prepared, nr, ApplyOptions(timeout=30))
    leaf2 = report.switches["leaf2"]
    assert (leaf2.status, leaf2.stage, leaf2.cause) == ("failed", "verify", "verify"), leaf2
    assert leaf2.hint == HINTS["verify"] and "tnt-ghost" in leaf2.output
    assert small_lab.running("leaf2") == before


@pytest.mark.parametrize("small_lab", ["eos"], indirect=True)
def test_verbose_and_log_file(
    small_lab: LabRoot, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, _, err = small_lab.run("plan", "--lab", "--compact", capsys=capsys)
    assert code == 0 and "fabricctl.deploy.fetch" not in err
    code, _, err = small_lab.run("plan", "--lab", "--compact", "-v", capsys=capsys)
    assert code == 0
    assert "I fabricctl.deploy.fetch: leaf2: read running + saved config" in err, err
    assert "paramiko" not in err, "-v is fabricctl's stage log; -vv adds the clients"
    log = small_lab.root / "logs" / "plan.log"
    small_lab.lab.set_faults("leaf3", auth_failure=True)
    code, _, err = small_lab.run("plan", "--lab", "--log-file", str(log), capsys=capsys)
    assert code == 1
    text = log.read_text()
    assert "DEBUG" in text and "paramiko.transport" in text, "the clients' debug records are kept"
    assert "leaf3: cannot read: connect: authentication failed" in text
    assert "plan incomplete" in text, "the error that ended the command is the last record"
    assert "fabricctl.deploy.fetch" not in err, "a log file alone keeps stderr as it was"
    monkeypatch.setenv("FABRICCTL_LOG_FILE", str(small_lab.root / "logs" / "env.log"))
    small_lab.lab.clear_faults()
    assert small_lab.run("plan", "--lab", "--compact", capsys=capsys)[0] == 0
    assert "leaf3: read running + saved config" in (small_lab.root / "logs" / "env.log").read_text()
    assert PASSWORD not in small_lab.all_text()


def test_the_log_never_holds_a_secret(tmp_path: Path) -> None:
    """Whatever a library logs, in whatever spelling (bytes repr, JSON), the secret is redacted."""
    secret = "pa'ss\\word-42"
    register_secret(secret)
    path = tmp_path / "debug.log"
    setup_logging(2, path)
    try:
        logging.getLogger("netmiko").debug("write_channel: %s", (secret + "\n").encode())
        logging.getLogger("fabricctl.test").info("login %s", json.dumps({"password": secret}))
        try:
            raise RuntimeError(f"refused {secret}")
        except RuntimeError:
            logging.getLogger("paramiko.transport").exception("boom")
    finally:
        reset_logging()
    text = path.read_text()
    assert "write_channel" in text and "Traceback" in text
    for form in (secret, repr(secret.encode())[2:-1], json.dumps(secret)[1:-1]):
        assert form not in text, form


@pytest.mark.parametrize("small_lab", ["comware", "eos"], indirect=True)
def test_a_rejected_line_is_seen_when_its_error_arrives(
    small_lab: LabRoot, capsys: pytest.CaptureFixture[str]
) -> None:
    """The switch refuses one line and never answers the next one (held): the push must report
    the refusal from the error alone. A push that waits for one prompt per line would sit on
    the held line until its --timeout (300 s) and report a timeout instead; one that closes the
    stuck session politely (`quit`, then wait for a prompt) would wait that long again before
    restoring. Neither wait may happen: the push takes less than one --timeout in all."""
    import re

    plan_file = small_lab.root / "plan.json"
    # The plan is made for leaf2 alone: apply pushes a plan as it was made (its --limit too).
    assert small_lab.run("plan", "--lab", "--limit", "leaf2", "-o", str(plan_file), capsys=capsys)[0] == 0
    commands = json.loads(plan_file.read_text())["switches"]["leaf2"]["commands"]
    bad = next(i for i, c in enumerate(commands) if re.match(r"(ip access-list|acl advanced) ", c))
    rejected, held = commands[bad], commands[bad + 1]
    small_lab.lab.set_faults("leaf2", reject=f"^{re.escape(rejected)}$", hold=f"^{re.escape(held.strip())}$")
    before = small_lab.running("leaf2")
    try:
        code, out, _ = small_lab.run(
            "apply", str(plan_file), "--lab", "--json", "--timeout", "300", "--limit", "leaf2",
            capsys=capsys,
        )  # fmt: skip
    finally:
        small_lab.lab.release("leaf2")
    leaf2 = json.loads(out)["switches"]["leaf2"]
    assert code == 1
    assert (leaf2["status"], leaf2["stage"], leaf2["cause"]) == ("failed", "load", "rejected"), leaf2
    assert rejected.strip() in leaf2["message"], leaf2
    told = leaf2["message"] + leaf2["output"]
    assert "restored" in told or "discarded" in told, leaf2
    assert leaf2["timings"]["push"] < 300, "no wait for the --timeout anywhere in the push"
    assert small_lab.running("leaf2") == before
