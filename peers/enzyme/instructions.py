"""Instructions per evaluation of Enzyme's cells, counted by valgrind's callgrind.

    valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file=/tmp/cg.%p.out \\
        python3.11 peers/enzyme/instructions.py [embedding bessel schedules]

(python3.11 the interpreter itself, not a pyenv shim: valgrind does not follow the shim's exec;
the dumps are read from NILANG_CALLGRIND_GLOB, default /tmp/cg.*.out.*.)

Compiles the peer's C++ (peers/enzyme/*.cpp) with NILANG_CALLGRIND defined, so each untimed
run of `reps` repetitions is bracketed by callgrind client requests (prelude.h): Python, JAX
and the compile run uninstrumented, and each dump holds one loop alone. For each cell the loop
runs `1` and then `1 + N` times; the difference of the two dumps' instruction counts over N is
the instructions of one evaluation (no per-call overhead). Inputs: the embedding suite's shapes
with standard-normal x (the count does not depend on the values but for the relu branch), and
Bessel J2 at z = 1.0, atol 1e-8 (the bench's one-point case), the schedules steppers
(Lorenz T = 1000, the PDE 128 x 1000) on the bench's inputs.
"""

import glob
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ONLY = sys.argv[1:]  # suites to count (default: all)
sys.argv = sys.argv[:1]
import importlib.util  # noqa: E402

spec = importlib.util.spec_from_file_location("enzyme_peer", os.path.join(HERE, "peer.py"))
peer = importlib.util.module_from_spec(spec)
spec.loader.exec_module(peer)
peer.PRELUDE = "#define NILANG_CALLGRIND 1\n" + peer.PRELUDE
peer.TSC_HZ = 1.0
N = int(os.environ.get("NILANG_CALLGRIND_N", "100"))


def dumps():
    """Instruction totals of the callgrind dumps so far, oldest first."""
    out = []
    files = glob.glob(os.environ.get("NILANG_CALLGRIND_GLOB", "/tmp/cg.*.out.*"))
    for f in sorted(files, key=lambda f: int(f.rsplit(".", 1)[1])):
        for line in open(f):
            if line.startswith("totals:") or line.startswith("summary:"):
                out.append(int(line.split()[1]))
                break
    return out


def count(run):
    run(1)
    a = dumps()[-1]
    run(1 + N)
    b = dumps()[-1]
    return (b - a) / N


def main():
    rng = np.random.default_rng(3)
    edges = [(0, 1), (1, 2), (2, 3), (3, 4), (4, 0), (0, 5), (1, 6), (2, 7), (3, 8), (4, 9),
             (5, 7), (7, 9), (9, 6), (6, 8), (8, 5)]
    non = [(i, j) for i in range(10) for j in range(i + 1, 10) if (i, j) not in edges and (j, i) not in edges]
    e = np.array(edges, float).reshape(-1)
    ne = np.array(non, float).reshape(-1)
    rows = []
    for k in (2, 4, 6, 8, 10) if not ONLY or "embedding" in ONLY else ():
        x = rng.standard_normal(10 * k)
        fns = peer.embedding({"k": k}, {"x": x, "edges": e, "non_edges": ne})
        for m in ("O", "G", "H"):
            rows.append((f"embedding k={k}", m, count(fns[m])))
    if not ONLY or "bessel" in ONLY:
        fns = peer.bessel({"nu": 2, "atol": 1e-8, "batch": False}, {"z": np.array([1.0])})
        for m in ("O", "G"):
            rows.append(("bessel J2(1.0)", m, count(fns[m])))
    for t in (1000,) if not ONLY or "schedules" in ONLY else ():
        fns = peer.schedules({"steps": t}, {"x0": np.array([1.0, 1.0, 20.0, 28.0])})
        for m in ("O", "G"):
            rows.append((f"schedules T={t}", m, count(fns[m])))
    if not ONLY or "schedules" in ONLY:
        u0 = np.sin(2 * np.pi * np.arange(128) / 128) * 0.5 + 0.5
        fns = peer.schedules({"steps": 1000}, {"u0": u0, "p": np.array([0.2, 0.001])})
        for m in ("O", "G"):
            rows.append(("schedules pde-128x1000", m, count(fns[m])))
    for case, m, n in rows:
        print(f"{case}\tenzyme-{m}\t{n:.0f} instructions")


if __name__ == "__main__":
    main()
