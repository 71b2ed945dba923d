//! Properties of exact evaluation: it agrees with sampled games, and no policy beats the
//! optimum.

use crate::common::{Z999, first_legal, last_legal};
use proptest::prelude::*;
use rand::SeedableRng;
use sweep::game::Board;
use sweep::mdp::{Evaluator, Opponent, Seat, sample_games};
use sweep::solvers::ground_truth;

/// A fixed policy.
type MoveFn = fn(Board) -> u8;

fn centre_first(b: Board) -> u8 {
    if b.legal_moves() & (1 << 4) != 0 { 4 } else { first_legal(b) }
}

#[test]
fn exact_values_match_100k_sampled_games() {
    let policies: [(&str, MoveFn); 3] =
        [("first legal", first_legal), ("last legal", last_legal), ("centre first", centre_first)];
    for &seat in Seat::ALL {
        for &opp in Opponent::ALL {
            for (name, policy) in policies {
                let truth = ground_truth(sweep::game::Game::TIC_TAC_TOE, seat, opp);
                let exact = Evaluator::new().evaluate(&truth.mdp, |_, b| policy(b));
                let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(12345);
                let n = 100_000;
                let t = sample_games(sweep::game::Game::TIC_TAC_TOE, seat, opp, n, &mut rng, policy);
                let mean = t.mean();
                let var = exact.p_win + exact.p_loss - exact.value * exact.value;
                let half = Z999 * (var / n as f64).sqrt();
                assert!(
                    (mean - exact.value).abs() <= half.max(1e-12),
                    "{name} as {seat} vs {opp}: exact {} sampled {mean} ± {half}",
                    exact.value
                );
                let p_win = t.wins as f64 / n as f64;
                let half_p = Z999 * (exact.p_win * (1.0 - exact.p_win) / n as f64).sqrt();
                assert!((p_win - exact.p_win).abs() <= half_p.max(1e-12), "{name} {seat} {opp} p_win");
                assert!(exact.value <= truth.solution.value + 1e-12);
            }
        }
    }
}

#[test]
fn optimal_policy_has_regret_zero_and_the_known_outcome_split() {
    for &seat in Seat::ALL {
        for &opp in Opponent::ALL {
            let t = ground_truth(sweep::game::Game::TIC_TAC_TOE, seat, opp);
            let policy = t.solution.policy(&t.mdp);
            let e = Evaluator::new().evaluate(&t.mdp, |_, b| policy.get_or_first(b));
            assert_eq!(t.solution.value - e.value, 0.0, "{seat} vs {opp}");
            assert!((e.p_win - e.p_loss - e.value).abs() < 1e-12);
            if opp != Opponent::Random {
                assert_eq!((e.value, e.p_win, e.p_loss), (0.0, 0.0, 0.0), "optimal play against {opp} as {seat}");
                assert_eq!(e.p_loss, 0.0);
            }
        }
    }
    let t = ground_truth(sweep::game::Game::TIC_TAC_TOE, Seat::X, Opponent::Random);
    let policy = t.solution.policy(&t.mdp);
    let e = Evaluator::new().evaluate(&t.mdp, |_, b| policy.get_or_first(b));
    assert!((e.value - 191.0 / 192.0).abs() < 1e-12);
    assert!((e.p_win - 191.0 / 192.0).abs() < 1e-12);
    assert!((e.p_draw - 1.0 / 192.0).abs() < 1e-12);
    assert_eq!(e.p_loss, 0.0, "the optimal policy never loses");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn no_policy_beats_the_optimum(seed in any::<u64>(), seat in 0usize..2, opp in 0usize..3) {
        let (seat, opp) = (Seat::ALL[seat], Opponent::ALL[opp]);
        let t = ground_truth(sweep::game::Game::TIC_TAC_TOE, seat, opp);
        // A random deterministic policy: a hash of (seed, board) picks a legal cell.
        let e = Evaluator::new().evaluate(&t.mdp, |_, b| {
            let legal = b.legal_moves();
            let k = sweep::seed::mix(seed, b.index() as u64) % u64::from(legal.count_ones());
            sweep::game::cells(legal).nth(k as usize).unwrap()
        });
        prop_assert!(t.solution.value - e.value >= -1e-12);
        prop_assert!((e.p_win + e.p_draw + e.p_loss - 1.0).abs() < 1e-9);
    }
}
