"""The two architectures the study runs, as one table: every per-arch fact a
stage needs (how the kernel is built and named, the cross toolchain, the
image's Buildroot names, the QEMU and gem5 sides' defaults) in one typed
value per arch, and the one check of an arch name.

Stages read the facts here rather than keeping their own dictionaries, so
adding an arch, or renaming a file, is one edit. Nothing here is hashed
into a cache key: the keys record what a build used (the compiler's
version line, the config), not this table, so reshaping it moves no key.
"""

from dataclasses import dataclass

from lab import inputs


@dataclass(frozen=True)
class Arch:
    name: str              # the study's name, as sweeps and records spell it
    # The kernel (kernels/)
    kernel_arch: str       # make ARCH=
    cross_compile: str     # make CROSS_COMPILE= ("" for the host's own tools)
    kernel_image: str      # the boot image in the build tree
    # The cross toolchain and sysroot (kernels/, buildroot/)
    cc: str                # the C compiler for kernel and guest programs
    triplet: str           # GNU triplet: the toolchain's prefix and /usr/lib/<triplet>
    gcc_dir: str           # /usr/lib/<gcc_dir>/<triplet>/<major>: crt*.o, libgcc, cc1
    libc_dev_package: str  # the Debian package with the libc headers
    sysroot_packages: tuple  # the Debian packages a Buildroot sysroot is made of
    # The image (buildroot/)
    buildroot_defconfig: str
    buildroot_image_option: str  # the Buildroot option that builds kernel_image
    # The run stage (configs/)
    qemu_profile: str      # the QEMU profile a QEMU point runs by default
    qemu_boot_args: tuple  # kernel arguments every QEMU boot of the arch takes (with its reason)
    gem5_twin_profile: str  # the QEMU profile whose CPU matches gem5's
    gem5_isa: str          # gem5's build/<ISA> directory
    gem5_console: str      # the board's serial console (kernel console=)
    gem5_console_file: str  # where gem5 writes that console, in its m5out
    gem5_disk: str         # the board's disk device (kernel root=)
    gem5_lpj: str          # loops_per_jiffy at the board's clock (skips calibration)
    # Our gem5 series (configs/gem5-patches) models this arch's user-access
    # guard: x86's SMAP (STAC/CLAC), rep start-up and kernel entry, and with
    # it the smap_model axis (how STAC/CLAC are costed) and the kernel_entry
    # scheme. arm64's PAN is gem5's own: no series, no model, no scheme.
    gem5_series: bool
    gem5_kernel_layers: tuple  # kernel layers (kernels/layers) every gem5 kernel carries
    gem5_bootloader: bool  # the board boots through gem5's bootloader (gem5 setup builds it)
    gem5_boot_args: tuple  # the board's own kernel arguments (each arch's, with its reason)
    gem5_timer_mem_in_dtb: bool  # the board's device tree lists gem5's memory-mapped timer
    # The analysis (analysis/)
    uaccess_counts: tuple  # the user-access counts its tables show (analysis/findings' names)
    uaccess_metric: str    # the guard's exact count per call a reproduction must match
    uaccess_insns: tuple   # (label, metric): the user-access instructions a table shows

    @property
    def image_name(self) -> str:
        """The boot image's file name (bzImage, Image)."""
        return self.kernel_image.rsplit("/", 1)[-1]

    @property
    def default_cpu_preset(self) -> str:
        """The CPU preset a gem5 point runs when none is named."""
        return f"{self.name}-o3-default"

    def gem5_binary(self, variant: str = "opt") -> str:
        """gem5's binary of a build variant (opt: with debug tracing; fast:
        without) for this arch, relative to a gem5 tree."""
        return f"build/{self.gem5_isa}/gem5.{variant}"


