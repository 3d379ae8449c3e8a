"""The Buildroot path: the external tree's defconfigs, the post-build
script, the offline toolchain, the defconfig check, and (slow, cached)
real Buildroot builds of both arches compared with the assembler's image.

The real builds need the Buildroot tree (BUILDROOT_HOME, which
tests/conftest.py sets to the release in ../shared/third-party where the
checkout has one beside it, or one './run.py buildroot setup' unpacked) and, the first time on a machine, the Debian mirror for
the host-package sources; they skip, naming what is missing, elsewhere.
How the release is got (online, its tag's commit checked; offline, given)
is tested on a local git repository and a loopback HTTP server: no test
downloads from outside this machine.
"""

import hashlib
import os
import shutil
import socket
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from buildroot import (assemble, buildroot_image, compare_images, cpio, kernel_fragment,
                       release, toolchain)
from kernels import build as kbuild
from lab import arches, kconfig
from lab.errors import UserError
from workloads import script
import qemu_runs
import site_browser

REPO = Path(__file__).resolve().parent.parent
TINY = REPO / "tests" / "data" / "tiny-storm.toml"
EXTERNAL = buildroot_image.EXTERNAL
POST_BUILD = EXTERNAL / "board" / "uaccess" / "post-build.sh"
ARCHES = arches.NAMES


needs_tree = pytest.mark.skipif(
    not release.available(), reason=f"no Buildroot tree: run './run.py buildroot setup' (online), "
    f"or set BUILDROOT_HOME to a tree or to {release.TARBALL}")
needs_qemu = pytest.mark.skipif(
    not all(shutil.which(p) for p in ("qemu-system-x86_64", "qemu-system-aarch64")),
    reason="QEMU is missing: run 'make deps'")
needs_cross = pytest.mark.skipif(
    shutil.which("aarch64-linux-gnu-gcc") is None,
    reason="the arm64 cross compiler is missing: run 'make deps'")


def _config_differences(ours: Path, theirs: Path) -> dict:
    """{symbol: (buildroot's value, kernels/ builder's)} of every line that
    differs between two kernel .config files."""
    a = kconfig.parse(ours.read_text(), str(ours))
    b = kconfig.parse(theirs.read_text(), str(theirs))
    return {sym: (a.get(sym, "n"), b.get(sym, "n"))
            for sym in sorted(set(a) | set(b)) if a.get(sym, "n") != b.get(sym, "n")}


@pytest.mark.parametrize("arch", ARCHES)
def test_defconfig_parses_and_asks_for_no_static_libs(arch):
    """BR2_STATIC_LIBS needs a non-glibc C library; asking for it with a
    glibc toolchain is what once went unnoticed."""
    path = EXTERNAL / "configs" / arches.get(arch).buildroot_defconfig
    wanted = kconfig.parse(path.read_text(), str(path), prefix="BR2_")
    assert "BR2_STATIC_LIBS" not in wanted
    assert wanted["BR2_ROOTFS_POST_BUILD_SCRIPT"].endswith('/board/uaccess/post-build.sh"')
    assert wanted["BR2_PACKAGE_UACCESS_WORKLOADS"] == "y"


def _elf(path: Path, dynamic: bool) -> None:
    src = path.with_suffix(".c")
    src.write_text("int main(void) { return 0; }\n")
    subprocess.run(["gcc", "-o", str(path), str(src)] + ([] if dynamic else ["-static"]),
                   check=True)
    src.unlink()


def _target(tmp_path) -> Path:
    t = tmp_path / "target"
    for d in ("usr/bin", "usr/lib", "etc/uaccess"):
        (t / d).mkdir(parents=True)
    (t / "lib").mkdir()
    _elf(t / "usr" / "bin" / "tool", dynamic=False)
    (t / "lib" / "libc.so.6").write_bytes(b"\x7fELF fake library")
    (t / "lib" / "libm.so").symlink_to("libm.so.6")
    (t / "lib64").symlink_to("lib")
    (t / "etc" / "nsswitch.conf").write_text("passwd: files\n")
    (t / "etc" / "uaccess" / "job.conf").write_text("workload=default\n")
    (t / "usr" / "share" / "uaccess").mkdir(parents=True)
    (t / "usr" / "share" / "uaccess" / "kernel-tree.paths").write_text("stale\n")
    return t


