"""Reference values for the statistics in src/stats/, computed with scipy and numpy.

Run once with scipy installed (python3 scripts/tests/stats_reference.py); the values it
prints are pasted into src/stats/tests.rs and src/stats/special.rs, which say so. The data
are fixed here and repeated there.
"""

import itertools

import numpy as np
from scipy import stats

# Twenty paired runs (no ties among |x - y|).
X = [0.31, 0.12, 0.45, 0.27, 0.50, 0.08, 0.33, 0.29, 0.41, 0.22,
     0.36, 0.18, 0.47, 0.25, 0.39, 0.14, 0.30, 0.44, 0.20, 0.35]
Y = [0.297, 0.049, 0.472, 0.206, 0.382, 0.107, 0.205, 0.299, 0.253, 0.185,
     0.314, 0.261, 0.398, 0.244, 0.276, 0.173, 0.281, 0.197, 0.215, 0.322]
# Thirty differences for the normal approximation (no ties).
D30 = [round(0.013 * ((7 * k) % 31) - 0.15, 3) for k in range(1, 31)]
# Twelve differences with ties and zeros.
TIED = [0.2, -0.1, 0.1, 0.0, 0.3, 0.2, -0.2, 0.1, 0.4, 0.0, 0.3, 0.1]
P_VALUES = [0.01, 0.04, 0.03, 0.20, 0.005]
# Mean regrets of eight configurations at a checkpoint and at the end: one pair without
# ties, one with ties in both (Spearman's rank correlation, ties at mean ranks).
EARLY = [0.31, 0.12, 0.45, 0.27, 0.50, 0.08, 0.33, 0.29]
FINAL = [0.05, 0.02, 0.09, 0.06, 0.04, 0.01, 0.08, 0.03]
EARLY_TIED = [0.2, 0.1, 0.2, 0.4, 0.1, 0.3, 0.2, 0.5]
FINAL_TIED = [0.03, 0.01, 0.02, 0.03, 0.01, 0.05, 0.00, 0.04]


def brute_force_wilcoxon(d):
    """Exact two-sided p by enumerating every sign pattern, zeros dropped, mid-ranks."""
    d = [x for x in d if x != 0]
    ranks = stats.rankdata(np.abs(d))
    plus = sum(r for x, r in zip(d, ranks) if x > 0)
    sums = [sum(r for r, s in zip(ranks, signs) if s)
            for signs in itertools.product([0, 1], repeat=len(d))]
    below = sum(s <= plus + 1e-9 for s in sums) / len(sums)
    above = sum(s >= plus - 1e-9 for s in sums) / len(sums)
    return min(1.0, 2 * min(below, above))


def holm(p):
    order = np.argsort(p)
    out, running = [0.0] * len(p), 0.0
    for k, i in enumerate(order):
        running = max(running, min(1.0, (len(p) - k) * p[i]))
        out[i] = running
    return out


def main():
    d = np.subtract(X, Y)
    n = len(d)
    t = stats.ttest_rel(X, Y)
    half = stats.t.ppf(0.975, n - 1) * stats.sem(d)
    print("paired t: mean %r low %r high %r p %r" % (d.mean(), d.mean() - half, d.mean() + half, t.pvalue))
    w = stats.wilcoxon(X, Y, method="exact")
    print("wilcoxon exact: statistic %r p %r" % (w.statistic, w.pvalue))
    w = stats.wilcoxon(D30, method="approx")
    print("wilcoxon approx n=30: statistic %r p %r" % (w.statistic, w.pvalue))
    print("wilcoxon tied, brute force: p %r" % brute_force_wilcoxon(TIED))
    print("wilcoxon tied, scipy default (normal approximation): p %r" % stats.wilcoxon(TIED).pvalue)
    print("wilcoxon X, Y brute force: p %r" % brute_force_wilcoxon(list(np.subtract(X, Y))))
    print("holm %r" % holm(P_VALUES))
    u = stats.mannwhitneyu(X, Y).statistic
    print("P(X > Y) %r" % (u / (len(X) * len(Y))))
    print("mean %r median %r iqm %r" % (np.mean(X), np.median(X), stats.trim_mean(X, 0.25)))
    for stat in (np.mean, np.median):
        r = stats.bootstrap((X,), stat, n_resamples=200_000, method="percentile", random_state=1)
        print("bootstrap %s %r %r" % (stat.__name__, r.confidence_interval.low, r.confidence_interval.high))
    print("t.ppf(0.975, df):", [stats.t.ppf(0.975, df) for df in (1, 4, 19, 200)])
    print("t.cdf(-2.5, 7) %r" % stats.t.cdf(-2.5, 7))
    for name, data in (("X - Y", list(d)), ("first five of X - Y", list(d[:5])), ("tied", TIED)):
        r = stats.permutation_test((data,), np.mean, permutation_type="samples", n_resamples=np.inf)
        print("sign-flip permutation %s: p %r" % (name, r.pvalue))
    print("ttest_rel first five of X, Y: p %r" % stats.ttest_rel(X[:5], Y[:5]).pvalue)
    print("norm.cdf:", [stats.norm.cdf(z) for z in (-1.959963984540054, -6.0, 0.3)])
    print("spearman %r tied %r" % (stats.spearmanr(EARLY, FINAL).statistic,
                                   stats.spearmanr(EARLY_TIED, FINAL_TIED).statistic))


if __name__ == "__main__":
    main()
