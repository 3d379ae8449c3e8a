"""The gem5 backend. Host side: backend.py (Gem5Backend: a point's key and
run), locate.py (finding gem5), knobs.py (what a preset, a sweep or a
flag may set, one table), cpu_presets.py and cache_presets.py (reading
the presets), smap_models.py, spec.py (the run spec a gem5 process
reads), process.py (running one); its data, the
CPU and cache presets and our patch series, is in ../gem5-presets and
../gem5-patches. gem5 side:
fs_roi.py, the config script gem5 (gem5.opt, or gem5.fast where no trace
is asked for: locate.Gem5.runner) runs; it imports only gem5's
standard library and the JSON spec, never this package."""
