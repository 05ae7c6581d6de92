"""Hosts for the multi-host test: Linux network namespaces on one bridge, each with its own
address, its own loopback and, where asked, its own ``/etc/hosts`` (``ip netns exec`` mounts
``/etc/netns/NAME/hosts`` over it).

Everything is named ``gtdeploy-<pid>-...`` after the process that made it: :func:`sweep_stale`
removes what a test process that died left behind (it never touches another live run's)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

PREFIX = "gtdeploy"
SUBNET = "10.77.0"


def why_not() -> str | None:
    """Why this machine cannot run the test (None: it can)."""
    if os.geteuid() != 0:
        return "network namespaces need root"
    if shutil.which("ip") is None:
        return "no ip command (Debian: apt-get install iproute2)"
    if shutil.which("nginx") is None:
        return "no nginx (Debian: apt-get install nginx)"
    probe = f"{PREFIX}-{os.getpid()}-probe"
    made = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True)
    if made.returncode != 0:
        return f"ip netns add fails here: {made.stderr.strip()}"
    subprocess.run(["ip", "netns", "del", probe], capture_output=True)
    return None


def _run(*args: str) -> None:
    done = subprocess.run(list(args), capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(args)}: {done.stderr.strip()}")


def sweep_stale() -> None:
    """Delete the namespaces (and hosts files) of test processes that are gone."""
    listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    for line in listed.splitlines():
        name = line.split()[0] if line.split() else ""
        parts = name.split("-")
        mine = len(parts) >= 3 and parts[0] == PREFIX and parts[1].isdigit()
        if mine and not Path(f"/proc/{parts[1]}").exists():
            subprocess.run(["ip", "netns", "del", name], capture_output=True)
            shutil.rmtree(f"/etc/netns/{name}", ignore_errors=True)


@dataclass
class Network:
    """Hosts on one bridge (itself in a namespace of its own: nothing of the machine's own
    network is touched). ``hosts`` maps a short name to its last address byte."""

    hosts: dict[str, int]
    names: dict[str, str] = field(default_factory=dict)
    #: Every process started, with the signal that stops it in order (stopped last first).
    processes: list[tuple[subprocess.Popen[bytes], int]] = field(default_factory=list)

    def __post_init__(self) -> None:
        base = f"{PREFIX}-{os.getpid()}"
        self.switch = f"{base}-sw"
        self.names = {host: f"{base}-{host}" for host in self.hosts}

    def address(self, host: str) -> str:
        return f"{SUBNET}.{self.hosts[host]}"

    def up(self) -> None:
        _run("ip", "netns", "add", self.switch)
        _run("ip", "-n", self.switch, "link", "add", "br0", "type", "bridge")
        _run("ip", "-n", self.switch, "link", "set", "br0", "up")
        for host, name in self.names.items():
            _run("ip", "netns", "add", name)
            _run("ip", "link", "add", "eth0", "netns", name, "type", "veth",
                 "peer", "name", f"v-{host}", "netns", self.switch)  # fmt: skip
            _run("ip", "-n", self.switch, "link", "set", f"v-{host}", "master", "br0", "up")
            _run("ip", "-n", name, "addr", "add", f"{self.address(host)}/24", "dev", "eth0")
            _run("ip", "-n", name, "link", "set", "eth0", "up")
            _run("ip", "-n", name, "link", "set", "lo", "up")

    def hosts_file(self, host: str, entries: dict[str, str]) -> None:
        """``/etc/hosts`` as ``host`` sees it: these names, and localhost."""
        folder = Path("/etc/netns") / self.names[host]
        folder.mkdir(parents=True, exist_ok=True)
        lines = ["127.0.0.1 localhost", *(f"{ip} {name}" for name, ip in entries.items())]
        (folder / "hosts").write_text("\n".join(lines) + "\n")

    def command(self, host: str, args: Sequence[str], user: str | None = None) -> list[str]:
        """``args`` run on ``host`` (as ``user``: setpriv, which replaces itself with it)."""
        inside = list(args)
        if user:
            inside = ["setpriv", f"--reuid={user}", f"--regid={user}", "--init-groups", "--",
                      *inside]  # fmt: skip
        return ["ip", "netns", "exec", self.names[host], *inside]

    def start(
        self,
        host: str,
        args: Sequence[str],
        *,
        user: str | None = None,
        stop: int = signal.SIGTERM,
        **popen: object,
    ) -> subprocess.Popen[bytes]:
        """A process on ``host``: its pid is the program's own (``ip netns exec`` and setpriv
        replace themselves with it); ``stop``: the signal that ends it in order."""
        command = self.command(host, args, user)
        process: subprocess.Popen[bytes] = subprocess.Popen(command, **popen)  # type: ignore[call-overload]
        self.processes.append((process, stop))
        return process

    def run(self, host: str, args: Sequence[str], user: str | None = None) -> str:
        done = subprocess.run(self.command(host, args, user), capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(args)} on {host}: {done.stderr.strip()}")
        return done.stdout

    def down(self) -> None:
        """Stop every process (last started first: in order, then killed), then the hosts."""
        for process, stop in reversed(self.processes):
            if process.poll() is None:
                process.send_signal(stop)
                try:
                    process.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait(timeout=15)
        for name in [*self.names.values(), self.switch]:
            subprocess.run(["ip", "netns", "del", name], capture_output=True)
            shutil.rmtree(f"/etc/netns/{name}", ignore_errors=True)
