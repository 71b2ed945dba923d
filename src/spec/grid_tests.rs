//! Tests of valid specs through the spec module's public API: the design example, read
//! from text and from a file, the axes and the values they give, the grid and job order,
//! the stability of job ids, the resolved spec and lists of kinds.

use super::*;
use crate::mdp::{Opponent, Seat};
use crate::seed::{job_id, job_seed};
use crate::solvers::params::ExactParams;
use crate::solvers::{FinalMove, MctsParams, OpponentModel, QParams};

/// The example spec of the design contract: a Q-learning grid and an MCTS grid.
const DESIGN_EXAMPLE_SPEC: &str = r#"
name = "qlearning"           # results go to results/qlearning/ unless --out
seed = 2026                  # master seed (u64)
replicates = 5               # runs per grid point

[evaluation]
opponents = ["random", "minimax"]   # exact evaluation against each (default ["random"])
games = 1000                        # extra sampled games per opponent (default 0)
checkpoints = 20                    # learning-curve points for learners (default 10)

[[solver]]
kind = "q-learning"
episodes = 50_000
alpha = [0.1, 0.25, 0.5]
gamma = [0.9, 0.99, 1.0]
epsilon = 1.0
epsilon_decay = [0.999, 0.9995, 0.9999]
epsilon_min = 0.05

[[solver]]
kind = "mcts"
iterations = [100, 1000, 10000]
uct_c = [0.5, 1.0, 1.414, 2.0]
"#;

fn ok(text: &str) -> Sweep {
    parse(text, "t.toml").unwrap_or_else(|e| panic!("expected a valid spec, got:\n{e}"))
}

/// A q-learning solver whose third line is `body`.
fn q(body: &str) -> String {
    format!("[[solver]]\nkind = \"q-learning\"\n{body}\n")
}

/// An mcts solver whose third line is `body`.
fn mcts(body: &str) -> String {
    format!("[[solver]]\nkind = \"mcts\"\n{body}\n")
}

#[test]
fn load_names_the_path() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope.toml");
    let e = load(&missing).unwrap_err().to_string();
    assert!(e.contains("nope.toml") && e.contains("does not exist"), "{e}");
    let e = load(dir.path()).unwrap_err().to_string();
    assert!(e.contains(&dir.path().display().to_string()) && e.contains("is a directory"), "{e}");
    let file = dir.path().join("grid.toml");
    std::fs::write(&file, q("alpha = 7")).unwrap();
    let e = load(&file).unwrap_err();
    assert_eq!(e.problems[0].file, file.display().to_string());
    assert_eq!(e.problems[0].line, Some(3));
    std::fs::write(&file, DESIGN_EXAMPLE_SPEC).unwrap();
    assert_eq!(load(&file).unwrap().name, "qlearning");
    std::fs::write(&file, [0xff, 0xfe, b'a']).unwrap();
    assert!(load(&file).unwrap_err().to_string().contains("not UTF-8"));
}

#[test]
fn design_example() {
    let sweep = ok(DESIGN_EXAMPLE_SPEC);
    assert_eq!((sweep.name.as_str(), sweep.seed, sweep.replicates), ("qlearning", 2026, 5));
    assert_eq!(
        sweep.evaluation,
        EvaluationSpec {
            opponents: vec![Opponent::Random.into(), Opponent::Minimax.into()],
            games: 1000,
            checkpoints: 20,
            spacing: crate::solvers::spacing::Spacing::Even,
            exact_searches: crate::spec::EXACT_SEARCHES,
            from: None,
        }
    );
    // 3 alphas x 3 gammas x 3 epsilon decays; 3 iteration counts x 4 exploration constants.
    assert_eq!(sweep.solvers[0].points.len(), 27);
    assert_eq!(sweep.solvers[1].points.len(), 12);
    assert_eq!(sweep.job_counts(), [("q-learning".to_string(), 135), ("mcts".to_string(), 60)]);
    assert_eq!(sweep.job_count(), 195);
    assert_eq!(sweep.jobs().len(), 195);
    let Params::QLearning(first) = sweep.solvers[0].points[0] else { panic!() };
    assert_eq!(
        first,
        QParams { episodes: 50_000, alpha: 0.1, gamma: 0.9, epsilon: 1.0, epsilon_decay: 0.999, ..QParams::default() }
    );
    // The last axis (epsilon_decay) varies fastest, the first (alpha) slowest.
    let Params::QLearning(second) = sweep.solvers[0].points[1] else { panic!() };
    assert_eq!((second.alpha, second.gamma, second.epsilon_decay), (0.1, 0.9, 0.9995));
    let Params::QLearning(tenth) = sweep.solvers[0].points[9] else { panic!() };
    assert_eq!((tenth.alpha, tenth.gamma, tenth.epsilon_decay), (0.25, 0.9, 0.999));
    let Params::Mcts(m) = sweep.solvers[1].points[11] else { panic!() };
    assert_eq!(m, MctsParams { iterations: 10_000, uct_c: 2.0, ..MctsParams::default() });
}

