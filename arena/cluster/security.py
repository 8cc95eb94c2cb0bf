"""A cluster that trusts nobody: TLS certificates, private listeners, no pickle into the arena.

- :func:`init_certificates` makes a private certificate authority and a certificate each for
  the scheduler and the arena client (``arena cluster init``), :func:`add_worker` one per
  worker, each naming its role and name; :func:`revoke` puts one on the CA's revocation list.
  :func:`security` loads the client's side as a :class:`distributed.security.Security` that
  requires encryption, so a peer without a certificate of this CA is refused by every TLS
  listener; what each role may do once connected is :mod:`arena.cluster.roles`' to enforce.
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
import re
from pathlib import Path
from typing import Any, Final

from arena.errors import ArenaError

FILES: Final = {
    "ca": ("ca.pem", "ca.key"),
    "scheduler": ("scheduler.pem", "scheduler.key"),
    "client": ("client.pem", "client.key"),
}
"""The certificate and key file of the CA, the scheduler and the arena client in a certificate
directory; each worker's are :func:`worker_files`."""
REVOKED: Final = "revoked.pem"
"""The certificate revocation list (signed by the CA) in a certificate directory."""
ROLES: Final = ("scheduler", "worker", "client")
"""The roles a certificate names (its subject's organizational unit)."""
ORGANIZATION: Final = "euchre-arena"
"""The organization every certificate of :func:`init_certificates` names."""
DAYS: Final = 825
"""Validity of the certificates made by :func:`init_certificates`."""
WILDCARDS: Final = frozenset({"0.0.0.0", "::", ""})
_NAME: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,62}\Z")


class SecurityError(ArenaError):
    """The cluster's TLS set-up or its listeners are not safe to run on: one line."""


def _crypto() -> tuple[Any, Any]:
    try:
        from cryptography import x509
        from cryptography.hazmat.primitives import serialization
    except ImportError as e:
        raise SecurityError(
            'certificates need cryptography: pip install "euchre-arena[dask]"'
        ) from e
    return x509, serialization


def _subject(role: str, name: str) -> Any:
    from cryptography import x509
    from cryptography.x509.oid import NameOID

    return x509.Name(
        [
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, ORGANIZATION),
            x509.NameAttribute(NameOID.ORGANIZATIONAL_UNIT_NAME, role),
            x509.NameAttribute(NameOID.COMMON_NAME, name),
        ]
    )


