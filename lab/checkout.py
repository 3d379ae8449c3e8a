"""What a run records as the code that made it: `git describe --always
--dirty` of the checkout (configs/runs.py writes it into every record's
provenance). One reading of it here, for the run stage (a clean checkout
does not reuse a run an uncommitted one made) and for analysis (export
never publishes one)."""

DIRTY_SUFFIX = "-dirty"  # what git describe --dirty appends


def is_dirty(version) -> bool:
    """Whether a recorded checkout version had uncommitted changes."""
    return str(version or "").endswith(DIRTY_SUFFIX)
