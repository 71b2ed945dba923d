//! `sweep play` with moves piped in, and shell completions.

use crate::common::*;

fn play(args: &[&str], input: &str) -> std::process::Output {
    sweep().arg("play").args(args).write_stdin(input).output().unwrap()
}

#[test]
fn the_optimal_agent_never_loses_and_bad_input_is_reprompted() {
    // X takes 0, 1, ... : a naive human. The agent (O) must win or draw.
    let o = play(&[], "zz\n9\n0\n0\n1\n2\n3\n4\n5\n6\n7\n8\n");
    assert!(o.status.success());
    let text = stdout(&o);
    assert!(text.contains("\"zz\" is not a cell"), "{text}");
    assert!(text.contains("\"9\" is not a cell"), "{text}");
    assert!(text.contains("cell 0 is taken"), "{text}");
    assert!(text.contains("agent plays"), "{text}");
    assert!(text.contains("against a random player"), "the optimal agent shows its value: {text}");
    assert!(text.contains(" 0 | 1 | 2") || text.contains("X | 1 | 2"), "cell numbers are shown: {text}");
    assert!(text.contains("The agent wins.") || text.contains("Draw."), "{text}");
    assert!(!text.contains("You win."));
}

#[test]
fn end_of_input_exits_cleanly_and_o_seat_works() {
    let o = play(&["--seat", "o"], "");
    assert!(o.status.success());
    let text = stdout(&o);
    assert!(text.contains("agent plays"), "the agent moves first when you play O: {text}");
    assert!(text.contains("end of input"), "{text}");
}

#[test]
fn mcts_and_policy_file_agents() {
    let o = play(&["--agent", "mcts", "--iterations", "500"], "4\n0\n2\n6\n8\n1\n3\n5\n7\n");
    assert!(o.status.success(), "{}", stderr(&o));
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("p.csv");
    std::fs::write(&file, "board,action\nX........,4\n").unwrap();
    let o = play(&["--agent", file.to_str().unwrap()], "0\n8\n2\n6\n7\n3\n5\n1\n");
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("agent plays 4 (from the policy file)"), "{}", stdout(&o));
    std::fs::write(&file, "board,action\nX........,0\n").unwrap();
    let o = play(&["--agent", file.to_str().unwrap()], "");
    assert_eq!(o.status.code(), Some(2), "an illegal move in a policy file is bad input");
}

#[test]
fn completions_for_three_shells() {
    for shell in ["bash", "zsh", "fish"] {
        let o = run(&["completions", shell]);
        assert!(o.status.success());
        assert!(stdout(&o).contains("reproduce"), "{shell}");
    }
}

#[test]
fn piped_moves_are_echoed() {
    let o = play(&[], "4\n");
    assert!(o.status.success());
    assert!(stdout(&o).contains("your move: 4\n"), "{}", stdout(&o));
}

#[test]
fn a_policy_file_plays_only_its_own_seat() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("p.csv");
    // O's positions only: the agent must be O, so you must be X.
    std::fs::write(&file, "board,action,seat\nX........,4,o\n").unwrap();
    let o = play(&["--agent", file.to_str().unwrap(), "--seat", "o"], "");
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    assert!(stderr(&o).contains("is a policy for O, so you must play X: use --seat x"), "{}", stderr(&o));
    let o = play(&["--agent", file.to_str().unwrap()], "0\n");
    assert!(o.status.success(), "{}", stderr(&o));
    std::fs::write(&file, "board,action,seat\nX........,4,x\n").unwrap();
    let o = play(&["--agent", file.to_str().unwrap()], "");
    assert_eq!(o.status.code(), Some(2), "a seat column that contradicts the board is bad input");
}
