//! condor_history: the jobs that left the queue, newest first, in every output form.

use crate::common::jobs::{pool, queue, submit, NOW};
use crate::common::TestEnvironment;
use condorlite::classad::Expr;
use condorlite::queue::{JobId, JobStatus};

#[track_caller]
fn check(env: &TestEnvironment, args: &[&str], expected: &str) {
    let out = env.run("condor_history", args);
    assert_eq!(out.to_string(), expected, "condor_history {args:?}");
}

/// Jobs 1.0 and 1.1 (alice) completed, 2.0 (bob) removed, in that order; 3.0 still queued.
fn finished() -> TestEnvironment {
    let env = pool();
    submit(&env, "alice", "", &["", "Arguments = \"60\""]);
    submit(
        &env,
        "bob",
        "Cmd = \"/usr/bin/python3\"; Arguments = \"train.py\"",
        &[""],
    );
    submit(&env, "alice", "", &[""]);
    let mut q = queue(&env);
    q.transaction(|tx| {
        for (job, wall) in [(JobId::new(1, 0), 3700.0), (JobId::new(1, 1), 59.0)] {
            tx.set_attr(job, "RemoteWallClockTime", Expr::lit(wall))?;
            tx.set_attr(job, "CompletionDate", Expr::lit(NOW - 60))?;
            tx.set_status(job, JobStatus::Completed)?;
            tx.move_to_history(job)?;
        }
        let job = JobId::new(2, 0);
        tx.set_attr(job, "CompletionDate", Expr::lit(0))?;
        tx.set_status(job, JobStatus::Removed)?;
        tx.move_to_history(job).map(|_| ())
    })
    .unwrap();
    env
}

/// HTCondor 24.0's default columns (history.cpp `init_default_custom_format`): headings
/// left-justified to their widths, ID -7, OWNER -14, SUBMITTED 11, RUN_TIME 12, ST -2,
/// COMPLETED 11, CMD -15 (the full path and the arguments); a zero run time is blank.
const HEADER: &str =
    " ID     OWNER          SUBMITTED   RUN_TIME     ST COMPLETED   CMD            \n";

#[test]
fn default_columns_newest_first() {
    let env = finished();
    check(
        &env,
        &[],
        &format!(
            "{HEADER}\
             2.0     bob             1/31 11:58              X   1/1  00:00 /usr/bin/python3 train.py\n\
             1.1     alice           1/31 11:58   0+00:00:59 C   1/31 11:59 /bin/sleep 60  \n\
             1.0     alice           1/31 11:58   0+01:01:40 C   1/31 11:59 /bin/sleep 300 \n\
             [exit status: 0]"
        ),
    );
    check(
        &env,
        &["-forwards", "alice"],
        &format!(
            "{HEADER}\
             1.0     alice           1/31 11:58   0+01:01:40 C   1/31 11:59 /bin/sleep 300 \n\
             1.1     alice           1/31 11:58   0+00:00:59 C   1/31 11:59 /bin/sleep 60  \n\
             [exit status: 0]"
        ),
    );
}

#[test]
fn an_empty_history_has_only_the_header() {
    let env = pool();
    check(&env, &[], &format!("{HEADER}[exit status: 0]"));
    check(&env, &["-json"], "[\n]\n[exit status: 0]");
}

#[test]
fn ids_owners_constraints_and_limits() {
    let env = finished();
    check(
        &env,
        &["1.1", "2", "-af:j", "Owner"],
        "2.0 bob\n1.1 alice\n[exit status: 0]",
    );
    check(
        &env,
        &["1x", "-af:j", "Owner"],
        "1.1 alice\n1.0 alice\n[exit status: 0]",
    );
    check(
        &env,
        &[
            "-constraint",
            "JobStatus == 4",
            "-af:j",
            "RemoteWallClockTime",
        ],
        "1.1 59.0\n1.0 3700.0\n[exit status: 0]",
    );
    check(
        &env,
        &["-limit", "1", "-af:j", "Owner"],
        "2.0 bob\n[exit status: 0]",
    );
    check(
        &env,
        &["-match", "2", "-af:j"],
        "------- stderr -------\nError: Argument -af requires at least one attribute parameter\n\
         \t\te.g. condor_history -af ClusterId\n[exit status: 1]",
    );
    check(
        &env,
        &["-since", "1.1", "-af:j", "Owner"],
        "2.0 bob\n[exit status: 0]",
    );
    check(
        &env,
        &["-scanlimit", "2", "alice", "-af:j", "Owner"],
        "1.1 alice\n[exit status: 0]",
    );
    // The newest record is a removed job, completed at 0: the scan stops there.
    check(
        &env,
        &["-completedsince", &(NOW - 30).to_string(), "-af:j", "Owner"],
        "[exit status: 0]",
    );
    check(
        &env,
        &["-bogus"],
        "------- stderr -------\nError: Unknown argument -bogus\n[exit status: 1]",
    );
    check(
        &env,
        &["-forwards", "-since", "1.0"],
        "------- stderr -------\nError: Argument -forwards cannot be combined with -since.\n[exit status: 1]",
    );
}

