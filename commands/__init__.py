"""run.py's commands, one module per group: kernel (build-kernel), image
(build-image), inventory (list, doctor), run (run, crosscheck),
calibrate, sweep, reproduce, gem5 (setup), slurm (slurm-task, what a
Slurm job runs), simpoint and analysis (scorecard, export, compare,
report). Each has register(sub), which adds its subparsers with their
handlers (lab/cli.py); flags.py holds what several groups share.

This is the one layer that may import every stage (kernels/, buildroot/,
workloads/, configs/, analysis/): the glue between them, as run.py was.
No stage imports it, and analysis/ imports nothing of configs/
(tests/test_import_graph.py holds both)."""
