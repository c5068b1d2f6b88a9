"""Keeping a host run on this machine: a network namespace with loopback only, and a trace of
every ``connect()`` the host makes.

A host run re-executes itself under ``unshare --net`` (with ``--map-root-user`` when not root,
so no privilege is needed where user namespaces are allowed): inside, the only interface is
``lo``, brought up here, so the host, the proxy, the server and the stand-in model reach each
other on 127.0.0.1 and nothing else is reachable at all. Where ``unshare`` is missing or
refused, the run goes on with the host's own settings as the only guard, and says so.
With ``strace`` installed the host runs under ``strace -f -e trace=connect``; each address it
tried is classified, so the record shows what it tried even where the namespace stopped it.
"""

from __future__ import annotations

import ipaddress
import os
import re
import shutil
import subprocess

NETNS = "network namespace (loopback only)"
SETTINGS_ONLY = "host settings only (no network namespace could be made)"
INSIDE_ENV = "MCP_ACCEPT_IN_NETNS"


def unshare_argv() -> list[str] | None:
    """The command prefix that runs a command in a new network namespace, if one can be made.
    The command also runs as the first process of a PID namespace of its own (``--pid --fork
    --mount-proc``): when it ends, however it ends, the kernel ends every process left in the
    namespace, a server that double-forked into a session of its own included; and when
    ``unshare`` itself is killed, so is the command (``--kill-child``)."""
    tool = shutil.which("unshare")
    if tool is None:
        return None
    argv = [tool, "--net", "--pid", "--fork", "--mount-proc", "--kill-child"] + \
        ([] if os.geteuid() == 0 else ["--map-root-user"])
    try:
        done = subprocess.run([*argv, "true"], capture_output=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return [*argv, "--"] if done.returncode == 0 else None


def loopback_up() -> None:
    """Bring ``lo`` up in this (new) network namespace: SIOCGIFFLAGS, then SIOCSIFFLAGS with IFF_UP."""
    import fcntl
    import socket
    import struct

    siocgifflags, siocsifflags, iff_up = 0x8913, 0x8914, 0x1
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        request = struct.pack("16sH14x", b"lo", 0)
        flags = struct.unpack("16sH14x", fcntl.ioctl(sock, siocgifflags, request))[1]
        fcntl.ioctl(sock, siocsifflags, struct.pack("16sH14x", b"lo", flags | iff_up))


def only_loopback_reachable() -> bool:
    """True where no interface but ``lo`` exists (the namespace holds)."""
    try:
        names = os.listdir("/sys/class/net")
    except OSError:
        return False
    return names == ["lo"]


def strace_prefix(path: str) -> list[str] | None:
    tool = shutil.which("strace")
    if tool is None:
        return None
    return [tool, "-f", "-qq", "-e", "trace=connect", "-o", path, "--"]


_INET = re.compile(r'sa_family=AF_INET, sin_port=htons\((\d+)\), sin_addr=inet_addr\("([^"]+)"\)')
_INET6 = re.compile(r'sa_family=AF_INET6, sin6_port=htons\((\d+)\).*?inet_pton\(AF_INET6, "([^"]+)"')
_UNIX = re.compile(r'sa_family=AF_UNIX(?:, sun_path=(@?"[^"]*"))?')


def connects(trace_text: str) -> dict:
    """Every address in a ``strace -e trace=connect`` log, by kind: loopback (127.0.0.0/8, ::1),
    local sockets (AF_UNIX), and anything else (with its address: the finding that matters)."""
    loopback: dict[str, int] = {}
    other: dict[str, int] = {}
    unix = 0
    for line in trace_text.splitlines():
        if "connect(" not in line:
            continue
        found = _INET.search(line) or _INET6.search(line)
        if found:
            port, address = found.group(1), found.group(2)
            try:
                is_loop = ipaddress.ip_address(address.split("%")[0]).is_loopback
            except ValueError:
                is_loop = False
            key = f"[{address}]:{port}" if ":" in address else f"{address}:{port}"
            bucket = loopback if is_loop else other
            bucket[key] = bucket.get(key, 0) + 1
        elif _UNIX.search(line):
            unix += 1
        elif "sa_family=AF_UNSPEC" in line:
            continue
        else:
            other[line.split("connect(", 1)[1][:120]] = other.get(line, 0) + 1
    return {"loopback": loopback, "unix_sockets": unix, "other": other}
