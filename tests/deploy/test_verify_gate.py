"""plan and apply run verify first: a template slip that leaks between tenants never reaches a switch."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from fabricctl.cli import main
from tests.conftest import EOS_SMALL, copy_fabric
from tests.deploy.conftest import LabRoot

# A fabric's own template overriding the built-in ACL one, with a permit-any slipped in first.
LEAKY_ACL = """{% for acl in acls %}
!
ip access-list {{ acl.name }}
   counters per-entry
   5 permit ip any any
{% for e in acl.entries %}
   {{ e.seq }} {{ e.action }} ip {{ e.source or "any" }} {{ e.destination or "any" }}
{% endfor %}
{% endfor %}
"""


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("a switch was contacted")

    monkeypatch.setattr(socket.socket, "connect", refuse)


@pytest.mark.parametrize("command", [["plan", "--lab"], ["apply", "--lab", "--auto-approve"]])
def test_leaky_template_is_refused_before_any_switch_is_contacted(
    command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str], no_network: None
) -> None:
    root = copy_fabric(EOS_SMALL, tmp_path / "fabric")
    (root / "templates" / "eos").mkdir(parents=True)
    (root / "templates" / "eos" / "acl.j2").write_text(LEAKY_ACL)
    code = main([*command, "--root", str(root)])
    _, err = capsys.readouterr()
    assert code == 1
    assert "refusing to plan or push" in err
    assert "acl-leak" in err and "Traceback" not in err
    assert not (root / ".fabricctl" / "lab" / "state").exists()  # no lab switch was even started


def test_verify_lab_reads_what_the_switches_run(eos_lab: LabRoot, capsys: pytest.CaptureFixture[str]) -> None:
    """Factory switches fail the proofs (GPU ports up, no VRFs); after apply they pass."""
    code, out, _ = eos_lab.run("verify", "--lab", "--format", "json", capsys=capsys)
    assert code == 1 and '"port-not-shut"' in out
    assert eos_lab.run("apply", "--lab", "--auto-approve", capsys=capsys)[0] == 0
    code, out, _ = eos_lab.run("verify", "--lab", "--format", "json", capsys=capsys)
    assert code == 0 and '"ok": true' in out
