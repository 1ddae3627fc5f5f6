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

// The repetition count of a timing loop (the last argument of every entry point; 1 for the check).
static inline long reps_of(const double *r) { return (long)r[0]; }
