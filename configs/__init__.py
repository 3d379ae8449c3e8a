"""Stage 3: running a kernel + image on a simulator.

qemu/   QEMU-TCG backend and its CPU profiles.
console.py  the @@UACCESS console protocol both backends read.
Public entry: configs.runs.run_point(...) -> RunRecord.
"""
