// GMM (ADBench; shared/data/adbench/README.md): the negative log-posterior of a Gaussian
// mixture with a Wishart prior, and its gradient by Enzyme's reverse mode.
//
// Sizes are template parameters (deduced from the tensor shapes, as XLA specialises the JAX
// peer on them), so the loops have constant trip counts. Q_k (x_i - mu_k) is formed row by
// row straight from the read-only inputs (x_i - mu_k recomputed, no scratch array): Enzyme
// then caches no temporaries in the point loop, only the K log-sum-exp terms per point it
// needs in reverse. All pointers are __restrict and the inputs const (Enzyme's alias
// analysis then knows they are not overwritten, so it reads them again instead of caching).

template <long K, long D, long N>
static void gmm_objective(const double *__restrict alpha, const double *__restrict mu,
                          const double *__restrict icf, const double *__restrict x,
                          const double *__restrict sc, double *__restrict out) {
  constexpr long IL = D * (D + 1) / 2;
  const double gamma = sc[0], m = sc[1], constant = sc[2];
  double qdiag[K * D], sumq[K];
  for (long c = 0; c < K; c++) {
    double s = 0.0;
    for (long r = 0; r < D; r++) {
      const double q = icf[c * IL + r];
      qdiag[c * D + r] = __builtin_exp(q);
      s += q;
    }
    sumq[c] = s;
  }
  double slse = 0.0;
  for (long i = 0; i < N; i++) {
    const double *__restrict xi = x + i * D;
    double main[K];
    double mx = -__builtin_inf();
    for (long c = 0; c < K; c++) {
      const double *__restrict muc = mu + c * D;
      const double *__restrict l = icf + c * IL + D;
      double sq = 0.0;
      for (long r = 0; r < D; r++) {
        // Row r of Q_k (x_i - mu_k): l_k is packed column by column, so L[r][col] sits at
        // col (D - 1) - col (col - 1) / 2 + r - col - 1.
        double qx = qdiag[c * D + r] * (xi[r] - muc[r]);
        for (long col = 0; col < r; col++)
          qx += l[col * (D - 1) - col * (col - 1) / 2 + r - col - 1] * (xi[col] - muc[col]);
        sq += qx * qx;
      }
      const double v = alpha[c] + sumq[c] - 0.5 * sq;
      main[c] = v;
      mx = v > mx ? v : mx;
    }
    double s = 0.0;
    for (long c = 0; c < K; c++)
      s += __builtin_exp(main[c] - mx);
    slse += __builtin_log(s) + mx;
  }
  double amx = -__builtin_inf();
  for (long c = 0; c < K; c++)
    amx = alpha[c] > amx ? alpha[c] : amx;
  double as = 0.0;
  for (long c = 0; c < K; c++)
    as += __builtin_exp(alpha[c] - amx);
  const double lse_alpha = __builtin_log(as) + amx;
  double prior = 0.0;
  for (long c = 0; c < K; c++) {
    double f = 0.0;
    for (long r = 0; r < D; r++)
      f += qdiag[c * D + r] * qdiag[c * D + r];
    for (long j = D; j < IL; j++)
      f += icf[c * IL + j] * icf[c * IL + j];
    prior += 0.5 * gamma * gamma * f - m * sumq[c];
  }
  out[0] = constant + slse - (double)N * lse_alpha + prior;
}

// Entry points (cpp_call): flat tensors alpha (K), mu (K*D), icf (K*IL), x (N*D),
// sc = [gamma, m, constant], reps = [repetitions].
template <std::size_t K, std::size_t KD, std::size_t KIL, std::size_t ND>
void objective(enzyme::tensor<double, 1> &out,
              enzyme::tensor<double, MAX_SAMPLES> &times, const enzyme::tensor<double, K> &alpha,
               const enzyme::tensor<double, KD> &mu, const enzyme::tensor<double, KIL> &icf,
               const enzyme::tensor<double, ND> &x, const enzyme::tensor<double, 3> &sc,
               const enzyme::tensor<double, 2> &reps) {
  constexpr long D = KD / K, N = ND / D;
  repeat(&reps[0], &times[0], [&] {
    gmm_objective<K, D, N>(opaque(&alpha[0]), opaque(&mu[0]), opaque(&icf[0]), opaque(&x[0]),
                           &sc[0], &out[0]);
    keep(&out[0]);
  });
}

template <std::size_t P, std::size_t K, std::size_t KD, std::size_t KIL, std::size_t ND>
void gradient(enzyme::tensor<double, P> &g,
              enzyme::tensor<double, MAX_SAMPLES> &times, const enzyme::tensor<double, K> &alpha,
              const enzyme::tensor<double, KD> &mu, const enzyme::tensor<double, KIL> &icf,
              const enzyme::tensor<double, ND> &x, const enzyme::tensor<double, 3> &sc,
              const enzyme::tensor<double, 2> &reps) {
  constexpr long D = KD / K, N = ND / D;
  double *gp = &g[0];
  repeat(&reps[0], &times[0], [&] {
    for (long i = 0; i < (long)P; i++)
      gp[i] = 0.0;
    double f = 0.0, df = 1.0;
    __enzyme_autodiff((void *)gmm_objective<K, D, N>, enzyme_dup, opaque(&alpha[0]), gp,
                      enzyme_dup, opaque(&mu[0]), gp + K, enzyme_dup, opaque(&icf[0]),
                      gp + K + KD, enzyme_const, opaque(&x[0]), enzyme_const, &sc[0],
                      enzyme_dupnoneed, &f, &df);
    keep(gp);
  });
}
