"""Certificates and keys for a throw-away test API server (``cryptography`` package)."""

from __future__ import annotations

import datetime
import ipaddress
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

#: the client certificate's CN the API server's aggregation layer presents to extension API servers
#: (kube-apiserver --requestheader-allowed-names)
FRONT_PROXY_CLIENT = "front-proxy-client"


@dataclass(frozen=True)
class PKI:
    ca_cert: Path
    serving_cert: Path
    serving_key: Path
    sa_public_key: Path
    sa_private_key: Path
    #: the aggregation layer: the CA extension API servers trust for request headers, and the
    #: client certificate the API server proxies with
    front_proxy_ca_cert: Path
    front_proxy_client_cert: Path
    front_proxy_client_key: Path
    #: a client certificate of the cluster's CA for user ``cert-admin`` in ``system:masters`` (the
    #: kubeconfig's users have tokens; this is how kind and kubeadm admins connect)
    admin_client_cert: Path
    admin_client_key: Path

    @property
    def ca_pem(self) -> bytes:
        return self.ca_cert.read_bytes()


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    path.chmod(0o600)
    return path


def _key_pem(key) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


def pem(cert: x509.Certificate) -> bytes:
    return cert.public_bytes(serialization.Encoding.PEM)


def _usage(*, cert_sign: bool) -> x509.KeyUsage:
    return x509.KeyUsage(
        digital_signature=True, content_commitment=False, key_encipherment=not cert_sign,
        data_encipherment=False, key_agreement=False, key_cert_sign=cert_sign,
        crl_sign=cert_sign, encipher_only=False, decipher_only=False,
    )


def write_pair(cert_path: Path, key_path: Path, cert: x509.Certificate, key) -> None:
    _write(cert_path, pem(cert))
    _write(key_path, _key_pem(key))


def _validity() -> tuple[datetime.datetime, datetime.datetime]:
    now = datetime.datetime.now(datetime.timezone.utc)
    return now - datetime.timedelta(hours=1), now + datetime.timedelta(days=2)


def ca(common_name: str):
    """A self-signed CA: (certificate, key)."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])
    not_before, not_after = _validity()
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(not_before)
        .not_valid_after(not_after)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(_usage(cert_sign=True), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(key, hashes.SHA256())
    )
    return cert, key


def leaf(ca_cert: x509.Certificate, ca_key, common_name: str, usage, sans: list | None = None,
         organization: str | None = None):
    """A certificate signed by the CA for ``usage`` (an ExtendedKeyUsageOID): (certificate, key).
    ``organization``: for a client certificate, the group the API server puts the user in."""
    key = ec.generate_private_key(ec.SECP256R1())
    not_before, not_after = _validity()
    subject = [x509.NameAttribute(NameOID.COMMON_NAME, common_name)]
    if organization:
        subject.append(x509.NameAttribute(NameOID.ORGANIZATION_NAME, organization))
    builder = (
        x509.CertificateBuilder()
        .subject_name(x509.Name(subject))
        .issuer_name(ca_cert.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(not_before)
        .not_valid_after(not_after)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(_usage(cert_sign=False), critical=True)
        .add_extension(x509.ExtendedKeyUsage([usage]), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
    )
    if sans:
        builder = builder.add_extension(x509.SubjectAlternativeName(sans), critical=False)
    return builder.sign(ca_key, hashes.SHA256()), key


def generate(directory: Path) -> PKI:
    """Write a CA, an API server serving certificate, a service-account key pair, and the
    aggregation layer's front-proxy CA with its client certificate (CN ``front-proxy-client``)."""
    directory.mkdir(parents=True, exist_ok=True)
    ca_cert, ca_key = ca("kueue-dra-test-ca")
    srv_cert, srv_key = leaf(ca_cert, ca_key, "kube-apiserver", ExtendedKeyUsageOID.SERVER_AUTH, [
        x509.DNSName("localhost"),
        x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
        x509.DNSName("kubernetes"),
        x509.DNSName("kubernetes.default"),
        x509.DNSName("kubernetes.default.svc"),
        x509.IPAddress(ipaddress.ip_address("10.0.0.1")),
    ])
    fp_ca_cert, fp_ca_key = ca("kueue-dra-test-front-proxy-ca")
    fp_cert, fp_key = leaf(fp_ca_cert, fp_ca_key, FRONT_PROXY_CLIENT, ExtendedKeyUsageOID.CLIENT_AUTH)
    sa_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    admin_cert, admin_key = leaf(ca_cert, ca_key, "cert-admin", ExtendedKeyUsageOID.CLIENT_AUTH,
                                 organization="system:masters")

    return PKI(
        ca_cert=_write(directory / "ca.crt", pem(ca_cert)),
        serving_cert=_write(directory / "apiserver.crt", pem(srv_cert)),
        serving_key=_write(directory / "apiserver.key", _key_pem(srv_key)),
        sa_public_key=_write(
            directory / "sa.pub",
            sa_key.public_key().public_bytes(
                serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
            ),
        ),
        sa_private_key=_write(directory / "sa.key", _key_pem(sa_key)),
        front_proxy_ca_cert=_write(directory / "front-proxy-ca.crt", pem(fp_ca_cert)),
        front_proxy_client_cert=_write(directory / "front-proxy-client.crt", pem(fp_cert)),
        front_proxy_client_key=_write(directory / "front-proxy-client.key", _key_pem(fp_key)),
        admin_client_cert=_write(directory / "admin-client.crt", pem(admin_cert)),
        admin_client_key=_write(directory / "admin-client.key", _key_pem(admin_key)),
    )
