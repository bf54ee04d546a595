//! Many self-play games in flight, each with its own search (`tengu_search::driver`), whose
//! leaves are evaluated in one batch per step (game-level parallelism: no virtual loss
//! needed): the game loop around the search (starting games, playout cap randomization,
//! playing the searched move, resignation and adjudication, the rows of finished games).

use std::sync::Arc;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use tengu_model::{EvalError, EvalInput, Evaluation, Evaluator};
use tengu_rules::end::ResignWatch;
use tengu_rules::{Color, Ending, Game, GameEnd, Move, Opening, Position, Record, Variant};
use tengu_search::driver::{evaluate_pending, Descent, RootPlan, Search};
use tengu_search::leaf::LeafTerms;
use tengu_search::mate::mate_by_checks;
use tengu_search::teacher::Teacher;
use tengu_search::SearchConfig;
use tengu_shard::{Row, TeacherLabel};

use crate::config::SelfplayConfig;

/// The record tag of a game that never resigned (`selfplay.no_resign_share`) in which a side
/// reached the resignation threshold: `correct` (that side lost) or `false` (it drew or
/// won: resigning would have thrown the game away).
pub const RESIGN_CHECK_TAG: &str = "ResignCheck";

/// A finished game: its record and training rows (results filled in).
#[derive(Clone, Debug)]
pub struct FinishedGame {
    /// The checkpoint that played it (`uniform` before the first).
    pub model: String,
    pub record: Record,
    pub rows: Vec<Row>,
    pub winner: Option<Color>,
    /// How it ended: a rule's end, a resignation, an adjudication or the ply cap.
    pub termination: GameEnd,
    /// Plies of the whole game from the initial position, an opening's moves included.
    pub plies: u32,
    /// In a game that never resigns: whether a side that would have resigned went on to
    /// win or draw (a false resignation). `None` when no side reached the threshold.
    pub false_resignation: Option<bool>,
    /// The opening the game started from: its index in the openings file (file order,
    /// 0-based); `None` for the initial position.
    pub opening: Option<usize>,
    /// A restarted game (Go-Exploit): the ply of the earlier game it started from.
    pub restart: Option<u32>,
    /// The side that played without searching (`selfplay.careless_share`), if any.
    pub careless: Option<Color>,
}

/// A game being played, as [`SelfPlay::game_in_flight`] gives it.
#[derive(Clone, Debug)]
pub struct InFlight {
    /// The game's number in this worker (games started before it).
    pub number: u64,
    /// The checkpoint that plays it.
    pub model: String,
    /// The record so far; result `*`.
    pub record: Record,
    /// Per ply from the game's start: the root value of the search that chose the move,
    /// from the view of the side that moved (-1..1); `None` for moves not searched (an
    /// opening's, a restart's earlier moves).
    pub values: Vec<Option<f32>>,
}

/// Material and occupancy of every position of a finished game (Black's view), for the
/// rows' future targets.
pub struct FutureTargets {
    /// Black's material minus White's, per ply `0..=plies`.
    material: Vec<f32>,
    /// Per ply, `N * N` squares in board order: 0 empty, 1 Black, 2 White.
    occupancy: Vec<Vec<u8>>,
}

impl FutureTargets {
    /// Replays `game` from its start.
    pub fn of_game(game: &Game, values: &[f32]) -> FutureTargets {
        let mut pos = game.start().clone();
        let n = pos.size();
        let snapshot = |pos: &Position| -> (f32, Vec<u8>) {
            let m = tengu_rules::values::material(pos, values);
            let mut occ = vec![0u8; n * n];
            for color in Color::ALL {
                for s in pos.squares_of(color) {
                    occ[s.row() * n + s.col()] = 1 + color.index() as u8;
                }
            }
            (m[Color::Black.index()] - m[Color::White.index()], occ)
        };
        let mut material = Vec::with_capacity(game.len() + 1);
        let mut occupancy = Vec::with_capacity(game.len() + 1);
        let (m, o) = snapshot(&pos);
        material.push(m);
        occupancy.push(o);
        for mv in game.moves() {
            pos.play(mv);
            let (m, o) = snapshot(&pos);
            material.push(m);
            occupancy.push(o);
        }
        FutureTargets {
            material,
            occupancy,
        }
    }

