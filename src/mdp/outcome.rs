//! One result of an agent's action ([`Outcome`]) and the outcomes of an action slot in
//! reply order ([`Outcomes`]), decoded from the MDP's compact form.

use super::{END, TERMINAL};

/// One result of an agent's action: probability, reward on the way, next agent state.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Outcome {
    /// Probability of this outcome given the state and action.
    pub prob: f64,
    /// Reward collected (non-zero only when the game ended).
    pub reward: f64,
    /// The next agent state, or [`TERMINAL`].
    pub next: u32,
}

/// The outcomes of one action slot in reply order: see [`super::AgentMdp::outcomes`].
#[derive(Clone, Debug)]
pub struct Outcomes<'a> {
    prob: f64,
    /// Nibble `k`: where the `k`-th remaining outcome sits in `codes`.
    order: u64,
    codes: &'a [u32],
    left: usize,
}

impl<'a> Outcomes<'a> {
    /// The outcomes of a slot: their probability, where each reply's outcome sits (a
    /// nibble each) and the slot's codes.
    pub(crate) fn new(prob: f64, order: u64, codes: &'a [u32]) -> Outcomes<'a> {
        Outcomes { prob, order, codes, left: codes.len() }
    }
}

impl Iterator for Outcomes<'_> {
    type Item = Outcome;

    #[inline(always)]
    fn next(&mut self) -> Option<Outcome> {
        if self.left == 0 {
            return None;
        }
        let code = self.codes[self.order as usize & 15];
        (self.order, self.left) = (self.order >> 4, self.left - 1);
        Some(if code >= END {
            Outcome { prob: self.prob, reward: f64::from(code - END) - 1.0, next: TERMINAL }
        } else {
            Outcome { prob: self.prob, reward: 0.0, next: code }
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl ExactSizeIterator for Outcomes<'_> {}
