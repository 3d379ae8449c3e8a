"""Stage 3: running a kernel + image on a simulator.

Data (read by the code, never imported):
  sweeps/          sweep files: fixed settings and axes (format: sweep.py)
  gem5-presets/    CPU (cpu/) and cache (cache/) presets, each number sourced
  qemu-profiles/   QEMU CPU profiles, one per arch and uaccess mechanism
  gem5-patches/    our gem5 patch series (git format-patch), applied by gem5 setup

Code:
  point.py         one run point (Point: its backend's settings, QemuSettings
                   | Gem5Settings, each with its constructor and rules in its
                   package's point.py), from a sweep file (sweep.py) or the
                   command line (commands/run.py); a point's twin on another
                   backend (Twin: a gem5 point's QEMU twin), which that
                   backend makes
  smap_models.py   what stands at each stac/clac site of an x86 gem5 run, and
                   the kernel command line that selects it: both backends'
                   (a gem5 point's QEMU twin boots the same kernel)
  backends.py      the backend interface (Backend: its sweep settings and
                   points, require, key, run, revalidate, result, text) and
                   the one place a backend is chosen (backend_for, kind) and
                   a Twin is made (twin_point, made); no other shared module
                   imports a backend, and no backend another
  runs.py          what the backends share: a run's directory, its record
  local_executor.py  a sweep's plan and its local worker pool;
  slurm/           the same points as Slurm job arrays (slurm_executor.py) and
                   a one-machine cluster (single-node.sh)
  qemu/            the QEMU backend (backend.py: QemuBackend), its points
                   (point.py, sweep_axes.py), its process (process.py) and CPU
                   profiles (profile.py), the TCG plugin's build and its C
                   source (plugin/, one file per job)
  gem5/            the gem5 backend (backend.py: Gem5Backend), its points
                   (point.py, sweep_axes.py), its run flags (run_flags.py) and
                   the rest of the gem5 side: host code (spec, cache_presets,
                   locate, setup, process: the gem5 process,
                   stats, commit_profile, sampling: SimPoint's steps on gem5)
                   and the scripts gem5 itself runs (fs_roi.py,
                   fs_simpoint.py, three_level_caches.py, simobject_set.py:
                   how the spec's "set" lands, tested without gem5); the knob table and
                   the CPU presets' reader are below this stage, in lab/
                   (gem5_knobs.py, cpu_presets.py), since analysis reads them
  simpoint_method.py  SimPoint 3.2's method (numpy, scikit-learn)
  calibrate.py     fitting the series' latencies to the seeds (its targets:
                   lab/calibration_targets.py, which the scorecard reads too)
  console.py       the @@UACCESS console protocol both backends read

A key covers a method by its declared version, never by its source text
(no key reads a .py file: tests/test_keys_stable.py): the gem5 scripts
(gem5/spec.py FS_ROI_VERSION, gem5/cache_presets.py THREE_LEVEL_VERSION),
gem5/sampling.py FLOW_VERSION, simpoint_method.py METHOD_VERSION,
gem5/commit_profile.py and gem5/uop_profile.py VERSION, each bumped when
a result would change, and each guarded by a test that fails when what it
covers changes while it does not (tests/test_version_guards.py lists
them): a golden output where one is computed without gem5, else a
fingerprint of the code's syntax tree (the scripts gem5 runs, and the
SimPoint flow's steps). What is keyed by its content: the plugin's C
sources (qemu/plugin/), the series (gem5-patches/, through the gem5
build), the presets and profiles read, and beside this stage workloads/
and buildroot/'s guest files.
"""
