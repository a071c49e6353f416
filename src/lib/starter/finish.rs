//! After the job exits: the job-ad updates the starter reports and the shadow applies
//! (`UserProc::PublishUpdateAd`, `VanillaProc::PublishUpdateAd`, `JICShadow::publishJobExitAd`,
//! `RemoteResource::updateFromStarter`, `BaseShadow::updateJobInQueue`), the output transfer,
//! and the removal of the scratch directory.

use std::path::Path;

use crate::classad::{ClassAd, Expr};
use crate::output::render::{lookup_int, lookup_real};

use super::transfer::{dir_usage, OutputPlan};
use super::{JobExit, JobResult, RawExit, Usage};

/// What the job ad held before this run, for the figures the shadow keeps as maxima or
/// running totals.
#[derive(Clone, Debug, Default)]
pub(super) struct Previous {
    image_size: Option<i64>,
    resident_set_size: Option<i64>,
    bytes_sent: f64,
    bytes_recvd: f64,
    cumulative_user_cpu: f64,
    cumulative_sys_cpu: f64,
}

impl Previous {
    pub fn from_job(job: &ClassAd) -> Previous {
        Previous {
            image_size: lookup_int(job, "ImageSize"),
            resident_set_size: lookup_int(job, "ResidentSetSize"),
            bytes_sent: lookup_real(job, "BytesSent").unwrap_or(0.0),
            bytes_recvd: lookup_real(job, "BytesRecvd").unwrap_or(0.0),
            cumulative_user_cpu: lookup_real(job, "CumulativeRemoteUserCpu").unwrap_or(0.0),
            cumulative_sys_cpu: lookup_real(job, "CumulativeRemoteSysCpu").unwrap_or(0.0),
        }
    }
}

/// Everything `finish` needs, decided at start.
#[derive(Debug)]
pub(super) struct FinishPlan {
    /// The output transfer, when the job uses file transfer.
    pub output: Option<OutputPlan>,
    /// `STARTER_KEEP_SCRATCH_DIR`.
    pub keep_scratch: bool,
    /// Bytes of input transferred in.
    pub bytes_recvd: u64,
    pub previous: Previous,
    /// `MEMORY_USAGE_METRIC` (default `((ResidentSetSize+1023)/1024)`), the expression a
    /// starter running the job reports as `MemoryUsage` (`VanillaProc::PublishUpdateAd`);
    /// `None` when the job runs without a starter (the schedd's own universes) or the knob is
    /// empty.
    pub memory_usage_metric: Option<Expr>,
    /// The job ran on a slot, whose `CpusUsage` the starter forwards to the job ad
    /// (`JICShadow::publishStartdUpdates`).
    pub slot_usage: bool,
    /// A docker job's container: its exit comes from `docker start -a`, and it is removed
    /// once the output is transferred (`DockerProc::JobReaper`, `JobExit`).
    pub docker: Option<super::container::DockerContainer>,
}

/// glibc's `strsignal` text, for `ExitReason`.
pub fn signal_description(sig: i32) -> String {
    let text = match sig {
        1 => "Hangup",
        2 => "Interrupt",
        3 => "Quit",
        4 => "Illegal instruction",
        5 => "Trace/breakpoint trap",
        6 => "Aborted",
        7 => "Bus error",
        8 => "Floating point exception",
        9 => "Killed",
        10 => "User defined signal 1",
        11 => "Segmentation fault",
        12 => "User defined signal 2",
        13 => "Broken pipe",
        14 => "Alarm clock",
        15 => "Terminated",
        16 => "Stack fault",
        17 => "Child exited",
        18 => "Continued",
        19 => "Stopped (signal)",
        20 => "Stopped",
        21 => "Stopped (tty input)",
        22 => "Stopped (tty output)",
        23 => "Urgent I/O condition",
        24 => "CPU time limit exceeded",
        25 => "File size limit exceeded",
        26 => "Virtual timer expired",
        27 => "Profiling timer expired",
        28 => "Window changed",
        29 => "I/O possible",
        30 => "Power failure",
        31 => "Bad system call",
        n if (34..=64).contains(&n) => return format!("Real-time signal {}", n - 34),
        n => return format!("Unknown signal {n}"),
    };
    text.to_owned()
}

