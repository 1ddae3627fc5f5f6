// Pairwise potential (nilang_bench::suites::pairwise): N points in 3-D (x[3 i + c]), softened
// Lennard-Jones over the pairs i < j, u = 1 / (1 + |x_i - x_j|^2), E = sum u^6 - u^3; G = dE/dx
// by Enzyme's reverse mode.
//
// The plain double loop over i < j, the row's energy in a scalar and x_i in registers. N is a
// template parameter (constant trip counts); x is const and __restrict, so Enzyme may recompute
// the differences from x in reverse instead of caching N^2/2 values.

template <long N> static double pairwise_energy(const double *__restrict x) {
  double e = 0.0;
  for (long i = 0; i < N; i++) {
    const double xi = x[3 * i], yi = x[3 * i + 1], zi = x[3 * i + 2];
    double ei = 0.0;
    for (long j = i + 1; j < N; j++) {
      const double dx = xi - x[3 * j], dy = yi - x[3 * j + 1], dz = zi - x[3 * j + 2];
      const double u = 1.0 / (1.0 + dx * dx + dy * dy + dz * dz);
      const double u3 = u * u * u;
      ei += u3 * u3 - u3;
    }
    e += ei;
  }
  return e;
}

// Entry points (cpp_call): x (3N), reps = [repetitions, samples].
template <std::size_t X>
void objective(enzyme::tensor<double, 1> &out, enzyme::tensor<double, MAX_SAMPLES> &times,
               const enzyme::tensor<double, X> &x, const enzyme::tensor<double, 2> &reps) {
  static_assert(X % 3 == 0, "3 coordinates a point");
  repeat(&reps[0], &times[0], [&] {
    out[0] = pairwise_energy<X / 3>(opaque(&x[0]));
    keep(&out[0]);
  });
}

template <std::size_t X>
void gradient(enzyme::tensor<double, X> &g, enzyme::tensor<double, MAX_SAMPLES> &times,
              const enzyme::tensor<double, X> &x, const enzyme::tensor<double, 2> &reps) {
  static_assert(X % 3 == 0, "3 coordinates a point");
  double *gp = &g[0];
  repeat(&reps[0], &times[0], [&] {
    for (long i = 0; i < (long)X; i++)
      gp[i] = 0.0;
    __enzyme_autodiff((void *)pairwise_energy<X / 3>, enzyme_dup, opaque(&x[0]), gp);
    keep(gp);
  });
}