#[test]
fn long_json_xml_and_format() {
    let env = finished();
    check(
        &env,
        &["1.1", "-l", "-attributes", "ProcId,Owner,JobStatus"],
        "JobStatus = 4\nOwner = \"alice\"\nProcId = 1\n\n[exit status: 0]",
    );
    check(
        &env,
        &["1", "-json", "-attributes", "ProcId"],
        "[\n{\n  \"ProcId\": 1\n}\n,\n{\n  \"ProcId\": 0\n}\n]\n[exit status: 0]",
    );
    check(
        &env,
        &["1", "-jsonl", "-attributes", "ProcId"],
        "{\"ProcId\": 1}\n{\"ProcId\": 0}\n[exit status: 0]",
    );
    check(
        &env,
        &["1.0", "-xml", "-attributes", "ProcId"],
        "<?xml version=\"1.0\"?>\n<!DOCTYPE classads SYSTEM \"classads.dtd\">\n<classads>\n\n\
         <c>\n    <a n=\"ProcId\"><i>0</i></a>\n</c>\n\n</classads>\n\n[exit status: 0]",
    );
    check(
        &env,
        &["-format", "%d.", "ClusterId", "-format", "%d\\n", "ProcId"],
        "2.0\n1.1\n1.0\n[exit status: 0]",
    );
    check(
        &env,
        &["-af:h", "Owner", "ExitCode"],
        "Owner ExitCode\nbob   undefined\nalice undefined\nalice undefined\n[exit status: 0]",
    );
}

/// Writes a history file as HTCondor's own test_condor_history.py does
/// (`writeAdToHistory`): each job's ad as sorted `Name=value` lines, then its banner,
/// `*** <type> Offset = N ClusterId = C ProcId = P Owner = "o" CompletionDate = T`. Clusters
/// are (owner, cluster, procs, QDate, extra attributes, ad type); a job completes 60 s after
/// its QDate.
fn write_history(path: &std::path::Path, clusters: &[(&str, i32, i32, i64, &str, &str)]) {
    let mut text = String::new();
    let mut offset = 0;
    for (owner, cluster, procs, qdate, extra, ad_type) in clusters {
        for proc in 0..*procs {
            let completion = qdate + 60;
            let mut attrs = vec![
                "Arguments=\"1\"".to_owned(),
                format!("ClusterId={cluster}"),
                "Cmd=\"/bin/sleep\"".to_owned(),
                format!("CompletionDate={completion}"),
                "JobStatus=4".to_owned(),
                format!("Owner=\"{owner}\""),
                format!("ProcId={proc}"),
                format!("QDate={qdate}"),
                "RemoteWallClockTime=60.0".to_owned(),
            ];
            if !extra.is_empty() {
                attrs.push(extra.to_string());
            }
            attrs.sort();
            let mut record = String::new();
            for a in attrs {
                record.push_str(&a);
                record.push('\n');
            }
            record.push_str(&format!(
                "*** {ad_type} Offset = {offset} ClusterId = {cluster} ProcId = {proc} \
                 Owner = \"{owner}\" CompletionDate = {completion}\n"
            ));
            offset += record.len();
            text.push_str(&record);
        }
    }
    std::fs::write(path, text).unwrap();
}

/// The ids `-af ClusterId ProcId` prints, one `C.P` each.
fn af_ids(env: &TestEnvironment, args: &[&str]) -> Vec<String> {
    let mut all = vec!["-af:,", "ClusterId", "ProcId"];
    all.extend_from_slice(args);
    let out = env.run("condor_history", all);
    assert_eq!(out.status, Some(0), "{out}");
    out.stdout.lines().map(|l| l.replace(", ", ".")).collect()
}

