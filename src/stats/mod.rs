//! Statistics over runs: learning-curve metrics ([`curve`]), paired comparisons
//! ([`paired`]), the test that makes their verdicts and its power floor
//! ([`significance`]), rank correlation ([`rank`]), robust aggregates with bootstrap
//! intervals ([`robust`]), functional ANOVA ([`anova`]), a binomial share's interval
//! ([`binomial`]), the special functions they need ([`special`]) and a Sobol
//! low-discrepancy sequence for sampled axes and a search's first points ([`sobol`]).
//!
//! Pure functions: no files, no printing, no clock; the bootstrap's generator is seeded by
//! its caller. Every statistic is checked against scipy or numpy on fixed data; the
//! reference values come from scripts/tests/stats_reference.py.

pub mod anova;
pub mod binomial;
pub mod curve;
pub mod mcb;
pub mod paired;
pub mod rank;
pub mod robust;
pub mod significance;
pub mod sobol;
pub mod special;

#[cfg(test)]
mod tests;
