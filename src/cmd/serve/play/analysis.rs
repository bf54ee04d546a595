//! The play page's analysis: one thread running `tengu analyze`'s engine
//! (`crate::cmd::analyze::engine`) for the page's queries, one engine per network, each
//! evaluating the leaves of all its queries in one batch per step as `tengu analyze` does.
//! A query holds a [`Ticket`] from the time it is taken until its answer is sent, so no
//! more than `--max-queries` are ever searched at once, even when their clients left.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Instant;

use serde_json::Value;
use tengu_model::Backend;
use tengu_store::Location;
use tokio::sync::oneshot;

use super::error::PlayError;
use super::networks::Network;
use crate::cmd::analyze::answer::Reply;
use crate::cmd::analyze::engine::{Engine, Networks};
use crate::cmd::analyze::query::Query;

/// Engines kept at most (each holds its network); past it an idle one is dropped.
const ENGINES: usize = 4;

/// What a query's answer is: the [`crate::cmd::analyze::answer::Analysis`] of its ply as
/// JSON, or why there is none.
pub type Answer = Result<Value, PlayError>;

/// The handle of the analysis thread.
pub struct Analysis {
    jobs: mpsc::Sender<Job>,
    tickets: Arc<Tickets>,
    limit: usize,
    next: AtomicU64,
}

struct Job {
    network: Network,
    location: Location,
    query: Query,
    reply: oneshot::Sender<Answer>,
    ticket: Ticket,
}

/// The count of queries in flight.
#[derive(Default)]
struct Tickets {
    taken: AtomicUsize,
}

/// One query's place among those in flight, given back when dropped.
pub struct Ticket(Arc<Tickets>);

impl Drop for Ticket {
    fn drop(&mut self) {
        self.0.taken.fetch_sub(1, Ordering::AcqRel);
    }
}

impl Analysis {
    /// Starts the thread; at most `max_queries` queries in flight, searched together.
    pub fn start(backend: Backend, max_queries: usize) -> std::io::Result<Analysis> {
        let (jobs, rx) = mpsc::channel();
        std::thread::Builder::new()
            .name("serve-analysis".into())
            .spawn(move || run(&rx, backend, max_queries))?;
        Ok(Analysis {
            jobs,
            tickets: Arc::default(),
            limit: max_queries,
            next: AtomicU64::new(1),
        })
    }

    /// Queries in flight now.
    pub fn in_flight(&self) -> usize {
        self.tickets.taken.load(Ordering::Acquire)
    }

    /// A fresh query id.
    pub fn next_id(&self) -> String {
        format!("play-{}", self.next.fetch_add(1, Ordering::Relaxed))
    }

    /// A place for one more query, or why there is none.
    pub fn ticket(&self) -> Result<Ticket, PlayError> {
        let limit = self.limit;
        self.tickets
            .taken
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < limit).then_some(n + 1)
            })
            .map_err(|count| PlayError::TooMany {
                what: "analysis queries in flight",
                count,
                limit,
                flag: "--max-queries",
            })?;
        Ok(Ticket(self.tickets.clone()))
    }

    /// Hands a validated query to the thread: its answer comes on the receiver.
    pub fn submit(
        &self,
        network: Network,
        location: Location,
        query: Query,
        ticket: Ticket,
    ) -> Result<oneshot::Receiver<Answer>, PlayError> {
        let (reply, answer) = oneshot::channel();
        self.jobs
            .send(Job {
                network,
                location,
                query,
                reply,
                ticket,
            })
            .map_err(|_| PlayError::Unavailable("the analysis thread stopped".into()))?;
        Ok(answer)
    }
}

/// An engine of one network.
struct Loaded {
    network: String,
    engine: Engine,
    used: Instant,
}

/// The thread: takes queries, steps the engines with work, answers each query when its
/// search ends; returns when the server drops its handle.
fn run(jobs: &mpsc::Receiver<Job>, backend: Backend, max_searches: usize) {
    let mut engines: Vec<Loaded> = Vec::new();
    let mut waiting: HashMap<String, (oneshot::Sender<Answer>, Ticket)> = HashMap::new();
    loop {
        let mut new = Vec::new();
        if engines.iter().all(|e| e.engine.is_idle()) {
            match jobs.recv() {
                Ok(job) => new.push(job),
                Err(_) => return,
            }
        }
        new.extend(jobs.try_iter());
        for job in new {
            let k = match engine_for(
                &mut engines,
                &job.network,
                &job.location,
                backend,
                max_searches,
            ) {
                Ok(k) => k,
                Err(problem) => {
                    // The place is given back before the answer goes, so a client that
                    // asks again at once finds it free.
                    drop(job.ticket);
                    let _ = job.reply.send(Err(PlayError::Unavailable(problem)));
                    continue;
                }
            };
            waiting.insert(job.query.id.0.clone(), (job.reply, job.ticket));
            let replies = engines[k].engine.submit(job.query);
            deliver(replies, &mut waiting);
        }
        for loaded in engines.iter_mut().filter(|e| !e.engine.is_idle()) {
            loaded.used = Instant::now();
            let replies = loaded.engine.step();
            deliver(replies, &mut waiting);
        }
    }
}

/// The index of `network`'s engine, made now if there is none (its network loads with its
/// first query, through `tengu analyze`'s loader).
fn engine_for(
    engines: &mut Vec<Loaded>,
    network: &Network,
    location: &Location,
    backend: Backend,
    max_searches: usize,
) -> Result<usize, String> {
    if let Some(k) = engines.iter().position(|e| e.network == network.id) {
        return Ok(k);
    }
    if engines.len() >= ENGINES {
        if let Some(k) = (0..engines.len())
            .filter(|&k| engines[k].engine.is_idle())
            .min_by_key(|&k| engines[k].used)
        {
            tracing::info!(network = %engines[k].network, "play: analysis engine dropped (idle)");
            engines.remove(k);
        }
    }
    let given: Vec<(String, PathBuf)> =
        match network.local_file(location).map_err(|e| format!("{e:#}"))? {
            Some(path) => {
                let meta = tengu_model::checkpoint::read_meta(&path).map_err(|e| e.to_string())?;
                vec![(meta.game, path)]
            }
            None => Vec::new(),
        };
    let search =
        crate::cmd::CheckpointSearch::from_flags(None, None, None).map_err(|e| format!("{e:#}"))?;
    let nets = Networks::new(crate::cmd::analyze::loader(given, search, backend));
    engines.push(Loaded {
        network: network.id.clone(),
        engine: Engine::new(nets, max_searches, 1),
        used: Instant::now(),
    });
    Ok(engines.len() - 1)
}

/// Sends each answer to the query waiting for it. An error at this stage is the network's
/// (the query was validated before it came): the server cannot analyse now.
fn deliver(replies: Vec<Reply>, waiting: &mut HashMap<String, (oneshot::Sender<Answer>, Ticket)>) {
    for reply in replies {
        let (id, answer) = match reply {
            Reply::Analysis(a) => {
                let answer =
                    serde_json::to_value(&*a).map_err(|e| PlayError::Unavailable(e.to_string()));
                (a.id.clone(), answer)
            }
            Reply::Error(e) => match e.id {
                Some(id) => (id, Err(PlayError::Unavailable(e.error))),
                None => continue,
            },
            Reply::Terminated(_) => continue,
        };
        if let Some((tx, ticket)) = waiting.remove(&id) {
            drop(ticket);
            // A client that left dropped its receiver; its place is free all the same.
            let _ = tx.send(answer);
        }
    }
}
