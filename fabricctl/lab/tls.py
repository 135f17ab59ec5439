"""The certificate a lab switch serves over TLS: eAPI and NVUE REST over HTTPS, gNMI over gRPC.

As EOS and Cumulus Linux do by default, it is self-signed, one per lab process. NAPALM's eos
driver and pyeapi speak HTTPS unless told otherwise and do not verify it by default, so the
shipped inventory (`transport: https`) works against the lab as is; gRPC clients verify it, so it
names the lab (`fabricctl-lab`, its subject and its DNS name) and is readable as PEM
(`certificate_pem`, and `lab.json` of a detached lab) for a client to trust.
"""

from __future__ import annotations

import datetime as dt
import functools
import ssl
import tempfile
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from fabricctl.endpoints import TLS_NAME
from fabricctl.outputs import write_file

__all__ = ["TLS_NAME", "certificate_pem", "private_key_pem", "server_context"]


@functools.cache
def _key_and_certificate() -> tuple[bytes, bytes]:
    """(private key, certificate), PEM: a fresh self-signed certificate for `fabricctl-lab`."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, TLS_NAME)])
    now = dt.datetime.now(dt.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(days=1))
        .not_valid_after(now + dt.timedelta(days=365))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(TLS_NAME)]), critical=False)
        .sign(key, hashes.SHA256())
    )
    return (
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        ),
        cert.public_bytes(serialization.Encoding.PEM),
    )


def private_key_pem() -> bytes:
    return _key_and_certificate()[0]


def certificate_pem() -> bytes:
    """The certificate every switch of this lab process serves (public: what a client trusts)."""
    return _key_and_certificate()[1]


@functools.cache
def server_context() -> ssl.SSLContext:
    """A TLS server context with the lab's certificate (eAPI and NVUE REST over HTTPS)."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    with tempfile.TemporaryDirectory(prefix="fabricctl-lab-tls-") as tmp:  # ssl loads only from files
        cert_file, key_file = Path(tmp) / "cert.pem", Path(tmp) / "key.pem"
        write_file(cert_file, certificate_pem(), within=Path(tmp))
        write_file(key_file, private_key_pem(), within=Path(tmp), mode=0o600)
        context.load_cert_chain(cert_file, key_file)
    return context
