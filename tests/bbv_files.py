"""Synthetic basic-block vector files of a real ROI's size and sparsity, for
the tests and the benchmark of reading and clustering them (tests/test_bb_data.py,
tests/benchmark.py bb-data).

Shaped as the QEMU plugin writes them (configs/qemu/plugin/bbv.c): one
`T:id:count :id:count ...` line per interval, dense ids in ascending
order. A ROI runs in phases, each over its own pool of code (a
few thousand blocks of a larger kernel); an interval touches its pool's
hot blocks every time and its cold ones now and then, so a line holds a
few hundred to a thousand of the file's many thousand blocks.
"""

import numpy as np


def write(path, intervals: int, phases: int = 5, universe: int = 12_000, pool: int = 2_500,
          touched: int = 200, run: int = 50, seed: int = 7) -> list:
    """Write `intervals` lines to `path`; each phase lasts `run` intervals
    at a time. The phase of each interval, in order."""
    rng = np.random.default_rng(seed)
    pools, chance, scale = [], [], []
    for _ in range(phases):
        ids = np.sort(rng.choice(universe, pool, replace=False)) + 1
        # Block j of the pool (in a random order of heat) is in an
        # interval with a chance falling off as 1/rank: about `touched` in all.
        rank = rng.permutation(pool) + 1
        c = 1.0
        for _ in range(30):  # c such that sum(min(1, c / rank)) is `touched`
            c *= touched / np.minimum(1.0, c / rank).sum()
        pools.append(ids)
        chance.append(np.minimum(1.0, c / rank))
        # Instructions per block per interval: the hottest blocks run most
        # (loops), the rarely touched ones little.
        scale.append(np.sort(rng.lognormal(3, 1.5, pool))[::-1][rank - 1])
    order = np.repeat(rng.integers(0, phases, intervals // run + 1), run)[:intervals]
    with open(path, "w") as f:
        for p in order:
            hit = rng.random(pool) < chance[p]
            counts = (scale[p][hit] * rng.uniform(0.8, 1.2, hit.sum())).astype(np.int64) + 1
            f.write("T" + " ".join([f":{i}:{c}" for i, c in
                                    zip(pools[p][hit].tolist(), counts.tolist())]) + "\n")
    return order.tolist()
