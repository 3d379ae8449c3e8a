"""Workloads: C sources of the lstat storm and the microbenchmarks, the ROI
markers they emit, and the TOML scripts that drive them (script.py).
The image stage (buildroot/) compiles these sources into the root
filesystem; nothing here knows about kernels or simulators."""
