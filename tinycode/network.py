"""Which servers tinycode may contact, and how: the one rule every backend asks.

Offline (``--offline``, ``TINYCODE_OFFLINE=1``) allows loopback only: a model server
on this machine is still "offline". A secret such as the API key is never sent in
clear text off this machine: plain http carries it to loopback hosts only.
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

_LOOPBACK_NAMES = ("localhost", "localhost.", "ip6-localhost")


def is_offline(offline: bool = False) -> bool:
    """True if the network is forbidden: the flag, or ``TINYCODE_OFFLINE=1`` (read as
    the ``offline`` setting reads it; a value it cannot read counts as unset)."""
    if offline:
        return True
    from .config import from_environment

    return bool(from_environment("offline", strict=False))


def host_of(url: str) -> str:
    """The host part of ``url``, lower-case, without brackets or port."""
    try:
        return (urlsplit(url).hostname or "").lower()
    except ValueError:
        return ""


def is_loopback(url: str) -> bool:
    """True when ``url`` names this machine (``localhost``, 127.0.0.0/8, ``::1``)."""
    host = host_of(url)
    if host in _LOOPBACK_NAMES or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def refusal(url: str, *, offline: bool, sends_secret: bool = False) -> str:
    """Why ``url`` may not be contacted, or "" when it may."""
    if offline and not is_loopback(url):
        return (f"offline mode allows only servers on this machine, not {host_of(url) or url!r} "
                "(drop --offline / TINYCODE_OFFLINE to use it)")
    if sends_secret and urlsplit(url).scheme != "https" and not is_loopback(url):
        return (f"the API key would cross the network in clear text to {host_of(url) or url!r}; "
                "use an https:// URL")
    return ""
