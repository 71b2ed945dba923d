//! The transposition table: a fixed number of slots, chosen from a memory key, each one
//! `u64` holding a position's key and the bounds the search has proved on its score. A
//! slot is overwritten by the next position that lands in it, so the table never grows;
//! a lost entry costs time, never correctness.
//!
//! Entries are exact, not hashed: the number of slots is a prime `P`, a key `< 2^63`
//! lands in slot `key mod P` and the slot keeps `key mod 2^47`; since `P > 2^16`, the two
//! residues determine the key (Chinese remainder theorem), so an entry is used only for
//! its own position.

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
pub struct Table {
    slots: Vec<u64>,
}

/// The largest prime at most `n` (`n >= 2`), by trial division.
fn prime_at_most(n: usize) -> usize {
    let prime = |m: usize| m >= 2 && (2..).take_while(|d| d * d <= m).all(|d| m % d != 0);
    (2..=n).rev().find(|&m| prime(m)).expect("2 is prime")
}

impl Table {
    /// A table that fits in `bytes`, or in `MIN_SLOTS` slots (512 KiB) if that is
    /// more. The memory is reserved, not touched: pages are mapped as the search first
    /// writes them.
    pub fn new(bytes: usize) -> Table {
        let slots = prime_at_most((bytes / SLOT_BYTES).max(MIN_SLOTS));
        Table { slots: vec![0; slots] }
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
        self.slots.fill(0);
    }

    #[inline(always)]
    fn slot(&self, key: u64) -> usize {
        (key % self.slots.len() as u64) as usize
    }

    /// The bounds `[lower, upper]` stored for `key`, if its slot holds it.
    #[inline(always)]
    pub fn get(&self, key: u64) -> Option<[i8; 2]> {
        let e = self.slots[self.slot(key)];
        (e & (CHECK | USED) == (key & CHECK) | USED).then_some([(e >> 48) as u8 as i8, (e >> 56) as u8 as i8])
    }

    /// Records a bound: `lower` (the score is at least `value`) or not (at most). The
    /// other bound is kept when the slot already holds this key, else it is unknown.
    #[inline(always)]
    pub fn put(&mut self, key: u64, value: i8, lower: bool) {
        let i = self.slot(key);
        let [mut lo, mut hi] = self.get(key).unwrap_or([i8::MIN, i8::MAX]);
        if lower {
            lo = lo.max(value);
        } else {
            hi = hi.min(value);
        }
        self.slots[i] = (key & CHECK) | USED | u64::from(lo as u8) << 48 | u64::from(hi as u8) << 56;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_primes_above_the_bound_and_keys_read_back_exactly() {
        assert_eq!(prime_at_most(100), 97);
        assert_eq!(Table::new(0).slots(), MIN_SLOTS);
        let t = Table::new(1 << 23);
        assert!(t.bytes() <= 1 << 23 && t.slots() > (1 << 23) / 8 - 100);
        let mut t = Table::new(0);
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
