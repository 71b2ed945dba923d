"""Tests of the plotting scripts: the statistics, the helpers, and every script run end to
end on synthetic results (make_fake_results.py), including the bad inputs that must end
with exit status 2 and a clear message.

Run from the scripts directory, with the packages of requirements.txt installed:
  cd scripts && python3 -m unittest discover -s tests
"""

import contextlib
import csv
import importlib
import io
import math
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(SCRIPTS), str(SCRIPTS / "tests")]

import pandas as pd  # noqa: E402

import check_png  # noqa: E402
import plot_common as pc  # noqa: E402
import plot_curves  # noqa: E402
import plot_heatmap  # noqa: E402
import plot_importance  # noqa: E402
import plot_mcts  # noqa: E402
import plot_paired  # noqa: E402
import plot_profile  # noqa: E402
import plot_style as ps  # noqa: E402
import sweep_tables  # noqa: E402

# Two-sided 95% (p = 0.975) quantiles of Student's t from published tables.
T_TABLE = {1: 12.7062, 2: 4.3027, 3: 3.1824, 4: 2.7764, 5: 2.5706, 9: 2.2622,
           10: 2.2281, 19: 2.0930, 29: 2.0452, 30: 2.0423, 60: 2.0003, 120: 1.9799}


def _sweep():
    """The sweep binary, or None."""
    try:
        return sweep_tables.find_sweep()
    except pc.UsageError:
        return None


def plot_importance_terms(path):
    """The bars of the importance plot of a saved table's block against random."""
    table = sweep_tables.numbers(pd.read_csv(path, dtype=str, keep_default_na=False))
    return plot_importance.terms(table[table["eval_opponent"] == "random"])


def run(*args):
    """Runs a script in a new interpreter."""
    return subprocess.run([sys.executable, *map(str, args)], capture_output=True, text=True,
                          cwd=SCRIPTS)


class Done:
    def __init__(self, returncode, stdout, stderr):
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


def call(script, *args):
    """Runs a plot script's main() in this interpreter (faster than `run`), with the
    same exit status and output."""
    module = importlib.import_module(script.removesuffix(".py"))
    out, err = io.StringIO(), io.StringIO()
    argv, sys.argv = sys.argv, [script, *map(str, args)]
    code = 0
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            pc.main_wrapper(module.main)
    except SystemExit as exit:
        code = exit.code if isinstance(exit.code, int) else 1
    finally:
        sys.argv = argv
    return Done(code, out.getvalue(), err.getvalue())


class Statistics(unittest.TestCase):
    def test_t_quantiles_match_the_table(self):
        for dof, want in T_TABLE.items():
            self.assertAlmostEqual(pc.t_quantile(0.975, dof), want, places=3, msg=f"dof={dof}")

    def test_other_levels_and_the_normal_limit(self):
        self.assertAlmostEqual(pc.t_quantile(0.95, 10), 1.8125, places=3)
        self.assertAlmostEqual(pc.t_quantile(0.995, 5), 4.0321, places=3)
        self.assertAlmostEqual(pc.t_quantile(0.975, 1_000_000), 1.95996, places=4)
        self.assertAlmostEqual(pc.t_quantile(0.975, 9_999), pc.t_quantile(0.975, 10_001), places=3)

    def test_cdf_is_symmetric_and_exact_for_small_dof(self):
        # dof 1 is Cauchy: P(|T| <= 1) = 1/2; dof 2: P(|T| <= t) = t / sqrt(t^2 + 2)
        self.assertAlmostEqual(pc._t_central(1.0, 1), 0.5, places=12)
        self.assertAlmostEqual(pc._t_central(3.0, 2), 3 / math.sqrt(11), places=12)

    def test_summarize_gives_a_t_interval_clipped_at_zero(self):
        df = pd.DataFrame({"k": ["a"] * 3 + ["b"], "regret": [0.1, 0.2, 0.3, 0.5]})
        s = pc.summarize(df, ["k"]).set_index("k")
        half = 4.302652729911275 * 0.1 / math.sqrt(3)
        self.assertAlmostEqual(s.loc["a", "mean"], 0.2)
        self.assertAlmostEqual(s.loc["a", "hi"], 0.2 + half)
        self.assertEqual(s.loc["a", "lo"], 0.0)  # 0.2 - 0.248 clipped: regret >= 0
        self.assertEqual(s.loc["b", "n"], 1)
        self.assertTrue(math.isnan(s.loc["b", "hi"]))

    def test_summarize_caps_the_interval_at_the_worst_regret(self):
        # against minimax the optimum is 0, so no policy's regret exceeds 1
        df = pd.DataFrame({"k": ["a", "a", "b"], "regret": [0.0, 1.0, 0.5],
                           "optimal_value": [0.0, 0.0, 0.0]})
        s = pc.summarize(df, ["k"]).set_index("k")
        self.assertEqual(s.loc["a", "hi"], 1.0)  # 0.5 + 12.7 * 0.5 capped
        self.assertEqual(s.loc["a", "lo"], 0.0)
        self.assertTrue(math.isnan(s.loc["b", "hi"]))
        self.assertNotIn("worst", s.columns)


