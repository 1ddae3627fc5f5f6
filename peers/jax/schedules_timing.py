# JAX timing of the schedules suite's PDE stepper (issue 22), standalone: 128 cells, 1000 steps,
# loss sum u^2, params outside the state; full storage, jax.checkpoint per step, per 32 steps.
# Usage: python3 peers/jax/schedules_timing.py [ROUNDS]  (interleaved rounds; min and median)
import sys, time, statistics
import jax, jax.numpy as jnp
jax.config.update("jax_enable_x64", True)
jax.config.update("jax_platforms", "cpu")
CELLS, STEPS = 128, 1000
u0 = jnp.array([0.5*jnp.sin(2*jnp.pi*i/CELLS)+0.5 for i in range(CELLS)])
p0 = jnp.array([0.2, 0.001])
def step(u, p):
    lap = jnp.roll(u, -1) + jnp.roll(u, 1) - 2.0*u
    return u + lap*p[0] - 0.01*u**3 + p[1]
def loss_full(u, p):
    u, _ = jax.lax.scan(lambda u, _: (step(u, p), None), u, None, length=STEPS)
    return jnp.sum(u**2)
def loss_ckpt_step(u, p):
    s = jax.checkpoint(step)
    u, _ = jax.lax.scan(lambda u, _: (s(u, p), None), u, None, length=STEPS)
    return jnp.sum(u**2)
def loss_ckpt_seg(u, p, seg=32):
    # sqrt(n)-style segments: checkpoint each segment of `seg` steps
    def segment(u):
        u, _ = jax.lax.scan(lambda u, _: (step(u, p), None), u, None, length=seg)
        return u
    cs = jax.checkpoint(segment)
    nseg = STEPS // seg
    u, _ = jax.lax.scan(lambda u, _: (cs(u), None), u, None, length=nseg)
    u, _ = jax.lax.scan(lambda u, _: (step(u, p), None), u, None, length=STEPS - nseg*seg)
    return jnp.sum(u**2)
rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 30
fns = {
  "forward": jax.jit(loss_full),
  "grad (full storage)": jax.jit(jax.value_and_grad(loss_full, argnums=(0, 1))),
  "grad checkpoint/step": jax.jit(jax.value_and_grad(loss_ckpt_step, argnums=(0, 1))),
  "grad checkpoint/32 steps": jax.jit(jax.value_and_grad(loss_ckpt_seg, argnums=(0, 1))),
}
for f in fns.values():
    jax.block_until_ready(f(u0, p0))
samples = {k: [] for k in fns}
names = list(fns)
for r in range(rounds):
    for j in range(len(names)):
        k = names[(r + j) % len(names)]
        t = time.perf_counter(); jax.block_until_ready(fns[k](u0, p0)); samples[k].append(time.perf_counter() - t)
v, (gu, gp) = fns["grad (full storage)"](u0, p0)
print(f"value {float(v)!r} gp {float(gp[0])!r} {float(gp[1])!r} gu0 {float(gu[0])!r}")
for k in names:
    s = sorted(samples[k]); print(f"| jax {k:<26} | min {s[0]:.6f} | median {statistics.median(s):.6f} |")
