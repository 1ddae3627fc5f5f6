//! Number types: the precision of a program and the element kinds of buffers.

/// The number type of a program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Precision {
    /// `double` (needs `cl_khr_fp64` on OpenCL).
    F64,
    /// `float`.
    F32,
}
impl Precision {
    /// The C type.
    pub(crate) fn c_type(self) -> &'static str {
        match self {
            Precision::F64 => "double",
            Precision::F32 => "float",
        }
    }
    /// Bytes per real.
    pub(crate) fn bytes(self) -> usize {
        match self {
            Precision::F64 => 8,
            Precision::F32 => 4,
        }
    }
    /// The preprocessor definitions of a build (`rows`: per-thread rows for shared adjoints).
    pub(crate) fn defines(self, rows: bool) -> Vec<String> {
        let mut d = vec![
            format!("-D NL_REAL={}", self.c_type()),
            format!("-D NL_REAL_BYTES={}", self.bytes()),
        ];
        if rows {
            d.push("-D NL_SHARED_ROWS".into());
        }
        d
    }
}

mod sealed {
    pub trait Sealed {}
}

/// An element type of a buffer: `f64`, `f32` and the primitive integers (sealed: plain
/// numbers only, whose bytes are copied as they are).
pub trait Elem: sealed::Sealed + Copy + Default + Send + Sync + 'static {
    /// Its kind (checked against the kernel's parameter).
    const KIND: ElemKind;
}
/// The element kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ElemKind {
    /// A real of this precision.
    Real(Precision),
    /// An integer: bytes, signed.
    Int(u8, bool),
}
macro_rules! elem {
    ($($t:ty => $k:expr);* $(;)?) => {$(
        impl sealed::Sealed for $t {}
        impl Elem for $t { const KIND: ElemKind = $k; }
    )*};
}
elem!(
    f64 => ElemKind::Real(Precision::F64);
    f32 => ElemKind::Real(Precision::F32);
    u64 => ElemKind::Int(8, false);
    i64 => ElemKind::Int(8, true);
    u32 => ElemKind::Int(4, false);
    i32 => ElemKind::Int(4, true);
    u8 => ElemKind::Int(1, false);
    i8 => ElemKind::Int(1, true);
);
#[cfg(target_pointer_width = "64")]
elem!(usize => ElemKind::Int(8, false); isize => ElemKind::Int(8, true));
