"""A stage that cannot finish ends every command with one clear line and exit 1, never a traceback.

Broken templates (syntax, a missing include, an undefined name, no device template at all) and
output folders that cannot be written, walked through every command that renders. Nothing is
contacted and nothing is written.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import EOS_SMALL, copy_fabric, run_cli

BROKEN = {
    "syntax": ("eos/acl.j2", "{% for acl in %}\n", "templates/eos/acl.j2 line 1: Expected an expression"),
    "missing include": (
        "eos/device.j2",
        '{% include "eos/no-such.j2" %}\n',
        "no template 'eos/no-such.j2' for platform 'eos' (searched templates/, then built-in templates/)",
    ),
    "undefined": (
        "eos/qos.j2",
        "{{ no_such_field }}\n",
        "templates/eos/qos.j2 line 1: 'no_such_field' is undefined",
    ),
    "filter error": ("eos/qos.j2", '{{ "not-an-address" | cidr_ip }}\n', "templates/eos/qos.j2 line 1:"),
}
COMMANDS = {
    "render": ["render"],
    "verify": ["verify"],
    "verify json": ["verify", "--format", "json"],
    "plan": ["plan", "--lab"],
    "apply": ["apply", "--lab", "--auto-approve"],
    "drift": ["drift", "--lab"],
}


@pytest.fixture
def fabric(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = copy_fabric(EOS_SMALL, tmp_path / "fabric")
    monkeypatch.chdir(root)
    return root


@pytest.mark.parametrize("command", list(COMMANDS))
@pytest.mark.parametrize("breakage", list(BROKEN))
def test_broken_template_is_one_line(
    fabric: Path,
    command: str,
    breakage: str,
    capsys: pytest.CaptureFixture[str],
    no_network: list[object],
) -> None:
    name, text, expected = BROKEN[breakage]
    path = fabric / "templates" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    code, out, err = run_cli([*COMMANDS[command], "--root", str(fabric)], capsys)
    assert code == 1, (out, err)
    assert err.startswith("error: ") and err.count("\n") == 1, err
    assert expected in err
    assert "Traceback" not in err and str(fabric) not in err
    assert not no_network, "nothing may be contacted when a template is broken"
    assert not (fabric / "out").exists() and not (fabric / ".fabricctl" / "lab").exists()


@pytest.mark.parametrize(
    ("out", "expected"),
    [
        ("tenants/team-llm.yaml/out", "error: cannot use tenants/team-llm.yaml/out: Not a directory"),
        ("/proc/fabricctl-out", "error: cannot use /proc/fabricctl-out: No such file or directory"),
    ],
)
def test_unwritable_out_folder_is_one_line(
    fabric: Path, out: str, expected: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, stdout, err = run_cli(["render", "--root", str(fabric), "--out", out], capsys)
    assert (code, stdout, err) == (1, "", expected + "\n")


@pytest.mark.parametrize("argv", [["show", "tenants"], ["show", "allocations"], ["schema"], ["validate"]])
def test_commands_that_do_not_render_ignore_templates(
    fabric: Path, argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    (fabric / "templates" / "eos").mkdir(parents=True)
    (fabric / "templates" / "eos" / "acl.j2").write_text("{% for %}\n", encoding="utf-8")
    code, _, err = run_cli([*argv, *(["--root", str(fabric)] if argv != ["schema"] else [])], capsys)
    assert code == 0, err
