"""The gem5 backend. Host side: locate.py (finding gem5), spec.py (the run
spec a gem5 process reads), backend.py (running it), presets/. gem5 side:
fs_roi.py, the config script gem5.opt runs; it imports only gem5's
standard library and the JSON spec, never this package."""