    /// The targets of the row at `ply` whose side to move is `mover`: material balance
    /// `horizon` plies later and at the end, and the occupancy of
    /// those two positions (see [`Row::occupancy_future`]), all from the mover's view.
    pub fn for_row(&self, ply: u32, mover: Color, horizon: u32) -> ([f32; 2], Vec<u8>) {
        let last = self.material.len() - 1;
        let later = (ply + horizon).min(last as u32) as usize;
        let sign = if mover == Color::Black { 1.0 } else { -1.0 };
        let material = [sign * self.material[later], sign * self.material[last]];
        let mut occupancy = Vec::with_capacity(2 * self.occupancy[0].len());
        for i in [later, last] {
            occupancy.extend(self.occupancy[i].iter().map(|&c| match (c, mover) {
                (0, _) => 0,
                (1, Color::Black) | (2, Color::White) => 1,
                _ => 2,
            }));
        }
        (material, occupancy)
    }
}

struct PendingRow {
    row: Row,
    mover: Color,
}

struct Slot {
    /// The game's number in this worker (games started before it).
    number: u64,
    /// Model generation and name this game is played with (fixed for the whole game).
    generation: usize,
    model: String,
    game: Game,
    /// The search of the current move (its tree reused from the previous move's); it stops
    /// at its planned visits.
    search: Search,
    rows: Vec<PendingRow>,
    /// Whether this move's search is a full one (playout cap randomization).
    full: bool,
    no_resign: bool,
    resign_watch: ResignWatch,
    /// Index of the opening the game started from (None: the initial position).
    opening: Option<usize>,
    /// Ply of the archived game this one restarted from.
    restart: Option<u32>,
    /// The side that plays the raw policy's sampled move without a search.
    careless: Option<Color>,
}

/// Counters since the start.
#[derive(Clone, Debug, Default)]
pub struct PlayStats {
    pub simulations: u64,
    pub evaluations: u64,
    pub moves: u64,
    pub games: u64,
    /// Rows the judge's teacher labelled, and the wall seconds it spent on them.
    pub labels: u64,
    pub label_seconds: f64,
}

/// An opening that reaches `selfplay.max_plies`: its game would be over before any move
/// is searched ([`SelfPlay::set_openings`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: the opening has {plies} plies; selfplay.max_plies is {max_plies}, so no move would be searched")]
pub struct OpeningTooLong {
    /// The opening's line in its file.
    pub line: usize,
    pub plies: usize,
    pub max_plies: u32,
}

/// The self-play engine of one worker.
pub struct SelfPlay {
    variant: Arc<Variant>,
    search: SearchConfig,
    config: SelfplayConfig,
    slots: Vec<Option<Slot>>,
    rng: SmallRng,
    finished: Vec<FinishedGame>,
    /// Model new games are played with: its generation number and name (written into
    /// game records). Games in flight keep the model they started with.
    pub generation: usize,
    pub model: String,
    /// When false, finished games are not replaced (used to drain before stopping).
    pub start_new_games: bool,
    /// Games started so far; none are started beyond `game_limit`.
    pub games_started: u64,
    pub game_limit: Option<u64>,
    pub stats: PlayStats,
    /// Fixed piece values for material adjudication.
    piece_values: Vec<f32>,
    /// Openings a share `config.opening_share` of new games start from.
    openings: Vec<Opening>,
    /// Moves of the newest finished games (from the initial position), the positions a
    /// share `config.restart_share` of new games restart from.
    archive: std::collections::VecDeque<Arc<[Move]>>,
    /// The variant's terms of the leaf value (mobility reference, piece values).
    leaf_terms: LeafTerms,
    /// The judge's teacher, when `config.teacher_share` is above 0.
    teacher: Option<Teacher>,
}

