"""A cluster that trusts nobody: TLS certificates, private listeners, no pickle into the arena.

- :func:`init_certificates` makes a private certificate authority and one certificate each for
  the scheduler, the workers and the arena client (``arena cluster init``); :func:`security`
  loads the client's side as a :class:`distributed.security.Security` that requires
  encryption, so a peer without a certificate of this CA is refused by every TLS listener.
- :func:`guard_unpickling` makes the arena process's Dask client unable to run code a peer
  sends: the unpickling Dask does on received messages goes through an unpickler that builds
  plain values and a few exception classes and refuses every other class or callable. Results
  themselves come back as JSON text (:mod:`arena.tournaments.verify`), so nothing legitimate needs
  more.
- :func:`listening` (run on the scheduler and each worker) lists the process's listening
  sockets; :func:`wildcard` names those bound to every interface, which arena refuses.
"""

from __future__ import annotations

import datetime
import importlib
import io
import ipaddress
import logging
import os
import pickle
from pathlib import Path
from typing import Any, Final

from arena.errors import ArenaError

FILES: Final = {
    "ca": ("ca.pem", "ca.key"),
    "scheduler": ("scheduler.pem", "scheduler.key"),
    "worker": ("worker.pem", "worker.key"),
    "client": ("client.pem", "client.key"),
}
"""The certificate and key file of each role in a certificate directory."""
DAYS: Final = 825
"""Validity of the certificates made by :func:`init_certificates`."""
WILDCARDS: Final = frozenset({"0.0.0.0", "::", ""})


class SecurityError(ArenaError):
    """The cluster's TLS set-up or its listeners are not safe to run on: one line."""


def _key_and_name(role: str) -> tuple[Any, Any]:
    from cryptography import x509
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"arena-{role}")])
    return key, name


def _write_private(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(data)


def init_certificates(directory: Path, host: str) -> dict[str, tuple[Path, Path]]:
    """Make a CA and the scheduler, worker and client certificates in ``directory`` (mode 0700).

    Every certificate is signed by the new CA, valid :data:`DAYS` days, and names ``host`` (the
    scheduler's private address) as a subject alternative name. Existing files are never
    overwritten: a second call on the same directory is an error. Returns role -> (cert, key).
    """
    try:
        from cryptography import x509
        from cryptography.hazmat.primitives import hashes, serialization
    except ImportError as e:
        raise SecurityError(
            'certificates need cryptography: pip install "euchre-arena[dask]"'
        ) from e
    _check_host(host)
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(directory, 0o700)
    taken = [n for pair in FILES.values() for n in pair if (directory / n).exists()]
    if taken:
        raise SecurityError(f"{directory} already holds {taken[0]}: use a new directory")
    now = datetime.datetime.now(datetime.UTC)
    ca_key, ca_name = _key_and_name("ca")
    pem = serialization.Encoding.PEM
    out: dict[str, tuple[Path, Path]] = {}
    for role in FILES:
        key, name = (ca_key, ca_name) if role == "ca" else _key_and_name(role)
        builder = (
            x509.CertificateBuilder()
            .subject_name(name)
            .issuer_name(ca_name)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=DAYS))
            .add_extension(x509.BasicConstraints(ca=role == "ca", path_length=None), True)
            .add_extension(x509.SubjectAlternativeName([_alt_name(host)]), False)
        )
        cert = builder.sign(ca_key, hashes.SHA256())
        cert_path, key_path = (directory / n for n in FILES[role])
        _write_private(
            key_path,
            key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()),
        )
        _write_private(cert_path, cert.public_bytes(pem))
        out[role] = (cert_path, key_path)
    return out


def _alt_name(host: str) -> Any:
    from cryptography import x509

    try:
        return x509.IPAddress(ipaddress.ip_address(host))
    except ValueError:
        return x509.DNSName(host)


def _check_host(host: str) -> None:
    if host.strip("[]") in WILDCARDS:
        raise SecurityError(
            f"{host!r} is every interface: give the private address the cluster uses"
        )


def commands(directory: Path, host: str, port: int = 8786) -> list[str]:
    """The exact scheduler, worker and arena commands for the certificates in ``directory``."""
    d = directory.resolve()
    tls = "--tls-ca-file {d}/ca.pem --tls-cert {d}/{r}.pem --tls-key {d}/{r}.key"
    addr = f"tls://{host}:{port}"
    return [
        f"dask scheduler --protocol tls --host {host} --port {port} --no-dashboard "
        f"--dashboard-address {host}:0 " + tls.format(d=d, r="scheduler"),
        f"dask worker {addr} --host WORKER_ADDRESS --dashboard-address WORKER_ADDRESS:0 "
        "--no-dashboard --nthreads 1 --nworkers 4 --name $(hostname) "
        + tls.format(d=d, r="worker"),
        f"arena run BOTS... --cluster {addr} --cluster-certs {d}",
    ]


