//! A row of the result files as every reader takes it: [`ResultRow`] (`results.csv`) and
//! [`CurveRow`] (`curves.csv`), each read through typed accessors named after its columns,
//! so that no reader looks a cell up by a column's name (the names live in
//! [`crate::schema`]: [`Field`], [`ParamColumn`], [`CurveField`]).
//!
//! A row is built once per CSV record, by [`each_result`] or [`each_curve`]: the file's
//! header is checked against today's columns (a file of an older version has a prefix of
//! them, see [`Columns`]), and each record is padded to today's columns, so that a column
//! the file's version lacks reads as empty (no `split`: a tuning row; no `regret_auc`:
//! none). A malformed record stops the reading with an error that names the file and the
//! row, as [`each_row`](super::files::each_row) reports it; each row knows its row number
//! ([`ResultRow::line`]) for a reader that has more to say about it.
//!
//! Building a row costs nothing: it borrows the record, and each accessor reads its one
//! cell when called (a number is parsed then), so a reader pays only for the columns it
//! reads: the summary of a million rows reads a dozen of some sixty. A number that is
//! empty or not a number reads as `None`, as the readers always took it.

use std::path::Path;

use anyhow::Result;

use super::files::{Columns, each_numbered_row};
use crate::job::Split;
use crate::schema::{CURVE_COLUMNS, CurveField, Field, ParamColumn, RESULT_COLUMNS};

/// One row of `results.csv`: a (job, evaluated seat, evaluation opponent), padded to
/// today's columns (and followed by a command solver's program parameters, if any).
#[derive(Clone, Copy, Debug)]
pub struct ResultRow<'r> {
    rec: &'r csv::StringRecord,
    line: u64,
}

impl<'r> ResultRow<'r> {
    /// The row of `rec`, a record with today's columns (padded, for a file of an older
    /// version: see [`Columns::pad`]), at row `line` of its file (the header is row 1; 0
    /// for a row that is in no file).
    pub fn new(rec: &'r csv::StringRecord, line: u64) -> ResultRow<'r> {
        debug_assert!(rec.len() >= RESULT_COLUMNS.len(), "a row padded to today's columns");
        ResultRow { rec, line }
    }

    /// Its row number in its file, as a spreadsheet shows it (the header is row 1).
    pub fn line(&self) -> u64 {
        self.line
    }

    /// The cell at position `column` of today's layout: for the columns a reader is given
    /// by name at run time (`--by`, a configuration's columns), their positions found once
    /// with [`crate::schema::column`].
    pub fn cell(&self, column: usize) -> &'r str {
        &self.rec[column]
    }

    /// Every cell, in file order: today's columns, then a command solver's program
    /// parameters (for a reader that keeps or compares whole rows).
    pub fn cells(&self) -> impl Iterator<Item = &'r str> + use<'r> {
        self.rec.iter()
    }

