// MLP (nilang_bench::suites::mlp): 16 -> 32 tanh -> 1 over a batch of B samples, squared error
// summed, L = sum_b (tanh(x_b W1 + b1) W2 + b2 - t_b)^2; p = [W1 (16x32, row-major) | b1 (32) |
// W2 (32) | b2 (1)]; G = dL/dp by Enzyme's reverse mode.
//
// One sample at a time: the 32 hidden pre-activations in a local array, accumulated row by row
// of W1 (the inner loop runs over the 32 hidden units, contiguous in W1, so it vectorises), then
// tanh (mlp_tanh) and the output dot product. The sizes are template parameters (constant trip
// counts); the pointers are __restrict and the inputs const, so Enzyme re-reads x, W1 and W2 in
// reverse and caches only what tanh's derivative needs (32 numbers per sample).

constexpr long MLP_IN = 16, MLP_HIDDEN = 32;

// tanh by one exp: tanh |a| = (1 - e) / (1 + e), e = exp(-2 |a|) in (0, 1] (no overflow, and
// Enzyme's derivative reuses e). glibc's tanh is the old fdlibm code (through expm1) while its
// exp is the fast one: this form runs the objective and Enzyme's gradient about 2x faster than
// __builtin_tanh at B = 4096. Its error is ~1e-16 absolute (relative only near a = 0, where
// the term is itself ~a).
static inline double mlp_tanh(double a) {
  const double e = __builtin_exp(-2.0 * __builtin_fabs(a));
  const double t = (1.0 - e) / (1.0 + e);
  return a < 0.0 ? -t : t;
}

template <long B>
static double mlp_loss(const double *__restrict p, const double *__restrict x,
                       const double *__restrict t) {
  const double *__restrict w1 = p;
  const double *__restrict b1 = p + MLP_IN * MLP_HIDDEN;
  const double *__restrict w2 = b1 + MLP_HIDDEN;
  const double b2 = w2[MLP_HIDDEN];
  double loss = 0.0;
  for (long b = 0; b < B; b++) {
    const double *__restrict xb = x + b * MLP_IN;
    double a[MLP_HIDDEN];
    for (long h = 0; h < MLP_HIDDEN; h++)
      a[h] = b1[h];
    for (long i = 0; i < MLP_IN; i++) {
      const double xi = xb[i];
      for (long h = 0; h < MLP_HIDDEN; h++)
        a[h] += xi * w1[i * MLP_HIDDEN + h];
    }
    double z = b2;
    for (long h = 0; h < MLP_HIDDEN; h++)
      z += mlp_tanh(a[h]) * w2[h];
    const double r = z - t[b];
    loss += r * r;
  }
  return loss;
}

// Entry points (cpp_call): p (577), x (B*16), t (B), reps = [repetitions, samples].
template <std::size_t P, std::size_t BI, std::size_t B>
void objective(enzyme::tensor<double, 1> &out, enzyme::tensor<double, MAX_SAMPLES> &times,
               const enzyme::tensor<double, P> &p, const enzyme::tensor<double, BI> &x,
               const enzyme::tensor<double, B> &t, const enzyme::tensor<double, 2> &reps) {
  static_assert(P == MLP_IN * MLP_HIDDEN + 2 * MLP_HIDDEN + 1 && BI == B * MLP_IN, "shapes");
  repeat(&reps[0], &times[0], [&] {
    out[0] = mlp_loss<B>(opaque(&p[0]), opaque(&x[0]), opaque(&t[0]));
    keep(&out[0]);
  });
}

template <std::size_t P, std::size_t BI, std::size_t B>
void gradient(enzyme::tensor<double, P> &g, enzyme::tensor<double, MAX_SAMPLES> &times,
              const enzyme::tensor<double, P> &p, const enzyme::tensor<double, BI> &x,
              const enzyme::tensor<double, B> &t, const enzyme::tensor<double, 2> &reps) {
  static_assert(P == MLP_IN * MLP_HIDDEN + 2 * MLP_HIDDEN + 1 && BI == B * MLP_IN, "shapes");
  double *gp = &g[0];
  repeat(&reps[0], &times[0], [&] {
    for (long i = 0; i < (long)P; i++)
      gp[i] = 0.0;
    __enzyme_autodiff((void *)mlp_loss<B>, enzyme_dup, opaque(&p[0]), gp, enzyme_const,
                      opaque(&x[0]), enzyme_const, opaque(&t[0]));
    keep(gp);
  });
}
