//! Schedules relative to the budget, end to end: a rate given `_min_at` follows
//! `start · (floor / start)^(e / (f · episodes))` down to its floor whatever the episode
//! count (checked against that formula in `curves.csv`), the results say what ran, and
//! `reproduce` gives the same numbers.

use crate::common::*;

#[test]
fn min_at_schedules_scale_with_the_episodes_and_reproduce() {
    let tmp = tempfile::tempdir().unwrap();
    let text = "name = \"min-at\"\nseed = 5\nreplicates = 2\n[evaluation]\ncheckpoints = 8\n\
                [[solver]]\nkind = \"q-learning\"\nepisodes = [400, 1600]\nepsilon = 0.8\nepsilon_min = 0.02\n\
                epsilon_min_at = [0.25, 0.5]\nalpha = 0.5\nalpha_min = 0.1\nalpha_min_at = 1.0\n\
                [[solver]]\nkind = \"sarsa\"\nepisodes = 800\nexploration = \"softmax\"\ntemperature_min_at = 0.5\n";
    let spec = write_spec(tmp.path(), "min-at.toml", text);
    let out = tmp.path().join("out");
    let o = run(&["run", spec.to_str().unwrap(), "--quiet", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let (header, rows) = read_csv(&out.join("results.csv"));
    let col = |name: &str| header.iter().position(|c| c == name).unwrap();
    assert_eq!(rows.len(), 5 * 2);
    // (job id) -> (episodes, epsilon's f, temperature's f)
    let mut jobs = std::collections::HashMap::new();
    for r in &rows {
        let episodes: f64 = r[col("episodes")].parse().unwrap();
        let decay: f64 = r[col("epsilon_decay")].parse().unwrap();
        let temperature_decay: f64 = r[col("temperature_decay")].parse().unwrap();
        if r[col("solver")] == "q-learning" {
            let f: f64 = r[col("epsilon_min_at")].parse().unwrap();
            // The decay column is the one that ran: 0.8 -> 0.02 in f * episodes episodes.
            assert!((0.8 * decay.powf(f * episodes) - 0.02).abs() < 1e-12, "{r:?}");
            let alpha_decay: f64 = r[col("alpha_decay")].parse().unwrap();
            assert!((0.5 * alpha_decay.powf(episodes) - 0.1).abs() < 1e-12, "{r:?}");
            assert_eq!(r[col("temperature_min_at")], "", "unset: empty");
            assert_eq!(temperature_decay, 0.9995);
            jobs.insert(r[0].clone(), (episodes, Some(f)));
        } else {
            assert_eq!((r[col("epsilon_min_at")].as_str(), r[col("alpha_min_at")].as_str()), ("", ""));
            assert_eq!(r[col("temperature_min_at")], "0.5");
            assert_eq!(decay, 0.9995, "epsilon keeps its decay");
            // The default temperature 1 reaches its default floor 0.01 after 400 episodes.
            assert!((temperature_decay.powf(400.0) - 0.01).abs() < 1e-12, "{r:?}");
            jobs.insert(r[0].clone(), (episodes, None));
        }
    }
    // curves.csv: the rate of each checkpoint's episode, by the formula.
    let (header, curves) = read_csv(&out.join("curves.csv"));
    let col = |name: &str| header.iter().position(|c| c == name).unwrap();
    let mut checked = 0;
    for c in &curves {
        let (episodes, f) = jobs[&c[col("job_id")]];
        let e: f64 = c[col("episode")].parse().unwrap();
        let (rate, start, floor, f) = match f {
            // A checkpoint records the rate its episode played with: e - 1 decays.
            Some(f) => (c[col("epsilon")].parse::<f64>().unwrap(), 0.8_f64, 0.02, f),
            None => (c[col("epsilon")].parse::<f64>().unwrap(), 1.0, 0.01, 0.5),
        };
        let decays = (e - 1.0).max(0.0);
        let expected = (start * (floor / start).powf(decays / (f * episodes))).max(floor);
        assert!((rate - expected).abs() <= 1e-9 * expected, "{c:?}: {rate} vs {expected}");
        checked += 1;
    }
    assert!(checked >= 5 * 2 * 8);
    // One job of each kind reproduces bit for bit.
    for r in [&rows[0], rows.last().unwrap()] {
        let o = run(&["reproduce", out.to_str().unwrap(), "--job", &r[0]]);
        assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    }
}
