//! Search settings (TOML table `[search]`; unknown keys are rejected, missing keys take the
//! defaults below).

use serde::{Deserialize, Serialize};

/// PUCT search settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SearchConfig {
    /// Visits of a full search (root visits, reused ones included).
    pub visits: u32,
    /// Exploration constant of PUCT.
    pub c_puct: f32,
    /// First-play urgency: an unvisited move's value is the parent's value minus this
    /// times the square root of the prior mass of the visited moves.
    pub fpu_reduction: f32,
    /// Dirichlet noise at the root of full searches: alpha per move is this / legal moves.
    pub dirichlet_total_alpha: f32,
    /// Share of the root prior replaced by noise.
    pub noise_fraction: f32,
    /// Root selection: `puct`, or `gumbel` (Gumbel top-k with sequential halving, and
    /// completed-Q policy targets).
    pub root: RootSelection,
    /// Moves sampled at the Gumbel root (`root = "gumbel"`).
    pub gumbel_moves: u32,
    /// Gumbel root: min-max rescale the completed Q values to [0, 1] before sigma (as
    /// DeepMind's mctx does), so small value differences still shape the policy target.
    pub gumbel_rescale: bool,
    /// Gumbel root: c_scale of sigma(q) = (50 + max visits) * c_scale * q (the Gumbel MuZero
    /// paper's 0.1); larger lets Q outweigh the prior in the final choice and the policy
    /// target, as small material differences need.
    pub gumbel_value_scale: f32,
    /// Weight of the material head's prediction (future material balance, tanh-scaled)
    /// added to the value a leaf backs up (KataGo's score utility); 0: the value alone.
    pub material_utility: f32,
    /// Weight of the leaf mover's mobility, ln(legal moves / legal moves of the initial
    /// position), added to the same backed-up value: the mobility term of a classic
    /// alpha-beta evaluation, which sends pieces out to where the contact is; 0: off.
    pub mobility_utility: f32,
    /// Weight of the mobility balance, ln(the leaf mover's pseudo-legal moves / the
    /// opponent's), added to the same backed-up value: both sides' mobility, as a classic
    /// evaluation counts it at every leaf (`mobility_utility` sees the mover's alone, which
    /// one ply below the root rewards cramping the opponent); 0: off.
    pub mobility_balance: f32,
    /// Weight of the value head (win - loss) in the value a leaf backs up; below 1 leans
    /// the search on the material head while the value head still memorises its few games.
    pub value_utility: f32,
    /// PUCT roots: share of a search's new visits that first go once to each capture at the
    /// root (most probable first), so a young policy's search sees what captures are worth
    /// (a rules fact, no values); 0: off.
    pub root_capture_share: f32,
    /// Where a leaf's material term (`material_utility`) comes from: `head` (the material
    /// head's prediction), `exchange` (the balance now plus what the side to move wins by
    /// a capture-only search of `exchange_depth` plies: exact short tactics from the rules'
    /// piece values and move generator, no network) or `gain` (only what that exchange
    /// changes; the value head carries the balance) or `teacher` (the judge's teacher at
    /// every leaf: a deeper, slower count, for measuring what a learned correction could
    /// reach).
    pub leaf_material: LeafMaterial,
    /// Plies of the capture-only search of `leaf_material = "exchange"`.
    pub exchange_depth: u32,
    /// With `leaf_material = "exchange"`: piece units per pseudo-legal move of the balance
    /// of both sides' mobility after a root move, added to its exchange value (what ranks
    /// the raced candidates): a classic evaluation's mobility term, which sends pieces out
    /// to where the contact is (0.01 is the `alphabeta` player's weight); 0: off.
    pub root_mobility: f32,
    /// With `leaf_material = "exchange"`: share of what the mover would win by exchange
    /// if it could move again after a root move (its threat, found by a null move) added to
    /// the move's exchange value; an opponent that answers every single threat makes this
    /// worth little, one that does not (or a double threat) makes it worth most; 0: off.
    pub root_threat: f32,
    /// A position that already occurred (in the game since the last capture, or on the
    /// search path) counts as a draw where the search reaches it again (chess engines'
    /// two-fold rule): the fourth occurrence that ends the game (RULES.md §5.5) is too deep
    /// for a search of a few visits to see, so a player ahead shuffles into the repetition
    /// its opponent then completes. With this, a player ahead avoids it and one behind
    /// seeks it. false: only the game's own end by repetition is a draw. Under
    /// `REPETITION=STRICT` a move back to an earlier position is illegal, so the search
    /// never reaches one and this changes nothing.
    pub repetition_draw: bool,
    /// Weight of the network's learned correction to the exchange count (the judge's
    /// residual head, `Evaluation::residual`) with `leaf_material = "exchange"`: a leaf's
    /// material term becomes tanh((balance + exchange gain) / scale + this * correction),
    /// so 0, or an untrained network whose correction is 0, plays exactly as the exchange
    /// count does; 1 uses the correction as trained (toward a deeper search's score).
    pub residual_utility: f32,
    /// Plies of the teacher's search at every leaf with `leaf_material = "teacher"` (1..=4).
    pub leaf_teacher_depth: u32,
    /// Contempt, 0..1 in value units: a draw the search reaches (the rules', the cap's, or
    /// a position met again under `repetition_draw`) is worth `-contempt` to the player at
    /// the root and `+contempt` to its opponent (`tengu_rules::end::draw_value`), so a
    /// player that is not behind does not steer into a repetition. 0: a draw is 0. Matches
    /// and the engine only: self-play's searches value draws at 0, since both sides share
    /// one tree there. `tengu match --contempt` sets it for every checkpoint player.
    /// Written only when set, so that settings saved before it (a book's header) compare
    /// equal.
    #[serde(skip_serializing_if = "is_zero")]
    pub contempt: f32,
    /// Before each search, look for a forced mate by checks in at most this many of the
    /// mover's moves (`tengu_search::mate`) and play it (0..=3; 0: off). Far ahead, the
    /// search's values saturate and a won game otherwise shuffles on to the ply cap. In
    /// self-play a mate found in a full search is also the move's policy target.
    #[serde(skip_serializing_if = "is_zero_u32")]
    pub mate_search: u32,
    /// Positions the mate search may visit a move (it finds nothing past that).
    #[serde(skip_serializing_if = "is_default_mate_nodes")]
    pub mate_search_nodes: u64,
}

