"""Build a kernel for (arch, variant), through the content-addressed cache.

Cache layout, under lab.cache.cache_root():
  src/linux-<ver>-<sha>/     pristine extracted source (read only)
  work/<arch>/src/           hard-linked copy of it, with one variant applied
  work/<arch>/obj/           the O= object tree shared by every variant
  work/<arch>/state.json     which variant's files are patched right now
  work/<arch>-<config>/      the same, for kernels whose layers add config
                             options (kernels/layers/*/config): one tree per
                             distinct config, so switching between them
                             never recompiles a whole tree
  kernels/<key>/             finished artifacts: vmlinux, bzImage|Image,
                             System.map, config, build.log, manifest.json

Why a shared tree: variants differ in one or two source files, so switching
variant restores those files from pristine, applies the new series, and
make recompiles only what changed (an incremental build, not a cold one).
A lock per arch serialises builds that share the tree.

Why hard links: copying 1.3 GB per arch is slow; links are instant. Before
a file is patched its link is broken, so pristine is never modified; the
object tree is separate (O=), so kbuild never writes into the source.
"""

import hashlib
import json
import os
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from kernels import config, source, variants
from lab import arches, cache, kconfig, tools
from lab.errors import UserError
from lab.progress import Progress

# Bump when the build procedure changes what it produces.
BUILDER_VERSION = 1

# Fixed build identity, so two builds of the same inputs are the same
# kernel (uname -v and the banner otherwise carry a date and a counter).
REPRODUCIBLE_ENV = {
    "KBUILD_BUILD_TIMESTAMP": "Thu Jan  1 00:00:00 UTC 2026",
    "KBUILD_BUILD_USER": "uaccess-lab",
    "KBUILD_BUILD_HOST": "uaccess-lab",
    "KBUILD_BUILD_VERSION": "1",
    "LC_ALL": "C",
}


@dataclass(frozen=True)
class KernelArtifact:
    key: str
    path: Path
    arch: str
    variant: str
    layers: tuple = ()

    @property
    def vmlinux(self) -> Path:
        return self.path / "vmlinux"

    @property
    def image(self) -> Path:
        return self.path / arches.get(self.arch).image_name

    @property
    def system_map(self) -> Path:
        return self.path / "System.map"

    def manifest(self) -> dict:
        return json.loads((self.path / "manifest.json").read_text())


def binutils(arch: str) -> str:
    """The assembler and linker the kernel build runs: as much a part of
    the binary as the compiler (alternatives, relocations, padding)."""
    return arches.get(arch).cross_compile + "ld"


def required_tools(arch: str) -> list:
    return ["make", arches.get(arch).cc, binutils(arch), "flex", "bison", "bc", "patch"]


def _stack(arch: str, variant_name: str, layers: tuple) -> tuple:
    """The variant and its layers, checked for the arch."""
    variant = variants.load(variant_name)
    if not variant.applies_to(arch):
        raise UserError(f"variant '{variant_name}' does not apply to {arch} "
                        f"(only {', '.join(variant.arches)})")
    stack = [variant]
    for name in layers:
        layer = variants.load_layer(name)
        if not layer.applies_to(arch):
            raise UserError(f"kernel layer '{name}' does not apply to {arch}")
        stack.append(layer)
    return tuple(stack)


def _requested(arch: str, stack: tuple) -> dict:
    """The config a stack builds with: the arch's, then its layers' fragments."""
    return config.requested(arch, stack[1:])


def _work_dir(arch: str, wanted: dict) -> Path:
    """The shared tree for this config: the arch's own for its plain config
    (where every kernel without a config layer builds), else one per config."""
    if wanted == config.requested(arch):
        return cache.area("work") / arch
    digest = hashlib.sha256(kconfig.render(wanted).encode()).hexdigest()[:12]
    return cache.area("work") / f"{arch}-{digest}"


def plan(arch: str, variant_name: str, layers: tuple = ()) -> tuple:
    """(key, inputs) for a build, without building: what the cache keys on."""
    arches.check(arch)
    stack = _stack(arch, variant_name, tuple(layers))
    variant = stack[0]
    for tool in required_tools(arch):
        tools.require(tool)
    src = source.pinned()
    inputs = {
        "builder": BUILDER_VERSION,
        "source": src.as_record(),
        "arch": arch,
        "config": kconfig.render(_requested(arch, stack)),
        "variant": variant.as_record(),
        "toolchain": tools.first_line([arches.get(arch).cc, "--version"]),
        "binutils": tools.first_line([binutils(arch), "--version"]),
    }
    if layers:  # absent for plain variants, so their keys never change
        inputs["layers"] = [layer.as_record() for layer in stack[1:]]
    return cache.content_key(inputs), inputs


def kernel_dir(key: str) -> Path:
    """Where the kernel of `key` lives in the cache (this stage owns it)."""
    return cache.area("kernels") / key


def artifact(arch: str, variant_name: str, layers: tuple = ()) -> KernelArtifact:
    """The artifact a build would produce (it may not be built yet)."""
    key, _ = plan(arch, variant_name, layers)
    return KernelArtifact(key, kernel_dir(key), arch, variant_name, tuple(layers))


