//! Speed kernels of this machine, shared by `sweep bench` and `sweep plan`'s estimate.
//!
//! Each figure is the median of several timed repetitions after a warm-up, with min and
//! max. A repetition that cannot be measured (an interval the clock did not see) is left
//! out and counted; a figure with fewer than half of its repetitions
//! measured is none, with the reason, never a number. The kernels are the real code paths: Q-learning training, one MCTS search, the
//! exact solve and the exact evaluation.

use std::time::{Duration, Instant};

use serde::Serialize;

pub use crate::cost::Calibration;

use crate::game::{Board, Game};
use crate::mdp::{AgentMdp, Evaluator, Opponent, Seat};
use crate::solvers::learners::{LEARNERS, Learner};
use crate::solvers::mcts::Searcher;
use crate::solvers::{MctsParams, QParams, ground_truth, policy_iteration, q_learning};

/// Median, min and max of repeated measurements.
#[derive(Clone, Copy, Debug, Serialize, PartialEq)]
pub struct Figure {
    /// The median.
    pub median: f64,
    /// The smallest.
    pub min: f64,
    /// The largest.
    pub max: f64,
    /// Repetitions that could not be measured, left out of the three figures.
    #[serde(skip_serializing_if = "is_zero")]
    pub unmeasured: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// One repetition's figure, or why it could not be measured.
pub type Sample = Result<f64, String>;

impl Figure {
    /// From samples (at least one, each finite).
    pub fn of(samples: Vec<f64>) -> Figure {
        Figure::of_samples(samples.into_iter().map(Ok).collect()).expect("measured samples")
    }

