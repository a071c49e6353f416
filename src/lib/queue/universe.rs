//! Job universe numbers (`JobUniverse`, condor_universe.h), the one copy the crate uses.

pub const STANDARD: i64 = 1;
pub const VANILLA: i64 = 5;
pub const SCHEDULER: i64 = 7;
pub const MPI: i64 = 8;
pub const GRID: i64 = 9;
pub const JAVA: i64 = 10;
pub const PARALLEL: i64 = 11;
pub const LOCAL: i64 = 12;
pub const VM: i64 = 13;
