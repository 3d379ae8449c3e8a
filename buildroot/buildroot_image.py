"""The image built through Buildroot, with the project's external tree.

`run.py build-image --builder buildroot` runs a real Buildroot build of
this folder's external tree (configs/uaccess_<arch>_defconfig) and returns
the same kind of artifact as the offline assembler (assemble.py): a
rootfs.cpio and a rootfs.ext2, content-addressed in the image cache.

  Buildroot tree   $BUILDROOT_HOME, else the 2024.02.13 release unpacked
                   into the cache, got by release.py (its tag from
                   Buildroot's git repository, the commit checked) or by
                   './run.py buildroot setup --source' (offline).
  toolchain        "debian" (offline, the default): Debian's gcc as a
                   custom external toolchain (toolchain.py), host-package
                   sources from Debian (host_sources.py); "bootlin": the
                   defconfig's own Bootlin toolchain, and Buildroot
                   downloads everything (needs the internet).
  job              as the assembler's: the post-build script puts the job's
                   files in place, so one Buildroot output directory serves
                   every job; only the project's own two packages are
                   rebuilt from the current sources each time.

After `make defconfig`, every option the fragment asked for is checked
against the resulting .config (Kconfig drops unmet requests silently, as
BR2_STATIC_LIBS once was), and the build stops naming the dropped ones.
A failed build keeps its log under cache/buildroot/logs and publishes
nothing: the image directory appears, by rename, only when complete.
"""

import json
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

from buildroot import assemble, cpio, host_sources, kernel_fragment, release, toolchain
from kernels import build as kbuild
from kernels import config as kernel_config
from kernels import source as linux_source
from lab import arches, cache, inputs, kconfig, tools
from lab.errors import UserError
from lab.progress import Progress

BUILDER_VERSION = 1
EXTERNAL = Path(__file__).resolve().parent
TOOLCHAINS = ("debian", "bootlin")
# What Buildroot reads of the external tree besides the sources of the
# project's two packages (those are rebuilt each time, see above).
EXTERNAL_FILES = ("external.desc", "external.mk", "Config.in", "configs", "package",
                  "board")
LOCAL_PACKAGES = ("uaccess-init", "uaccess-workloads")
JOB_DIR = "uaccess-job"  # in the output directory; the post-build script's argument


def check_toolchain(route: str) -> str:
    return inputs.name_in(route, TOOLCHAINS, "Buildroot toolchain")


def tree() -> tuple:
    """(path, identity) of the Buildroot tree to build with (release.py
    says where it comes from: BUILDROOT_HOME, the cache, or got now)."""
    return release.tree()


def _external_digest() -> str:
    files = []
    for name in EXTERNAL_FILES:
        p = EXTERNAL / name
        files += [p] if p.is_file() else sorted(q for q in p.rglob("*") if q.is_file())
    return cache.content_key({str(p.relative_to(EXTERNAL)): cache.file_sha256(p)
                              for p in files})


def plan(arch: str, job, route: str = "debian", handoff: bool = False,
         progress=None, variant: str = None) -> tuple:
    """(image key, its inputs, the key of the Buildroot output directory).
    With `variant`, the same build also makes that kernel variant: every
    variant of an arch shares one output directory (and its host tools),
    the kernel being rebuilt when the variant changes."""
    arches.check(arch)
    if job is not None:
        inputs.needs(job.needs_ext4(), f'{job.origin}: run.fs "ext4"',
                     "the assembler's image (it carries /ext4.img); the Buildroot builder "
                     "does not: leave --builder buildroot out")
        inputs.needs(job.needs_make_tree(), f"{job.origin}: make-build",
                     "the assembler's image (it carries GNU make built from Debian's source "
                     "and the tree it builds); the Buildroot builder does not: leave "
                     "--builder buildroot out")
    check_toolchain(route)
    for tool in ("make", "rsync", "readelf", "cpio", "file", "bc", "unzip"):
        tools.require(tool)
    _, br = tree()
    base = {
        "builder": "buildroot", "version": BUILDER_VERSION, "arch": arch,
        "toolchain_route": route, "buildroot": br, "external": _external_digest(),
    }
    if variant:
        base["with_kernel"] = True
    if route == "debian":
        base["toolchain"] = toolchain.identity(arch)
        base["host_sources"] = host_sources.ensure(progress, with_kernel=bool(variant))
        base["host_sources_recipe"] = host_sources.RECIPE_VERSION
        base["fakeroot"] = host_sources.fakeroot_version()
    work_key = cache.content_key(base)
    keyed = dict(base, sources=assemble.sources_digest(),
                 job_conf=None if handoff else job.job_conf())
    if variant:
        config = kernel_fragment.resolved_config(arch, variant)
        keyed["kernel"] = kernel_fragment.inputs(arch, variant, config)
    if job.needs_kernel_tree():
        keyed["kernel_tree_paths"] = linux_source.pinned().sha256
    return cache.content_key(keyed), keyed, work_key


