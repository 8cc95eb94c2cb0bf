"""``arena web`` as a command: served with uvicorn's own TLS on a certificate made here,
answering over HTTPS with the Secure cookie and HSTS, and stopped cleanly by Ctrl-C."""

from __future__ import annotations

import datetime
import ipaddress
import signal
import ssl
import subprocess
import sys
import time
from pathlib import Path

import httpx
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from web_support import free_port

from arena.api import Arena

REPO = Path(__file__).resolve().parents[1]


def self_signed(folder: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 signed by its own key (its own CA), and the key."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "arena test")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = folder / "cert.pem", folder / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


def test_arena_web_serves_over_its_own_tls_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    Arena(db).close()
    cert, key = self_signed(tmp_path)
    port = free_port()
    command = [
        sys.executable, "-m", "arena.cli", "web", "--db", str(db), "--port", str(port),
        "--tls-cert", str(cert), "--tls-key", str(key),
    ]  # fmt: skip
    server = subprocess.Popen(
        command, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert server.stdout is not None
        first = server.stdout.readline()
        assert first.startswith(f"Serving {db} at https://127.0.0.1:{port}/"), first
        trust = ssl.create_default_context(cafile=str(cert))
        with httpx.Client(verify=trust, timeout=30) as c:
            for _ in range(100):  # uvicorn binds just after the line is printed
                try:
                    page = c.get(f"https://127.0.0.1:{port}/login")
                    break
                except httpx.ConnectError:
                    assert server.poll() is None, server.communicate()
                    time.sleep(0.1)
            else:
                raise AssertionError("arena web did not answer over TLS")
        assert page.status_code == 200
        assert "secure" in page.headers["set-cookie"].lower()
        assert "strict-transport-security" in page.headers
    finally:
        server.send_signal(signal.SIGINT)
        _, err = server.communicate(timeout=60)
    assert server.returncode == 0, err
    assert "Traceback" not in err
