"""Stage 3: running a kernel + image on a simulator.

point.py    one run point (configs.point.Point), built and checked once from
            a sweep file (sweep.py) or the command line (run.py).
runs.py     the backend interface: QemuBackend and Gem5Backend each give a
            point's key and run it to a record (runs.backend_for(point)).
executor.py a sweep's plan and its local worker pool; slurm/ the same on Slurm.
qemu/       QEMU-TCG backend, its CPU profiles and the counting plugin.
gem5/       gem5 backend: presets, the scripts gem5 runs, our patch series.
console.py  the @@UACCESS console protocol both backends read.
"""
