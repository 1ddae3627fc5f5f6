"""The Enzyme peer of the NiLang.rs benchmark (`cargo run --release -- --peers`).

Our own C++ version of every suite's objective (`peers/enzyme/<suite>.cpp`, after
`prelude.h`), differentiated by Enzyme (`__enzyme_autodiff` / `__enzyme_fwddiff` in the C++
itself), compiled in-process by enzyme-ad's bundled clang + Enzyme (`enzyme_ad.jax.cpp_call`)
and run on the inputs the Rust harness sends. Python 3.11 only (enzyme-ad's wheels);
`pip install -r peers/requirements-enzyme.txt`.

The protocol is the JAX peer's (`peers/jax/peer.py`: its `read_request` and `reply` are used
here), so the harness checks every derivative against its reference before asking for times.

Timing without Python dispatch: every C++ entry point times its own samples with the CPU's
time-stamp counter (`repeat` in prelude.h; the rate calibrated against the wall clock at start)
and returns their cycle counts beside its result, so a sample holds no Python or XLA dispatch;
the peer applies the harness's budget to them (repetitions per sample up to min_sample, sample
count from the target time, median). Compiler barriers make every repetition read its inputs
and write its output (prelude.h).
"""

import os
import sys
import time

os.environ.setdefault("NILANG_PEER_THREADS", "1")
HERE = os.path.dirname(os.path.abspath(__file__))


def _load_jax_peer():
    """`peers/jax/peer.py` as module `jax_peer` (the protocol; it sets JAX up on one thread, or
    answers the first request with the import error and exits where JAX is missing)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("jax_peer", os.path.join(HERE, "..", "jax", "peer.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


jaxpeer = _load_jax_peer()

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

try:
    from enzyme_ad.jax import cpp_call
    from importlib.metadata import version as _version

    ENZYME_VERSION = _version("enzyme-ad")
except ImportError as e:  # one line for the harness instead of a traceback
    sys.stdin.buffer.readline()
    msg = f"{type(e).__name__}: {e} (Python {sys.version.split()[0]})"
    sys.stdout.buffer.write((jaxpeer.json.dumps({"ok": False, "error": msg}) + "\n").encode())
    sys.stdout.buffer.flush()
    sys.exit(0)

PERTURB = jaxpeer.PERTURB
PRELUDE = open(os.path.join(HERE, "prelude.h")).read()
TSC_HZ = None  # set in main()
_SOURCES = {}


def source(suite):
    """The C++ source of `suite` (read once, at its first case)."""
    if suite not in _SOURCES:
        _SOURCES[suite] = PRELUDE + open(os.path.join(HERE, f"{suite}.cpp")).read()
    return _SOURCES[suite]


MAX_SAMPLES = 256  # prelude.h


def entry(suite, fn, out_len, args):
    """An entry point: `run(reps, samples=0)` calls the C++ `fn` of `suite` on `args` and returns
    its result and the TSC cycles of each sample (`samples` samples of `reps` repetitions; 0:
    one untimed run of `reps` repetitions)."""
    src = source(suite)
    args = tuple(jnp.asarray(np.ascontiguousarray(a, dtype=np.float64)) for a in args)
    shapes = [
        jax.core.ShapedArray([out_len], jnp.float64),
        jax.core.ShapedArray([MAX_SAMPLES], jnp.float64),
    ]
    f = jax.jit(lambda *a: cpp_call(*a, out_shapes=shapes, source=src, fn=fn))

    def run(reps, samples=0):
        out, times = jax.block_until_ready(f(*args, jnp.asarray([float(reps), float(samples)])))
        return out, np.asarray(times)

    return run


def tsc_hz():
    """The time-stamp counter's rate, against the wall clock over 0.2 s."""
    f = jax.jit(
        lambda d: cpp_call(
            d, out_shapes=[jax.core.ShapedArray([1], jnp.float64)], source=PRELUDE, fn="tsc"
        )[0]
    )
    d = jnp.zeros(1)
    jax.block_until_ready(f(d))
    t0 = time.perf_counter()
    c0 = float(f(d)[0])
    time.sleep(0.2)
    c1 = float(f(d)[0])
    t1 = time.perf_counter()
    return (c1 - c0) / (t1 - t0)


# ----------------------------------------------------------------------------------------------
# Suites: the same scalars and arrays as the JAX peer; results in the suite's reference layout.


def gmm(s, a):
    d, k, n = int(s["d"]), int(s["k"]), int(s["n"])
    sc = np.array([float(s["gamma"]), float(s["m"]), float(s["constant"])])
    p = a["p"]
    args = (p[:k], p[k : k + k * d], p[k + k * d :], a["x"], sc)
    return {"O": entry("gmm", "objective", 1, args), "G": entry("gmm", "gradient", p.size, args)}


def ba(s, a):
    p = int(s["p"])
    args = (a["cams"], a["x"], a["w"], a["feats"], a["obs"])
    return {"O": entry("ba", "objective", 3 * p, args), "J": entry("ba", "jacobian", 31 * p, args)}


def bessel(s, a):
    z = a["z"] if bool(s["batch"]) else a["z"][:1]
    args = (z, np.array([float(s["nu"]), float(s["atol"])]))
    return {"O": entry("bessel", "objective", z.size, args), "G": entry("bessel", "gradient", z.size, args)}


