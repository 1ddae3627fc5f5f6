"""The reference optimum of the GMM fit (`nilang_apps::fit::gmm_problem`), computed with JAX
alone: the objective is the JAX peer's own ADBench GMM (`peer.gmm_functions`, no Rust code),
the loss is the fit's negative log-posterior `2 P - f` (`P`: the objective on no points, i.e.
the Wishart prior), minimised by Newton's method with JAX's exact Hessian (scipy's
`trust-exact`, then plain Newton steps until the gradient stops shrinking).

The loss does not change when a constant is added to all `alpha` (the mixture weights are a
softmax), so its Hessian is singular along that direction; Newton runs on the loss plus
`(sum(alpha) - sum(alpha_start))^2 / 2`, which is zero along the path every gradient method
takes from the start (the loss's gradient sums to zero over `alpha`) and fixes that direction.

    python3 peers/jax/gmm_fit_reference.py INSTANCE OUT

INSTANCE is in ADBench's format; the test's instance was written by
`cargo run -p nilang-apps --example gmm_generate -- 2 3 40 INSTANCE 1`. OUT gets one
parameter a line (`[alpha | mu | icf]`, 17 significant digits) after `#` comment lines.
Used by `crates/nilang-apps/tests/apps/fit.rs` (data in `crates/nilang-apps/tests/data/`).
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peer  # noqa: E402  (x64 enabled, CPU platform)

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
import scipy.optimize  # noqa: E402


def read_instance(path):
    words = open(path).read().split()
    d, k, n = (int(w) for w in words[:3])
    nums = [float(w) for w in words[3:]]
    il = d * (d + 1) // 2
    p = np.array(nums[: k + k * d + k * il])
    x = np.array(nums[len(p) : len(p) + n * d])
    gamma, m = nums[len(p) + n * d], nums[len(p) + n * d + 1]
    return d, k, n, p, x, gamma, m


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    d, k, n, p0, x, gamma, m = read_instance(sys.argv[1])
    scalars = lambda n: {"d": d, "k": k, "n": n, "gamma": gamma, "m": m, "constant": 0.0}  # noqa: E731
    f = peer.gmm_functions(scalars(n), {"x": x, "p": p0})["O"][0]
    prior = peer.gmm_functions(scalars(0), {"x": np.zeros(0), "p": p0})["O"][0]
    alpha_sum = float(np.sum(p0[:k]))

    def loss(p):
        return 2.0 * prior(p) - f(p)

    def fixed(p):
        return loss(p) + 0.5 * (jnp.sum(p[:k]) - alpha_sum) ** 2

    value = jax.jit(fixed)
    grad = jax.jit(jax.grad(fixed))
    hess = jax.jit(jax.hessian(fixed))
    res = scipy.optimize.minimize(
        lambda p: float(value(p)),
        p0,
        jac=lambda p: np.asarray(grad(p)),
        hess=lambda p: np.asarray(hess(p)),
        method="trust-exact",
        options={"gtol": 1e-10, "maxiter": 1000},
    )
    p = res.x
    norm = np.linalg.norm(np.asarray(grad(p)))
    for _ in range(20):  # plain Newton until the gradient stops shrinking
        step = np.linalg.solve(np.asarray(hess(p)), np.asarray(grad(p)))
        q = p - step
        qn = np.linalg.norm(np.asarray(grad(q)))
        if not qn < norm:
            break
        p, norm = q, qn
    eig = np.linalg.eigvalsh(np.asarray(hess(p)))
    assert eig[0] > 0, f"not a minimum: smallest Hessian eigenvalue {eig[0]}"
    with open(sys.argv[2], "w") as out:
        out.write(f"# reference optimum of nilang_apps::fit::gmm_problem on {os.path.basename(sys.argv[1])}\n")
        out.write("# by peers/jax/gmm_fit_reference.py (JAX " + jax.__version__ + ", Newton with JAX's Hessian)\n")
        out.write(f"# loss without constants {float(loss(p))!r}; gradient norm {norm:.3e}; ")
        out.write(f"Hessian eigenvalues {eig[0]:.3e} .. {eig[-1]:.3e}; trust-exact {res.nit} iterations\n")
        for v in p:
            out.write(f"{float(v)!r}\n")
    print(f"gradient norm {norm:.3e}, Hessian eigenvalues {eig[0]:.3e} .. {eig[-1]:.3e}, {res.nit} iterations")


if __name__ == "__main__":
    main()