    /// From repetitions some of which may not have been measured (a sample that is not
    /// finite counts as not measured): the figure of the measured ones, or, when fewer
    /// than half of them were measured, why not (the first reason, and how many).
    pub fn of_samples(samples: Vec<Sample>) -> Result<Figure, String> {
        let n = samples.len();
        let (mut measured, mut reasons) = (Vec::new(), Vec::new());
        for sample in samples {
            match sample {
                Ok(v) if v.is_finite() => measured.push(v),
                Ok(v) => reasons.push(format!("a repetition gave {v}")),
                Err(reason) => reasons.push(reason),
            }
        }
        if measured.is_empty() || 2 * measured.len() < n {
            let first = reasons.first().map_or("no repetition ran", String::as_str);
            return Err(format!("{first} ({} of {n} repetitions)", reasons.len()));
        }
        measured.sort_by(f64::total_cmp);
        let m = measured.len();
        let median = if m % 2 == 1 { measured[m / 2] } else { (measured[m / 2 - 1] + measured[m / 2]) / 2.0 };
        Ok(Figure { median, min: measured[0], max: measured[m - 1], unmeasured: reasons.len() })
    }
}

/// Repeats `f` (which returns a rate or a time) `reps` times after one warm-up call.
pub fn repeat(reps: usize, mut f: impl FnMut() -> f64) -> Figure {
    f();
    Figure::of((0..reps.max(1)).map(|_| f()).collect())
}

/// The seed article's Q-learning settings, X against random.
pub fn seed_q_params(episodes: u64) -> QParams {
    QParams { episodes, ..QParams::default() }
}

/// One training run of `learner` with these parameters and seed, against a fixed opponent.
fn train_once(learner: &Learner, params: &QParams, seed: u64) {
    (learner.bench)(params, seed);
}

/// Q-learning training episodes per second over about `budget` of work.
pub fn qlearning_rate(budget: Duration) -> f64 {
    learner_rate(&LEARNERS[0], budget)
}

/// A tabular learner's training episodes per second (seed settings, X against random)
/// over about `budget` of work.
pub fn learner_rate(learner: &Learner, budget: Duration) -> f64 {
    let mut episodes = 20_000u64;
    let started = Instant::now();
    let mut done = 0u64;
    let mut seed = 0;
    while started.elapsed() < budget || done == 0 {
        train_once(learner, &seed_q_params(episodes), seed);
        done += episodes;
        seed += 1;
        episodes = (episodes * 2).min(2_000_000);
    }
    done as f64 / started.elapsed().as_secs_f64()
}

/// A tabular learner's share of Q-learning's training episodes per second, from pairs of
/// runs of `episodes` episodes each (seed settings, X against random, one seed per pair):
/// Q-learning's run and the learner's back to back, their order swapped every pair, for
/// about `budget` and at least 7 pairs; the figure is of the pairs' ratios. The speed of
/// a shared host drifts by a third in spells of seconds, and a pair of 2,000,000-episode
/// runs (about 0.3 s here) mostly falls within one spell.
pub fn share_of_qlearning(learner: &Learner, episodes: u64, budget: Duration) -> Figure {
    let seconds = |train: &Learner, seed: u64| {
        let started = Instant::now();
        train_once(train, &seed_q_params(episodes), seed);
        started.elapsed().as_secs_f64()
    };
    let q_learning = &LEARNERS[0];
    let started = Instant::now();
    let mut ratios = Vec::new();
    for seed in 0.. {
        if started.elapsed() >= budget && ratios.len() >= 7 {
            break;
        }
        let (q, own) = if seed % 2 == 0 {
            let q = seconds(q_learning, seed);
            (q, seconds(learner, seed))
        } else {
            let own = seconds(learner, seed);
            (seconds(q_learning, seed), own)
        };
        ratios.push(q / own);
    }
    Figure::of(ratios)
}

/// Q-learning's training episodes per second on a bigger `game` (seed settings, X
/// against random), from one run of `2 · episodes` episodes timed at two checkpoints:
/// `(cold, steady)`, where *steady* is the rate of the second `episodes` episodes, on a
/// table the first ones have warmed (the kernel's own speed: most of the pages they
/// reach are in memory already), and *cold* the rate of the first ones from the start of
/// the job, which also pays for making the table and for the first touch of each page
/// of its values (lazily zeroed memory, about 4 s per GB on a virtual machine): a job's
/// setup, not the kernel. The MDP against random is built before the clock starts.
pub fn qlearning_rates_on(game: Game, episodes: u64) -> (Sample, Sample) {
    crate::solvers::ground_truth(game, Seat::X, Opponent::Random);
    let params = QParams { game, ..seed_q_params(2 * episodes) };
    let mut marks = Vec::with_capacity(2);
    let started = Instant::now();
    let trained = q_learning::train_table(&params, 0, &[episodes, 2 * episodes], |_, _| marks.push(Instant::now()));
    drop(trained);
    let rate = |from: Instant, to: Instant| {
        let seconds = to.duration_since(from).as_secs_f64();
        if seconds > 0.0 {
            Ok(episodes as f64 / seconds)
        } else {
            Err(format!("{episodes} episodes took no measurable time"))
        }
    };
    (rate(started, marks[0]), rate(marks[0], marks[1]))
}

/// The mid-game position of the benchmarks: X on 4, O on 0, X on 2, O to move.
pub fn midgame() -> Board {
    Board::EMPTY.play(4).play(0).play(2)
}

/// MCTS iterations per second for 10,000-iteration searches from `board`.
pub fn mcts_rate(board: Board, budget: Duration) -> f64 {
    let params = MctsParams { iterations: 10_000, ..MctsParams::default() };
    let mut searcher = Searcher::new();
    let started = Instant::now();
    let mut searches = 0u64;
    while started.elapsed() < budget || searches == 0 {
        searcher.choose(&params, searches, board);
        searches += 1;
    }
    searches as f64 * 10_000.0 / started.elapsed().as_secs_f64()
}

/// Seconds to build the X-against-random MDP and solve it by policy iteration (the mean of
/// 20 back-to-back solves, as a sweep of exact solvers runs them).
pub fn solve_seconds() -> f64 {
    let reps = 20;
    let started = Instant::now();
    for _ in 0..reps {
        let mdp = AgentMdp::build(crate::game::Game::TIC_TAC_TOE, Seat::X, Opponent::Random);
        let sol = policy_iteration::solve(&mdp);
        assert!(sol.value > 0.99);
    }
    started.elapsed().as_secs_f64() / f64::from(reps)
}

/// Seconds for one exact evaluation of a table policy (the optimal one, X against random).
pub fn evaluation_seconds(evaluator: &mut Evaluator) -> f64 {
    let truth = ground_truth(crate::game::Game::TIC_TAC_TOE, Seat::X, Opponent::Random);
    let policy = truth.solution.policy(&truth.mdp);
    let started = Instant::now();
    let reps = 200;
    for _ in 0..reps {
        let e = evaluator.evaluate(&truth.mdp, |_, b| policy.get_or_first(b));
        assert!(e.value > 0.99);
    }
    started.elapsed().as_secs_f64() / f64::from(reps)
}

/// Typical figures of a current core, with no measuring: enough to order jobs by cost.
pub fn nominal() -> Calibration {
    let mut cal = Calibration::quick(crate::cost::REFERENCE.q_per_s, 2.5e6, 3e-5, 1e-3);
    cal.source = "nominal".into();
    cal
}

/// The calibration `sweep plan` uses: a saved `sweep bench --save` result if there is
/// one (with the host's other work measured now), else one measured now for about
/// `budget` in all.
pub fn calibration(budget: Duration) -> Calibration {
    match Calibration::saved() {
        Some(mut saved) => {
            let mut spread = Others::default();
            for _ in 0..OTHERS_SPELLS {
                spread.sample();
                std::thread::sleep(OTHERS_GAP);
            }
            saved.others = spread.steady();
            saved
        }
        None => measure(budget),
    }
}

/// Measures the quick calibration for about `budget` in all (see [`Calibration::quick`]),
/// and the learners' shares of Q-learning's speed (about 0.1 s more, [`quick_shares`]).
/// The kernels are timed by the clock; the share of a core the process got meanwhile (its
/// CPU time over the wall time) turns them into speeds per second of CPU, and is kept as
/// [`Calibration::free`], how much of a core a thread gets on this host now.
pub fn measure(budget: Duration) -> Calibration {
    let mut spread = Others::default();
    spread.sample();
    let (wall, cpu) = (Instant::now(), cpu_seconds());
    let quarter = budget / 4;
    let q_per_s = qlearning_rate(quarter);
    let mcts_per_s = (mcts_rate(Board::EMPTY, quarter) + mcts_rate(midgame(), quarter)) / 2.0;
    let mut evaluator = Evaluator::new();
    let eval_s = repeat(3, || evaluation_seconds(&mut evaluator)).median;
    let solve_s = repeat(3, solve_seconds).median;
    let free = cpu.zip(cpu_seconds()).map_or(1.0, |(a, b)| ((b - a) / wall.elapsed().as_secs_f64()).clamp(0.05, 1.0));
    spread.sample();
    let mut cal = Calibration::quick(q_per_s / free, mcts_per_s / free, eval_s * free, solve_s * free);
    cal.shares = quick_shares();
    cal.free = free;
    spread.sample();
    cal.others = spread.steady();
    if let Some(page_s) = page_seconds() {
        cal.page_s = page_s;
    }
    cal
}

/// Each learner's share of Q-learning's speed from 7 pairs of short runs (20,000
/// episodes each, about a millisecond; see [`share_of_qlearning`]): about 0.1 s for all,
/// and on this project's host the reference shares of `solvers::learners` were off by up
/// to a half (Expected SARSA's 0.72 against 0.97 to 1.05 measured).
pub fn quick_shares() -> std::collections::BTreeMap<String, f64> {
    LEARNERS[1..].iter().map(|l| (l.name.to_string(), share_of_qlearning(l, 20_000, Duration::ZERO).median)).collect()
}

/// Seconds to write a fresh page (4 KiB) for the first time: the system maps and zeroes
/// it then, which on a virtual machine can cost more than the work a job does with it.
/// Measured on 8 MiB mapped for the purpose (so that no allocator hands back memory
/// already touched), one byte written per page; the median of three.
pub fn page_seconds() -> Option<f64> {
    #[cfg(unix)]
    {
        const BYTES: usize = 8 << 20;
        let once = || -> Option<f64> {
            // SAFETY: an anonymous private mapping with no address hint; checked below.
            let p = unsafe {
                libc::mmap(
                    std::ptr::null_mut(),
                    BYTES,
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                    -1,
                    0,
                )
            };
            if p == libc::MAP_FAILED {
                return None;
            }
            let started = Instant::now();
            for page in 0..BYTES / 4096 {
                // SAFETY: inside the mapping, which is readable and writable.
                unsafe { std::ptr::write_volatile((p as *mut u8).add(page * 4096), 1) };
            }
            let seconds = started.elapsed().as_secs_f64();
            // SAFETY: the mapping made above, no longer used.
            unsafe { libc::munmap(p, BYTES) };
            Some(seconds / (BYTES / 4096) as f64)
        };
        let mut samples = [once()?, once()?, once()?];
        samples.sort_by(f64::total_cmp);
        Some(samples[1])
    }
    #[cfg(not(unix))]
    None
}

/// Spells of [`others`] a reading takes, and the pause between two where nothing else
/// separates them (a saved calibration).
const OTHERS_SPELLS: usize = 3;
const OTHERS_GAP: Duration = Duration::from_millis(60);

/// The host's other work read in spells of 40 ms spread over the calibration (before,
/// between and after its kernels, or apart by [`OTHERS_GAP`]), the lowest kept: work
/// that lasts through a run shows in every spell, while a blip (the tail of the process
/// before writing its files back, a kernel thread compacting memory it freed) shows in
/// one. Two spells back to back, as before, read a blip in both and put a second of
/// other work into a plan where the run right after found none (a self-play sweep
/// estimated at 5.1 s of wall on 2 threads ran in 2.2 s). A reading under a quarter of a
/// thread is the spinners' own noise on a quiet host (0.0 to 0.4 in five plans in a row)
/// and is read as none.
#[derive(Default)]
struct Others {
    lowest: Option<f64>,
}

impl Others {
    fn sample(&mut self) {
        if let Some(o) = others(Duration::from_millis(40)) {
            self.lowest = Some(self.lowest.map_or(o, |l: f64| l.min(o)));
        }
    }

