//! `nilang::simd::__wide` and `__at_level` (what `#[i]` generates to run a body's copy for the
//! CPU's level) are safe functions: they take safe function values only, so an `unsafe fn`
//! (with preconditions of its own, which they cannot know) does not compile.

/// Writes through a raw pointer: undefined for a dangling one.
unsafe fn write_through(p: *mut u8) {
    unsafe { *p = 1 }
}

fn main() {
    let dangling = 0x1 as *mut u8;
    let _ = nilang::simd::__wide(
        u8::MAX,
        (dangling,),
        write_through as unsafe fn(_),
        write_through as unsafe fn(_),
    );
    nilang::simd::__at_level(2, (dangling,), write_through as unsafe fn(_));
    nilang::simd::__at_level(1, (dangling, 7u8), std::ptr::write::<u8> as unsafe fn(_, _));
}
