"""`sweep summary`'s "could be the best" set checked against an independent computation.

sweep marks `vs_best` by Hsu's multiple comparisons with the best (MCB) in the paired
(randomized complete block) design. Here the same analysis is done directly:

- the pooled variance is the residual mean square of the two-way model
  `regret ~ C(config) + C(replicate)`, fitted by statsmodels' OLS;
- Dunnett's one-sided critical value is solved (scipy's brentq) on scipy's multivariate t
  distribution with correlation 1/2 (a randomized quasi-Monte Carlo integration: about
  3 digits), and to about 1e-10 on the same probability written as a mixture over the
  chi-square variable, integrated by scipy's Gauss-Hermite and Gauss-Laguerre rules;
- the set, the margin and the simultaneous intervals follow from them.

The synthetic case has a known answer: three configurations far behind the others are out
of the set, and the best is one of the three close ones. The flagship case is experiments/qlearning.toml, run
with the sweep binary. Without a binary the tests are skipped, unless
SWEEP_REQUIRE_BINARY=1 makes that a failure (CI).

Run from the scripts directory: python3 -m unittest tests.test_mcb
"""

import csv
import json
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

import numpy as np
import pandas as pd
import statsmodels.formula.api as smf
from scipy import optimize, special, stats

SCRIPTS = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(SCRIPTS)]

import plot_common as pc  # noqa: E402
import sweep_tables  # noqa: E402

ROOT = SCRIPTS.parent
ALPHA = 0.05
CONFIG = ["alpha", "gamma", "epsilon_decay"]


def sweep_binary():
    try:
        return sweep_tables.find_sweep()
    except pc.UsageError:
        if os.environ.get("SWEEP_REQUIRE_BINARY") == "1":
            raise
        return None


def dunnett_mvt(comparisons, df):
    """Dunnett's one-sided critical value from scipy's multivariate t (randomized)."""
    shape = np.full((comparisons, comparisons), 0.5)
    np.fill_diagonal(shape, 1.0)
    mvt = stats.multivariate_t(loc=np.zeros(comparisons), shape=shape, df=df, seed=7)
    return optimize.brentq(lambda d: mvt.cdf(np.full(comparisons, d)) - (1 - ALPHA), 0.5, 8.0, xtol=1e-6)


def dunnett_gauss(comparisons, df, nodes=120):
    """The same value to about 1e-10 from P(max T <= d) = E[Phi(Z + sqrt(2) d S)^m],
    S ~ sqrt(chi2_df / df): Gauss-Hermite nodes over Z and generalized Gauss-Laguerre
    nodes over chi2_df / 2 (scipy.special's rules), solved by brentq."""
    z, wz = special.roots_hermitenorm(nodes)
    wz = wz / np.sqrt(2 * np.pi)
    u, wu = special.roots_genlaguerre(nodes, df / 2 - 1)
    wu = np.exp(np.log(wu) - special.gammaln(df / 2))
    s = np.sqrt(2 * u / df)

    def cdf(d):
        return wu @ (stats.norm.cdf(z[None, :] + np.sqrt(2) * d * s[:, None]) ** comparisons @ wz)

    return optimize.brentq(lambda d: cdf(d) - (1 - ALPHA), 0.5, 8.0, xtol=1e-12)


def mcb_direct(frame, critical):
    """MCB by hand on `frame` (columns config, replicate, regret; lower is better): the
    margin and, per configuration, its gap, interval and membership."""
    fit = smf.ols("regret ~ C(config) + C(replicate)", data=frame).fit()
    k, n = frame["config"].nunique(), frame["replicate"].nunique()
    assert fit.df_resid == (k - 1) * (n - 1)
    d = critical(k - 1, fit.df_resid)
    margin = d * np.sqrt(fit.mse_resid) * np.sqrt(2 / n)
    means = frame.groupby("config")["regret"].mean()
    out = {}
    for c, m in means.items():
        gap = m - means.drop(c).min()
        out[c] = {"gap": gap, "low": min(0.0, gap - margin), "high": max(0.0, gap + margin),
                  "in": gap <= margin}
    return margin, d, out