    fn steady(&self) -> Option<f64> {
        self.lowest.map(|o| if o < 0.25 { 0.0 } else { o })
    }
}

/// The other work on this host, in threads' worth: one thread per core spins for
/// `spell`, and each gets `cores / (cores + others)` of a core. One busy thread cannot
/// tell a quiet host from one with a core's worth of other work; a thread per core can.
fn others(spell: Duration) -> Option<f64> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let shares: Vec<Option<f64>> = std::thread::scope(|scope| {
        let spinners: Vec<_> = (0..cores)
            .map(|_| {
                scope.spawn(move || {
                    let (wall, cpu) = (Instant::now(), cpu_seconds()?);
                    let mut x = 0u64;
                    while wall.elapsed() < spell {
                        for i in 0..10_000u64 {
                            x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(i));
                        }
                    }
                    Some((cpu_seconds()? - cpu) / wall.elapsed().as_secs_f64())
                })
            })
            .collect();
        spinners.into_iter().map(|s| s.join().ok().flatten()).collect()
    });
    let shares: Option<Vec<f64>> = shares.into_iter().collect();
    let share = shares?.iter().sum::<f64>() / cores as f64;
    // Under about 3% short of a whole core is the clock's and the scheduler's noise.
    let share = if share > 0.97 { 1.0 } else { share.max(0.05) };
    Some((cores as f64 / share - cores as f64).max(0.0))
}

