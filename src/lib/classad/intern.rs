//! Shared spellings of attribute names and short strings.
//!
//! Job and slot ads repeat the same few hundred names (and values such as
//! `"X86_64"`) over and over; sharing one allocation per spelling makes
//! parsing cheaper and a queue of 100k ads smaller. The cache is per thread
//! and bounded.
//!
//! A spelling that collides with another in the table simply replaces it.

use std::cell::RefCell;
use std::hash::Hasher;
use std::sync::Arc;

/// Strings longer than this are not worth looking up.
const MAX_LEN: usize = 48;

/// A word-at-a-time hash of the exact bytes (FxHash's mixing).
#[derive(Default)]
struct Fx(u64);

impl Hasher for Fx {
    fn finish(&self) -> u64 {
        self.0 ^ (self.0 >> 29)
    }
    fn write(&mut self, bytes: &[u8]) {
        const K: u64 = 0x517c_c1b7_2722_0a95;
        let mut h = self.0;
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            h = (h.rotate_left(5) ^ u64::from_le_bytes(c.try_into().expect("8 bytes")))
                .wrapping_mul(K);
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut buf = [0u8; 8];
            buf[..rest.len()].copy_from_slice(rest);
            h = (h.rotate_left(5) ^ u64::from_le_bytes(buf)).wrapping_mul(K);
        }
        self.0 = h;
    }
    fn write_u8(&mut self, i: u8) {
        self.0 = (self.0.rotate_left(5) ^ i as u64).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

/// Slots in the per-thread cache: a direct-mapped table (no probing), so a
/// lookup is one hash, one comparison and a reference count.
const SLOTS: usize = 4096;

thread_local! {
    static CACHE: RefCell<[Option<Arc<str>>; SLOTS]> = const { RefCell::new([const { None }; SLOTS]) };
}

/// The shared `Arc<str>` for `s`.
pub fn intern(s: &str) -> Arc<str> {
    if s.len() > MAX_LEN {
        return Arc::from(s);
    }
    let mut h = Fx::default();
    h.write(s.as_bytes());
    let slot = (h.finish() as usize) & (SLOTS - 1);
    CACHE.with(|cache| {
        let mut cache = cache.borrow_mut();
        match &cache[slot] {
            Some(a) if **a == *s => a.clone(),
            _ => {
                let a: Arc<str> = Arc::from(s);
                cache[slot] = Some(a.clone());
                a
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_spelling_same_allocation() {
        let a = intern("Requirements");
        let b = intern("Requirements");
        assert!(Arc::ptr_eq(&a, &b));
        assert!(!Arc::ptr_eq(&a, &intern("requirements")));
        let long = "x".repeat(100);
        assert_eq!(&*intern(&long), long.as_str());
    }
}
