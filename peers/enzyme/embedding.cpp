// Petersen graph embedding (nilang_apps::embedding): x in vec order (vertex k + coordinate),
// loss = var(d_E) + var(d_N) + exp(relu(mean(d_E) - mean(d_N) + 0.1)) - 1 (sample variances).
// G by reverse mode; H by forward-over-reverse (Enzyme's recommended Hessian: __enzyme_fwddiff
// of the reverse-mode gradient, Hessian rows written in place as the tangent outputs).
// The dimension is a template parameter, so the 45 distances live in fixed local arrays.

template <long K> static double emb_dist(const double *__restrict x, long i, long j) {
  double s = 0.0;
  for (long c = 0; c < K; c++) {
    const double d = x[i * K + c] - x[j * K + c];
    s += d * d;
  }
  return __builtin_sqrt(s);
}

template <long K>
static double emb_loss(const double *__restrict x, const double *__restrict edges,
                       const double *__restrict non_edges) {
  double de[15], dn[30];
  double me = 0.0, mn = 0.0;
  for (long e = 0; e < 15; e++) {
    de[e] = emb_dist<K>(x, (long)edges[2 * e], (long)edges[2 * e + 1]);
    me += de[e];
  }
  for (long e = 0; e < 30; e++) {
    dn[e] = emb_dist<K>(x, (long)non_edges[2 * e], (long)non_edges[2 * e + 1]);
    mn += dn[e];
  }
  me /= 15.0;
  mn /= 30.0;
  double ve = 0.0, vn = 0.0;
  for (long e = 0; e < 15; e++)
    ve += (de[e] - me) * (de[e] - me);
  for (long e = 0; e < 30; e++)
    vn += (dn[e] - mn) * (dn[e] - mn);
  const double gap = me - mn + 0.1;
  const double relu = gap > 0.0 ? gap : 0.0;
  return ve / 14.0 + vn / 29.0 + __builtin_exp(relu) - 1.0;
}

template <long K>
static void emb_grad(const double *__restrict x, double *__restrict g,
                     const double *__restrict edges, const double *__restrict non_edges) {
  for (long i = 0; i < 10 * K; i++)
    g[i] = 0.0;
  __enzyme_autodiff((void *)emb_loss<K>, enzyme_dup, x, g, enzyme_const, edges, enzyme_const,
                    non_edges);
}

// Entry points (cpp_call): x (10k), edges (30), non_edges (60), reps = [repetitions].
template <std::size_t N>
void objective(enzyme::tensor<double, 1> &out,
              enzyme::tensor<double, MAX_SAMPLES> &times, const enzyme::tensor<double, N> &x,
               const enzyme::tensor<double, 30> &edges,
               const enzyme::tensor<double, 60> &non_edges,
               const enzyme::tensor<double, 2> &reps) {
  repeat(&reps[0], &times[0], [&] {
    out[0] = emb_loss<N / 10>(opaque(&x[0]), opaque(&edges[0]), opaque(&non_edges[0]));
    keep(&out[0]);
  });
}

template <std::size_t N>
void gradient(enzyme::tensor<double, N> &g,
              enzyme::tensor<double, MAX_SAMPLES> &times, const enzyme::tensor<double, N> &x,
              const enzyme::tensor<double, 30> &edges,
              const enzyme::tensor<double, 60> &non_edges,
              const enzyme::tensor<double, 2> &reps) {
  repeat(&reps[0], &times[0], [&] {
    emb_grad<N / 10>(opaque(&x[0]), &g[0], opaque(&edges[0]), opaque(&non_edges[0]));
    keep(&g[0]);
  });
}

// H by W Hessian rows per forward-over-reverse call (Enzyme's vector forward mode,
// enzyme_width W: the gradient's primal and reverse sweep run once for W tangents).
template <std::size_t NN, std::size_t N>
void hessian(enzyme::tensor<double, NN> &h,
              enzyme::tensor<double, MAX_SAMPLES> &times, const enzyme::tensor<double, N> &x,
             const enzyme::tensor<double, 30> &edges, const enzyme::tensor<double, 60> &non_edges,
             const enzyme::tensor<double, 2> &reps) {
  constexpr long W = 10;
  static_assert(N % W == 0, "the width divides 10k");
  const long stride = (long)(N * sizeof(double));
  double g[N], dir[W * N];
  for (long i = 0; i < W * (long)N; i++)
    dir[i] = 0.0;
  repeat(&reps[0], &times[0], [&] {
    const double *xs = opaque(&x[0]), *es = opaque(&edges[0]), *ns = opaque(&non_edges[0]);
    for (long j = 0; j < (long)N; j += W) {
      for (long w = 0; w < W; w++)
        dir[w * N + j + w] = 1.0;
      __enzyme_fwddiff_void((void *)emb_grad<N / 10>, enzyme_width, W, enzyme_dupv, stride, xs,
                            dir, enzyme_dupnoneedv, stride, g, &h[j * N], enzyme_const, es,
                            enzyme_const, ns);
      for (long w = 0; w < W; w++)
        dir[w * N + j + w] = 0.0;
    }
    keep(&h[0]);
  });
}
