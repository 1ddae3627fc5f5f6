// Table 2, sparse (suites/sparse): tr(AᵀB) of two real CSC matrices and the complex y = A x,
// and their backward passes by Enzyme's reverse mode. The CSC index arrays come in as doubles
// (the peer protocol carries f64 only) and are converted to int once per case, outside the
// timed repetitions (our Rust cells hold them as usize likewise).
//
// Written for Enzyme: the values are `const __restrict` inputs that the differentiated code only
// reads, so the reverse pass re-reads them instead of caching them; the integer pattern work is
// inactive. dot: the scatter–gather of the plain objective (rust-O) scatters *positions* of B's
// entries into an int work vector, so the differentiated product a[p] * b[q] reads two inputs
// and nothing active is overwritten (a value work vector would make Enzyme cache every
// gathered value). mul!: y is a `dupnoneed` output whose shadow is seeded with ȳ, so the
// reverse pass is x̄ += Aᴴȳ, Ā += ȳ x̄ᴴ with no cache at all.
//
// B by Enzyme is a whole __enzyme_autodiff call: its forward sweep (the objective) and its
// reverse sweep, and the zeroing of the shadows it accumulates into (Enzyme's convention).

template <std::size_t N> static const int *as_int(const double *v, int *buf) {
  for (long i = 0; i < (long)N; i++)
    buf[i] = (int)v[i];
  return buf;
}

// ---- dot ---------------------------------------------------------------------------------------

// the plain objective (rust-O's algorithm: scatter B's column into w, gather at A's rows)
static double dot_scatter(long n, const int *__restrict acp, const int *__restrict ari,
                          const double *__restrict av, const int *__restrict bcp,
                          const int *__restrict bri, const double *__restrict bv,
                          double *__restrict w) {
  double r = 0.0;
  for (long j = 0; j < n; j++) {
    for (int q = bcp[j]; q < bcp[j + 1]; q++)
      w[bri[q]] = bv[q];
    for (int p = acp[j]; p < acp[j + 1]; p++)
      r += av[p] * w[ari[p]];
    for (int q = bcp[j]; q < bcp[j + 1]; q++)
      w[bri[q]] = 0.0;
  }
  return r;
}

// the differentiated form: pos holds 1 + B's value index at B's rows of column j (0 elsewhere)
static double dot_pos(long n, const int *__restrict acp, const int *__restrict ari,
                      const double *__restrict av, const int *__restrict bcp,
                      const int *__restrict bri, const double *__restrict bv,
                      int *__restrict pos) {
  double r = 0.0;
  for (long j = 0; j < n; j++) {
    for (int q = bcp[j]; q < bcp[j + 1]; q++)
      pos[bri[q]] = q + 1;
    for (int p = acp[j]; p < acp[j + 1]; p++) {
      const int q = pos[ari[p]];
      if (q)
        r += av[p] * bv[q - 1];
    }
    for (int q = bcp[j]; q < bcp[j + 1]; q++)
      pos[bri[q]] = 0;
  }
  return r;
}

// Entry points (cpp_call): A (colptr, rowval, values), B (colptr, rowval, values), a zero
// vector of length m (the work vector's size), reps.
template <std::size_t N1, std::size_t NA, std::size_t NB, std::size_t M>
void dot_objective(enzyme::tensor<double, 1> &out, enzyme::tensor<double, MAX_SAMPLES> &times,
                   const enzyme::tensor<double, N1> &acp, const enzyme::tensor<double, NA> &ari,
                   const enzyme::tensor<double, NA> &av, const enzyme::tensor<double, N1> &bcp,
                   const enzyme::tensor<double, NB> &bri, const enzyme::tensor<double, NB> &bv,
                   const enzyme::tensor<double, M> &, const enzyme::tensor<double, 2> &reps) {
  static int iacp[N1], iari[NA], ibcp[N1], ibri[NB];
  static double w[M];
  as_int<N1>(&acp[0], iacp), as_int<NA>(&ari[0], iari);
  as_int<N1>(&bcp[0], ibcp), as_int<NB>(&bri[0], ibri);
  for (long i = 0; i < (long)M; i++)
    w[i] = 0.0;
  repeat(&reps[0], &times[0], [&] {
    out[0] = dot_scatter(N1 - 1, opaque(iacp), opaque(iari), opaque(&av[0]), opaque(ibcp),
                         opaque(ibri), opaque(&bv[0]), w);
    keep(&out[0]);
  });
}