def test_post_build_removes_shared_libraries_and_installs_the_job(tmp_path):
    t = _target(tmp_path)
    job = tmp_path / "job"
    (job / "etc" / "uaccess").mkdir(parents=True)
    (job / "etc" / "uaccess" / "job.conf").write_text("workload=statx-loop\n")
    subprocess.run(["sh", str(POST_BUILD), str(t), str(job)], check=True)
    left = sorted(str(p.relative_to(t)) for p in t.rglob("*"))
    # The previous job's path list goes, and the folder it alone needed.
    assert left == ["etc", "etc/uaccess", "etc/uaccess/job.conf", "usr", "usr/bin",
                    "usr/bin/tool"]
    assert (t / "etc" / "uaccess" / "job.conf").read_text() == "workload=statx-loop\n"


def test_post_build_without_a_job_keeps_the_overlay_job(tmp_path):
    t = _target(tmp_path)
    subprocess.run(["sh", str(POST_BUILD), str(t)], check=True)
    assert (t / "etc" / "uaccess" / "job.conf").read_text() == "workload=default\n"


def test_post_build_refuses_a_dynamically_linked_program(tmp_path):
    t = _target(tmp_path)
    _elf(t / "usr" / "bin" / "dyn", dynamic=True)
    run = subprocess.run(["sh", str(POST_BUILD), str(t)], capture_output=True, text=True)
    assert run.returncode == 1
    assert "usr/bin/dyn is dynamically linked" in run.stderr


def test_cpio_reader_reads_what_the_writer_wrote(tmp_path):
    root = tmp_path / "root"
    (root / "usr" / "bin").mkdir(parents=True)
    (root / "usr" / "bin" / "tool").write_bytes(b"abc")
    (root / "usr" / "bin" / "tool").chmod(0o755)
    (root / "init").symlink_to("/usr/bin/tool")
    out = tmp_path / "a.cpio"
    cpio.write_tree(root, out, devices=[("dev/console", 5, 1)])
    tree = cpio.read_tree(out)
    assert sorted(tree) == ["dev/console", "init", "usr", "usr/bin", "usr/bin/tool"]
    tool = tree["usr/bin/tool"]
    assert stat.S_IMODE(tool.mode) == 0o755 and tool.kind() == "-"
    assert tool.content == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    assert tree["init"].content == "/usr/bin/tool"
    assert tree["dev/console"].rdev == (5, 1) and tree["dev/console"].kind() == "c"


def test_differences_name_mode_content_and_presence(tmp_path):
    def archive(name, files, console_mode):
        root = tmp_path / name
        root.mkdir()
        for rel, data in files.items():
            (root / rel).write_bytes(data)
        out = tmp_path / f"{name}.cpio"
        with open(out, "wb") as f:
            w = cpio.CpioWriter(f)
            for rel, data in sorted(files.items()):
                w.add_file(rel, data, 0o755)
            w.add_char_device("dev/console", 5, 1, console_mode)
            w.finish()
        return out
    a = archive("a", {"init": b"1", "only-a": b"x"}, 0o622)
    b = archive("b", {"init": b"2"}, 0o600)
    diff = compare_images.differences(a, b)
    assert sorted(diff) == ["dev/console", "init", "only-a"]
    assert diff["only-a"].endswith("| assembler: absent")
    assert "0o622" in diff["dev/console"] and "0o600" in diff["dev/console"]


@pytest.mark.parametrize("arch", [pytest.param("x86_64"),
                                  pytest.param("arm64", marks=needs_cross)])