class Helpers(unittest.TestCase):
    def test_show_is_compact(self):
        self.assertEqual(pc.show("1.0"), "1")
        self.assertEqual(pc.show("0.9995"), "0.9995")
        self.assertEqual(pc.show("1e-5"), "1e-05")
        self.assertEqual(pc.show("adversarial"), "adversarial")

    def test_sort_key_orders_numbers_numerically(self):
        self.assertEqual(pc.sorted_values(["10", "9", "100", "x"]), ["9", "10", "100", "x"])

    def test_log_axis_when_two_decades(self):
        self.assertTrue(plot_curves.use_log(pd.Series([100, 1000, 10000]), "auto"))
        self.assertFalse(plot_curves.use_log(pd.Series([5000, 25000, 50000]), "auto"))
        self.assertTrue(plot_curves.use_log(pd.Series([5000, 50000]), "on"))
        self.assertFalse(plot_curves.use_log(pd.Series([0, 10, 10000]), "off"))

    def test_fix_matches_numbers_as_numbers(self):
        df = pd.DataFrame({"gamma": ["0.9", "1.0", "1.0"]})
        kept, fixed = pc.parse_fix(["gamma=1"], df, ["gamma"])
        self.assertEqual(len(kept), 2)
        self.assertEqual(fixed, {"gamma": "1"})


class PngCheck(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp())

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def figure(self, name, draw, size=(6, 4)):
        fig = ps.plt.figure(figsize=size)
        draw(fig)
        path = self.tmp / name
        fig.savefig(path, dpi=100)
        ps.plt.close(fig)
        return path

    def test_a_detailed_image_passes(self):
        noise = [[(i * 7919 + j * 104729) % 251 for j in range(300)] for i in range(300)]
        path = self.figure("ok.png", lambda f: f.add_subplot().imshow(noise))
        self.assertIn("colours", check_png.check(path))

    def test_blank_small_and_broken_files_fail(self):
        blank = self.figure("blank.png", lambda f: None)
        with self.assertRaises(check_png.Bad):
            check_png.check(blank)
        tiny = self.figure("tiny.png", lambda f: f.add_subplot().plot([1, 2]), size=(1.5, 1.5))
        with self.assertRaisesRegex(check_png.Bad, "bytes|pixels"):
            check_png.check(tiny)
        text = self.tmp / "text.png"
        text.write_bytes(b"not an image " * 2000)
        with self.assertRaisesRegex(check_png.Bad, "signature"):
            check_png.check(text)
        noise = [[(i * 7919 + j * 104729) % 251 for j in range(300)] for i in range(300)]
        whole = self.figure("whole.png", lambda f: f.add_subplot().imshow(noise)).read_bytes()
        cut = self.tmp / "cut.png"
        cut.write_bytes(whole[: len(whole) - 5000])
        with self.assertRaisesRegex(check_png.Bad, "past the end|IEND"):
            check_png.check(cut)
        with self.assertRaisesRegex(check_png.Bad, "missing"):
            check_png.check(self.tmp / "absent.png")