// B: [Ā values | B̄ values] for the output adjoint 1.
template <std::size_t N1, std::size_t NA, std::size_t NB, std::size_t M>
void dot_backward(enzyme::tensor<double, NA + NB> &out,
                  enzyme::tensor<double, MAX_SAMPLES> &times, const enzyme::tensor<double, N1> &acp,
                  const enzyme::tensor<double, NA> &ari, const enzyme::tensor<double, NA> &av,
                  const enzyme::tensor<double, N1> &bcp, const enzyme::tensor<double, NB> &bri,
                  const enzyme::tensor<double, NB> &bv, const enzyme::tensor<double, M> &,
                  const enzyme::tensor<double, 2> &reps) {
  static int iacp[N1], iari[NA], ibcp[N1], ibri[NB], pos[M];
  as_int<N1>(&acp[0], iacp), as_int<NA>(&ari[0], iari);
  as_int<N1>(&bcp[0], ibcp), as_int<NB>(&bri[0], ibri);
  for (long i = 0; i < (long)M; i++)
    pos[i] = 0;
  repeat(&reps[0], &times[0], [&] {
    double *ga = &out[0], *gb = &out[NA];
    for (long i = 0; i < (long)(NA + NB); i++)
      ga[i] = 0.0;
    __enzyme_autodiff((void *)dot_pos, enzyme_const, (long)(N1 - 1), enzyme_const, opaque(iacp),
                      enzyme_const, opaque(iari), enzyme_dup, opaque(&av[0]), ga, enzyme_const,
                      opaque(ibcp), enzyme_const, opaque(ibri), enzyme_dup, opaque(&bv[0]), gb,
                      enzyme_const, pos);
    keep(&out[0]);
  });
}

// ---- mul! --------------------------------------------------------------------------------------

// y = A x, complex, values interleaved (re, im)
static void matvec(long n, long m, const int *__restrict cp, const int *__restrict ri,
                   const double *__restrict a, const double *__restrict x, double *__restrict y) {
  for (long i = 0; i < 2 * m; i++)
    y[i] = 0.0;
  for (long j = 0; j < n; j++) {
    const double xr = x[2 * j], xi = x[2 * j + 1];
    for (int p = cp[j]; p < cp[j + 1]; p++) {
      const double ar = a[2 * p], ai = a[2 * p + 1];
      const int i = ri[p];
      y[2 * i] += ar * xr - ai * xi;
      y[2 * i + 1] += ar * xi + ai * xr;
    }
  }
}

// Entry points: A (colptr, rowval, values re/im), x (re/im), ȳ (re/im), reps.
template <std::size_t N1, std::size_t NZ, std::size_t N2, std::size_t M2>
void matvec_objective(enzyme::tensor<double, M2> &y, enzyme::tensor<double, MAX_SAMPLES> &times,
                      const enzyme::tensor<double, N1> &cp, const enzyme::tensor<double, NZ> &ri,
                      const enzyme::tensor<double, 2 * NZ> &a, const enzyme::tensor<double, N2> &x,
                      const enzyme::tensor<double, M2> &, const enzyme::tensor<double, 2> &reps) {
  static int icp[N1], iri[NZ];
  as_int<N1>(&cp[0], icp), as_int<NZ>(&ri[0], iri);
  repeat(&reps[0], &times[0], [&] {
    matvec(N1 - 1, M2 / 2, opaque(icp), opaque(iri), opaque(&a[0]), opaque(&x[0]), &y[0]);
    keep(&y[0]);
  });
}

// B for the output adjoint ȳ: [x̄ (re, im) | Ā (re, im)] (gradients of Re Σ conj(ȳ) y).
template <std::size_t N1, std::size_t NZ, std::size_t N2, std::size_t M2>
void matvec_backward(enzyme::tensor<double, N2 + 2 * NZ> &out,
                     enzyme::tensor<double, MAX_SAMPLES> &times, const enzyme::tensor<double, N1> &cp,
                     const enzyme::tensor<double, NZ> &ri, const enzyme::tensor<double, 2 * NZ> &a,
                     const enzyme::tensor<double, N2> &x, const enzyme::tensor<double, M2> &ybar,
                     const enzyme::tensor<double, 2> &reps) {
  static int icp[N1], iri[NZ];
  static double y[M2], dy[M2];
  as_int<N1>(&cp[0], icp), as_int<NZ>(&ri[0], iri);
  repeat(&reps[0], &times[0], [&] {
    double *dx = &out[0], *da = &out[N2];
    for (long i = 0; i < (long)(N2 + 2 * NZ); i++)
      dx[i] = 0.0;
    const double *yb = opaque(&ybar[0]);
    for (long i = 0; i < (long)M2; i++)
      dy[i] = yb[i]; // the seed (Enzyme zeroes the output's shadow on the way back)
    __enzyme_autodiff((void *)matvec, enzyme_const, (long)(N1 - 1), enzyme_const, (long)(M2 / 2),
                      enzyme_const, opaque(icp), enzyme_const, opaque(iri), enzyme_dup,
                      opaque(&a[0]), da, enzyme_dup, opaque(&x[0]), dx, enzyme_dupnoneed, y, dy);
    keep(&out[0]);
  });
}
