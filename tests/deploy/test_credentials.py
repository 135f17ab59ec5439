"""Switch logins: environment, secrets file, clear errors, and secrets never echoed."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from fabricctl import secrets
from fabricctl.deploy.credentials import CredentialError, Credentials, login, real_login
from fabricctl.secrets import REDACTED, describe_error, redact

ENV = (
    "FABRICCTL_USERNAME",
    "FABRICCTL_PASSWORD",
    "FABRICCTL_READ_USERNAME",
    "FABRICCTL_READ_PASSWORD",
    "FABRICCTL_SECRETS_FILE",
)


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ENV:
        monkeypatch.delenv(name, raising=False)


def secret() -> str:
    """A password no other test registered (the redactor is process-wide)."""
    return f"pw-{uuid.uuid4().hex[:12]}"


def test_environment_login_is_registered_for_redaction(monkeypatch: pytest.MonkeyPatch) -> None:
    pw = secret()
    monkeypatch.setenv("FABRICCTL_USERNAME", "netops")
    monkeypatch.setenv("FABRICCTL_PASSWORD", pw)
    creds = real_login()
    assert creds == Credentials("netops", pw)
    assert redact(f"login netops/{pw} failed") == f"login netops/{REDACTED} failed"
    assert pw not in repr(creds) and pw not in str(creds)


def test_secrets_file(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    pw = secret()
    path = tmp_path / "secrets.yaml"
    path.write_text(f"username: netops\npassword: {pw}\n", encoding="utf-8")
    monkeypatch.setenv("FABRICCTL_SECRETS_FILE", str(path))
    assert real_login() == Credentials("netops", pw)
    assert pw not in redact(pw)


def test_environment_wins_over_file_per_field(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    pw = secret()
    path = tmp_path / "secrets.yaml"
    path.write_text(f"username: from-file\npassword: {pw}\n", encoding="utf-8")
    monkeypatch.setenv("FABRICCTL_SECRETS_FILE", str(path))
    monkeypatch.setenv("FABRICCTL_USERNAME", "from-env")
    assert real_login() == Credentials("from-env", pw)


def test_missing_login_is_a_clear_error() -> None:
    with pytest.raises(CredentialError) as err:
        login(lab=False)
    msg = str(err.value)
    for name in ENV:
        assert name in msg
    assert "--lab" in msg


def test_password_without_user_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    pw = secret()
    monkeypatch.setenv("FABRICCTL_PASSWORD", pw)
    with pytest.raises(CredentialError) as err:
        real_login()
    assert pw not in str(err.value)


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (None, "cannot read it (FileNotFoundError)"),
        ("username: x\npassword: [{PW}\n", "cannot read it"),  # YAML error: content not echoed
        ("- {PW}\n", "expected a mapping"),
        ("username: netops\n", "no switch credentials"),
    ],
)
def test_bad_secrets_file_never_echoes_its_content(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, content: str | None, expected: str
) -> None:
    pw = secret()
    path = tmp_path / "secrets.yaml"
    if content is not None:
        path.write_text(content.replace("{PW}", pw), encoding="utf-8")
    monkeypatch.setenv("FABRICCTL_SECRETS_FILE", str(path))
    with pytest.raises(CredentialError) as err:
        real_login()
    assert expected in str(err.value)
    assert pw not in str(err.value)


def test_describe_error_redacts_and_keeps_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    pw = secret()
    monkeypatch.setenv("FABRICCTL_USERNAME", "netops")
    monkeypatch.setenv("FABRICCTL_PASSWORD", pw)
    real_login()
    text = describe_error(RuntimeError(f"auth failed for netops:{pw}\ntraceback line 2 {pw}"))
    assert text == f"RuntimeError: auth failed for netops:{REDACTED}"


def test_redact_longest_first_and_short_values_ignored() -> None:
    base = secret()
    secrets.register_secret(base)
    secrets.register_secret(base + "-longer")
    assert redact(f"{base}-longer") == REDACTED  # no `********-longer` leftover
    secrets.register_secret("ab")  # too short to redact safely (would mangle every text)
    assert redact("abc") == "abc"


def test_lab_login_is_registered() -> None:
    creds = login(lab=True)
    assert creds.username and creds.password
    assert redact(f"x {creds.password} y") == f"x {REDACTED} y"


def test_plan_reads_with_the_read_login_apply_writes_with_the_write_one(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    for var in ("FABRICCTL_USERNAME", "FABRICCTL_PASSWORD", "FABRICCTL_SECRETS_FILE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("FABRICCTL_READ_USERNAME", "viewer")
    monkeypatch.setenv("FABRICCTL_READ_PASSWORD", "read-only-pw")
    assert real_login("read") == Credentials("viewer", "read-only-pw")
    with pytest.raises(CredentialError, match="set FABRICCTL_USERNAME and FABRICCTL_PASSWORD"):
        real_login("write")  # the read login never configures a switch
    monkeypatch.setenv("FABRICCTL_USERNAME", "netops")
    monkeypatch.setenv("FABRICCTL_PASSWORD", "write-pw")
    assert real_login("write") == Credentials("netops", "write-pw")
    assert real_login("read").username == "viewer"
    for var in ("FABRICCTL_READ_USERNAME", "FABRICCTL_READ_PASSWORD"):
        monkeypatch.delenv(var)
    assert real_login("read").username == "netops", "one account: the write login also reads"
    secrets = tmp_path / "secrets.yaml"
    secrets.write_text("username: netops\npassword: w\nread_username: viewer\nread_password: r\n")
    for var in ("FABRICCTL_USERNAME", "FABRICCTL_PASSWORD"):
        monkeypatch.delenv(var)
    monkeypatch.setenv("FABRICCTL_SECRETS_FILE", str(secrets))
    assert (real_login("read"), real_login("write")) == (
        Credentials("viewer", "r"),
        Credentials("netops", "w"),
    )