def build_image(arch: str, job, route: str = "debian",
                handoff: bool = False) -> "assemble.ImageArtifact":
    return build(arch, job, route, handoff)[0]


def build(arch: str, job, route: str = "debian", handoff: bool = False,
          variant: str = None) -> tuple:
    """(image, kernel or None): one Buildroot build, with the kernel
    variant too when one is named."""
    progress = Progress(f"buildroot {arch}")
    key, inputs, work_key = plan(arch, job, route, handoff, progress, variant)
    final = assemble.image_dir(key)
    kernel = _kernel_artifact(arch, variant, work_key, inputs)
    image = assemble.ImageArtifact(key, final, arch)
    if final.is_dir() and (kernel is None or kernel.path.is_dir()):
        return image, kernel
    br_tree, _ = tree()
    tag = "-kernel" if variant else ""
    work = cache.area("buildroot") / "work" / f"{arch}-{route}{tag}-{work_key}"
    work.mkdir(parents=True, exist_ok=True)
    with cache.locked(work.parent / f"{work.name}.lock"):
        _job_files(job, handoff, work / JOB_DIR)
        wanted = _configure(arch, route, br_tree, work, variant)
        for pkg in LOCAL_PACKAGES:
            _make(br_tree, work, [f"{pkg}-dirclean"], work / "dirclean.log")
        # Buildroot does not notice a new patch series or config: the
        # kernel of another variant is rebuilt from a clean tree.
        stamp = work / "uaccess-kernel.json"
        if variant and (not stamp.exists() or json.loads(stamp.read_text()) != inputs["kernel"]):
            _make(br_tree, work, ["linux-dirclean"], work / "dirclean.log")
        start = time.monotonic()
        _build(arch, br_tree, work, key, progress)
        seconds = round(time.monotonic() - start, 1)
        if variant:
            cache.write_json_atomic(stamp, inputs["kernel"])
        if kernel is not None and not kernel.path.is_dir():
            _publish_kernel(kernel, inputs, work, seconds)
        if final.is_dir():
            return image, kernel
        with cache.staging_dir(final) as out:
            for name in ("rootfs.cpio", "rootfs.ext2"):
                shutil.copyfile(work / "images" / name, out / name)
            shutil.copyfile(work / "build.log", out / "buildroot.log")
            files = {path: [oct(e.mode), e.content] for path, e in
                     sorted(cpio.read_tree(out / "rootfs.cpio").items())}
            cache.write_json_atomic(out / "manifest.json", dict(
                inputs, key=key, job=None if handoff else job.as_record(),
                compiler=_compiler(inputs),
                defconfig=kconfig.render(wanted), build_seconds=seconds,
                output_dir=str(work), files=files))
    return image, kernel


def _kernel_artifact(arch: str, variant, work_key: str, inputs: dict):
    if not variant:
        return None
    key = cache.content_key({"kernel_from": "buildroot", "work": work_key,
                             "kernel": inputs["kernel"]})
    return kbuild.KernelArtifact(key, kbuild.kernel_dir(key), arch, variant)


def _publish_kernel(kernel, inputs: dict, work: Path, seconds: float) -> None:
    """The kernel in kernels/build.py's layout and manifest keys, so the
    run stage records it like any other."""
    with cache.staging_dir(kernel.path) as out:
        kernel_fragment.collect(kernel.arch, work, out)
        release = work / "build" / kernel_fragment.LINUX_BUILD_DIR / "include" / "config" / \
            "kernel.release"
        cache.write_json_atomic(out / "manifest.json", {
            "builder": "buildroot", "key": kernel.key, "arch": kernel.arch,
            "source": inputs["kernel"]["source"], "variant": inputs["kernel"]["variant"],
            "resolved_config_sha256": inputs["kernel"]["config_sha256"],
            "config": kconfig.render(kernel_config.requested(kernel.arch)),
            "toolchain": _compiler(inputs),
            "buildroot": inputs["buildroot"], "layers": [],
            "build_seconds": seconds, "output_dir": str(work),
            "kernel_release": release.read_text().strip() if release.is_file() else ""})


