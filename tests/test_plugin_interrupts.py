"""The plugin's interrupt accounting (configs/qemu/plugin/interrupts.c),
event by event: what it takes out of the calls' counts when an interrupt
asks for a reschedule and another task runs before the ROI's task goes on.

Measured on x86 stat-namelen, stock (issue 67): a timer tick inside a
system call sets need_resched; its window closes at its IRETQ, back into
the call; the call's return to user then switches to a kernel thread,
which ran about 15,600 instructions and two clock reads (read_tsc's
LFENCE; RDTSC) before the switch back. The plugin counted all of it as the
calls' own: two LFENCEs more than the calls' own 64,033 on three of six
boots. From the switch away from the ROI's task to the switch back, the
other task's work is the interrupts' now (a memory callback on the task
switch's two accesses names the tasks), and the other task's entries and
returns leave the entry depth alone: an IRETQ of a task preempted in an
interrupt used to end the ROI task's interrupt early.

The driver below compiles interrupts.c as the plugin does, with the
counters the rest of the plugin owns, and replays events: what QEMU would
call back, in order."""

import json
import shutil
import subprocess
from pathlib import Path

import pytest

PLUGIN = Path(__file__).resolve().parent.parent / "configs" / "qemu" / "plugin"

pytestmark = pytest.mark.skipif(not shutil.which("gcc"), reason="gcc is missing")

# One event a line: "insns N" (N instructions run, counted at TB entry),
# "lfence N", "movs N" (passes of a REP MOVS), "begin" (the ROI's begin
# marker), "irq" (an interrupt entry, the first instruction of its TB),
# "exc" (an exception entry), "ret" (IRETQ or ERET), "prev ADDR" and
# "next ADDR" (the task switch's store into the outgoing task's struct and
# load from the incoming one's). It prints what the plugin would report
# as the interrupts' part.
DRIVER = r"""
#include <stdio.h>
#include <string.h>
#include "uaccess_profile.h"

struct dyn_counters dyn;
enum roi_state roi_state;

int main(void)
{
	char what[16];
	unsigned long long n = 0;
	struct entry_site irq = { ENTRY_INTERRUPT, 0 }, exc = { ENTRY_EXCEPTION, 0 };

	while (scanf("%15s", what) == 1) {
		if (strcmp(what, "begin") && strcmp(what, "irq") && strcmp(what, "exc") &&
		    strcmp(what, "ret") && scanf("%lli", (long long *)&n) != 1)
			return 2;
		if (!strcmp(what, "insns")) dyn.insns += n;
		else if (!strcmp(what, "lfence")) dyn.facts[F_LFENCE] += n;
		else if (!strcmp(what, "movs")) dyn.rep_pass[R_MOVS] += n;
		else if (!strcmp(what, "begin")) { interrupts_roi_begin(); roi_state = ROI_ACTIVE; }
		else if (!strcmp(what, "irq")) entry_exec(0, &irq);
		else if (!strcmp(what, "exc")) entry_exec(0, &exc);
		else if (!strcmp(what, "ret")) entry_return_exec(0, NULL);
		else if (!strcmp(what, "prev")) switch_mem(0, 0, n, (void *)(uintptr_t)SWITCH_PREV);
		else if (!strcmp(what, "next")) switch_mem(0, 0, n, (void *)(uintptr_t)SWITCH_NEXT);
		else return 2;
	}
	printf("{\"taken\":%llu,\"switches\":%llu,\"insns\":%llu,\"lfence\":%llu,"
	       "\"movs\":%llu,\"all\":%llu}\n",
	       (unsigned long long)irq_taken, (unsigned long long)switches,
	       (unsigned long long)irq_sum.insns,
	       (unsigned long long)irq_sum.facts[F_LFENCE],
	       (unsigned long long)irq_sum.rep_pass[R_MOVS], (unsigned long long)dyn.insns);
	return 0;
}
"""


@pytest.fixture(scope="module")
def replay(tmp_path_factory):
    out = tmp_path_factory.mktemp("plugin")
    (out / "driver.c").write_text(DRIVER)
    exe = out / "driver"
    subprocess.run(["gcc", "-std=gnu11", "-O1", "-Wall", "-Werror", f"-I{PLUGIN}", "-o",
                    str(exe), str(out / "driver.c"), str(PLUGIN / "interrupts.c")],
                   check=True, capture_output=True, text=True)

    def run(events: str) -> dict:
        proc = subprocess.run([str(exe)], input=events, capture_output=True, text=True,
                              check=True)
        return json.loads(proc.stdout)
    return run


# The ROI task (A) and two others, named by their switch address.
A, B, C = "0x7f888001000718", "0x7f888002000718", "0x7f888003000718"


