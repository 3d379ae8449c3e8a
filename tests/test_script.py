import pytest

from workloads import script
from lab.errors import UserError
from buildroot import assemble


def test_every_default_script_loads():
    for name in script.workload_names():
        job = script.load(script.default_script(name))
        assert job.workload == name
        assert job.job_conf().splitlines()[1] == f"workload={name}"


def test_storm_script_flattens_to_job_keys():
    job = script.from_dict({"workload": "lstat-storm",
                            "tree": {"name_len": [3, 9], "symlink_ratio": 0.25},
                            "run": {"order": "shuffle", "seed": 7},
                            "mix": {"lstat": 0, "statx": 3}})
    params = dict(job.params)
    assert params["name_len_min"] == "3" and params["name_len_max"] == "9"
    assert params["symlink_ratio"] == "0.25"
    assert params["order"] == "shuffle" and params["seed"] == "7"
    assert params["mix_statx"] == "3" and params["mix_lstat"] == "0"
    assert params["depth"] == "2"  # defaults filled in


@pytest.mark.parametrize("data, message", [
    ({"workload": "lstat-storms"}, "workload must be one of"),
    ({"workload": ["lstat-storm"]}, "workload must be one of"),
    ({"workload": "lstat-storm", "tree": {"depht": 2}}, r"unknown key 'tree.depht'"),
    ({"workload": "lstat-storm", "tre": {}}, r"unknown section \[tre\]"),
    ({"workload": "lstat-storm", "tree": {"depth": "2"}}, r"tree.depth must be an integer"),
    ({"workload": "lstat-storm", "tree": {"depth": 99}}, r"tree.depth must be between"),
    ({"workload": "lstat-storm", "tree": {"name_len": [9, 3]}}, r"tree.name_len must be"),
    ({"workload": "lstat-storm", "run": {"order": "random"}}, r"run.order must be one of"),
    ({"workload": "lstat-storm", "mix": {"lstat": 0}}, r"at least one op"),
    ({"workload": "fstat-loop", "run": {"iterations": True}}, r"run.iterations must be"),
    ({"workload": "usercopy-loop", "run": {"size": 0}}, r"run.size must be between 1 and"),
    ({"workload": "usercopy-loop", "run": {"size": 2 << 20}}, r"run.size must be between"),
    ({"workload": "usercopy-loop", "run": {"direction": "both"}}, r"run.direction must be one of"),
])
def test_bad_scripts_name_the_key(data, message):
    with pytest.raises(UserError, match=message):
        script.from_dict(data, "s.toml")


