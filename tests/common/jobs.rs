//! Jobs for the tests of the job tools, queued through the queue library (the tests do not
//! depend on condor_submit): a pool whose user, clock and schedd name are pinned, and a
//! helper that submits a cluster from ClassAd text.

use condorlite::classad::{parse_ad, ClassAd};
use condorlite::queue::{JobId, Queue};

use super::TestEnvironment;

/// The time the tools see: 2024-01-31 12:00:00 UTC.
pub const NOW: i64 = 1_706_702_400;

/// A test environment for the job tools: the user `alice`, the clock at [`NOW`], the schedd
/// named `submit@example.com`.
pub fn pool() -> TestEnvironment {
    let mut env = TestEnvironment::new();
    env.set_env("CONDORLITE_USER", "alice");
    env.set_env("CONDORLITE_NOW", &NOW.to_string());
    env.set_env("_CONDOR_SCHEDD_NAME", "submit@example.com");
    env
}

/// The pool's queue, its transactions stamped with [`NOW`].
pub fn queue(env: &TestEnvironment) -> Queue {
    let mut q = Queue::open(env.local_dir().join("spool")).expect("the test queue opens");
    q.set_clock(|| NOW);
    q
}

/// The attributes condor_submit gives every job, for an owner, a submit time and a working
/// directory.
pub fn base_ad(owner: &str, qdate: i64, iwd: &str) -> String {
    format!(
        r#"Owner = "{owner}"; User = "{owner}@example.com"; JobUniverse = 5; JobStatus = 1;
           QDate = {qdate}; EnteredCurrentStatus = {qdate}; Cmd = "/bin/sleep";
           Arguments = "300"; JobPrio = 0; ImageSize = 0; RemoteUserCpu = 0.0;
           RemoteWallClockTime = 0.0; Iwd = "{iwd}"; RequestCpus = 1; RequestMemory = 128;
           NumShadowStarts = 0; LeaveJobInQueue = false"#
    )
}

/// Submits one cluster: the base attributes for `owner` (submitted at `NOW - 120`, working
/// in the environment's working directory), then
/// `extra` (ClassAd attributes, `a = 1; b = "x"`), and one proc per entry of `procs` (each
/// the proc's own attributes, possibly empty). Returns the job ids.
pub fn submit(env: &TestEnvironment, owner: &str, extra: &str, procs: &[&str]) -> Vec<JobId> {
    let iwd = env.work_dir().to_string_lossy().into_owned();
    let text = format!("[ {}; {extra} ]", base_ad(owner, NOW - 120, &iwd));
    let cluster = parse_ad(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
    let procs: Vec<ClassAd> = procs
        .iter()
        .map(|p| parse_ad(&format!("[ {p} ]")).unwrap_or_else(|e| panic!("{p}: {e}")))
        .collect();
    let mut q = queue(env);
    let id = q.submit(cluster, procs.clone()).expect("submit");
    (0..procs.len() as i32)
        .map(|p| JobId::new(id.0, p))
        .collect()
}

/// Writes the job event log of tests/fixtures/userlog/ (jobs 10.0-2, 11.0, 12.0 through every
/// status) as `job.log` in the working directory; its path.
pub fn userlog_fixture(env: &TestEnvironment) -> String {
    let log = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/userlog/lifecycle-utc.log"
    ))
    .expect("the userlog fixture");
    let path = env.write_file("job.log", &log);
    path.to_string_lossy().into_owned()
}
