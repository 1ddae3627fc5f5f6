// The schedules suite's steppers (suites/schedules), store-all gradients by Enzyme.
//
// * Lorenz RK4 (nilang_apps::lorenz): state [x, y, z, rho], T steps of size H, loss the final
//   z; G = d z_T / d(x0, y0, z0, rho).
// * The PDE stepper (suites/schedules/pde.rs): u_t = nu u_xx - u^3 + f on a ring of C cells,
//   explicit Euler, `next = u + p0 (u[i+1] + u[i-1] - 2 u[i]) - 0.01 u^3 + p1`, loss sum(u^2)
//   of the final state; G = d loss / d(u0, p).
//
// Both by store-all written out: the forward run keeps every state (T + 1 rows), then one
// __enzyme_autodiff of the step per step backwards (a vjp: the step's primal recomputed from its
// stored row, its reverse seeded with the next state's adjoint; nothing cached, no tape). Inputs
// `const __restrict`; the PDE's ring ends apart, so the step's interior loop and its reverse
// vectorize (the wrapped-index version: about 4x slower gradient).
//
// __enzyme_autodiff of the whole time loop was tried first and dropped: with the state in local
// rows overwritten each step (two rows alternated by index, or one row updated in place) enzyme-ad
// 0.0.16 returned WRONG gradients from the second step on, without a warning (PDE: dp0 2.5e-5
// for 6.05e-2; Lorenz T=1000: dz/dx0 1.0429e-2 for 1.0125e-2), caught by the checks; with the
// rows copied each step it was right and, with the ring's ends apart, within noise of the
// store-all above (PDE standalone: 0.29-0.46 ms against 0.28-0.44 ms); the store-all caches
// nothing and copies no row.

constexpr double SIGMA = 10.0, BETA = 8.0 / 3.0, H = 1e-5;

static inline void lorenz_field(double *__restrict k, const double *__restrict s) {
  k[0] = SIGMA * (s[1] - s[0]);
  k[1] = s[0] * (s[3] - s[2]) - s[1];
  k[2] = s[0] * s[1] - BETA * s[2];
}

// One RK4 step y = Phi_H(x), the same operations in the same order as
// nilang_apps::lorenz::lorenz_rk4.
static void lorenz_step(const double *__restrict x, double *__restrict y) {
  double k[4][3], st[3][4];
  lorenz_field(k[0], x);
  for (int i = 0; i < 3; i++)
    st[0][i] = x[i] + k[0][i] * (H / 2.0);
  st[0][3] = x[3];
  lorenz_field(k[1], st[0]);
  for (int i = 0; i < 3; i++)
    st[1][i] = x[i] + k[1][i] * (H / 2.0);
  st[1][3] = x[3];
  lorenz_field(k[2], st[1]);
  for (int i = 0; i < 3; i++)
    st[2][i] = x[i] + k[2][i] * H;
  st[2][3] = x[3];
  lorenz_field(k[3], st[2]);
  for (int i = 0; i < 3; i++)
    y[i] = x[i] + k[0][i] * (H / 6.0) + k[1][i] * (H / 3.0) + k[2][i] * (H / 3.0) +
           k[3][i] * (H / 6.0);
  y[3] = x[3];
}

static double lorenz_z(const double *__restrict x0, long n) {
  double s[2][4] = {{x0[0], x0[1], x0[2], x0[3]}, {}};
  for (long t = 0; t < n; t++)
    lorenz_step(s[t & 1], s[(t + 1) & 1]);
  return s[n & 1][2];
}

extern "C" void *malloc(unsigned long);
extern "C" void free(void *);

// Store-all by hand: every state kept (T + 1 rows of `traj`), then one Enzyme vjp of the step
// per step backwards (each recomputes its step from the stored row; nothing cached).
static void lorenz_grad_stored(const double *__restrict x0, long n, double *__restrict g,
                               double *__restrict traj) {
  for (int i = 0; i < 4; i++)
    traj[i] = x0[i];
  for (long t = 0; t < n; t++)
    lorenz_step(traj + 4 * t, traj + 4 * (t + 1));
  double bar[2][4] = {}, y[4];
  bar[n & 1][2] = 1.0;
  for (long t = n - 1; t >= 0; t--) {
    double *xb = bar[t & 1], *yb = bar[(t + 1) & 1];
    for (int i = 0; i < 4; i++)
      xb[i] = 0.0;
    __enzyme_autodiff((void *)lorenz_step, enzyme_dup, traj + 4 * t, xb, enzyme_dupnoneed, y, yb);
  }
  for (int i = 0; i < 4; i++)
    g[i] = bar[0][i];
}

// Entry points (cpp_call): x0 (4), steps ([T]), reps.
void lorenz_objective(enzyme::tensor<double, 1> &out, enzyme::tensor<double, MAX_SAMPLES> &times,
                      const enzyme::tensor<double, 4> &x0, const enzyme::tensor<double, 1> &steps,
                      const enzyme::tensor<double, 2> &reps) {
  const long n = (long)steps[0];
  repeat(&reps[0], &times[0], [&] {
    out[0] = lorenz_z(opaque(&x0[0]), n);
    keep(&out[0]);
  });
}