#[test]
fn axes_give_their_values() {
    let sweep =
        ok(&q("alpha = [0.5, 0.1]\ngamma = { linspace = [0.9, 1, 3] }\nepsilon_decay = { logspace = [-3, -1, 3] }\n\
         epsilon_min = 0\nepsilon = { logspace = [-3, -1, 3] }"));
    let resolved = sweep.resolved();
    let axis = |name: &str| resolved["solvers"][0][name].clone();
    assert_eq!(axis("alpha"), serde_json::json!([0.5, 0.1]));
    assert_eq!(axis("gamma"), serde_json::json!([0.9, 0.95, 1.0]));
    assert_eq!(axis("epsilon_decay"), serde_json::json!([0.001, 0.01, 0.1]));
    assert_eq!(axis("episodes"), serde_json::json!([50_000]));
    assert_eq!(axis("seat"), serde_json::json!(["x"]));
    assert_eq!(sweep.job_count(), 2 * 3 * 3 * 3);
    let ints = ok(&mcts("iterations = { logspace = [1, 3, 3] }\nuct_c = { linspace = [0, 2, 5] }"));
    assert_eq!(ints.resolved()["solvers"][0]["iterations"], serde_json::json!([10, 100, 1000]));
    assert_eq!(ints.resolved()["solvers"][0]["uct_c"], serde_json::json!([0.0, 0.5, 1.0, 1.5, 2.0]));
    let one = ok(&mcts("uct_c = { linspace = [0.7, 9, 1] }\nfinal_move = [\"value\", \"visits\"]"));
    assert_eq!(one.resolved()["solvers"][0]["uct_c"], serde_json::json!([0.7]));
    let Params::Mcts(m) = one.solvers[0].points[0] else { panic!() };
    assert_eq!((m.final_move, m.opponent_model), (FinalMove::Value, OpponentModel::Adversarial));
    let floats_for_ints = ok(&q("episodes = [1e3, 2000]"));
    assert_eq!(floats_for_ints.resolved()["solvers"][0]["episodes"], serde_json::json!([1000, 2000]));
}

#[test]
fn jobs_follow_solver_point_replicate_order() {
    let sweep = ok(&format!(
        "seed = 11\nreplicates = 3\n{}[[solver]]\nkind = \"policy-iteration\"\nseat = [\"x\", \"o\"]\n",
        mcts("uct_c = [1, 2]")
    ));
    let jobs = sweep.jobs();
    assert_eq!(jobs.len() as u64, sweep.job_count());
    assert_eq!(jobs.len(), (2 + 2) * 3);
    let order: Vec<(usize, usize, u32)> = jobs.iter().map(|j| (j.solver, j.point, j.replicate)).collect();
    assert_eq!(&order[..4], [(0, 0, 0), (0, 0, 1), (0, 0, 2), (0, 1, 0)]);
    assert_eq!(order[6], (1, 0, 0));
    for (i, job) in jobs.iter().enumerate() {
        assert_eq!(job.index, i);
        assert_eq!(job.params, sweep.solvers[job.solver].points[job.point]);
        assert_eq!(job.seed, job_seed(11, job.replicate));
        assert_eq!(job.id, job_id(&job.params.canonical_key(11, job.replicate)));
    }
    assert_eq!(
        jobs[6].params,
        Params::PolicyIteration(crate::kinds::PolicyIteration(ExactParams {
            seat: Seat::X,
            opponent: Opponent::Random,
            game: crate::game::Game::TIC_TAC_TOE,
        }))
    );
    // Paired seeds: the same replicate has the same seed at every grid point.
    assert_eq!(jobs[0].seed, jobs[3].seed);
    assert_ne!(jobs[0].seed, jobs[1].seed);
}