impl FinishPlan {
    pub fn run(&self, scratch: &Path, raw: RawExit, killed: bool, wall_secs: f64) -> JobResult {
        let mut raw = raw;
        let mut create_failed = None;
        if self.docker.is_some() {
            raw.status = super::container::docker_status(raw.status);
            create_failed = super::container::docker_create_error(scratch);
        }
        let exit = JobExit::from_status(raw.status);
        let prev = &self.previous;
        let mut updates: Vec<(String, Expr)> = Vec::new();
        let mut put = |name: &str, e: Expr| updates.push((name.to_owned(), e));

        // A process that never became the job has no exit of the job's to report.
        match exit {
            _ if raw.exec_error.is_some() => {}
            JobExit::Code(code) => {
                put("ExitBySignal", Expr::lit(false));
                put("ExitCode", Expr::lit(code as i64));
            }
            JobExit::Signal { signal, core } => {
                put("ExitBySignal", Expr::lit(true));
                put("ExitSignal", Expr::lit(signal as i64));
                put(
                    "ExitReason",
                    Expr::lit(format!(
                        "died on signal {signal} ({})",
                        signal_description(signal)
                    )),
                );
                if core {
                    put("JobCoreDumped", Expr::lit(true));
                }
            }
        }
        put("RemoteUserCpu", Expr::lit(raw.user_cpu));
        put("RemoteSysCpu", Expr::lit(raw.sys_cpu));
        put(
            "CumulativeRemoteUserCpu",
            Expr::lit(prev.cumulative_user_cpu + raw.user_cpu),
        );
        put(
            "CumulativeRemoteSysCpu",
            Expr::lit(prev.cumulative_sys_cpu + raw.sys_cpu),
        );
        // The shadow keeps the largest image size and resident set size seen (of the job's:
        // a process that never became the job has none).
        let sized = raw.exec_error.is_none();
        if sized && prev.image_size.is_none_or(|s| raw.max_rss_kib > s) {
            put("ImageSize", Expr::lit(raw.max_rss_kib));
        }
        if sized && prev.resident_set_size.is_none_or(|s| raw.max_rss_kib > s) {
            put("ResidentSetSize", Expr::lit(raw.max_rss_kib));
        }
        // The shadow copies an expression for MemoryUsage as it is
        // (`RemoteResource::updateFromStarter`): it evaluates against the job's
        // ResidentSetSize, so it gives the peak in MiB.
        if let Some(e) = &self.memory_usage_metric {
            put("MemoryUsage", e.clone());
        }
        // The startd's CpusUsage is the job's CPU time over the time it took
        // (`Claim::updateUsage`, ProcFamilyUsage::percent_cpu / 100): here, over the whole run.
        if self.slot_usage {
            let cpu = raw.user_cpu + raw.sys_cpu;
            let cpus_usage = if wall_secs > 0.0 {
                cpu / wall_secs
            } else {
                0.0
            };
            put("CpusUsage", Expr::lit(cpus_usage));
        }

        // The starter reports the sandbox's size only when it transferred files.
        let mut disk_usage_kib = 0;
        if self.output.is_some() {
            let (bytes, files) = dir_usage(scratch);
            disk_usage_kib = (bytes as i64 + 1023) / 1024;
            if disk_usage_kib > 0 {
                put("DiskUsage", Expr::lit(disk_usage_kib));
            }
            put("ScratchDirFileCount", Expr::lit(files as i64));
        }

        let (bytes_out, hold) = match &self.output {
            Some(_) if create_failed.is_some() => (0, create_failed),
            Some(plan) if !killed => plan.run(scratch),
            _ => (0, create_failed),
        };
        if let Some(c) = &self.docker {
            c.remove();
        }
        // From the job's point of view: what it sent is its output.
        put("BytesSent", Expr::lit(prev.bytes_sent + bytes_out as f64));
        put(
            "BytesRecvd",
            Expr::lit(prev.bytes_recvd + self.bytes_recvd as f64),
        );

        JobResult {
            exit,
            updates,
            hold,
            usage: Usage {
                user_cpu: raw.user_cpu,
                sys_cpu: raw.sys_cpu,
                max_rss_kib: raw.max_rss_kib,
                disk_usage_kib,
                bytes_sent: bytes_out as f64,
                bytes_recvd: self.bytes_recvd as f64,
                wall_secs,
            },
            killed,
            not_started: None,
        }
    }
}
