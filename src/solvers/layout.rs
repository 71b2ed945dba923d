//! A table's layout: what a tabular learner's table is over, apart from its values.
//!
//! The states (position ids, numbered in the order given), each state's slots (one per
//! legal cell, contiguous, in cell order), and with `symmetry` the index from slot to
//! entry (the state's class under the board's symmetries and the move's cell mapped
//! through the transform that [`symmetry::canonical`] returns). None of it depends on a
//! job: only on the game, the states (an agent MDP's, or every position for self-play)
//! and `symmetry`. So a run builds each layout once ([`layout`], cached per
//! [`LayoutKey`] like the MDPs, built by the executor before the first job and counted
//! once by the memory budget), and a job's [`QTable`](super::tabular::QTable) owns only
//! its values.
//!
//! A layout also finds the state of a board ([`Layout::state`]), so that a table answers
//! "what would you play here" for the positions an evaluation reaches without writing
//! out a policy over every position.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, OnceLock};

use crate::game::{Board, Game, symmetry};
use crate::mdp::{AgentMdp, Opponent, Seat};

/// Slots beyond which a layout is deep ([`Layout::deep`]): their values and MDP rows
/// (16 bytes a slot) then pass 16 MiB, beyond the caches of a core.
const DEEP_SLOTS: usize = 1 << 20;

/// What a layout is over.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LayoutKey {
    /// The game.
    pub game: Game,
    /// The agent MDP of (seat, opponent) whose states and slots the table's are, or
    /// `None` for every position of the game (self-play).
    pub agent: Option<(Seat, Opponent)>,
    /// Whether slots share entries by symmetry class.
    pub symmetry: bool,
}

/// How a board's state is found.
#[derive(Debug)]
enum Lookup {
    /// The states are an agent MDP's.
    Mdp(&'static AgentMdp),
    /// The states are every position, numbered as the positions.
    Positions,
    /// Per position id its state, or `u32::MAX`.
    Map(Vec<u32>),
}

/// The states, slots and symmetry index of a table (see the module doc).
#[derive(Debug)]
pub struct Layout {
    game: Game,
    /// State `s` owns slots `start[s]..start[s + 1]`.
    pub(super) start: Vec<u32>,
    /// The position id of each state.
    pub(super) position: Vec<u32>,
    /// The cell each slot plays.
    pub(super) cell: Vec<u8>,
    /// The entry that each slot reads and updates (empty when `identity`).
    pub(super) index: Vec<u32>,
    /// Whether each slot has its own entry, the slot's number (no symmetry).
    pub(super) identity: bool,
    /// Whether the slots outgrow the caches (more than [`DEEP_SLOTS`]), so that a learner
    /// asks for a state's MDP rows ahead of their use (see `driver::outcome`); on a
    /// smaller board they are in the cache and asking would only cost instructions.
    pub(super) deep: bool,
    /// The number of entries.
    entries: usize,
    lookup: Lookup,
}

impl Layout {
    /// A layout over `states` of `game`, numbered in iteration order: each is (position
    /// id, its legal cells in increasing order); keyed by symmetry class when `symmetry`.
    pub fn new<C>(game: Game, states: impl IntoIterator<Item = (usize, C)>, symmetry: bool) -> Layout
    where
        C: IntoIterator<Item = u8>,
    {
        let mut layout = Layout {
            game,
            start: vec![0],
            position: Vec::new(),
            cell: Vec::new(),
            index: Vec::new(),
            identity: !symmetry,
            deep: false,
            entries: 0,
            lookup: Lookup::Positions,
        };
        for (position, cells) in states {
            layout.position.push(position as u32);
            layout.cell.extend(cells);
            layout.start.push(layout.cell.len() as u32);
        }
        layout.entries = if symmetry { layout.index_by_class() } else { layout.cell.len() };
        layout.deep = layout.cell.len() > DEEP_SLOTS;
        let numbered = layout.position.iter().enumerate().all(|(s, &p)| s == p as usize);
        if !numbered || layout.position.len() != game.positions().len() {
            let mut map = vec![u32::MAX; game.positions().len()];
            for (s, &p) in layout.position.iter().enumerate() {
                map[p as usize] = s as u32;
            }
            layout.lookup = Lookup::Map(map);
        }
        layout
    }

