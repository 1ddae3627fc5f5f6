// Bessel J_nu(z) by the truncated series of the paper (stop after the first |term| <= atol,
// that term included), on one input or a batch; G = dJ/dz by Enzyme's forward mode
// (__enzyme_fwddiff: one input and one output, a value-dependent trip count; forward mode
// needs no cache of the loop's iterations, which reverse mode would have to store).

static double besselj(double z, long nu, double atol) {
  const double hz = 0.5 * z;
  double p = 1.0, fact = 1.0;
  for (long i = 1; i <= nu; i++) {
    p *= hz;
    fact *= (double)i;
  }
  double s = p / fact, out = s;
  const double hz2 = hz * hz;
  for (long k = 1; __builtin_fabs(s) > atol; k++) {
    s *= (-1.0 / (double)k / (double)(k + nu)) * hz2;
    out += s;
  }
  return out;
}

// Entry points (cpp_call): z (the inputs), sc = [nu, atol], reps = [repetitions].
template <std::size_t B>
void objective(enzyme::tensor<double, B> &out,
              enzyme::tensor<double, MAX_SAMPLES> &times, const enzyme::tensor<double, B> &z,
               const enzyme::tensor<double, 2> &sc, const enzyme::tensor<double, 2> &reps) {
  const long nu = (long)sc[0];
  const double atol = sc[1];
  repeat(&reps[0], &times[0], [&] {
    const double *zs = opaque(&z[0]);
    for (long i = 0; i < (long)B; i++)
      out[i] = besselj(zs[i], nu, atol);
    keep(&out[0]);
  });
}

template <std::size_t B>
void gradient(enzyme::tensor<double, B> &out,
              enzyme::tensor<double, MAX_SAMPLES> &times, const enzyme::tensor<double, B> &z,
              const enzyme::tensor<double, 2> &sc, const enzyme::tensor<double, 2> &reps) {
  const long nu = (long)sc[0];
  const double atol = sc[1];
  repeat(&reps[0], &times[0], [&] {
    const double *zs = opaque(&z[0]);
    for (long i = 0; i < (long)B; i++)
      out[i] = __enzyme_fwddiff((void *)besselj, enzyme_dup, zs[i], 1.0, enzyme_const, nu,
                                enzyme_const, atol);
    keep(&out[0]);
  });
}
