//! `condor_q -analyze`, `-better-analyze` and `-reverse-analyze` against a real condor_master
//! on the test's own pool: one partitionable slot of 2 CPUs, 2048 MB and 1000000 KB of disk,
//! jobs that cannot match it, and the analysis text, whole, as HTCondor 24.0's condor_q
//! prints it (src/condor_q.V6/jobmatch.cpp). The host's name, the user's and the
//! negotiator's clock are replaced by placeholders.

use crate::common::TestEnvironment;
use crate::pool::{wait_for, Master};

/// A pool whose slot ad is the same on every machine.
fn analysis_pool() -> TestEnvironment {
    let mut env = TestEnvironment::new();
    for (name, value) in [
        ("_CONDOR_NUM_CPUS", "2"),
        ("_CONDOR_MEMORY", "2048"),
        ("_CONDOR_DISK", "1000000"),
        ("_CONDOR_ARCH", "X86_64"),
        ("_CONDOR_OPSYS", "LINUX"),
        ("_CONDOR_SCHEDD_NAME", "submit@example.com"),
    ] {
        env.set_env(name, value);
    }
    env
}

/// A job executable small enough that its `DiskUsage` is 1 KB.
fn job_script(env: &TestEnvironment) {
    use std::os::unix::fs::PermissionsExt;
    let path = env.write_file("job.sh", "#!/bin/sh\nsleep \"$1\"\n");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// Submits one job with the extra submit commands; returns its cluster.
fn submit(env: &TestEnvironment, extra: &str) -> String {
    let file = env.write_file(
        "job.sub",
        &format!("executable = job.sh\narguments = 300\n{extra}\nqueue\n"),
    );
    let out = env.run("condor_submit", ["-terse", file.to_str().unwrap()]);
    assert_eq!(out.status, Some(0), "{out}");
    out.stdout.split('.').next().unwrap().trim().to_owned()
}

fn attr(env: &TestEnvironment, job: &str, name: &str) -> String {
    let out = env.run("condor_q", [job, "-af", name]);
    assert_eq!(out.status, Some(0), "{out}");
    out.stdout.trim().to_owned()
}

/// Waits for the negotiator to have tried (and failed) to match the job.
fn wait_rejected(env: &TestEnvironment, job: &str) {
    wait_for(&format!("job {job} to be rejected"), || {
        attr(env, job, "LastRejMatchReason") != "undefined"
    });
}

/// `condor_q args`, with the host's and user's names and the times of day replaced.
fn analysis(env: &TestEnvironment, args: &[&str]) -> String {
    let out = env.run("condor_q", args);
    let host = env.run("condor_config_val", ["FULL_HOSTNAME"]);
    let host = host.stdout.trim();
    let user = env.run("condor_q", ["-allusers", "-af", "Owner"]);
    let user = user.stdout.lines().next().unwrap_or("").trim().to_owned();
    let text = out
        .to_string()
        .replace(&format!("@{host}"), "@HOST")
        .replace(&format!("\"{host}\""), "\"HOST\"");
    text.lines()
        .map(|line| {
            for prefix in ["Last failed match: ", "Last successful match: "] {
                if line.starts_with(prefix) {
                    return format!("{prefix}<time>");
                }
            }
            match line.strip_suffix(&format!(" {user}")) {
                Some(rest) if !user.is_empty() => format!("{rest} USER"),
                _ => line.to_owned(),
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

const HEADER: &str = "\n\n-- Schedd: submit@example.com : <127.0.0.1:9618?...\n";

/// The Requirements condor_submit writes for a job.
fn requirements(id: &str) -> String {
    format!(
        "The Requirements expression for job {id} is\n\
         \n\
         \x20   (TARGET.Arch == \"X86_64\") && (TARGET.OpSys == \"LINUX\") &&\n\
         \x20   (TARGET.Disk >= RequestDisk) && (TARGET.Memory >= RequestMemory) &&\n\
         \x20   ((TARGET.FileSystemDomain == MY.FileSystemDomain) ||\n\
         \x20     (TARGET.HasFileTransfer))\n\
         \n"
    )
}

/// The Requirements condor_submit writes for a job asking for `memory` MB, and the job's
/// attributes they read.
fn requirements_part(id: &str, memory: &str) -> String {
    format!(
        "{}Job {id} defines the following attributes:\n\
         \n\
         \x20   DiskUsage = 1\n\
         \x20   FileSystemDomain = \"HOST\"\n\
         \x20   RequestDisk = DiskUsage (kb)\n\
         \x20   RequestMemory = {memory} (mb)\n",
        requirements(id)
    )
}

const SLOT_ATTRIBUTES: &str = "\nslot1@HOST has the following attributes:\n\
     \n\
     \x20   TARGET.Arch = \"X86_64\"\n\
     \x20   TARGET.Disk = 1000000 (kb)\n\
     \x20   TARGET.FileSystemDomain = \"HOST\"\n\
     \x20   TARGET.HasFileTransfer = true\n\
     \x20   TARGET.Memory = 2048 (mb)\n\
     \x20   TARGET.OpSys = \"LINUX\"\n\
     \n";

/// The negotiator's verdict (C's `ctime` ends its line, and one more newline follows).
const LAST_MATCH: &str = "No successful match recorded.\n\
     Last failed match: <time>\n\
     \n\
     Reason for last match failure: no match found\n";

/// The run analysis summary of a job that one slot rejects, by the job's own requirements
/// or by the slot's.
fn summary(id: &str, rejected_by_job: bool) -> String {
    let (job, slot) = if rejected_by_job { (1, 0) } else { (0, 1) };
    format!(
        "\n{id}:  Run analysis summary ignoring user priority.  Of 1 machines,\n\
         \x20     {job} are rejected by your job's requirements\n\
         \x20     {slot} reject your job because of their own requirements\n\
         \x20     0 match and are already running your jobs\n\
         \x20     0 match but are serving other users\n\
         \x20     0 are able to run your job\n\
         \n\
         WARNING:  Be advised:\n{}",
        if rejected_by_job {
            "   No machines matched the jobs's constraints\n"
        } else {
            "   Job did not match any machines's constraints\n\
             \x20  To see why, pick a machine that you think should match and add\n\
             \x20    -reverse -machine <name>\n\
             \x20  to your query.\n"
        }
    )
}

#[test]
fn a_job_asking_for_more_memory_than_the_machine_has_is_analyzed_clause_by_clause() {
    let env = analysis_pool();
    job_script(&env);
    let _master = Master::start(&env);
    let big = submit(&env, "request_memory = 100000");
    wait_rejected(&env, &big);
    let id = format!("00{big}.000");
    let expected = format!(
        "{HEADER}{}{SLOT_ATTRIBUTES}\
         The Requirements expression for job {big}.000 reduces to these conditions:\n\
         \n\
         \x20        Slots\n\
         Step    Matched  Condition\n\
         -----  --------  ---------\n\
         [0]           1  TARGET.Arch == \"X86_64\"\n\
         [1]           1  TARGET.OpSys == \"LINUX\"\n\
         [3]           1  TARGET.Disk >= RequestDisk\n\
         [5]           0  TARGET.Memory >= RequestMemory\n\
         [7]           1  TARGET.FileSystemDomain == MY.FileSystemDomain\n\
         \n\
         {LAST_MATCH}{}\n[exit status: 0]",
        requirements_part(&format!("{big}.000"), "100000"),
        summary(&id, true),
    );
    assert_eq!(analysis(&env, &["-better-analyze", &big]), expected);
    // Abbreviated, and as condor_q selects jobs.
    assert_eq!(
        analysis(&env, &["-be", "-const", "RequestMemory > 50000"]),
        expected
    );
    // The job's own requirements reject the slot: -analyze shows them, without clauses.
    assert_eq!(
        analysis(&env, &["-analyze", &big]),
        format!(
            "{HEADER}{}\n{LAST_MATCH}{}\n[exit status: 0]",
            requirements(&format!("{big}.000")),
            summary(&id, true),
        )
    );
}

#[test]
fn a_job_requiring_another_operating_system_matches_no_slot() {
    let env = analysis_pool();
    job_script(&env);
    let _master = Master::start(&env);
    let small = submit(&env, "request_memory = 100");
    let windows = submit(
        &env,
        "requirements = OpSys == \"WINDOWS\"\nrequest_memory = 100",
    );
    wait_rejected(&env, &windows);
    // The job that fits runs, on a dynamic slot of its own.
    wait_for("the small job to run", || {
        attr(&env, &small, "JobStatus") == "2"
    });
    let out = analysis(&env, &["-better-analyze", &windows]);
    assert!(
        out.starts_with(&format!(
            "{HEADER}The Requirements expression for job {windows}.000 is\n\
             \n\
             \x20   (OpSys == \"WINDOWS\") && (TARGET.Arch == \"X86_64\") &&\n"
        )),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "The Requirements expression for job {windows}.000 reduces to these conditions:\n\
             \n\
             \x20        Slots\n\
             Step    Matched  Condition\n\
             -----  --------  ---------\n\
             [0]           0  OpSys == \"WINDOWS\"\n\
             [7]           2  TARGET.FileSystemDomain == MY.FileSystemDomain\n\
             \n\
             {LAST_MATCH}{}\n[exit status: 0]",
            summary(&format!("00{windows}.000"), true)
        )),
        "{out}"
    );
    // The clauses count every slot, the dynamic one too; the summary counts the
    // partitionable slot only, and with two slots none has its attributes shown.
    assert!(!out.contains("has the following attributes"), "{out}");
    // Only the idle job is analyzed by -constraint.
    let out = analysis(&env, &["-analyze", "-constraint", "JobStatus == 1"]);
    assert!(
        out.contains(&format!("00{windows}.000:  Run analysis summary")),
        "{out}"
    );
    assert!(!out.contains(&format!("00{small}.000")), "{out}");
}

#[test]
fn a_slot_that_starts_no_job_rejects_them_by_its_own_requirements() {
    let mut env = analysis_pool();
    env.set_env("_CONDOR_START", "false");
    job_script(&env);
    let _master = Master::start(&env);
    let job = submit(&env, "request_memory = 100");
    wait_rejected(&env, &job);
    // The job's requirements are not the problem: -analyze does not show them.
    assert_eq!(
        analysis(&env, &["-analyze", &job]),
        format!(
            "{HEADER}{LAST_MATCH}{}\n[exit status: 0]",
            summary(&format!("00{job}.000"), false)
        )
    );
    // -verbose names the slots, and reports its progress on stderr.
    let out = analysis(&env, &["-analyze", "-verbose", &job]);
    assert!(
        out.contains("      1 reject your job because of their own requirements [slot1@HOST]\n"),
        "{out}"
    );
    assert!(
        out.ends_with(
            "------- stderr -------\n\
             Fetching Machine ads... 1 ads.\n\
             Fetching job ads... 1 ads\n\
             [exit status: 0]"
        ),
        "{out}"
    );
    // -better-analyze shows every clause matching.
    let out = analysis(&env, &["-better-analyze", &job]);
    assert!(
        out.contains(
            "[0]           1  TARGET.Arch == \"X86_64\"\n\
             [1]           1  TARGET.OpSys == \"LINUX\"\n\
             [3]           1  TARGET.Disk >= RequestDisk\n\
             [5]           1  TARGET.Memory >= RequestMemory\n\
             [7]           1  TARGET.FileSystemDomain == MY.FileSystemDomain\n"
        ),
        "{out}"
    );
    // The reverse analysis finds the slot's START false.
    let out = analysis(&env, &["-reverse-analyze", &job]);
    assert!(
        out.starts_with(&format!(
            "{HEADER}\n\
             -- Slot: slot1@HOST : Analyzing matches for 1 Jobs in 1 autoclusters\n\
             \n\
             The Requirements expression for this slot is\n\
             \n\
             \x20   START &&\n\
             \x20   (WithinResourceLimits)\n\
             \n\
             \x20 START is\n\
             \x20   false\n"
        )),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "This slot defines the following attributes:\n\
             \n\
             \x20   Cpus = 2\n\
             \x20   Disk = 1000000\n\
             \x20   GPUs = 0\n\
             \x20   Memory = 2048\n\
             \n\
             Job {job}.0 has the following attributes:\n\
             \n\
             \x20   TARGET.RequestCpus = 1\n\
             \x20   TARGET.RequestDisk = 1\n\
             \x20   TARGET.RequestMemory = 100\n\
             \n\
             The Requirements expression for this slot reduces to these conditions:\n\
             \n\
             \x20      Clusters\n\
             Step    Matched  Condition\n\
             -----  --------  ---------\n\
             [0]       never  START\n\
             \n\
             slot1@HOST: Run analysis summary of 1 jobs.\n\
             \x20   0 (0.00 %) match both slot and job requirements.\n\
             \x20   0 match the requirements of this slot.\n\
             \x20   1 have job requirements that match this slot.\n\
             [exit status: 0]"
        )),
        "{out}"
    );
    // One line per slot with -analyze:reverse,summary (the name column as wide as the
    // host's name makes it); one line per autocluster with -analyze:summary (the master
    // numbered the job's: `Members/Idle` 1/1).
    let host = env.run("condor_config_val", ["FULL_HOSTNAME"]);
    let host = host.stdout.trim();
    let w = (host.len() + 7).max(16);
    let cut = |s: &str, n: usize| s.chars().take(n).collect::<String>();
    let row = |a: &str, b: &str, c: &str, d: &str, e: &str| {
        format!(
            "{:<w$} {b:>4} {:>12} {:>12} {:>10}\n",
            cut(a, w),
            cut(c, 12),
            cut(d, 12),
            cut(e, 10)
        )
    };
    assert_eq!(
        env.run("condor_q", ["-analyze:summary,reverse"]).to_string(),
        format!(
            "{HEADER}{job}.0: Analyzing matches for 1 job\n{}{}{}{:<w$} Part            0            1       0.00\n\
             [exit status: 0]",
            row("", "Slot", "Slot's Req ", "  Job's Req ", "Both   "),
            row("Name", "Type", "Matches Job", "Matches Slot", "Match %"),
            row(
                "------------------------",
                "----",
                "------------",
                "------------",
                "----------"
            ),
            format!("slot1@{host}"),
        )
    );
    assert_eq!(
        analysis(&env, &["-analyze:summary"]),
        format!(
            "{HEADER}Analyzing matches for 1 slots\n\
             \x20              Autocluster    Matches     Machine     Running     Serving            \n\
             \x20JobId        Members/Idle Requirements Rejects Job  Users Job  Other User Available Owner\n\
             ------------- ------------ ------------ ----------- ----------- ---------- --------- -----\n\
             {:<13} 1/1                     1           1           0          0         0 USER\n\
             [exit status: 0]",
            format!("{job}.0")
        )
    );
}

/// HTCondor 24.0 has no "would match if drained" line and no "If Drained" column: it matches
/// a job against a partitionable slot too full for it as if the slot were drained, and counts
/// the slot able to run the job; the clause table counts every slot as it is.
#[test]
fn a_job_that_fits_only_a_drained_slot_is_able_to_run_there() {
    let env = analysis_pool();
    job_script(&env);
    let _master = Master::start(&env);
    let running = submit(&env, "request_memory = 1500");
    wait_for("the first job to run", || {
        attr(&env, &running, "JobStatus") == "2"
    });
    let waiting = submit(&env, "request_memory = 1000");
    wait_rejected(&env, &waiting);
    let able = |id: &str| {
        format!(
            "\n{id}:  Run analysis summary ignoring user priority.  Of 1 machines,\n\
             \x20     0 are rejected by your job's requirements\n\
             \x20     0 reject your job because of their own requirements\n\
             \x20     0 match and are already running your jobs\n\
             \x20     0 match but are serving other users\n\
             \x20     1 are able to run your job\n"
        )
    };
    let out = analysis(&env, &["-analyze", &running, &waiting]);
    assert_eq!(
        out,
        format!(
            "{HEADER}\n\
             00{running}.000:  Job is running.\n\
             \n\
             Last successful match: <time>\n\
             \n\
             {}\n\
             {LAST_MATCH}{}\n\
             [exit status: 0]",
            able(&format!("00{running}.000")),
            able(&format!("00{waiting}.000")),
        )
    );
    // Clause by clause: the partitionable slot as it is (too little memory left) and the
    // dynamic slot the first job runs on.
    let out = analysis(&env, &["-better-analyze", &waiting]);
    assert!(
        out.contains(&format!(
            "The Requirements expression for job {waiting}.000 reduces to these conditions:\n\
             \n\
             \x20        Slots\n\
             Step    Matched  Condition\n\
             -----  --------  ---------\n\
             [0]           2  TARGET.Arch == \"X86_64\"\n\
             [1]           2  TARGET.OpSys == \"LINUX\"\n\
             [3]           2  TARGET.Disk >= RequestDisk\n\
             [5]           1  TARGET.Memory >= RequestMemory\n\
             [7]           2  TARGET.FileSystemDomain == MY.FileSystemDomain\n\
             \n\
             {LAST_MATCH}{}\n[exit status: 0]",
            able(&format!("00{waiting}.000")),
        )),
        "{out}"
    );
    assert!(!out.contains("rained"), "{out}");
}

#[test]
fn without_a_master_the_slots_cannot_be_fetched() {
    let env = analysis_pool();
    job_script(&env);
    submit(&env, "request_memory = 100");
    for option in ["-analyze", "-better-analyze", "-reverse-analyze"] {
        let out = env.run("condor_q", [option]);
        assert_eq!(
            env.normalize(&out.to_string()),
            format!(
                "------- stderr -------\nError:  Could not fetch startd ads\n\
                 {}[exit status: 1]",
                crate::common::NO_MASTER_HINT
            ),
            "{option}"
        );
    }
}

#[test]
fn slots_can_come_from_a_file_and_be_chosen_by_name() {
    let env = analysis_pool();
    job_script(&env);
    let job = submit(&env, "request_memory = 3000");
    let slot = |name: &str, memory: u32| {
        format!(
            "Name = \"{name}@exec\"\nMachine = \"exec\"\nSlotID = 1\nArch = \"X86_64\"\n\
             OpSys = \"LINUX\"\nDisk = 1000000\nMemory = {memory}\nCpus = 1\n\
             HasFileTransfer = true\nStart = true\nRequirements = START\n\n"
        )
    };
    let file = env.write_file(
        "slots.ads",
        &format!("{}{}", slot("slot1", 2048), slot("slot2", 4096)),
    );
    let file = file.to_str().unwrap();
    let out = analysis(&env, &["-better-analyze", &job, "-slotads", file]);
    assert!(
        out.contains(
            "[5]           1  TARGET.Memory >= RequestMemory\n\
             [8]           2  TARGET.HasFileTransfer\n\
             \n\n"
        ),
        "{out}"
    );
    assert!(
        out.contains(
            "Of 2 machines,\n\
             \x20     1 are rejected by your job's requirements\n\
             \x20     0 reject your job because of their own requirements\n\
             \x20     0 match and are already running your jobs\n\
             \x20     0 match but are serving other users\n\
             \x20     1 are able to run your job\n\n[exit status: 0]"
        ),
        "{out}"
    );
    // With one slot, its attributes are shown.
    let out = analysis(
        &env,
        &[
            "-better-analyze",
            &job,
            "-slotads",
            file,
            "-machine",
            "slot1@exec",
        ],
    );
    assert!(
        out.contains(
            "\nslot1@exec has the following attributes:\n\n    TARGET.Arch = \"X86_64\"\n"
        ),
        "{out}"
    );
    assert!(out.contains("Of 1 machines,"), "{out}");
    let out = analysis(
        &env,
        &[
            "-analyze",
            &job,
            "-slotads",
            file,
            "-mconstraint",
            "Memory > 3000",
        ],
    );
    assert!(
        out.contains(
            "Of 1 machines,\n\
             \x20     0 are rejected by your job's requirements\n"
        ),
        "{out}"
    );
}

#[test]
fn a_ceiling_below_the_partitionable_slots_weight_is_the_reason_given() {
    // One partitionable slot of 12 CPUs and no consumption policy: a match would be charged
    // the whole slot, 12, and the submitter's ceiling is 11. HTCondor skips the submitter
    // without a word; condorlite's negotiator says why, and the analysis shows it.
    let mut env = analysis_pool();
    env.set_env("_CONDOR_NUM_CPUS", "12");
    job_script(&env);
    let job = submit(&env, "");
    let user = attr(&env, &job, "User");
    let out = env.run("condor_userprio", ["-setceiling", &user, "11"]);
    assert_eq!(out.status, Some(0), "{out}");
    let _master = Master::start(&env);
    wait_rejected(&env, &job);
    let text = analysis(&env, &["-better-analyze", &job]);
    assert!(
        text.contains(
            "\nReason for last match failure: submitter ceiling exceeded: the whole \
             partitionable slot's weight (12) exceeds the ceiling left (11); without a \
             consumption policy a match is charged the whole slot\n"
        ),
        "{text}"
    );
    assert_eq!(attr(&env, &job, "JobStatus"), "1");
}