/// [`SearchConfig::mate_search_nodes`] by default.
pub const MATE_SEARCH_NODES: u64 = 20_000;

fn is_zero_u32(x: &u32) -> bool {
    *x == 0
}

fn is_default_mate_nodes(x: &u64) -> bool {
    *x == MATE_SEARCH_NODES
}

impl Default for SearchConfig {
    fn default() -> Self {
        SearchConfig {
            visits: 128,
            c_puct: 1.5,
            fpu_reduction: 0.2,
            dirichlet_total_alpha: 10.0,
            noise_fraction: 0.25,
            root: RootSelection::Puct,
            gumbel_moves: 16,
            gumbel_rescale: true,
            gumbel_value_scale: 0.1,
            material_utility: 0.0,
            mobility_utility: 0.0,
            mobility_balance: 0.0,
            value_utility: 1.0,
            root_capture_share: 0.0,
            leaf_material: LeafMaterial::Head,
            exchange_depth: 4,
            root_mobility: 0.0,
            root_threat: 0.0,
            repetition_draw: false,
            residual_utility: 0.0,
            leaf_teacher_depth: 2,
            contempt: 0.0,
            mate_search: 0,
            mate_search_nodes: MATE_SEARCH_NODES,
        }
    }
}

fn is_zero(x: &f32) -> bool {
    *x == 0.0
}

/// Source of a leaf's material term.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LeafMaterial {
    /// The material head's prediction.
    Head,
    /// tanh((balance now + what the mover wins by exchange) / scale).
    Exchange,
    /// Only what the pending exchange changes: tanh((balance + gain) / scale) - tanh(balance
    /// / scale), so the value head judges the position and its material, and the capture
    /// search adds the tactics pending at the leaf, which a network sees poorly (adding the
    /// whole exchange material to the value counts the balance twice). Roots and leads as
    /// with `Exchange`; needs `value_utility > 0`.
    Gain,
    /// The judge's teacher at every leaf (`tengu_search::teacher`: alpha-beta
    /// `leaf_teacher_depth` plies full width with the exchange count at its horizon), as
    /// tanh(score / scale): what a residual head that learned its teacher perfectly would
    /// give, at the teacher's cost a leaf (milliseconds, not microseconds). The ceiling of
    /// `residual_utility`, for measurement. Roots and leads as with `Exchange`.
    Teacher,
}