def cached(arch: str, variant_name: str, layers: tuple = ()):
    """The finished artifact if it is in the cache, else None."""
    art = artifact(arch, variant_name, layers)
    return art if art.path.is_dir() else None


def build_kernel(arch: str, variant_name: str, jobs: int = 0,
                 layers: tuple = ()) -> KernelArtifact:
    layers = tuple(layers)
    key, inputs = plan(arch, variant_name, layers)
    final = kernel_dir(key)
    artifact = KernelArtifact(key, final, arch, variant_name, layers)
    if final.is_dir():
        return artifact
    stack = _stack(arch, variant_name, layers)
    wanted = _requested(arch, stack)
    work = _work_dir(arch, wanted)
    work.mkdir(parents=True, exist_ok=True)
    with cache.locked(work / "lock"):
        if final.is_dir():  # built by a concurrent run.py while we waited
            return artifact
        src = source.pinned()
        pristine = source.extracted(src)
        tree = _prepare_tree(work, pristine)
        _switch_patches(work, tree, pristine, stack)
        obj = work / "obj"
        obj.mkdir(exist_ok=True)
        _configure(arch, tree, obj, wanted)
        with cache.staging_dir(final) as out:
            started = time.time()
            _make(arch, variant_name, tree, obj, out / "build.log", jobs)
            _collect(arch, obj, out)
            lost = kconfig.verify(wanted, (out / "config").read_text())
            if lost:
                raise UserError(f"kernel config lost requested options: {'; '.join(lost)} "
                                f"(see {config.CONFIG_DIR})")
            manifest = dict(inputs, key=key, built_at=time.strftime(
                "%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                build_seconds=round(time.time() - started, 1),
                kernel_release=_kernel_release(obj))
            cache.write_json_atomic(out / "manifest.json", manifest)
    return artifact


def _prepare_tree(work: Path, pristine: Path) -> Path:
    """The arch's working source tree, hard-linked from pristine once."""
    tree = work / "src"
    stamp = work / "src.from"
    if tree.is_dir() and stamp.is_file() and stamp.read_text() == str(pristine):
        return tree
    # A new pristine (source upgrade) or no tree yet: start over.
    shutil.rmtree(tree, ignore_errors=True)
    shutil.rmtree(work / "obj", ignore_errors=True)
    (work / "state.json").unlink(missing_ok=True)
    with cache.staging_dir(tree) as tmp:
        run = subprocess.run(["cp", "-al", f"{pristine}/.", str(tmp)],
                             capture_output=True, text=True)
        if run.returncode != 0:
            raise UserError(f"could not link the kernel tree into {tmp.parent}: "
                            f"{run.stderr.strip()[:200]}")
    cache.write_atomic(stamp, str(pristine))
    return tree


def _switch_patches(work: Path, tree: Path, pristine: Path, stack: tuple) -> None:
    """Restore the files the last build patched, then apply this stack
    (the variant's patches, then each layer's).

    state.json is written before patching begins, so a build killed
    half-way through patching is still undone correctly next time.
    """
    state_file = work / "state.json"
    state = json.loads(state_file.read_text()) if state_file.is_file() else {}
    patches = [p for part in stack for p in part.patches]
    label = "+".join(part.name for part in stack)
    wanted = [p.sha256 for p in patches]
    if state.get("patches") == wanted and state.get("complete"):
        return
    touched = sorted({f for p in patches for f in variants.touched_files(p.path.read_text())})
    # Mark the tree in flux before touching it, listing the old and the new
    # files: a build killed anywhere below is undone in full next time,
    # never mistaken for a finished switch.
    cache.write_json_atomic(state_file, {"variant": label, "patches": wanted,
                                         "touched": sorted(set(touched) | set(state.get("touched", []))),
                                         "complete": False})
    for rel in state.get("touched", []):
        _restore(tree, pristine, rel)
    for rel in touched:
        _break_link(tree / rel)
    for patch in patches:
        said = variants.apply_patch(patch.path, tree)
        if said:
            raise UserError(f"patch {patch.path} does not apply to "
                            f"{source.PACKAGE}: {tools.last_lines(said)}")
    cache.write_json_atomic(state_file, {"variant": label, "patches": wanted,
                                         "touched": touched, "complete": True})


def _restore(tree: Path, pristine: Path, rel: str) -> None:
    """Put back the pristine file with a fresh mtime, so make rebuilds it."""
    dst = tree / rel
    dst.unlink(missing_ok=True)
    if (pristine / rel).is_file():
        shutil.copyfile(pristine / rel, dst)
        shutil.copymode(pristine / rel, dst)


def _break_link(path: Path) -> None:
    """Give a hard-linked file its own inode before it is edited."""
    if not path.is_file():
        return
    tmp = path.with_name(path.name + ".uaccess-tmp")
    shutil.copyfile(path, tmp)
    shutil.copymode(path, tmp)
    os.replace(tmp, path)


def _kmake(arch: str, tree: Path, obj: Path) -> list:
    info = arches.get(arch)
    cmd = ["make", "-C", str(tree), f"O={obj}", f"ARCH={info.kernel_arch}"]
    if info.cross_compile:
        cmd.append(f"CROSS_COMPILE={info.cross_compile}")
    return cmd


# Variables make and kbuild read that would change a build behind the cache
# key's back.
_UNTRUSTED_ENV = ("KCFLAGS", "KCPPFLAGS", "KAFLAGS", "CFLAGS", "LDFLAGS", "LLVM", "LLVM_IAS",
                  "CC", "CROSS_COMPILE", "ARCH", "KBUILD_EXTRA_SYMBOLS", "KCONFIG_CONFIG",
                  "KBUILD_OUTPUT", "INSTALL_MOD_PATH", "MAKEFLAGS")


# Debian's ccache puts compiler-named links here (gcc, aarch64-linux-gnu-gcc,
# ...). First on PATH, every compile kbuild runs goes through the cache:
# the variants share one object tree per arch, and a build that switches
# back from a variant that edits a header many files include (arm64's
# uaccess.h: about 500 objects) then finds those objects in the cache. The
# compiler's output is the same, so the kernel is too.
CCACHE_LINKS = Path("/usr/lib/ccache")


def _env() -> dict:
    env = {k: v for k, v in os.environ.items()
           if k not in _UNTRUSTED_ENV and not k.startswith("KBUILD_")}
    if (CCACHE_LINKS / "gcc").exists():
        env["PATH"] = f"{CCACHE_LINKS}{os.pathsep}{env.get('PATH', '')}"
    return dict(env, **REPRODUCIBLE_ENV)


def _configure(arch: str, tree: Path, obj: Path, wanted: dict) -> None:
    """allnoconfig + our fragments. The new .config replaces the old only
    if it differs, so an unchanged config costs no recompilation."""
    fragment = obj / "uaccess.fragment"
    cache.write_atomic(fragment, kconfig.render(wanted))
    candidate = obj / ".config.candidate"
    env = dict(_env(), KCONFIG_ALLCONFIG=str(fragment), KCONFIG_CONFIG=str(candidate))
    run = subprocess.run(_kmake(arch, tree, obj) + ["allnoconfig"], env=env,
                         capture_output=True, text=True)
    if run.returncode != 0:
        raise UserError(f"kernel configuration failed for {arch}: "
                        f"{tools.last_lines(run.stderr or run.stdout)}")
    current = obj / ".config"
    if current.is_file() and current.read_bytes() == candidate.read_bytes():
        candidate.unlink()
    else:
        os.replace(candidate, current)


def _make(arch: str, variant: str, tree: Path, obj: Path, log: Path, jobs: int) -> None:
    jobs = jobs or os.cpu_count() or 1
    targets = ["vmlinux", arches.get(arch).image_name]
    cmd = _kmake(arch, tree, obj) + [f"-j{jobs}"] + targets
    progress = Progress(f"kernel {arch}/{variant}")
    compiled = 0
    with open(log, "w") as logf:
        logf.write("$ " + " ".join(cmd) + "\n")
        proc = subprocess.Popen(cmd, env=_env(), stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True)
        for line in proc.stdout:
            logf.write(line)
            if line.startswith("  CC "):
                compiled += 1
                progress.update(f"{compiled} files compiled")
        rc = proc.wait()
    if rc != 0:
        # The staging dir (and the log in it) goes away: keep the log.
        kept = cache.failed_path("kernels",
                                 f"{arch}-{variant}-{time.strftime('%Y%m%dT%H%M%S')}.log")
        shutil.copyfile(log, kept)
        raise UserError(f"kernel build failed for {arch}/{variant}: {tools.last_lines(log.read_text(errors='replace'), 3)} "
                        f"(log: {kept})")
    progress.done(f"{compiled} files compiled")


def noop_make(arch: str, jobs: int = 2) -> tuple:
    """(command, environment) that runs make again in the arch's shared
    tree, where its plain-config kernels are built: on a built tree, a
    no-op `make -j` of a fully built kernel, the load the 2015 batching
    thread profiled (tests/benchmark.py make-split times it). None when
    no kernel of the arch has been built yet."""
    work = _work_dir(arch, config.requested(arch))
    tree, obj = work / "src", work / "obj"
    if not (obj / "vmlinux").is_file():
        return None
    targets = ["vmlinux", arches.get(arch).image_name]
    return _kmake(arch, tree, obj) + ["-s", f"-j{jobs}"] + targets, _env()


def _collect(arch: str, obj: Path, out: Path) -> None:
    # vmlinux stays unstripped: the symbol table is what gem5's ArmBoard
    # looks in (unflatten_device_tree) before it loads the DTB.
    shutil.copyfile(obj / "vmlinux", out / "vmlinux")
    info = arches.get(arch)
    shutil.copyfile(obj / info.kernel_image, out / info.image_name)
    shutil.copyfile(obj / "System.map", out / "System.map")
    shutil.copyfile(obj / ".config", out / "config")


def _kernel_release(obj: Path) -> str:
    release = obj / "include" / "config" / "kernel.release"
    return release.read_text().strip() if release.is_file() else ""
