//! A small Sobol low-discrepancy sequence for the `sampler = "sobol"` of sampled axes:
//! up to [`MAX_DIMENSIONS`] dimensions, 32 bits per coordinate, with a seeded random
//! digital shift (each dimension's coordinates XORed with one seeded 32-bit word).
//!
//! Direction numbers: dimension 1 is the van der Corput sequence (every `m = 1`); the
//! others are the first rows of Joe and Kuo's `new-joe-kuo-6.21201` table (S. Joe and
//! F. Y. Kuo, "Constructing Sobol sequences with better two-dimensional projections",
//! SIAM J. Sci. Comput. 30, 2635–2654, 2008), as `(s, a, m_1..m_s)`.
//!
//! Point `i` is computed directly from the bits of `i` (no Gray-code state), so it is a
//! pure function of `(i, shift)`: the first `n` points never depend on how many follow.
//! A digital shift maps every elementary interval of base 2 onto another one, so the
//! shifted sequence keeps Sobol's stratification: for every `k`, the first `2^k` points
//! (indeed any aligned block of `2^k`) fall one in each of the `2^k` equal cells of every
//! coordinate.

/// The most dimensions (sampled axes of one solver) the table covers.
pub const MAX_DIMENSIONS: usize = 12;

/// `(s, a, m_1..m_s)` of dimensions 2 to [`MAX_DIMENSIONS`] (Joe and Kuo).
const TABLE: [(u32, u32, &[u32]); MAX_DIMENSIONS - 1] = [
    (1, 0, &[1]),
    (2, 1, &[1, 3]),
    (3, 1, &[1, 3, 1]),
    (3, 2, &[1, 1, 1]),
    (4, 1, &[1, 1, 3, 3]),
    (4, 4, &[1, 3, 5, 13]),
    (5, 2, &[1, 1, 5, 5, 17]),
    (5, 4, &[1, 1, 5, 5, 5]),
    (5, 7, &[1, 1, 7, 11, 19]),
    (5, 11, &[1, 1, 5, 1, 1]),
    (5, 13, &[1, 1, 1, 3, 11]),
];

/// The 32 direction numbers of `dimension` (0-based).
fn directions(dimension: usize) -> [u32; 32] {
    let mut v = [0u32; 32];
    if dimension == 0 {
        for (k, slot) in v.iter_mut().enumerate() {
            *slot = 1 << (31 - k);
        }
        return v;
    }
    let (s, a, m) = TABLE[dimension - 1];
    let s = s as usize;
    for k in 0..s {
        v[k] = m[k] << (31 - k);
    }
    for k in s..32 {
        let mut x = v[k - s] ^ (v[k - s] >> s);
        for j in 1..s {
            if (a >> (s - 1 - j)) & 1 == 1 {
                x ^= v[k - j];
            }
        }
        v[k] = x;
    }
    v
}

/// A digitally shifted Sobol sequence in a fixed number of dimensions.
pub(crate) struct Sobol {
    directions: Vec<[u32; 32]>,
    shifts: Vec<u32>,
}

impl Sobol {
    /// The sequence in `shifts.len()` dimensions (at most [`MAX_DIMENSIONS`]), each
    /// dimension's coordinates XORed with its shift.
    pub fn new(shifts: Vec<u32>) -> Sobol {
        assert!(shifts.len() <= MAX_DIMENSIONS, "at most {MAX_DIMENSIONS} Sobol dimensions");
        Sobol { directions: (0..shifts.len()).map(directions).collect(), shifts }
    }

    /// The 32-bit coordinates of point `index`.
    pub fn bits(&self, index: u32) -> Vec<u32> {
        self.directions
            .iter()
            .zip(&self.shifts)
            .map(|(v, &shift)| {
                let mut x = shift;
                for (bit, &direction) in v.iter().enumerate() {
                    if (index >> bit) & 1 == 1 {
                        x ^= direction;
                    }
                }
                x
            })
            .collect()
    }

    /// Point `index` in `[0, 1)^d`: each coordinate the centre of its 2^-32 cell.
    pub fn point(&self, index: u32) -> Vec<f64> {
        self.bits(index).into_iter().map(|x| (f64::from(x) + 0.5) / 4_294_967_296.0).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unshifted_points_are_sobol() {
        let sobol = Sobol::new(vec![0, 0, 0]);
        let firsts: Vec<Vec<f64>> =
            (0..4).map(|i| sobol.bits(i).iter().map(|&x| f64::from(x) / 4294967296.0).collect()).collect();
        assert_eq!(firsts[0], [0.0, 0.0, 0.0]);
        assert_eq!(firsts[1], [0.5, 0.5, 0.5]);
        assert_eq!(firsts[2], [0.25, 0.75, 0.75]);
        assert_eq!(firsts[3], [0.75, 0.25, 0.25]);
    }

    /// Each of the first 2^k points, in every dimension and whatever the shift, falls in a
    /// distinct one of 2^k equal cells; so does every aligned block of 2^k points.
    #[test]
    fn blocks_stratify_every_dimension() {
        for shifts in
            [vec![0; MAX_DIMENSIONS], (0..MAX_DIMENSIONS as u32).map(|d| 0x9E37_79B9u32.wrapping_mul(d + 7)).collect()]
        {
            let sobol = Sobol::new(shifts);
            let points: Vec<Vec<u32>> = (0..1024).map(|i| sobol.bits(i)).collect();
            for k in 0..=10u32 {
                let size = 1usize << k;
                for block in points.chunks(size) {
                    for d in 0..MAX_DIMENSIONS {
                        let mut cells: Vec<u32> =
                            block.iter().map(|p| if k == 0 { 0 } else { p[d] >> (32 - k) }).collect();
                        cells.sort_unstable();
                        cells.dedup();
                        assert_eq!(cells.len(), size, "k = {k}, dimension {d}");
                    }
                }
            }
        }
    }

    /// The first two dimensions form a (0, m, 2)-net: the first 2^m points fall one in each
    /// elementary box of area 2^-m, for every split of m bits between the two axes.
    #[test]
    fn first_two_dimensions_are_a_net() {
        let sobol = Sobol::new(vec![0x1234_5678, 0xDEAD_BEEF]);
        for m in 1..=8u32 {
            let points: Vec<Vec<u32>> = (0..1u32 << m).map(|i| sobol.bits(i)).collect();
            for a in 0..=m {
                let b = m - a;
                let mut boxes: Vec<(u32, u32)> = points
                    .iter()
                    .map(|p| (if a == 0 { 0 } else { p[0] >> (32 - a) }, if b == 0 { 0 } else { p[1] >> (32 - b) }))
                    .collect();
                boxes.sort_unstable();
                boxes.dedup();
                assert_eq!(boxes.len(), 1 << m, "m = {m}, split {a}+{b}");
            }
        }
    }

    #[test]
    fn points_lie_in_the_unit_cube() {
        let sobol = Sobol::new(vec![u32::MAX; 4]);
        for i in [0, 1, 2, 1000, u32::MAX] {
            assert!(sobol.point(i).iter().all(|&x| x > 0.0 && x < 1.0));
        }
    }
}