    /// The text of a field.
    pub fn text(&self, field: Field) -> &'r str {
        &self.rec[field.column()]
    }

    /// A parameter's cell, as written (a parameter is part of a configuration's key).
    pub fn param(&self, param: ParamColumn) -> &'r str {
        &self.rec[param.column()]
    }

    /// A numeric field, parsed (`None` when empty or not a number).
    pub fn number(&self, field: Field) -> Option<f64> {
        debug_assert!(field.numeric(), "{} holds numbers", field.name());
        self.text(field).parse().ok()
    }

    /// A count field, parsed (`None` when empty or not a count).
    fn count(&self, field: Field) -> Option<u32> {
        self.text(field).parse().ok()
    }

    /// The job's id.
    pub fn job_id(&self) -> &'r str {
        self.text(Field::JobId)
    }

    /// The solver kind (`q-learning`, `mcts`, `command:NAME`, ...).
    pub fn solver(&self) -> &'r str {
        self.text(Field::Solver)
    }

    /// The solver's label (version 2; empty before).
    pub fn label(&self) -> &'r str {
        self.text(Field::Label)
    }

    /// The replicate number.
    pub fn replicate(&self) -> Option<u32> {
        self.count(Field::Replicate)
    }

    /// The seat evaluated.
    pub fn seat(&self) -> &'r str {
        self.param(ParamColumn::Seat)
    }

    /// The opponent trained or solved against (`self` for self-play).
    pub fn opponent(&self) -> &'r str {
        self.param(ParamColumn::Opponent)
    }

    /// The board (empty in a file before version 3: tic-tac-toe).
    pub fn game(&self) -> &'r str {
        self.param(ParamColumn::Game)
    }

    /// Training games per job, as written (empty for a solver that does not train).
    pub fn episodes(&self) -> &'r str {
        self.param(ParamColumn::Episodes)
    }

    /// MCTS iterations per move, as written (empty for other solvers).
    pub fn iterations(&self) -> &'r str {
        self.param(ParamColumn::Iterations)
    }

    /// The evaluation opponent.
    pub fn eval_opponent(&self) -> &'r str {
        self.text(Field::EvalOpponent)
    }

    /// Whether the job succeeded (`status` is `ok`; any other status is a failure).
    pub fn ok(&self) -> bool {
        self.text(Field::Status) == "ok"
    }

    /// A failed row's message.
    pub fn error(&self) -> &'r str {
        self.text(Field::Error)
    }

    /// How the row was evaluated: `exact`, `sampled` (games), `bound` (a best response
    /// past its budget); empty before version 3 (exact).
    pub fn evaluation(&self) -> &'r str {
        self.text(Field::Evaluation)
    }

    /// Tuning or test (a file before version 4 has only tuning rows: an empty cell is
    /// `tune`).
    pub fn split(&self) -> Split {
        if self.text(Field::Split) == Split::Test.name() { Split::Test } else { Split::Tune }
    }

    /// A program's own numbers (a JSON object), or an MCTS job's searches.
    pub fn metrics(&self) -> &'r str {
        self.text(Field::Metrics)
    }

    /// The exact (or sampled) value of the policy.
    pub fn value(&self) -> Option<f64> {
        self.number(Field::Value)
    }

    /// The optimum of (seat, evaluation opponent).
    pub fn optimal_value(&self) -> Option<f64> {
        self.number(Field::OptimalValue)
    }

    /// The regret: the optimum minus the value (none where no exact optimum is known).
    pub fn regret(&self) -> Option<f64> {
        self.number(Field::Regret)
    }

    /// P(win).
    pub fn p_win(&self) -> Option<f64> {
        self.number(Field::PWin)
    }

    /// P(draw).
    pub fn p_draw(&self) -> Option<f64> {
        self.number(Field::PDraw)
    }

    /// P(loss).
    pub fn p_loss(&self) -> Option<f64> {
        self.number(Field::PLoss)
    }

    /// Training time, ms.
    pub fn train_ms(&self) -> Option<f64> {
        self.number(Field::TrainMs)
    }

    /// Evaluation time, ms.
    pub fn eval_ms(&self) -> Option<f64> {
        self.number(Field::EvalMs)
    }

    /// The mean regret over a learner's curve (none for other solvers).
    pub fn regret_auc(&self) -> Option<f64> {
        self.number(Field::RegretAuc)
    }

    /// The first checkpoint episode from which a learner's run stays solved (none for a
    /// run never solved, or another solver).
    pub fn solved_at(&self) -> Option<f64> {
        self.number(Field::SolvedAt)
    }

    /// The rung of a search's job.
    pub fn rung(&self) -> Option<u32> {
        self.count(Field::Rung)
    }

    /// The trial (configuration number) of a model-based search's job.
    pub fn trial(&self) -> Option<u32> {
        self.count(Field::Trial)
    }

    /// The round that proposed a model-based search's trial.
    pub fn round(&self) -> Option<u32> {
        self.count(Field::Round)
    }

    /// An MCTS row's evaluation time per position its job searched, in ms (none for other
    /// rows, a row written before the searches were kept, or none searched).
    pub fn ms_per_move(&self) -> Option<f64> {
        let searches = super::rows::searches(self.metrics()).filter(|&n| n > 0)?;
        Some(self.eval_ms()? / searches as f64)
    }
}

/// One row of `curves.csv`: a learner's policy at one checkpoint, in one seat against one
/// evaluation opponent.
#[derive(Clone, Copy, Debug)]
pub struct CurveRow<'r> {
    rec: &'r csv::StringRecord,
    line: u64,
}

impl<'r> CurveRow<'r> {
    /// The row of `rec`, a record with today's curve columns, at row `line` of its file.
    pub fn new(rec: &'r csv::StringRecord, line: u64) -> CurveRow<'r> {
        debug_assert!(rec.len() >= CURVE_COLUMNS.len(), "a row padded to today's columns");
        CurveRow { rec, line }
    }

    /// Its row number in its file (the header is row 1).
    pub fn line(&self) -> u64 {
        self.line
    }

    /// The text of a column.
    pub fn text(&self, field: CurveField) -> &'r str {
        &self.rec[field.column()]
    }

    fn number(&self, field: CurveField) -> Option<f64> {
        self.text(field).parse().ok()
    }

    /// The job's id.
    pub fn job_id(&self) -> &'r str {
        self.text(CurveField::JobId)
    }

    /// The checkpoint: episodes trained.
    pub fn episode(&self) -> Option<u64> {
        self.text(CurveField::Episode).parse().ok()
    }

    /// The seat evaluated.
    pub fn seat(&self) -> &'r str {
        self.text(CurveField::Seat)
    }

    /// The evaluation opponent.
    pub fn eval_opponent(&self) -> &'r str {
        self.text(CurveField::EvalOpponent)
    }

    /// The value at the checkpoint.
    pub fn value(&self) -> Option<f64> {
        self.number(CurveField::Value)
    }

    /// The regret at the checkpoint.
    pub fn regret(&self) -> Option<f64> {
        self.number(CurveField::Regret)
    }

    /// The exploration rate at the checkpoint.
    pub fn epsilon(&self) -> Option<f64> {
        self.number(CurveField::Epsilon)
    }

    /// The step size at the checkpoint.
    pub fn alpha(&self) -> Option<f64> {
        self.number(CurveField::Alpha)
    }
}

