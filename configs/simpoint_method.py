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

The vectors are the study's own output (a long ROI's are 100 MB), so
read_bb reads them as data (lab/datafile.py: streamed, no size cap, each
line checked) into a sparse matrix (issue 57). That changed how they are
read and held, not the method: every well-formed file the old dense reader
took gives the same k, clusters, points, weights and BIC scores, bit for
bit (the same arithmetic: DENSE_CELLS). Only a line the old reader let
through malformed (a block twice, a negative count) is now an error.
"""

import math
import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from lab import datafile
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


# One interval of a .bb file: T, then `:id:count` entries separated by
# blanks (gem5's probe ends the line with a blank, the QEMU plugin does
# not). At most 18 digits: every such number fits 64 bits, so none wraps.
# Possessive (*+, ++): nothing to backtrack into, twice as fast.
_BB_LINE = re.compile(rb"T[ \t]*+"
                      rb"(?::[0-9]{1,18}+:[0-9]{1,18}+(?:[ \t]++:[0-9]{1,18}+:[0-9]{1,18}+)*+)?+"
                      rb"[ \t]*+")
_BB_ENTRY = re.compile(rb":[0-9]{1,18}:[0-9]{1,18}")


def _bb_problem(line: bytes) -> str:
    """What is wrong with a .bb line the pattern refused (the slow path,
    taken once, for the error)."""
    if not line.startswith(b"T"):
        return (f"{datafile.shown(line)} is not a basic-block vector line "
                f"(T:id:count :id:count ...)")
    for item in line[1:].split():
        if not _BB_ENTRY.fullmatch(item):
            return (f"bad entry {datafile.shown(item)}: each is :id:count, two whole "
                    f"numbers of at most 18 digits, blanks between entries")
    return f"{datafile.shown(line)} is not T:id:count :id:count ..."


def _first_appearance(ids: np.ndarray) -> tuple:
    """(the distinct ids in order of first appearance, each id's column:
    its place in that order). The writers number blocks densely from 1, so
    a table as long as the largest id is small and much faster than
    sorting millions of ids; a file of sparse ids (addresses) is sorted."""
    n = len(ids)
    index = np.int32 if n < 2**31 else np.int64  # as scipy's own index arrays
    if n and int(ids.max()) < n + (1 << 20):  # at most a column's room per entry
        first = np.full(int(ids.max()) + 1, n, dtype=index)
        np.minimum.at(first, ids, np.arange(n, dtype=index))
        present = np.flatnonzero(first < n)
        by_rank = present[np.argsort(first[present])]
        table = np.empty(len(first), dtype=index)
        table[by_rank] = np.arange(len(by_rank), dtype=index)
        return by_rank, table[ids]
    unique, first, inverse = np.unique(ids, return_index=True, return_inverse=True)
    order = np.argsort(first)
    rank = np.empty(len(unique), dtype=index)
    rank[order] = np.arange(len(unique), dtype=index)
    return unique[order], rank[inverse]


def read_bb(path: Path):
    """Intervals x basic blocks, raw counts, as a sparse matrix (an
    interval touches a few hundred of the ROI's thousands of blocks; a
    100 MB file is 10,000 x 15,000). Block ids are renumbered in order of
    first appearance. The file is the study's own (a run's vectors), so it
    is read as data (lab/datafile.py): streamed, no size cap, each line
    checked, an error naming the file and the line. A scipy.sparse
    csr_matrix (imported here: the other commands need none of it)."""
    from scipy import sparse

    what = ".bb file"
    numbers, lengths, where = [], [], []
    for n, line in datafile.lines(path, what):
        line = line.strip()
        if not line:
            continue
        if not _BB_LINE.fullmatch(line):
            raise datafile.at(path, n, what, _bb_problem(line))
        # The line is checked: its numbers parse in C, not one by one.
        numbers.append(np.fromstring(line[1:].replace(b":", b" "), dtype=np.int64, sep=" "))
        lengths.append(len(numbers[-1]) // 2)
        where.append(n)
    if not numbers:
        raise UserError(f"{what} {path} holds no intervals (no T:id:count line)")
    flat = np.concatenate(numbers)
    del numbers
    ids, counts = flat[0::2], flat[1::2].astype(np.float64)
    by_rank, cols = _first_appearance(ids)
    del flat, ids
    indptr = np.concatenate(([0], np.cumsum(lengths))).astype(cols.dtype)
    out = sparse.csr_matrix((counts, cols, indptr), shape=(len(lengths), len(by_rank)))
    out.sort_indices()
    repeated = np.flatnonzero(out.indices[1:] == out.indices[:-1])
    # Equal neighbours within a row only (a row's last and the next row's first may match).
    repeated = repeated[~np.isin(repeated + 1, indptr)]
    if len(repeated):
        row = int(np.searchsorted(indptr, repeated[0], side="right")) - 1
        raise datafile.at(path, where[row], what,
                          f"block {int(by_rank[out.indices[repeated[0]]])} twice in one interval")
    return out


# Vectors of at most this many cells (128 MiB of float64) are projected
# dense, with the very arithmetic the method had before the vectors were
# sparse: every .bb run so far is far below it (the old reader took 256
# KiB at most), so every selection made so far is made again bit for bit
# (checked on 50 random files of 2 to 3,000 intervals). Larger ones
# are projected sparse: the same sums in another order (a last-bit
# difference), without a dense copy (10,000 x 15,000: 1.2 GB).
DENSE_CELLS = 1 << 24


def project(vectors, dims: int = DIMS, seed: int = SEED) -> np.ndarray:
    """Normalise each interval to sum 1, then project to `dims` dimensions.
    `vectors`: intervals x blocks, a numpy array or a scipy.sparse matrix."""
    from scipy import sparse

    if sparse.issparse(vectors) and vectors.shape[0] * vectors.shape[1] <= DENSE_CELLS:
        vectors = vectors.toarray()
    matrix = None
    if vectors.shape[1] > dims:
        matrix = np.random.default_rng(seed).uniform(-1, 1, (vectors.shape[1], dims))
    if not sparse.issparse(vectors):
        sums = vectors.sum(axis=1, keepdims=True)
        normal = vectors / np.where(sums == 0, 1, sums)
        return normal if matrix is None else normal @ matrix
    normal = sparse.csr_matrix(vectors, dtype=np.float64, copy=True)
    sums = np.asarray(normal.sum(axis=1)).ravel()
    normal.data /= np.repeat(np.where(sums == 0, 1, sums), np.diff(normal.indptr))
    return normal.toarray() if matrix is None else np.asarray(normal @ matrix)


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
    # OpenMP threads that wait passively: scikit-learn's k-means runs a
    # parallel loop per iteration, and on a busy host threads that spin
    # between loops burn ten times the work's CPU (10,000 intervals took
    # 30 s, not 3). Read when the OpenMP runtime loads, so it must come
    # before the first import of scikit-learn; the wait changes no sum.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
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


def _whole(text: bytes) -> int:
    if not re.fullmatch(rb"[0-9]{1,18}", text):
        raise ValueError(text)
    return int(text)


def _share(text: bytes) -> float:
    value = float(text)
    if not 0 <= value <= 1:  # NaN too
        raise ValueError(text)
    return value


def _distance(text: bytes) -> float:
    value = float(text)
    if not 0 <= value < math.inf:
        raise ValueError(text)
    return value


def read_selection(simpoints: Path, weights: Path, labels: Path = None) -> dict:
    """A .simpoints/.weights pair (and a .labels file: `<cluster> <distance>`
    per interval) as SimPoint 3.2 writes them: the reference binary's
    output, read as data (lab/datafile.py: no size cap, each line checked)."""
    sel = {"simpoints": datafile.pairs(simpoints, "simpoints file", _whole, _whole,
                                       "<interval> <cluster>"),
           "weights": datafile.pairs(weights, "weights file", _share, _whole,
                                     "<weight 0..1> <cluster>")}
    sel["k"] = len(sel["simpoints"])
    if labels and Path(labels).is_file():
        sel["labels"] = [c for c, _ in datafile.pairs(labels, "labels file", _whole, _distance,
                                                      "<cluster> <distance>")]
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
