//! Turning parsed queue statements into jobs, one at a time.
//!
//! Clusters and procs are numbered as condor_submit numbers them: a new cluster for the first
//! statement and for each later statement whose `executable` changed; otherwise proc ids
//! continue. The first job of a cluster is built in full and becomes the cluster ad (HTCondor's
//! `fold_job_into_base_ad`); every other job is built chained to it, so its ad holds only
//! `ProcId`, `JobStatus` and what differs.
//!
//! Most jobs of a statement differ only in a few commands (`arguments = $(Process)`). The
//! first chained job of each statement is built with every step traced: which commands, job
//! attributes and facts each step read, and what it wrote. The steps that read nothing that
//! varies between jobs (nor anything a varying step wrote) are then skipped for the remaining
//! jobs, their recorded output replayed; the steps that do vary run as usual, reading every
//! command that is the same for all jobs from a per-statement cache. Memory stays flat: a job
//! is made when the iterator is asked for it.

use std::sync::Arc;

use super::error::{AbortPlace, StackEntry, SubmitError};
use super::hash::Live;
use super::job::{Abort, Builder, HashState, KeyCache, StepTrace, R};
use super::jobad::{Change, JobAd};
use super::parse::Statement;
use super::util::universe;
use super::SubmitFile;
use crate::classad::intern::intern;
use crate::classad::{ClassAd, Expr};

/// `make_job_ad`'s steps, in HTCondor's order.
const STEP_COUNT: usize = 36;

fn run_step(b: &mut Builder<'_>, i: usize) -> R {
    match i {
        0 => b.set_file_checks(),
        1 => b.set_universe(),
        2 => b.set_iwd(),
        3 => b.set_executable(),
        4 => b.set_arguments(),
        5 => b.set_parallel_params(),
        6 => b.set_environment(),
        7 => b.set_job_status(),
        8 => b.set_tdp(),
        9 => b.set_stdin(),
        10 => b.set_stdout(),
        11 => b.set_stderr(),
        12 => b.set_gsi_credentials(),
        13 => b.set_notification(),
        14 => b.set_rank(),
        15 => b.set_periodic_expressions(),
        16 => b.set_leave_in_queue(),
        17 => b.set_job_retries(),
        18 => b.set_kill_sig(),
        19 => b.set_container_special(),
        20 => b.set_request_resources(),
        21 => b.set_concurrency_limits(),
        22 => b.set_accounting_group(),
        23 => b.set_oauth(),
        24 => b.set_simple_job_exprs(),
        25 => b.set_job_deferral(),
        26 => b.set_image_size(),
        27 => b.set_transfer_files(),
        28 => b.set_auto_attributes(),
        29 => b.report_common_mistakes(),
        30 => b.set_forced_submit_attrs(),
        31 => b.set_forced_attributes(),
        32 => b.set_proc_id(),
        33 => b.process_jobset_attributes(),
        34 => b.set_resource_requirements(),
        35 => b.set_requirements(),
        _ => unreachable!("there are {STEP_COUNT} steps"),
    }
}

/// One job of a submission.
#[derive(Clone, Debug)]
pub struct Job {
    pub cluster_id: i64,
    pub proc_id: i64,
    /// The queue statement's item index (`$(ItemIndex)`) and step within the item (`$(Step)`).
    pub item_index: i64,
    pub step: i64,
    /// This is the first job of its cluster: the cluster ad is new.
    pub new_cluster: bool,
    /// The job's own attributes (`ProcId`, `JobStatus` and whatever differs from the cluster),
    /// chained to the cluster ad.
    pub ad: ClassAd,
    /// Warnings HTCondor would print for this job (`WARNING: <text>`).
    pub warnings: Vec<String>,
}

impl Job {
    /// The cluster ad: the attributes common to every job of the cluster.
    pub fn cluster_ad(&self) -> &ClassAd {
        self.ad
            .chained()
            .expect("a job ad is chained to its cluster ad")
    }

    /// The job's full ad, cluster and proc attributes merged.
    pub fn flat_ad(&self) -> ClassAd {
        let attrs: Vec<(Arc<str>, Expr)> = self
            .ad
            .iter()
            .map(|(n, e)| (intern(n), e.clone()))
            .collect();
        ClassAd::from_attrs(attrs)
    }
}