impl SelfPlay {
    pub fn new(
        variant: Arc<Variant>,
        search: SearchConfig,
        config: SelfplayConfig,
        seed: u64,
    ) -> SelfPlay {
        let slots = (0..config.games_in_flight).map(|_| None).collect();
        // Both sides of a self-play game share one tree (reused from move to move), so a
        // draw cannot be worth less to one side than to the other there: no contempt.
        let search = SearchConfig {
            contempt: 0.0,
            ..search
        };
        let piece_values = tengu_rules::values::piece_values(&variant);
        let leaf_terms = LeafTerms::new(&variant);
        let teacher = (config.teacher_share > 0.0)
            .then(|| Teacher::new(&variant, config.teacher_depth, search.exchange_depth));
        SelfPlay {
            variant,
            search,
            config,
            slots,
            rng: SmallRng::seed_from_u64(seed),
            finished: Vec::new(),
            generation: 0,
            model: "uniform".into(),
            start_new_games: true,
            games_started: 0,
            game_limit: None,
            stats: PlayStats::default(),
            piece_values,
            openings: Vec::new(),
            archive: std::collections::VecDeque::new(),
            leaf_terms,
            teacher,
        }
    }

    /// Sets the openings that a share `selfplay.opening_share` of new games start from
    /// (uniformly at random). Openings are refused when one already reaches
    /// `selfplay.max_plies` (its game would be over before any search); the error names
    /// its line.
    pub fn set_openings(&mut self, openings: Vec<Opening>) -> Result<(), OpeningTooLong> {
        if let Some(long) = openings
            .iter()
            .find(|o| o.moves.len() >= self.config.max_plies as usize)
        {
            return Err(OpeningTooLong {
                line: long.line,
                plies: long.moves.len(),
                max_plies: self.config.max_plies,
            });
        }
        self.openings = openings;
        Ok(())
    }

    /// The start of a new game: with probability `opening_share` (when there are
    /// openings) a uniformly random opening and its index; else with probability
    /// `restart_share` (once the archive holds a game) a position of an archived game and
    /// its ply; else the initial position. No random number is drawn for a share of 0, so
    /// runs without openings and restarts play as before.
    fn start_game(&mut self) -> (Game, Option<usize>, Option<u32>) {
        if !self.openings.is_empty()
            && self.config.opening_share > 0.0
            && self.rng.gen::<f32>() < self.config.opening_share
        {
            let i = self.rng.gen_range(0..self.openings.len());
            return (self.openings[i].game(&self.variant), Some(i), None);
        }
        let mut game = Game::new(Position::initial(self.variant.clone()));
        if !self.archive.is_empty()
            && self.config.restart_share > 0.0
            && self.rng.gen::<f32>() < self.config.restart_share
        {
            let earlier = self.archive[self.rng.gen_range(0..self.archive.len())].clone();
            // Any ply before the earlier game's end, leaving restart_min_plies to play.
            let last = (earlier.len() as u32).saturating_sub(1).min(
                self.config
                    .max_plies
                    .saturating_sub(self.config.restart_min_plies),
            );
            if last >= 1 {
                let ply = self.rng.gen_range(1..=last);
                for &m in &earlier[..ply as usize] {
                    game.play_unchecked(m);
                }
                return (game, None, Some(ply));
            }
        }
        (game, None, None)
    }

    /// Keeps a finished game's moves for restarts (only when restarts are on).
    fn archive_game(&mut self, game: &Game) {
        if self.config.restart_share <= 0.0 || game.is_empty() {
            return;
        }
        self.archive.push_back(game.moves().collect());
        while self.archive.len() > self.config.restart_archive_games {
            self.archive.pop_front();
        }
    }

    /// Games currently being played.
    pub fn games_in_flight(&self) -> usize {
        self.slots.iter().filter(|s| s.is_some()).count()
    }