def security(directory: Path) -> Any:
    """The arena client's :class:`distributed.security.Security` from ``directory``."""
    from distributed.security import Security

    ca = directory / FILES["ca"][0]
    cert, key = (directory / n for n in FILES["client"])
    for path in (ca, cert, key):
        if not path.is_file():
            raise SecurityError(
                f"{path} is missing: make the certificates with arena cluster init DIR --host ADDR"
            )
    return Security(
        tls_ca_file=str(ca),
        tls_client_cert=str(cert),
        tls_client_key=str(key),
        require_encryption=True,
    )


# --- no code from a peer runs here ----------------------------------------------------------

_SAFE_BUILTINS: Final = frozenset(
    {"bytes", "str", "int", "float", "bool", "list", "dict", "tuple", "set", "frozenset"}
    | {"bytearray", "complex", "slice", "range"}
)
_SAFE_EXCEPTIONS: Final = {
    "distributed.scheduler": {"KilledWorker"},
    "distributed.comm.core": {"CommClosedError"},
    "asyncio.exceptions": {"CancelledError", "TimeoutError"},
    "concurrent.futures._base": {"CancelledError", "TimeoutError"},
}


class PickleRefused(pickle.UnpicklingError, TypeError):
    """A peer sent a pickle that would build something other than plain values."""


class _Inert:
    """Stands for tblib's frame, code and traceback records: a bag of plain attributes."""


def _no_traceback(*args: Any) -> None:
    """Stands for tblib's ``unpickle_traceback``, which would exec code in a peer's globals."""
    return None


_TBLIB: Final = {
    ("tblib", "Frame"): _Inert,
    ("tblib", "Code"): _Inert,
    ("tblib", "Traceback"): _Inert,
    ("tblib.pickling_support", "unpickle_traceback"): _no_traceback,
}
# tblib's two exception rebuilders only call ``cls.__new__``/``cls(*args)`` of a class this
# unpickler allowed, and set attributes on the result.
_TBLIB_REBUILDERS: Final = frozenset({"unpickle_exception", "unpickle_exception_with_attrs"})


class _PlainUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if module == "builtins" and (name in _SAFE_BUILTINS or _is_builtin_exception(name)):
            return getattr(importlib.import_module(module), name)
        if name in _SAFE_EXCEPTIONS.get(module, ()):
            return getattr(importlib.import_module(module), name)
        if (module, name) in _TBLIB:
            return _TBLIB[module, name]
        if module == "tblib.pickling_support" and name in _TBLIB_REBUILDERS:
            return getattr(importlib.import_module(module), name)
        raise PickleRefused(f"refused to unpickle {module}.{name} from a cluster peer")


def _is_builtin_exception(name: str) -> bool:
    import builtins

    value = getattr(builtins, name, None)
    return isinstance(value, type) and issubclass(value, BaseException)


def plain_loads(data: bytes | bytearray | memoryview, *, buffers: Any = ()) -> Any:
    """``pickle.loads`` that builds only plain values and the exceptions above."""
    return _PlainUnpickler(io.BytesIO(bytes(data)), buffers=buffers or None).load()


class _PlainPickleModule:
    """Stands for the ``pickle`` module where Dask's client unpickles a peer's warnings."""

    loads = staticmethod(plain_loads)

    def __getattr__(self, name: str) -> Any:
        return getattr(pickle, name)


def guard_unpickling() -> None:
    """Route every unpickling of received data in this process's Dask client through
    :func:`plain_loads` (idempotent). Only for the arena process: it is a client, never a
    scheduler or worker, so it never needs to unpickle a function or a class."""
    import distributed.client
    import distributed.protocol.pickle

    distributed.protocol.pickle.loads = plain_loads
    # Dask logs each refusal as a CRITICAL traceback; arena logs it once, as a refused record.
    for name in ("distributed.protocol.core", "distributed.protocol.pickle"):
        logging.getLogger(name).setLevel(logging.CRITICAL + 1)
    distributed.client.loads = plain_loads
    distributed.client.pickle = _PlainPickleModule()  # type: ignore[assignment]


# --- listeners ----------------------------------------------------------------------------


def listening() -> list[str]:
    """Run on a scheduler or worker: the TCP addresses its process (and a nanny parent) listen
    on, as ``HOST:PORT``."""
    import psutil  # type: ignore[import-untyped]

    me = psutil.Process()
    procs = [me]
    parent = me.parent()
    if parent is not None and "dask" in " ".join(parent.cmdline()):
        procs.append(parent)  # the nanny listens too
    out = set()
    for proc in procs:
        for conn in proc.net_connections(kind="inet"):
            if conn.status == psutil.CONN_LISTEN and conn.laddr:
                host = conn.laddr.ip
                out.add(
                    f"[{host}]:{conn.laddr.port}" if ":" in host else f"{host}:{conn.laddr.port}"
                )
    return sorted(out)


def wildcard(addresses: list[str]) -> list[str]:
    """The addresses of ``addresses`` bound to every interface (``0.0.0.0``, ``[::]``)."""
    return [a for a in addresses if a.rpartition(":")[0].strip("[]") in WILDCARDS]


__all__ = [
    "FILES",
    "PickleRefused",
    "SecurityError",
    "commands",
    "guard_unpickling",
    "init_certificates",
    "listening",
    "plain_loads",
    "security",
    "wildcard",
]
