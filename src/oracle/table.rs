//! The transposition table: a fixed number of slots, chosen from a memory key, each one
//! `u64` holding a position's key and the bounds the search has proved on its score. A
//! slot is overwritten by the next position that lands in it, so the table never grows;
//! a lost entry costs time, never correctness.
//!
//! Entries are exact, not hashed: the number of slots is a prime `P`, a key `< 2^63`
//! lands in slot `key mod P` and the slot keeps `key mod 2^47`; since `P > 2^16`, the two
//! residues determine the key (Chinese remainder theorem), so an entry is used only for
//! its own position.
//!
//! Slots are atomic words, so threads share one table (loads and stores are relaxed: a
//! slot is always one whole entry, and any entry it holds is a bound proved for its key;
//! two threads writing one slot at once lose one of the two bounds, never correctness).

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Bytes per slot.
pub const SLOT_BYTES: usize = 8;

/// The fewest slots: the smallest prime above `2^16`, so that slot and check bits name a
/// key of up to 63 bits.
pub const MIN_SLOTS: usize = 65_537;

/// The key bits kept in a slot.
const CHECK_BITS: u32 = 47;
const CHECK: u64 = (1 << CHECK_BITS) - 1;
/// The bit that marks a used slot.
const USED: u64 = 1 << CHECK_BITS;

/// Bounds on positions' scores, in a table of bounded size.
#[derive(Debug)]
pub struct Transpositions {
    slots: Vec<AtomicU64>,
}

/// The largest prime at most `n` (`n >= 2`), by trial division.
fn prime_at_most(n: usize) -> usize {
    let prime = |m: usize| m >= 2 && (2..).take_while(|d| d * d <= m).all(|d| m % d != 0);
    (2..=n).rev().find(|&m| prime(m)).expect("2 is prime")
}

impl Transpositions {
    /// A table that fits in `bytes`, or in `MIN_SLOTS` slots (512 KiB) if that is
    /// more. The memory is reserved, not touched: pages are mapped as the search first
    /// writes them.
    pub fn new(bytes: usize) -> Transpositions {
        let slots = prime_at_most((bytes / SLOT_BYTES).max(MIN_SLOTS));
        // Zeroed memory from the allocator, so pages are mapped only when first written.
        let zeros = std::mem::ManuallyDrop::new(vec![0u64; slots]);
        const { assert!(align_of::<AtomicU64>() == align_of::<u64>() && size_of::<AtomicU64>() == size_of::<u64>()) };
        // SAFETY: `AtomicU64` has the size, alignment and bit validity of `u64` (asserted
        // above), and the vector's allocation is handed over whole, never freed twice.
        let slots = unsafe { Vec::from_raw_parts(zeros.as_ptr() as *mut AtomicU64, zeros.len(), zeros.capacity()) };
        Transpositions { slots }
    }

    /// The number of slots.
    pub fn slots(&self) -> usize {
        self.slots.len()
    }

    /// The bytes the table holds.
    pub fn bytes(&self) -> usize {
        self.slots() * SLOT_BYTES
    }

    /// Forgets every entry.
    pub fn clear(&mut self) {
        self.slots.iter_mut().for_each(|s| *s.get_mut() = 0);
    }

    /// The slot of `key`.
    #[inline(always)]
    pub fn slot(&self, key: u64) -> usize {
        (key % self.slots.len() as u64) as usize
    }

    /// The bounds `[lower, upper]` stored for `key`, if its slot holds it.
    #[inline(always)]
    pub fn get(&self, key: u64) -> Option<[i8; 2]> {
        self.get_at(self.slot(key), key)
    }

    /// [`Transpositions::get`] with the slot computed.
    #[inline(always)]
    pub fn get_at(&self, slot: usize, key: u64) -> Option<[i8; 2]> {
        debug_assert_eq!(slot, self.slot(key));
        let e = self.slots[slot].load(Relaxed);
        (e & (CHECK | USED) == (key & CHECK) | USED).then_some([(e >> 48) as u8 as i8, (e >> 56) as u8 as i8])
    }

    /// Records a bound: `lower` (the score is at least `value`) or not (at most). The
    /// other bound is kept when the slot already holds this key, else it is unknown.
    #[inline(always)]
    pub fn put(&self, key: u64, value: i8, lower: bool) {
        self.put_at(self.slot(key), key, value, lower)
    }

    /// [`Transpositions::put`] with the slot computed.
    #[inline(always)]
    pub fn put_at(&self, slot: usize, key: u64, value: i8, lower: bool) {
        let [mut lo, mut hi] = self.get_at(slot, key).unwrap_or([i8::MIN, i8::MAX]);
        if lower {
            lo = lo.max(value);
        } else {
            hi = hi.min(value);
        }
        self.slots[slot].store((key & CHECK) | USED | u64::from(lo as u8) << 48 | u64::from(hi as u8) << 56, Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_primes_above_the_bound_and_keys_read_back_exactly() {
        assert_eq!(prime_at_most(100), 97);
        assert_eq!(Transpositions::new(0).slots(), MIN_SLOTS);
        let t = Transpositions::new(1 << 23);
        assert!(t.bytes() <= 1 << 23 && t.slots() > (1 << 23) / 8 - 100);
        let t = Transpositions::new(0);
        // Two keys in one slot: told apart by their low bits.
        let (a, b) = (5u64, 5 + MIN_SLOTS as u64);
        t.put(a, 3, true);
        assert_eq!(t.get(a), Some([3, i8::MAX]));
        assert_eq!(t.get(b), None);
        t.put(a, 7, false);
        assert_eq!(t.get(a), Some([3, 7]));
        t.put(b, -2, false);
        assert_eq!((t.get(a), t.get(b)), (None, Some([i8::MIN, -2])));
        t.put(0, 0, true);
        assert_eq!(t.get(0), Some([0, i8::MAX]));
    }
}
