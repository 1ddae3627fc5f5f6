// BA (ADBench): residuals [w (proj - feat) (2p) | 1 - w^2 (p)] and the Jacobian's CSR values
// [2x15 block per observation, row-major (30p) | -2 w (p)]; block inputs [cam (11) | X (3) | w].
//
// The Jacobian is ADBench's own Enzyme scheme: per observation, two reverse sweeps of the
// 15-input, 2-output reprojection (one per output row), whose shadows are the two rows of the
// block (no copies). The reprojection is a leaf function on __restrict pointers with no stores
// but its two outputs, so Enzyme's augmented forward pass caches nothing it can recompute.

static inline void ba_reproj(const double *__restrict cam, const double *__restrict X,
                             const double *__restrict w, const double *__restrict feat,
                             double *__restrict err) {
  const double p0 = X[0] - cam[3], p1 = X[1] - cam[4], p2 = X[2] - cam[5];
  const double r0 = cam[0], r1 = cam[1], r2 = cam[2];
  const double sqtheta = r0 * r0 + r1 * r1 + r2 * r2;
  double y0, y1, y2;
  if (sqtheta != 0.0) {
    const double theta = __builtin_sqrt(sqtheta);
    const double st = __builtin_sin(theta), ct = __builtin_cos(theta);
    const double it = 1.0 / theta;
    const double v0 = r0 * it, v1 = r1 * it, v2 = r2 * it;
    const double tmp = (v0 * p0 + v1 * p1 + v2 * p2) * (1.0 - ct);
    y0 = p0 * ct + (v1 * p2 - v2 * p1) * st + v0 * tmp;
    y1 = p1 * ct + (v2 * p0 - v0 * p2) * st + v1 * tmp;
    y2 = p2 * ct + (v0 * p1 - v1 * p0) * st + v2 * tmp;
  } else {
    y0 = p0 + (r1 * p2 - r2 * p1);
    y1 = p1 + (r2 * p0 - r0 * p2);
    y2 = p2 + (r0 * p1 - r1 * p0);
  }
  const double u0 = y0 / y2, u1 = y1 / y2;
  const double rsq = u0 * u0 + u1 * u1;
  const double l = 1.0 + cam[9] * rsq + cam[10] * rsq * rsq;
  err[0] = w[0] * (cam[6] * (u0 * l) + cam[7] - feat[0]);
  err[1] = w[0] * (cam[6] * (u1 * l) + cam[8] - feat[1]);
}

static void ba_objective(long p, const double *__restrict cams, const double *__restrict x,
                         const double *__restrict w, const double *__restrict feats,
                         const double *__restrict obs, double *__restrict out) {
  for (long j = 0; j < p; j++) {
    const long c = (long)obs[2 * j], pt = (long)obs[2 * j + 1];
    ba_reproj(cams + 11 * c, x + 3 * pt, w + j, feats + 2 * j, out + 2 * j);
  }
  for (long j = 0; j < p; j++)
    out[2 * p + j] = 1.0 - w[j] * w[j];
}

static void ba_jacobian(long p, const double *__restrict cams, const double *__restrict x,
                        const double *__restrict w, const double *__restrict feats,
                        const double *__restrict obs, double *__restrict jac) {
  for (long j = 0; j < p; j++) {
    const long c = (long)obs[2 * j], pt = (long)obs[2 * j + 1];
    double *__restrict blk = jac + 30 * j;
    for (long i = 0; i < 30; i++)
      blk[i] = 0.0;
    for (long r = 0; r < 2; r++) {
      double e[2], de[2] = {r == 0 ? 1.0 : 0.0, r == 1 ? 1.0 : 0.0};
      double *__restrict row = blk + 15 * r;
      __enzyme_autodiff((void *)ba_reproj, enzyme_dup, cams + 11 * c, row, enzyme_dup,
                        x + 3 * pt, row + 11, enzyme_dup, w + j, row + 14, enzyme_const,
                        feats + 2 * j, enzyme_dupnoneed, e, de);
    }
  }
  for (long j = 0; j < p; j++)
    jac[30 * p + j] = -2.0 * w[j];
}

// Entry points (cpp_call): cams (11n), x (3m), w (p), feats (2p), obs (2p), reps = [repetitions].
template <std::size_t O, std::size_t NC, std::size_t MX, std::size_t P, std::size_t P2>
void objective(enzyme::tensor<double, O> &out,
              enzyme::tensor<double, MAX_SAMPLES> &times, const enzyme::tensor<double, NC> &cams,
               const enzyme::tensor<double, MX> &x, const enzyme::tensor<double, P> &w,
               const enzyme::tensor<double, P2> &feats, const enzyme::tensor<double, P2> &obs,
               const enzyme::tensor<double, 2> &reps) {
  repeat(&reps[0], &times[0], [&] {
    ba_objective(P, opaque(&cams[0]), opaque(&x[0]), opaque(&w[0]), opaque(&feats[0]),
                 opaque(&obs[0]), &out[0]);
    keep(&out[0]);
  });
}

template <std::size_t J, std::size_t NC, std::size_t MX, std::size_t P, std::size_t P2>
void jacobian(enzyme::tensor<double, J> &jac,
              enzyme::tensor<double, MAX_SAMPLES> &times, const enzyme::tensor<double, NC> &cams,
              const enzyme::tensor<double, MX> &x, const enzyme::tensor<double, P> &w,
              const enzyme::tensor<double, P2> &feats, const enzyme::tensor<double, P2> &obs,
              const enzyme::tensor<double, 2> &reps) {
  repeat(&reps[0], &times[0], [&] {
    ba_jacobian(P, opaque(&cams[0]), opaque(&x[0]), opaque(&w[0]), opaque(&feats[0]),
                 opaque(&obs[0]), &jac[0]);
    keep(&jac[0]);
  });
}
