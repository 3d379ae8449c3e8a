"""The gem5 backend. Host side: backend.py (Gem5Backend: a point's key and
run, and what it owns of a sweep, a point, the run flags and the
inventory: sweep_axes.py, point.py, run_flags.py, inventory.py),
locate.py (finding gem5), cache_presets.py (reading the cache presets),
spec.py (the run spec a gem5 process reads), process.py (running one);
the smap models are configs/smap_models.py, the QEMU backend's too. What a preset, a sweep or a flag may set is one table,
lab/gem5_knobs.py, and the CPU presets are read by lab/cpu_presets.py:
both below this stage, since analysis reads them too. Its data, the
CPU and cache presets and our patch series, is in ../gem5-presets and
../gem5-patches. gem5 side:
fs_roi.py, the config script gem5 (gem5.opt, or gem5.fast where no trace
is asked for: locate.Gem5.runner) runs; it imports only gem5's
standard library and the JSON spec, never this package."""