/// Which steps later jobs of a statement must run (the others replay their recorded changes).
struct Plan {
    dirty: Vec<bool>,
    traces: Vec<StepTrace>,
    /// For each clean step, the changes to replay: what it stored in the job's own ad, and
    /// removals of what an earlier step may have stored there.
    replay: Vec<Vec<Change>>,
    /// Attributes that the dirty steps write.
    dirty_attrs: Vec<Arc<str>>,
}

fn in_ci(list: &[Arc<str>], name: &str) -> bool {
    list.iter().any(|n| n.eq_ignore_ascii_case(name))
}

impl Plan {
    fn new(traces: Vec<StepTrace>, iwd_variant: bool) -> Plan {
        let mut dirty_attrs: Vec<Arc<str>> = Vec::new();
        let mut dirty = Vec::with_capacity(traces.len());
        for t in &traces {
            let d = t.variant_key
                || t.reads_proc
                || (t.reads_iwd && iwd_variant)
                || (t.reads_all && !dirty_attrs.is_empty())
                || t.attrs_read.iter().any(|a| in_ci(&dirty_attrs, a))
                || t.prefix_reads.iter().any(|p| {
                    dirty_attrs
                        .iter()
                        .any(|a| a.len() >= p.len() && a[..p.len()].eq_ignore_ascii_case(p))
                });
            if d {
                for c in &t.changes {
                    let n = match c {
                        Change::Set(n, _) | Change::Pruned(n) => n,
                    };
                    if !in_ci(&dirty_attrs, n) {
                        dirty_attrs.push(n.clone());
                    }
                }
            }
            dirty.push(d);
        }
        let mut stored: Vec<Arc<str>> = dirty_attrs.clone();
        let mut replay = Vec::with_capacity(traces.len());
        for t in &traces {
            let mut r = Vec::new();
            for c in &t.changes {
                match c {
                    Change::Set(n, _) => {
                        if !in_ci(&stored, n) {
                            stored.push(n.clone());
                        }
                        r.push(c.clone());
                    }
                    Change::Pruned(n) => {
                        if in_ci(&stored, n) {
                            r.push(c.clone());
                        }
                    }
                }
            }
            replay.push(r);
        }
        Plan {
            dirty,
            traces,
            replay,
            dirty_attrs,
        }
    }
}

/// The jobs of one statement being made.
struct Run {
    stmt: usize,
    live: Live,
    cache: KeyCache,
    /// Proc id of the statement's first job.
    first_proc: i64,
    step_size: i64,
    /// Row values last set for each loop variable.
    done: bool,
    /// The item whose values the loop variables hold.
    loaded_item: Option<i64>,
    /// The proc id at which traces are recorded.
    record_at: Option<i64>,
    plan: Option<Plan>,
}

/// The jobs of a submission, made one at a time.
pub struct Jobs<'f> {
    file: &'f SubmitFile,
    state: HashState,
    /// HTCondor's `baseJob`: the base ad, then each cluster's ad.
    base: ClassAd,
    cluster_ad: Option<ClassAd>,
    cluster_id: i64,
    next_cluster_id: i64,
    next_proc: i64,
    next_stmt: usize,
    run: Option<Run>,
    finished: bool,
    /// Skip the steps that cannot differ between the jobs of a statement.
    shortcuts: bool,
    /// `base` is a cluster ad: a job has been folded into it (HTCondor's
    /// `base_job_is_cluster_ad`).
    folded: bool,
}

impl<'f> Jobs<'f> {
    pub(crate) fn new(file: &'f SubmitFile, first_cluster: i64) -> Jobs<'f> {
        Jobs {
            file,
            state: HashState::default(),
            base: file.setup.base.clone(),
            cluster_ad: None,
            cluster_id: -1,
            next_cluster_id: first_cluster,
            next_proc: 0,
            next_stmt: 0,
            run: None,
            finished: false,
            shortcuts: true,
            folded: false,
        }
    }

    /// Makes every job in full, running every step (for testing that skipping the steps
    /// that cannot differ between jobs changes nothing).
    #[doc(hidden)]
    pub fn without_shortcuts(mut self) -> Jobs<'f> {
        self.shortcuts = false;
        self
    }

    /// Goes on at proc `proc` of the current cluster, without making the procs before it
    /// (a job factory making its next procs). The cluster's first job must have been made:
    /// it is the cluster ad every other job is made against. Only moves forward, and only
    /// within the current queue statement (a factory has one).
    pub fn skip_to(&mut self, proc: i64) {
        if self.cluster_ad.is_some() && proc > self.next_proc {
            self.next_proc = proc;
        }
    }

