"""run.py's commands of the run stage, one module per group: inventory
(list, doctor), run (run, crosscheck), calibrate, sweep, reproduce, gem5
(setup), slurm (slurm-task, what a Slurm job runs) and simpoint. Each has
register(sub), which adds its subparsers with their handlers (lab/cli.py);
flags.py holds what several groups share. These modules are the glue
between stages, as run.py was: they may read analysis/ (the store, the
report) to show what a run gave; the rest of configs/ never does."""
