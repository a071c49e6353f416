//! `condor_userlog`: the runs of job event logs and their summary per host, per job and in
//! total, as HTCondor 24.0's userlog.cpp prints them.

use crate::common::TestEnvironment;

fn terminated(id: &str, at: &str, usr: &str, sys: &str) -> String {
    format!(
        "005 ({id}) {at} Job terminated.\n\
         \t(1) Normal termination (return value 0)\n\
         \t\tUsr {usr}, Sys {sys}  -  Run Remote Usage\n\
         \t\tUsr 0 00:00:00, Sys 0 00:00:00  -  Run Local Usage\n\
         \t\tUsr {usr}, Sys {sys}  -  Total Remote Usage\n\
         \t\tUsr 0 00:00:00, Sys 0 00:00:00  -  Total Local Usage\n\
         \t0  -  Run Bytes Sent By Job\n\t0  -  Run Bytes Received By Job\n\
         \t0  -  Total Bytes Sent By Job\n\t0  -  Total Bytes Received By Job\n...\n"
    )
}

fn executing(id: &str, at: &str, ip: &str) -> String {
    format!("001 ({id}) {at} Job executing on host: <{ip}:9618?addrs={ip}-9618&noUDP>\n...\n")
}

/// Job 1.0 runs an hour on 127.0.0.1; job 1.1 is evicted after 20 minutes on 10.0.0.2 (no
/// checkpoint: no good time), then runs 10 minutes on 127.0.0.1.
fn a_log(env: &TestEnvironment) {
    let mut log = String::new();
    for p in ["000", "001"] {
        log += &format!(
            "000 (001.{p}.000) 2026-11-27 10:00:00 Job submitted from host: \
             <127.0.0.1:9618?addrs=127.0.0.1-9618&noUDP>\n...\n"
        );
    }
    log += &executing("001.001.000", "2026-11-27 10:00:00", "10.0.0.2");
    log += &executing("001.000.000", "2026-11-27 10:00:05", "127.0.0.1");
    log += "004 (001.001.000) 2026-11-27 10:20:00 Job was evicted.\n\
            \t(0) CPU times\n\
            \t\tUsr 0 00:05:00, Sys 0 00:00:00  -  Run Remote Usage\n\
            \t\tUsr 0 00:00:00, Sys 0 00:00:00  -  Run Local Usage\n\
            \t0  -  Run Bytes Sent By Job\n\t0  -  Run Bytes Received By Job\n...\n";
    log += &executing("001.001.000", "2026-11-27 10:30:00", "127.0.0.1");
    log += &terminated(
        "001.001.000",
        "2026-11-27 10:40:00",
        "0 00:04:00",
        "0 00:01:00",
    );
    log += &terminated(
        "001.000.000",
        "2026-11-27 11:00:05",
        "0 00:30:00",
        "0 00:00:10",
    );
    env.write_file("jobs.log", &log);
}

const RUNS: &str = "
Job      Host            Start Time  Evict Time  Wall Time Good Time CPU Usage
1.1      10.0.0.2        11/27 10:00 11/27 10:20   0+00:20   0+00:00   0+00:00
1.1      127.0.0.1       11/27 10:30 11/27 10:40   0+00:10   0+00:10   0+00:05
1.0      127.0.0.1       11/27 10:00 11/27 11:00   0+01:00   0+01:00   0+00:30
";

const SUMMARY: &str = "
Host/Job        Wall Time Good Time CPU Usage Avg Alloc  Avg Lost Goodput  Util.

10.0.0.2          0+00:20   0+00:00   0+00:00   0+00:20   0+00:20    0.0%   0.0%
127.0.0.1         0+01:10   0+01:10   0+00:35   0+00:35   0+00:00  100.0%  50.2%

1.0               0+01:00   0+01:00   0+00:30   0+01:00   0+00:00  100.0%  50.3%
1.1               0+00:30   0+00:10   0+00:05   0+00:15   0+00:20   33.3%  50.0%

Total             0+01:30   0+01:10   0+00:35   0+00:30   0+00:20   77.8%  50.2%
";

fn env_with_log() -> TestEnvironment {
    let mut env = TestEnvironment::new();
    env.set_env("TZ", "UTC");
    a_log(&env);
    env
}

