//! The best response to a deterministic policy, and the evaluation opponents that name it.
//!
//! A deterministic policy in one seat fixes every move of that seat, so the other seat
//! faces a single-agent problem: [`best_response_within`] solves it exactly by backward
//! induction over the positions the policy's moves and all of the other seat's moves
//! reach, in position id order (a topological order), asking the policy once per reached
//! position where it is to move. The result is the policy's worst case over every
//! opponent, mixed or not (a deterministic reply attains it): its value, and the
//! outcome of the one game against the best response that breaks ties between equally
//! good replies by the lowest cell. Exploitability is the seat's game value minus that
//! worst case: `>= 0`, and 0 exactly for a minimax-optimal policy.

use super::{Evaluation, FIXED, Opponent, Seat, with_last};
use crate::game::{Board, Game, Status};

/// An opponent of the exact evaluation: a fixed one, or the best response to the
/// evaluated policy (spelled `best-response`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EvalOpponent {
    /// A fixed opponent policy.
    Fixed(Opponent),
    /// The opponent that knows the evaluated policy and minimises its value.
    BestResponse,
}

impl EvalOpponent {
    /// The spelling of [`EvalOpponent::BestResponse`].
    pub const BEST_RESPONSE: &'static str = "best-response";

    /// Every evaluation opponent: the fixed ones ([`Opponent::ALL`]), then the best
    /// response.
    pub const ALL: &'static [EvalOpponent] =
        &with_last::<_, FIXED, { FIXED + 1 }>(EvalOpponent::fixed_ones(), EvalOpponent::BestResponse);

    /// The fixed opponents, as evaluation opponents.
    const fn fixed_ones() -> [EvalOpponent; FIXED] {
        let mut out = [EvalOpponent::BestResponse; FIXED];
        let mut i = 0;
        while i < FIXED {
            out[i] = EvalOpponent::Fixed(Opponent::ALL[i]);
            i += 1;
        }
        out
    }

    /// The spelling used in specs and in the `eval_opponent` column.
    pub fn name(self) -> &'static str {
        match self {
            EvalOpponent::Fixed(o) => o.name(),
            EvalOpponent::BestResponse => EvalOpponent::BEST_RESPONSE,
        }
    }

    /// The spelling in the resolved spec: a fixed opponent's key (a saved policy's
    /// `policy:<hash>`), or `best-response`.
    pub fn key(self) -> &'static str {
        match self {
            EvalOpponent::Fixed(o) => o.key(),
            EvalOpponent::BestResponse => EvalOpponent::BEST_RESPONSE,
        }
    }

    /// The fixed opponent, if this is one.
    pub fn fixed(self) -> Option<Opponent> {
        match self {
            EvalOpponent::Fixed(o) => Some(o),
            EvalOpponent::BestResponse => None,
        }
    }
}

impl From<Opponent> for EvalOpponent {
    fn from(o: Opponent) -> EvalOpponent {
        EvalOpponent::Fixed(o)
    }
}

impl std::fmt::Display for EvalOpponent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for EvalOpponent {
    type Err = super::ParseNameError;

    fn from_str(s: &str) -> Result<EvalOpponent, Self::Err> {
        // A saved policy is found by its name or key once its file is registered.
        let policy = || super::Opponent::from_name(s).map(EvalOpponent::Fixed);
        EvalOpponent::ALL.iter().copied().find(|o| o.name() == s).or_else(policy).ok_or_else(|| super::ParseNameError {
            what: "evaluation opponent",
            value: s.to_string(),
            allowed: EvalOpponent::ALL.iter().map(|o| o.name()).collect::<Vec<_>>().join(", "),
        })
    }
}

/// The game value of `seat` under optimal play by both sides: +1, 0 or -1.
pub fn game_value(game: Game, seat: Seat) -> f64 {
    let x = game.positions().minimax(0);
    f64::from(match seat {
        Seat::X => x,
        Seat::O => -x,
    })
}