def summary_json(sweep, results):
    # Synthetic results have no manifest: --unverified reads them.
    done = subprocess.run([sweep, "summary", str(results), "--format", "json", "--unverified"], capture_output=True,
                          text=True,
                          check=True)
    table = json.loads(done.stdout)
    names = [c["name"] for c in table["columns"]]
    return pd.DataFrame(table["rows"], columns=names), table["notes"]


def write_synthetic(path, means, replicates, rng):
    """A results.csv of Q-learning configurations (alpha = 0.1, 0.2, ...) with the given
    true mean regrets, a replicate effect shared by every configuration, and noise."""
    header = [c["name"] for c in json.loads((SCRIPTS / "columns.json").read_text())["results"]]
    block = rng.normal(0.0, 0.05, replicates)
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=header, restval="")
        w.writeheader()
        for i, mu in enumerate(means):
            for r in range(replicates):
                regret = max(0.0, mu + 0.2 + block[r] + rng.normal(0.0, 0.02))
                w.writerow({"job_id": f"job{i}-{r}", "solver": "q-learning", "replicate": r, "seed": 1000 + r,
                            "seat": "x", "opponent": "random", "episodes": 1000, "alpha": f"0.{i + 1}",
                            "gamma": 0.9, "epsilon_decay": 0.999, "eval_opponent": "random", "regret": repr(float(regret)),
                            "status": "ok", "label": "q-learning", "game": "3x3k3", "split": "tune"})


