//! condor_q's per-job views as HTCondor 24.0 defines them: print-format texts
//! (src/condor_q.V6/queue.cpp, `jobDefault_PrintFormat` and the constants after it), parsed by
//! the one print-format engine ([`crate::output::printformat`]), and condor_q's own `PRINTAS`
//! functions (queue.cpp's `LocalPrintFormats[]`), which `-print-format FILE` uses too.
//!
//! The batch view (`-batch`, the default) is not one of these: HTCondor fetches its
//! attributes through `jobProgress_PrintFormat` but computes the table in code (grouping jobs
//! into batches, counting their states), and so does condorlite ([`super::batch`]). The
//! `-totals` view (`SELECT NOHEADER` / `SUMMARY STANDARD`) has no columns: it is the summary.
//! tests/fixtures/printformat/condor_q-*.txt hold 24.0's own texts; the tests below fail when
//! a view here drifts from them.

use std::sync::Arc;

use crate::classad::ClassAd;
use crate::output::mask::{PrintMask, RenderEnv};
use crate::output::printas::{duration, text, PrintAs};
use crate::output::printformat::{self, PrintFormat};
use crate::output::render::{lookup_int, lookup_real, lookup_str, status_text};
use crate::queue::universe;

/// `jobDefault_PrintFormat` (`-nobatch`).
pub const NOBATCH: &str = "SELECT
   ClusterId     AS ' ID'  NOSUFFIX  WIDTH 5 PRINTF '%4d.'
   ProcId        AS ' '    NOPREFIX  WIDTH 3 PRINTF '%-3d'
   Owner         AS  OWNER           WIDTH -14 PRINTAS OWNER OR ??
   QDate         AS '  SUBMITTED'    WIDTH 11 PRINTAS QDATE
   RemoteUserCpu AS '    RUN_TIME'   WIDTH 12 PRINTAS CPU_TIME
   JobStatus     AS ST                       PRINTAS JOB_STATUS
   JobPrio       AS PRI             WIDTH AUTO
   ImageSize     AS SIZE            WIDTH 4 PRINTAS MEMORY_USAGE
   Cmd           AS CMD             WIDTH 0 PRINTAS JOB_DESCRIPTION
SUMMARY STANDARD
";

/// `jobDAG_PrintFormat` (`-dag -nobatch`): node names in the owner column.
pub const DAG: &str = "SELECT
   ClusterId     AS ' ID'  NOSUFFIX  WIDTH 5 PRINTF '%4d.'
   ProcId        AS ' '    NOPREFIX  WIDTH 3 PRINTF '%-3d'
   Owner         AS 'OWNER/NODENAME' WIDTH -17 PRINTAS DAG_OWNER
   QDate         AS '  SUBMITTED'    WIDTH 11 PRINTAS QDATE
   RemoteUserCpu AS '    RUN_TIME'   WIDTH 12 PRINTAS CPU_TIME
   JobStatus     AS ST                       PRINTAS JOB_STATUS
   JobPrio       AS PRI             WIDTH AUTO
   ImageSize     AS SIZE            WIDTH 4 PRINTAS MEMORY_USAGE
   Cmd           AS CMD             WIDTH 0 PRINTAS JOB_DESCRIPTION
SUMMARY STANDARD
";

/// `autoclusterNormal_PrintFormat` (`-autocluster`): one line per autocluster of the schedd.
pub const AUTOCLUSTER: &str = "SELECT
   AutoClusterId AS '   ID'    WIDTH 5 PRINTF %5d
   JobCount      AS COUNT      WIDTH 5 PRINTF %5d
   JobUniverse   AS UNIVERSE   WIDTH -8 PRINTAS JOB_UNIVERSE OR ??
   RequestCPUs   AS CPUS       WIDTH 4 PRINTF %4d OR ??
   RequestMemory AS MEMORY     WIDTH 6 PRINTF %6d OR ??
   RequestDisk   AS '    DISK' WIDTH 8 PRINTF %8d OR ??
   Requirements  AS REQUIREMENTS PRINTF %r
SUMMARY NONE
";

