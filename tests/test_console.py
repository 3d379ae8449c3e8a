from configs import console

GOOD = """\
[    0.000000] Linux version 6.1.192 ...
@@UACCESS-BOOT release=6.1.192 version=#1 Thu Jan  1 00:00:00 UTC 2026 machine=x86_64 backend=qemu
@@UACCESS-CPUFLAGS fpu de pse smap smep
@@UACCESS-BEGIN workload=lstat-storm
@@UACCESS-RESULT {"workload":"lstat-storm","ops":10,"errors":0,"checksum":"00000000000000ab","roi_ns":5}
@@UACCESS-END status=0
"""


def test_good_log():
    rep = console.parse(GOOD)
    assert rep.failure() is None
    assert rep.result["ops"] == 10
    assert rep.boot["version"] == "#1 Thu Jan  1 00:00:00 UTC 2026"
    assert rep.boot["backend"] == "qemu"
    assert "smap" in rep.cpu_flags.split()


def test_panic_is_a_failure():
    rep = console.parse("[ 1.0] Kernel panic - not syncing: No working init found.\n")
    assert rep.failure().startswith("kernel panic: not syncing")


def test_missing_result_line():
    rep = console.parse(GOOD.replace("@@UACCESS-RESULT", "garbled"))
    assert "no @@UACCESS-RESULT" in rep.failure()


def test_nonzero_exit_and_errors():
    assert "status=1" in console.parse(GOOD.replace("status=0", "status=1")).failure()
    assert "failed syscalls" in console.parse(GOOD.replace('"errors":0', '"errors":3')).failure()
    rep = console.parse(GOOD + "@@UACCESS-ERROR mount /tmp: No such device\n")
    assert "mount /tmp" in rep.failure()


def test_carriage_returns_from_serial():
    rep = console.parse(GOOD.replace("\n", "\r\n"))
    assert rep.failure() is None and rep.exit_status == "status=0"