def test_an_interrupt_alone_is_its_window(replay):
    got = replay("begin insns 1000 irq insns 300 lfence 2 movs 1 ret insns 1000")
    assert got == dict(taken=1, switches=0, insns=300, lfence=2, movs=1, all=2300)


def test_a_reschedule_at_the_calls_return_is_the_interrupts_work(replay):
    # The measured case: the tick's window closes inside the system call;
    # the call's return switches to a kernel thread and back.
    got = replay(f"""begin insns 1000
        irq insns 300 lfence 2 ret
        insns 305 prev {A} next {B}
        insns 15600 lfence 2 movs 27
        prev {B} next {A} insns 1000""")
    assert got == dict(taken=1, switches=1, insns=300 + 15600, lfence=4, movs=27,
                       all=18205)


def test_another_tasks_return_does_not_end_the_interrupt(replay):
    # The tick's exit path switches to a task that was preempted in an
    # interrupt of its own: that task's IRETQ is not the ROI task's, so
    # the interrupt's window stays open until the ROI task's own.
    got = replay(f"""begin insns 1000
        irq insns 300 prev {A} next {B}
        ret insns 4000 lfence 2
        prev {B} next {A} insns 20 ret
        insns 1000""")
    assert got == dict(taken=1, switches=1, insns=4320, lfence=2, movs=0, all=6320)


def test_the_other_tasks_interrupts_are_theirs(replay):
    # Away from the ROI task, an interrupt is part of the other task's
    # work (counted once, not taken by the ROI), and several tasks may run
    # before the ROI task comes back.
    got = replay(f"""begin insns 10 exc insns 5
        prev {A} next {B} insns 100 irq insns 50 ret
        prev {B} next {C} insns 70
        prev {C} next {A} insns 5 ret insns 10""")
    assert got == dict(taken=0, switches=1, insns=220, lfence=0, movs=0, all=250)


def test_the_roi_task_is_the_first_switched_away_from(replay):
    # A switch's load before any store in the ROI names no task yet; and
    # nothing before the ROI's begin counts.
    got = replay(f"""prev {B} next {C} insns 50 begin next {B} insns 10
        prev {A} next {B} insns 40 prev {B} next {A} insns 10""")
    assert got == dict(taken=0, switches=1, insns=40, lfence=0, movs=0, all=110)


# switch_access on the pinned kernels' task switch (objdump -d vmlinux):
# x86 __switch_to_asm, arm64 cpu_switch_to; a store or load of another
# register, or the same bytes on the other arch, is not one.
DECODE = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "uaccess_profile.h"

enum arch arch;

int main(int argc, char **argv)
{
	uint8_t b[16];
	size_t n = 0;

	arch = !strcmp(argv[1], "x86_64") ? ARCH_X86_64 : ARCH_AARCH64;
	for (int i = 2; i < argc && n < sizeof(b); i++)
		b[n++] = (uint8_t)strtoul(argv[i], NULL, 16);
	printf("%d\n", switch_access(b, n));
	return 0;
}
"""

PREV, NEXT, NONE = 0, 1, -1


@pytest.fixture(scope="module")
def decode(tmp_path_factory):
    out = tmp_path_factory.mktemp("decode")
    (out / "decode.c").write_text(DECODE)
    subprocess.run(["gcc", "-std=gnu11", "-Wall", "-Werror", f"-I{PLUGIN}", "-o",
                    str(out / "decode"), str(out / "decode.c"), str(PLUGIN / "decode.c")],
                   check=True, capture_output=True, text=True)
    return out / "decode"


@pytest.mark.parametrize("arch,insn,side", [
    ("x86_64", "48 89 a7 18 07 00 00", PREV),   # mov %rsp,0x718(%rdi)
    ("x86_64", "48 8b a6 18 07 00 00", NEXT),   # mov 0x718(%rsi),%rsp
    ("x86_64", "48 89 e7", NONE),               # mov %rsp,%rdi
    ("x86_64", "48 8b a7 18 07 00 00", NONE),   # mov 0x718(%rdi),%rsp
    ("arm64", "1e 01 00 f9", PREV),             # str x30, [x8]
    ("arm64", "1e 01 40 f9", NEXT),             # ldr x30, [x8]
    ("arm64", "13 51 81 a8", NONE),             # stp x19, x20, [x8], #16
    ("arm64", "48 89 a7 18 07 00 00", NONE),
])
def test_the_task_switch_accesses_are_recognised(decode, arch, insn, side):
    out = subprocess.run([str(decode), arch, *insn.split()], capture_output=True, text=True,
                         check=True).stdout
    assert int(out) == side