X86_64 = Arch(
    name="x86_64",
    kernel_arch="x86_64", cross_compile="", kernel_image="arch/x86/boot/bzImage",
    cc="gcc", triplet="x86_64-linux-gnu", gcc_dir="gcc", libc_dev_package="libc6-dev",
    sysroot_packages=("libc6", "libc6-dev", "linux-libc-dev", "libcrypt1", "libcrypt-dev",
                      "libgcc-s1"),
    buildroot_defconfig="uaccess_x86_64_defconfig",
    buildroot_image_option="BR2_LINUX_KERNEL_BZIMAGE",
    qemu_profile="x86_64-smap", gem5_twin_profile="x86_64-gem5",
    # The TSC's frequency, given, not calibrated. Under TCG the guest's TSC
    # is the host's, and the kernel calibrates it against the emulated PIT
    # early in its boot; on a busy host the vCPU thread is descheduled in
    # that window, every method fails (our kernels have no ACPI, so no HPET
    # or PM timer to fall back on), the guest runs on the jiffies
    # clocksource, and each vDSO clock_gettime becomes a system call inside
    # the ROI: measured 2026-11-26, 2 of 5 boots with two QEMUs beside a
    # gem5 build, 56 of 177 boots of a test suite, and 10 of the 11 x86
    # stat-namelen rows then published. With the frequency given no boot
    # calibrates (0 of 10 lost, same load), and nowatchdog keeps the
    # jiffies-based watchdog from judging the TSC later. 3 GHz is nominal
    # (gem5's board clock): guest nanoseconds under TCG are host time x
    # the host's TSC GHz / 3, a rough guide as before; no count depends on it.
    qemu_boot_args=("tsc_early_khz=3000000", "tsc=nowatchdog"),
    gem5_isa="X86", gem5_console="ttyS0", gem5_console_file="board.pc.com_1.device",
    gem5_disk="/dev/sda", gem5_lpj="7999923",
    # smap-model: the STAC/CLAC stand-ins for a gem5 without the series;
    # gem5-boot: the APIC timer period on the command line (no 100 ms spin).
    gem5_series=True, gem5_kernel_layers=("smap-model", "gem5-boot"), gem5_bootloader=False,
    gem5_timer_mem_in_dtb=True,  # x86's board has no device tree: nothing to leave out
    # The boot's two timer checks, skipped (issue 30; docs/reference/gem5.md,
    # "Where the x86 boot's instructions go"): together at least 169M of a
    # 333.6M-instruction boot on the atomic CPU, where Arm reads its timer's
    # frequency. gem5's local APIC timer runs at the CPU clock / 16
    # (src/arch/x86/X86LocalApic.py, clk_divider=16): 187.5 MHz at the
    # board's 3 GHz (configs/gem5/spec.py CLOCK), 750,000 ticks per jiffy at
    # the kernel's HZ of 250 (x86's default CONFIG_HZ, which our fragments
    # leave alone). The kernel's own calibration on gem5 (apic=verbose)
    # measured 750,744 against the PIT, 0.1 % over. no_timer_check skips
    # check_timer's spin until the PIT has ticked through the IO-APIC.
    gem5_boot_args=("lapic_timer_period=750000", "no_timer_check"),
    uaccess_counts=("stac/clac", "rep iters"),
    uaccess_metric="stac", uaccess_insns=(("stac", "stac"),),
)

ARM64 = Arch(
    name="arm64",
    kernel_arch="arm64", cross_compile="aarch64-linux-gnu-",
    kernel_image="arch/arm64/boot/Image",
    cc="aarch64-linux-gnu-gcc", triplet="aarch64-linux-gnu", gcc_dir="gcc-cross",
    libc_dev_package="libc6-dev-arm64-cross",
    sysroot_packages=("libc6-arm64-cross", "libc6-dev-arm64-cross",
                      "linux-libc-dev-arm64-cross", "libgcc-s1-arm64-cross"),
    buildroot_defconfig="uaccess_aarch64_defconfig",
    buildroot_image_option="BR2_LINUX_KERNEL_IMAGE",
    qemu_profile="arm64-pan", gem5_twin_profile="arm64-gem5",
    qemu_boot_args=(),  # the generic timer's frequency is the platform's: nothing to calibrate
    gem5_isa="ARM", gem5_console="ttyAMA0", gem5_console_file="board.terminal",
    gem5_disk="/dev/vda", gem5_lpj="19988480",
    gem5_series=False, gem5_kernel_layers=(), gem5_bootloader=True,
    # gem5's Arm CPU has no SSBS, so with the default dynamic Spectre-v4
    # policy Linux patches a firmware-mitigation check into every kernel
    # entry and exit (5 instructions each way) that no core with SSBS runs,
    # and the QEMU twin's Cortex-A76 has SSBS (QEMU offers no core with PAN
    # but without SSBS, short of the SVE-only A64FX). With the mitigation
    # off the check is skipped as it is with SSBS, so both simulators run
    # the same entry code; the twin (qemu-profiles/arm64-gem5) boots with it too.
    gem5_boot_args=("ssbd=force-off",),
    # gem5's Arm platform has a memory-mapped timer (GenericTimerMem,
    # "arm,armv7-timer-mem" at 0x2a810000) whose frames only the secure
    # world may open: firmware grants them to the kernel through CNTNSAR,
    # and gem5's bootloader grants nothing. Linux 6.1 then fails the frame
    # ("arch_timer: Unable to find a suitable frame in timer @
    # 0x000000002a810000") and, having waited for it, never registers the
    # architected counter as a clocksource (arm_arch_timer.c: the CP15
    # probe defers arch_timer_common_init to the memory-mapped one while
    # the device tree lists one), so CLOCK_MONOTONIC ran on jiffies (4 ms)
    # and the vDSO fell back to a system call. Left out of the device tree,
    # the kernel counts time with CNTVCT_EL0, as an arm64 server does.
    gem5_timer_mem_in_dtb=False,
    uaccess_counts=("PAN writes", "LDTR", "STTR"),
    uaccess_metric="pan_writes", uaccess_insns=(("LDTR", "ldtr"), ("STTR", "sttr")),
)

# In the order tables and reports show them.
ARCHES = {a.name: a for a in (X86_64, ARM64)}
NAMES = tuple(ARCHES)


def get(name) -> Arch:
    """The arch called `name`, or the one error every stage gives."""
    return ARCHES[inputs.name_in(name, NAMES, "arch")]


def check(name) -> str:
    """`name`, once it is known to be an arch (the same error as get)."""
    return get(name).name