def _write_private(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(data)


def _issue(
    directory: Path, files: tuple[str, str], role: str, name: str, host: str | None
) -> tuple[Path, Path]:
    """Make a key and a certificate of ``role`` named ``name``, signed by the directory's CA
    (or self-signed, for the CA itself), and write them with mode 0600."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    key = ec.generate_private_key(ec.SECP256R1())
    if role == "ca":
        ca_key, issuer = key, _subject("ca", name)
    else:
        ca_key, issuer = _ca(directory)
    now = datetime.datetime.now(datetime.UTC)
    builder = (
        x509.CertificateBuilder()
        .subject_name(_subject(role, name))
        .issuer_name(issuer)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=DAYS))
        .add_extension(x509.BasicConstraints(ca=role == "ca", path_length=None), True)
    )
    if host is not None:
        builder = builder.add_extension(x509.SubjectAlternativeName([_alt_name(host)]), False)
    cert = builder.sign(ca_key, hashes.SHA256())
    pem = serialization.Encoding.PEM
    cert_path, key_path = (directory / n for n in files)
    _write_private(
        key_path,
        key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()),
    )
    _write_private(cert_path, cert.public_bytes(pem))
    return cert_path, key_path


def _ca(directory: Path) -> tuple[Any, Any]:
    """The CA's private key and subject, from ``directory``."""
    x509, serialization = _crypto()
    cert_path, key_path = (directory / n for n in FILES["ca"])
    if not key_path.is_file():
        raise SecurityError(
            f"{key_path} is missing: certificates are made where arena cluster init made the CA"
        )
    cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
    return serialization.load_pem_private_key(key_path.read_bytes(), None), cert.subject


def init_certificates(
    directory: Path, host: str, workers: tuple[str, ...] = ()
) -> dict[str, tuple[Path, Path]]:
    """Make a CA, the scheduler's and the arena client's certificates and an empty revocation
    list in ``directory`` (mode 0700), then one certificate per name of ``workers``
    (:func:`add_worker`).

    Every certificate is signed by the new CA, valid :data:`DAYS` days and names its role and
    name in its subject (organizational unit and common name); the scheduler's and the
    client's name ``host`` (the scheduler's private address) as a subject alternative name.
    Existing files are never overwritten: a second call on the same directory is an error.
    Returns role (``worker-NAME`` for a worker) -> (cert, key).
    """
    _crypto()
    _check_host(host)
    for name in workers:
        _check_name(name)
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(directory, 0o700)
    fixed = [n for pair in FILES.values() for n in pair] + [REVOKED]
    taken = [n for n in fixed if (directory / n).exists()]
    if taken:
        raise SecurityError(f"{directory} already holds {taken[0]}: use a new directory")
    out = {"ca": _issue(directory, FILES["ca"], "ca", "arena-ca", None)}
    for role in ("scheduler", "client"):
        out[role] = _issue(directory, FILES[role], role, role, host)
    _write_revocations(directory, [])
    for name in workers:
        out[f"worker-{name}"] = add_worker(directory, name)
    return out


def worker_files(directory: Path, name: str) -> tuple[Path, Path]:
    """The certificate and key of the worker ``name`` in ``directory``."""
    return directory / f"worker-{name}.pem", directory / f"worker-{name}.key"


def workers(directory: Path) -> list[str]:
    """The names of the workers with a certificate in ``directory``, revoked or not."""
    return sorted(
        p.name.removeprefix("worker-").removesuffix(".pem") for p in directory.glob("worker-*.pem")
    )


def _check_name(name: str) -> None:
    if not _NAME.match(name):
        raise SecurityError(
            f"bad worker name {name!r}: letters, digits, '.', '_' and '-', at most 63"
        )


def add_worker(directory: Path, name: str) -> tuple[Path, Path]:
    """Issue the certificate of one more worker, ``name``, from the CA in ``directory``:
    ``worker-NAME.pem`` and ``worker-NAME.key``. The other certificates are untouched; a name
    already issued (even if revoked) is refused. Returns (cert, key)."""
    _check_name(name)
    files = worker_files(directory, name)
    if any(p.exists() for p in files):
        raise SecurityError(f"{directory} already holds {files[0].name}: choose another name")
    _ca(directory)
    return _issue(directory, (files[0].name, files[1].name), "worker", name, None)


def revoke(directory: Path, name: str) -> int:
    """Revoke the certificate of the worker ``name``: add its serial to ``revoked.pem`` (signed
    again by the CA). The scheduler refuses its connections once it holds the new list (the
    arena client hands it over on every run, or copy the file beside the scheduler's
    ``ca.pem``). Returns the serial."""
    x509, _ = _crypto()
    cert_path = worker_files(directory, name)[0]
    if not cert_path.is_file():
        known = ", ".join(workers(directory)) or "none"
        raise SecurityError(f"no worker {name!r} in {directory} (workers: {known})")
    serial = int(x509.load_pem_x509_certificate(cert_path.read_bytes()).serial_number)
    revoked = set(revoked_serials(directory / FILES["ca"][0], _read_revocations(directory)))
    _write_revocations(directory, sorted(revoked | {serial}))
    return serial


def _read_revocations(directory: Path) -> bytes:
    path = directory / REVOKED
    if not path.is_file():
        raise SecurityError(f"{path} is missing: make the certificates with arena cluster init")
    return path.read_bytes()


def _write_revocations(directory: Path, serials: list[int]) -> None:
    """Write ``revoked.pem``: a CRL of ``serials`` signed by the directory's CA (atomically)."""
    x509, serialization = _crypto()
    from cryptography.hazmat.primitives import hashes

    ca_key, issuer = _ca(directory)
    now = datetime.datetime.now(datetime.UTC)
    builder = (
        x509.CertificateRevocationListBuilder()
        .issuer_name(issuer)
        .last_update(now - datetime.timedelta(minutes=5))
        .next_update(now + datetime.timedelta(days=DAYS))
    )
    for serial in serials:
        builder = builder.add_revoked_certificate(
            x509.RevokedCertificateBuilder().serial_number(serial).revocation_date(now).build()
        )
    crl = builder.sign(ca_key, hashes.SHA256())
    tmp = directory / f".{REVOKED}.tmp"
    tmp.unlink(missing_ok=True)
    _write_private(tmp, crl.public_bytes(serialization.Encoding.PEM))
    os.replace(tmp, directory / REVOKED)


def revocations(directory: Path) -> bytes:
    """The revocation list of ``directory`` as PEM bytes (what the client hands the scheduler)."""
    return _read_revocations(directory)


def revoked_serials(ca_file: Path, crl_pem: bytes) -> frozenset[int]:
    """The serials a revocation list revokes, once its signature is checked against the CA of
    ``ca_file``; a list this CA did not sign is a :class:`SecurityError`."""
    x509, _ = _crypto()
    ca = x509.load_pem_x509_certificate(ca_file.read_bytes())
    try:
        crl = x509.load_pem_x509_crl(crl_pem)
    except ValueError as e:
        raise SecurityError(f"not a revocation list: {e}") from e
    if crl.issuer != ca.subject or not crl.is_signature_valid(ca.public_key()):
        raise SecurityError("the revocation list is not signed by the cluster's CA")
    return frozenset(int(r.serial_number) for r in crl)


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


GUARD: Final = "arena.cluster.roles"
"""The module each scheduler, worker and nanny preloads: it enforces what each role may do."""


def commands(directory: Path, host: str, port: int = 8786) -> list[str]:
    """The exact scheduler command, one worker command per worker certificate in
    ``directory`` (or how to issue one) and the arena command."""
    d = directory.resolve()
    tls = "--tls-ca-file {d}/ca.pem --tls-cert {d}/{c}.pem --tls-key {d}/{c}.key"
    addr = f"tls://{host}:{port}"
    out = [
        f"dask scheduler --protocol tls --host {host} --port {port} --no-dashboard "
        f"--dashboard-address {host}:0 --preload {GUARD} " + tls.format(d=d, c="scheduler")
    ]
    for name in workers(directory):
        out.append(
            f"dask worker {addr} --host WORKER_ADDRESS --dashboard-address WORKER_ADDRESS:0 "
            f"--no-dashboard --nthreads 1 --nworkers 4 --name {name} "
            f"--preload {GUARD} --preload-nanny {GUARD} " + tls.format(d=d, c=f"worker-{name}")
        )
    if not workers(directory):
        out.append(f"(no worker certificate yet: arena cluster add-worker {d} NAME)")
    out.append(f"arena run BOTS... --cluster {addr} --cluster-certs {d}")
    return out


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
    "GUARD",
    "REVOKED",
    "ROLES",
    "PickleRefused",
    "SecurityError",
    "add_worker",
    "commands",
    "guard_unpickling",
    "init_certificates",
    "revocations",
    "revoke",
    "revoked_serials",
    "worker_files",
    "workers",
    "listening",
    "plain_loads",
    "security",
    "wildcard",
]