/// Reads `results.csv` at `path` one row at a time (see [`super::files::each_row`]): the
/// header is checked (refused, naming the file, unless today's or an older version's, or
/// when it lacks a column of `needed`), and `each` gets every row. Errors name the file and
/// the row. Returns the file's columns.
pub fn each_result(path: &Path, needed: &[&str], mut each: impl FnMut(ResultRow<'_>)) -> Result<Columns> {
    each_numbered_row(path, &RESULT_COLUMNS, needed, |rec, line| each(ResultRow::new(rec, line)))
}

/// As [`each_result`], for `curves.csv`.
pub fn each_curve(path: &Path, needed: &[&str], mut each: impl FnMut(CurveRow<'_>)) -> Result<Columns> {
    each_numbered_row(path, &CURVE_COLUMNS, needed, |rec, line| each(CurveRow::new(rec, line)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Record;

    fn record(cells: &[(Field, &str)], params: &[(ParamColumn, &str)]) -> csv::StringRecord {
        let mut r: Record = vec![String::new(); RESULT_COLUMNS.len()];
        for (f, v) in cells {
            r[f.column()] = v.to_string();
        }
        for (p, v) in params {
            r[p.column()] = v.to_string();
        }
        csv::StringRecord::from(r)
    }

    #[test]
    fn a_row_reads_its_fields_by_name_and_type() {
        let rec = record(
            &[
                (Field::JobId, "abc"),
                (Field::Solver, "mcts"),
                (Field::Replicate, "3"),
                (Field::EvalOpponent, "random"),
                (Field::Status, "ok"),
                (Field::Regret, "0.25"),
                (Field::EvalMs, "12"),
                (Field::Metrics, "{\"searches\":4}"),
                (Field::Split, "test"),
                (Field::Rung, "2"),
            ],
            &[(ParamColumn::Seat, "o"), (ParamColumn::Game, "4x4k3")],
        );
        let row = ResultRow::new(&rec, 7);
        assert_eq!((row.job_id(), row.solver(), row.seat(), row.game()), ("abc", "mcts", "o", "4x4k3"));
        assert_eq!((row.replicate(), row.rung(), row.trial()), (Some(3), Some(2), None));
        assert!(row.ok() && row.split() == Split::Test && row.line() == 7);
        assert_eq!((row.regret(), row.value(), row.regret_auc()), (Some(0.25), None, None));
        assert_eq!(row.ms_per_move(), Some(3.0));
        assert_eq!(row.cell(Field::EvalOpponent.column()), "random");
        let failed = record(&[(Field::Status, "failed"), (Field::Regret, "x")], &[]);
        let row = ResultRow::new(&failed, 2);
        assert!(!row.ok() && row.split() == Split::Tune);
        assert_eq!((row.regret(), row.ms_per_move()), (None, None), "not a number: none, as readers took it");
    }

    #[test]
    fn an_older_file_reads_with_its_newer_columns_empty_and_a_bad_row_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("results.csv");
        // Version 1's columns: no label, split or regret_auc.
        let v1 = &RESULT_COLUMNS[..36];
        let mut row = vec![String::new(); v1.len()];
        row[Field::JobId.column()] = "j".into();
        row[Field::Status.column()] = "ok".into();
        row[Field::Regret.column()] = "0.5".into();
        crate::report::files::write_atomic(&path, v1, vec![row]).unwrap();
        let mut seen = Vec::new();
        let columns = each_result(&path, &["job_id"], |r| {
            seen.push((r.job_id().to_string(), r.regret(), r.split(), r.label().is_empty(), r.line()))
        })
        .unwrap();
        assert_eq!(seen, [("j".to_string(), Some(0.5), Split::Tune, true, 2)]);
        assert!(!columns.is_current());
        let needed = each_result(&path, &[Field::Label.name()], |_| {}).unwrap_err();
        assert!(format!("{needed:#}").contains("lacks the column(s) label"), "{needed:#}");
        std::fs::write(&path, format!("{}\na,b\n", v1.join(","))).unwrap();
        let bad = format!("{:#}", each_result(&path, &[], |_| {}).unwrap_err());
        assert!(bad.contains("results.csv") && bad.contains("row 2"), "{bad}");
    }

    #[test]
    fn a_curve_row_reads_its_fields() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("curves.csv");
        let row = ["j", "1000", "x", "minimax", "0.5", "0.125", "0.5", "0.5", "0", "0.1", "0.2"];
        crate::report::files::write_atomic(&path, &CURVE_COLUMNS, vec![row.map(String::from).to_vec()]).unwrap();
        let mut n = 0;
        each_curve(&path, &CURVE_COLUMNS, |c| {
            n += 1;
            assert_eq!((c.job_id(), c.episode(), c.seat(), c.eval_opponent()), ("j", Some(1000), "x", "minimax"));
            assert_eq!((c.value(), c.regret(), c.epsilon(), c.alpha()), (Some(0.5), Some(0.125), Some(0.1), Some(0.2)));
        })
        .unwrap();
        assert_eq!(n, 1);
    }
}
