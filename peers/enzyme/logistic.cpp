// Logistic regression (nilang_bench::suites::logistic): w = 16 weights then the bias, x
// row-major n x 16, y in {0, 1}; L = sum_s ln(1 + exp(z_s)) - y_s z_s, z_s = x_s . w + b;
// G = dL/dw by Enzyme's reverse mode.
//
// One pass over the samples, z in a scalar (the 16-term dot product unrolled: constant trip
// count). n is a template parameter; x and y are const and __restrict, so Enzyme re-reads them
// in reverse and caches at most z (or exp(z)) per sample.

constexpr long LOGISTIC_D = 16;

template <long N>
static double logistic_nll(const double *__restrict w, const double *__restrict x,
                           const double *__restrict y) {
  double l = 0.0;
  for (long s = 0; s < N; s++) {
    const double *__restrict xs = x + s * LOGISTIC_D;
    double z = w[LOGISTIC_D];
    for (long k = 0; k < LOGISTIC_D; k++)
      z += w[k] * xs[k];
    l += __builtin_log1p(__builtin_exp(z)) - y[s] * z;
  }
  return l;
}

// Entry points (cpp_call): w (17), x (16n), y (n), reps = [repetitions, samples].
template <std::size_t W, std::size_t ND, std::size_t N>
void objective(enzyme::tensor<double, 1> &out, enzyme::tensor<double, MAX_SAMPLES> &times,
               const enzyme::tensor<double, W> &w, const enzyme::tensor<double, ND> &x,
               const enzyme::tensor<double, N> &y, const enzyme::tensor<double, 2> &reps) {
  static_assert(W == LOGISTIC_D + 1 && ND == N * LOGISTIC_D, "shapes");
  repeat(&reps[0], &times[0], [&] {
    out[0] = logistic_nll<N>(opaque(&w[0]), opaque(&x[0]), opaque(&y[0]));
    keep(&out[0]);
  });
}

template <std::size_t W, std::size_t ND, std::size_t N>
void gradient(enzyme::tensor<double, W> &g, enzyme::tensor<double, MAX_SAMPLES> &times,
              const enzyme::tensor<double, W> &w, const enzyme::tensor<double, ND> &x,
              const enzyme::tensor<double, N> &y, const enzyme::tensor<double, 2> &reps) {
  static_assert(W == LOGISTIC_D + 1 && ND == N * LOGISTIC_D, "shapes");
  double *gp = &g[0];
  repeat(&reps[0], &times[0], [&] {
    for (long i = 0; i < (long)W; i++)
      gp[i] = 0.0;
    __enzyme_autodiff((void *)logistic_nll<N>, enzyme_dup, opaque(&w[0]), gp, enzyme_const,
                      opaque(&x[0]), enzyme_const, opaque(&y[0]));
    keep(gp);
  });
}
