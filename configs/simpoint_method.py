"""SimPoint 3.2's method on numpy and scikit-learn: from basic-block
vectors to simulation points and weights.

Input: a .bb file as SimPoint reads it, one interval per line,
`T:id:count :id:count ...` (the QEMU plugin writes one per ROI with
bbv_interval > 0; gem5's SimPoint probe writes the same format).
Output: the .simpoints and .weights files SimPoint 3.2 writes
(`<interval> <cluster>` and `<weight> <cluster>` per line).

The method, as SimPoint 3.2 does it (Hamerly, Perelman, Lau and Calder,
"SimPoint 3.0: Faster and More Flexible Program Analysis", 2005):
1. each interval's vector is normalised to sum 1 (its code profile, not
   its length);
2. vectors are randomly projected to 15 dimensions (a matrix of values
   uniform in [-1, 1], fixed by a seed);
3. k-means for every k from 1 to max_k, several random initialisations
   each, keeping the lowest-distortion run;
4. each clustering is scored by the Bayesian information criterion of
   Pelleg and Moore's X-means; the chosen k is the smallest whose score
   reaches 90 % of the way from the worst score to the best;
5. each cluster's simulation point is its interval nearest the centroid,
   weighted by the cluster's share of intervals.

The reference binary is not ours to ship: `reference()` finds a SimPoint
3.2 the user has (SIMPOINT_HOME or `simpoint` on PATH) and runs it on the
same vectors, for comparison.
"""

import math
import os
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from lab import inputs
from lab.errors import UserError

# In the key of every SimPoint-sampled run: bump it when a change here
# would change the points or weights chosen (tests/test_sampling.py pins
# the choice on a fixed .bb). Its text is not hashed: a refactor moves no key.
METHOD_VERSION = 1

DIMS = 15
MAX_K = 10
N_INIT = 5
BIC_THRESHOLD = 0.9
SEED = 2042712918  # SimPoint 3.2's default projection seed


def read_bb(path: Path) -> np.ndarray:
    """Intervals x basic blocks, raw counts. Block ids are renumbered in
    order of first appearance."""
    ids, rows = {}, []
    for n, line in enumerate(inputs.text_file(path, ".bb file").splitlines(), 1):
        line = line.strip()
        if not line:
            continue
        if not line.startswith("T"):
            raise UserError(f"{path}:{n}: not a basic-block vector line (T:id:count ...)")
        row = {}
        for item in line[1:].split():
            try:
                _, bid, count = item.split(":")
                row[ids.setdefault(int(bid), len(ids))] = int(count)
            except ValueError:
                raise UserError(f"{path}:{n}: bad entry {item!r}") from None
        rows.append(row)
    if not rows:
        raise UserError(f"{path}: no intervals")
    out = np.zeros((len(rows), len(ids)))
    for i, row in enumerate(rows):
        for j, c in row.items():
            out[i, j] = c
    return out


def project(vectors: np.ndarray, dims: int = DIMS, seed: int = SEED) -> np.ndarray:
    """Normalise each interval to sum 1, then project to `dims` dimensions."""
    sums = vectors.sum(axis=1, keepdims=True)
    normal = vectors / np.where(sums == 0, 1, sums)
    if normal.shape[1] <= dims:
        return normal
    matrix = np.random.default_rng(seed).uniform(-1, 1, (normal.shape[1], dims))
    return normal @ matrix


def bic(points: np.ndarray, labels: np.ndarray, centers: np.ndarray) -> float:
    """X-means' BIC of a clustering under identical spherical Gaussians."""
    r, m = points.shape
    k = len(centers)
    distortion = float(((points - centers[labels]) ** 2).sum())
    if r <= k or distortion <= 0:
        return math.inf  # every point its own centre: a perfect, degenerate fit
    variance = distortion / (m * (r - k))
    loglik = 0.0
    for c in range(k):
        rc = int((labels == c).sum())
        if rc == 0:
            continue
        loglik += (rc * math.log(rc) - rc * math.log(r)
                   - rc * m / 2 * math.log(2 * math.pi * variance) - m * (rc - 1) / 2)
    params = k * (m + 1)
    return loglik - params / 2 * math.log(r)


@dataclass
class Selection:
    k: int
    labels: list                 # cluster of each interval
    simpoints: list              # (interval, cluster)
    weights: list                # (weight, cluster)
    bic: dict = field(default_factory=dict)   # k -> score

    def write(self, stem: Path) -> tuple:
        sp, wt = Path(f"{stem}.simpoints"), Path(f"{stem}.weights")
        sp.write_text("".join(f"{i} {c}\n" for i, c in self.simpoints))
        wt.write_text("".join(f"{w:.6f} {c}\n" for w, c in self.weights))
        return sp, wt


