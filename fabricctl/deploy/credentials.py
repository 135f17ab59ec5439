"""Logins for real switches or the lab.

Passwords come from the environment (FABRICCTL_USERNAME / FABRICCTL_PASSWORD) or a YAML
secrets file named by FABRICCTL_SECRETS_FILE; never from inventory files. Every secret that is
loaded is registered with the redactor (fabricctl/secrets.py).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import yaml

from fabricctl.errors import StageError
from fabricctl.secrets import REDACTED, register_secret


class CredentialError(StageError):
    """No usable login was configured (the message says where fabricctl looked)."""


@dataclass(frozen=True)
class Credentials:
    username: str
    password: str

    def __repr__(self) -> str:  # dataclass repr would print the password
        return f"Credentials(username={self.username!r}, password={REDACTED!r})"


def lab_login() -> Credentials:
    from fabricctl.lab.runtime import lab_credentials

    user, password = lab_credentials()
    register_secret(password)
    return Credentials(user, password)


def real_login() -> Credentials:
    """Environment first, then the secrets file; a clear error when neither is set."""
    user = os.environ.get("FABRICCTL_USERNAME")
    password = os.environ.get("FABRICCTL_PASSWORD")
    path = os.environ.get("FABRICCTL_SECRETS_FILE")
    if (not user or not password) and path:
        try:
            data = yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {}
        except (OSError, yaml.YAMLError) as exc:
            raise CredentialError(
                f"FABRICCTL_SECRETS_FILE {path}: cannot read it ({type(exc).__name__})"
            ) from None
        if not isinstance(data, dict):
            raise CredentialError(
                f"FABRICCTL_SECRETS_FILE {path}: expected a mapping with username and password"
            )
        user = user or str(data.get("username") or "")
        password = password or str(data.get("password") or "")
    if not user or not password:
        raise CredentialError(
            "no switch credentials: set FABRICCTL_USERNAME and FABRICCTL_PASSWORD, or "
            "FABRICCTL_SECRETS_FILE=<yaml with username and password> (or use --lab)"
        )
    register_secret(password)
    return Credentials(user, password)


def login(lab: bool) -> Credentials:
    return lab_login() if lab else real_login()
