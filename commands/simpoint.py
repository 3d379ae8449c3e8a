"""run.py's simpoint command: SimPoint 3.2's method on a .bb file
(configs/simpoint_method.py), its simulation points and weights."""

from pathlib import Path

from configs import simpoint_method
from lab import inputs
from lab.cli import command


def register(sub) -> None:
    sp = command(sub, "simpoint", cmd_simpoint,
                 help="SimPoint 3.2's method on a .bb file: simulation points and weights")
    sp.add_argument("bb", help="basic-block vectors (T:id:count ...), e.g. a run's roi.bb")
    sp.add_argument("--max-k", type=inputs.cli(inputs.at_least_one, "--max-k"),
                    default=simpoint_method.MAX_K, help="most clusters")
    sp.add_argument("--out", help="output stem (default: the .bb path without .bb)")


def cmd_simpoint(args) -> int:
    """Simulation points and weights of a .bb file, SimPoint 3.2's way."""
    bb = Path(args.bb)
    vectors = simpoint_method.read_bb(bb)
    sel = simpoint_method.choose(vectors, max_k=args.max_k)
    stem = Path(args.out) if args.out else bb.with_suffix("")
    sp, wt = sel.write(stem)
    print(f"{vectors.shape[0]} intervals, {vectors.shape[1]} blocks: k = {sel.k} "
          f"(BIC {', '.join(f'{k}: {s:.0f}' for k, s in sorted(sel.bic.items()))})")
    for (i, c), (w, _) in zip(sel.simpoints, sel.weights):
        print(f"  cluster {c}: interval {i}, weight {w:.3f}")
    print(f"wrote {sp} and {wt}")
    if simpoint_method.reference_binary():
        ref_sp, ref_wt = simpoint_method.reference(bb, stem, args.max_k)
        print(f"reference SimPoint 3.2: {ref_sp} and {ref_wt}")
    return 0
