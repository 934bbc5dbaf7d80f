"""Files that likely hold credentials: never sent to a model unless the user names them.

One table, :data:`SECRET_RULES`, is the whole rule set (docs/context.md shows the same table; a test
keeps the two in step). A rule is a glob matched case-insensitively either against the file's
base name (no ``/`` in the pattern) or against the end of its path (a pattern with ``/`` matches
whole trailing path components, so ``.aws/credentials`` matches ``home/.aws/credentials`` but
not ``my.aws/credentials``). Two content rules catch what a name cannot: a PEM private key and
a cloud service-account key file, whatever they are called.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass


@dataclass(frozen=True)
class SecretRule:
    pattern: str
    holds: str


SECRET_RULES: tuple[SecretRule, ...] = (
    SecretRule(".env", "environment variables with keys"),
    SecretRule(".env.*", "environment variables with keys"),
    SecretRule("*.env", "environment variables with keys"),
    SecretRule("*.pem", "private keys and certificates"),
    SecretRule("*.key", "private keys"),
    SecretRule("*.p12", "key stores"),
    SecretRule("*.pfx", "key stores"),
    SecretRule("*.jks", "Java key stores"),
    SecretRule("*.keystore", "key stores"),
    SecretRule("id_rsa*", "SSH keys"),
    SecretRule("id_dsa*", "SSH keys"),
    SecretRule("id_ecdsa*", "SSH keys"),
    SecretRule("id_ed25519*", "SSH keys"),
    SecretRule("*.ppk", "PuTTY keys"),
    SecretRule("*.gpg", "encrypted or key files"),
    SecretRule("*.asc", "PGP keys"),
    SecretRule("*.kdbx", "KeePass databases"),
    SecretRule(".git-credentials", "git's stored passwords and tokens"),
    SecretRule(".netrc", "machine passwords (curl, git, ftp)"),
    SecretRule("_netrc", "machine passwords (Windows)"),
    SecretRule(".pgpass", "PostgreSQL passwords"),
    SecretRule(".my.cnf", "MySQL passwords"),
    SecretRule(".htpasswd", "web server passwords"),
    SecretRule(".npmrc", "npm registry tokens"),
    SecretRule(".yarnrc.yml", "yarn registry tokens"),
    SecretRule(".pypirc", "PyPI upload tokens"),
    SecretRule(".gem/credentials", "RubyGems keys"),
    SecretRule(".bundle/config", "Bundler source credentials"),
    SecretRule("auth.json", "Composer and other tool tokens"),
    SecretRule(".cargo/credentials", "crates.io tokens"),
    SecretRule(".cargo/credentials.toml", "crates.io tokens"),
    SecretRule(".aws/credentials", "AWS keys"),
    SecretRule(".aws/config", "AWS profiles (may hold keys)"),
    SecretRule(".docker/config.json", "registry logins"),
    SecretRule(".dockercfg", "registry logins"),
    SecretRule(".kube/config", "Kubernetes cluster credentials"),
    SecretRule("kubeconfig", "Kubernetes cluster credentials"),
    SecretRule("*.kubeconfig", "Kubernetes cluster credentials"),
    SecretRule(".config/gcloud/*", "Google Cloud credentials"),
    SecretRule(".azure/*", "Azure credentials"),
    SecretRule(".config/gh/hosts.yml", "GitHub CLI tokens"),
    SecretRule(".terraformrc", "Terraform tokens"),
    SecretRule("terraform.rc", "Terraform tokens"),
    SecretRule("*.tfstate", "Terraform state (holds every resource's secrets)"),
    SecretRule("*.tfstate.backup", "Terraform state"),
    SecretRule("*.tfvars", "Terraform variables"),
    SecretRule("credentials", "credentials"),
    SecretRule("credentials.*", "credentials"),
    SecretRule("*credentials*.json", "credentials"),
    SecretRule("*service-account*.json", "cloud service-account keys"),
    SecretRule("*service_account*.json", "cloud service-account keys"),
    SecretRule("secrets.*", "secrets"),
    SecretRule("*.secret", "secrets"),
    SecretRule("*.secrets", "secrets"),
)

# What a file says about itself, for key files named anything at all: each entry is a
# description and the patterns that must all occur in the text.
CONTENT_RULES: tuple[tuple[str, tuple[re.Pattern[str], ...]], ...] = (
    ("a private key", (re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"),)),
    # RFC 4716 (SSH2) key files: "---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----".
    ("a private key", (re.compile(r"---- BEGIN SSH2 (?:[A-Z0-9]+ )*PRIVATE KEY ----"),)),
    # PuTTY's .ppk, versions 2 and 3, named anything.
    (
        "a PuTTY private key",
        (
            re.compile(r"^PuTTY-User-Key-File-\d+:", re.M),
            re.compile(r"^Private-Lines:\s*\d+", re.M),
        ),
    ),
    (
        "a service-account key",
        (re.compile(r'"type"\s*:\s*"service_account"'), re.compile(r'"private_key"\s*:')),
    ),
)


def _compile_rules() -> dict[int, re.Pattern[str]]:
    """The rules as one pattern per number of trailing path components they look at (a
    repository of 100,000 files is checked in a quarter of a second, not four)."""
    alternatives: dict[int, list[str]] = {}
    for i, rule in enumerate(SECRET_RULES):
        pattern = rule.pattern.lower()
        depth = pattern.count("/") + 1
        alternatives.setdefault(depth, []).append(f"(?P<r{i}>{fnmatch.translate(pattern)})")
    return {depth: re.compile("|".join(alts)) for depth, alts in alternatives.items()}


_BY_DEPTH = _compile_rules()


def secret_rule_for(path: str) -> SecretRule | None:
    """The first rule that ``path`` (repository-relative, ``/``-separated) matches, if any."""
    parts = path.lower().split("/")
    first: int | None = None
    for depth, pattern in _BY_DEPTH.items():
        if len(parts) < depth:
            continue
        match = pattern.match("/".join(parts[-depth:]))
        if match is not None and match.lastgroup is not None:
            index = int(match.lastgroup[1:])
            first = index if first is None else min(first, index)
    return None if first is None else SECRET_RULES[first]


def looks_secret(path: str) -> bool:
    """True when the path's name or location marks it as a credentials file."""
    return secret_rule_for(path) is not None


def secret_content(text: str) -> str | None:
    """What secret the text holds (``"a private key"``), or None."""
    for what, patterns in CONTENT_RULES:
        if all(pattern.search(text) for pattern in patterns):
            return what
    return None