#[test]
fn job_ids_are_unique_and_stable() {
    let sweep = ok(DESIGN_EXAMPLE_SPEC);
    let jobs = sweep.jobs();
    let mut ids: Vec<&str> = jobs.iter().map(|j| j.id.as_str()).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), jobs.len());
    // Recorded once: a change to the canonical key or the hash shows up here.
    assert_eq!(
        jobs[0].params.canonical_key(2026, 0),
        "seed=2026;solver=q-learning;seat=x;opponent=random;episodes=50000;alpha=0.1;alpha_decay=1.0;\
         alpha_min=0.0;gamma=0.9;epsilon=1.0;epsilon_decay=0.999;epsilon_min=0.05;q_init=0.0;symmetry=false;replicate=0"
    );
    assert_eq!(jobs[0].id, "479490338449");
    assert_eq!(sweep.hash(), "005178d2c33d1290");

    // Editing the evaluation, the other solver or the name keeps the q-learning ids.
    let edited = DESIGN_EXAMPLE_SPEC
        .replace("games = 1000", "games = 10")
        .replace("opponents = [\"random\", \"minimax\"]", "opponents = [\"minimax-uniform\"]")
        .replace("uct_c = [0.5, 1.0, 1.414, 2.0]", "uct_c = [3.0]")
        .replace("name = \"qlearning\"", "name = \"other\"");
    let other = ok(&edited);
    assert_ne!(other.hash(), sweep.hash());
    let q_ids = |s: &Sweep| -> Vec<String> { s.jobs().into_iter().filter(|j| j.solver == 0).map(|j| j.id).collect() };
    assert_eq!(q_ids(&sweep), q_ids(&other));
    // A new solver in front moves indices but not ids.
    let prepended =
        DESIGN_EXAMPLE_SPEC.replacen("[[solver]]", "[[solver]]\nkind = \"value-iteration\"\n\n[[solver]]", 1);
    let moved = ok(&prepended);
    let moved_ids: Vec<String> = moved.jobs().into_iter().filter(|j| j.solver == 1).map(|j| j.id).collect();
    assert_eq!(moved_ids, q_ids(&sweep));
    // The master seed is part of every id.
    let reseeded = ok(&DESIGN_EXAMPLE_SPEC.replace("seed = 2026", "seed = 2027"));
    assert_ne!(reseeded.jobs()[0].id, jobs[0].id);
}

#[test]
fn resolved_spec() {
    let sweep = ok(DESIGN_EXAMPLE_SPEC);
    let r = sweep.resolved();
    assert_eq!(r["name"], "qlearning");
    assert_eq!(r["seed"], 2026);
    assert_eq!(r["replicates"], 5);
    assert_eq!(
        r["evaluation"],
        serde_json::json!({"opponents": ["random", "minimax"], "games": 1000, "checkpoints": 20})
    );
    assert_eq!(r["solvers"][1]["label"], "mcts");
    assert_eq!(r["solvers"][1]["kind"], "mcts");
    assert_eq!(r["solvers"][1]["opponent_model"], serde_json::json!(["adversarial"]));
    assert_eq!(r["solvers"][0]["alpha"], serde_json::json!([0.1, 0.25, 0.5]));
    assert!(r["solvers"][1].get("alpha").is_none());
    // The hash ignores formatting and comments.
    let reformatted =
        DESIGN_EXAMPLE_SPEC.replace("    #", "\n#").replace("alpha = [0.1, 0.25, 0.5]", "alpha = [ 0.10 , 0.25,0.5 ]");
    assert_eq!(ok(&reformatted).hash(), sweep.hash());
    assert_eq!(sweep.hash().len(), 16);
}

#[test]
fn a_list_of_kinds_is_one_solver_per_kind_with_the_written_out_job_ids() {
    let shared = "seat = \"o\"\nopponent = \"random\"\nepisodes = 300\nalpha = [0.1, 0.5]\n";
    let kinds = ["q-learning", "sarsa", "expected-sarsa", "double-q-learning", "monte-carlo"];
    let listed = ok(&format!("seed = 4\n[[solver]]\nkind = {kinds:?}\n{shared}"));
    let written: String = kinds.iter().map(|k| format!("[[solver]]\nkind = \"{k}\"\n{shared}")).collect();
    let written = ok(&format!("seed = 4\n{written}"));
    let labels: Vec<&str> = listed.solvers.iter().map(|s| s.label.as_str()).collect();
    assert_eq!(labels, kinds);
    let ids = |s: &Sweep| s.jobs().into_iter().map(|j| j.id).collect::<Vec<_>>();
    assert_eq!(ids(&listed), ids(&written));
    assert_eq!(ids(&listed).len(), 5 * 2);
}
