"""What `./run.py list` and `./run.py doctor` say of the QEMU backend:
its profiles, and what this machine has of it (the QEMU binaries, their
versions, the profiling plugin's build). commands/inventory.py asks each
backend (QemuBackend.list_lines, host_tools, doctor_checks).
"""

from configs.qemu import plugin_build
from configs.qemu import process as qemu_process
from configs.qemu import profile as qemu_profile
from lab import arches


def list_lines() -> list:
    return ["profiles:  " + ", ".join(qemu_profile.profile_names()) + "  (QEMU)"]


def host_tools(arch: str) -> list:
    """The host programs a point of `arch` needs of it: its QEMU binary."""
    return [_qemu_binary(arch)]


def doctor_checks(args) -> list:
    """(name, check) of what it needs: each arch's QEMU, the plugin."""
    def qemu_version(arch):
        return lambda: qemu_process.version(_qemu_binary(arch))

    def plugin():
        return str(plugin_build.build("qemu-system-x86_64"))

    return [(f"{arch} QEMU", qemu_version(arch)) for arch in arches.NAMES] + [
        ("QEMU profiling plugin", plugin)]


def _qemu_binary(arch: str) -> str:
    """The QEMU binary of `arch`'s default profile."""
    return qemu_profile.load_profile(arches.get(arch).qemu_profile).binary
