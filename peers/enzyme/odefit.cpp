// ODE parameter fit (nilang_bench::suites::odefit): Lotka-Volterra x' = a x - b x y,
// y' = c x y - d y, classical RK4 with step dt from (x0, y0); theta = (a, b, c, d, x0, y0);
// L = sum_j |u(t_j) - o_j|^2 over the M observations o_j (interleaved x, y), one every
// `every` steps; G = dL/dtheta by Enzyme's reverse mode on the whole loss.
//
// The state in two scalars, the RK4 stages in locals; M is a template parameter, `every` and
// dt are run-time constants. Enzyme caches what its reverse pass needs of the trajectory.

static inline void lv_rhs(const double *__restrict p, double x, double y, double *k) {
  const double xy = x * y;
  k[0] = p[0] * x - p[1] * xy;
  k[1] = p[2] * xy - p[3] * y;
}

static inline void lv_rk4(const double *__restrict p, double dt, double *u) {
  double k1[2], k2[2], k3[2], k4[2];
  lv_rhs(p, u[0], u[1], k1);
  lv_rhs(p, u[0] + 0.5 * dt * k1[0], u[1] + 0.5 * dt * k1[1], k2);
  lv_rhs(p, u[0] + 0.5 * dt * k2[0], u[1] + 0.5 * dt * k2[1], k3);
  lv_rhs(p, u[0] + dt * k3[0], u[1] + dt * k3[1], k4);
  const double h6 = dt / 6.0, h3 = dt / 3.0;
  u[0] = u[0] + h6 * k1[0] + h3 * k2[0] + h3 * k3[0] + h6 * k4[0];
  u[1] = u[1] + h6 * k1[1] + h3 * k2[1] + h3 * k3[1] + h6 * k4[1];
}

template <long M>
static double odefit_loss(const double *__restrict theta, const double *__restrict obs, double dt,
                          long every) {
  double u[2] = {theta[4], theta[5]};
  double l = 0.0;
  for (long j = 0; j < M; j++) {
    for (long s = 0; s < every; s++)
      lv_rk4(theta, dt, u);
    const double dx = u[0] - obs[2 * j], dy = u[1] - obs[2 * j + 1];
    l += dx * dx + dy * dy;
  }
  return l;
}

// Entry points (cpp_call): theta (6), obs (2M), sc = [dt, every], reps.
template <std::size_t O>
void objective(enzyme::tensor<double, 1> &out, enzyme::tensor<double, MAX_SAMPLES> &times,
               const enzyme::tensor<double, 6> &theta, const enzyme::tensor<double, O> &obs,
               const enzyme::tensor<double, 2> &sc, const enzyme::tensor<double, 2> &reps) {
  static_assert(O % 2 == 0, "shapes");
  const double dt = sc[0];
  const long every = (long)sc[1];
  repeat(&reps[0], &times[0], [&] {
    out[0] = odefit_loss<O / 2>(opaque(&theta[0]), opaque(&obs[0]), dt, every);
    keep(&out[0]);
  });
}

template <std::size_t O>
void gradient(enzyme::tensor<double, 6> &g, enzyme::tensor<double, MAX_SAMPLES> &times,
              const enzyme::tensor<double, 6> &theta, const enzyme::tensor<double, O> &obs,
              const enzyme::tensor<double, 2> &sc, const enzyme::tensor<double, 2> &reps) {
  static_assert(O % 2 == 0, "shapes");
  const double dt = sc[0];
  const long every = (long)sc[1];
  double *gp = &g[0];
  repeat(&reps[0], &times[0], [&] {
    for (long i = 0; i < 6; i++)
      gp[i] = 0.0;
    __enzyme_autodiff((void *)odefit_loss<O / 2>, enzyme_dup, opaque(&theta[0]), gp, enzyme_const,
                      opaque(&obs[0]), enzyme_const, dt, enzyme_const, every);
    keep(gp);
  });
}
