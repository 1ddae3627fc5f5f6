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

// Instruction counts (peers/enzyme/instructions.py, under `valgrind --tool=callgrind
// --instr-atstart=no`): where NILANG_CALLGRIND is defined, an untimed run of the repetitions
// is bracketed by callgrind's client requests (start instrumentation, zero, ..., dump, stop),
// so the dump holds that loop's instructions alone. The requests are valgrind.h's magic
// instruction sequence (amd64), a no-op outside valgrind; without NILANG_CALLGRIND, nothing.
enum {
  CALLGRIND_DUMP_STATS = ('C' << 24) | ('T' << 16),
  CALLGRIND_ZERO_STATS,
  CALLGRIND_TOGGLE_COLLECT,
  CALLGRIND_DUMP_STATS_AT,
  CALLGRIND_START_INSTRUMENTATION,
  CALLGRIND_STOP_INSTRUMENTATION,
};
static inline void callgrind_request(unsigned long request) {
#ifdef NILANG_CALLGRIND
  volatile unsigned long args[6] = {request, 0, 0, 0, 0, 0};
  unsigned long result = 0;
  asm volatile("rolq $3, %%rdi ; rolq $13, %%rdi\n\t"
               "rolq $61, %%rdi ; rolq $51, %%rdi\n\t"
               "xchgq %%rbx, %%rbx"
               : "=d"(result)
               : "a"(&args[0]), "0"(result)
               : "cc", "memory");
#else
  (void)request;
#endif
}

// Timing inside the C++ call, with the time-stamp counter (no Python or XLA dispatch in a
// sample): `reps` = [repetitions per sample, samples]. Each sample runs `body` that many times
// and stores its TSC cycles in `times` (at most MAX_SAMPLES); samples = 0: one untimed run of
// the repetitions (the check).
constexpr long MAX_SAMPLES = 256;
template <typename F> static inline void repeat(const double *reps, double *times, F body) {
  const long n = (long)reps[0], samples = (long)reps[1];
  if (samples <= 0) {
    callgrind_request(CALLGRIND_START_INSTRUMENTATION);
    callgrind_request(CALLGRIND_ZERO_STATS);
    for (long k = 0; k < n; k++)
      body();
    callgrind_request(CALLGRIND_DUMP_STATS);
    callgrind_request(CALLGRIND_STOP_INSTRUMENTATION);
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
