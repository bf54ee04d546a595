//! Minimax over a book graph that may hold cycles and transpositions.
//!
//! The book is a two-player game on a finite graph: at each vertex the player to move
//! either takes the vertex's *exit* (its value when leaving the book: the search over the
//! moves not in the book, or the exact value of a finished game) or follows an edge to
//! another vertex. A play that never leaves the book is a draw by repetition (value 0).
//! Such games have positional optimal strategies, and their value equals the value of the
//! "first cycle" game where a position repeated on the current line scores 0
//! (Ehrenfeucht and Mycielski), which is what the brute-force reference in the tests
//! computes. [`solve`] computes it exactly in O(V + E) after sorting the exits: positive
//! values by a growing attractor of the maximiser (thresholds descending), negative ones by
//! the minimiser's, and every vertex left in neither is worth 0.
//!
//! Values here are from a fixed side's view (the maximiser's, Black's in the book).

use std::collections::VecDeque;

/// One vertex of the game.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Vertex {
    /// Whether the maximiser moves here.
    pub maximiser: bool,
    /// The value of leaving the book here (maximiser's view), if leaving is possible.
    pub exit: Option<f32>,
    /// Successor vertices (book moves), in edge order.
    pub succ: Vec<u32>,
}

/// What the side to move does at a vertex under the optimal positional strategy.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Choice {
    /// Leave the book (take the exit).
    Exit,
    /// Follow edge `i` of the vertex.
    Edge(usize),
    /// Nothing to do (no exit and no edge): worth 0.
    Stuck,
}

/// The solved value of a vertex (maximiser's view) and the choice that achieves it.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Solved {
    pub value: f32,
    pub choice: Choice,
}

/// Solves the game; one entry per vertex.
pub fn solve(vertices: &[Vertex]) -> Vec<Solved> {
    let n = vertices.len();
    let mut preds: Vec<Vec<(u32, usize)>> = vec![Vec::new(); n];
    for (v, vx) in vertices.iter().enumerate() {
        for (i, &s) in vx.succ.iter().enumerate() {
            preds[s as usize].push((v as u32, i));
        }
    }
    let mut out: Vec<Option<Solved>> = vec![None; n];
    // The maximiser's attractor to exits >= t for t descending over positive exits, then
    // the minimiser's to exits <= t for t ascending over negative ones.
    for maximiser_side in [true, false] {
        let sign = if maximiser_side { 1.0 } else { -1.0 };
        let mut exits: Vec<(f32, u32)> = vertices
            .iter()
            .enumerate()
            .filter_map(|(v, vx)| vx.exit.map(|e| (sign * e, v as u32)))
            .filter(|&(e, _)| e > 0.0)
            .collect();
        // Descending by value (for the attracting side); ties by vertex for determinism.
        exits.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        // Options of the opposing side's vertices not yet attracted.
        let mut pending: Vec<usize> = vertices
            .iter()
            .map(|vx| vx.succ.len() + vx.exit.is_some() as usize)
            .collect();
        let mut queue: VecDeque<u32> = VecDeque::new();
        for (t, v) in exits {
            let vx = &vertices[v as usize];
            if out[v as usize].is_some() {
                continue;
            }
            let ours = vx.maximiser == maximiser_side;
            if ours {
                out[v as usize] = Some(Solved {
                    value: sign * t,
                    choice: Choice::Exit,
                });
                queue.push_back(v);
            } else {
                pending[v as usize] -= 1;
                if pending[v as usize] == 0 {
                    out[v as usize] = Some(Solved {
                        value: sign * t,
                        choice: Choice::Exit,
                    });
                    queue.push_back(v);
                }
            }
            // Everything attracted through the new vertices joins at the same threshold.
            while let Some(u) = queue.pop_front() {
                for &(p, edge) in &preds[u as usize] {
                    if out[p as usize].is_some() {
                        continue;
                    }
                    let join = if vertices[p as usize].maximiser == maximiser_side {
                        true
                    } else {
                        pending[p as usize] -= 1;
                        pending[p as usize] == 0
                    };
                    if join {
                        out[p as usize] = Some(Solved {
                            value: sign * t,
                            choice: Choice::Edge(edge),
                        });
                        queue.push_back(p);
                    }
                }
            }
        }
    }
    // The rest is worth 0: an exit of 0, or a way to another vertex worth 0 (possibly a
    // cycle: a draw by repetition).
    (0..n)
        .map(|v| {
            out[v].unwrap_or_else(|| {
                let vx = &vertices[v];
                let choice = if vx.exit == Some(0.0) {
                    Choice::Exit
                } else if let Some(i) = vx
                    .succ
                    .iter()
                    .position(|&s| out[s as usize].is_none_or(|x| x.value == 0.0))
                {
                    Choice::Edge(i)
                } else if vx.exit.is_some() {
                    Choice::Exit
                } else {
                    Choice::Stuck
                };
                Solved { value: 0.0, choice }
            })
        })
        .collect()
}