    /// A game in flight to show as it goes (`crate::live`): game `follow` (a number of
    /// [`InFlight::number`]) while it is in flight, else the one with the most plies. Its
    /// record so far (result `*`) and the searches' values per ply.
    pub fn game_in_flight(&self, follow: Option<u64>) -> Option<InFlight> {
        let slots = || self.slots.iter().flatten();
        let slot = slots()
            .find(|s| Some(s.number) == follow)
            .or_else(|| slots().max_by_key(|s| (s.game.len(), std::cmp::Reverse(s.number))))?;
        let plies = slot.game.len();
        let mut values = vec![None; plies];
        for p in &slot.rows {
            if let Some(v) = values.get_mut(p.row.ply as usize) {
                *v = Some(p.row.search_value);
            }
        }
        let tags = [
            ("Black", slot.model.as_str()),
            ("White", slot.model.as_str()),
        ];
        Some(InFlight {
            number: slot.number,
            model: slot.model.clone(),
            record: Record::new(slot.game.clone(), &tags),
            values,
        })
    }

    /// Finished games since the last call.
    pub fn take_finished(&mut self) -> Vec<FinishedGame> {
        std::mem::take(&mut self.finished)
    }

    fn new_slot(&mut self) -> Slot {
        let no_resign = self.rng.gen::<f32>() < self.config.no_resign_share;
        let (game, opening, restart) = self.start_game();
        let careless = (self.config.careless_share > 0.0
            && self.rng.gen::<f32>() < self.config.careless_share)
            .then(|| Color::ALL[self.rng.gen_range(0..2)]);
        let mut slot = Slot {
            number: self.games_started.saturating_sub(1),
            generation: self.generation,
            model: self.model.clone(),
            game,
            // Planned by begin_move.
            search: Search::new(self.root_plan(1, false), true),
            rows: Vec::new(),
            full: false,
            no_resign,
            resign_watch: ResignWatch::default(),
            opening,
            restart,
            careless,
        };
        self.begin_move(&mut slot);
        slot
    }

    /// Playout cap randomization: a full or a cheap search for the next move.
    fn begin_move(&mut self, slot: &mut Slot) {
        slot.full = self.rng.gen::<f32>() < self.config.full_search_share;
        if slot.careless == Some(slot.game.position().side_to_move()) {
            // The root's evaluation alone: the move is sampled from its policy.
            slot.full = false;
            slot.search.replan(self.root_plan(1, false));
            return;
        }
        let visits = if slot.full {
            self.search.visits
        } else {
            self.config.cheap_visits.min(self.search.visits)
        };
        slot.search.replan(self.root_plan(visits, slot.full));
    }

    /// Self-play's root plan for a search of `visits` root visits: Gumbel noise always,
    /// Dirichlet noise in `full` searches.
    fn root_plan(&self, visits: u32, full: bool) -> RootPlan {
        RootPlan {
            visits,
            gumbel_noise: true,
            dirichlet_noise: full,
            captures_of_all_visits: false,
        }
    }

    /// Model generations used by the games in flight.
    pub fn generations_in_use(&self) -> Vec<usize> {
        let mut g: Vec<usize> = self.slots.iter().flatten().map(|s| s.generation).collect();
        g.sort_unstable();
        g.dedup();
        g
    }

    /// One step with a single evaluator for every game.
    pub fn step(&mut self, eval: &mut dyn Evaluator) -> Result<(), EvalError> {
        self.step_by_generation(&mut |_, inputs| eval.evaluate(inputs))
    }