def _job_files(job, handoff: bool, jobdir: Path) -> None:
    """What the post-build script copies over the target: the overlay's
    job file, then the job's own files, as the assembler lays them out."""
    shutil.rmtree(jobdir, ignore_errors=True)
    overlay_conf = Path("etc") / "uaccess" / "job.conf"
    (jobdir / overlay_conf).parent.mkdir(parents=True)
    shutil.copyfile(assemble.OVERLAY / overlay_conf, jobdir / overlay_conf)
    assemble.install_job_files(job, handoff, jobdir)


def _compiler(inputs: dict) -> str:
    """The compiler's name for the image's and the kernel's manifests."""
    if "toolchain" in inputs:
        return inputs["toolchain"]["gcc"]
    return "Bootlin's (downloaded by Buildroot)"


def _fragment(arch: str, route: str, work: Path, variant: str = None) -> str:
    text = (EXTERNAL / "configs" / arches.get(arch).buildroot_defconfig).read_text()
    extra = [f'BR2_DL_DIR="{cache.area("buildroot") / "dl"}"',
             f'BR2_ROOTFS_POST_SCRIPT_ARGS="{work / JOB_DIR}"']
    if route == "debian":
        text = "\n".join(line for line in text.splitlines()
                         if not line.startswith("BR2_TOOLCHAIN_EXTERNAL")) + "\n"
        extra += toolchain.defconfig_lines(arch, toolchain.ensure(arch))
        override = work / "uaccess-overrides.mk"
        host_sources.override_file(override, with_kernel=bool(variant))
        extra.append(f'BR2_PACKAGE_OVERRIDE_FILE="{override}"')
    if variant:
        extra += kernel_fragment.lines(arch, variant,
                                       kernel_fragment.resolved_config(arch, variant))
    return text + "# run.py build-image --builder buildroot\n" + "\n".join(extra) + "\n"


def _configure(arch: str, route: str, br_tree: Path, work: Path, variant: str = None) -> dict:
    """make defconfig, then name every request Buildroot did not keep."""
    text = _fragment(arch, route, work, variant)
    frag = work / "uaccess.defconfig"
    frag.write_text(text)
    _make(br_tree, work, [f"BR2_EXTERNAL={EXTERNAL}", f"BR2_DEFCONFIG={frag}", "defconfig"],
          work / "defconfig.log")
    wanted = kconfig.parse(text, str(frag), prefix="BR2_")
    lost = kconfig.verify(wanted, (work / ".config").read_text(), prefix="BR2_")
    if lost:
        raise UserError(f"Buildroot dropped {len(lost)} requested option(s) of "
                        f"{arches.get(arch).buildroot_defconfig}: {'; '.join(lost)}")
    return wanted


def _env() -> dict:
    env = dict(os.environ)
    # Buildroot refuses a PATH with the current directory or blanks in it.
    env["PATH"] = ":".join(p for p in env.get("PATH", "").split(":")
                           if p.startswith("/") and not re.search(r"\s", p))
    for var in ("PERL_MM_OPT", "CDPATH", "LD_LIBRARY_PATH"):
        env.pop(var, None)
    if os.geteuid() == 0:
        # host-tar's configure refuses root unless told it is meant.
        env["FORCE_UNSAFE_CONFIGURE"] = "1"
    return env


def _failure(log: Path) -> str:
    """The line that says why: the last one before make's own epilogue."""
    lines = [line.strip() for line in log.read_text(errors="replace").splitlines()]
    for line in reversed(lines):
        if line and not line.startswith(("make:", "make[")):
            return line
    return "no output"


def _make(br_tree: Path, work: Path, args: list, log: Path) -> None:
    with open(log, "w") as f:
        run = subprocess.run(["make", "-C", str(br_tree), f"O={work}", *args],
                             stdout=f, stderr=subprocess.STDOUT, env=_env())
    if run.returncode != 0:
        raise UserError(f"Buildroot 'make {args[-1]}' failed: {_failure(log)} (log: {log})")


_STEP = re.compile(r">>> (\S+) (\S*)\s*(.*?)(\x1b\[27m)?$")


def _build(arch: str, br_tree: Path, work: Path, key: str, progress: Progress) -> None:
    log = work / "build.log"
    steps = 0
    with open(log, "w") as f:
        proc = subprocess.Popen(["make", "-C", str(br_tree), f"O={work}"], env=_env(),
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                text=True, errors="replace")
        for line in proc.stdout:
            f.write(line)
            m = _STEP.search(line)
            if m:
                steps += 1
                progress.update(f"step {steps}: {m.group(1)} {m.group(3)}".rstrip())
        rc = proc.wait()
    if rc != 0:
        kept = cache.area("buildroot") / "logs" / f"{arch}-{key}.log"
        kept.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(log, kept)
        raise UserError(f"Buildroot build for {arch} failed: {_failure(log)} (log: {kept})")
    progress.done(f"{steps} steps")