/// `jobRuntime_PrintFormat` (`-run`).
pub const RUN: &str = "SELECT
   ClusterId     AS ' ID'  NOSUFFIX WIDTH 5 PRINTF '%4d.'
   ProcId        AS ' '    NOPREFIX WIDTH 3 PRINTF '%-3d'
   Owner         AS  OWNER          WIDTH -14 PRINTAS OWNER OR ??
   QDate         AS '  SUBMITTED'   WIDTH 11  PRINTAS QDATE OR ??
   RemoteUserCpu AS '    RUN_TIME'  WIDTH 12  PRINTAS CPU_TIME OR ??
   Owner         AS 'HOST(S)'       WIDTH 0   PRINTAS REMOTE_HOST OR ??
SUMMARY NONE
";

/// `jobIdle_PrintFormat` (`-idle`).
pub const IDLE: &str = "SELECT
   ClusterId     AS ' ID'  NOSUFFIX WIDTH 5 PRINTF '%4d.'
   ProcId        AS ' '    NOPREFIX WIDTH 3 PRINTF '%-3d'
   Owner         AS  OWNER          WIDTH -14 PRINTAS OWNER OR ??
   JobUniverse   AS 'UNIVERSE '  PRINTAS JOB_UNIVERSE
   RequestCpus   AS CPUS         PRINTF '%4d'
   RequestMemory AS MEMORY       PRINTF '%6d'
   NumShadowStarts?:0 AS STARTS  PRINTF '%6d'
   LastRemoteHost AS LAST_HOST WIDTH 0
SUMMARY NONE
";

/// `jobHold_PrintFormat` (`-hold`): 24.0 has no `CODE`/`SUB` columns.
pub const HOLD: &str = "SELECT
   ClusterId     AS ' ID'  NOSUFFIX WIDTH 5 PRINTF '%4d.'
   ProcId        AS ' '    NOPREFIX WIDTH 3 PRINTF '%-3d'
   Owner         AS  OWNER WIDTH -14 PRINTAS OWNER OR ??
   EnteredCurrentStatus  AS HELD_SINCE WIDTH 11 PRINTAS QDATE OR ??
   HoldReason           AS HOLD_REASON WIDTH 0
SUMMARY STANDARD
";

/// `jobIO_PrintFormat` (`-io`): the jobs transferring files. `FORMATAS` is no keyword of
/// the language: its words are skipped, so INPUT and OUTPUT show the raw numbers, RATE its
/// first 10 characters, MISC the universe number, as in 24.0.
pub const IO: &str = "SELECT
   ClusterId     AS ' ID'  NOSUFFIX WIDTH 5 PRINTF '%4d.'
   ProcId        AS ' '    NOPREFIX WIDTH 3 PRINTF '%-3d'
   Owner         AS  OWNER WIDTH -14 PRINTAS OWNER OR ??
   IfThenElse(JobUniverse==1,NumCkpts_RAW,NumJobStarts) AS RUNS PRINTF '%4d' OR ?
   JobStatus     AS ST                       PRINTAS JOB_STATUS
   IfThenElse(JobUniverse==1,FileReadBytes,BytesRecvd) AS ' INPUT' FORMATAS READABLE_BYTES OR ??
   IfThenElse(JobUniverse==1,FileWriteBytes,BytesSent) AS ' OUTPUT' FORMATAS READABLE_BYTES OR ??
   IfThenElse(JobUniverse==1,FileReadBytes+FileWriteBytes,BytesRecvd+BytesSent)   AS ' RATE' WIDTH 10 FORMATAS READABLE_BYTES OR ??
   JobUniverse AS 'MISC' FORMATAS BUFFER_IO_MISC
WHERE JobUniverse==1 || TransferQueued=?=true || TransferringOutput=?=true || TransferringInput=?=true
SUMMARY STANDARD
";

/// `jobFactory_PrintFormat` (`-factory`): the cluster ads of job factories (late
/// materialization), with the counts of their procs the schedd keeps (`JobsPresent`, ...).
pub const FACTORY: &str = "SELECT
   ClusterId     AS ' ID'  NOSUFFIX  WIDTH 5 PRINTF '%4d.'
   ProcId        AS ' '    NOPREFIX  WIDTH 3 PRINTF '%-3d'
   Owner         AS  OWNER           WIDTH -14 PRINTAS OWNER OR ??
   QDate         AS '  SUBMITTED'    WIDTH 11 PRINTAS QDATE
