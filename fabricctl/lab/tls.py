"""The certificate a lab's eAPI serves over HTTPS, as EOS does by default (self-signed, per process).

NAPALM's eos driver and pyeapi speak HTTPS unless told otherwise, and do not verify the
certificate by default, so the shipped inventory (`transport: https`) works against the lab as is.
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

from fabricctl.outputs import write_file


@functools.cache
def server_context() -> ssl.SSLContext:
    """A TLS server context with a fresh self-signed certificate for `fabricctl-lab`."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "fabricctl-lab")])
    now = dt.datetime.now(dt.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(days=1))
        .not_valid_after(now + dt.timedelta(days=365))
        .sign(key, hashes.SHA256())
    )
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    with tempfile.TemporaryDirectory(prefix="fabricctl-lab-tls-") as tmp:  # ssl loads only from files
        cert_file, key_file = Path(tmp) / "cert.pem", Path(tmp) / "key.pem"
        write_file(cert_file, cert.public_bytes(serialization.Encoding.PEM), within=Path(tmp))
        key_pem = key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
        write_file(key_file, key_pem, within=Path(tmp), mode=0o600)
        context.load_cert_chain(cert_file, key_file)
    return context
