//! The store's panic boundary. redb trusts the pages it reads: a damaged page can make it
//! panic (`unreachable`, an index out of bounds) instead of returning an error. Every call into
//! redb runs inside [`guarded`], which catches such a panic and hands back its message, and a
//! panic hook keeps these caught panics quiet (no "thread panicked at" on stderr) while
//! deferring to the previous hook for every other panic.

use std::cell::Cell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Once;

thread_local! {
    /// How many [`guarded`] calls this thread is inside (they may nest).
    static INSIDE: Cell<u32> = const { Cell::new(0) };
}

static HOOK: Once = Once::new();

/// Installs (once per process) a hook that stays quiet for panics inside the boundary.
fn install_hook() {
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if INSIDE.with(Cell::get) == 0 {
                previous(info);
            }
        }));
    });
}

/// Restores the count on the way out, even when `f` unwinds.
struct Inside;

impl Inside {
    fn enter() -> Inside {
        INSIDE.with(|c| c.set(c.get().saturating_add(1)));
        Inside
    }
}

impl Drop for Inside {
    fn drop(&mut self) {
        INSIDE.with(|c| c.set(c.get().saturating_sub(1)));
    }
}

/// Runs `f`, turning a panic into `Err(message)`.
pub(crate) fn guarded<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    install_hook();
    let inside = Inside::enter();
    let result = catch_unwind(AssertUnwindSafe(f));
    drop(inside);
    result.map_err(|payload| {
        if let Some(s) = payload.downcast_ref::<&str>() {
            (*s).to_string()
        } else if let Some(s) = payload.downcast_ref::<String>() {
            s.clone()
        } else {
            "a panic inside redb".to_string()
        }
    })
}

#[cfg(test)]
mod tests {
    use super::guarded;

    #[test]
    fn panics_become_errors_and_the_flag_is_restored() {
        assert_eq!(guarded(|| 3), Ok(3));
        let e = guarded(|| -> u8 { panic!("boom {}", 1) }).unwrap_err();
        assert_eq!(e, "boom 1");
        let nested = guarded(|| guarded(|| -> u8 { unreachable!() }).is_err());
        assert_eq!(nested, Ok(true));
        assert_eq!(super::INSIDE.with(std::cell::Cell::get), 0);
    }
}
