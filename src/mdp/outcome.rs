//! One result of an agent's action ([`Outcome`]) and the outcomes of an action slot in
//! reply order ([`Outcomes`]), decoded from the MDP's compact form.

use super::{END, TERMINAL, end_reward};

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
    codes: std::slice::Iter<'a, u32>,
}

impl<'a> Outcomes<'a> {
    /// The outcomes of a slot: their common probability and the slot's codes.
    pub(crate) fn new(prob: f64, codes: &'a [u32]) -> Outcomes<'a> {
        Outcomes { prob, codes: codes.iter() }
    }
}

impl Iterator for Outcomes<'_> {
    type Item = Outcome;

    #[inline(always)]
    fn next(&mut self) -> Option<Outcome> {
        let &code = self.codes.next()?;
        Some(if code >= END {
            Outcome { prob: self.prob, reward: end_reward(code), next: TERMINAL }
        } else {
            Outcome { prob: self.prob, reward: 0.0, next: code }
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.codes.size_hint()
    }
}

impl ExactSizeIterator for Outcomes<'_> {}