def test_offline_toolchain_finds_libc_only_in_its_own_sysroot(arch):
    """Buildroot takes the sysroot from where the compiler finds libc.a:
    Debian's gcc as installed answers with a host path."""
    tc = toolchain.ensure(arch)
    gcc = tc / "bin" / f"{arches.get(arch).triplet}-gcc"
    libc = subprocess.run([str(gcc), "-print-file-name=libc.a"], capture_output=True,
                          text=True, check=True).stdout.strip()
    assert Path(libc).resolve().is_relative_to((tc / "sysroot").resolve())
    dirs = subprocess.run([str(gcc), "-print-search-dirs"], capture_output=True, text=True,
                          check=True).stdout
    libraries = dirs.split("libraries: =", 1)[1].split(":")
    assert all(Path(d).resolve().is_relative_to(tc.resolve()) for d in libraries
               if Path(d).exists()), libraries


@needs_tree
def test_a_dropped_request_is_named(tmp_path, monkeypatch):
    """The check after `make defconfig`, on the real Buildroot tree: a
    request Kconfig cannot honour (static libraries with glibc) fails the
    build before it starts, naming the option."""
    br_tree, _ = buildroot_image.tree()
    work = tmp_path / "out"
    work.mkdir()
    real = buildroot_image._fragment
    monkeypatch.setattr(buildroot_image, "_fragment",
                        lambda *a: real(*a) + "BR2_STATIC_LIBS=y\n")
    with pytest.raises(UserError, match=r"dropped 1 requested option\(s\) of "
                       r"uaccess_x86_64_defconfig: BR2_STATIC_LIBS=y \(Buildroot has n\)"):
        buildroot_image._configure("x86_64", "debian", br_tree, work)


def _no_tree_here(monkeypatch, tmp_path):
    """A machine with no Buildroot: no BUILDROOT_HOME, an empty cache."""
    monkeypatch.delenv("BUILDROOT_HOME", raising=False)
    monkeypatch.setenv("UACCESS_CACHE", str(tmp_path / "cache"))


def _release_tarball() -> Path:
    """The real release tarball, where this machine has one."""
    home = Path(os.environ.get("BUILDROOT_HOME") or "/nonexistent")
    if home.is_file():
        return home
    pytest.skip(f"no {release.TARBALL} here (BUILDROOT_HOME=the tarball; the suite sets it "
                f"from ../shared/third-party where that has one) to serve")




def _release_repository(tmp_path, version: str = release.VERSION) -> tuple:
    """(a file:// URL, the commit its tag `version` names): a git
    repository holding a tiny Buildroot-shaped tree, the 'online' one."""
    work = tmp_path / "upstream"
    (work / "support" / "scripts").mkdir(parents=True)
    (work / "support" / "scripts" / "mkusers").write_text("#!/bin/sh\n")
    (work / "Makefile").write_text(f"export BR2_VERSION := {version}\n")
    git = ["git", "-C", str(work), "-c", "user.name=t", "-c", "user.email=t@localhost"]
    for args in (["init", "--quiet"], ["add", "-A"], ["commit", "--quiet", "-m", "release"],
                 ["tag", version]):
        subprocess.run(git + args, check=True, capture_output=True)
    commit = subprocess.run(git + ["rev-parse", "HEAD"], check=True, capture_output=True,
                            text=True).stdout.strip()
    return f"file://{work}", commit


def _kept(cache: Path) -> list:
    return [p for p in cache.rglob("*") if p.is_file()]


