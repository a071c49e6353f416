//! The integration tests: one binary, one module per tool or capability. Each test runs the real
//! binaries in its own [`common::TestEnvironment`] (a fresh pool directory and a cleared
//! environment).

mod classad_eval;
mod cli;
mod common;
mod condor_submit;
mod config;
mod container;
mod dag_checker;
mod dagman;
mod eventlog;
mod generated;
mod history;
mod interactive;
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
mod sched;
mod sim;
mod status;
mod submit;
mod submit_dag;
mod userprio;
mod version;
mod wait;