def choose(vectors: np.ndarray, max_k: int = MAX_K, n_init: int = N_INIT,
           threshold: float = BIC_THRESHOLD, seed: int = SEED) -> Selection:
    """SimPoint's choice of k, clusters, points and weights."""
    from sklearn.cluster import KMeans  # imported here: only this needs it

    points = project(vectors, seed=seed)
    n = len(points)
    runs = {}
    for k in range(1, min(max_k, n) + 1):
        km = KMeans(n_clusters=k, n_init=n_init, random_state=seed % (2 ** 31)).fit(points)
        runs[k] = (km.labels_, km.cluster_centers_, bic(points, km.labels_, km.cluster_centers_))
    scores = {k: s for k, (_, _, s) in runs.items()}
    finite = [s for s in scores.values() if math.isfinite(s)]
    lo, hi = (min(finite), max(finite)) if finite else (0.0, 0.0)
    k = next(k for k in sorted(scores)
             if not math.isfinite(scores[k]) or scores[k] >= lo + threshold * (hi - lo))
    labels, centers, _ = runs[k]
    simpoints, weights = [], []
    for c in range(k):
        members = np.flatnonzero(labels == c)
        if len(members) == 0:
            continue
        nearest = members[np.argmin(((points[members] - centers[c]) ** 2).sum(axis=1))]
        simpoints.append((int(nearest), c))
        weights.append((len(members) / n, c))
    return Selection(k, [int(x) for x in labels], simpoints, weights, scores)


def estimate(selection: Selection, per_interval: list) -> float:
    """The weighted estimate of a per-interval metric (say, CPI) from the
    simulation points alone."""
    return sum(w * per_interval[i] for (i, _), (w, _) in zip(selection.simpoints,
                                                            selection.weights))


def reference_binary() -> str:
    """The user's SimPoint 3.2 binary, or "" (it is in no registry: found,
    never built or shipped by us)."""
    home = os.environ.get("SIMPOINT_HOME")
    if home:
        for cand in (Path(home) / "bin" / "simpoint", Path(home) / "simpoint"):
            if os.access(cand, os.X_OK):
                return str(cand)
    return shutil.which("simpoint") or ""


def reference(bb: Path, stem: Path, max_k: int = MAX_K) -> tuple:
    """Run the reference SimPoint 3.2 on `bb`; its (.simpoints, .weights)."""
    binary = reference_binary()
    if not binary:
        raise UserError("SimPoint 3.2 not found: set SIMPOINT_HOME or put 'simpoint' on "
                        "PATH (uaccess-lab does not ship it)")
    sp, wt = Path(f"{stem}.ref.simpoints"), Path(f"{stem}.ref.weights")
    labels = Path(f"{stem}.ref.labels")
    subprocess.run([binary, "-loadFVFile", str(bb), "-maxK", str(max_k),
                    "-saveSimpoints", str(sp), "-saveSimpointWeights", str(wt),
                    "-saveLabels", str(labels)],
                   check=True, capture_output=True)
    return sp, wt


def read_selection(simpoints: Path, weights: Path, labels: Path = None) -> dict:
    """A .simpoints/.weights pair (and a .labels file: `<cluster> <distance>`
    per interval) as SimPoint 3.2 writes them."""
    def pairs(path, what):
        return [line.split() for line in inputs.text_file(path, what).splitlines()
                if line.strip()]
    sel = {"simpoints": [(int(i), int(c)) for i, c in pairs(simpoints, "simpoints file")],
           "weights": [(float(w), int(c)) for w, c in pairs(weights, "weights file")]}
    sel["k"] = len(sel["simpoints"])
    if labels and Path(labels).is_file():
        sel["labels"] = [int(line.split()[0]) for line in
                         inputs.text_file(labels, "labels file").splitlines() if line.strip()]
    return sel


def label_agreement(a: list, b: list) -> float:
    """The Rand index of two clusterings of the same intervals: the share
    of interval pairs both put together or both apart (cluster numbers
    are arbitrary, so labels are not compared one by one)."""
    if len(a) != len(b):
        raise ValueError("the clusterings cover different intervals")
    x, y = np.asarray(a), np.asarray(b)
    same_a, same_b = x[:, None] == x[None, :], y[:, None] == y[None, :]
    n = len(a)
    pairs = n * (n - 1)
    return 1.0 if pairs == 0 else float(((same_a == same_b).sum() - n) / pairs)
