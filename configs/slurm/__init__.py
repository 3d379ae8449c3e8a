"""Slurm: the sweep executor for clusters, and a single-node set-up."""