/// The CPU time of this thread, where the system tells it.
fn cpu_seconds() -> Option<f64> {
    #[cfg(unix)]
    {
        let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        // SAFETY: `t` is a valid timespec for the call to fill.
        let ok = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) } == 0;
        ok.then_some(t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9)
    }
    #[cfg(not(unix))]
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hosts_other_work_and_a_fresh_pages_cost_are_measured_where_the_system_tells() {
        if let Some(others) = others(Duration::from_millis(20)) {
            assert!(others.is_finite() && others >= 0.0, "{others}");
        }
        if let Some(page) = page_seconds() {
            // Mapping and zeroing 4 KiB takes more than a nanosecond and far less than a
            // millisecond on any machine this runs on.
            assert!(page > 1e-9 && page < 1e-3, "{page}");
        }
        #[cfg(unix)]
        assert!(page_seconds().is_some() && others(Duration::from_millis(5)).is_some());
    }

    #[test]
    fn a_figure_is_the_median_min_and_max_of_its_samples() {
        assert_eq!(Figure::of(vec![3.0, 1.0, 2.0]), Figure { median: 2.0, min: 1.0, max: 3.0, unmeasured: 0 });
        assert_eq!(Figure::of(vec![4.0, 1.0, 2.0, 3.0]).median, 2.5);
        assert_eq!(Figure::of(vec![7.0]), Figure { median: 7.0, min: 7.0, max: 7.0, unmeasured: 0 });
    }

    #[test]
    fn repetitions_that_were_not_measured_are_left_out_or_leave_no_figure() {
        let some = Figure::of_samples(vec![Ok(5.0), Err("short".into()), Ok(1.0), Ok(f64::INFINITY), Ok(3.0)]);
        assert_eq!(some, Ok(Figure { median: 3.0, min: 1.0, max: 5.0, unmeasured: 2 }));
        let most = Figure::of_samples(vec![Err("short".into()), Ok(1.0), Err("shorter".into())]).unwrap_err();
        assert!(most.starts_with("short") && most.ends_with("(2 of 3 repetitions)"), "{most}");
        assert!(Figure::of_samples(vec![Ok(f64::NAN)]).is_err());
        assert!(Figure::of_samples(Vec::new()).is_err());
    }

    /// Both rates of a bigger board are measured, from one run timed at its checkpoints.
    #[test]
    fn the_rates_on_a_bigger_board_are_of_the_fresh_and_the_warmed_table() {
        let (cold, steady) = qlearning_rates_on("3x4k3".parse().unwrap(), 2_000);
        assert!(cold.unwrap() > 0.0 && steady.unwrap() > 0.0);
    }
}
