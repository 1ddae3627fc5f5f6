//! Values in runtime error messages: `Debug` when the type has it, else a placeholder
//! (auto-ref specialisation, as in [`crate::instr::dealloc`]).
use core::fmt::Debug;

/// A borrowed value to show in an error message.
#[doc(hidden)]
pub struct Show<'a, T: ?Sized>(pub &'a T);

/// Shown with `Debug` (preferred), cut to 60 characters.
#[doc(hidden)]
pub trait ViaDebug {
    fn nilang_show(&self) -> String;
}
impl<T: Debug + ?Sized> ViaDebug for Show<'_, T> {
    fn nilang_show(&self) -> String {
        let s = format!("{:?}", self.0);
        if s.chars().count() > 60 {
            s.chars().take(57).collect::<String>() + "..."
        } else {
            s
        }
    }
}

/// Types without `Debug`.
#[doc(hidden)]
pub trait ViaNothing {
    fn nilang_show(&self) -> String;
}
impl<T: ?Sized> ViaNothing for &Show<'_, T> {
    fn nilang_show(&self) -> String {
        String::from("(no Debug)")
    }
}
