"""Logins for real switches or the lab.

Two logins, least privilege: `read` (plan, drift, check, verify --lab) and `write` (apply).
The write login comes from FABRICCTL_USERNAME / FABRICCTL_PASSWORD, the read one from
FABRICCTL_READ_USERNAME / FABRICCTL_READ_PASSWORD, or from the write variables when those are
not set (one engineer, one account); a YAML secrets file named by FABRICCTL_SECRETS_FILE holds
`username`/`password` and `read_username`/`read_password` alike. Never from inventory files.
Every secret that is loaded is registered with the redactor (fabricctl/secrets.py).
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import yaml

from fabricctl.errors import StageError
from fabricctl.secrets import REDACTED, register_secret

Access = Literal["read", "write"]


class CredentialError(StageError):
    """No usable login was configured (the message says where fabricctl looked)."""


@dataclass(frozen=True)
class Credentials:
    username: str
    password: str

    def __repr__(self) -> str:  # dataclass repr would print the password
        return f"Credentials(username={self.username!r}, password={REDACTED!r})"


def lab_login() -> Credentials:
    from fabricctl.endpoints import lab_credentials

    user, password = lab_credentials()
    register_secret(password)
    return Credentials(user, password)


def real_login(access: Access = "write") -> Credentials:
    """Environment first, then the secrets file; a clear error when neither is set."""
    if access == "read":
        with contextlib.suppress(CredentialError):
            return _login("FABRICCTL_READ_USERNAME", "FABRICCTL_READ_PASSWORD", "read_")
    return _login("FABRICCTL_USERNAME", "FABRICCTL_PASSWORD", "", access == "read")


def _login(user_var: str, password_var: str, prefix: str, fallback: bool = False) -> Credentials:
    user = os.environ.get(user_var)
    password = os.environ.get(password_var)
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
        user = user or str(data.get(f"{prefix}username") or "")
        password = password or str(data.get(f"{prefix}password") or "")
    if not user or not password:
        wanted = "FABRICCTL_READ_USERNAME and FABRICCTL_READ_PASSWORD (or " if fallback else ""
        raise CredentialError(
            f"no switch credentials: set {wanted}{user_var} and {password_var}{')' if fallback else ''}, or "
            f"FABRICCTL_SECRETS_FILE=<yaml with {prefix}username and {prefix}password> (or use --lab)"
        )
    register_secret(password)
    return Credentials(user, password)


def login(lab: bool, access: Access = "read") -> Credentials:
    return lab_login() if lab else real_login(access)