def embedding(s, a):
    x = a["x"]
    args = (x, a["edges"], a["non_edges"])
    return {
        "O": entry("embedding", "objective", 1, args),
        "G": entry("embedding", "gradient", x.size, args),
        "H": entry("embedding", "hessian", x.size * x.size, args),
    }


def sparse(s, a):
    if s["kind"] == "dot":
        args = (a["acp"], a["ari"], a["av"], a["bcp"], a["bri"], a["bv"], np.zeros(int(s["m"])))
        return {
            "O": entry("sparse", "dot_objective", 1, args),
            "B": entry("sparse", "dot_backward", a["av"].size + a["bv"].size, args),
        }
    args = (a["cp"], a["ri"], a["a"], a["x"], a["ybar"])
    return {
        "O": entry("sparse", "matvec_objective", a["ybar"].size, args),
        "B": entry("sparse", "matvec_backward", a["x"].size + a["a"].size, args),
    }


def schedules(s, a):
    steps = np.array([float(s["steps"])])
    if "u0" in a:  # the PDE stepper
        args = (a["u0"], a["p"], steps)
        return {
            "O": entry("schedules", "pde_objective", 1, args),
            "G": entry("schedules", "pde_gradient", a["u0"].size + 2, args),
        }
    args = (a["x0"], steps)  # Lorenz RK4
    return {
        "O": entry("schedules", "lorenz_objective", 1, args),
        "G": entry("schedules", "lorenz_gradient", 4, args),
    }


def mlp(s, a):
    args = (a["p"], a["x"], a["t"])
    return {"O": entry("mlp", "objective", 1, args), "G": entry("mlp", "gradient", a["p"].size, args)}


def pairwise(s, a):
    args = (a["x"],)
    return {
        "O": entry("pairwise", "objective", 1, args),
        "G": entry("pairwise", "gradient", a["x"].size, args),
    }


def logistic(s, a):
    args = (a["w"], a["x"], a["y"])
    return {
        "O": entry("logistic", "objective", 1, args),
        "G": entry("logistic", "gradient", a["w"].size, args),
    }


def odefit(s, a):
    args = (a["theta"], a["obs"], np.array([float(s["dt"]), float(s["every"])]))
    return {"O": entry("odefit", "objective", 1, args), "G": entry("odefit", "gradient", 6, args)}


SUITES = {
    "gmm": gmm,
    "ba": ba,
    "bessel": bessel,
    "embedding": embedding,
    "sparse": sparse,
    "schedules": schedules,
    "mlp": mlp,
    "pairwise": pairwise,
    "logistic": logistic,
    "odefit": odefit,
}

# ----------------------------------------------------------------------------------------------


def bench(run, b):
    """The harness's budget (`crates/nilang-bench/src/harness/timing.rs`: warm-up, samples of at
    least min_sample, as many as the target time allows within [min_samples, max_samples],
    median), the samples timed inside the C++ call with the TSC."""
    t0 = time.perf_counter()
    run(1)
    first = time.perf_counter() - t0
    if first > b["time_limit"]:
        return None
    for _ in range(1, int(b["warmup"])):
        run(1)
    inner = 1
    while True:
        sample = run(inner, 1)[1][0] / TSC_HZ
        if sample >= b["min_sample"] or inner >= 1 << 30:
            break
        inner *= 2
    want = b["target"] / max(sample, 1e-12)
    n = int(min(b["max_samples"], MAX_SAMPLES, max(b["min_samples"], want)))
    samples = sorted(run(inner, n)[1][:n] / TSC_HZ / inner)
    med = samples[n // 2] if n % 2 else 0.5 * (samples[n // 2 - 1] + samples[n // 2])
    return [med, samples[0], samples[-1]]


def main():
    global TSC_HZ
    TSC_HZ = tsc_hz()
    inp, out = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # anything else printing to stdout would break the protocol
    fns = {}
    while True:
        try:
            req, arrays = jaxpeer.read_request(inp)
        except Exception as e:  # noqa: BLE001
            jaxpeer.reply(out, {"ok": False, "error": f"bad request: {e}"})
            return
        if req is None or req.get("cmd") == "quit":
            return
        try:
            cmd = req["cmd"]
            if cmd == "hello":
                version = f"enzyme-ad {ENZYME_VERSION} (JAX {jax.__version__})"
                jaxpeer.reply(out, {"ok": True, "jax": version, "threads": "1"})
            elif cmd == "case":
                suite = req["suite"]
                if suite not in SUITES:
                    fns = {}
                    jaxpeer.reply(out, {"ok": True, "note": f"no Enzyme version of {suite}"})
                    continue
                fns = SUITES[suite](req.get("scalars", {}), arrays)
                results, t0 = [], time.perf_counter()
                for measure, run in fns.items():
                    r = np.asarray(run(1)[0], dtype=np.float64).reshape(-1)
                    if measure != "O":
                        r = r + PERTURB
                    results.append((measure, r))
                jaxpeer.reply(
                    out, {"ok": True, "compile_and_first_s": time.perf_counter() - t0}, results
                )
            elif cmd == "time":
                times = {m: bench(fns[m], req["budget"]) for m in req["measures"]}
                jaxpeer.reply(out, {"ok": True, "times": times})
            else:
                jaxpeer.reply(out, {"ok": False, "error": f"unknown command {cmd}"})
        except Exception as e:  # noqa: BLE001
            jaxpeer.reply(out, {"ok": False, "error": f"{type(e).__name__}: {e}"})


if __name__ == "__main__":
    main()