    /// The layout over the agent states of `mdp`, whose slots are the MDP's action slots.
    pub fn over_mdp(mdp: &'static AgentMdp, symmetry: bool) -> Layout {
        let states = (0..mdp.len()).map(|s| (mdp.position(s), mdp.actions(s).map(|slot| mdp.cell(slot))));
        // Read at random by every step of a learner: huge pages on a big board.
        let mut start = Vec::with_capacity(mdp.len() + 1);
        crate::hints::huge_pages(&start);
        start.push(0);
        let mut layout = Layout {
            game: mdp.game(),
            start,
            position: Vec::with_capacity(mdp.len()),
            cell: Vec::with_capacity(mdp.slots()),
            index: Vec::new(),
            identity: !symmetry,
            deep: false,
            entries: 0,
            lookup: Lookup::Mdp(mdp),
        };
        for (position, cells) in states {
            layout.position.push(position as u32);
            layout.cell.extend(cells);
            layout.start.push(layout.cell.len() as u32);
        }
        layout.entries = if symmetry { layout.index_by_class() } else { layout.cell.len() };
        layout.deep = layout.cell.len() > DEEP_SLOTS;
        assert!((0..mdp.len()).all(|s| layout.slots(s) == mdp.actions(s)), "the table's slots are the MDP's");
        layout
    }

    /// One entry per (symmetry class, canonical cell); returns the number of entries.
    fn index_by_class(&mut self) -> usize {
        let (game, positions) = (self.game, self.game.positions());
        let cells = game.cells();
        self.index = vec![0; self.cell.len()];
        crate::hints::huge_pages(&self.index);
        for s in 0..self.states() {
            let id = self.position[s] as usize;
            let (_, transform) = symmetry::canonical(positions.board(id));
            let class = positions.class(id);
            for slot in self.slots(s) {
                let cell = game.transform_cell(transform, usize::from(self.cell[slot]));
                self.index[slot] = u32::try_from(class * cells + cell).expect("fewer than 2^32 entries");
            }
        }
        positions.classes() * cells
    }

    /// The game whose positions the states are.
    pub fn game(&self) -> Game {
        self.game
    }

    /// The number of states.
    pub fn states(&self) -> usize {
        self.position.len()
    }

    /// The number of entries a table over this layout holds.
    pub fn entries(&self) -> usize {
        self.entries
    }

    /// The slots of state `s`.
    #[inline(always)]
    pub fn slots(&self, s: usize) -> std::ops::Range<usize> {
        self.start[s] as usize..self.start[s + 1] as usize
    }

    /// Whether its slots outgrow the caches, so that fetching ahead pays (see `deep`).
    #[inline(always)]
    pub fn deep(&self) -> bool {
        self.deep
    }

    /// The position id of state `s`.
    pub fn position(&self, s: usize) -> usize {
        self.position[s] as usize
    }

    /// The state of a board, if it is one of the layout's.
    pub fn state(&self, b: Board) -> Option<usize> {
        match &self.lookup {
            Lookup::Mdp(mdp) => mdp.state(b),
            Lookup::Positions => self.game.positions().id(b),
            Lookup::Map(map) => {
                let s = map[self.game.positions().id(b)?];
                (s != u32::MAX).then_some(s as usize)
            }
        }
    }

    /// The bytes it holds (see [`crate::cost::memory::layout`]).
    pub fn heap_bytes(&self) -> usize {
        use std::mem::size_of_val;
        let map = match &self.lookup {
            Lookup::Map(map) => size_of_val(&map[..]),
            _ => 0,
        };
        size_of_val(&self.start[..])
            + size_of_val(&self.position[..])
            + size_of_val(&self.cell[..])
            + size_of_val(&self.index[..])
            + map
    }
}

/// The layout of `key`, built on first use and kept for the process (see the module
/// doc): over the agent MDP of (seat, opponent), or over every position for self-play.
pub fn layout(key: LayoutKey) -> Arc<Layout> {
    Arc::clone(cell(key).get_or_init(|| {
        Arc::new(match key.agent {
            Some((seat, opponent)) => {
                Layout::over_mdp(&super::ground_truth(key.game, seat, opponent).mdp, key.symmetry)
            }
            None => {
                let positions = key.game.positions();
                let legal = |id: usize| positions.board(id).legal_cells();
                Layout::new(key.game, (0..positions.len()).map(|id| (id, legal(id))), key.symmetry)
            }
        })
    }))
}

/// Whether the layout of `key` is built already.
pub fn is_built(key: LayoutKey) -> bool {
    cell(key).get().is_some()
}

fn cell(key: LayoutKey) -> &'static OnceLock<Arc<Layout>> {
    static CACHE: Mutex<BTreeMap<LayoutKey, &'static OnceLock<Arc<Layout>>>> = Mutex::new(BTreeMap::new());
    let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    cache.entry(key).or_insert_with(|| Box::leak(Box::new(OnceLock::new())))
}
