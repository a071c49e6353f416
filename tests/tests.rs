//! The integration tests: one binary, one module per tool or capability. Each test runs the real
//! binaries in its own [`common::TestEnvironment`] (a fresh pool directory and a cleared
//! environment).

mod checkpoint;
mod classad_eval;
mod cli;
mod common;
mod condor_submit;
mod config;
mod dag_checker;
mod dagman;
mod eventlog;
mod generated;
mod history;
mod locate;
mod materialize;
mod negotiator;
mod policy;
mod pool;
mod prio;
mod q;
mod q_analyze;
mod qedit;
mod queue;
mod rm;
mod robustness;
mod sched;
mod sim;
mod status;
mod submit;
mod submit_dag;
mod token;
mod transfer_data;
mod userprio;
mod version;
mod wait;