void lorenz_gradient(enzyme::tensor<double, 4> &g, enzyme::tensor<double, MAX_SAMPLES> &times,
                     const enzyme::tensor<double, 4> &x0, const enzyme::tensor<double, 1> &steps,
                     const enzyme::tensor<double, 2> &reps) {
  const long n = (long)steps[0];
  double *traj = (double *)malloc(sizeof(double) * 4 * (n + 1));
  repeat(&reps[0], &times[0], [&] {
    lorenz_grad_stored(opaque(&x0[0]), n, &g[0], traj);
    keep(&g[0]);
  });
  free(traj);
}

// ---- the PDE stepper ----------------------------------------------------------------------------

static inline double pde_cell(double l, double c, double r, double p0, double p1) {
  return c + (l + r - 2.0 * c) * p0 - 0.01 * (c * c * c) + p1;
}

// the ring's two ends apart, so the interior loop (and its reverse) has no index wrap and
// vectorizes
template <long C>
static inline void pde_step(const double *__restrict u, double *__restrict v, double p0,
                            double p1) {
  v[0] = pde_cell(u[C - 1], u[0], u[1], p0, p1);
  for (long i = 1; i < C - 1; i++)
    v[i] = pde_cell(u[i - 1], u[i], u[i + 1], p0, p1);
  v[C - 1] = pde_cell(u[C - 2], u[C - 1], u[0], p0, p1);
}

// the objective (not differentiated: the gradient is pde_grad_stored below)
template <long C>
static double pde_loss(const double *__restrict u0, const double *__restrict p, long n) {
  double s[2][C];
  for (long i = 0; i < C; i++)
    s[0][i] = u0[i];
  for (long t = 0; t < n; t++)
    pde_step<C>(s[t & 1], s[(t + 1) & 1], p[0], p[1]);
  double r = 0.0;
  for (long i = 0; i < C; i++)
    r += s[n & 1][i] * s[n & 1][i];
  return r;
}

template <long C>
static void pde_step_p(const double *__restrict u, double *__restrict v,
                       const double *__restrict p) {
  pde_step<C>(u, v, p[0], p[1]);
}

// Store-all by hand: the forward run keeps every state (T + 1 rows of `traj`), then one Enzyme
// vjp per step backwards, each recomputing its step's primal from the stored row (no cache).
template <long C>
static void pde_grad_stored(const double *__restrict u0, const double *__restrict p, long n,
                            double *__restrict gu, double *__restrict gp,
                            double *__restrict traj) {
  for (long i = 0; i < C; i++)
    traj[i] = u0[i];
  for (long t = 0; t < n; t++)
    pde_step<C>(traj + t * C, traj + (t + 1) * C, p[0], p[1]);
  double bar[2][C], v[C];
  const double *u = traj + n * C;
  for (long i = 0; i < C; i++)
    bar[n & 1][i] = 2.0 * u[i];
  for (long t = n - 1; t >= 0; t--) {
    double *ub = bar[t & 1], *vb = bar[(t + 1) & 1];
    for (long i = 0; i < C; i++)
      ub[i] = 0.0;
    __enzyme_autodiff((void *)pde_step_p<C>, enzyme_dup, traj + t * C, ub, enzyme_dupnoneed, v,
                      vb, enzyme_dup, p, gp);
  }
  for (long i = 0; i < C; i++)
    gu[i] = bar[0][i];
}

// Entry points: u0 (C), p (2), steps ([T]), reps; G = [du0 | dp].
template <std::size_t C>
void pde_objective(enzyme::tensor<double, 1> &out, enzyme::tensor<double, MAX_SAMPLES> &times,
                   const enzyme::tensor<double, C> &u0, const enzyme::tensor<double, 2> &p,
                   const enzyme::tensor<double, 1> &steps, const enzyme::tensor<double, 2> &reps) {
  const long n = (long)steps[0];
  repeat(&reps[0], &times[0], [&] {
    out[0] = pde_loss<C>(opaque(&u0[0]), opaque(&p[0]), n);
    keep(&out[0]);
  });
}

template <std::size_t C>
void pde_gradient(enzyme::tensor<double, C + 2> &g,
                         enzyme::tensor<double, MAX_SAMPLES> &times,
                         const enzyme::tensor<double, C> &u0, const enzyme::tensor<double, 2> &p,
                         const enzyme::tensor<double, 1> &steps,
                         const enzyme::tensor<double, 2> &reps) {
  const long n = (long)steps[0];
  double *traj = (double *)malloc(sizeof(double) * C * (n + 1));
  repeat(&reps[0], &times[0], [&] {
    g[C] = g[C + 1] = 0.0;
    pde_grad_stored<C>(opaque(&u0[0]), opaque(&p[0]), n, &g[0], &g[C], traj);
    keep(&g[0]);
  });
  free(traj);
}
