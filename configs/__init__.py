"""Stage 3: running a kernel + image on a simulator.

point.py    one run point (configs.point.Point), built and checked once from
            a sweep file (sweep.py) or the command line (run.py).
runs.py     the backend interface: QemuBackend and Gem5Backend each give a
            point's key and run it to a record (runs.backend_for(point)).
local_executor.py  a sweep's plan and its local worker pool;
            slurm/slurm_executor.py the same points as Slurm jobs.
simpoint_method.py  SimPoint 3.2's method (numpy, scikit-learn); gem5/sampling.py
            runs a ROI on the points it chooses.
qemu/       QEMU-TCG backend, its CPU profiles and the counting plugin.
gem5/       gem5 backend: presets, the scripts gem5 runs, our patch series.
console.py  the @@UACCESS console protocol both backends read.
"""