fn ids(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

/// `-file`: the cases of HTCondor's test_condor_history.py that read its single history
/// file, with the jobs it expects (newest first, as condor_history reads a file backwards).
#[test]
fn file_reads_an_htcondor_history_file() {
    let env = pool();
    let file = env.work_dir().join("single_hist");
    write_history(
        &file,
        &[
            ("cole", 100, 10, 0, "", ""),
            ("toddt", 101, 3, 30, "Beers=5", ""),
            ("miron", 103, 1, 60, "Beers=0", ""),
            ("unclegreg", 104, 2, 90, "Beers=2", ""),
            ("cole", 105, 5, 120, "Beers=7", ""),
        ],
    );
    let f = file.to_str().unwrap();
    let mut all: Vec<String> = (0..10).map(|p| format!("100.{p}")).collect();
    all.extend(ids(&["101.0", "101.1", "101.2", "103.0", "104.0", "104.1"]));
    all.extend((0..5).map(|p| format!("105.{p}")));
    let newest_first: Vec<String> = all.iter().rev().cloned().collect();
    assert_eq!(af_ids(&env, &["-file", f]), newest_first);
    assert_eq!(af_ids(&env, &["-forwards", "-file", f]), all);
    assert_eq!(
        af_ids(&env, &["-const", "Beers>=3", "-file", f]),
        ids(&["105.4", "105.3", "105.2", "105.1", "105.0", "101.2", "101.1", "101.0"])
    );
    assert_eq!(
        af_ids(&env, &["-constraint", "Beers=?=UNDEFINED", "-file", f]),
        newest_first[11..].to_vec()
    );
    assert_eq!(
        af_ids(&env, &["-completedsince", "125", "-file", f]),
        ids(&["105.4", "105.3", "105.2", "105.1", "105.0", "104.1", "104.0"])
    );
    assert!(af_ids(&env, &["-const", "Beers>10", "-file", f]).is_empty());
    // Ids, owners, -limit, -scanlimit and -since, as for the schedd's history.
    assert_eq!(af_ids(&env, &["-file", f, "104"]), ids(&["104.1", "104.0"]));
    assert_eq!(
        af_ids(&env, &["-file", f, "toddt", "100.3"]),
        ids(&["101.2", "101.1", "101.0", "100.3"])
    );
    assert_eq!(
        af_ids(&env, &["-file", f, "cole", "-limit", "3"]),
        ids(&["105.4", "105.3", "105.2"])
    );
    assert_eq!(
        af_ids(&env, &["-file", f, "-scanlimit", "2"]),
        ids(&["105.4", "105.3"])
    );
    assert_eq!(
        af_ids(&env, &["-file", f, "-since", "104.1"]),
        ids(&["105.4", "105.3", "105.2", "105.1", "105.0"])
    );
    assert_eq!(
        af_ids(
            &env,
            &["-forwards", "-file", f, "-limit", "2", "miron", "unclegreg"]
        ),
        ids(&["103.0", "104.0"])
    );
    // The default columns, from the file's attributes.
    check(
        &env,
        &["-file", f, "103"],
        &format!(
            "{HEADER}\
             103.0   miron           1/1  00:01   0+00:01:00 C   1/1  00:02 /bin/sleep 1   \n\
             [exit status: 0]"
        ),
    );
    // A file that is not there: the header, then the error.
    check(
        &env,
        &["-file", "nope"],
        &format!(
            "{HEADER}------- stderr -------\n\
             Error opening history file nope: No such file or directory\n[exit status: 1]"
        ),
    );
}

/// Reading backwards starts at the last banner (a record still being written is not one yet)
/// and takes only job ads (another type in the banner, as in an epoch history, is skipped);
/// forwards every ad counts, the last one even without its banner. Comments and blank lines
/// are skipped; a malformed ad is reported in place, on stdout, and skipped.
#[test]
fn file_records_banners_and_malformed_ads() {
    let env = pool();
    let file = env.work_dir().join("history");
    write_history(
        &file,
        &[
            ("cole", 1, 1, 0, "", ""),
            ("cole", 2, 1, 10, "", "EPOCH"),
            ("cole", 3, 1, 20, "# a comment", ""),
        ],
    );
    let mut text = std::fs::read_to_string(&file).unwrap();
    text.push_str("ClusterId=4\nProcId=0\nBad = (1 +\n*** Offset = 0 ClusterId = 4 ProcId = 0\n\n");
    text.push_str("ClusterId=5\nProcId=0\nOwner=\"cole\"\n");
    std::fs::write(&file, text).unwrap();
    let f = file.to_str().unwrap();
    let out = env.run(
        "condor_history",
        ["-af:,", "ClusterId", "ProcId", "-file", f],
    );
    assert_eq!(
        out.to_string(),
        "\t*** Warning: Bad history file; skipping malformed ad(s)\n3, 0\n1, 0\n[exit status: 0]"
    );
    let out = env.run(
        "condor_history",
        ["-af:,", "ClusterId", "ProcId", "-forwards", "-file", f],
    );
    assert_eq!(
        out.to_string(),
        "1, 0\n2, 0\n3, 0\n\t*** Warning: Bad history file; skipping malformed ad(s)\n5, 0\n\
         [exit status: 0]"
    );
    let out = env.run("condor_history", ["-l", "-file", f, "3"]);
    assert_eq!(
        out.stdout,
        "Arguments = \"1\"\nClusterId = 3\nCmd = \"/bin/sleep\"\nCompletionDate = 80\n\
         JobStatus = 4\nOwner = \"cole\"\nProcId = 0\nQDate = 20\nRemoteWallClockTime = 60.0\n\n"
    );
}

/// `-search`: a history file and its rotated copies (`name.<ISO time>`), newest first (as in
/// HTCondor's test, which expects jobs 50 to 53 from four files); a name with no such files
/// shows nothing.
#[test]
fn search_reads_rotated_history_files() {
    let env = pool();
    let base = env.work_dir().join("search_hist");
    for (i, suffix) in [
        ".19980514T000001",
        ".19980514T153906",
        ".20220214T000001",
        "",
    ]
    .iter()
    .enumerate()
    {
        let path = format!("{}{suffix}", base.display());
        let cluster = 50 + i as i32;
        write_history(
            std::path::Path::new(&path),
            &[("cole", cluster, 1, 10 * i as i64, "", "")],
        );
    }
    std::fs::write(
        env.work_dir().join("search_hist.old"),
        "ClusterId=99\n***\n",
    )
    .unwrap();
    let b = base.to_str().unwrap();
    assert_eq!(
        af_ids(&env, &["-search", b]),
        ids(&["53.0", "52.0", "51.0", "50.0"])
    );
    assert_eq!(
        af_ids(&env, &["-search", b, "-forwards"]),
        ids(&["50.0", "51.0", "52.0", "53.0"])
    );
    assert_eq!(
        af_ids(&env, &["-search", b, "-limit", "2"]),
        ids(&["53.0", "52.0"])
    );
    let none = env.work_dir().join("elsewhere");
    assert!(af_ids(&env, &["-search", none.to_str().unwrap()]).is_empty());
}

/// `-file` also reads another condorlite pool's history, from its spool's job_queue.db.
#[test]
fn file_reads_another_pools_queue_store() {
    let env = finished();
    let other = pool();
    let store = env.local_dir().join("spool").join("job_queue.db");
    let out = other.run(
        "condor_history",
        [
            "-af",
            "ClusterId",
            "ProcId",
            "-file",
            store.to_str().unwrap(),
        ],
    );
    assert_eq!(out.to_string(), "2 0\n1 1\n1 0\n[exit status: 0]");
    // A store under another name is refused rather than misread.
    let copy = env.work_dir().join("copy.db");
    std::fs::copy(&store, &copy).unwrap();
    let out = other.run(
        "condor_history",
        ["-af", "ClusterId", "-file", copy.to_str().unwrap()],
    );
    assert_eq!(out.status, Some(1), "{out}");
}

/// Malformed numbers as history.cpp reads them: `-limit` and `-scanlimit` with atoi (no
/// number is no limit), job ids with sscanf (`-1` is cluster -1, before any unknown-option
/// check), and a -format conversion printf does not know printed as it is, once per job.
#[test]
fn malformed_numbers_and_formats() {
    let env = finished();
    check(
        &env,
        &["-limit", "abc", "-af:j", "Owner"],
        "2.0 bob\n1.1 alice\n1.0 alice\n[exit status: 0]",
    );
    check(
        &env,
        &["-limit", "2x", "-scanlimit", "x", "-af:j", "Owner"],
        "2.0 bob\n1.1 alice\n[exit status: 0]",
    );
    check(&env, &["-1", "-af:j", "Owner"], "[exit status: 0]");
    check(&env, &["-2.0", "-af:j", "Owner"], "[exit status: 0]");
    check(
        &env,
        &["-limit", "1", "-format", "%Q\\n", "ClusterId"],
        "%Q\n[exit status: 0]",
    );
    check(
        &env,
        &["-format", "%Q ", "ClusterId", "-format", "%d\\n", "ProcId"],
        "%Q 0\n%Q 1\n%Q 0\n[exit status: 0]",
    );
}

/// `-print-format FILE` (history.cpp `set_print_mask_from_stream`): the format's columns with
/// their headings whatever its SELECT flags say (history.cpp reads none of them, and has no
/// summary), its WHERE ANDed with the ids, owners and -constraint, -limit honoured.
#[test]
fn print_format_columns_where_and_limits() {
    let env = finished();
    let file = env.write_file(
        "hist.cpf",
        "SELECT NOHEADER\n\
         \tClusterId AS CLUSTER WIDTH 7\n\
         \tProcId AS PROC WIDTH -4\n\
         \tOwner AS OWNER WIDTH -6\n\
         \tRemoteWallClockTime AS WALL PRINTF %.0f\n\
         WHERE JobStatus == 4\n\
         SUMMARY STANDARD\n",
    );
    let file = file.to_str().unwrap();
    let head = "CLUSTER PROC OWNER  WALL\n";
    check(
        &env,
        &["-print-format", file],
        &format!("{head}      1 1    alice    59\n      1 0    alice  3700\n[exit status: 0]"),
    );
    check(
        &env,
        &["-pr", file, "-limit", "1"],
        &format!("{head}      1 1    alice    59\n[exit status: 0]"),
    );
    check(
        &env,
        &[
            "-pr",
            file,
            "-constraint",
            "RemoteWallClockTime > 100",
            "alice",
        ],
        &format!("{head}      1 0    alice  3700\n[exit status: 0]"),
    );
    // bob's job was removed: the WHERE leaves nothing.
    check(
        &env,
        &["-pr", file, "bob"],
        &format!("{head}[exit status: 0]"),
    );
    // `-pr !` only turns off the default print formats.
    check(
        &env,
        &["-pr", "!", "-limit", "1"],
        &format!(
            "{HEADER}\
             2.0     bob             1/31 11:58              X   1/1  00:00 /usr/bin/python3 train.py\n\
             [exit status: 0]"
        ),
    );
}

/// history.cpp's messages for a print format it cannot use, each with exit status 1.
#[test]
fn print_format_errors() {
    let env = finished();
    let missing = env.work_dir().join("missing.cpf");
    let missing = missing.to_str().unwrap();
    check(
        &env,
        &["-print-format", missing],
        &format!(
            "------- stderr -------\nCan't open select file: {missing}\n\
             Error: cannot execute print-format file {missing}\n[exit status: 1]"
        ),
    );
    check(
        &env,
        &["-pr", "-long"],
        "------- stderr -------\nError: Argument -print-format requires a filename argument\n\
         [exit status: 1]",
    );
    let bad_where = env.write_file("where.cpf", "SELECT\nOwner\nWHERE JobStatus ==\n");
    let bad_where = bad_where.to_str().unwrap();
    check(
        &env,
        &["-pr", bad_where],
        &format!(
            "------- stderr -------\nWHERE expression is not valid: JobStatus ==\n\
             Error: cannot execute print-format file {bad_where}\n[exit status: 1]"
        ),
    );
    let unique = env.write_file("unique.cpf", "SELECT UNIQUE\nOwner\n");
    let unique = unique.to_str().unwrap();
    check(
        &env,
        &["-pr", unique],
        &format!(
            "------- stderr -------\nUNIQUE aggregation is not supported.\n\
             Error: cannot execute print-format file {unique}\n[exit status: 1]"
        ),
    );
    // Complaints about the format itself are printed and the rest is used.
    let odd = env.write_file("odd.cpf", "SELECT\nOwner AS WHO PRINTAS NO_SUCH_FUNCTION\n");
    check(
        &env,
        &["-pr", odd.to_str().unwrap(), "-limit", "1"],
        "WHO\nbob\n------- stderr -------\nUnknown argument NO_SUCH_FUNCTION for PRINTAS\n\
         [exit status: 0]",
    );
}

/// history.cpp's `-userlog FILE`: every job of the log (as userlog_to_classads makes them up,
/// whatever their status) that the ids, owners and constraints select, in job-id order; the
/// local history is not read, and no spool is made.
#[test]
fn userlog_shows_the_jobs_of_a_log() {
    let env = pool();
    let path = crate::common::jobs::userlog_fixture(&env);
    let heading =
        " ID     OWNER          SUBMITTED   RUN_TIME     ST COMPLETED   CMD            \n";
    check(
        &env,
        &["-userlog", &path],
        &format!(
            "{heading}\
             10.0    alice           1/31 11:00   0+00:01:40 C   1/31 11:06 /home/alice/run.sh\n\
             10.1    alice           1/31 11:00   0+00:00:20 C   1/31 11:00 ???            \n\
             10.2    alice           1/31 11:00              X   1/1  00:00 ???            \n\
             11.0    alice           1/31 11:10              H   1/1  00:00 ???            \n\
             12.0    alice           1/31 11:20              R   1/1  00:00 ???            \n\
             [exit status: 0]"
        ),
    );
    // -limit is not applied to a log (history.cpp's printJobAds prints every ad).
    check(
        &env,
        &[
            "-userlog",
            &path,
            "-af",
            "ClusterId",
            "ProcId",
            "JobStatus",
            "ExitCode",
            "-limit",
            "1",
        ],
        "10 0 4 3\n10 1 4 undefined\n10 2 3 undefined\n11 0 5 undefined\n12 0 2 undefined\n\
         [exit status: 0]",
    );
    check(
        &env,
        &[
            "-u",
            &path,
            "-af",
            "GlobalJobId",
            "-const",
            "JobStatus == 4",
            "10",
        ],
        "localhost#10.0#1706698800\nlocalhost#10.1#1706698800\n[exit status: 0]",
    );
    check(
        &env,
        &["-userlog", &path, "bob"],
        &format!("{heading}[exit status: 0]"),
    );
    check(
        &env,
        &["-userlog", "missing.log"],
        &format!("{heading}------- stderr -------\nError: Can't open userlog missing.log\n[exit status: 1]"),
    );
    let spool: Vec<_> = std::fs::read_dir(env.local_dir()).unwrap().collect();
    assert!(
        spool.is_empty(),
        "the pool directory is left alone: {spool:?}"
    );
}

/// `-epochs` reads `JOB_EPOCH_HISTORY` (and its rotated copies): the ads whose banners say
/// `EPOCH`, newest first, selected as any history; 24.0's message when neither it nor
/// `JOB_EPOCH_HISTORY_DIR` is set.
#[test]
fn epochs_reads_the_job_epoch_history() {
    let env = pool();
    let record = |c: i32, p: i32, run: i32, t: i64| {
        format!(
            "ClusterId = {c}\nProcId = {p}\nOwner = \"alice\"\nNumShadowStarts = {}\n\
             JobEpochWriteDate = {t}\n\
             *** EPOCH ClusterId={c} ProcId={p} RunInstanceId={run} Owner=\"alice\" CurrentTime={t}\n",
            run + 1
        )
    };
    let mut text = record(1, 0, 0, NOW - 300);
    // Another kind of record in the same file is not shown.
    text.push_str("ClusterId = 1\nProcId = 0\n*** STARTER ClusterId=1 ProcId=0 RunInstanceId=0\n");
    text.push_str(&record(2, 0, 0, NOW - 200));
    text.push_str(&record(1, 0, 1, NOW - 100));
    let path = env.write_file("epoch_history", &text);
    std::fs::write(
        env.config_file(),
        format!("JOB_EPOCH_HISTORY = {}\n", path.display()),
    )
    .unwrap();
    check(
        &env,
        &["-epochs", "-af", "ClusterId", "ProcId", "NumShadowStarts"],
        "1 0 2\n2 0 1\n1 0 1\n[exit status: 0]",
    );
    // Forwards every ad of the file counts, whatever its banner (readHistoryFromFileOld).
    check(
        &env,
        &[
            "-epochs",
            "-forwards",
            "1",
            "-af",
            "ClusterId",
            "NumShadowStarts",
        ],
        "1 1\n1 undefined\n1 2\n[exit status: 0]",
    );
    // The job history is another file.
    check(&env, &["-af", "ClusterId"], "[exit status: 0]");
    std::fs::write(env.config_file(), "JOB_EPOCH_HISTORY =\n").unwrap();
    check(
        &env,
        &["-epochs"],
        "------- stderr -------\nError: No Job Run Instance recordings to read.\n[exit status: 1]",
    );
}