#[test]
fn runs_and_their_summary() {
    let env = env_with_log();
    let out = env.run("condor_userlog", ["jobs.log"]);
    assert_eq!(out.to_string(), format!("{RUNS}{SUMMARY}[exit status: 0]"));
    // -total: the summary alone; -raw: the runs alone.
    let out = env.run("condor_userlog", ["-total", "jobs.log"]);
    assert_eq!(out.to_string(), format!("{SUMMARY}[exit status: 0]"));
    let out = env.run("condor_userlog", ["-raw", "jobs.log"]);
    let raw: String = RUNS.lines().skip(2).map(|l| format!("{l}\n")).collect();
    assert_eq!(out.to_string(), format!("{raw}[exit status: 0]"));
}

#[test]
fn selections_apply_to_the_logs_after_them() {
    let env = env_with_log();
    let out = env.run("condor_userlog", ["-raw", "-j", "1.0", "jobs.log"]);
    assert_eq!(
        out.to_string(),
        "1.0      127.0.0.1       11/27 10:00 11/27 11:00   0+01:00   0+01:00   0+00:30\n\
         [exit status: 0]"
    );
    let out = env.run("condor_userlog", ["-raw", "-evict", "jobs.log"]);
    assert_eq!(
        out.to_string(),
        "1.1      10.0.0.2        11/27 10:00 11/27 10:20   0+00:20   0+00:00   0+00:00\n\
         [exit status: 0]"
    );
    // -all undoes -j and -evict for the next log.
    let out = env.run(
        "condor_userlog",
        ["-raw", "-j", "1.0", "jobs.log", "-all", "jobs.log"],
    );
    assert_eq!(out.stdout.lines().count(), 4, "{out}");
}

#[test]
fn hostname_names_this_hosts_addresses() {
    let env = env_with_log();
    let host = env.run("condor_config_val", ["FULL_HOSTNAME"]).stdout;
    let host = format!("{:<15.15}", host.trim());
    let out = env.run("condor_userlog", ["-raw", "-hostname", "jobs.log"]);
    assert_eq!(
        out.to_string(),
        format!(
            "1.1      10.0.0.2        11/27 10:00 11/27 10:20   0+00:20   0+00:00   0+00:00\n\
             1.1      {host} 11/27 10:30 11/27 10:40   0+00:10   0+00:10   0+00:05\n\
             1.0      {host} 11/27 10:00 11/27 11:00   0+01:00   0+01:00   0+00:30\n\
             [exit status: 0]"
        )
    );
}

#[test]
fn bad_words_and_unreadable_logs() {
    let env = env_with_log();
    let out = env.run("condor_userlog", Vec::<&str>::new());
    assert_eq!(out.status, Some(1));
    assert!(
        out.stderr
            .starts_with("usage: condor_userlog [-total | -raw]"),
        "{out}"
    );
    let out = env.run("condor_userlog", ["-x", "jobs.log"]);
    assert_eq!(out.status, Some(1));
    assert!(out.stderr.starts_with("usage: condor_userlog"), "{out}");
    assert!(out.stdout.is_empty(), "{out}");
    let out = env.run("condor_userlog", ["-help"]);
    assert_eq!(out.status, Some(0));
    assert!(out
        .stdout
        .contains("\t-hostname\tDisplay hostname instead of IP address\n"));
    // A missing log is reported and the next one read.
    let out = env.run(
        "condor_userlog",
        ["-raw", "missing.log", "-j", "1.0", "jobs.log"],
    );
    assert_eq!(
        out.to_string(),
        "1.0      127.0.0.1       11/27 10:00 11/27 11:00   0+01:00   0+01:00   0+00:30\n\
         ------- stderr -------\nCan't access file: missing.log (errno=2)\n[exit status: 0]"
    );
    let out = env.run("condor_userlog", ["missing.log"]);
    assert_eq!(
        out.to_string(),
        "------- stderr -------\nCan't access file: missing.log (errno=2)\n[exit status: 0]"
    );
    // HTCondor's reader finds no event in a file that is not a log (htcondor.JobEventLog
    // yields none): an empty summary.
    env.write_file("garbage.log", "this is not an event log\n");
    let out = env.run("condor_userlog", ["garbage.log"]);
    assert_eq!(
        out.to_string(),
        "\nHost/Job        Wall Time Good Time CPU Usage Avg Alloc  Avg Lost Goodput  Util.\n\n\n\n\
         Total             0+00:00   0+00:00   0+00:00   0+00:00   0+00:00    0.0%   0.0%\n\
         [exit status: 0]"
    );
}
