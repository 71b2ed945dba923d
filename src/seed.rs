//! Seeds, streams and job ids: the rules that make every row reproducible.
//!
//! - A job's `seed` is `mix(master_seed, replicate)` ([`job_seed`]), the same at every
//!   grid point, so configurations are compared on common random numbers.
//! - A test replicate (a `[test]` table: configurations re-run on fresh seeds) has the
//!   seed `mix(master_seed, TEST | replicate)` ([`test_seed`]), with [`TEST`] the top bit.
//!   Tuning replicates are 32-bit, so the two never share the second argument, and `mix`
//!   is a bijection of its second argument for a fixed first: no test seed ever equals a
//!   tuning seed of the same master seed.
//! - Training, sampled evaluation and search draw from separate streams
//!   ([`Stream`]), each a [`Pcg64Mcg`] seeded from `mix(seed, stream tag)`.
//! - A job's id is the first 12 hex digits of the 64-bit FNV-1a hash of its canonical key,
//!   passed through the SplitMix64 finaliser ([`job_id`]). FNV-1a alone changes only a few
//!   digits when the last character of a key changes (replicate 0 → 1), which makes ids
//!   of replicates look alike; the finaliser spreads every bit over the whole id.
//!
//! [`splitmix64`] is Vigna's SplitMix64 finaliser; FNV-1a is Fowler–Noll–Vo's. Neither
//! depends on the platform, the Rust version or the thread, unlike std's `DefaultHasher`.

use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

/// The random generator every stream uses.
pub type Rng = Pcg64Mcg;

/// SplitMix64: a bijective 64-bit mixer with good avalanche.
#[inline]
pub fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Mixes two words into one seed.
#[inline]
pub fn mix(a: u64, b: u64) -> u64 {
    splitmix64(splitmix64(a) ^ b)
}

/// The seed of replicate `replicate` under `master_seed` (the same at every grid point).
pub fn job_seed(master_seed: u64, replicate: u32) -> u64 {
    mix(master_seed, u64::from(replicate))
}

/// The bit that marks a test replicate's input to [`mix`] (tuning replicates are `u32`).
pub const TEST: u64 = 1 << 63;

/// The seed of test replicate `replicate` under `master_seed`: never the seed of a tuning
/// replicate (see the module docs), and the same at every grid point.
pub fn test_seed(master_seed: u64, replicate: u32) -> u64 {
    mix(master_seed, TEST | u64::from(replicate))
}

/// The independent random streams of one job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    /// Training episodes.
    Train,
    /// Sampled evaluation games.
    Evaluation,
    /// Tree searches (further mixed with the position searched).
    Search,
}

impl Stream {
    fn tag(self) -> u64 {
        match self {
            Stream::Train => 0x7472_6169_6e00_0001,
            Stream::Evaluation => 0x6576_616c_0000_0002,
            Stream::Search => 0x7365_6172_6368_0003,
        }
    }
}

/// A generator for one stream of a job.
pub fn rng(seed: u64, stream: Stream) -> Rng {
    Rng::seed_from_u64(mix(seed, stream.tag()))
}

/// A generator for stream `stream` of a job, further keyed by `key` (e.g. a position).
pub fn keyed_rng(seed: u64, stream: Stream, key: u64) -> Rng {
    Rng::seed_from_u64(mix(mix(seed, stream.tag()), key))
}

/// 64-bit FNV-1a.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h = Fnv1a::new();
    h.update(bytes);
    h.value()
}

/// 64-bit FNV-1a fed in pieces: the hash of the pieces joined is [`fnv1a`]'s.
///
/// ```
/// let mut h = sweep::seed::Fnv1a::new();
/// h.update(b"job_id,");
/// h.update(b"solver\n");
/// assert_eq!(h.value(), sweep::seed::fnv1a(b"job_id,solver\n"));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fnv1a(u64);

impl Fnv1a {
    /// The hash of nothing.
    pub const fn new() -> Fnv1a {
        Fnv1a(0xcbf2_9ce4_8422_2325)
    }

    /// Adds `bytes`.
    pub fn update(&mut self, bytes: &[u8]) {
        let mut h = self.0;
        for &b in bytes {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        self.0 = h;
    }

    /// The hash of every byte added so far.
    pub fn value(&self) -> u64 {
        self.0
    }
}

impl Default for Fnv1a {
    fn default() -> Fnv1a {
        Fnv1a::new()
    }
}

/// The job id of a canonical key: the first 12 hex digits of `splitmix64(fnv1a(key))`.
///
/// ```
/// let (a, b) = (sweep::seed::job_id("x;replicate=0"), sweep::seed::job_id("x;replicate=1"));
/// assert_eq!(a.len(), 12);
/// assert!(a.chars().zip(b.chars()).filter(|(p, q)| p != q).count() > 6);
/// ```
pub fn job_id(canonical_key: &str) -> String {
    format!("{:016x}", splitmix64(fnv1a(canonical_key.as_bytes())))[..12].to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngCore;

    #[test]
    fn known_values() {
        // FNV-1a test vectors.
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        // SplitMix64 from seed 0: first output of the reference generator.
        assert_eq!(splitmix64(0), 0xe220_a839_7b1d_cdaf);
    }

    #[test]
    fn streams_differ_and_repeat() {
        let a = rng(7, Stream::Train).next_u64();
        assert_eq!(a, rng(7, Stream::Train).next_u64());
        assert_ne!(a, rng(7, Stream::Evaluation).next_u64());
        assert_ne!(job_seed(1, 0), job_seed(1, 1));
    }

    #[test]
    fn mix_is_a_bijection_of_its_second_argument() {
        // Undo SplitMix64's steps one by one: each is invertible, so mix(a, .) is too.
        fn unmix(z: u64) -> u64 {
            let undo_shift = |y: u64, s: u32| {
                let mut x = y;
                for _ in 0..64 / s {
                    x = y ^ (x >> s);
                }
                x
            };
            let inverse = |m: u64| {
                let mut x = m;
                for _ in 0..6 {
                    x = x.wrapping_mul(2u64.wrapping_sub(m.wrapping_mul(x)));
                }
                x
            };
            let mut y = undo_shift(z, 31);
            y = y.wrapping_mul(inverse(0x94D0_49BB_1331_11EB));
            y = undo_shift(y, 27);
            y = y.wrapping_mul(inverse(0xBF58_476D_1CE4_E5B9));
            y = undo_shift(y, 30);
            y.wrapping_sub(0x9E37_79B9_7F4A_7C15)
        }
        for a in [0u64, 1, 2026, u64::MAX] {
            for b in [0u64, 7, TEST, TEST | 7, u64::MAX] {
                assert_eq!(unmix(mix(a, b)) ^ splitmix64(a), b);
            }
        }
    }
}