def test_missing_tree_offline_is_one_line_naming_what_to_do(monkeypatch, tmp_path):
    _no_tree_here(monkeypatch, tmp_path)
    # "Offline": the official repository is a closed port on the loopback.
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setattr(release, "REPOSITORY", f"http://127.0.0.1:{port}/buildroot.git")
    with pytest.raises(UserError) as e:
        buildroot_image.tree()
    line = str(e.value)
    assert "\n" not in line and "could not be fetched" in line
    assert "./run.py buildroot setup --source PATH" in line and "BUILDROOT_HOME" in line
    # doctor's reading fetches nothing and says the same fix.
    with pytest.raises(UserError, match=r"no Buildroot 2024.02.13 yet: run './run.py "
                                        r"buildroot setup' online"):
        release.tree(fetch=False)
    assert _kept(tmp_path / "cache") == []


def test_the_pins_are_what_a_user_gets_and_say_which_is_which():
    # Issue 67 item 7: the one pin was the sha256 of a git archive of the
    # tag, which no user downloads (buildroot.org's tarball is another
    # file), so the official release was refused online. Online, what is
    # pinned is the tag's commit in the official repository; offline, the
    # archive's digest, and that archive is of the same commit.
    assert release.REPOSITORY == "https://gitlab.com/buildroot.org/buildroot.git"
    assert release.COMMIT == "e687e3815f76c1c5ea9fb52b6558bedfe53ab117"
    out = subprocess.run([sys.executable, str(REPO / "run.py"), "buildroot", "setup",
                          "--help"], capture_output=True, text=True, timeout=60)
    said = " ".join(out.stdout.split())
    assert f"tag 2024.02.13 fetched with git from {release.REPOSITORY}" in said
    assert f"the tag is commit {release.COMMIT}" in said
    assert f"its sha256 is {release.ARCHIVE_SHA256}, the git archive of that commit" in said
    assert "buildroot.org's own buildroot-2024.02.13.tar.xz is a different file" in said


def test_the_pinned_archive_is_of_the_pinned_commit():
    # git archive writes the commit into the tarball's pax header: the two
    # routes unpack the same tree.
    tarball = _release_tarball()
    assert release.ARCHIVE_SHA256 == hashlib.sha256(tarball.read_bytes()).hexdigest()
    head = subprocess.run(["xz", "-dc", str(tarball)], capture_output=True).stdout[:1024]
    assert f"comment={release.COMMIT}".encode() in head


def test_online_the_release_tag_is_fetched_checked_and_unpacked(monkeypatch, tmp_path):
    _no_tree_here(monkeypatch, tmp_path)
    url, commit = _release_repository(tmp_path)
    monkeypatch.setattr(release, "REPOSITORY", url)
    monkeypatch.setattr(release, "COMMIT", commit)
    path, ident = buildroot_image.tree()
    assert ident == {"tarball": release.TARBALL, "sha256": release.ARCHIVE_SHA256,
                     "version": "2024.02.13"}
    assert (path / "Makefile").is_file() and str(path).startswith(str(tmp_path / "cache"))
    assert not (path / ".git").exists()
    # Only the tree is kept (the clone it came from is gone).
    assert {p.relative_to(path).as_posix() for p in _kept(tmp_path / "cache")} == \
        {"Makefile", "support/scripts/mkusers"}
    # Found again without the repository: the unpacked release is kept.
    monkeypatch.setattr(release, "REPOSITORY", "http://127.0.0.1:9/gone")
    assert buildroot_image.tree() == (path, ident)


def test_a_repository_whose_tag_is_another_commit_is_refused_in_one_line(tmp_path):
    # A mirror whose tag 2024.02.13 is not Buildroot's release: the commit
    # is the pin, whatever the tag's name says.
    url, commit = _release_repository(tmp_path)
    cache = tmp_path / "cache"
    env = dict(os.environ, UACCESS_CACHE=str(cache))
    env.pop("BUILDROOT_HOME", None)
    run = subprocess.run([sys.executable, str(REPO / "run.py"), "buildroot", "setup",
                          "--source", url], capture_output=True, text=True, env=env,
                         timeout=120)
    assert run.returncode == 2 and run.stdout == ""
    line, = run.stderr.strip().splitlines()
    assert line == (f"run.py: {url}'s tag 2024.02.13 is commit {commit[:12]}, not Buildroot's "
                    f"e687e3815f76: fetch it from {release.REPOSITORY}, or give the release "
                    f"offline (--source)")
    assert _kept(cache) == []


