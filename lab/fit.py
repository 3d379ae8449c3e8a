"""Least squares, the one way this project fits a line (calibration against
the seeds, the scorecard's cost per name byte)."""


def least_squares(xs, ys) -> tuple:
    """(intercept, slope) of the least-squares line through (xs, ys)."""
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    return my - slope * mx, slope