def test_malformed_toml(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("workload = lstat-storm\n")
    with pytest.raises(UserError, match="not valid TOML"):
        script.load(bad)


def test_buildroot_overlay_job_matches_default_script():
    """The Buildroot overlay ships the default job; it must not drift."""
    overlay = assemble.OVERLAY / "etc" / "uaccess" / "job.conf"
    job = script.load(script.default_script("lstat-storm")).job_conf()

    def settings(text):  # the job itself; a comment line is not part of it
        return [line for line in text.splitlines() if not line.startswith("#")]
    assert settings(overlay.read_text()) == settings(job)


def test_readlink_fs_default_stays_out_of_the_job():
    # fs came after readlink-loop's scripts had run: its default is left
    # out of the job file, so their images and runs keep their keys.
    plain = script.load(script.default_script("readlink-loop"))
    assert "fs=" not in plain.job_conf() and plain.kernel_layers == ()
    tmpfs = script.from_dict({"workload": "readlink-loop", "run": {"fs": "tmpfs"}})
    assert tmpfs.job_conf() == script.from_dict({"workload": "readlink-loop"}).job_conf()
    ext4 = script.load(script.SCRIPT_DIR / "readlink-ext4.toml")
    assert "fs=ext4" in ext4.job_conf().splitlines()
    assert ext4.kernel_layers == ("ext4",) and ext4.needs_ext4()


def test_the_ext4_image_and_the_workload_agree_on_the_link():
    import re
    src = (script.SCRIPT_DIR.parent / "src" / "readlink-loop.c").read_text()
    defines = dict(re.findall(r'#define (EXT4_\w+) "([^"]*)"', src))
    fs = assemble.EXT4_FS
    assert defines["EXT4_IMAGE"] == "/" + fs["file"]
    assert defines["EXT4_LINK"] == "/" + fs["link"]
    assert defines["EXT4_TARGET"] == fs["target"]
    assert len(fs["target"]) == 30 < 60  # Debian 12's length; a fast symlink


def test_only_an_ext4_job_gets_an_ext4_image_key():
    plain = script.load(script.default_script("readlink-loop"))
    ext4 = script.load(script.SCRIPT_DIR / "readlink-ext4.toml")
    assert "ext4" not in assemble.plan("x86_64", plain)[1]
    assert assemble.plan("x86_64", ext4)[1]["ext4"]["target"] == assemble.EXT4_FS["target"]
    # The boot-once image serves every job: it carries no ext4 filesystem.
    assert "ext4" not in assemble.plan("x86_64", ext4, handoff=True)[1]


def test_the_ext4_filesystem_is_the_same_bytes_on_every_build(tmp_path):
    import hashlib
    import subprocess
    import time
    digests = []
    for n in (1, 2):
        out = tmp_path / f"ext4-{n}.img"
        assemble._make_ext4(tmp_path / f"staging-{n}", out)
        digests.append(hashlib.sha256(out.read_bytes()).hexdigest())
        time.sleep(1.1)  # a later second: ctime would differ without the fix-up
    assert digests[0] == digests[1]
    fsck = subprocess.run(["e2fsck", "-fn", str(out)], capture_output=True, text=True)
    assert fsck.returncode == 0, fsck.stdout
    link = subprocess.run(["debugfs", "-R", "stat /initrd.img", str(out)],
                          capture_output=True, text=True).stdout
    assert "Type: symlink" in link and "Size: 30" in link and "Blockcount: 0" in link


def test_statx_path_default_stays_out_of_the_job_and_null_brings_its_layer():
    # path came after statx-loop's scripts had run: "empty" ("") stays out
    # of the job, so their images and runs keep their keys. NULL is the
    # 2017 thread's call (issue 53): 6.1 fails it with EFAULT, so its
    # job's kernels carry the statx-null-path layer, and it is another
    # experiment than statx-loop's "".
    plain = script.load(script.default_script("statx-loop"))
    assert "path=" not in plain.job_conf() and plain.kernel_layers == ()
    empty = script.from_dict({"workload": "statx-loop", "run": {"path": "empty"}})
    assert empty.job_conf() == script.from_dict({"workload": "statx-loop"}).job_conf()
    for name in ("statx-null.toml", "statx-null-gem5.toml"):
        null = script.load(script.SCRIPT_DIR / name)
        assert "path=null" in null.job_conf().splitlines()
        assert null.kernel_layers == ("statx-null-path",)
        assert script.experiment_name(null.workload, dict(null.params)) == "statx-null"
    assert script.experiment_name("statx-loop", dict(plain.params)) == "statx-loop"


def test_statx_path_takes_empty_or_null_only():
    with pytest.raises(UserError, match=r"s.toml: run.path must be one of empty, null, got 'nul'"):
        script.from_dict({"workload": "statx-loop", "run": {"path": "nul"}}, "s.toml")


def test_fstat_call_is_in_every_job_and_glibc_is_another_experiment():
    # The fstat system call is the default (issue 62): the seeds' glibc
    # made fstat() that call. Unlike statx's path, the default is written
    # into the job: fstat-loop's jobs made glibc's fstat before the key
    # came, so a record without call= is one of those, and one with it
    # says which call it made. glibc's fstatat is one key away, and its own
    # experiment, with no kernel layer: 6.1 takes both calls as they are.
    plain = script.load(script.default_script("fstat-loop"))
    assert "call=syscall" in plain.job_conf().splitlines()
    assert plain.kernel_layers == ()
    assert script.experiment_name("fstat-loop", dict(plain.params)) == "fstat-loop"
    glibc = script.load(script.SCRIPT_DIR / "fstat-glibc.toml")
    assert "call=glibc" in glibc.job_conf().splitlines() and glibc.kernel_layers == ()
    assert script.experiment_name(glibc.workload, dict(glibc.params)) == "fstat-glibc"
    # The two scripts differ in the call alone.
    assert dict(plain.params) == dict(glibc.params, call="syscall")


def test_fstat_call_takes_syscall_or_glibc_only():
    with pytest.raises(UserError, match=r"^s.toml: run.call must be one of syscall, glibc, "
                                        r"got 'fstatat'$"):
        script.from_dict({"workload": "fstat-loop", "run": {"call": "fstatat"}}, "s.toml")
    # The key is fstat-loop's own: statx-loop has no call to choose.
    with pytest.raises(UserError, match=r"unknown key 'run.call'"):
        script.from_dict({"workload": "statx-loop", "run": {"call": "glibc"}}, "s.toml")


def test_fstat_loop_makes_the_fstat_system_call_by_default():
    # The source the image compiles: the default call is syscall(SYS_fstat)
    # (not glibc's fstat(), which glibc 2.33+ makes newfstatat with ""),
    # read with the same default the host's schema gives.
    import re
    src = (script.SCRIPT_DIR.parent / "src" / "fstat-loop.c").read_text()
    op = src.split("bench_op(int fd", 1)[1].split("\n}\n", 1)[0]
    assert "syscall(SYS_fstat, fd, &st)" in op and "fstat(fd, &st)" in op
    assert "newfstatat" not in op and "fstatat(" not in op
    default = re.search(r'job_str\("call", "(\w+)"\)', src).group(1)
    assert default == script.SCHEMAS["fstat-loop"]["run"]["call"][4] == "syscall"