class McbAgainstIndependentComputation(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.sweep = sweep_binary()
        if cls.sweep is None:
            raise unittest.SkipTest("no sweep binary (set SWEEP or cargo build --release)")
        cls.tmp = tempfile.TemporaryDirectory()

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_critical_value_quadrature_agrees_with_multivariate_t(self):
        # The two independent routes to Dunnett's d agree to the randomized one's error.
        for m, df in [(2, 10), (5, 20), (26, 234)]:
            self.assertAlmostEqual(dunnett_mvt(m, df), dunnett_gauss(m, df), delta=3e-3)

    def check_block(self, rows, frame, notes_line):
        """sweep's marks and intervals of one block against the direct computation."""
        margin, d, direct = mcb_direct(frame, dunnett_gauss)
        _, d_mvt, _ = mcb_direct(frame, dunnett_mvt)
        self.assertAlmostEqual(d, d_mvt, delta=3e-3)
        self.assertIn(f"d {d:.3f}", notes_line)
        smallest = min(v["gap"] for v in direct.values())
        self.assertEqual(len(rows), len(direct))
        for _, row in rows.iterrows():
            c = "|".join(str(row[k]) for k in CONFIG)
            mine = direct[c]
            self.assertAlmostEqual(row["mcb_low"], mine["low"], delta=1e-9, msg=c)
            self.assertAlmostEqual(row["mcb_high"], mine["high"], delta=1e-9, msg=c)
            # The set: best, equal and could-be-best are in it, not-best is out.
            self.assertEqual(row["vs_best"] != "not-best", mine["in"], msg=(c, row["vs_best"], mine, margin))
            if row["vs_best"] == "best":
                self.assertEqual(mine["gap"], smallest, msg=c)
        self.assertEqual((rows["vs_best"] == "best").sum(), 1)
        return direct

    def frame_of(self, results, eval_opponent):
        raw = pd.read_csv(results, dtype=str, keep_default_na=False)
        raw = raw[(raw["solver"] == "q-learning") & (raw["eval_opponent"] == eval_opponent)]
        if "split" in raw:
            raw = raw[raw["split"].isin(["", "tune"])]
        return pd.DataFrame({
            "config": ["|".join(values) for values in zip(*(raw[k] for k in CONFIG))],
            "replicate": raw["replicate"].astype(int).to_numpy(),
            "regret": raw["regret"].astype(float).to_numpy(),
        })

    def test_synthetic_case_with_a_known_answer(self):
        out = Path(self.tmp.name) / "synthetic"
        out.mkdir()
        means = [0.0, 0.005, 0.01, 0.3, 0.4, 0.5]
        write_synthetic(out / "results.csv", means, 12, np.random.default_rng(2026))
        table, notes = summary_json(self.sweep, out)
        frame = self.frame_of(out / "results.csv", "random")
        line = next(n for n in notes if "could be the best (Hsu" in n)
        direct = self.check_block(table, frame, line)
        # The known answer: the three far behind (0.3 and more, against a margin of about
        # 0.02) are out; the best is one of the three close ones.
        by_alpha = dict(zip(table["alpha"].astype(str), table["vs_best"]))
        self.assertEqual([by_alpha[f"0.{i}"] for i in range(4, 7)], ["not-best"] * 3, by_alpha)
        self.assertIn("best", [by_alpha[f"0.{i}"] for i in range(1, 4)], by_alpha)
        inside = sum(v["in"] for v in direct.values())
        self.assertIn(f"{inside} of 6", line)

    def test_compare_draws_the_interval_of_its_verdict(self):
        # `sweep compare`'s ci_low..ci_high is the paired t interval at level
        # 1 - alpha * p / p_holm: computed here with scipy's t test and quantile and
        # statsmodels' Holm adjustment, and it excludes 0 exactly when the verdict is
        # better or worse.
        from statsmodels.stats.multitest import multipletests
        out = Path(self.tmp.name) / "compare"
        out.mkdir()
        write_synthetic(out / "results.csv", [0.0, 0.004, 0.01, 0.02, 0.3], 6, np.random.default_rng(7))
        done = subprocess.run([self.sweep, "compare", str(out), "--format", "json", "--unverified"],
                              capture_output=True, text=True,
                              check=True)
        table = json.loads(done.stdout)
        rows = pd.DataFrame(table["rows"], columns=[c["name"] for c in table["columns"]])
        frame = self.frame_of(out / "results.csv", "random")
        wide = frame.pivot(index="replicate", columns="config", values="regret")
        base = rows[rows["verdict"] == "baseline"]["configuration"].iloc[0]
        name = lambda c: f"alpha={c.split('|')[0]}"  # noqa: E731
        base_col = next(c for c in wide.columns if name(c) == base)
        others = [c for c in wide.columns if c != base_col]
        p = [stats.ttest_rel(wide[c], wide[base_col]).pvalue for c in others]
        holm = multipletests(p, method="holm")[1]
        for c, p_t, p_holm in zip(others, p, holm):
            row = rows[rows["configuration"] == name(c)].iloc[0]
            d = wide[c] - wide[base_col]
            se = d.std(ddof=1) / np.sqrt(len(d))
            half = stats.t.ppf(1 - ALPHA * p_t / p_holm / 2, len(d) - 1) * se
            self.assertAlmostEqual(row["p_holm"], p_holm, delta=1e-9, msg=c)
            self.assertAlmostEqual(row["ci_low"], d.mean() - half, delta=1e-9, msg=c)
            self.assertAlmostEqual(row["ci_high"], d.mean() + half, delta=1e-9, msg=c)
            clear = row["ci_low"] > 0 or row["ci_high"] < 0
            self.assertEqual(clear, row["verdict"] in ("better", "worse"), msg=(c, row["verdict"]))
        self.assertIn("worse", set(rows["verdict"]))

    def test_flagship_example(self):
        out = Path(self.tmp.name) / "qlearning"
        subprocess.run([self.sweep, "run", str(ROOT / "experiments" / "qlearning.toml"), "--quiet", "--out",
                        str(out)], check=True)
        table, notes = summary_json(self.sweep, out)
        q = table[table["solver"] == "q-learning"]
        for opponent in ["random", "minimax"]:
            rows = q[q["eval_opponent"] == opponent]
            frame = self.frame_of(out / "results.csv", opponent)
            line = next(n for n in notes if f"/{opponent}/" in n and "could be the best (Hsu" in n)
            direct = self.check_block(rows, frame, line)
            inside = sum(v["in"] for v in direct.values())
            self.assertIn(f"{inside} of {len(direct)}", line)
        # What a newcomer reads: against random some configuration is excluded; against
        # minimax the runs identical to the best read equal.
        random_marks = q[q["eval_opponent"] == "random"]["vs_best"]
        self.assertGreaterEqual((random_marks == "not-best").sum(), 1)
        minimax = q[q["eval_opponent"] == "minimax"]
        self.assertGreaterEqual((minimax["vs_best"] == "equal").sum(), 1)
        self.assertTrue((minimax[minimax["mean_regret"] == 0]["vs_best"].isin(["best", "equal"])).all())


if __name__ == "__main__":
    unittest.main()
