//! Properties of sampled axes: the points are a pure function of the spec (the same on
//! every parse, on any thread), and prefix-stable (raising `samples` keeps the first
//! points, so their job ids do not change).

use proptest::prelude::*;
use sweep::spec::parse;

/// A solver with 1 to 3 sampled axes of mixed forms, `samples` points, by `sampler`.
fn spec(seed: u64, forms: &[usize], samples: u32, sampler: &str) -> String {
    const AXES: [&str; 5] = [
        "alpha = { uniform = [0.05, 1] }",
        "gamma = { loguniform = [0.5, 1] }",
        "epsilon_decay = { one_minus_loguniform = [-5, -2] }",
        "episodes = { int_loguniform = [10, 100000] }",
        "symmetry = { choice = [false, true] }",
    ];
    let mut text = format!(
        "seed = {seed}\n[evaluation]\ncheckpoints = 1\n[[solver]]\nkind = \"q-learning\"\nlabel = \"s\"\n\
         samples = {samples}\nsampler = \"{sampler}\"\n"
    );
    let mut used: Vec<usize> = forms.iter().map(|f| f % AXES.len()).collect();
    used.sort_unstable();
    used.dedup();
    for f in used {
        text.push_str(AXES[f]);
        text.push('\n');
    }
    text
}

fn ids(text: &str) -> Vec<String> {
    let sweep = parse(text, "prop.toml").unwrap_or_else(|e| panic!("{e}\nin:\n{text}"));
    sweep.jobs().into_iter().map(|j| j.id).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn raising_samples_keeps_the_first_points(
        seed in 0u64..1000,
        forms in prop::collection::vec(0usize..5, 1..4),
        few in 1u32..40,
        more in 0u32..40,
        sobol in any::<bool>(),
    ) {
        let sampler = if sobol { "sobol" } else { "random" };
        let small = ids(&spec(seed, &forms, few, sampler));
        let large = ids(&spec(seed, &forms, few + more, sampler));
        prop_assert!(small.len() <= large.len());
        prop_assert_eq!(&small[..], &large[..small.len()]);
    }

    #[test]
    fn points_are_the_same_on_every_thread(
        seed in 0u64..1000,
        forms in prop::collection::vec(0usize..5, 1..4),
        samples in 1u32..60,
        sobol in any::<bool>(),
    ) {
        let text = spec(seed, &forms, samples, if sobol { "sobol" } else { "random" });
        let here = ids(&text);
        let threads: Vec<Vec<String>> = (0..3)
            .map(|_| { let t = text.clone(); std::thread::spawn(move || ids(&t)) })
            .map(|h| h.join().unwrap())
            .collect();
        for other in threads {
            prop_assert_eq!(&here, &other);
        }
        prop_assert_eq!(ids(&text), here);
    }
}