JobMaterializeLimit AS ' LIMIT' WIDTH 6 PRINTF %6d
JobsPresent   AS 'PRESNT' WIDTH 6 PRINTF %6d
JobsRunning   AS '  RUN ' WIDTH 6 PRINTF %6d
JobsIdle      AS '  IDLE' WIDTH 6 PRINTF %6d
JobsHeld      AS '  HOLD' WIDTH 6 PRINTF %6d
JobMaterializeNextProcId AS 'NEXTID' WIDTH 6 PRINTF %6d
JobMaterializePaused?:JobFactoryPaused AS MODE PRINTAS JOB_FACTORY_MODE OR _
JobMaterializeDigestFile AS DIGEST
WHERE (ProcId is undefined) && (JobMaterializeDigestFile isnt undefined)
SUMMARY NONE
";

/// `jobTotals_PrintFormat` (`-totals`): no rows, the summary only.
pub const TOTALS: &str = "SELECT NOHEADER\nSUMMARY STANDARD";

/// queue.cpp's `LocalPrintFormats[]`, searched before the global table. (`GRID_RESOURCE`
/// and the local `BATCH_NAME` are not provided: the global `BATCH_NAME` serves.)
pub const LOCAL: &[PrintAs] = &[
    duration("CPU_TIME", render_cpu_time),
    text("DAG_OWNER", render_dag_owner),
    text("JOB_STATUS", render_job_status_char),
    text("REMOTE_HOST", render_remote_host),
];

/// A view's text parsed with condor_q's functions.
pub fn parse(text: &str) -> PrintFormat {
    printformat::parse(text, LOCAL)
}

/// The columns of a built-in view.
pub fn mask(text: &str) -> PrintMask {
    let pf = parse(text);
    debug_assert!(pf.messages.is_empty(), "{}", pf.messages);
    pf.mask
}

/// condor_q's `DAG_OWNER`: with `-dag`, a DAG node job's node name, else its owner.
fn render_dag_owner(ad: &ClassAd, env: &RenderEnv) -> Option<String> {
    if env.dag && ad.lookup("DAGManJobId").is_some() {
        if let Some(name) = lookup_str(ad, "DAGNodeName") {
            return Some(name.to_string());
        }
    }
    lookup_str(ad, "Owner").map(|o| o.to_string())
}

/// condor_q's `CPU_TIME`: the job's wall-clock time (all runs, or `-currentrun` the current
/// one), or with `-cputime` its CPU time; missing when the job has no `RemoteUserCpu`.
fn render_cpu_time(ad: &ClassAd, env: &RenderEnv) -> Option<f64> {
    let cpu = lookup_real(ad, "RemoteUserCpu")?;
    if env.cputime {
        return Some(cpu);
    }
    let now = env.server_time;
    if now == 0 {
        return Some(-1.0);
    }
    let status = lookup_int(ad, "JobStatus").unwrap_or(0);
    let bday = lookup_int(ad, "ShadowBday").unwrap_or(0);
    let mut total = if env.current_run {
        0.0
    } else {
        lookup_real(ad, "RemoteWallClockTime").unwrap_or(0.0)
    };
    if matches!(status, 2 | 6 | 7) && bday != 0 {
        total += (now - bday) as f64;
    } else if matches!(status, 1 | 5 | 9) && env.current_run {
        if let Some(last) = lookup_real(ad, "LastRemoteWallClockTime") {
            total = last;
        }
    }
    Some(total)
}

/// condor_q's `JOB_STATUS`: the status letter, transfer marks, and `c` for a job in
/// cool-down.
fn render_job_status_char(ad: &ClassAd, env: &RenderEnv) -> Option<String> {
    let status = lookup_int(ad, "JobStatus")?;
    Some(status_text(ad, status, true, env.server_time))
}