    /// One step: every game runs simulations until it needs an evaluation (or makes moves),
    /// then the leaves of each model generation are evaluated in one batch by
    /// `evaluate(generation, batch)` and backed up.
    pub fn step_by_generation(
        &mut self,
        evaluate: &mut dyn FnMut(usize, &[EvalInput<'_>]) -> Result<Vec<Evaluation>, EvalError>,
    ) -> Result<(), EvalError> {
        for i in 0..self.slots.len() {
            self.advance(i);
        }
        let pending: Vec<usize> = (0..self.slots.len())
            .filter(|&i| {
                self.slots[i]
                    .as_ref()
                    .is_some_and(|s| s.search.has_pending())
            })
            .collect();
        if pending.is_empty() {
            return Ok(());
        }
        let leaves: Vec<(usize, &Search)> = pending
            .iter()
            .map(|&i| {
                let slot = self.slots[i].as_ref().unwrap();
                (slot.generation, &slot.search)
            })
            .collect();
        let outputs = evaluate_pending(&leaves, evaluate)?;
        self.stats.evaluations += pending.len() as u64;
        let config = &self.config;
        // Self-play's roots leave out the moves that repeat a position (and waiting moves)
        // when the config asks.
        let mut root_moves = |game: &Game, moves: &mut Vec<Move>, policy: &mut Vec<f32>| {
            if config.avoid_repetition {
                drop_repeating(game, moves, policy);
            }
            if config.avoid_waiting {
                let waiting: Vec<bool> = moves.iter().map(|&m| is_waiting(game, m)).collect();
                drop_flagged(&waiting, moves, policy);
            }
        };
        for (&i, out) in pending.iter().zip(outputs) {
            let slot = self.slots[i].as_mut().unwrap();
            slot.search.expand_pending(
                out,
                &self.search,
                &self.leaf_terms,
                &mut root_moves,
                &mut self.rng,
            );
            self.stats.simulations += 1;
        }
        Ok(())
    }

    /// Runs game `i` forward until it waits for an evaluation.
    fn advance(&mut self, i: usize) {
        // Terminal leaves back up without an evaluation; bound the work of one step.
        for _ in 0..100_000 {
            let mut slot = match self.slots[i].take() {
                Some(s) => s,
                None if self.start_new_games
                    && self.game_limit.is_none_or(|l| self.games_started < l) =>
                {
                    self.games_started += 1;
                    self.new_slot()
                }
                None => return,
            };
            if slot.search.has_pending() {
                self.slots[i] = Some(slot);
                return;
            }
            if slot.search.tree.is_empty() {
                slot.search.queue_root(&slot.game);
                self.slots[i] = Some(slot);
                return;
            }
            // A reused root is prepared here (a new one when its evaluation is expanded).
            slot.search.prepare_root(
                slot.game.position(),
                &self.search,
                &self.leaf_terms,
                &mut self.rng,
            );
            let root_moves = slot.search.tree.root().map_or(0, |r| r.moves.len());
            if slot.search.tree.root_visits() >= slot.search.planned_visits() || root_moves == 1 {
                if let Some(done) = self.make_move(&mut slot) {
                    self.finished.push(done);
                    self.stats.games += 1;
                    continue; // the slot is empty now
                }
                self.slots[i] = Some(slot);
                continue;
            }
            match slot
                .search
                .descend(&slot.game, &self.search, self.config.max_plies)
            {
                Descent::Pending => {
                    self.slots[i] = Some(slot);
                    return;
                }
                Descent::Backed => {
                    self.stats.simulations += 1;
                    self.slots[i] = Some(slot);
                }
            }
        }
    }

    /// Plays the searched move of a slot; returns the game if it ended.
    fn make_move(&mut self, slot: &mut Slot) -> Option<FinishedGame> {
        let ply = slot.game.len() as u32;
        let temperature = if ply < self.config.temperature_plies {
            Some(self.config.temperature)
        } else {
            (self.config.final_temperature > 0.0).then_some(self.config.final_temperature)
        };
        let careless = slot.careless == Some(slot.game.position().side_to_move());
        // A forced mate by checks is played at once (and taught as the policy target).
        let mate = self
            .search
            .mate_limits()
            .filter(|_| !careless)
            .and_then(|limits| mate_by_checks(&slot.game, limits))
            .and_then(|m| {
                let root = slot.search.tree.root().expect("searched root");
                root.moves.iter().position(|&x| x == m)
            });
        let edge = if let Some(e) = mate {
            e
        } else if careless {
            sample_prior(
                &slot.search.tree.root().expect("expanded root").prior,
                &mut self.rng,
            )
        } else {
            slot.search.tree.choose_move(temperature, &mut self.rng)
        };
        let root = slot.search.tree.root().expect("searched root");
        let pos = slot.game.position();
        let search_value = root.mean_value();
        let policy = match mate {
            Some(e) => vec![(pos.move_text(root.moves[e]), 1.0)],
            None => slot
                .search
                .tree
                .policy_target()
                .into_iter()
                .map(|(e, w)| (pos.move_text(root.moves[e]), w))
                .collect(),
        };
        let mover = pos.side_to_move();
        // No draw from the generator without a teacher: runs without labels play as before.
        let teacher = match &self.teacher {
            Some(t) if self.rng.gen::<f32>() < self.config.teacher_share => {
                let start = std::time::Instant::now();
                let label = t.label(pos);
                self.stats.labels += 1;
                self.stats.label_seconds += start.elapsed().as_secs_f64();
                Some(TeacherLabel {
                    depth: label.depth as u8,
                    base: label.base,
                    score: label.score,
                })
            }
            _ => None,
        };
        slot.rows.push(PendingRow {
            row: Row {
                position: pos.to_string(),
                repetitions: slot.game.repetitions().saturating_sub(1).min(255) as u8,
                policy,
                result: 0,
                search_value,
                full_search: slot.full && root.moves.len() > 1,
                game: 0,
                ply,
                game_plies: 0,
                material_future: [0.0; 2],
                occupancy_future: Vec::new(),
                teacher,
            },
            mover,
        });
        let mv = root.moves[edge];
        self.stats.moves += 1;

        let resigns = slot
            .resign_watch
            .observe(&self.config.resignation(), mover, search_value);
        if resigns && !slot.no_resign {
            let resigned = Ending {
                winner: Some(mover.opposite()),
                end: GameEnd::Resignation,
            };
            return Some(self.finish(slot, resigned));
        }

        slot.game.play_unchecked(mv);
        slot.search.tree.reuse(edge);
        // A reused root was expanded with every move; search it afresh without the moves
        // that self-play leaves out of its roots (repeats, waiting moves).
        let game = &slot.game;
        if slot.search.tree.root().is_some_and(|root| {
            (self.config.avoid_repetition && game.repeating_moves(&root.moves).contains(&true))
                || (self.config.avoid_waiting && root.moves.iter().any(|&m| is_waiting(game, m)))
        }) {
            slot.search.tree.clear();
        }
        if let Some(ending) = self
            .config
            .end_policy()
            .judge(&slot.game, &self.piece_values)
        {
            return Some(self.finish(slot, ending));
        }
        self.begin_move(slot);
        None
    }

    fn finish(&mut self, slot: &mut Slot, ending: Ending) -> FinishedGame {
        let winner = ending.winner;
        let plies = slot.game.len() as u32;
        self.archive_game(&slot.game);
        let future = FutureTargets::of_game(&slot.game, &self.piece_values);
        let rows = std::mem::take(&mut slot.rows)
            .into_iter()
            .map(|p| {
                let (material_future, occupancy_future) =
                    future.for_row(p.row.ply, p.mover, self.config.target_horizon);
                Row {
                    result: ending.score_of(p.mover),
                    game_plies: plies,
                    material_future,
                    occupancy_future,
                    ..p.row
                }
            })
            .collect();
        let mut tags = vec![
            ("Black", slot.model.clone()),
            ("White", slot.model.clone()),
            ("Termination", ending.end.to_string()),
        ];
        if let Some(i) = slot.opening {
            tags.push(("Opening", i.to_string()));
            tags.push(("OpeningLine", self.openings[i].line.to_string()));
        }
        if let Some(ply) = slot.restart {
            tags.push(("Restart", ply.to_string()));
        }
        if let Some(side) = slot.careless {
            tags.push(("Careless", side.to_string()));
        }
        // Only a game that was not allowed to resign can tell a false resignation; its
        // record says whether one would have been (`tengu results --calibrate` counts them).
        let false_resignation = slot
            .no_resign
            .then(|| slot.resign_watch.false_resignation(winner))
            .flatten();
        if let Some(false_one) = false_resignation {
            let verdict = if false_one { "false" } else { "correct" };
            tags.push((RESIGN_CHECK_TAG, verdict.to_string()));
        }
        let tags: Vec<(&str, &str)> = tags.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let mut record = Record::new(slot.game.clone(), &tags);
        for (k, v) in record.tags.iter_mut() {
            if k == "Result" {
                *v = ending.result_text().into();
            }
        }
        FinishedGame {
            model: slot.model.clone(),
            record,
            rows,
            winner,
            termination: ending.end,
            plies,
            false_resignation,
            opening: slot.opening,
            restart: slot.restart,
            careless: slot.careless,
        }
    }
}

/// An edge drawn with probability `prior[e]` (the first edge if the priors sum to 0).
fn sample_prior<R: Rng>(prior: &[f32], rng: &mut R) -> usize {
    let total: f32 = prior.iter().sum();
    let mut x = rng.gen::<f32>() * total;
    for (e, &p) in prior.iter().enumerate() {
        if x < p {
            return e;
        }
        x -= p;
    }
    prior.iter().rposition(|&p| p > 0.0).unwrap_or(0)
}

/// Removes from a root's `moves` (and their `prior`, renormalised) those that recreate a
/// position already seen in `game`, unless every move does.
fn drop_repeating(game: &Game, moves: &mut Vec<Move>, prior: &mut Vec<f32>) {
    let repeats = game.repeating_moves(moves);
    drop_flagged(&repeats, moves, prior);
}

/// Whether `m` waits: a pass, or the piece the mover moved last stepping straight back
/// (without a capture).
pub fn is_waiting(game: &Game, m: Move) -> bool {
    if m.is_pass() {
        return true;
    }
    // The mover's own previous move, two plies back (from the end: no walk over the game).
    let previous = game.moves().rev().nth(1);
    !m.is_capture()
        && previous.is_some_and(|p| !p.is_pass() && p.to() == m.from() && p.from() == m.to())
}

/// Removes the flagged `moves` (and their `prior`, renormalised), unless all or none are.
fn drop_flagged(repeats: &[bool], moves: &mut Vec<Move>, prior: &mut Vec<f32>) {
    if !repeats.contains(&true) || !repeats.contains(&false) {
        return;
    }
    let mut keep = repeats.iter().map(|&r| !r);
    moves.retain(|_| keep.next().unwrap_or(true));
    let mut keep = repeats.iter().map(|&r| !r);
    prior.retain(|_| keep.next().unwrap_or(true));
    let total: f32 = prior.iter().sum();
    if total > 0.0 {
        prior.iter_mut().for_each(|p| *p /= total);
    } else {
        let uniform = 1.0 / prior.len() as f32;
        prior.iter_mut().for_each(|p| *p = uniform);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drop_repeating_removes_the_moves_back_and_renormalises() {
        let mut game = Game::new(Position::initial(Variant::dai_dai()));
        // Black and White each step a piece out; Black steps back; White's step back would
        // recreate the start.
        let mut path = Vec::new();
        for _ in 0..2 {
            let pos = game.position().clone();
            let m = pos
                .legal_move_list()
                .into_iter()
                .find(|m| !m.is_capture() && !m.is_pass())
                .unwrap();
            game.play(m).unwrap();
            path.push(m);
        }
        let back = |game: &Game, m: Move| {
            game.position()
                .legal_move_list()
                .into_iter()
                .find(|b| b.from() == m.to() && b.to() == m.from())
        };
        let black_back = back(&game, path[0]).expect("reversible");
        game.play(black_back).unwrap();
        let white_back = back(&game, path[1]).expect("reversible");
        let mut moves = game.position().legal_move_list();
        let n = moves.len();
        let mut prior: Vec<f32> = moves
            .iter()
            .map(|&m| {
                if m == white_back {
                    0.5
                } else {
                    0.5 / (n - 1) as f32
                }
            })
            .collect();
        drop_repeating(&game, &mut moves, &mut prior);
        assert_eq!(moves.len(), n - 1);
        assert!(!moves.contains(&white_back));
        assert!((prior.iter().sum::<f32>() - 1.0).abs() < 1e-5);
        assert!((prior[0] - 1.0 / (n - 1) as f32).abs() < 1e-6);
    }
}