def test_a_download_that_is_not_the_release_is_refused_in_one_line(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (site / release.TARBALL).write_bytes(b"not buildroot at all\n")
    cache = tmp_path / "cache"
    env = dict(os.environ, UACCESS_CACHE=str(cache))
    env.pop("BUILDROOT_HOME", None)
    with site_browser.served(site) as base:  # the "online" release site, on this machine only
        base = base.rstrip("/")
        url = f"{base}/{release.TARBALL}"
        run = subprocess.run([sys.executable, str(REPO / "run.py"), "buildroot", "setup",
                              "--source", url], capture_output=True, text=True, env=env,
                             timeout=120)
    assert run.returncode == 2 and run.stdout == ""
    line, = run.stderr.strip().splitlines()
    assert line.startswith(f"run.py: {url} has sha256 ")
    assert f"not {release.ARCHIVE_SHA256[:16]}..., the archive of Buildroot 2024.02.13's " \
        f"commit e687e3815f76" in line
    assert not any(p.is_file() for p in cache.rglob("*")), list(cache.rglob("*"))


def test_offline_setup_takes_the_tarball_given(tmp_path):
    tarball = _release_tarball()
    cache = tmp_path / "cache"
    env = dict(os.environ, UACCESS_CACHE=str(cache))
    env.pop("BUILDROOT_HOME", None)
    run = subprocess.run([sys.executable, str(REPO / "run.py"), "buildroot", "setup",
                          "--source", str(tarball)], capture_output=True, text=True, env=env,
                         timeout=300)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith(f"Buildroot 2024.02.13 at {cache}")
    assert (cache / "buildroot" / "tree" / release.ARCHIVE_SHA256[:16] / "Makefile").is_file()


def test_a_wrong_buildroot_home_is_one_line_and_writes_nothing(tmp_path):
    cache = tmp_path / "cache"
    env = dict(os.environ, UACCESS_CACHE=str(cache), BUILDROOT_HOME=str(tmp_path))
    run = subprocess.run([sys.executable, str(REPO / "run.py"), "build-image", "--arch",
                          "x86_64", "--builder", "buildroot"], capture_output=True, text=True,
                         env=env, timeout=60)
    assert run.returncode == 2
    assert run.stderr.strip().splitlines() == [
        f"run.py: BUILDROOT_HOME={tmp_path} is not a Buildroot tree (no Makefile and "
        f"support/scripts) nor its release tarball: point it at one, or unset it"]
    assert not cache.exists() or not any(cache.rglob("*"))


def test_unknown_toolchain_route():
    with pytest.raises(UserError, match=r"unknown Buildroot toolchain 'gnu'"):
        buildroot_image.check_toolchain("gnu")


# ------------------------------------------------ real Buildroot builds --
@pytest.fixture(scope="module")
def default_job():
    return script.load(script.default_script("lstat-storm"))


@needs_tree
@pytest.mark.parametrize("arch", [pytest.param("x86_64"),
                                  pytest.param("arm64", marks=needs_cross)])
def test_buildroot_image_matches_the_assemblers(arch, default_job):
    """A real, offline Buildroot build of the external tree (cached: a cold
    build is several minutes per arch), compared entry by entry with the
    assembler's image of the same job. Every difference must be one that
    compare_images.EXPECTED explains, and every explained one must occur."""
    br = buildroot_image.build_image(arch, default_job)
    asm = assemble.build_image(arch, default_job)
    assert compare_images.unexplained(arch, br.cpio, asm.cpio) == {}
    manifest = br.manifest()
    assert manifest["builder"] == "buildroot" and manifest["buildroot"]["version"] == "2024.02.13"
    # Only static programs: no shared library, no dynamic loader.
    assert not any(".so" in path for path in manifest["files"])
    assert br.ext2.stat().st_size > 0


@needs_tree
@needs_qemu
@pytest.mark.parametrize("arch", [pytest.param("x86_64"),
                                  pytest.param("arm64", marks=needs_cross)])
def test_both_images_boot_to_the_same_checksum_and_counts(arch):
    """The stock kernel boots each builder's image of the same small storm
    under QEMU (forced, with the plugin). The workload's checksum covers
    what every stat call returned: equal. The counts compared are the
    exact ones, those only user-access code executes: x86's stac (clac
    and rep movs also run on interrupt paths, and timer interrupts land
    in the ROI at host-dependent points: they vary from boot to boot of
    one image), arm64's LDTR/STTR and PAN writes. On x86 the programs are
    the same bytes, so their user instructions are equal too; on arm64
    they are not (compare_images.ARM64_WHY)."""
    job = script.load(TINY)
    kernel = kbuild.build_kernel(arch, "stock")
    recs = {name: qemu_runs.run(kernel, image, job, "", 180, force=True, plugin=True)
            for name, image in (("buildroot", buildroot_image.build_image(arch, job)),
                                ("assembler", assemble.build_image(arch, job)))}
    br, asm = recs["buildroot"], recs["assembler"]
    assert br["result"]["errors"] == 0 and br["result"]["ops"] == asm["result"]["ops"] > 0
    assert br["result"]["checksum"] == asm["result"]["checksum"]
    if arch == "x86_64":
        assert br["counts"]["x86"]["stac"] == asm["counts"]["x86"]["stac"] > 0
        assert br["counts"]["insns"]["user"] == asm["counts"]["insns"]["user"]
    else:
        assert br["counts"]["arm64"] == asm["counts"]["arm64"]
        assert br["counts"]["arm64"]["sttr"] > 0
    assert br["provenance"]["image"]["builder"] == "buildroot"
    assert asm["provenance"]["image"]["builder"] == "assembler"


@needs_tree
@needs_qemu
@pytest.mark.parametrize("arch,variant", [
    ("x86_64", "statx-putuser"), pytest.param("arm64", "stock", marks=needs_cross)])
def test_buildroot_kernel_boots_like_the_kernels_builders(arch, variant):
    """One Buildroot build makes a kernel variant (the pinned source, its
    patch series) and the image. Cached: a cold build adds its host tools
    and a kernel build (about ten minutes per arch), so the suite builds
    one variant per arch: a patched one on x86 (the series applies), stock
    on arm64 (the arm64 wrapper adds -mcpu to the kernel's compiles too).
    Its .config is the kernels/ builder's but for the line that names the
    compiler (Buildroot compiles through its wrapper). Both kernels boot
    the same image, so only the kernel differs: same checksum, same exact
    user-access counts (see the test above for which counts are exact)."""
    job = script.load(TINY)
    image, kernel = buildroot_image.build(arch, job, variant=variant)
    ours = kbuild.build_kernel(arch, variant)
    diff = _config_differences(kernel.path / "config", ours.path / "config")
    assert sorted(diff) == list(kernel_fragment.COMPILER_LINES), diff
    manifest = kernel.manifest()
    assert manifest["builder"] == "buildroot" and manifest["variant"]["name"] == variant
    br, ref = (qemu_runs.run(k, image, job, "", 180, force=True, plugin=True)
               for k in (kernel, ours))
    assert br["result"]["checksum"] == ref["result"]["checksum"]
    if arch == "x86_64":
        assert br["counts"]["x86"]["stac"] == ref["counts"]["x86"]["stac"] > 0
    else:
        assert br["counts"]["arm64"] == ref["counts"]["arm64"]
    assert br["counts"]["insns"]["user"] == ref["counts"]["insns"]["user"]
    assert br["provenance"]["kernel"]["key"] == kernel.key != ours.key
