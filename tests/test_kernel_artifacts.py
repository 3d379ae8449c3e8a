"""The built kernels contain what their patches say (static check of the
machine code; counting executed instructions is the profiling plugin's
job). Uses the cached builds, building them if needed."""

import shutil
import subprocess

import pytest

from kernels import build as kbuild

pytestmark = pytest.mark.skipif(shutil.which("objdump") is None,
                                reason="objdump (binutils) is missing")


def _disassemble(kernel, *symbols):
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", str(kernel.vmlinux)],
                         capture_output=True, text=True, check=True).stdout
    picked, keep = [], False
    for line in out.splitlines():
        if line.endswith(">:"):
            keep = any(line.endswith(f"<{s}>:") for s in symbols)
        if keep:
            picked.append(line)
    return "\n".join(picked)


def _symbol_size(kernel, name):
    out = subprocess.run(["nm", "-S", str(kernel.vmlinux)], capture_output=True,
                         text=True, check=True).stdout
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[3] == name:
            return int(parts[1], 16)
    raise AssertionError(f"{name} not in {kernel.vmlinux}")


def test_dcache_repcmpsb_compares_with_the_string_instruction():
    lookups = ("__d_lookup", "__d_lookup_rcu", "d_same_name")
    stock = _disassemble(kbuild.build_kernel("x86_64", "stock"), *lookups)
    patched = _disassemble(kbuild.build_kernel("x86_64", "dcache-repcmpsb"), *lookups)
    assert "repz cmpsb" not in stock
    assert "repz cmpsb" in patched


def test_statx_putuser_writes_fields_one_by_one():
    stock = kbuild.build_kernel("x86_64", "stock")
    patched = kbuild.build_kernel("x86_64", "statx-putuser")
    # Stock builds the struct and copies it once; the variant has a store
    # (with its own exception-table entry) per field, so it is larger.
    assert _symbol_size(patched, "cp_statx") > _symbol_size(stock, "cp_statx")
    assert "_copy_to_user>" in _disassemble(stock, "cp_statx")
    assert "_copy_to_user>" not in _disassemble(patched, "cp_statx")


def test_vmlinux_keeps_its_symbols_for_gem5_arm():
    arm = kbuild.build_kernel("arm64", "stock")
    out = subprocess.run(["nm", str(arm.vmlinux)], capture_output=True, text=True,
                         check=True).stdout
    assert " unflatten_device_tree" in out
