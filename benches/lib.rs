//! Nothing: the benchmarks are the `[[bench]]` targets of this package (`exact`,
//! `qlearning`, `mcts`, `spec`, `speedup`); a package needs a target of its own kind.
