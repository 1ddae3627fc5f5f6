// Shared by every suite's C++ objective (prepended to each source by peer.py).
//
// Enzyme's entry points are declared, not included: enzyme-ad's bundled clang has no system
// headers (no <cmath>), so the math is __builtin_exp/__builtin_log/... which clang lowers to
// the same LLVM intrinsics Enzyme has derivative rules for.
extern int enzyme_dup, enzyme_dupnoneed, enzyme_const, enzyme_out;
extern int enzyme_width, enzyme_dupv, enzyme_dupnoneedv;
extern void __enzyme_autodiff(void *, ...);
extern double __enzyme_fwddiff(void *, ...);
extern void __enzyme_fwddiff_void(void *, ...);

// Timing loops repeat one evaluation on the same inputs, which the optimiser could hoist out of
// the loop (the inputs are read-only) or merge. Two barriers, neither emits an instruction:
// `opaque` hides a pointer's value, so every repetition reads its inputs through a pointer the
// optimiser cannot prove unchanged; `keep` makes the output observable after every repetition.
template <typename T> static inline T *opaque(T *p) {
  asm volatile("" : "+r"(p));
  return p;
}
static inline void keep(const void *p) { asm volatile("" : : "r"(p) : "memory"); }

// Timing inside the C++ call, with the time-stamp counter (no Python or XLA dispatch in a
// sample): `reps` = [repetitions per sample, samples]. Each sample runs `body` that many times
// and stores its TSC cycles in `times` (at most MAX_SAMPLES); samples = 0: one untimed run of
// the repetitions (the check).
constexpr long MAX_SAMPLES = 256;
template <typename F> static inline void repeat(const double *reps, double *times, F body) {
  const long n = (long)reps[0], samples = (long)reps[1];
  if (samples <= 0) {
    for (long k = 0; k < n; k++)
      body();
    return;
  }
  for (long s = 0; s < samples && s < MAX_SAMPLES; s++) {
    const unsigned long long t0 = __builtin_readcyclecounter();
    for (long k = 0; k < n; k++)
      body();
    times[s] = (double)(__builtin_readcyclecounter() - t0);
  }
}

// The time-stamp counter now (peer.py calibrates its rate against the wall clock).
void tsc(enzyme::tensor<double, 1> &out, const enzyme::tensor<double, 1> &) {
  out[0] = (double)__builtin_readcyclecounter();
}