impl LeafMaterial {
    /// Whether a capture-only search runs at leaves and roots (exchange root ranking, leads).
    pub fn uses_exchange(self) -> bool {
        matches!(
            self,
            LeafMaterial::Exchange | LeafMaterial::Gain | LeafMaterial::Teacher
        )
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RootSelection {
    Puct,
    Gumbel,
}

impl SearchConfig {
    /// The limits of the mate search before each move (`None`: off).
    pub fn mate_limits(&self) -> Option<crate::mate::MateLimits> {
        (self.mate_search > 0).then_some(crate::mate::MateLimits {
            moves: self.mate_search,
            nodes: self.mate_search_nodes,
        })
    }

    /// Checks ranges; the error names the key.
    pub fn validate(&self) -> Result<(), ConfigError> {
        check(self.visits >= 1, "search.visits", "be at least 1")?;
        check(self.c_puct > 0.0, "search.c_puct", "be positive")?;
        // Shares and utility weights: each a fraction of something in [0, 1].
        for (key, value) in [
            ("search.noise_fraction", self.noise_fraction),
            ("search.material_utility", self.material_utility),
            ("search.mobility_utility", self.mobility_utility),
            ("search.mobility_balance", self.mobility_balance),
            ("search.value_utility", self.value_utility),
            ("search.root_capture_share", self.root_capture_share),
            ("search.root_mobility", self.root_mobility),
            ("search.root_threat", self.root_threat),
            ("search.contempt", self.contempt),
        ] {
            check_fraction(key, value)?;
        }
        check(
            self.dirichlet_total_alpha > 0.0,
            "search.dirichlet_total_alpha",
            "be positive",
        )?;
        check(
            self.gumbel_value_scale > 0.0 && self.gumbel_value_scale <= 10.0,
            "search.gumbel_value_scale",
            "be in (0, 10]",
        )?;
        check(
            (1..=8).contains(&self.exchange_depth),
            "search.exchange_depth",
            "be in 1..=8",
        )?;
        check(
            self.gumbel_moves >= 2,
            "search.gumbel_moves",
            "be at least 2",
        )?;
        check(
            (0.0..=2.0).contains(&self.residual_utility),
            "search.residual_utility",
            "be in [0, 2]",
        )?;
        check(
            self.mate_search <= 3,
            "search.mate_search",
            "be in 0..=3 (0: off)",
        )?;
        check(
            self.mate_search_nodes >= 1,
            "search.mate_search_nodes",
            "be at least 1",
        )?;
        check(
            (1..=4).contains(&self.leaf_teacher_depth),
            "search.leaf_teacher_depth",
            "be in 1..=4",
        )?;
        // The correction is learned on the exchange count's scale; elsewhere it means nothing.
        if self.residual_utility > 0.0
            && (self.leaf_material != LeafMaterial::Exchange || self.material_utility == 0.0)
        {
            return Err(ConfigError::Needs {
                key: "search.residual_utility",
                when: "above 0",
                needs: "leaf_material = \"exchange\" and material_utility above 0",
            });
        }
        // With "gain" the material balance reaches the leaves only through the value head.
        check(
            self.leaf_material != LeafMaterial::Gain || self.value_utility > 0.0,
            "search.value_utility",
            "be above 0 with leaf_material = \"gain\"",
        )
    }
}

/// A setting the configuration refuses; the message names the key (and the rule it
/// breaks), as the user wrote it in the TOML table.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// A value outside its range: "`key` must `rule`" (`search.visits must be at least 1`).
    /// The key is owned where a table's keys come from data (`train.<head>_weight`).
    #[error("{key} must {rule}")]
    OutOfRange {
        key: std::borrow::Cow<'static, str>,
        rule: &'static str,
    },
    /// A value that needs another setting: "`key` `when` needs `needs`".
    #[error("{key} {when} needs {needs}")]
    Needs {
        key: &'static str,
        when: &'static str,
        needs: &'static str,
    },
}

/// `Ok` when `ok`, else "`key` must `rule`": the range checks of this section and of the
/// other crates' config sections (`[selfplay]`).
pub fn check(ok: bool, key: &'static str, rule: &'static str) -> Result<(), ConfigError> {
    if ok {
        Ok(())
    } else {
        Err(ConfigError::OutOfRange {
            key: key.into(),
            rule,
        })
    }
}

/// A share or weight: `value` in [0, 1] (NaN refused), else "`key` must be in [0, 1]".
pub fn check_fraction(key: &'static str, value: f32) -> Result<(), ConfigError> {
    check((0.0..=1.0).contains(&value), key, "be in [0, 1]")
}
