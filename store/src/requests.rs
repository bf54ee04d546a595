//! The store requests a process sent, as its log line at the end of a worker's or the
//! trainer's run says them (what a run costs on a metered object store).

use crate::{RequestCounts, RunStore};

/// Logs the store requests this process sent, in total and per hour (what a run costs on
/// a metered object store): `log_requests!(store, seconds)`. A macro so that the line is
/// logged under the caller's module (the trainer's requests under the trainer's target, a
/// worker's under the worker's); the caller depends on `tracing`.
#[macro_export]
macro_rules! log_requests {
    ($store:expr, $seconds:expr) => {{
        let (r, per_hour) = $crate::requests::request_counts($store, $seconds);
        ::tracing::info!(
            put = r.put,
            get = r.get,
            list = r.list,
            delete = r.delete,
            per_hour,
            "store requests"
        );
    }};
}

/// The store requests this process sent and their rates per hour over `seconds`, as
/// [`crate::log_requests!`] logs them.
pub fn request_counts(store: &RunStore, seconds: f64) -> (RequestCounts, String) {
    let r = store.requests();
    let hours = (seconds / 3600.0).max(1e-9);
    let per_hour = format!(
        "{:.0} put, {:.0} get, {:.0} list",
        r.put as f64 / hours,
        r.get as f64 / hours,
        r.list as f64 / hours
    );
    (r, per_hour)
}