/// condor_q's `REMOTE_HOST`: where the job runs.
fn render_remote_host(ad: &ClassAd, env: &RenderEnv) -> Option<String> {
    let universe = lookup_int(ad, "JobUniverse").unwrap_or(5);
    if universe == universe::SCHEDULER || universe == universe::LOCAL {
        return Some(env.schedd_host.clone());
    }
    if universe == 9 {
        return lookup_str(ad, "EC2RemoteVirtualMachineName")
            .or_else(|| lookup_str(ad, "GridResource"))
            .map(|s| s.to_string());
    }
    let host: Arc<str> = lookup_str(ad, "RemoteHost")?;
    Some(host.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classad::parse_ad;
    use crate::output::printformat::describe;

    /// 24.0's texts, extracted from its source (tests/fixtures/printformat/extract.py).
    const FIXTURES: [(&str, &str); 9] = [
        (
            AUTOCLUSTER,
            include_str!("../../../../tests/fixtures/printformat/condor_q-autocluster.txt"),
        ),
        (
            IO,
            include_str!("../../../../tests/fixtures/printformat/condor_q-io.txt"),
        ),
        (
            NOBATCH,
            include_str!("../../../../tests/fixtures/printformat/condor_q-nobatch.txt"),
        ),
        (
            DAG,
            include_str!("../../../../tests/fixtures/printformat/condor_q-dag.txt"),
        ),
        (
            RUN,
            include_str!("../../../../tests/fixtures/printformat/condor_q-run.txt"),
        ),
        (
            IDLE,
            include_str!("../../../../tests/fixtures/printformat/condor_q-idle.txt"),
        ),
        (
            HOLD,
            include_str!("../../../../tests/fixtures/printformat/condor_q-hold.txt"),
        ),
        (
            FACTORY,
            include_str!("../../../../tests/fixtures/printformat/condor_q-factory.txt"),
        ),
        (
            TOTALS,
            include_str!("../../../../tests/fixtures/printformat/condor_q-totals.txt"),
        ),
    ];

    fn ads() -> Vec<ClassAd> {
        [
            r#"[ ClusterId = 7; ProcId = 0; Owner = "alice"; QDate = 1700000000; JobStatus = 2;
                 RemoteUserCpu = 1.0; RemoteWallClockTime = 30.0; ShadowBday = 1700000100;
                 JobPrio = 0; ImageSize = 2048; Cmd = "/bin/sleep"; Arguments = "60";
                 JobUniverse = 5; RemoteHost = "slot1@host"; RequestCpus = 1;
                 RequestMemory = 128; EnteredCurrentStatus = 1700000100 ]"#,
            r#"[ ClusterId = 12345; ProcId = 1000; Owner = "a-very-long-owner-name";
                 QDate = 1700003600; JobStatus = 5; JobPrio = 10; MemoryUsage = 17;
                 Cmd = "x"; JobUniverse = 7; DAGManJobId = 7; DAGNodeName = "B";
                 HoldReason = "via condor_hold"; EnteredCurrentStatus = 1700007200;
                 NumShadowStarts = 3; LastRemoteHost = "slot2@host" ]"#,
            r#"[ ClusterId = 8; ProcId = 2 ]"#,
        ]
        .iter()
        .map(|t| parse_ad(t).unwrap())
        .collect()
    }

    fn rendered(mut pf: PrintFormat) -> String {
        let env = RenderEnv {
            server_time: 1700000200,
            dag: true,
            schedd_host: "submit.example".into(),
            ..RenderEnv::default()
        };
        let rows: Vec<_> = ads().iter().map(|ad| pf.mask.render(ad, &env)).collect();
        let mut out = pf.mask.headings_line();
        for row in &rows {
            pf.mask.display(&mut out, row);
        }
        out
    }

    #[test]
    fn the_views_are_24_0s_texts() {
        for (ours, theirs) in FIXTURES {
            let (a, b) = (parse(ours), parse(theirs));
            assert_eq!(a.messages, "");
            assert_eq!(describe(&a), describe(&b), "{ours}");
            assert_eq!(rendered(a), rendered(b), "{ours}");
        }
    }

    #[test]
    fn the_default_view_renders_as_condor_q_does() {
        let out = rendered(parse(NOBATCH));
        assert_eq!(
            out.lines().next().unwrap(),
            " ID      OWNER            SUBMITTED     RUN_TIME ST PRI SIZE CMD"
        );
        let row = out.lines().nth(1).unwrap();
        assert!(row.starts_with("   7.0   alice          "), "{out}");
        assert!(row.ends_with("   0+00:02:10 R  0    2.0 sleep 60"), "{out}");
    }
}
