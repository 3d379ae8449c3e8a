"""What two runs of one experiment ran on, read from their records before
their counts are: compare's first question.

An experiment (results.Run.experiment) is what was measured: the point and
its whole job. What it ran on is its provenance, and a count that moved
between two runs on different inputs says nothing about the lab: Debian's
linux-source-6.1 6.1.192-3 is another kernel than 6.1.192-2 (issue 67: two
namei-bytewise storms moved by 16,592 and 18,351 kernel instructions with
it, and went back with the -2 package). So compare reads these first, and
calls a count "differs" only where they are the same:

  kernel source    the linux-source package's version and its tarball's sha256
  kernel patch set the variant's and its layers' patches, by sha256
  kernel config    the configuration fragments the kernel was built with
  kernel compiler  the toolchain that built it
  QEMU             the emulator's version (a QEMU run)
  gem5             gem5's version and the patch series built into it (a gem5 run)
  image            the root filesystem's key: the workloads' sources, their
                   compiler and C library, the job (every input of the image)

An input a record does not hold (an older record) is not compared.
"""

from analysis import results


def _source(run) -> str:
    s = run.provenance.kernel.get("source") or {}
    return f"{s['package']} {s['version']}" if s.get("package") and s.get("version") else \
        s.get("version")


def _source_digest(run) -> str:
    return (run.provenance.kernel.get("source") or {}).get("sha256")


def _patches(run) -> str:
    if not run.provenance.kernel:
        return None
    return " ".join(f"{name}@{digest}" for name, digest in run.provenance.patches) or "none"


def _config(run) -> str:
    return run.provenance.kernel.get("config_fragments")


def _compiler(run) -> str:
    return run.provenance.kernel.get("toolchain")


def _qemu(run) -> str:
    q = run.qemu
    return q.version.replace("QEMU emulator version ", "QEMU ") if q and q.version else None


def _gem5(run) -> str:
    g = run.gem5
    if g is None or not g.version:
        return None
    return f"gem5 {g.version}" + (f" series {g.patches[:16]}" if g.patches else
                                  " without our series")


def _image(run) -> str:
    key = run.provenance.image_key
    return f"image {key[:8]}" if key else None


# (what it is, how a run's value is read), in the order compare reads them.
INPUTS = (
    ("kernel source", _source),
    ("kernel source tarball", _source_digest),
    ("kernel patch set", _patches),
    ("kernel config", _config),
    ("kernel compiler", _compiler),
    ("QEMU", _qemu),
    ("gem5", _gem5),
    ("image", _image),
)
# How an input is said where "published on A, yours B" would not say
# what A is.
SAID = {"kernel compiler": "published with a kernel compiled by {a}, yours {b}"}
# Inputs too long to quote whole: said by name, not by value.
UNQUOTED = ("kernel source tarball", "kernel patch set", "kernel config")


def differences(published: results.Run, yours: results.Run) -> list:
    """(input, published value, yours) of every input the two records
    hold and differ in, in INPUTS' order."""
    out = []
    for name, read in INPUTS:
        a, b = read(published), read(yours)
        if a is not None and b is not None and a != b:
            out.append((name, a, b))
    return out


def sentence(published: results.Run, yours: results.Run) -> str:
    """The inputs the two runs differ in, in words ("published on
    linux-source-6.1 6.1.192-2, yours 6.1.192-3"); "" where they ran on
    the same."""
    said = []
    for name, a, b in differences(published, yours):
        if name in UNQUOTED:
            said.append(f"another {name} than published")
            continue
        # The name both open with said once: "linux-source-6.1 6.1.192-2,
        # yours 6.1.192-3", not the package twice.
        first, _, rest = b.partition(" ")
        yours = rest if rest and a.split(" ", 1)[0] == first else b
        said.append(SAID.get(name, "published on {a}, yours {b}").format(a=a, b=yours))
    return "; ".join(said)