class Scripts(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp())
        cls.results = cls.tmp / "fake"
        made = run("tests/make_fake_results.py", cls.results)
        assert made.returncode == 0, made.stderr

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def plot(self, script, *args, results=None):
        return call(script, results or self.results, *args)

    def assert_pngs(self, done, count):
        self.assertEqual(done.returncode, 0, done.stderr)
        paths = done.stdout.split()
        self.assertEqual(len(paths), count, done.stdout)
        for path in paths:
            check_png.check(path)  # raises check_png.Bad
        return paths

    def assert_usage_error(self, done, *words):
        self.assertEqual(done.returncode, 2, done.stdout + done.stderr)
        self.assertIn("error:", done.stderr)
        for w in words:
            self.assertIn(w, done.stderr)
        self.assertNotIn("Traceback", done.stderr)

    def test_every_script_writes_valid_images(self):
        self.assert_pngs(run("plot_curves.py", self.results), 1)
        self.assert_pngs(run("plot_heatmap.py", self.results), 2)  # one per opponent
        self.assert_pngs(run("plot_mcts.py", self.results), 1)
        self.assert_pngs(run("plot_profile.py", self.results), 1)
        self.assert_pngs(run("plot_paired.py", self.results / "compare.csv"), 1)
        self.assert_pngs(run("plot_importance.py", self.results / "importance.csv"), 1)

    def test_profile_options(self):
        out = self.tmp / "profile"
        paths = self.assert_pngs(self.plot(
            "plot_profile.py", "--metric", "regret_auc", "--by", "label", "--band",
            "--eval-opponent", "random", "--out", out), 1)
        self.assertEqual(Path(paths[0]).name, "profile_regret_auc_random.png")
        self.assert_pngs(self.plot("plot_profile.py", "--solver", "mcts", "--fix",
                                   "opponent_model=random", "--out", out), 1)
        self.assert_pngs(self.plot("plot_profile.py", "--metric", "solved_at", "--out", out), 1)
        self.assert_usage_error(self.plot("plot_profile.py", "--by", "colour"), "no column colour")
        self.assert_usage_error(self.plot("plot_profile.py", "--solver", "mcts", "--metric",
                                          "regret_auc"), "learners only")

    def test_profile_fractions_count_runs_at_most_tau(self):
        taus = pd.Series([0.0, 0.1, 0.25, 1.0]).to_numpy()
        got = plot_profile.fractions([0.0, 0.1, 0.3, float("inf")], taus)
        self.assertEqual(list(got), [0.25, 0.5, 0.5, 0.75])  # never solved: never counted
        lo, hi = plot_profile.wilson(pd.Series([0.5]).to_numpy(), 10)
        self.assertAlmostEqual(lo[0], 0.2366, places=4)  # Wilson 95% for 5 of 10
        self.assertAlmostEqual(hi[0], 0.7634, places=4)

    def test_paired_and_importance_read_saved_tables(self):
        out = self.tmp / "tables"
        paths = self.assert_pngs(self.plot("plot_paired.py", "--metric", "regret",
                                           "--eval-opponent", "minimax", "--out", out,
                                           results=self.results / "compare.csv"), 1)
        self.assertEqual(Path(paths[0]).name, "paired_regret_minimax.png")
        paths = self.assert_pngs(self.plot("plot_importance.py", "--name", "imp", "--out", out,
                                           results=self.results / "importance.csv"), 1)
        self.assertEqual(Path(paths[0]).name, "imp.png")
        rows = plot_importance_terms(self.results / "importance.csv")
        self.assertEqual(rows[0][0], "gamma")  # largest share first
        self.assertEqual(rows[-1][0], "higher-order interactions")
        self.assertAlmostEqual(sum(s for _, s in rows), 1.0, places=9)

    def test_paired_finds_the_blocks_of_a_comparison_of_learners(self):
        # `sweep compare --by solver`: one baseline per (seat, eval_opponent, game).
        rows = [("q-learning", "x", "baseline"), ("sarsa", "x", "worse"),
                ("q-learning", "o", "cannot-reject"), ("sarsa", "o", "baseline")]
        df = pd.DataFrame([{"solver": a, "seat": s, "eval_opponent": "random", "game": "3x3k3",
                            "verdict": v, "configurations": "2"} for a, s, v in rows])
        self.assertEqual(plot_paired.block_keys(df), ["seat", "eval_opponent", "game"])
        self.assertEqual([len(b) for _, b in plot_paired.blocks_of(df)], [2, 2])
        # Configurations compared within each solver's block: nothing lifted.
        df["solver"] = ["q-learning", "q-learning", "sarsa", "sarsa"]
        self.assertEqual(plot_paired.block_keys(df), ["solver", "seat", "eval_opponent", "game"])

    def test_paired_and_importance_need_a_sweep_binary_for_results(self):
        self.assert_usage_error(self.plot("plot_paired.py", "--sweep", self.tmp / "nosweep"),
                                "--sweep", "no such executable")
        self.assert_usage_error(self.plot("plot_importance.py", "--sweep", self.tmp / "nosweep"),
                                "no such executable")

    @unittest.skipUnless(_sweep(), "no sweep binary (set SWEEP or cargo build --release)")
    def test_paired_and_importance_run_sweep_on_results(self):
        spec = self.tmp / "tiny.toml"
        spec.write_text('name = "tiny"\nseed = 1\nreplicates = 3\n[evaluation]\n'
                        'opponents = ["random"]\ngames = 100\ncheckpoints = 2\n'
                        '[[solver]]\nkind = "q-learning"\nepisodes = 300\n'
                        'alpha = [0.2, 0.6]\ngamma = [0.9, 1.0]\n')
        results = self.tmp / "tiny"
        made = subprocess.run([_sweep(), "run", spec, "--quiet", "--out", results],
                              capture_output=True, text=True)
        self.assertEqual(made.returncode, 0, made.stderr)
        self.assert_pngs(self.plot("plot_paired.py", "--metric", "regret_auc", results=results), 1)
        self.assert_pngs(self.plot("plot_paired.py", "--by", "solver,gamma", "--significance", "t",
                                   "--name", "by_solver", results=results), 1)
        self.assert_pngs(self.plot("plot_importance.py", results=results), 1)
        self.assert_usage_error(self.plot("plot_importance.py", "--by", "nothing",
                                          results=results), "`sweep importance` refused")

    def test_mcts_uses_a_colour_scale_for_many_uct_c(self):
        many = self.filtered("many_c", lambda r: True, uct_c_values=8)
        _, df, _ = pc.load_results(many, "mcts")
        vary = pc.varying(df, plot_mcts.LINE_PARAMS)
        enc = plot_mcts.encoding(df, vary)
        self.assertIsInstance(enc, ps.ScaleEncoding)
        self.assertGreaterEqual(len(enc.configs), 30)
        self.assertLessEqual(len(enc.rows), 3)  # a header and one row per opponent model
        self.assert_pngs(call("plot_mcts.py", many), 1)
        _, few, _ = pc.load_results(self.results, "mcts")
        self.assertNotIsInstance(plot_mcts.encoding(few, vary), ps.ScaleEncoding)

    def test_heatmap_eval_opponent(self):
        paths = self.assert_pngs(self.plot("plot_heatmap.py", "--eval-opponent", "minimax"), 1)
        self.assertIn("vs_minimax", paths[0])
        self.assert_usage_error(self.plot("plot_heatmap.py", "--eval-opponent", "nobody"),
                                "present: random, minimax")

    def test_failed_jobs_are_skipped_and_counted(self):
        done = self.plot("plot_curves.py")
        self.assertIn("skipped 2 row(s) of 1 failed q-learning job(s)", done.stderr)
        self.assertIn("curve row(s) of jobs that failed", done.stderr)

    def test_options_and_the_csv_path_form(self):
        out = self.tmp / "out"
        paths = self.assert_pngs(self.plot(
            "plot_curves.py", "--eval-opponent", "minimax", "--log-x", "on",
            "--fix", "gamma=0.99", "--out", out, results=self.results / "results.csv"), 1)
        self.assertEqual(Path(paths[0]).parent, out)
        self.assertIn("minimax", Path(paths[0]).name)
        self.assert_pngs(self.plot("plot_heatmap.py", "--x", "epsilon_decay", "--y", "alpha",
                                   "--aggregate", "min", "--out", out), 2)
        self.assert_pngs(self.plot("plot_heatmap.py", "--solver", "mcts", "--x", "iterations",
                                   "--y", "uct_c", "--fix", "opponent_model=random",
                                   "--out", out), 2)
        self.assert_pngs(self.plot("plot_mcts.py", "--fix", "uct_c=1.414", "--out", out), 1)
        paths = self.assert_pngs(self.plot(
            "plot_curves.py", "--eval-opponent", "random", "--fix", "gamma=0.99",
            "--colour", "alpha", "--title", "Step sizes", "--name", "lc.png", "--out", out), 1)
        self.assertEqual(Path(paths[0]).name, "lc.png")

    def test_help_shows_an_example(self):
        for script in ("plot_curves.py", "plot_heatmap.py", "plot_mcts.py", "plot_profile.py",
                       "plot_paired.py", "plot_importance.py"):
            done = call(script, "--help")
            self.assertEqual(done.returncode, 0)
            self.assertIn("example:", done.stdout)

    def test_missing_directory(self):
        for script in ("plot_curves.py", "plot_heatmap.py", "plot_mcts.py"):
            self.assert_usage_error(call(script, self.tmp / "nowhere"), "no such results")

    def test_directory_without_results_csv(self):
        empty = self.tmp / "empty"
        empty.mkdir(exist_ok=True)
        self.assert_usage_error(call("plot_mcts.py", empty), "has no results.csv")

    def test_no_rows_of_the_solver(self):
        only_exact = self.filtered("exact", lambda r: r["solver"] == "policy-iteration")
        self.assert_usage_error(call("plot_mcts.py", only_exact), "no mcts rows")
        self.assert_usage_error(call("plot_curves.py", only_exact), "no q-learning rows")
        self.assert_usage_error(call("plot_heatmap.py", only_exact), "no parameter varies")
        self.assert_usage_error(call("plot_heatmap.py", only_exact, "--solver", "q-learning"),
                                "no q-learning rows")

    def test_all_rows_failed(self):
        failed = self.filtered("failed", lambda r: r["status"] == "failed")
        self.assert_usage_error(call("plot_mcts.py", failed), "failed; nothing to plot")

    def test_missing_curves(self):
        no_curves = self.filtered("nocurves", lambda r: True, curves=False)
        self.assert_usage_error(call("plot_curves.py", no_curves), "has no curves.csv")

    def test_bad_options(self):
        self.assert_usage_error(self.plot("plot_heatmap.py", "--fix", "colour=red"),
                                "not a parameter column")
        self.assert_usage_error(self.plot("plot_heatmap.py", "--fix", "gamma=0.5"),
                                "values present: 0.9, 0.99, 1")
        self.assert_usage_error(self.plot("plot_heatmap.py", "--x", "iterations"),
                                "--x iterations: not a parameter of q-learning")
        self.assert_usage_error(self.plot("plot_heatmap.py", "--x", "alpha", "--y", "alpha"),
                                "both alpha")
        self.assert_usage_error(self.plot("plot_curves.py", "--eval-opponent", "nobody"),
                                "present: random, minimax")
        self.assert_usage_error(self.plot("plot_curves.py", "--fix", "alpha=0.1", "--colour",
                                          "alpha"), "--colour alpha: not a parameter that varies")
        self.assert_usage_error(self.plot("plot_curves.py", "--name", "/"), "--name")

    def test_columns_are_found_by_name_in_older_and_newer_files(self):
        # A newer version appends columns: the scripts ignore the ones they do not know.
        newer = self.filtered("newer", lambda r: True, extra={"game": "3x3k3"})
        self.assert_pngs(call("plot_curves.py", newer), 1)
        self.assert_pngs(call("plot_mcts.py", newer), 1)
        # A column the scripts know but an older file lacks reads as empty.
        known = pc.RESULTS_COLUMNS
        pc.RESULTS_COLUMNS = known + ["game"]
        try:
            _, ok, _ = pc.load_results(self.results, "q-learning")
        finally:
            pc.RESULTS_COLUMNS = known
        self.assertTrue((ok["game"] == "").all())
        # One of the first version's columns missing: refused, naming it.
        lacking = self.filtered("lacking", lambda r: True, drop="eval_ms")
        self.assert_usage_error(call("plot_mcts.py", lacking), "lacks the column(s) eval_ms")

    def test_two_seats_make_a_grid_of_panels(self):
        both = self.filtered("seats", lambda r: True, also_seat_o=True)
        self.assert_pngs(call("plot_curves.py", both), 1)
        self.assert_pngs(call("plot_heatmap.py", both), 4)

    def rewritten(self, name, change):
        """A copy of the fake results whose results.csv rows pass through `change` (a
        row dict -> the new row, or None to drop it); curves.csv is copied as it is."""
        out = self.tmp / name
        out.mkdir(exist_ok=True)
        with open(self.results / "results.csv", newline="") as f:
            reader = csv.DictReader(f)
            fields = list(reader.fieldnames)
            rows = [r for r in map(change, reader) if r is not None]
        for extra in (k for r in rows for k in r if k not in fields):
            fields.append(extra)
        with open(out / "results.csv", "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=fields, restval="")
            w.writeheader()
            w.writerows(rows)
        shutil.copy(self.results / "curves.csv", out / "curves.csv")
        return out

    def test_heatmap_accepts_every_learner(self):
        for kind in ("sarsa", "expected-sarsa", "double-q-learning", "monte-carlo"):
            renamed = self.rewritten(f"as_{kind}", lambda r, k=kind: dict(
                r, solver=k if r["solver"] == "q-learning" else r["solver"]))
            paths = self.assert_pngs(call("plot_heatmap.py", renamed, "--solver", kind), 2)
            self.assertTrue(all(f"heatmap_{kind}_" in p for p in paths), paths)
            # without --solver, the first solver whose runs vary in two parameters
            self.assert_pngs(call("plot_heatmap.py", renamed), 2)
        self.assertEqual(plot_heatmap.solver_name("sarsa"), "SARSA")
        self.assertEqual(plot_heatmap.solver_name("a-new-kind"), "a-new-kind")

    def test_heatmap_default_axes_are_the_parameters_that_vary(self):
        # alpha fixed at one value: gamma and epsilon_decay are the two left that vary
        one_alpha = self.rewritten("one_alpha", lambda r: r if r["solver"] != "q-learning"
                                   or float(r["alpha"]) == 0.1 else None)
        paths = self.assert_pngs(call("plot_heatmap.py", one_alpha, "--out", self.tmp / "h1"), 2)
        self.assertIn("heatmap_q-learning_gamma_epsilon_decay_", paths[0])
        # alpha and gamma fixed: one parameter varies, no grid; the message says so
        one_cell = self.rewritten("one_cell", lambda r: r if r["solver"] != "q-learning" or (
            float(r["alpha"]) == 0.1 and float(r["gamma"]) == 0.9) else None)
        self.assert_usage_error(call("plot_heatmap.py", one_cell, "--solver", "q-learning"),
                                "only epsilon_decay varies", "needs two parameters")
        # most values first; a given axis is kept and the other filled
        df = pd.DataFrame({"solver": ["q-learning"] * 6, "alpha": list("aabbcc"),
                           "gamma": list("xyxyxy"), "episodes": list("111111"),
                           "rung": [""] * 6})
        params = ["episodes", "alpha", "gamma"]
        self.assertEqual(plot_heatmap.default_axes(df, params), ("alpha", "gamma"))
        self.assertEqual(plot_heatmap.default_axes(df, params, y="alpha"), ("gamma", "alpha"))
        # sampled values (a random search) are not a grid's axis; the message says so
        sampled = pd.DataFrame({"solver": ["mcts"] * 30, "uct_c": [str(i / 7) for i in range(30)],
                                "iterations": [str(10 * i) for i in range(30)],
                                "rung": [""] * 30})
        with self.assertRaisesRegex(pc.UsageError, "iterations, uct_c take more than 20"):
            plot_heatmap.default_axes(sampled, ["iterations", "uct_c"])
        # in a search the episodes (the rung's budget) are not a default axis
        search = df.assign(episodes=list("123123"), rung=list("012012"))
        self.assertNotIn("episodes", plot_heatmap.default_axes(search, params))

    def test_heatmap_ticks_are_short_but_tell_values_apart(self):
        values = ["0.987044576753", "0.99975854625", "0.9999195089", "0.9995"]
        labels = plot_heatmap.tick_labels(values)
        self.assertEqual(len(set(labels)), len(values))
        self.assertTrue(all(len(t) <= 7 for t in labels), labels)
        for t, v in zip(labels, values):  # each label rounds its own value
            self.assertAlmostEqual(float(t), float(v), delta=5e-4)
        self.assertEqual(plot_heatmap.tick_labels(["adversarial", "random"]),
                         ["adversarial", "random"])

    def test_curves_default_to_every_learner_and_say_why_rows_were_left_out(self):
        # the q-learning jobs with alpha = 0.5 become sarsa jobs
        mixed = self.rewritten("mixed", lambda r: dict(r, solver="sarsa") if r["solver"] ==
                               "q-learning" and float(r["alpha"]) == 0.5 else r)
        with open(mixed / "results.csv", newline="") as f:
            sarsa = {r["job_id"] for r in csv.DictReader(f) if r["solver"] == "sarsa"}
            f.seek(0)
            failed = {r["job_id"] for r in csv.DictReader(f) if r["status"] != "ok"}
        with open(mixed / "curves.csv", newline="") as f:
            curves = list(csv.DictReader(f))
        of_sarsa = sum(r["job_id"] in sarsa - failed for r in curves)
        of_failed = sum(r["job_id"] in failed for r in curves)
        self.assertGreater(of_sarsa, 0)
        done = call("plot_curves.py", mixed, "--out", self.tmp / "c1")
        self.assert_pngs(done, 1)
        self.assertNotIn("sarsa jobs (not drawn", done.stderr)  # both learners drawn
        done = call("plot_curves.py", mixed, "--solver", "q-learning", "--out", self.tmp / "c2")
        self.assert_pngs(done, 1)
        self.assertIn(f"{of_sarsa} curve row(s) of sarsa jobs (not drawn", done.stderr)
        self.assertIn(f"{of_failed} curve row(s) of jobs that failed", done.stderr)
        self.assertNotIn("not ok", done.stderr)

    def test_curves_of_many_configurations_keep_each_solvers_best(self):
        # two solvers of 12 configurations each, one checkpoint; regret = the index
        rows = [{"solver": s, "alpha": str(i), "seat": "x", "eval_opponent": "random",
                 "episode": e, "regret": i + (0.5 if e == 10 else 0.0)}
                for s in ("q-learning", "sarsa") for i in range(12) for e in (10, 20)]
        df = pd.DataFrame(rows).assign(**{c: "" for c in pc.PARAM_COLUMNS if c != "alpha"})
        kept, text = plot_curves.best_configs(df, None)  # 24 lines: 10 // 2 = 5 each
        for solver in ("q-learning", "sarsa"):
            mine = kept[kept["solver"] == solver]
            self.assertEqual(sorted(mine["alpha"].astype(int).unique()), [0, 1, 2, 3, 4])
        self.assertIn("of 24 in all", text)
        self.assertEqual(len(plot_curves.best_configs(df, 0)[0]), len(df))
        few = df[df["alpha"].astype(int) < 3]  # 6 lines: all drawn
        self.assertIsNone(plot_curves.best_configs(few, None)[1])

    def test_curves_of_a_search_draw_the_final_rung_without_bands_for_few_runs(self):
        # rung 0: every q-learning job; rung 1: the alpha = 0.25 ones (as if they survived)
        search = self.rewritten("search", lambda r: dict(r, rung=(
            "" if r["solver"] != "q-learning" else "1" if float(r["alpha"]) == 0.25 else "0")))
        with open(search / "results.csv", newline="") as f:
            rows = [r for r in csv.DictReader(f) if r["solver"] == "q-learning"]
        # failed jobs are counted apart, as failures
        earlier = len({r["job_id"] for r in rows if r["rung"] == "0" and r["status"] == "ok"})
        args = type("Args", (), {"results": str(search), "solver": []})()
        with contextlib.redirect_stderr(io.StringIO()) as err:
            _, df, _, is_search = plot_curves.load(args)
        self.assertTrue(is_search)
        self.assertEqual(set(df["alpha"].astype(float)), {0.25})
        self.assertIn(f"left out {earlier} job(s) of earlier rungs", err.getvalue())
        done = call("plot_curves.py", search, "--out", self.tmp / "c3")
        self.assert_pngs(done, 1)
        self.assertIn("without bands", done.stderr)  # 3 replicates per line

    def test_colours_of_a_few_configurations_are_colour_blind_safe(self):
        configs = pd.DataFrame({"alpha": [str(v) for v in range(8)]})
        enc = ps.Encoding(configs, ["alpha"])
        colours = [c for c, _, _ in enc.styles]
        self.assertEqual(colours, ps.OKABE_ITO)
        self.assertEqual(len(set(colours)), 8)

    def test_profile_pools_all_but_the_best_and_keeps_its_threshold(self):
        rows = [{"configuration": f"c{i:02d}", "regret": (i % 30) / 100 + r / 1000,
                 "seat": "x", "eval_opponent": "random", "solver": "q-learning"}
                for i in range(30) for r in range(3)]
        df = pd.DataFrame(rows)
        pooled, order = plot_profile.top_and_others(df, "regret", 8)
        self.assertEqual(order[:8], [f"c{i:02d}" for i in range(8)])  # lowest mean first
        self.assertEqual(order[8], "others (22 configurations)")
        self.assertEqual((pooled["configuration"] == order[8]).sum(), 22 * 3)
        self.assertEqual(plot_profile.top_and_others(df, "regret", 0)[1],
                         sorted(df["configuration"].unique()))
        # the linear threshold is the metric's, whatever the smallest regret
        for shift in (0.0, 0.05):
            part = pooled.assign(regret=pooled["regret"] + shift)
            fig = plot_profile.draw(part, "regret", False, 0, {}, order)
            thresholds = {ax.xaxis.get_transform().linthresh for ax in fig.axes
                          if ax.get_xscale() == "symlog"}
            self.assertEqual(thresholds, {plot_profile.THRESHOLDS["regret"]})
            ps.plt.close(fig)
        self.assert_usage_error(self.plot("plot_profile.py", "--top", "-1"), "--top -1")

    def test_importance_columns_form_a_full_grid_in_every_block(self):
        # opponent x alpha is not a full grid (self-play only at alpha 0.5)
        block = {"solver": "q-learning", "seat": "x", "eval_opponent": "random", "game": ""}
        rows = [dict(block, opponent=o, alpha=a, iterations="")
                for o, a in (("random", "0.25"), ("random", "0.5"), ("self", "0.5"))]
        rows += [dict(block, solver="mcts", opponent="", alpha="", iterations=i)
                 for i in ("50", "200")]
        df = pd.DataFrame(rows).assign(**{c: "" for c in pc.PARAM_COLUMNS
                                          if c not in ("opponent", "alpha", "iterations")})
        by = plot_importance.grid_columns(df)
        self.assertEqual(len(by), 2)
        self.assertIn("iterations", by)
        self.assertFalse({"opponent", "alpha"} <= set(by))
        nothing = df.assign(opponent="random", alpha="0.5", iterations="50")
        self.assertEqual(plot_importance.grid_columns(nothing), [])

    def filtered(self, name, keep, curves=True, also_seat_o=False, extra=None, drop=None,
                 uct_c_values=1):
        """A copy of the fake results with the rows that `keep`; with `also_seat_o`, every
        q-learning row and checkpoint doubled for seat o (as a self-play job would be);
        `extra` appends columns (name: value) to both files, `drop` removes a column;
        `uct_c_values` > 1 repeats every mcts row with that many scaled uct_c values."""
        out = self.tmp / name
        out.mkdir(exist_ok=True)
        for file in ("results.csv", "curves.csv") if curves else ("results.csv",):
            with open(self.results / file, newline="") as f:
                rows = list(csv.DictReader(f))
            if file == "results.csv":
                rows = [r for r in rows if keep(r)]
                rows += [dict(r, uct_c=repr(float(r["uct_c"]) * (1 + k / 10)))
                         for k in range(1, uct_c_values) for r in rows if r["solver"] == "mcts"]
            if also_seat_o:
                rows += [dict(r, seat="o") for r in rows
                         if r.get("solver", "q-learning") == "q-learning"]
            rows = [{k: v for k, v in dict(r, **(extra or {})).items() if k != drop}
                    for r in rows]
            with open(out / file, "w", newline="") as f:
                w = csv.DictWriter(f, fieldnames=list(rows[0]) if rows else ["job_id"])
                w.writeheader()
                w.writerows(rows)
        return out


if __name__ == "__main__":
    unittest.main()
