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
                   command line (commands/run.py)
  backends.py      the backend interface (Backend: its sweep settings and
                   points, require, key, run, revalidate, result, text) and
                   the one place a backend is chosen (backend_for, kind); no
                   other shared module imports a backend
  runs.py          what the backends share: a run's directory, its record
  local_executor.py  a sweep's plan and its local worker pool;
  slurm/           the same points as Slurm job arrays (slurm_executor.py) and
                   a one-machine cluster (single-node.sh)
  qemu/            the QEMU backend (backend.py: QemuBackend), its points
                   (point.py, sweep_axes.py), its process (process.py) and CPU
                   profiles (profile.py), the TCG plugin's build and its C
                   source (plugin/, one file per job)
  gem5/            the gem5 backend (backend.py: Gem5Backend), its points
                   (point.py, sweep_axes.py) and the rest of
                   the gem5 side: host code (spec, locate, setup, process: the
                   gem5 process, stats, commit_profile, sampling: SimPoint's
                   steps on gem5) and the scripts gem5 itself runs (fs_roi.py,
                   fs_simpoint.py, three_level_caches.py)
  simpoint_method.py  SimPoint 3.2's method (numpy, scikit-learn)
  calibrate.py     fitting the series' latencies to the seeds (its targets:
                   lab/calibration_targets.py, which the scorecard reads too)
  console.py       the @@UACCESS console protocol both backends read

Some files' contents are in cache keys: here the gem5 scripts,
gem5/sampling.py, simpoint_method.py, gem5/commit_profile.py, the plugin's
sources (qemu/plugin/) and the series (gem5-patches/, through the gem5 build);
beside this stage, workloads/ and buildroot/'s guest files. An edit to one,
an import line included, makes every result it covers a new one, so those
files, their names and the modules they import stay as they are
(tests/test_keys_stable.py pins them).
"""
