//! condorlite: a single-host batch system that speaks HTCondor.
//!
//! The library holds everything: each binary in `src/bin/` is a few lines that call
//! [`tools::main`], which looks the tool up in the registry ([`tools::TOOLS`]), parses its command
//! line ([`cli`]), runs it, and maps its result to an exit status ([`error`]).

pub mod accountant;
pub mod bounded;
pub mod classad;
pub mod cli;
pub mod client;
pub mod config;
pub mod daemon;
pub mod dagman;
pub mod defrag;
pub mod error;
pub mod eventlog;
pub mod negotiator;
pub mod output;
pub mod queue;
pub mod schedd;
pub mod security;
pub mod sim;
pub mod startd;
pub mod starter;
pub mod submit;
pub mod tools;
pub mod version;