/// The policy `choose(board) -> cell` of `seat` against its best response: `value` is
/// its worst case, `p_*` the outcome of the game against the best response (lowest cell
/// among equally good replies), `states` the positions where the policy was asked.
///
/// Panics if the policy returns an illegal cell: that is a bug in the policy.
pub fn best_response(game: Game, seat: Seat, choose: impl FnMut(Board) -> u8) -> Evaluation {
    best_response_within(game, seat, usize::MAX, choose).expect("no limit on the states")
}

/// As [`best_response`], but gives up (`None`) as soon as the policy is asked in more
/// than `max_states` positions: `choose` is then called at most `max_states` times and
/// once more.
pub fn best_response_within(
    game: Game,
    seat: Seat,
    max_states: usize,
    mut choose: impl FnMut(Board) -> u8,
) -> Option<Evaluation> {
    const UNREACHED: i8 = i8::MIN;
    let pos = game.positions();
    let me = seat.player();
    // Forward: mark what is reached (value UNREACHED → 0); backward: the values.
    let mut value = vec![UNREACHED; pos.len()];
    let mut moved = vec![0u8; pos.len()];
    value[0] = 0;
    let mut states = 0;
    for p in 0..pos.len() {
        if value[p] == UNREACHED || pos.status(p) != Status::Ongoing {
            continue;
        }
        let b = pos.board(p);
        if b.to_move() == me {
            states += 1;
            let cell = choose(b);
            if states > max_states {
                return None;
            }
            let legal = usize::from(cell) < game.cells() && b.moves() & (1 << cell) != 0;
            assert!(legal, "policy plays taken cell {cell} in {b}");
            moved[p] = cell;
            value[pos.child(p, cell) as usize] = 0;
        } else {
            for n in pos.children(p, b.moves()) {
                value[n as usize] = 0;
            }
        }
    }
    for p in (0..pos.len()).rev() {
        if value[p] == UNREACHED {
            continue;
        }
        value[p] = match pos.reward(p, me) {
            Some(r) => r as i8,
            None if pos.board(p).to_move() == me => value[pos.child(p, moved[p]) as usize],
            None => pos.children(p, pos.board(p).moves()).map(|n| value[n as usize]).min().expect("a move"),
        };
    }
    let worst = value[0];
    let outcome = |v: i8| if worst == v { 1.0 } else { 0.0 };
    Some(Evaluation { value: f64::from(worst), p_win: outcome(1), p_draw: outcome(0), p_loss: outcome(-1), states })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_list_the_best_response() {
        for &o in EvalOpponent::ALL {
            assert_eq!(o.name().parse::<EvalOpponent>(), Ok(o));
        }
        assert_eq!("minimax".parse::<EvalOpponent>(), Ok(EvalOpponent::Fixed(Opponent::Minimax)));
        let e = "best".parse::<EvalOpponent>().unwrap_err();
        assert!(e.to_string().contains("random, minimax, minimax-uniform, best-response"), "{e}");
    }

    #[test]
    fn a_draw_is_worth_plus_zero_to_both_seats() {
        for &seat in Seat::ALL {
            assert_eq!(game_value(Game::TIC_TAC_TOE, seat).to_bits(), 0.0f64.to_bits());
        }
    }

    #[test]
    fn the_lowest_cell_policy_loses_to_its_best_response_within_few_searches() {
        // X always takes the lowest free cell: a best response wins against it.
        let lowest = |b: Board| b.legal_moves().trailing_zeros() as u8;
        let e = best_response(Game::TIC_TAC_TOE, Seat::X, lowest);
        assert_eq!((e.value, e.p_loss), (-1.0, 1.0));
        assert_eq!(best_response_within(Game::TIC_TAC_TOE, Seat::X, e.states - 1, lowest), None);
        assert_eq!(best_response_within(Game::TIC_TAC_TOE, Seat::X, e.states, lowest), Some(e));
    }
}
