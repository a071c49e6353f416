//! The pool's secrets, as HTCondor keeps them: signing keys and the pool password in
//! `SEC_PASSWORD_DIRECTORY` ([`keys`]), and IDTOKENS signed with them ([`token`]).
//!
//! On one host nothing travels over CEDAR, so nothing here authenticates a connection yet: the
//! tokens are made, listed and checked as HTCondor makes them (the same key files, the same
//! JWTs, byte for byte where HTCondor's output is deterministic), for the scripts that set a
//! pool up with them and for the HTTP server that accepts them as bearer tokens.

pub mod keys;
pub mod token;
