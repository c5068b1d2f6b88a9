"""Keeping a host run on this machine: a network namespace with loopback only, and a trace of
every ``connect()`` the host makes.

A host run re-executes itself under ``unshare --net`` (with ``--map-root-user`` when not root,
so no privilege is needed where user namespaces are allowed): inside, the only interface is
``lo``, brought up here, so the host, the proxy, the server and the stand-in model reach each
other on 127.0.0.1 and nothing else is reachable at all. Where ``unshare`` is missing or
refused, the run goes on with the host's own settings as the only guard, and says so.
With ``strace`` installed the host runs under ``strace -f -e trace=connect``; each address it
tried is classified, so the record shows what it tried even where the namespace stopped it.

The server under test is kept apart from the host's model inside that namespace
(:func:`isolation_argv`): started by the proxy, it runs in a network namespace of its own
(a loopback of its own, the stand-in's port out of reach) and a PID namespace of its own (the
host's processes and their environment out of sight). A server the run starts for Streamable
HTTP must share the loopback with the proxy: it gets the PID namespace, and the folders
holding the host's configuration (and so the run's model key) are covered by an empty tmpfs
in its view. Run as a script, this module is the small step inside those namespaces that
brings ``lo`` up and covers folders before it executes the server (standard library only,
started with ``-S``).

Only the standard library is imported here: the proxy builds the isolation before the rest of
mcp-accept is loaded (:mod:`mcp_accept.hosts.proxy.early`).
"""

from __future__ import annotations

import ipaddress
import os
import re
import shutil
import subprocess
import sys

NETNS = "network namespace (loopback only)"
SETTINGS_ONLY = "host settings only (no network namespace could be made)"
INSIDE_ENV = "MCP_ACCEPT_IN_NETNS"


def unshare_argv(network: bool = True) -> list[str] | None:
    """The command prefix that runs a command in a new network namespace, if one can be made.
    The command also runs as the first process of a PID namespace of its own (``--pid --fork
    --mount-proc``): when it ends, however it ends, the kernel ends every process left in the
    namespace, a server that double-forked into a session of its own included; and when
    ``unshare`` itself is killed, so is the command (``--kill-child``)."""
    tool = shutil.which("unshare")
    if tool is None:
        return None
    argv = [tool, *(["--net"] if network else []), "--pid", "--fork", "--mount-proc", "--kill-child"] + \
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


def interfaces() -> list[str]:
    """The network interfaces this process's network namespace has (``/proc/self/net/dev``: the
    namespace's own, where ``/sys/class/net`` shows the one sysfs was mounted in)."""
    try:
        lines = open("/proc/self/net/dev", encoding="ascii", errors="replace").read().splitlines()[2:]
    except OSError:
        return []
    return [line.split(":", 1)[0].strip() for line in lines if ":" in line]


NETWORK_OF_ITS_OWN = "network and PID namespaces of its own (the stand-in model out of its reach)"
PIDS_OF_ITS_OWN = ("PID namespace of its own, the host's configuration covered (it shares the loopback "
                   "with the proxy; the stand-in answers only requests carrying the run's key)")


def isolation_argv(*, network: bool, cover: tuple[str, ...] = ()) -> list[str] | None:
    """The command prefix that starts a server apart from the host's model (see the module's
    text): new namespaces (a network one too when ``network``), then this module as a script,
    which brings ``lo`` up, covers each folder of ``cover`` with an empty tmpfs and executes the
    server. None where the namespaces cannot be made."""
    base = unshare_argv(network=network)
    if base is None:
        return None
    covering = [word for folder in cover for word in ("--cover", os.path.abspath(folder))]
    return [*base, sys.executable, "-S", os.path.abspath(__file__),
            *(["--lo-up"] if network else []), *covering, "--"]


def _mount_tmpfs(folder: str) -> None:
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.mount(b"tmpfs", folder.encode(), b"tmpfs", 0, b"size=1m,mode=0700") != 0:
        raise OSError(ctypes.get_errno(), f"cannot cover {folder}")


def _exec_isolated(args: list[str]) -> int:
    """Inside the new namespaces: bring ``lo`` up, cover folders, then start the server and wait.

    This process is the namespace's PID 1, so the server is not: a PID 1 takes no signal it has
    no handler for, and a server with default handlers would shrug off the SIGTERM that stops
    it. This one passes SIGTERM, SIGINT and SIGHUP on, holds none of the server's pipes, and
    ends with the server's status; when it ends, the kernel ends whatever the server left."""
    import signal

    if "--" not in args or args.index("--") == len(args) - 1:
        print("mcp-accept netguard: usage: [--lo-up] [--cover DIR]... -- COMMAND...", file=sys.stderr)
        return 2
    split = args.index("--")
    options, argv = args[:split], args[split + 1:]
    try:
        if "--lo-up" in options:
            loopback_up()
        for i, word in enumerate(options):
            if word == "--cover" and i + 1 < len(options):
                os.makedirs(options[i + 1], exist_ok=True)
                _mount_tmpfs(options[i + 1])
        child = os.fork()
        if child == 0:
            try:
                os.execvp(argv[0], argv)
            except OSError as exc:
                print(f"mcp-accept: cannot start {argv[0]!r}: {exc.strerror or exc}", file=sys.stderr)
            os._exit(127)
    except OSError as exc:
        print(f"mcp-accept: cannot start the server apart from the host's model: {exc}", file=sys.stderr)
        return 127
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, lambda signum, frame: os.kill(child, signum))
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):  # the server's end of file is its own: no copy of its pipes stays here
        os.dup2(null, fd)
    while True:
        try:
            _, status = os.waitpid(child, 0)
        except ChildProcessError:
            return 0
        except InterruptedError:
            continue
        return os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status)



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

if __name__ == "__main__":
    sys.exit(_exec_isolated(sys.argv[1:]))
