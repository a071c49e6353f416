//! The schedd's view of a job's life: HTCondor's user job policy ([`policy`]: `PeriodicHold`,
//! `OnExitRemove`, the `SYSTEM_PERIODIC_*` lists, ...) and the attribute bookkeeping the schedd
//! and shadow do when a job starts, exits, is evicted, held, released or removed ([`exit`]), as
//! pure functions over job ads that a daemon applies to its queue.

pub mod autocluster;
pub mod epoch;
pub mod exit;
pub mod policy;

#[cfg(test)]
mod tests;