    /// The number of jobs per item of the current statement (`queue N`), 1 without one.
    pub fn step_size(&self) -> i64 {
        self.run.as_ref().map_or(1, |r| r.step_size)
    }

    fn statement(&self, i: usize) -> &'f Statement {
        &self.file.parsed.statements[i]
    }

    /// Starts the next statement that selects any jobs.
    fn start_statement(&mut self) -> bool {
        while self.next_stmt < self.file.parsed.statements.len() {
            let i = self.next_stmt;
            self.next_stmt += 1;
            let st = self.statement(i);
            if st.args.item_len() == 0 || st.args.queue_num < 0 {
                continue;
            }
            if st.new_executable || self.cluster_id < 0 {
                self.cluster_id = self.next_cluster_id;
                self.next_cluster_id += 1;
                self.next_proc = 0;
                self.cluster_ad = None;
            }
            let live = Live {
                cluster: self.cluster_id.to_string(),
                vars: vec![Arc::from(""); st.hash.live_slots()],
                ..Live::default()
            };
            self.run = Some(Run {
                stmt: i,
                live,
                cache: KeyCache::default(),
                first_proc: self.next_proc,
                step_size: st.args.queue_num.max(1),
                done: false,
                loaded_item: None,
                record_at: None,
                plan: None,
            });
            return true;
        }
        false
    }

    fn make(&mut self) -> Option<Result<Job, SubmitError>> {
        loop {
            if self.run.as_ref().is_none_or(|r| r.done) && !self.start_statement() {
                return None;
            }
            let run = self.run.as_mut().expect("a statement is running");
            let st = &self.file.parsed.statements[run.stmt];
            let iter_index = self.next_proc - run.first_proc;
            let mut item_index = iter_index / run.step_size;
            let step = iter_index % run.step_size;
            if !st.args.items.is_empty() {
                match st
                    .args
                    .slice
                    .translate(item_index, st.args.items.len() as i64)
                {
                    Some(i) => item_index = i,
                    None => {
                        run.done = true;
                        continue;
                    }
                }
            }
            // A job factory may start in the middle of an item's steps ([`Jobs::skip_to`]).
            let load = if st.args.items.is_empty() {
                step == 0
            } else {
                run.loaded_item != Some(item_index)
            };
            if load {
                let row = usize::try_from(item_index).ok();
                match row.and_then(|r| st.args.items.get(r)) {
                    Some(item) => {
                        let values = st.args.split_item(item, st.var_slots.len());
                        for (slot, v) in st.var_slots.iter().zip(values) {
                            run.live.vars[*slot] = Arc::from(v);
                        }
                        run.loaded_item = Some(item_index);
                    }
                    None => {
                        if iter_index != 0 {
                            run.done = true;
                            continue;
                        }
                    }
                }
            }
            let proc = self.next_proc;
            self.next_proc += 1;
            return Some(self.make_job(proc, item_index, step));
        }
    }

    fn make_job(&mut self, proc: i64, item_index: i64, step: i64) -> Result<Job, SubmitError> {
        let file = self.file;
        let setup = &file.setup;
        let run = self.run.as_mut().expect("a statement is running");
        let st = &file.parsed.statements[run.stmt];
        set_number(&mut run.live.process, proc);
        set_number(&mut run.live.row, item_index);
        set_number(&mut run.live.step, step);
        let first_proc = proc == 0;
        // `$(Node)` is a placeholder in the parallel universe (set again once the first job
        // of a cluster has decided the universe).
        run.live.node.set(
            if !first_proc && self.state.universe == universe::PARALLEL {
                "#pArAlLeLnOdE#"
            } else {
                ""
            },
        );
        let job_ad = match (&self.cluster_ad, first_proc) {
            (Some(c), false) => JobAd::chained(c.clone()),
            _ => JobAd::from_base(&self.base),
        };
        let chained = !first_proc && self.cluster_ad.is_some();
        if chained && self.shortcuts && run.record_at.is_none() {
            run.record_at = Some(proc);
        }
        let recording = chained && run.record_at == Some(proc);
        let cluster = self.cluster_id;
        let mut b = Builder::new(
            setup,
            st,
            &run.live,
            &mut self.state,
            &mut run.cache,
            job_ad,
            cluster,
            proc,
            first_proc,
        );
        b.base_is_cluster_ad = self.folded;
        let mut traces: Vec<StepTrace> = Vec::new();
        let mut result: R = Ok(());
        match (&run.plan, recording) {
            (Some(plan), false) if chained => {
                b.expected_writes = Some(&plan.dirty_attrs);
                for i in 0..STEP_COUNT {
                    if plan.dirty[i] || b.unexpected_write {
                        // A write the plan did not expect would be missed by the steps it
                        // skips: once that happens, every remaining step runs.
                        let forced = !plan.dirty[i];
                        result = run_step(&mut b, i);
                        if result.is_err() {
                            break;
                        }
                        if forced {
                            b.unexpected_write = true;
                        }
                    } else {
                        for c in &plan.replay[i] {
                            b.job.apply(c);
                        }
                        let w = &plan.traces[i].warnings;
                        if !w.is_empty() {
                            b.stack.extend(w.iter().cloned());
                        }
                    }
                }
            }
            _ => {
                for i in 0..STEP_COUNT {
                    if recording {
                        b.trace = Some(StepTrace::default());
                    }
                    result = run_step(&mut b, i);
                    if let Some(t) = b.trace.take() {
                        traces.push(t);
                    }
                    if result.is_err() {
                        break;
                    }
                }
            }
        }
        let stack = std::mem::take(&mut b.stack);
        let except = b.except.take();
        let mut job_ad = std::mem::take(&mut b.job);
        drop(b);
        if let Err(Abort) = result {
            self.finished = true;
            if let Some(message) = except {
                return Err(SubmitError::Abort {
                    message,
                    place: if st.from_command_line {
                        AbortPlace::QueueArgument { step, item_index }
                    } else {
                        AbortPlace::Queue {
                            line: st.line,
                            step,
                            item_index,
                        }
                    },
                });
            }
            let message = stack
                .iter()
                .rev()
                .find(|e| e.code != 0)
                .map(|e| e.message.trim_end_matches('\n').to_owned())
                .unwrap_or_default();
            return Err(SubmitError::Job {
                cluster,
                proc,
                message,
                stack,
            });
        }
        if recording {
            run.plan = Some(Plan::new(traces, self.state.iwd_variant));
        }
        let warnings = warnings_of(&stack);
        let ad = if first_proc {
            // The first job's ad becomes the cluster ad; the job keeps ProcId and JobStatus.
            let flat = job_ad.flat();
            let status = flat.lookup("JobStatus").cloned();
            let mut cluster_attrs: Vec<(Arc<str>, Expr)> = self
                .base
                .iter()
                .map(|(n, e)| (intern(n), e.clone()))
                .collect();
            cluster_attrs.extend(flat.iter().map(|(n, e)| (intern(n), e.clone())));
            let mut cluster_ad = ClassAd::from_attrs(cluster_attrs);
            cluster_ad.remove("ProcId");
            cluster_ad.insert("ClusterId", Expr::lit(cluster));
            self.base = cluster_ad.clone();
            self.folded = true;
            self.cluster_ad = Some(cluster_ad.clone());
            let mut own = vec![(intern("ProcId"), Expr::lit(proc))];
            if let Some(s) = status {
                own.push((intern("JobStatus"), s));
            }
            let mut ad = ClassAd::from_attrs(own);
            ad.chain_to(cluster_ad);
            ad
        } else {
            // The schedd counts jobs by status: every proc ad holds its JobStatus.
            if job_ad.own("JobStatus").is_none() {
                force_own(&mut job_ad, "JobStatus");
            }
            job_ad.into_classad()
        };
        Ok(Job {
            cluster_id: cluster,
            proc_id: proc,
            item_index,
            step,
            new_cluster: first_proc,
            ad,
            warnings,
        })
    }
}

fn set_number(s: &mut String, n: i64) {
    use std::fmt::Write;
    s.clear();
    let _ = write!(s, "{n}");
}

/// Copies the parent's value of `name` into the ad itself.
fn force_own(ad: &mut JobAd, name: &str) {
    if let Some(e) = ad.lookup(name).cloned() {
        ad.apply(&Change::Set(intern(name), e));
    }
}

fn warnings_of(stack: &[StackEntry]) -> Vec<String> {
    stack
        .iter()
        .filter(|e| e.code == 0)
        .map(|e| e.message.clone())
        .collect()
}

impl Iterator for Jobs<'_> {
    type Item = Result<Job, SubmitError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.finished {
            return None;
        }
        self.make()
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, None)
    }
}