/// Follows the choices from `v` until an exit (returning that vertex) or a repeated vertex
/// or a stuck one (`None`: the line ends in a draw by repetition).
pub fn exit_of(vertices: &[Vertex], solved: &[Solved], mut v: u32) -> Option<u32> {
    let mut steps = 0;
    loop {
        match solved[v as usize].choice {
            Choice::Exit => return Some(v),
            Choice::Stuck => return None,
            Choice::Edge(i) => v = vertices[v as usize].succ[i],
        }
        steps += 1;
        if steps > vertices.len() {
            return None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// The first-cycle game by exhaustive search: a vertex repeated on the line scores 0.
    fn brute(vertices: &[Vertex], v: u32, line: &mut Vec<u32>) -> f32 {
        let vx = &vertices[v as usize];
        line.push(v);
        let mut options: Vec<f32> = vx.exit.into_iter().collect();
        for &s in &vx.succ {
            options.push(if line.contains(&s) {
                0.0
            } else {
                brute(vertices, s, line)
            });
        }
        line.pop();
        if options.is_empty() {
            return 0.0;
        }
        let fold = if vx.maximiser { f32::max } else { f32::min };
        options.into_iter().reduce(fold).unwrap()
    }

    fn random_graph(rng: &mut rand::rngs::SmallRng) -> Vec<Vertex> {
        let n = rng.gen_range(1..=8);
        (0..n)
            .map(|v| {
                let degree = rng.gen_range(0..=3);
                let mut succ: Vec<u32> = (0..degree).map(|_| rng.gen_range(0..n)).collect();
                succ.sort();
                succ.dedup();
                let exit = (succ.is_empty() || rng.gen_bool(0.7)).then(|| {
                    // A few repeated values (ties) and exact zeros among them.
                    [-1.0, -0.5, -0.25, 0.0, 0.25, 0.5, 1.0][rng.gen_range(0..7)]
                        + if rng.gen_bool(0.5) {
                            rng.gen_range(-0.2f32..0.2)
                        } else {
                            0.0
                        }
                });
                Vertex {
                    // Sides alternate along edges in real books, but the solver must not
                    // rely on it.
                    maximiser: if rng.gen_bool(0.8) {
                        v % 2 == 0
                    } else {
                        rng.gen()
                    },
                    exit,
                    succ,
                }
            })
            .collect()
    }

    #[test]
    fn equals_brute_force_on_random_graphs_with_cycles() {
        let mut rng = rand::rngs::SmallRng::seed_from_u64(7);
        let mut cyclic = 0;
        for _ in 0..4000 {
            let g = random_graph(&mut rng);
            let solved = solve(&g);
            for v in 0..g.len() as u32 {
                let want = brute(&g, v, &mut Vec::new());
                assert_eq!(solved[v as usize].value, want, "vertex {v} of {g:?}");
                // The strategy realises the value: following the choices ends at an exit
                // worth the value, or cycles (worth 0).
                match exit_of(&g, &solved, v) {
                    Some(e) => assert_eq!(g[e as usize].exit, Some(want), "{g:?}"),
                    None => assert_eq!(want, 0.0, "{g:?}"),
                }
            }
            if g.iter()
                .enumerate()
                .any(|(v, x)| x.succ.iter().any(|&s| s as usize <= v))
            {
                cyclic += 1;
            }
        }
        assert!(cyclic > 1000, "the random graphs must include cycles");
    }

    #[test]
    fn a_cycle_the_minimiser_prefers_is_a_draw() {
        // Max at 0 may leave at -0.5 or go to 1; Min at 1 may leave at +0.3 or go back.
        let g = vec![
            Vertex {
                maximiser: true,
                exit: Some(-0.5),
                succ: vec![1],
            },
            Vertex {
                maximiser: false,
                exit: Some(0.3),
                succ: vec![0],
            },
        ];
        let s = solve(&g);
        assert_eq!((s[0].value, s[1].value), (0.0, 0.0));
        assert_eq!(s[0].choice, Choice::Edge(0));
        assert_eq!(exit_of(&g, &s, 0), None);
    }
}
