"""Instructions per evaluation of Enzyme's cells, counted by valgrind's callgrind.

    valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file=/tmp/cg.%p.out \\
        python3.11 peers/enzyme/instructions.py [embedding bessel schedules ba sparse mlp pairwise logistic]

(python3.11 the interpreter itself, not a pyenv shim: valgrind does not follow the shim's exec;
the dumps are read from NILANG_CALLGRIND_GLOB, default /tmp/cg.*.out.*.)

Compiles the peer's C++ (peers/enzyme/*.cpp) with NILANG_CALLGRIND defined, so each untimed
run of `reps` repetitions is bracketed by callgrind client requests (prelude.h): Python, JAX
and the compile run uninstrumented, and each dump holds one loop alone. For each cell the loop
runs `1` and then `1 + N` times; the difference of the two dumps' instruction counts over N is
the instructions of one evaluation (no per-call overhead). Inputs: the embedding suite's shapes
with standard-normal x (the count does not depend on the values but for the relu branch), and
Bessel J2 at z = 1.0, atol 1e-8 (the bench's one-point case), the schedules steppers
(Lorenz T = 1000, the PDE 128 x 1000) on the bench's inputs, BA per observation on ba1 (loaded
as the Rust loader does: the file's one camera, point, weight and feature replicated,
observation i joining camera i mod n and point i mod m), sparse complex `mul!` per nonzero on
a random 1000 x 1000 pattern of density 0.05 (the counts depend on the pattern only through nnz),
and the untuned suites on their bench shapes with random inputs drawn as the Rust suites draw
them: mlp B = 256 per sample, pairwise N = 256 per pair, logistic n = 10000 per sample.
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


def count(run, n=N):
    run(1)
    a = dumps()[-1]
    run(1 + n)
    b = dumps()[-1]
    return (b - a) / n


def data_dir():
    """The first `shared/data` walking up from here (the Rust harness's default)."""
    d = HERE
    while not os.path.isdir(os.path.join(d, "shared", "data")) and os.path.dirname(d) != d:
        d = os.path.dirname(d)
    return os.path.join(d, "shared", "data")


def ba_instance(path):
    """The BA peer's arrays of an ADBench file (as `BaInput::from_file` builds them)."""
    tok = open(path).read().split()
    n, m, p = int(tok[0]), int(tok[1]), int(tok[2])
    vals = [float(t) for t in tok[3:20]]
    cam, x, w, feat = vals[:11], vals[11:14], vals[14], vals[15:17]
    obs = np.array([[i % n, i % m] for i in range(p)], float).reshape(-1)
    arrays = (np.tile(cam, n), np.tile(x, m), np.full(p, w), np.tile(feat, p), obs)
    return p, arrays


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
    if not ONLY or "ba" in ONLY:
        data = os.environ.get("NILANG_DATA") or data_dir()
        path = glob.glob(os.path.join(data, "adbench", "ba", "ba1_*.txt"))[0]
        p, arrays = ba_instance(path)
        fns = {"O": peer.entry("ba", "objective", 3 * p, arrays), "J": peer.entry("ba", "jacobian", 31 * p, arrays)}
        for m in ("O", "J"):
            rows.append(("ba per observation", m, count(fns[m], 10) / p))
    if not ONLY or "sparse" in ONLY:
        n = 1000
        mask = rng.random((n, n)) < 0.05  # [column, row]
        cp = np.concatenate([[0], np.cumsum(mask.sum(axis=1))]).astype(float)
        ri = np.nonzero(mask)[1].astype(float)
        nnz = ri.size
        args = (cp, ri, rng.random(2 * nnz), rng.random(2 * n), rng.random(2 * n))
        fns = peer.sparse({"kind": "matvec"}, dict(zip(("cp", "ri", "a", "x", "ybar"), args)))
        for m in ("O", "B"):
            rows.append((f"sparse mul! per nonzero (nnz {nnz})", m, count(fns[m]) / nnz))
    if not ONLY or "mlp" in ONLY:
        b = 256
        p = np.concatenate([rng.uniform(-0.25, 0.25, 16 * 32), rng.uniform(-0.1, 0.1, 32),
                            rng.uniform(-32 ** -0.5, 32 ** -0.5, 32), rng.uniform(-0.1, 0.1, 1)])
        fns = peer.mlp({}, {"p": p, "x": rng.uniform(-2, 2, b * 16), "t": rng.uniform(-1, 1, b)})
        for m in ("O", "G"):
            rows.append((f"mlp B={b} per sample", m, count(fns[m]) / b))
    if not ONLY or "pairwise" in ONLY:
        n = 256
        fns = peer.pairwise({}, {"x": n ** (1 / 3) * rng.random(3 * n)})
        for m in ("O", "G"):
            rows.append((f"pairwise N={n} per pair", m, count(fns[m]) / (n * (n - 1) / 2)))
    if not ONLY or "logistic" in ONLY:
        n = 10000
        x = 2 * rng.random(n * 16) - 1
        y = (rng.random(n) < 0.5).astype(float)
        fns = peer.logistic({}, {"w": 0.2 * rng.random(17) - 0.1, "x": x, "y": y})
        for m in ("O", "G"):
            rows.append((f"logistic n={n} per sample", m, count(fns[m], 10) / n))
    for case, m, n in rows:
        print(f"{case}\tenzyme-{m}\t{n:.2f} instructions")


if __name__ == "__main__":
    main()
