//! The DAG while it runs: each node's state, the ready queue, the script queues, the
//! throttles and the DAG's status, moved by node job events (read from the nodes log),
//! script exits and submit results, as HTCondor 24.0's dag.cpp, node.cpp and scriptQ.cpp move
//! them.
//!
//! The engine does nothing itself: submitting jobs, starting and killing scripts, writing
//! events to the nodes log, removing jobs and logging all go through the [`Host`] each call is
//! given, and time is an argument. A test drives it with a fake host and fake events; the
//! condor_dagman process ([`super::runner`]) drives it with the pool.
//!
//! Event order is HTCondor's: a POST script's exit is not acted on when it happens but when
//! its POST_SCRIPT_TERMINATED event, which the engine asks the host to write to the nodes
//! log, is read back; PRE_SKIP and the fake events of NOOP nodes go the same way. That is
//! what lets a restarted DAGMan recover every node's state from the nodes log alone.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, HashMap, VecDeque};

use super::dag::{Dag, Description, NodeId, NodeKind, ScriptKind};
use super::Level;
use crate::eventlog::{
    ulog_name, Event, EventBody, ExitStatus, JobTerminated, PostScriptTerminated, PreSkip, Submit,
};

/// `Node::status_t`: the numbers appear in the node status file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    NotReady = 0,
    Ready = 1,
    PreRun = 2,
    Submitted = 3,
    PostRun = 4,
    Done = 5,
    Error = 6,
    Futile = 7,
}

impl Status {
    /// `status_t_names`, padded to 16 characters as HTCondor's table has them.
    pub fn padded_name(self) -> &'static str {
        match self {
            Status::NotReady => "STATUS_NOT_READY",
            Status::Ready => "STATUS_READY    ",
            Status::PreRun => "STATUS_PRERUN   ",
            Status::Submitted => "STATUS_SUBMITTED",
            Status::PostRun => "STATUS_POSTRUN  ",
            Status::Done => "STATUS_DONE     ",
            Status::Error => "STATUS_ERROR    ",
            Status::Futile => "STATUS_FUTILE   ",
        }
    }

    pub fn name(self) -> &'static str {
        self.padded_name().trim_end()
    }
}

/// `DagStatus` (published as `DAG_Status`, given to scripts as `$DAG_STATUS`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DagStatus {
    Ok = 0,
    Error = 1,
    NodeFailed = 2,
    Abort = 3,
    Rm = 4,
    Cycle = 5,
    Halted = 6,
}

impl DagStatus {
    pub fn name(self) -> &'static str {
        match self {
            DagStatus::Ok => "DAG_STATUS_OK",
            DagStatus::Error => "DAG_STATUS_ERROR",
            DagStatus::NodeFailed => "DAG_STATUS_NODE_FAILED",
            DagStatus::Abort => "DAG_STATUS_ABORT",
            DagStatus::Rm => "DAG_STATUS_RM",
            DagStatus::Cycle => "DAG_STATUS_CYCLE",
            DagStatus::Halted => "DAG_STATUS_HALTED",
        }
    }
}

/// condor_dagman's exit codes (`dagman_main.h`).
pub const EXIT_OKAY: i32 = 0;
pub const EXIT_ERROR: i32 = 1;
pub const EXIT_ABORT: i32 = 2;
pub const EXIT_RESTART: i32 = 3;

/// `$RETURN` when the submit failed, the job was aborted, or PRE failed and the job never ran.
pub const DAG_ERROR_CONDOR_SUBMIT_FAILED: i32 = -1001;
pub const DAG_ERROR_CONDOR_JOB_ABORTED: i32 = -1002;
pub const DAG_ERROR_JOB_SKIPPED: i32 = -1004;

/// The proc id of NOOP nodes' fake events (`Node::NOOP_NODE_PROCID`).
pub const NOOP_PROC: i32 = i32::MAX;

/// Per-proc event bits (node.h).
const EXEC_MASK: u8 = 0x1;
const ABORT_TERM_MASK: u8 = 0x2;
const IDLE_MASK: u8 = 0x4;
const HOLD_MASK: u8 = 0x8;

/// What the engine takes from the configuration and the command line.
#[derive(Clone, Debug)]
pub struct Options {
    /// `-MaxJobs`/`DAGMAN_MAX_JOBS_SUBMITTED` (0: no limit).
    pub max_jobs: i32,
    /// `-MaxIdle`/`DAGMAN_MAX_JOBS_IDLE` (0: no limit).
    pub max_idle: i32,
    pub max_pre: i32,
    pub max_post: i32,
    pub max_hold: i32,
    /// `DAGMAN_ALWAYS_RUN_POST`/`-AlwaysRunPost`.
    pub always_run_post: bool,
    pub max_submits_per_interval: i32,
    pub submit_depth_first: bool,
    pub retry_submit_first: bool,
    pub retry_node_first: bool,
    pub max_submit_attempts: i32,
    pub max_job_holds: i32,
    /// `-Priority`, added to every node's.
    pub priority: i32,
    /// `DAGMAN_USE_STRICT`.
    pub strict: u8,
    /// The DAGMan job's cluster (-1 when run by hand).
    pub dagman_id: i32,
    pub dagman_proc: i32,
    /// `DAGMAN_REMOVE_NODE_JOBS`.
    pub remove_node_jobs: bool,
    /// `DAGMAN_PUT_FAILED_JOBS_ON_HOLD`.
    pub put_failed_jobs_on_hold: bool,
    /// `-DryRun`: nodes are marked done without running.
    pub dry_run: bool,
    /// The node jobs' batch name and id (from the DAGMan job's ad).
    pub batch_name: String,
    pub batch_id: String,
    pub acct_group: String,
    pub acct_group_user: String,
    /// The nodes log, as every node job's `dagman_log`.
    pub nodes_log: String,
    /// `DAGMAN_HOLD_CLAIM_TIME`.
    pub claim_hold_time: i32,
    /// `DAGMAN_SUPPRESS_JOB_LOGS`.
    pub suppress_job_logs: bool,
    /// `-suppress_notification`/`DAGMAN_SUPPRESS_NOTIFICATION`.
    pub suppress_notification: bool,
    /// `DAGMAN_NODE_RECORD_INFO` includes `Retry`.
    pub record_retry: bool,
    /// `DAGMAN_PROHIBIT_MULTI_JOBS`.
    pub prohibit_multi_jobs: bool,
    /// `DAGMAN_PENDING_REPORT_INTERVAL`.
    pub pending_report_interval: i64,
    /// `DAGMAN_CHECK_QUEUE_INTERVAL`: with no event for this long, the queue is checked
    /// again for the submitted nodes' jobs (0: never).
    pub check_queue_interval: i64,
    /// The primary DAG file, as rescue files name it.
    pub primary_dag: String,
    /// The halt file (`<dag>.halt`).
    pub halt_file: String,
    /// `DAGMAN_MAX_RESCUE_NUM` (0: no rescue DAGs).
    pub max_rescue: i32,
    /// `DAGMAN_WRITE_PARTIAL_RESCUE`.
    pub partial_rescue: bool,
    /// `DAGMAN_RESET_RETRIES_UPON_RESCUE`.
    pub reset_retries_upon_rescue: bool,
    /// `DAGMAN_ABORT_ON_SCARY_SUBMIT`.
    pub abort_on_scary_submit: bool,
    /// The dagman.out verbosity (some lists are printed only from `Normal` up).
    pub verbosity: Level,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            max_jobs: 0,
            max_idle: 1000,
            max_pre: 20,
            max_post: 20,
            max_hold: 20,
            always_run_post: false,
            max_submits_per_interval: 100,
            submit_depth_first: false,
            retry_submit_first: true,
            retry_node_first: false,
            max_submit_attempts: 6,
            max_job_holds: 100,
            priority: 0,
            strict: 1,
            dagman_id: -1,
            dagman_proc: -1,
            remove_node_jobs: true,
            put_failed_jobs_on_hold: false,
            dry_run: false,
            batch_name: String::new(),
            batch_id: String::new(),
            acct_group: String::new(),
            acct_group_user: String::new(),
            nodes_log: String::new(),
            claim_hold_time: 20,
            suppress_job_logs: false,
            suppress_notification: false,
            record_retry: false,
            prohibit_multi_jobs: false,
            pending_report_interval: 600,
            check_queue_interval: 28800,
            primary_dag: String::new(),
            halt_file: String::new(),
            max_rescue: 100,
            partial_rescue: true,
            reset_retries_upon_rescue: true,
            abort_on_scary_submit: true,
            verbosity: Level::Verbose,
        }
    }
}

/// One node job to submit.
#[derive(Clone, Debug)]
pub struct SubmitNode {
    pub node: NodeId,
    pub name: String,
    /// The submit file, relative to `dir`.
    pub submit_file: String,
    /// An inline description's text, when the node has one.
    pub inline: Option<std::sync::Arc<str>>,
    /// The node's directory (relative to DAGMan's), `""` for DAGMan's own.
    pub dir: String,
    /// `(name, value, append)`: submit variables set before the file is read, or after it
    /// (`init_vars`).
    pub vars: Vec<(String, String, bool)>,
    /// A SUBDAG: its DAG file (its .condor.sub is made first).
    pub dag_file: Option<String>,
    /// The node's retry number (a SUBDAG's first run forces a fresh .condor.sub).
    pub retry: i32,
    pub priority: i32,
}

/// A submitted node job: its cluster and how many procs it has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Submitted {
    pub cluster: i32,
    pub procs: i32,
}

/// A script to start.
#[derive(Clone, Debug)]
pub struct ScriptRun {
    pub node: NodeId,
    pub node_name: String,
    pub kind: ScriptKind,
    /// The command line split on blanks, its macros replaced.
    pub argv: Vec<String>,
    pub dir: String,
    /// `SCRIPT DEBUG`: where its output goes.
    pub debug: Option<(String, super::dag::DebugStreams)>,
}

/// How a script or job ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    Code(i32),
    Signal(i32),
}

/// Everything the engine does to the world.
pub trait Host {
    /// A line for dagman.out.
    fn log(&mut self, level: Level, text: &str);
    /// Submits the nodes' jobs (a cluster each), in order; one result per node. A failure
    /// leaves nothing of that node in the queue.
    fn submit(&mut self, nodes: &[SubmitNode]) -> Vec<Result<Submitted, String>>;
    /// Starts a script; its exit comes back through [`Engine::script_exited`]. Returns its
    /// pid.
    fn start_script(&mut self, run: &ScriptRun) -> Result<u32, String>;
    /// Kills a running script (`Shutdown_Fast`).
    fn kill_script(&mut self, pid: u32);
    /// Appends an event to the nodes log (it comes back through [`Engine::process_event`]).
    fn write_event(&mut self, event: &Event) -> Result<(), String>;
    /// `condor_rm [cluster] -const DAGManJobId==<id> -reason <reason>`.
    fn remove_jobs(&mut self, cluster: Option<i32>, reason: &str);
    /// A line for the jobstate log (`time`: the event's, or now when `None`).
    fn jobstate(&mut self, time: Option<i64>, info: &str);
    /// The job tag of a node for the jobstate log (`+pegasus_site` or what `+job_tag_name`
    /// names in its submit file), `-` for none.
    fn job_tag(&mut self, node: &super::dag::Node) -> String;
    /// Writes a save-point file for a node about to start (`file` as given on its
    /// SAVE_POINT_FILE line).
    fn save_point(&mut self, node: &str, file: &str, contents: &str);
    /// The procs of this DAG's jobs in the queue, by cluster (`None` when the queue cannot
    /// be read).
    fn queued_jobs(&mut self) -> Option<HashMap<i32, Vec<i32>>>;
    /// The size of the default node log now (for `VerifyJobsInQueue`'s race check).
    fn node_log_size(&mut self) -> u64;
    /// Whether a job of this cluster has left the queue (it is in the history): the master
    /// logs a job's last event just after the commit that moved it, so a node whose job is
    /// gone from the queue but not yet ended in the log is racing that event.
    fn left_queue(&mut self, cluster: i32) -> bool;
    /// The PROVISIONER job's `ProvisionerState`.
    fn provisioner_state(&mut self, cluster: i32, proc: i32) -> Option<i64>;
    /// Writes a rescue DAG (the next number, or the last one again with `overwrite`).
    fn write_rescue(&mut self, contents: &str, overwrite: bool);
}

/// What happens to the process after a shutdown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shutdown {
    /// Exit with this code.
    Exit(i32),
    /// The FINAL node was started: keep running until it ends.
    FinalStarted,
}

/// The ready queue (`DagPriorityQ`): highest effective priority first; among equals,
/// prepended nodes (latest first), then appended nodes (first first).
#[derive(Default)]
struct ReadyQueue {
    heap: BinaryHeap<(i32, i64, Reverse<usize>, NodeId)>,
    generation: i64,
}

impl ReadyQueue {
    fn prepend(&mut self, node: NodeId, prio: i32) {
        self.generation += 1;
        self.heap.push((prio, self.generation, Reverse(node), node));
    }

    fn append(&mut self, node: NodeId, prio: i32) {
        self.generation += 1;
        self.heap
            .push((prio, -self.generation, Reverse(node), node));
    }

    fn pop(&mut self) -> Option<NodeId> {
        self.heap.pop().map(|e| e.3)
    }

    fn len(&self) -> usize {
        self.heap.len()
    }

    fn retain(&mut self, mut keep: impl FnMut(NodeId) -> bool) -> usize {
        let before = self.heap.len();
        self.heap.retain(|e| keep(e.3));
        before - self.heap.len()
    }

    fn contains(&self, node: NodeId) -> bool {
        self.heap.iter().any(|e| e.3 == node)
    }
}

/// A script waiting to run or running.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct QueuedScript {
    node: NodeId,
    /// When a DEFERred script may run again (0: any time).
    next_run: i64,
}

/// One kind of script's queue (`ScriptQ`): a limit on how many run, the ones waiting.
#[derive(Default)]
struct ScriptQueue {
    waiting: VecDeque<QueuedScript>,
    running: HashMap<u32, NodeId>,
    deferred_count: i64,
}

/// A node's state while the DAG runs.
#[derive(Clone, Debug)]
struct NodeState {
    status: Status,
    retries: i32,
    retry_max: i32,
    retval: i32,
    error_text: String,
    /// `CondorID` of the node's current job (cluster -1: none).
    cluster: i32,
    proc: i32,
    subproc: i32,
    /// Parents not yet done.
    waiting: usize,
    queued_procs: i32,
    submitted_procs: i32,
    num_submitted: i32,
    proc_events: Vec<u8>,
    procs_on_hold: i32,
    jobs_aborted: i32,
    exit_codes: BTreeMap<i32, i32>,
    successful: bool,
    counted_done: bool,
    /// `DONE` on the JOB line.
    pre_done: bool,
    submit_tries: i32,
    pre_script_done: bool,
    post_ret_job: i32,
    post_ret_script: i32,
    is_factory: bool,
    hold: bool,
    missing_jobs: bool,
    last_event_time: i64,
    jobstate_seq: i32,
    job_tag: Option<String>,
    effective_priority: i32,
}

/// The running DAG.
/// How many node jobs go into the queue in one transaction at most: the pool starts the first
/// ones while the next are submitted.
const SUBMIT_CHUNK: usize = 16;

pub struct Engine {
    pub dag: Dag,
    pub opts: Options,
    st: Vec<NodeState>,
    ready: ReadyQueue,
    pre_q: ScriptQueue,
    post_q: ScriptQueue,
    hold_q: ScriptQueue,
    /// Cluster -> node, and NOOP subproc -> node (`_condorIDHash`, `_noopIDHash`).
    by_cluster: HashMap<i32, NodeId>,
    by_noop: HashMap<i32, NodeId>,
    /// Nodes submitted, in order, whose submit events have not been seen.
    submit_q: VecDeque<NodeId>,
    pub dag_status: DagStatus,
    num_done: i32,
    num_failed: i32,
    num_futile: i32,
    num_submitted: i32,
    num_service_submitted: i32,
    pre_run: i32,
    post_run: i32,
    hold_run: i32,
    idle_procs: i32,
    total_jobs_submitted: i32,
    total_jobs_completed: i32,
    max_jobs_deferred: i64,
    max_idle_deferred: i64,
    cat_deferred: i64,
    /// SUBMITTED nodes per category.
    cat_running: HashMap<String, i32>,
    final_run: bool,
    halted: bool,
    aborted: bool,
    recovery: bool,
    provisioner_ready: bool,
    next_submit_time: i64,
    next_submit_delay: i64,
    next_fake_subproc: i32,
    /// Job procs that ended (for the sanity check of duplicate terminal events).
    ended_procs: std::collections::HashSet<(i32, i32, i32)>,
    /// Metrics: (simple, subdag) nodes that succeeded / failed.
    pub metrics: Metrics,
    /// The last event's time, for the pending-nodes report.
    pub last_event_time: i64,
    /// The last check of the queue found every submitted node's jobs (`_validatedState`).
    validated_state: bool,
    /// Node states changed since the status file was last written.
    pub status_outdated: bool,
    /// What the nodes' status was when the status table was last printed.
    last_printed: Option<[i32; 7]>,
    /// A rescue DAG was written (a second shutdown writes over it).
    wrote_rescue: bool,
    /// The time of the call being handled.
    now: i64,
    /// The exit code, once the DAG is to exit.
    exit: Option<i32>,
    /// A shutdown is being carried out (`inShutdownRescue`).
    in_shutdown: bool,
    /// The last jobstate sequence number given out.
    jobstate_next_seq: i32,
}

/// `DagmanMetrics`' node counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Metrics {
    pub simple_nodes: i32,
    pub subdag_nodes: i32,
    pub simple_succeeded: i32,
    pub simple_failed: i32,
    pub subdag_succeeded: i32,
    pub subdag_failed: i32,
}

/// HTCondor's `MAX_SIGNAL`: a negative `retval` down to this is a signal.
const MAX_SIGNAL: i32 = 64;

fn exit_of(e: &ExitStatus) -> Exit {
    match *e {
        ExitStatus::Code(c) => Exit::Code(c),
        ExitStatus::Signal(s) => Exit::Signal(s),
    }
}

/// `DaemonCore::GetExceptionString`.
pub fn exception_string(signal: i32) -> String {
    let name = nix::sys::signal::Signal::try_from(signal)
        .map(|s| s.as_str().to_owned())
        .unwrap_or_else(|_| "UNKNOWN".into());
    format!("signal {signal} ({name})")
}

impl Engine {
    /// The DAG, ready to bootstrap: nodes marked DONE in the DAG file are done, every other
    /// node (but FINAL) is ready once its parents are.
    pub fn new(dag: Dag, opts: Options) -> Engine {
        let mut metrics = Metrics::default();
        let st = dag
            .nodes
            .iter()
            .map(|n| {
                if n.kind != NodeKind::Service {
                    if n.dag_file.is_some() {
                        metrics.subdag_nodes += 1;
                    } else {
                        metrics.simple_nodes += 1;
                    }
                }
                let status = if n.kind == NodeKind::Final {
                    Status::NotReady
                } else if n.pre_done || n.done_line {
                    Status::Done
                } else {
                    Status::Ready
                };
                NodeState {
                    status,
                    retries: 0,
                    retry_max: n.retry_max,
                    retval: -1,
                    error_text: String::new(),
                    cluster: -1,
                    proc: -1,
                    subproc: -1,
                    waiting: n.parents.len(),
                    queued_procs: 0,
                    submitted_procs: 0,
                    num_submitted: 0,
                    proc_events: Vec::new(),
                    procs_on_hold: 0,
                    jobs_aborted: 0,
                    exit_codes: BTreeMap::new(),
                    successful: true,
                    counted_done: false,
                    pre_done: n.pre_done,
                    submit_tries: 0,
                    pre_script_done: false,
                    post_ret_job: -1,
                    post_ret_script: -1,
                    is_factory: false,
                    hold: false,
                    missing_jobs: false,
                    last_event_time: 0,
                    jobstate_seq: 0,
                    job_tag: None,
                    effective_priority: n.priority + opts.priority,
                }
            })
            .collect();
        Engine {
            dag,
            opts,
            st,
            ready: ReadyQueue::default(),
            pre_q: ScriptQueue::default(),
            post_q: ScriptQueue::default(),
            hold_q: ScriptQueue::default(),
            by_cluster: HashMap::new(),
            by_noop: HashMap::new(),
            submit_q: VecDeque::new(),
            dag_status: DagStatus::Ok,
            num_done: 0,
            num_failed: 0,
            num_futile: 0,
            num_submitted: 0,
            num_service_submitted: 0,
            pre_run: 0,
            post_run: 0,
            hold_run: 0,
            idle_procs: 0,
            total_jobs_submitted: 0,
            total_jobs_completed: 0,
            max_jobs_deferred: 0,
            max_idle_deferred: 0,
            cat_deferred: 0,
            cat_running: HashMap::new(),
            final_run: false,
            halted: false,
            aborted: false,
            recovery: false,
            provisioner_ready: false,
            next_submit_time: 0,
            next_submit_delay: 1,
            next_fake_subproc: 0,
            ended_procs: std::collections::HashSet::new(),
            metrics,
            last_event_time: 0,
            validated_state: false,
            status_outdated: true,
            last_printed: None,
            wrote_rescue: false,
            now: 0,
            exit: None,
            in_shutdown: false,
            jobstate_next_seq: 0,
        }
    }

    // ----- what the files and the job ad report -----

    /// The time of the call being handled.
    pub fn now(&self) -> i64 {
        self.now
    }

    pub fn status(&self, id: NodeId) -> Status {
        self.st[id].status
    }

    pub fn retries(&self, id: NodeId) -> i32 {
        self.st[id].retries
    }

    pub fn retry_max(&self, id: NodeId) -> i32 {
        self.st[id].retry_max
    }

    pub fn retval(&self, id: NodeId) -> i32 {
        self.st[id].retval
    }

    pub fn error_text(&self, id: NodeId) -> &str {
        &self.st[id].error_text
    }

    pub fn is_pre_done(&self, id: NodeId) -> bool {
        self.st[id].pre_done
    }

    /// Job procs of the node in the queue, and held.
    pub fn procs_queued(&self, id: NodeId) -> (i32, i32) {
        (self.st[id].queued_procs, self.st[id].procs_on_hold)
    }

    /// The node's proc 0 is idle (for the status file's `idle`/`not_idle`).
    pub fn proc0_idle(&self, id: NodeId) -> bool {
        let s = &self.st[id];
        s.proc_events.first().is_some_and(|e| e & IDLE_MASK != 0)
    }

    /// The node can be submitted: ready, its parents done (`Node::CanSubmit`).
    pub fn can_submit(&self, id: NodeId) -> bool {
        self.st[id].status == Status::Ready && self.st[id].waiting == 0
    }

    /// The DAG's exit code once it has decided to exit.
    pub fn exit_code(&self) -> Option<i32> {
        self.exit
    }

    pub fn num_nodes(&self, include_final: bool) -> i32 {
        self.dag.num_nodes(include_final) as i32
    }

    pub fn num_done(&self, include_final: bool) -> i32 {
        let final_done = self
            .dag
            .final_node
            .is_some_and(|f| self.st[f].status == Status::Done);
        self.num_done - i32::from(!include_final && final_done)
    }

    pub fn num_failed(&self) -> i32 {
        self.num_failed
    }

    pub fn num_futile(&self) -> i32 {
        self.num_futile
    }

    pub fn num_submitted(&self) -> i32 {
        self.num_submitted
    }

    pub fn pre_run(&self) -> i32 {
        self.pre_run
    }

    pub fn post_run(&self) -> i32 {
        self.post_run
    }

    pub fn hold_run(&self) -> i32 {
        self.hold_run
    }

    pub fn total_jobs_submitted(&self) -> i32 {
        self.total_jobs_submitted
    }

    pub fn total_jobs_completed(&self) -> i32 {
        self.total_jobs_completed
    }

    pub fn in_recovery(&self) -> bool {
        self.recovery
    }

    pub fn is_halted(&self) -> bool {
        self.halted
    }

    pub fn is_aborted(&self) -> bool {
        self.aborted
    }

    pub fn final_run(&self) -> bool {
        self.final_run
    }

    /// Ready nodes, SERVICE nodes aside (`NumNodesReady`).
    pub fn num_ready(&self) -> i32 {
        let services = self
            .dag
            .services
            .iter()
            .filter(|&&s| self.st[s].status == Status::Ready && self.ready.contains(s))
            .count();
        (self.ready.len() - services) as i32
    }

    pub fn num_unready(&self, include_final: bool) -> i32 {
        self.num_nodes(include_final)
            - (self.num_done(include_final)
                + self.pre_run
                + self.num_submitted
                + self.post_run
                + self.num_ready()
                + self.num_failed
                + self.num_futile)
    }

    pub fn idle_procs(&self) -> i32 {
        self.idle_procs
    }

    pub fn held_procs(&self) -> i32 {
        self.st.iter().map(|s| s.procs_on_hold).sum()
    }

    /// `NumJobProcStates`: (held, idle, running, terminated) job procs.
    pub fn job_proc_states(&self) -> (i32, i32, i32, i32) {
        let (mut held, mut idle, mut run, mut term) = (0, 0, 0, 0);
        for s in &self.st {
            for &e in &s.proc_events {
                if e & HOLD_MASK != 0 {
                    held += 1;
                } else if e & IDLE_MASK != 0 {
                    idle += 1;
                } else if e & ABORT_TERM_MASK != 0 {
                    term += 1;
                } else {
                    run += 1;
                }
            }
        }
        (held, idle, run, term)
    }

    /// PRE and POST scripts running (`NumScriptsRunning`).
    pub fn scripts_running(&self) -> i32 {
        (self.pre_q.running.len() + self.post_q.running.len()) as i32
    }

    /// `FinishedRunning`.
    pub fn finished_running(&self, include_final: bool) -> bool {
        if include_final && self.dag.final_node.is_some() && !self.final_run {
            false
        } else if self.halted {
            self.num_submitted == 0 && self.scripts_running() == 0
        } else {
            self.num_submitted == 0 && self.num_ready() == 0 && self.pre_run + self.post_run == 0
        }
    }

    fn final_done(&self) -> bool {
        self.dag
            .final_node
            .is_some_and(|f| self.st[f].status == Status::Done)
    }

    /// `DoneSuccess`: every node done, or a successful FINAL node, or an ABORT-DAG-ON with
    /// RETURN 0.
    pub fn done_success(&self, include_final: bool) -> bool {
        self.finished_running(include_final)
            && (self.num_done(include_final) == self.num_nodes(include_final)
                || (include_final && self.final_done())
                || (self.aborted && self.dag_status == DagStatus::Ok))
    }

    /// `DoneFailed`: failed nodes or a halt, unless the FINAL node (or an ABORT-DAG-ON with
    /// RETURN 0) says otherwise.
    pub fn done_failed(&self, include_final: bool) -> bool {
        self.finished_running(include_final)
            && !(include_final && self.final_done())
            && !(self.aborted && self.dag_status == DagStatus::Ok)
            && (self.halted || self.num_failed > 0)
    }

    /// `DoneCycle`.
    pub fn done_cycle(&self, include_final: bool) -> bool {
        self.finished_running(include_final)
            && !self.done_success(include_final)
            && self.num_failed == 0
            && !self.halted
            && !self.aborted
    }

    /// `FinalNodeFinished`.
    fn final_node_finished(&self) -> bool {
        self.final_run
            && self
                .dag
                .final_node
                .is_some_and(|f| matches!(self.st[f].status, Status::Done | Status::Error))
    }

    fn say(&self, host: &mut dyn Host, level: Level, text: impl AsRef<str>) {
        host.log(level, text.as_ref());
    }

    /// `check_warning_strictness(level)`: a fatal warning shuts the DAG down.
    fn strict(&mut self, level: u8, host: &mut dyn Host) -> bool {
        if self.opts.strict >= level {
            self.say(
                host,
                Level::Quiet,
                "ERROR: Warning is fatal error because of DAGMAN_USE_STRICT setting",
            );
            self.shutdown_rescue(EXIT_ERROR, DagStatus::Error, true, host);
            return true;
        }
        false
    }

    fn name(&self, id: NodeId) -> &str {
        &self.dag.nodes[id].name
    }

    fn is_service(&self, id: NodeId) -> bool {
        self.dag.nodes[id].kind == NodeKind::Service
    }

    fn finished_metrics(&mut self, id: NodeId, success: bool) {
        let subdag = self.dag.nodes[id].dag_file.is_some();
        let m = &mut self.metrics;
        match (subdag, success) {
            (false, true) => m.simple_succeeded += 1,
            (false, false) => m.simple_failed += 1,
            (true, true) => m.subdag_succeeded += 1,
            (true, false) => m.subdag_failed += 1,
        }
    }

    fn node_failed_counts(&mut self, id: NodeId) {
        if !self.is_service(id) {
            self.num_failed += 1;
        }
        self.finished_metrics(id, false);
        if self.dag_status == DagStatus::Ok {
            self.dag_status = DagStatus::NodeFailed;
        }
    }

    // ----- start -----

    /// `Dag::Bootstrap`, up to reading the nodes log: nodes marked DONE notify their
    /// children. In recovery the caller then feeds every event of the nodes log to
    /// [`Engine::process_event`] with `recovery` set, and calls [`Engine::start`].
    pub fn bootstrap(&mut self, recovery: bool, now: i64, host: &mut dyn Host) {
        self.now = now;
        for id in 0..self.dag.nodes.len() {
            if self.st[id].status == Status::Done && !self.is_service(id) {
                self.terminate_node(id, false, true, host);
            }
        }
        let done = self.num_done(true);
        self.say(
            host,
            Level::Verbose,
            format!("Number of pre-completed nodes: {done}"),
        );
        for id in 0..self.dag.nodes.len() {
            let s = &self.st[id];
            if s.waiting > 0 && s.status == Status::Done && !self.dag.nodes[id].children.is_empty()
            {
                let text = format!(
                    "Warning: Node {} was marked as done even though parent nodes aren't complete. Child nodes may run out of order.",
                    self.name(id)
                );
                self.say(host, Level::Verbose, text);
            }
        }
        self.recovery = recovery;
        if recovery {
            self.say(
                host,
                Level::Normal,
                "Running in RECOVERY mode... >>>>>>>>>>>>>>>>>>>>>>>>>>>>>>",
            );
            host.jobstate(None, "INTERNAL *** RECOVERY_STARTED ***");
        }
    }

    /// The rest of `Dag::Bootstrap`: after recovery, POST scripts of nodes whose jobs had
    /// finished run again and SUBMITTED nodes are checked against the queue; then SERVICE
    /// nodes start, and the PROVISIONER or every node that can be submitted.
    pub fn start(&mut self, now: i64, host: &mut dyn Host) {
        self.now = now;
        if self.recovery {
            let log_size = host.node_log_size();
            let mut submitted = 0;
            for id in 0..self.dag.nodes.len() {
                match self.st[id].status {
                    Status::Submitted => submitted += 1,
                    Status::PostRun => {
                        let run = self.opts.always_run_post;
                        self.run_post_script(id, run, 0, false, host);
                    }
                    _ => {}
                }
            }
            host.jobstate(None, "INTERNAL *** RECOVERY_FINISHED ***");
            self.say(
                host,
                Level::Normal,
                "...done with RECOVERY mode <<<<<<<<<<<<<<<<<<<<<<<<<<<<<<",
            );
            if submitted > 0 {
                self.say(
                    host,
                    Level::Normal,
                    format!(
                        "{submitted} nodes claim to have jobs submitted to queue. Verifying..."
                    ),
                );
                self.verify_jobs_in_queue(log_size, host);
                if self.exit.is_some() {
                    return;
                }
            }
            self.print_status(host);
            self.recovery = false;
        }
        for i in 0..self.dag.services.len() {
            let id = self.dag.services[i];
            if self.st[id].status == Status::Ready {
                let text = format!("Starting service node {}...", self.name(id));
                self.say(host, Level::Quiet, text);
                self.start_node(id, false, host);
            }
        }
        if let Some(p) = self.dag.provisioner {
            if self.st[p].status == Status::Ready {
                self.say(host, Level::Quiet, "Starting provisioner node...");
                self.start_node(p, false, host);
            }
        } else {
            for id in 0..self.dag.nodes.len() {
                if !self.is_service(id) && self.can_submit(id) {
                    self.start_node(id, false, host);
                }
            }
        }
    }

    /// `VerifyJobsInQueue`: every SUBMITTED node's jobs must be in the queue (or have ended).
    /// A node found wanting while its events may still be on their way (the node log grew
    /// since `before_size`, or its job has just left the queue) is only marked the first time.
    pub fn verify_jobs_in_queue(&mut self, before_size: u64, host: &mut dyn Host) {
        self.say(
            host,
            Level::Verbose,
            "Querying local schedd for associated jobs in queue",
        );
        let Some(queued) = host.queued_jobs() else {
            self.say(
                host,
                Level::Normal,
                "ERROR(-1): Failed to fetch job ads from local Schedd: the job queue could not be read",
            );
            return;
        };
        let log_grew = host.node_log_size() > before_size;
        let mut abort = false;
        let mut valid = true;
        for id in 0..self.dag.nodes.len() {
            if self.st[id].status != Status::Submitted {
                continue;
            }
            let cluster = self.st[id].cluster;
            let ok = match queued.get(&cluster) {
                None => false,
                Some(procs) => {
                    let s = &self.st[id];
                    !s.proc_events.is_empty()
                        && s.proc_events.iter().enumerate().all(|(p, &e)| {
                            let in_queue = procs.contains(&(p as i32));
                            in_queue != (e & ABORT_TERM_MASK != 0)
                        })
                }
            };
            valid &= ok;
            if ok {
                self.st[id].missing_jobs = false;
            } else if !self.st[id].missing_jobs && (log_grew || host.left_queue(cluster)) {
                self.st[id].missing_jobs = true;
            } else {
                abort = true;
                let text = format!(
                    "ERROR: DAGMan lost track of node {} (ClusterId={cluster}). Please resubmit DAG from produced rescue file.",
                    self.name(id)
                );
                self.say(host, Level::Normal, text);
            }
        }
        self.validated_state = valid;
        if abort {
            self.shutdown_rescue(EXIT_ERROR, DagStatus::Error, true, host);
        } else {
            self.say(host, Level::Verbose, "All pending job states validated");
        }
    }

    /// `Dag::StartNode`: PRE script first, else into the ready queue.
    fn start_node(&mut self, id: NodeId, is_retry: bool, host: &mut dyn Host) {
        if !is_retry {
            self.write_save_point(id, host);
        }
        if self.dag.nodes[id].pre.is_some() && !self.st[id].pre_script_done {
            self.st[id].status = Status::PreRun;
            self.pre_run += 1;
            self.run_script(ScriptKind::Pre, id, host);
            return;
        }
        self.enqueue(
            id,
            is_retry && self.opts.retry_node_first || self.opts.submit_depth_first,
        );
    }

    fn enqueue(&mut self, id: NodeId, prepend: bool) {
        let prio = self.st[id].effective_priority;
        if prepend {
            self.ready.prepend(id, prio);
        } else {
            self.ready.append(id, prio);
        }
    }

    /// `StartFinalNode`: the other ready nodes are put back, and FINAL starts.
    pub fn start_final_node(&mut self, host: &mut dyn Host) -> bool {
        let Some(f) = self.dag.final_node else {
            return false;
        };
        if self.st[f].status != Status::NotReady {
            return false;
        }
        self.say(host, Level::Quiet, "Starting final node...");
        let mut removed = Vec::new();
        self.ready.retain(|n| {
            if n == f {
                true
            } else {
                removed.push(n);
                false
            }
        });
        for n in removed {
            self.st[n].status = Status::NotReady;
        }
        self.st[f].status = Status::Ready;
        self.start_node(f, false, host);
        self.final_run = true;
        true
    }

    /// A save point is written when the node first starts.
    fn write_save_point(&mut self, id: NodeId, host: &mut dyn Host) {
        let Some(file) = self.dag.nodes[id].save_file.clone() else {
            return;
        };
        let header = format!("# Save file written at Start Node {}\n", self.name(id));
        let text = super::files::rescue_text(self, &header, true, true, false);
        host.save_point(&self.dag.nodes[id].name.clone(), &file, &text);
    }
}

// ----- scripts -----

impl Engine {
    fn queue_of(&mut self, kind: ScriptKind) -> &mut ScriptQueue {
        match kind {
            ScriptKind::Pre => &mut self.pre_q,
            ScriptKind::Post => &mut self.post_q,
            ScriptKind::Hold => &mut self.hold_q,
        }
    }

    fn script_limit(&self, kind: ScriptKind) -> i32 {
        match kind {
            ScriptKind::Pre => self.opts.max_pre,
            ScriptKind::Post => self.opts.max_post,
            ScriptKind::Hold => self.opts.max_hold,
        }
    }

    /// `ScriptQ::Run`: runs the node's script now, or queues it (halted DAG, a limit).
    fn run_script(&mut self, kind: ScriptKind, id: NodeId, host: &mut dyn Host) -> bool {
        self.run_queued(
            kind,
            QueuedScript {
                node: id,
                next_run: 0,
            },
            host,
        )
    }

    fn run_queued(&mut self, kind: ScriptKind, q: QueuedScript, host: &mut dyn Host) -> bool {
        let id = q.node;
        let prefix = kind.name();
        let mut defer = false;
        if self.halted && kind == ScriptKind::Pre && self.dag.nodes[id].kind != NodeKind::Final {
            let text = format!(
                "Deferring {prefix} script of node {} because DAG is halted",
                self.name(id)
            );
            self.say(host, Level::Debug1, text);
            defer = true;
        }
        let max = self.script_limit(kind);
        if max != 0 && self.queue_of(kind).running.len() as i32 >= max {
            let text = format!(
                "Max {prefix} scripts ({max}) already running; deferring {prefix} script of node {}",
                self.name(id)
            );
            self.say(host, Level::Debug1, text);
            defer = true;
        }
        if defer {
            let q_ = self.queue_of(kind);
            q_.deferred_count += 1;
            q_.waiting.push_back(q);
            return false;
        }
        let text = format!("Running {prefix} script of Node {}...", self.name(id));
        self.say(host, Level::Normal, text);
        self.jobstate_script_started(id, kind, host);
        let run = self.script_run(kind, id, host);
        match host.start_script(&run) {
            Ok(pid) => {
                self.queue_of(kind).running.insert(pid, id);
                let cmd = self.dag.nodes[id].script(kind).map(|s| s.cmd.clone());
                self.say(
                    host,
                    Level::Debug1,
                    format!("\tspawned pid {pid}: {}", cmd.unwrap_or_default()),
                );
                true
            }
            Err(_) => {
                let text = format!(
                    "Error: Failed to execute {prefix} for Node {}",
                    self.name(id)
                );
                self.say(host, Level::Normal, text);
                self.reap_script(kind, id, Exit::Code(1), host);
                false
            }
        }
    }

    /// `Script::BackgroundRun`'s command line: blank-separated words, DAGMan's `$` macros
    /// replaced (case-insensitively, whole words only).
    fn script_run(&mut self, kind: ScriptKind, id: NodeId, host: &mut dyn Host) -> ScriptRun {
        let node = &self.dag.nodes[id];
        let script = node.script(kind).expect("a node's script to run").clone();
        let s = &self.st[id];
        let mut exit_codes = String::new();
        let mut exit_counts = String::new();
        for (code, count) in &s.exit_codes {
            if !exit_codes.is_empty() {
                exit_codes.push(',');
                exit_counts.push(',');
            }
            exit_codes.push_str(&code.to_string());
            exit_counts.push_str(&format!("{code}:{count}"));
        }
        let mut argv = Vec::new();
        let mut warnings = Vec::new();
        for token in script.cmd.split([' ', '\t']).filter(|t| !t.is_empty()) {
            let upper = token.to_ascii_uppercase();
            let post_only = |value: String, warnings: &mut Vec<String>| {
                if kind == ScriptKind::Pre {
                    warnings.push(format!(
                        "Warning: {token} macro should not be used as a PRE script argument!"
                    ));
                    token.to_owned()
                } else {
                    value
                }
            };
            let arg = match upper.as_str() {
                "$NODE" | "$JOB" => node.name.clone(),
                "$RETRY" => s.retries.to_string(),
                "$MAX_RETRIES" => s.retry_max.to_string(),
                "$DAG_STATUS" => (self.dag_status as i32).to_string(),
                "$FAILED_COUNT" => self.num_failed.to_string(),
                "$FUTILE_COUNT" => self.num_futile.to_string(),
                "$DONE_COUNT" => self.num_done(true).to_string(),
                "$QUEUED_COUNT" => self.num_submitted.to_string(),
                "$NODE_COUNT" => self.num_nodes(true).to_string(),
                "$DAGID" => self.opts.dagman_id.to_string(),
                "$JOBID" => post_only(format!("{}.{}", s.cluster, s.proc), &mut warnings),
                "$CLUSTERID" => post_only(s.cluster.to_string(), &mut warnings),
                "$JOB_COUNT" => post_only(s.num_submitted.to_string(), &mut warnings),
                "$SUCCESS" => post_only(
                    if s.successful { "True" } else { "False" }.to_owned(),
                    &mut warnings,
                ),
                "$RETURN" => post_only(s.post_ret_job.to_string(), &mut warnings),
                "$EXIT_CODES" => post_only(exit_codes.clone(), &mut warnings),
                "$EXIT_CODE_COUNTS" => post_only(exit_counts.clone(), &mut warnings),
                "$PRE_SCRIPT_RETURN" => post_only(s.post_ret_script.to_string(), &mut warnings),
                "$JOB_ABORT_COUNT" => post_only(s.jobs_aborted.to_string(), &mut warnings),
                _ if token.starts_with('$') => {
                    warnings.push(format!(
                        "Warning: unrecognized macro {token} in node {} {} script arguments",
                        node.name,
                        kind.name()
                    ));
                    token.to_owned()
                }
                _ => token.to_owned(),
            };
            argv.push(arg);
        }
        let run = ScriptRun {
            node: id,
            node_name: node.name.clone(),
            kind,
            argv,
            dir: node.dir.clone(),
            debug: script.debug.clone(),
        };
        for w in warnings {
            self.say(host, Level::Quiet, w);
            if self.strict(1, host) {
                break;
            }
        }
        run
    }

    /// `ScriptQ::RunWaitingScripts` for every queue: scripts whose DEFER time has passed or
    /// that a limit held back.
    pub fn run_waiting_scripts(&mut self, now: i64, host: &mut dyn Host) {
        self.now = now;
        for kind in [ScriptKind::Pre, ScriptKind::Post, ScriptKind::Hold] {
            self.run_waiting(kind, false, host);
        }
    }

    fn run_waiting(&mut self, kind: ScriptKind, just_one: bool, host: &mut dyn Host) -> i32 {
        let mut started = 0;
        let total = self.queue_of(kind).waiting.len();
        for _ in 0..total {
            if self.exit.is_some() {
                break;
            }
            let Some(q) = self.queue_of(kind).waiting.pop_front() else {
                break;
            };
            if q.next_run != 0 && q.next_run > self.now {
                self.queue_of(kind).waiting.push_back(q);
            } else if self.run_queued(kind, q, host) {
                started += 1;
                if just_one {
                    break;
                }
            } else {
                break;
            }
        }
        if started > 0 {
            self.say(
                host,
                Level::Debug1,
                format!("Started {started} deferred scripts"),
            );
        }
        started
    }

    /// The earliest time a DEFERred script may run again, if any waits for one.
    pub fn next_deferred_script(&self) -> Option<i64> {
        [&self.pre_q, &self.post_q, &self.hold_q]
            .iter()
            .flat_map(|q| q.waiting.iter())
            .map(|q| q.next_run)
            .filter(|&t| t != 0)
            .min()
    }

    /// The pids of the running scripts.
    pub fn running_scripts(&self) -> Vec<u32> {
        [&self.pre_q, &self.post_q, &self.hold_q]
            .iter()
            .flat_map(|q| q.running.keys().copied())
            .collect()
    }

    /// `ScriptQ::ScriptReaper`: a script ended. A DEFER status queues it again for later.
    pub fn script_exited(&mut self, pid: u32, exit: Exit, now: i64, host: &mut dyn Host) {
        self.now = now;
        if self.exit.is_some() {
            return;
        }
        let Some((kind, id)) = [ScriptKind::Pre, ScriptKind::Post, ScriptKind::Hold]
            .into_iter()
            .find_map(|k| self.queue_of(k).running.remove(&pid).map(|id| (k, id)))
        else {
            return;
        };
        let defer = self.dag.nodes[id].script(kind).and_then(|s| s.defer);
        match (defer, exit) {
            (Some((status, time)), Exit::Code(c)) if c == status => {
                let q = self.queue_of(kind);
                q.deferred_count += 1;
                q.waiting.push_back(QueuedScript {
                    node: id,
                    next_run: now + time,
                });
                let text = format!(
                    "Deferring {} script of node {} for {time} seconds (exit status was {status})...",
                    kind.name(),
                    self.name(id)
                );
                self.say(host, Level::Normal, text);
            }
            _ => {
                if kind == ScriptKind::Pre {
                    self.st[id].pre_script_done = true;
                }
                self.reap_script(kind, id, exit, host);
            }
        }
        if self.exit.is_none() {
            self.run_waiting(kind, true, host);
        }
    }

    fn reap_script(&mut self, kind: ScriptKind, id: NodeId, exit: Exit, host: &mut dyn Host) {
        match kind {
            ScriptKind::Pre => self.pre_script_reaper(id, exit, host),
            ScriptKind::Post => self.post_script_reaper(id, exit, host),
            ScriptKind::Hold => self.hold_run -= 1,
        }
    }

    /// `Dag::PreScriptReaper`.
    fn pre_script_reaper(&mut self, id: NodeId, exit: Exit, host: &mut dyn Host) {
        self.pre_run -= 1;
        let name = self.name(id).to_owned();
        let failed = match exit {
            Exit::Signal(sig) => {
                let what = exception_string(sig);
                self.say(
                    host,
                    Level::Quiet,
                    format!("PRE Script of node {name} died on {what}"),
                );
                self.st[id].error_text = format!("PRE Script died on {what}");
                self.st[id].retval = -sig;
                true
            }
            Exit::Code(c) if c != 0 => {
                self.say(
                    host,
                    Level::Quiet,
                    format!("PRE Script of Node {name} failed with status {c}"),
                );
                self.st[id].error_text = format!("PRE Script failed with status {c}");
                self.st[id].retval = c;
                true
            }
            Exit::Code(_) => {
                self.st[id].post_ret_script = 0;
                self.st[id].retval = 0;
                false
            }
        };
        self.jobstate_script_result(id, ScriptKind::Pre, host);
        if failed {
            let retval = self.st[id].retval;
            if self.dag.nodes[id].pre_skip == Some(retval) {
                self.say(
                    host,
                    Level::Normal,
                    format!(
                        "PRE_SKIP return value {retval} indicates we are done (successfully) with node {name}"
                    ),
                );
                self.next_fake_subproc += 1;
                let (cluster, proc, subproc) = (0, NOOP_PROC, self.next_fake_subproc);
                self.set_condor_id(id, cluster, proc, subproc, host);
                let mut event = Event::new(
                    cluster,
                    proc,
                    PreSkip {
                        log_notes: format!("DAG Node: {name}"),
                    },
                );
                event.subproc = subproc;
                event = event.at(chrono::DateTime::from_timestamp(self.now, 0).unwrap_or_default());
                if host.write_event(&event).is_err() {
                    self.say(
                        host,
                        Level::Normal,
                        format!("Failed to write PRE_SKIP event for node {name}"),
                    );
                    self.shutdown_rescue(EXIT_ERROR, DagStatus::Error, true, host);
                    return;
                }
                // Counted again until the event is read back.
                self.pre_run += 1;
                self.st[id].pre_script_done = true;
                self.st[id].retval = 0;
            } else if self.opts.always_run_post && self.dag.nodes[id].post.is_some() {
                self.st[id].post_ret_script = retval;
                self.st[id].post_ret_job = DAG_ERROR_JOB_SKIPPED;
                self.st[id].successful = false;
                let run = self.opts.always_run_post;
                self.run_post_script(id, run, retval, true, host);
            } else if self.do_retry(id) {
                self.st[id].status = Status::Error;
                self.restart_node(id, false, host);
            } else {
                self.st[id].successful = false;
                self.st[id].status = Status::Error;
                if !self.is_service(id) {
                    self.num_futile += self.set_descendants_futile(id);
                }
                self.node_failed_counts(id);
                if self.st[id].retry_max > 0 {
                    let r = self.st[id].retries;
                    self.st[id]
                        .error_text
                        .push_str(&format!(" (after {r} node retries)"));
                }
            }
        } else {
            self.say(
                host,
                Level::Normal,
                format!("PRE Script of node {name} completed successfully."),
            );
            self.st[id].retval = 0;
            self.st[id].status = Status::Ready;
            self.enqueue(id, self.opts.submit_depth_first);
        }
        self.check_for_dag_abort(id, "PRE script", host);
    }

    /// `Dag::RunPostScript`: the only way a POST script runs.
    fn run_post_script(
        &mut self,
        id: NodeId,
        ignore_status: bool,
        status: i32,
        increment: bool,
        host: &mut dyn Host,
    ) -> bool {
        if (!ignore_status && status != 0) || self.dag.nodes[id].post.is_none() {
            return false;
        }
        self.st[id].status = Status::PostRun;
        if increment {
            self.post_run += 1;
        }
        self.run_script(ScriptKind::Post, id, host);
        true
    }

    /// `Dag::PostScriptReaper`: the POST script's exit goes to the nodes log, and is acted on
    /// when read back.
    fn post_script_reaper(&mut self, id: NodeId, exit: Exit, host: &mut dyn Host) {
        let name = self.name(id).to_owned();
        let exit = match exit {
            Exit::Signal(s) => {
                self.say(
                    host,
                    Level::Quiet,
                    format!("POST script died on signal {s}"),
                );
                ExitStatus::Signal(s)
            }
            Exit::Code(c) => ExitStatus::Code(c),
        };
        let s = &self.st[id];
        let noop = self.dag.nodes[id].noop;
        let (cluster, proc, subproc) = (
            s.cluster,
            if noop { s.proc } else { 0 },
            if noop { s.subproc } else { 0 },
        );
        self.say(
            host,
            Level::Quiet,
            format!(
                "Initializing user log writer for {}, ({cluster}.{proc}.{subproc})",
                self.opts.nodes_log
            ),
        );
        let mut event = Event::new(
            cluster,
            proc,
            PostScriptTerminated {
                exit,
                dag_node_name: Some(name),
            },
        );
        event.subproc = subproc;
        event = event.at(chrono::DateTime::from_timestamp(self.now, 0).unwrap_or_default());
        let written = (0..3).any(|_| host.write_event(&event).is_ok());
        if !written {
            self.say(
                host,
                Level::Quiet,
                "Unable to log ULOG_POST_SCRIPT_TERMINATED event",
            );
            self.shutdown_rescue(EXIT_ERROR, DagStatus::Error, true, host);
        }
    }

    /// `Dag::RunHoldScript`.
    fn run_hold_script(&mut self, id: NodeId, host: &mut dyn Host) {
        if self.dag.nodes[id].hold.is_some() {
            self.hold_run += 1;
            self.run_script(ScriptKind::Hold, id, host);
        }
    }
}

// ----- submitting -----

/// The ULOG events DAGMan wants in the nodes log (`getEventMask`).
pub const NODES_MASK: &str = "0,1,2,4,5,7,8,9,10,11,12,13,16,17,24,27,35,36";

impl Engine {
    /// `init_vars`: what a node's job is given besides its submit description.
    fn init_vars(&self, id: NodeId) -> Vec<(String, String, bool)> {
        let node = &self.dag.nodes[id];
        let s = &self.st[id];
        let mut parents = String::new();
        for &p in &node.parents {
            if parents.len() >= 2000 {
                break;
            }
            if !parents.is_empty() {
                parents.push(',');
            }
            parents.push_str(&self.dag.nodes[p].name);
        }
        let mut vars: Vec<(String, String, bool)> = Vec::new();
        let mut push = |k: &str, v: String, append: bool| vars.push((k.to_owned(), v, append));
        push("JOB", node.name.clone(), false);
        push("RETRY", s.retries.to_string(), false);
        push("DAG_STATUS", (self.dag_status as i32).to_string(), false);
        push("FAILED_COUNT", self.num_failed.to_string(), false);
        push("DAG_PARENT_NAMES", parents, false);
        push(
            "MY.DAGParentNodeNames",
            "\"$(DAG_PARENT_NAMES)\"".into(),
            false,
        );
        // A sub-DAG keeps the batch name its own .condor.sub sets unless the DAG has one.
        let batch_name = if node.dag_file.is_none() && self.opts.batch_name == " " {
            ""
        } else {
            self.opts.batch_name.as_str()
        };
        if !batch_name.is_empty() {
            push("batch_name", batch_name.to_owned(), false);
        }
        if !self.opts.batch_id.is_empty() {
            push("batch_id", self.opts.batch_id.clone(), false);
        }
        if self.opts.record_retry && s.retries > 0 {
            push("MY.DAGManNodeRetry", s.retries.to_string(), false);
        }
        if s.effective_priority != 0 {
            push("priority", s.effective_priority.to_string(), false);
        }
        if s.hold {
            push("hold", "true".into(), false);
        }
        if !node.children.is_empty() && self.opts.claim_hold_time > 0 {
            push(
                "keep_claim_idle",
                self.opts.claim_hold_time.to_string(),
                false,
            );
        }
        if !self.opts.acct_group.is_empty() {
            push("accounting_group", self.opts.acct_group.clone(), false);
        }
        if !self.opts.acct_group_user.is_empty() {
            push(
                "accounting_group_user",
                self.opts.acct_group_user.clone(),
                false,
            );
        }
        push("dag_node_name", node.name.clone(), true);
        push(
            "submit_event_notes",
            format!("DAG Node: {}", node.name),
            true,
        );
        push("dagman_log", self.opts.nodes_log.clone(), true);
        push("My.DAGManNodesMask", format!("\"{NODES_MASK}\""), true);
        if self.opts.dagman_id > 0 {
            push("My.DAGManJobId", self.opts.dagman_id.to_string(), true);
            push("DAGManJobId", self.opts.dagman_id.to_string(), true);
        }
        if self.opts.suppress_job_logs {
            push("log", String::new(), true);
        }
        if self.opts.suppress_notification {
            push("notification", "NEVER".into(), true);
        }
        for v in &node.vars {
            push(&v.name, v.value.clone(), !v.prepend);
        }
        vars
    }

    /// `Dag::SubmitReadyNodes`: submits ready nodes until a limit is reached; the jobs of
    /// one cycle go to the host together. `halt_file` says whether the halt file exists.
    /// Returns how many nodes were submitted.
    pub fn submit_ready_nodes(&mut self, now: i64, halt_file: bool, host: &mut dyn Host) -> i32 {
        self.now = now;
        if self.exit.is_some() {
            return 0;
        }
        if self.next_submit_time != 0 && now < self.next_submit_time {
            return 0;
        }
        let was_halted = self.halted;
        self.halted = halt_file;
        if self.halted {
            let text = format!(
                "DAG is halted because halt file {} exists",
                self.opts.halt_file
            );
            self.say(host, Level::Quiet, text);
            if self.final_run {
                self.say(host, Level::Quiet, "Continuing to allow final node to run");
            } else {
                return 0;
            }
        }
        if was_halted {
            if !self.halted {
                self.say(host, Level::Quiet, "DAG going from halted to running state");
            }
            self.run_waiting(ScriptKind::Pre, false, host);
        }
        if let Some(p) = self.dag.provisioner {
            if !self.provisioner_ready && self.st[p].cluster >= 0 {
                let (c, pr) = (self.st[p].cluster, self.st[p].proc.max(0));
                if host.provisioner_state(c, pr) == Some(2) {
                    self.provisioner_ready = true;
                    for id in 0..self.dag.nodes.len() {
                        if !self.is_service(id) && self.can_submit(id) {
                            self.start_node(id, false, host);
                        }
                    }
                }
            }
        }

        let mut submitted = 0;
        let mut deferred: Vec<NodeId> = Vec::new();
        let mut batch: Vec<SubmitNode> = Vec::new();
        let mut pending_cat: HashMap<String, i32> = HashMap::new();
        let mut failed = false;
        while submitted + (batch.len() as i32) < self.opts.max_submits_per_interval {
            if self.ready.len() == 0 {
                break;
            }
            let in_flight = self.num_submitted + batch.len() as i32;
            if self.opts.max_jobs > 0 && in_flight >= self.opts.max_jobs {
                let n = self.ready.len();
                self.say(
                    host,
                    Level::Debug1,
                    format!(
                        "Max jobs ({}) already running; deferring submission of {n} ready node{}.",
                        self.opts.max_jobs,
                        if n == 1 { "" } else { "s" }
                    ),
                );
                self.max_jobs_deferred += n as i64;
                break;
            }
            if self.opts.max_idle > 0 && self.idle_procs >= self.opts.max_idle {
                let n = self.ready.len();
                self.say(
                    host,
                    Level::Debug1,
                    format!(
                        "Hit max number of idle DAG nodes ({}); deferring submission of {n} ready node{}.",
                        self.opts.max_idle,
                        if n == 1 { "" } else { "s" }
                    ),
                );
                self.max_idle_deferred += n as i64;
                break;
            }
            let Some(id) = self.ready.pop() else {
                break;
            };
            if let Some(cat) = self.dag.nodes[id].category.clone() {
                if let Some(Some(max)) = self.dag.categories.get(&cat).copied() {
                    let current = self.cat_running.get(&cat).copied().unwrap_or(0)
                        + pending_cat.get(&cat).copied().unwrap_or(0);
                    if current >= max {
                        let text = format!(
                            "Node {} deferred by category throttle ({cat}, {max})",
                            self.name(id)
                        );
                        self.say(host, Level::Debug1, text);
                        deferred.push(id);
                        self.cat_deferred += 1;
                        continue;
                    }
                }
                *pending_cat.entry(cat).or_insert(0) += 1;
            }
            if self.opts.dry_run {
                let text = format!("Processing node: {}", self.name(id));
                self.say(host, Level::Normal, text);
                self.terminate_node(id, false, false, host);
                submitted += 1;
                continue;
            }
            // SubmitNodeJob: the node's old id is forgotten.
            self.forget_condor_id(id);
            let text = format!(
                "Submitting {} Node {} job(s)...",
                self.dag.nodes[id].job_type(),
                self.name(id)
            );
            self.say(host, Level::Normal, text);
            self.st[id].submit_tries += 1;
            if self.dag.nodes[id].noop {
                // The fake events go to the log in submit order: jobs before this are
                // submitted first.
                submitted += self.flush_batch(&mut batch, &mut failed, host);
                if failed {
                    self.enqueue(id, true);
                    break;
                }
                self.fake_submit(id, host);
                submitted += 1;
                continue;
            }
            let node = &self.dag.nodes[id];
            let inline = match &node.description {
                Description::Inline(text) => Some(text.clone()),
                Description::File => None,
            };
            batch.push(SubmitNode {
                node: id,
                name: node.name.clone(),
                submit_file: node.submit.clone(),
                inline,
                dir: node.dir.clone(),
                vars: self.init_vars(id),
                dag_file: node.dag_file.clone(),
                retry: self.st[id].retries,
                priority: self.st[id].effective_priority,
            });
            // The first jobs of a long batch start while the rest are submitted.
            if batch.len() >= SUBMIT_CHUNK {
                submitted += self.flush_batch(&mut batch, &mut failed, host);
                if failed {
                    break;
                }
            }
        }
        submitted += self.flush_batch(&mut batch, &mut failed, host);
        if submitted > 0 {
            self.status_outdated = true;
        }
        for id in deferred {
            let text = format!(
                "Returning deferred node {} to the ready queue",
                self.name(id)
            );
            self.say(host, Level::Debug1, text);
            self.enqueue(id, true);
        }
        submitted
    }

    /// Submits the batch; the first failure is handled as HTCondor handles a failed submit
    /// and the nodes after it go back to the front of the ready queue untouched.
    fn flush_batch(
        &mut self,
        batch: &mut Vec<SubmitNode>,
        failed: &mut bool,
        host: &mut dyn Host,
    ) -> i32 {
        if batch.is_empty() {
            return 0;
        }
        let nodes = std::mem::take(batch);
        let results = host.submit(&nodes);
        let mut ok = 0;
        let mut i = 0;
        while i < nodes.len() {
            match results.get(i) {
                Some(Ok(sub)) => {
                    if self.opts.prohibit_multi_jobs && sub.procs > 1 {
                        self.say(
                            host,
                            Level::Normal,
                            format!(
                                "Submit generated {} job procs; disallowed by DAGMAN_PROHIBIT_MULTI_JOBS setting",
                                sub.procs
                            ),
                        );
                    }
                    self.st[nodes[i].node].num_submitted = sub.procs;
                    self.process_successful_submit(nodes[i].node, sub.cluster, 0, 0, host);
                    ok += 1;
                }
                Some(Err(_)) => {
                    *failed = true;
                    self.process_failed_submit(nodes[i].node, host);
                    break;
                }
                None => break,
            }
            i += 1;
        }
        if *failed {
            i += 1;
        }
        // Not attempted: back to the front, in their order.
        for n in nodes[i.min(nodes.len())..].iter().rev() {
            self.st[n.node].submit_tries -= 1;
            self.enqueue(n.node, true);
        }
        ok
    }

    /// `fake_condor_submit`: a NOOP node's submit and terminated events go to the nodes
    /// log, under the id (0, NOOP_PROC, n).
    fn fake_submit(&mut self, id: NodeId, host: &mut dyn Host) {
        self.next_fake_subproc += 1;
        let subproc = self.next_fake_subproc;
        let time = chrono::DateTime::from_timestamp(self.now, 0).unwrap_or_default();
        let mut submit = Event::new(
            0,
            NOOP_PROC,
            Submit {
                submit_host: "<dummy-submit-for-noop-job>".into(),
                log_notes: Some(format!("DAG Node: {}", self.name(id))),
                user_notes: None,
                warnings: None,
            },
        )
        .at(time);
        submit.subproc = subproc;
        let mut term = Event::new(
            0,
            NOOP_PROC,
            JobTerminated {
                exit: ExitStatus::Code(0),
                ..JobTerminated::default()
            },
        )
        .at(time);
        term.subproc = subproc;
        if host.write_event(&submit).is_err() || host.write_event(&term).is_err() {
            self.say(
                host,
                Level::Quiet,
                "Error: writing dummy submit event for NOOP node failed!",
            );
            self.shutdown_rescue(EXIT_ERROR, DagStatus::Error, true, host);
            return;
        }
        self.process_successful_submit(id, 0, NOOP_PROC, subproc, host);
    }

    /// `Dag::ProcessSuccessfulSubmit`.
    fn process_successful_submit(
        &mut self,
        id: NodeId,
        cluster: i32,
        proc: i32,
        subproc: i32,
        host: &mut dyn Host,
    ) {
        self.next_submit_time = 0;
        self.next_submit_delay = 1;
        self.submit_q.push_back(id);
        self.st[id].status = Status::Submitted;
        self.update_node_counts(id, 1);
        self.set_condor_id(id, cluster, proc, subproc, host);
        let text = format!(
            "\tassigned {} ID ({cluster}.{proc}.{subproc})",
            self.dag.nodes[id].job_type()
        );
        self.say(host, Level::Verbose, text);
    }

    /// `Dag::ProcessFailedSubmit`: try again later (1, 2, 4... s), or the node fails.
    fn process_failed_submit(&mut self, id: NodeId, host: &mut dyn Host) {
        self.jobstate_node(id, None, "SUBMIT_FAILURE", "-", host);
        self.status_outdated = true;
        let this_delay = self.next_submit_delay;
        self.next_submit_time = self.now + this_delay;
        self.next_submit_delay *= 2;
        let mut max = self.opts.max_submit_attempts;
        if self.dag_status == DagStatus::Rm && self.dag.nodes[id].kind != NodeKind::Final {
            max = max.min(2);
        }
        let tries = self.st[id].submit_tries;
        if tries >= max {
            self.next_submit_time = 0;
            self.next_submit_delay = 1;
            self.say(
                host,
                Level::Quiet,
                format!(
                    "Node submit failed after {tries} tr{}.",
                    if tries == 1 { "y" } else { "ies" }
                ),
            );
            self.st[id].error_text = "Job submit failed".into();
            let text = format!(
                "Shortcutting node {} retries because of submit failure(s)",
                self.name(id)
            );
            self.say(host, Level::Normal, text);
            self.st[id].retries = self.st[id].retry_max;
            let mut ran_post = false;
            if self.dag.nodes[id].post.is_some() {
                self.st[id].post_ret_job = DAG_ERROR_CONDOR_SUBMIT_FAILED;
                let run = self.opts.always_run_post;
                ran_post = self.run_post_script(id, run, 0, true, host);
            } else {
                self.st[id].status = Status::Error;
                self.node_failed_counts(id);
            }
            if !ran_post {
                self.num_futile += self.set_descendants_futile(id);
            }
        } else {
            self.say(
                host,
                Level::Normal,
                format!(
                    "Job submit try {tries}/{max} failed, will try again in >= {this_delay} second{}.",
                    if this_delay == 1 { "" } else { "s" }
                ),
            );
            self.enqueue(id, self.opts.retry_submit_first);
        }
    }

    /// When the next submit may be tried after a failed one (0: any time).
    pub fn next_submit_time(&self) -> i64 {
        self.next_submit_time
    }

    /// Whether a submit cycle could submit anything now.
    pub fn has_ready_nodes(&self) -> bool {
        self.ready.len() > 0
    }

    fn update_node_counts(&mut self, id: NodeId, change: i32) {
        if self.is_service(id) {
            self.num_service_submitted += change;
            return;
        }
        self.num_submitted += change;
        if let Some(cat) = &self.dag.nodes[id].category {
            *self.cat_running.entry(cat.clone()).or_insert(0) += change;
        }
    }

    fn is_noop_id(proc: i32) -> bool {
        proc == NOOP_PROC
    }

    /// Forgets the node's job id (`SubmitNodeJob`, `RestartNode` in recovery).
    fn forget_condor_id(&mut self, id: NodeId) {
        let s = &mut self.st[id];
        if s.cluster != -1 {
            if Self::is_noop_id(s.proc) {
                self.by_noop.remove(&s.subproc);
            } else {
                self.by_cluster.remove(&s.cluster);
            }
        }
        s.cluster = -1;
        s.proc = -1;
        s.subproc = -1;
    }

    /// `Node::SetCondorID` and the id -> node index.
    fn set_condor_id(
        &mut self,
        id: NodeId,
        cluster: i32,
        proc: i32,
        subproc: i32,
        host: &mut dyn Host,
    ) {
        let s = &self.st[id];
        if s.cluster != -1 {
            let text = format!(
                "Reassigning the id of job {} from ({}.{}.{}) to ({cluster}.{proc}.{subproc})",
                self.name(id),
                s.cluster,
                s.proc,
                s.subproc
            );
            self.say(host, Level::Normal, text);
        }
        let s = &mut self.st[id];
        s.cluster = cluster;
        s.proc = proc;
        s.subproc = subproc;
        if Self::is_noop_id(proc) {
            self.by_noop.entry(subproc).or_insert(id);
        } else {
            self.by_cluster.entry(cluster).or_insert(id);
        }
    }

    /// `RemoveBatchJob`: removes the node's cluster.
    fn remove_batch_job(&mut self, id: NodeId, reason: &str, host: &mut dyn Host) {
        let cluster = self.st[id].cluster;
        host.remove_jobs(Some(cluster), reason);
    }
}

// ----- events -----

/// `DAG Node: <name>` in an event's notes (sscanf `%1023s`: the first word).
fn node_from_notes(notes: &str) -> Option<&str> {
    let rest = notes.trim_start().strip_prefix("DAG Node:")?;
    rest.split_whitespace().next()
}

impl Engine {
    /// `Dag::ProcessOneEvent`: one event from the nodes log. Events of jobs that are not
    /// this DAG's are ignored.
    pub fn process_event(&mut self, event: &Event, recovery: bool, now: i64, host: &mut dyn Host) {
        self.now = now;
        if self.exit.is_some() {
            return;
        }
        let (node, sane) = self.lookup(event, host);
        self.print_event(event, node, recovery, host);
        let Some(id) = node else {
            return;
        };
        if !self.sane_event(event, id, host) {
            return;
        }
        let ev_time = event.time.timestamp();
        self.jobstate_event(id, event, ev_time, host);
        self.st[id].last_event_time = ev_time;
        self.last_event_time = now;
        self.status_outdated = true;
        let proc = event.proc;
        match &event.body {
            EventBody::JobAborted(_) => {
                self.not_idle(id, proc, host);
                self.aborted_event(id, event, recovery, host);
            }
            EventBody::JobTerminated(t) => {
                self.not_idle(id, proc, host);
                self.terminated_event(id, event, exit_of(&t.exit), recovery, host);
            }
            EventBody::PostScriptTerminated(p) => {
                self.post_term_event(id, exit_of(&p.exit), recovery, host);
            }
            EventBody::Submit(_) => {
                self.submit_event(id, event, recovery, sane, host);
                self.is_idle(id, proc, host);
            }
            EventBody::JobReconnectFailed(_)
            | EventBody::JobEvicted(_)
            | EventBody::JobSuspended(_)
            | EventBody::ShadowException(_) => self.is_idle(id, proc, host),
            EventBody::JobHeld(h) => {
                let reason = h.reason.clone().filter(|r| !r.is_empty());
                self.say(
                    host,
                    Level::Verbose,
                    format!(
                        "  Hold reason: {}",
                        reason.as_deref().unwrap_or("(unknown)")
                    ),
                );
                self.held_event(id, proc, host);
                self.is_idle(id, proc, host);
            }
            EventBody::JobUnsuspended | EventBody::Execute(_) => self.not_idle(id, proc, host),
            EventBody::JobReleased(_) => self.release(id, proc),
            EventBody::PreSkip(_) => {
                self.terminate_node(id, recovery, false, host);
                if !recovery {
                    self.pre_run -= 1;
                }
            }
            EventBody::ClusterSubmit(_) => self.st[id].is_factory = true,
            EventBody::ClusterRemove(_) => self.cluster_remove_event(id, recovery, host),
            _ => {}
        }
    }

    /// `Dag::LogEventNodeLookup`: the node an event is about, and whether a submit event
    /// agrees with the id the submit returned.
    fn lookup(&mut self, event: &Event, host: &mut dyn Host) -> (Option<NodeId>, bool) {
        let (cluster, proc, subproc) = (event.cluster, event.proc, event.subproc);
        let number = event.number();
        use crate::eventlog::number::{PRESKIP, SUBMIT};
        if number != SUBMIT && number != PRESKIP {
            if let Some(id) = self.find_by_event_id(cluster, proc, subproc, host) {
                return (Some(id), false);
            }
        }
        let notes = match &event.body {
            EventBody::Submit(s) => s.log_notes.clone(),
            EventBody::ClusterSubmit(s) => s.log_notes.clone(),
            EventBody::PreSkip(p) => Some(p.log_notes.clone()),
            EventBody::PostScriptTerminated(p) if cluster == -1 => {
                return (
                    p.dag_node_name.as_deref().and_then(|n| self.dag.find(n)),
                    false,
                );
            }
            _ => return (None, false),
        };
        let Some(notes) = notes.filter(|n| !n.is_empty()) else {
            if matches!(event.body, EventBody::PreSkip(_)) {
                self.say(
                    host,
                    Level::Normal,
                    "No DAG Node indicated in a PRE_SKIP event",
                );
            }
            return (None, false);
        };
        let Some(name) = node_from_notes(&notes) else {
            let what = match event.body {
                EventBody::PreSkip(_) => "skip",
                EventBody::ClusterSubmit(_) => "cluster submit",
                _ => "submit",
            };
            self.say(
                host,
                Level::Quiet,
                format!("ERROR: 'DAG Node:' not found in {what} event notes: <{notes}>"),
            );
            return (None, false);
        };
        let Some(id) = self.dag.find(name) else {
            self.say(
                host,
                Level::Verbose,
                format!("ERROR: Node {name} not found!"),
            );
            return (None, false);
        };
        let sane = if matches!(event.body, EventBody::PreSkip(_)) {
            false
        } else {
            self.sanity_check_submit(id, cluster, proc, subproc, host)
        };
        self.set_condor_id(id, cluster, proc, subproc, host);
        (Some(id), sane)
    }

    fn find_by_event_id(
        &mut self,
        cluster: i32,
        proc: i32,
        subproc: i32,
        host: &mut dyn Host,
    ) -> Option<NodeId> {
        if cluster == -1 {
            return None;
        }
        let found = if Self::is_noop_id(proc) {
            self.by_noop.get(&subproc).copied()
        } else {
            self.by_cluster.get(&cluster).copied()
        };
        if found.is_none() {
            self.say(
                host,
                Level::Verbose,
                format!(
                    "ERROR: node for condor ID {cluster}.{proc}.{subproc} not found! (might be because of node retries)"
                ),
            );
        }
        found
    }

    /// `SanityCheckSubmitEvent`: the submit event's cluster is the one the submit returned.
    fn sanity_check_submit(
        &mut self,
        id: NodeId,
        cluster: i32,
        proc: i32,
        subproc: i32,
        host: &mut dyn Host,
    ) -> bool {
        let s = &self.st[id];
        if s.cluster == -1 || cluster == s.cluster {
            return true;
        }
        let message = format!(
            "ERROR: node {}: job ID in userlog submit event ({cluster}.{proc}.{subproc}) doesn't match ID reported earlier by submit command ({}.{}.{})!",
            self.name(id),
            s.cluster,
            s.proc,
            s.subproc
        );
        if self.opts.abort_on_scary_submit {
            self.say(
                host,
                Level::Quiet,
                format!(
                    "{message}  Aborting DAG; set DAGMAN_ABORT_ON_SCARY_SUBMIT to false if you are *sure* this shouldn't cause an abort."
                ),
            );
            self.shutdown_rescue(EXIT_ERROR, DagStatus::Error, true, host);
            true
        } else {
            self.say(
                host,
                Level::Quiet,
                format!(
                    "{message}  Trusting the userlog for now (because of DAGMAN_ABORT_ON_SCARY_SUBMIT setting), but this is scary!"
                ),
            );
            false
        }
    }

    /// `Dag::PrintEvent`.
    fn print_event(
        &self,
        event: &Event,
        node: Option<NodeId>,
        recovery: bool,
        host: &mut dyn Host,
    ) {
        let recov = if recovery { " [recovery mode]" } else { "" };
        let when = super::files::local_time(event.time.timestamp());
        let name = ulog_name(event.number());
        let (c, p, s) = (event.cluster, event.proc, event.subproc);
        let text = match node {
            Some(id) => format!(
                "Event: {name} for {} Node {} ({c}.{p}.{s}) {{{when}}}{recov}",
                self.dag.nodes[id].job_type(),
                self.name(id)
            ),
            None => format!(
                "Event: {name} for unknown Node ({c}.{p}.{s}) {{{when}}}: ignoring...{recov}"
            ),
        };
        self.say(host, Level::Verbose, text);
    }

    /// The event check (`CheckEvents` with `DAGMAN_ALLOW_EVENTS` at its default): a second
    /// terminated or aborted event for a job proc that already ended is reported and
    /// skipped.
    fn sane_event(&mut self, event: &Event, id: NodeId, host: &mut dyn Host) -> bool {
        let key = (event.cluster, event.proc, event.subproc);
        match event.body {
            EventBody::JobTerminated(_) | EventBody::JobAborted(_) => {
                if !self.ended_procs.insert(key) {
                    let text = format!(
                        "BAD EVENT: job ({}.{}.{}) ended, {} event not expected (node {})",
                        key.0,
                        key.1,
                        key.2,
                        ulog_name(event.number()),
                        self.name(id)
                    );
                    self.say(host, Level::Normal, text);
                    self.say(
                        host,
                        Level::Normal,
                        "Continuing with DAG in spite of bad event because of allow_events setting",
                    );
                    return false;
                }
                true
            }
            EventBody::Submit(_) => {
                self.ended_procs.remove(&key);
                true
            }
            _ => true,
        }
    }

    fn proc_slot(&mut self, id: NodeId, proc: i32) -> &mut u8 {
        let proc = if self.dag.nodes[id].noop || proc < 0 {
            0
        } else {
            proc as usize
        };
        let events = &mut self.st[id].proc_events;
        if events.len() <= proc {
            events.resize(proc + 1, 0);
        }
        &mut events[proc]
    }

    /// `ProcessIsIdleEvent`.
    fn is_idle(&mut self, id: NodeId, proc: i32, host: &mut dyn Host) {
        let submitted = self.st[id].status == Status::Submitted;
        let slot = self.proc_slot(id, proc);
        if *slot & IDLE_MASK == 0 && submitted {
            *slot |= IDLE_MASK;
            self.idle_procs += 1;
        }
        self.idle_consistency(host);
        let text = format!("Number of idle job procs: {}", self.idle_procs);
        self.say(host, Level::Verbose, text);
    }

    /// `ProcessNotIdleEvent`.
    fn not_idle(&mut self, id: NodeId, proc: i32, host: &mut dyn Host) {
        let status = self.st[id].status;
        let slot = self.proc_slot(id, proc);
        if *slot & IDLE_MASK != 0 && matches!(status, Status::Submitted | Status::Error) {
            *slot &= !IDLE_MASK;
            self.idle_procs -= 1;
        }
        *self.proc_slot(id, proc) |= EXEC_MASK;
        if self.idle_procs < 0 {
            let text = format!(
                "WARNING: DAGMan thinks there are {} idle job procs!",
                self.idle_procs
            );
            self.say(host, Level::Normal, text);
        }
        self.idle_consistency(host);
        let text = format!("Number of idle job procs: {}", self.idle_procs);
        self.say(host, Level::Verbose, text);
    }

    fn idle_consistency(&mut self, host: &mut dyn Host) {
        if self.idle_procs > 0 && self.num_submitted + self.num_service_submitted < 1 {
            let text = format!(
                "Warning:  DAGMan thinks there are {} idle job procs, even though there are no nodes in the queue!  Setting idle count to 0 so DAG continues.",
                self.idle_procs
            );
            self.say(host, Level::Normal, text);
            self.idle_procs = 0;
            self.strict(2, host);
        }
    }

    /// `ProcessHeldEvent`.
    fn held_event(&mut self, id: NodeId, proc: i32, host: &mut dyn Host) {
        let slot = self.proc_slot(id, proc);
        let newly = *slot & HOLD_MASK == 0;
        if newly {
            *slot |= HOLD_MASK;
            self.st[id].procs_on_hold += 1;
            let max = self.opts.max_job_holds;
            if max > 0 && self.st[id].procs_on_hold >= max {
                let text = format!(
                    "Total hold count for job {} (node {})has reached DAGMAN_MAX_JOB_HOLDS ({max}); all job proc(s) for this node will now be removed",
                    self.st[id].cluster,
                    self.name(id)
                );
                self.say(host, Level::Verbose, text);
                self.remove_batch_job(id, "DAG Limit: Max number of held jobs was reached.", host);
            }
        }
        self.run_hold_script(id, host);
    }

    /// `Node::Release`.
    fn release(&mut self, id: NodeId, proc: i32) {
        let p = if self.dag.nodes[id].noop || proc < 0 {
            0
        } else {
            proc as usize
        };
        if let Some(slot) = self.st[id].proc_events.get_mut(p) {
            if *slot & HOLD_MASK != 0 {
                *slot &= !HOLD_MASK;
                self.st[id].procs_on_hold -= 1;
            }
        }
    }

    /// `ProcessSubmitEvent`.
    fn submit_event(
        &mut self,
        id: NodeId,
        event: &Event,
        recovery: bool,
        sane: bool,
        host: &mut dyn Host,
    ) {
        if recovery && Self::is_noop_id(event.proc) {
            self.next_fake_subproc = self.next_fake_subproc.max(event.subproc);
        }
        if self.st[id].waiting > 0 {
            let name = self.name(id).to_owned();
            self.say(
                host,
                Level::Quiet,
                format!("Error: DAG semantics violated! Node {name} was submitted but has unfinished parents!"),
            );
            self.say(
                host,
                Level::Quiet,
                format!(
                    "This may indicate log file corruption; you may want to check the log files and re-run the DAG in recovery mode by giving the command 'condor_submit {}.condor.sub'",
                    self.opts.primary_dag
                ),
            );
            self.dump_node(id, host);
            self.exit = Some(EXIT_ERROR);
            return;
        }
        let counted = sane || self.st[id].status != Status::Submitted;
        if counted {
            self.st[id].queued_procs += 1;
            self.st[id].submitted_procs += 1;
            self.total_jobs_submitted += 1;
        }
        if recovery {
            if counted && self.st[id].submitted_procs == 1 {
                self.update_node_counts(id, 1);
            }
            self.st[id].status = Status::Submitted;
            return;
        }
        if self.st[id].submitted_procs == 1 {
            let Some(expected) = self.submit_q.pop_front() else {
                let text = format!(
                    "Unrecognized submit event (for node \"{}\") found in log (none expected)",
                    self.name(id)
                );
                self.say(host, Level::Quiet, text);
                return;
            };
            if expected != id {
                let text = format!(
                    "Unexpected submit event (for node \"{}\") found in log; node \"{}\" was expected.",
                    self.name(id),
                    self.name(expected)
                );
                self.say(host, Level::Quiet, text);
                self.submit_q.push_back(expected);
            }
        }
    }

    /// `DecrementProcCount`.
    fn decrement_proc_count(&mut self, id: NodeId, host: &mut dyn Host) {
        self.st[id].queued_procs -= 1;
        if self.all_procs_done(id) {
            self.update_node_counts(id, -1);
            self.cleanup(id, host);
        }
    }

    fn all_procs_done(&self, id: NodeId) -> bool {
        !self.st[id].is_factory && self.st[id].queued_procs <= 0
    }

    /// `Node::Cleanup`: every proc should have run and ended.
    fn cleanup(&mut self, id: NodeId, host: &mut dyn Host) {
        let events = std::mem::take(&mut self.st[id].proc_events);
        for (p, e) in events.iter().enumerate() {
            if *e & !IDLE_MASK != (EXEC_MASK | ABORT_TERM_MASK) {
                let text = format!(
                    "Warning for node {}: unexpected _gotEvents value for proc {p}: {e}!",
                    self.name(id)
                );
                self.say(host, Level::Normal, text);
                if self.strict(2, host) {
                    return;
                }
            }
        }
    }

    /// `ProcessAbortEvent`.
    fn aborted_event(&mut self, id: NodeId, event: &Event, recovery: bool, host: &mut dyn Host) {
        *self.proc_slot(id, event.proc) |= ABORT_TERM_MASK;
        self.st[id].jobs_aborted += 1;
        if self.st[id].procs_on_hold > 0 {
            self.release(id, event.proc);
        }
        self.decrement_proc_count(id, host);
        let (c, p, s) = (event.cluster, event.proc, event.subproc);
        if self.st[id].status != Status::Error {
            self.st[id].status = Status::Error;
            self.st[id].error_text =
                format!("HTCondor reported ULOG_JOB_ABORTED event for job proc ({c}.{p}.{s})");
            self.st[id].retval = DAG_ERROR_CONDOR_JOB_ABORTED;
            if self.st[id].queued_procs > 0 {
                self.st[id].successful = false;
                let reason = format!(
                    "Node Error: DAG node {} ({c}.{p}.{s}) got ULOG_JOB_ABORTED event.",
                    self.name(id)
                );
                self.remove_batch_job(id, &reason, host);
            }
            if self.dag.nodes[id].post.is_some() {
                self.st[id].post_ret_job = self.st[id].retval;
            }
        }
        if self.dag.nodes[id].post.is_none() && !self.do_retry(id) {
            self.num_futile += self.set_descendants_futile(id);
        }
        self.job_proc_end(id, recovery, true, host);
    }

    /// `ProcessTerminatedEvent`.
    fn terminated_event(
        &mut self,
        id: NodeId,
        event: &Event,
        exit: Exit,
        recovery: bool,
        host: &mut dyn Host,
    ) {
        *self.proc_slot(id, event.proc) |= ABORT_TERM_MASK;
        self.decrement_proc_count(id, host);
        let (c, p, s) = (event.cluster, event.proc, event.subproc);
        let name = self.name(id).to_owned();
        let failed = exit != Exit::Code(0);
        let code = match exit {
            Exit::Code(c) => c,
            Exit::Signal(_) => -1,
        };
        *self.st[id].exit_codes.entry(code).or_insert(0) += 1;
        let has_post = self.dag.nodes[id].post.is_some();
        if failed {
            let (what, retval) = match exit {
                Exit::Code(v) => (format!("status {v}"), v),
                Exit::Signal(sig) => (format!("signal {sig}"), -sig),
            };
            self.say(
                host,
                Level::Quiet,
                format!("Node {name} job proc ({c}.{p}.{s}) failed with {what}."),
            );
            if self.st[id].status != Status::Error {
                self.st[id].error_text = format!("Job proc ({c}.{p}.{s}) failed with {what}");
                self.st[id].retval = retval;
                if has_post {
                    self.st[id].post_ret_job = retval;
                }
                self.st[id].status = Status::Error;
                if self.st[id].queued_procs > 0 {
                    self.st[id].successful = false;
                    let signal = match exit {
                        Exit::Signal(sig) => sig,
                        Exit::Code(_) => -1,
                    };
                    let reason = format!(
                        "Node Error: DAG node {name} ({c}.{p}.{s}) failed with signal {signal}."
                    );
                    self.remove_batch_job(id, &reason, host);
                }
            }
            if !has_post && !self.do_retry(id) {
                self.num_futile += self.set_descendants_futile(id);
            }
        } else {
            self.total_jobs_completed += 1;
            if self.st[id].status != Status::Error {
                self.st[id].retval = 0;
                if has_post {
                    self.st[id].post_ret_job = 0;
                }
            } else {
                self.say(
                    host,
                    Level::Normal,
                    format!(
                        "Node {name} job proc ({c}.{p}.{s}) completed successfully, but status is STATUS_ERROR"
                    ),
                );
            }
            self.say(
                host,
                Level::Normal,
                format!("Node {name} job proc ({c}.{p}.{s}) completed successfully."),
            );
        }
        self.job_proc_end(id, recovery, failed, host);
        if !has_post && self.exit.is_none() {
            self.check_for_dag_abort(id, "job", host);
        }
    }

    /// `ProcessJobProcEnd`.
    fn job_proc_end(&mut self, id: NodeId, recovery: bool, failed: bool, host: &mut dyn Host) {
        if self.all_procs_done(id) {
            self.jobstate_job_result(id, host);
        }
        let has_post = self.dag.nodes[id].post.is_some();
        if failed && !has_post {
            if self.do_retry(id) {
                if self.all_procs_done(id) {
                    self.restart_node(id, recovery, host);
                }
            } else if self.opts.put_failed_jobs_on_hold {
                self.st[id].hold = true;
                if self.all_procs_done(id) {
                    self.st[id].retry_max += 1;
                    self.restart_node(id, recovery, host);
                }
            } else {
                if self.st[id].retry_max > 0 {
                    let r = self.st[id].retries;
                    self.st[id]
                        .error_text
                        .push_str(&format!(" (after {r} node retries)"));
                }
                if self.st[id].queued_procs == 0 {
                    self.node_failed_counts(id);
                }
            }
            return;
        }
        if self.all_procs_done(id) {
            let text = format!("Node {} job completed", self.name(id));
            self.say(host, Level::Normal, text);
            if has_post {
                if recovery {
                    self.st[id].status = Status::PostRun;
                    self.post_run += 1;
                } else {
                    let run = self.opts.always_run_post;
                    self.run_post_script(id, run, 0, true, host);
                }
            } else if self.st[id].status != Status::Error {
                self.terminate_node(id, recovery, false, host);
            }
        }
    }

    /// `ProcessPostTermEvent`: the POST script's result, read back from the nodes log.
    fn post_term_event(&mut self, id: NodeId, exit: Exit, recovery: bool, host: &mut dyn Host) {
        if self.st[id].status == Status::PostRun {
            self.post_run -= 1;
        }
        let name = self.name(id).to_owned();
        let header = format!("POST Script of node {name} ");
        if exit != Exit::Code(0) {
            self.st[id].status = Status::Error;
            let main_ret = self.st[id].retval;
            let err = match exit {
                Exit::Code(v) => {
                    let err = format!("failed with status {v}");
                    self.say(host, Level::Normal, format!("{header}{err}"));
                    self.say(
                        host,
                        Level::Quiet,
                        format!("POST for Node {name} returned {v}"),
                    );
                    self.st[id].retval = v;
                    err
                }
                Exit::Signal(sig) => {
                    let err = format!("died on signal {sig}");
                    self.say(host, Level::Normal, format!("{header}{err}"));
                    self.st[id].retval = -sig;
                    err
                }
            };
            self.st[id].error_text = format!("POST script {err}");
            self.jobstate_script_result(id, ScriptKind::Post, host);
            if self.do_retry(id) {
                self.restart_node(id, recovery, host);
            } else {
                if !self.is_service(id) {
                    self.num_futile += self.set_descendants_futile(id);
                }
                self.node_failed_counts(id);
                let mut text = if main_ret > 0 {
                    format!("Job exited with status {main_ret} and ")
                } else if (-MAX_SIGNAL..0).contains(&main_ret) {
                    format!("Job died on signal {} and ", -main_ret)
                } else {
                    format!("Job failed due to DAGMAN error {main_ret} and ")
                };
                match exit {
                    Exit::Code(v) => text.push_str(&format!("POST Script failed with status {v}")),
                    Exit::Signal(s) => text.push_str(&format!("POST Script died on signal {s}")),
                }
                if self.st[id].retry_max > 0 {
                    text.push_str(&format!(" (after {} node retries)", self.st[id].retries));
                }
                self.st[id].error_text = text;
            }
        } else {
            self.say(
                host,
                Level::Normal,
                format!("{header}completed successfully."),
            );
            self.st[id].retval = 0;
            self.jobstate_script_result(id, ScriptKind::Post, host);
            self.terminate_node(id, recovery, false, host);
        }
        self.check_for_dag_abort(id, "POST script", host);
    }

    /// `ProcessClusterRemoveEvent` (late-materialization clusters).
    fn cluster_remove_event(&mut self, id: NodeId, recovery: bool, host: &mut dyn Host) {
        if self.st[id].queued_procs == 0 && self.st[id].is_factory {
            let text = format!("Node {} job completed", self.name(id));
            self.say(host, Level::Normal, text);
            if self.dag.nodes[id].post.is_some() {
                if recovery {
                    self.st[id].status = Status::PostRun;
                    self.post_run += 1;
                } else {
                    let run = self.opts.always_run_post;
                    self.run_post_script(id, run, 0, true, host);
                }
            } else if self.st[id].status != Status::Error {
                self.terminate_node(id, recovery, false, host);
            }
        } else {
            let text = format!(
                "ERROR: ProcessClusterRemoveEvent() called for node {} although {} procs still queued.",
                self.name(id),
                self.st[id].queued_procs
            );
            self.say(host, Level::Normal, text);
        }
        if self.st[id].status == Status::Error && self.do_retry(id) {
            self.restart_node(id, recovery, host);
        }
        self.jobstate_job_result(id, host);
        self.update_node_counts(id, -1);
        self.cleanup(id, host);
    }
}

// ----- node outcomes -----

impl Engine {
    fn do_abort(&self, id: NodeId) -> bool {
        self.dag.nodes[id]
            .abort_dag_on
            .is_some_and(|a| self.st[id].retval == a.value)
    }

    /// `Node::DoRetry`: retries left and no ABORT-DAG-ON match.
    fn do_retry(&self, id: NodeId) -> bool {
        !self.do_abort(id) && self.st[id].retries < self.st[id].retry_max
    }

    /// `Dag::TerminateNode`: the node is done; its children whose parents are all done start.
    fn terminate_node(&mut self, id: NodeId, recovery: bool, bootstrap: bool, host: &mut dyn Host) {
        self.st[id].status = Status::Done;
        if self.is_service(id) {
            self.finished_metrics(id, true);
            self.st[id].counted_done = true;
            let proc = self.st[id].proc;
            *self.proc_slot(id, proc) |= ABORT_TERM_MASK;
            self.st[id].retval = 0;
            return;
        }
        if self.st[id].counted_done {
            return;
        }
        self.num_done += 1;
        self.finished_metrics(id, true);
        self.st[id].counted_done = true;
        let children = self.dag.nodes[id].children.clone();
        for child in children {
            let s = &mut self.st[child];
            s.waiting = s.waiting.saturating_sub(1);
            if s.waiting == 0 && !bootstrap && !recovery && s.status == Status::Ready {
                self.start_node(child, false, host);
            }
        }
    }

    /// `Dag::RestartNode`: the node runs again (PRE script first), unless its UNLESS-EXIT
    /// value came back or the FINAL node is running.
    fn restart_node(&mut self, id: NodeId, recovery: bool, host: &mut dyn Host) {
        let unless = self.dag.nodes[id].retry_unless_exit;
        let retval = self.st[id].retval;
        if self.final_run || unless == Some(retval) {
            let final_run = if self.final_run {
                "because final node is running "
            } else {
                ""
            };
            let text = format!(
                "Aborting further retries of node {} {final_run}(last attempt returned {retval})",
                self.name(id)
            );
            self.say(host, Level::Normal, text);
            self.node_failed_counts(id);
            return;
        }
        let s = &mut self.st[id];
        s.status = Status::Ready;
        s.retries += 1;
        s.submitted_procs = 0;
        s.num_submitted = 0;
        s.jobs_aborted = 0;
        s.successful = true;
        s.exit_codes.clear();
        s.pre_script_done = false;
        s.error_text.clear();
        s.jobstate_seq = 0;
        let (r, m) = (s.retries, s.retry_max);
        let name = self.name(id).to_owned();
        if !recovery {
            self.say(
                host,
                Level::Verbose,
                format!("Retrying node {name} (retry #{r} of {m})..."),
            );
            self.start_node(id, true, host);
        } else {
            self.say(
                host,
                Level::Verbose,
                format!("Looking for retry of node {name} (retry #{r} of {m})..."),
            );
            self.forget_condor_id(id);
        }
    }

    /// `SetDescendantsToFutile`: every descendant not marked DONE by the user can no longer
    /// run. Returns how many became FUTILE.
    fn set_descendants_futile(&mut self, id: NodeId) -> i32 {
        let mut count = 0;
        let mut stack: Vec<NodeId> = self.dag.nodes[id].children.clone();
        let mut seen = std::collections::HashSet::new();
        while let Some(child) = stack.pop() {
            if !seen.insert(child) || self.st[child].status == Status::Futile {
                continue;
            }
            if !self.st[child].pre_done {
                self.st[child].status = Status::Futile;
                count += 1;
            }
            stack.extend(self.dag.nodes[child].children.iter().copied());
        }
        count
    }

    /// `CheckForDagAbort`: ABORT-DAG-ON beats retries.
    fn check_for_dag_abort(&mut self, id: NodeId, what: &str, host: &mut dyn Host) -> bool {
        if self.exit.is_some() || !self.do_abort(id) {
            return false;
        }
        self.say(
            host,
            Level::Quiet,
            format!("Aborting DAG because we got the ABORT exit value from a {what}"),
        );
        self.aborted = true;
        let ret = self.dag.nodes[id].abort_dag_on.and_then(|a| a.ret);
        match ret {
            Some(r) => {
                let status = if r != 0 {
                    DagStatus::Abort
                } else {
                    DagStatus::Ok
                };
                self.shutdown_rescue(r, status, true, host);
            }
            None => {
                let r = self.st[id].retval;
                self.shutdown_rescue(r, DagStatus::Abort, true, host);
            }
        }
        true
    }

    // ----- ending -----

    /// `main_shutdown_rescue`: a rescue DAG (unless the exit code is 0), the node jobs
    /// removed, the scripts killed; then the FINAL node runs if there is one (and the DAG
    /// goes on until it ends), or the DAG exits with `exit_code`.
    pub fn shutdown_rescue(
        &mut self,
        exit_code: i32,
        status: DagStatus,
        remove_jobs: bool,
        host: &mut dyn Host,
    ) -> Shutdown {
        if self.in_shutdown || self.exit.is_some() {
            return Shutdown::Exit(self.exit.unwrap_or(exit_code));
        }
        self.in_shutdown = true;
        self.say(host, Level::Quiet, "Aborting DAG...");
        self.dag_status = status;
        if exit_code != 0 {
            if self.opts.max_rescue > 0 {
                let text = super::files::rescue_text(
                    self,
                    &format!(
                        "# Rescue DAG file, created after running\n#   the {} DAG file\n",
                        self.opts.primary_dag
                    ),
                    self.opts.partial_rescue,
                    false,
                    false,
                );
                host.write_rescue(&text, self.wrote_rescue);
                self.wrote_rescue = true;
            } else {
                self.say(
                    host,
                    Level::Quiet,
                    "No rescue DAG written because DAGMAN_MAX_RESCUE_NUM is 0",
                );
            }
        }
        let n = self.num_submitted;
        self.say(
            host,
            Level::Debug1,
            format!("We have {n} running nodes to remove"),
        );
        self.say(host, Level::Normal, "Removing submitted jobs...");
        let reason = if status == DagStatus::Rm {
            "DAG Removed: User removed scheduler job from queue."
        } else {
            "DAG Abort: DAG is exiting and writing rescue file."
        };
        if remove_jobs {
            self.say(
                host,
                Level::Normal,
                "Removing any/all submitted HTCondor jobs...",
            );
            host.remove_jobs(None, reason);
        }
        if self.scripts_running() > 0 {
            self.say(host, Level::Normal, "Removing running scripts...");
            self.kill_scripts(host);
        }
        self.print_deferrals(Level::Normal, true, host);
        if self.start_final_node(host) {
            self.in_shutdown = false;
            return Shutdown::FinalStarted;
        }
        self.in_shutdown = false;
        self.exit = Some(exit_code);
        Shutdown::Exit(exit_code)
    }

    /// `RemoveRunningScripts`: PRE and POST scripts of nodes in those states are killed.
    fn kill_scripts(&mut self, host: &mut dyn Host) {
        for kind in [ScriptKind::Pre, ScriptKind::Post] {
            let pids: Vec<u32> = self.queue_of(kind).running.keys().copied().collect();
            for pid in pids {
                self.say(
                    host,
                    Level::Debug1,
                    format!("Killing {} script {pid}", kind.name()),
                );
                host.kill_script(pid);
            }
        }
    }

    /// The end of `condor_event_timer`: success, failure, the FINAL node, a halted DAG, or a
    /// DAG that can go no further. Returns the exit code when the DAG is to exit.
    pub fn check_end(&mut self, now: i64, host: &mut dyn Host) -> Option<i32> {
        self.now = now;
        if let Some(code) = self.exit {
            return Some(code);
        }
        if self.done_success(true) {
            for i in 0..self.dag.services.len() {
                let s = self.dag.services[i];
                if self.st[s].status == Status::Submitted {
                    self.remove_batch_job(
                        s,
                        "DAG completed: removing its SERVICE node jobs.",
                        host,
                    );
                    self.terminate_node(s, false, false, host);
                }
            }
            self.say(host, Level::Normal, "All jobs Completed!");
            self.print_deferrals(Level::Normal, true, host);
            if self.idle_procs != 0 {
                let text = format!(
                    "Warning:  DAGMan thinks there are {} idle jobs, even though the DAG is completed!",
                    self.idle_procs
                );
                self.say(host, Level::Normal, text);
                if self.strict(1, host) {
                    return self.exit;
                }
            }
            self.exit = Some(EXIT_OKAY);
            return self.exit;
        }
        if self.done_failed(true) {
            self.say(host, Level::Quiet, "ERROR: the following job(s) failed:");
            self.print_node_list(Some(Status::Error), host);
            let status = self.dag_status;
            return match self.shutdown_rescue(EXIT_ERROR, status, true, host) {
                Shutdown::Exit(c) => Some(c),
                Shutdown::FinalStarted => None,
            };
        }
        if self.final_node_finished() {
            let text = format!(
                "ERROR: DAGMan FINAL node has terminated but DAGMan thinks {} job(s) are still running.",
                self.num_submitted
            );
            self.say(host, Level::Quiet, text);
            let status = self.dag_status;
            return match self.shutdown_rescue(EXIT_ABORT, status, true, host) {
                Shutdown::Exit(c) => Some(c),
                Shutdown::FinalStarted => None,
            };
        }
        if self.done_success(false) {
            self.start_final_node(host);
            return None;
        }
        if self.halted && self.num_submitted == 0 && self.post_run == 0 && !self.final_run {
            self.say(
                host,
                Level::Quiet,
                "Exiting because DAG is halted and no jobs or scripts are running",
            );
            self.say(host, Level::Quiet, "ERROR: the following Node(s) failed:");
            self.print_node_list(Some(Status::Error), host);
            return match self.shutdown_rescue(EXIT_ERROR, DagStatus::Halted, true, host) {
                Shutdown::Exit(c) => Some(c),
                Shutdown::FinalStarted => None,
            };
        }
        if self.finished_running(false) {
            let status = if self.done_failed(false) {
                self.say(host, Level::Quiet, "ERROR: the following Node(s) failed:");
                self.print_node_list(Some(Status::Error), host);
                DagStatus::NodeFailed
            } else {
                self.say(
                    host,
                    Level::Quiet,
                    "ERROR: DAG finished but not all nodes are complete -- checking for a cycle...",
                );
                let status = if self.dag.find_cycle().is_some() {
                    self.say(
                        host,
                        Level::Quiet,
                        "... ERROR: a cycle exists in the dag, please check input",
                    );
                    DagStatus::Cycle
                } else {
                    self.say(
                        host,
                        Level::Quiet,
                        "... ERROR: no cycle found; unknown error condition",
                    );
                    DagStatus::Error
                };
                if self.opts.verbosity >= Level::Normal {
                    self.print_node_list(None, host);
                }
                status
            };
            return match self.shutdown_rescue(EXIT_ERROR, status, true, host) {
                Shutdown::Exit(c) => Some(c),
                Shutdown::FinalStarted => None,
            };
        }
        None
    }

    /// `condor_rm` of the DAGMan job (SIGUSR1, `main_shutdown_remove`).
    pub fn removed(&mut self, now: i64, host: &mut dyn Host) -> Shutdown {
        self.now = now;
        self.say(host, Level::Quiet, "Received SIGUSR1");
        let remove = self.opts.remove_node_jobs;
        self.shutdown_rescue(EXIT_ABORT, DagStatus::Rm, remove, host)
    }

    // ----- reporting -----

    /// The status table (`print_status`), printed when the counts changed or `force`.
    pub fn print_status_if_changed(&mut self, force: bool, host: &mut dyn Host) -> bool {
        let now = [
            self.num_done(true),
            self.num_nodes(true),
            self.num_failed,
            self.num_submitted,
            self.num_ready(),
            self.pre_run + self.post_run,
            self.held_procs(),
        ];
        if !force && self.last_printed == Some(now) {
            return false;
        }
        self.last_printed = Some(now);
        self.print_status(host);
        true
    }

    /// `print_status`.
    pub fn print_status(&mut self, host: &mut dyn Host) {
        let text = format!(
            "DAG status: {} ({})",
            self.dag_status as i32,
            self.dag_status.name()
        );
        self.say(host, Level::Verbose, text);
        let total = self.num_nodes(true);
        self.say(host, Level::Verbose, format!("Of {total} nodes total:"));
        self.say(
            host,
            Level::Verbose,
            " Done     Pre   Queued    Post   Ready   Un-Ready   Failed   Futile",
        );
        self.say(
            host,
            Level::Verbose,
            "  ===     ===      ===     ===     ===        ===      ===      ===",
        );
        let row = format!(
            "{:5}   {:5}    {:5}   {:5}   {:5}      {:5}    {:5}    {:5}",
            self.num_done(true),
            self.pre_run,
            self.num_submitted,
            self.post_run,
            self.num_ready(),
            self.num_unready(true),
            self.num_failed,
            self.num_futile
        );
        self.say(host, Level::Verbose, row);
        let held = self.held_procs();
        self.say(
            host,
            Level::Verbose,
            format!("{held} job proc(s) currently held"),
        );
        self.print_deferrals(Level::Verbose, false, host);
    }

    /// `PrintDeferrals`.
    pub fn print_deferrals(&self, level: Level, force: bool, host: &mut dyn Host) {
        let o = &self.opts;
        if self.max_jobs_deferred > 0 || force {
            self.say(
                host,
                level,
                format!(
                    "Note: {} total node deferrals because of -MaxJobs limit ({})",
                    self.max_jobs_deferred, o.max_jobs
                ),
            );
        }
        if self.max_idle_deferred > 0 || force {
            self.say(
                host,
                level,
                format!(
                    "Note: {} total node deferrals because of -MaxIdle limit ({})",
                    self.max_idle_deferred, o.max_idle
                ),
            );
        }
        if self.cat_deferred > 0 || force {
            self.say(
                host,
                level,
                format!(
                    "Note: {} total node deferrals because of node category throttles",
                    self.cat_deferred
                ),
            );
        }
        for (q, name, max) in [
            (&self.pre_q, "PRE", o.max_pre),
            (&self.post_q, "POST", o.max_post),
            (&self.hold_q, "HOLD", o.max_hold),
        ] {
            if q.deferred_count > 0 || force {
                let flag = match name {
                    "PRE" => "MaxPre",
                    "POST" => "MaxPost",
                    _ => "MaxHold",
                };
                self.say(
                    host,
                    level,
                    format!(
                        "Note: {} total {name} script deferrals because of -{flag} limit ({max}) or DEFER",
                        q.deferred_count
                    ),
                );
            }
        }
    }

    /// `PrintNodeList`: every node's dump (`None`), or those in one status.
    pub fn print_node_list(&self, status: Option<Status>, host: &mut dyn Host) {
        for (id, _) in self.dag.graph_nodes() {
            if status.is_none_or(|s| self.st[id].status == s) {
                self.dump_node(id, host);
            }
        }
        if status.is_none() {
            self.say(
                host,
                Level::Silent,
                "---------------------------------------\t<END>",
            );
        }
    }

    /// `Node::Dump`.
    fn dump_node(&self, id: NodeId, host: &mut dyn Host) {
        let n = &self.dag.nodes[id];
        let s = &self.st[id];
        let mut lines = vec![
            "---------------------- Node ----------------------".to_owned(),
            format!("      Node Name: {}", n.name),
            format!("           Noop: {}", n.noop),
            format!("         NodeID: {}", n.created),
            format!("    Node Status: {}", s.status.padded_name()),
            format!("Node return val: {}", s.retval),
        ];
        if s.status == Status::Error {
            lines.push(format!("          Error: {}", s.error_text));
        }
        lines.push(format!("Job Submit File: {}", n.submit));
        for (kind, label) in [
            (ScriptKind::Pre, "     PRE Script"),
            (ScriptKind::Post, "    POST Script"),
            (ScriptKind::Hold, "    HOLD Script"),
        ] {
            if let Some(sc) = n.script(kind) {
                lines.push(format!("{label}: {}", sc.cmd));
            }
        }
        if s.retry_max > 0 {
            lines.push(format!("          Retry: {}", s.retry_max));
        }
        if s.cluster == -1 {
            lines.push(format!(" {:>7} Job ID: [not yet submitted]", n.job_type()));
        } else {
            lines.push(format!(
                " {:>7} Job ID: ({}.{}.{})",
                n.job_type(),
                s.cluster,
                s.proc,
                s.subproc
            ));
        }
        let names = |ids: &[NodeId]| {
            ids.iter()
                .map(|&i| self.dag.nodes[i].name.as_str())
                .collect::<Vec<_>>()
                .join(" ")
        };
        lines.push(format!(
            "PARENTS: {} WAITING: {} CHILDREN: {}",
            names(&n.parents),
            i32::from(s.waiting > 0),
            names(&n.children)
        ));
        for l in lines {
            self.say(host, Level::Silent, l);
        }
    }

    /// `PrintPendingNodes`, every `DAGMAN_PENDING_REPORT_INTERVAL` without an event.
    pub fn pending_report(&mut self, now: i64, last_report: &mut i64, host: &mut dyn Host) {
        let interval = self.opts.pending_report_interval;
        if interval <= 0 || self.last_event_time == 0 {
            return;
        }
        let since_event = now - self.last_event_time;
        if since_event < interval || now - *last_report < interval {
            return;
        }
        *last_report = now;
        self.say(
            host,
            Level::Normal,
            format!("{since_event} seconds since last log event"),
        );
        self.say(host, Level::Silent, "Pending DAG nodes:");
        for (id, n) in self.dag.graph_nodes() {
            let s = &self.st[id];
            if matches!(
                s.status,
                Status::PreRun | Status::Submitted | Status::PostRun
            ) {
                let text = format!(
                    "  Node {}, HTCondor ID {}, status {}",
                    n.name,
                    s.cluster,
                    s.status.padded_name()
                );
                self.say(host, Level::Silent, text);
            }
        }
        // `GetCondorLogStatus`: long without an event, the queue is asked whether the
        // submitted nodes' jobs are still there (a node found wanting a second time ends the
        // DAG with a rescue).
        let check = self.opts.check_queue_interval;
        let submitted = self.st.iter().any(|s| s.status == Status::Submitted);
        if check > 0 && submitted && !self.validated_state && since_event >= check {
            let size = host.node_log_size();
            self.verify_jobs_in_queue(size, host);
        }
    }

    // ----- the jobstate log -----

    fn job_tag(&mut self, id: NodeId, host: &mut dyn Host) -> String {
        if self.st[id].job_tag.is_none() {
            let tag = host.job_tag(&self.dag.nodes[id]);
            self.st[id].job_tag = Some(tag);
        }
        self.st[id].job_tag.clone().unwrap_or_else(|| "-".into())
    }

    fn jobstate_seq(&mut self, id: NodeId) -> i32 {
        if self.st[id].jobstate_seq == 0 {
            self.jobstate_next_seq += 1;
            self.st[id].jobstate_seq = self.jobstate_next_seq;
        }
        self.st[id].jobstate_seq
    }

    /// `JobstateLog::Write(time, node, event, condorId)`.
    fn jobstate_node(
        &mut self,
        id: NodeId,
        time: Option<i64>,
        event: &str,
        condor_id: &str,
        host: &mut dyn Host,
    ) {
        if self.dag.jobstate_log.is_none() {
            return;
        }
        let tag = self.job_tag(id, host);
        let seq = self.jobstate_seq(id);
        let info = format!("{} {event} {condor_id} {tag} - {seq}", self.name(id));
        host.jobstate(time.filter(|&t| t != 0), &info);
    }

    fn condor_id_str(&self, cluster: i32, proc: i32) -> String {
        if cluster != -1 {
            format!("{cluster}.{proc}")
        } else {
            "-".into()
        }
    }

    fn jobstate_event(&mut self, id: NodeId, event: &Event, time: i64, host: &mut dyn Host) {
        let name = ulog_name(event.number());
        let name = name.strip_prefix("ULOG_").unwrap_or(name).to_owned();
        let cid = self.condor_id_str(event.cluster, event.proc);
        self.jobstate_node(id, Some(time), &name, &cid, host);
    }

    fn jobstate_job_result(&mut self, id: NodeId, host: &mut dyn Host) {
        let ok = self.st[id].retval == 0;
        let event = if ok { "JOB_SUCCESS" } else { "JOB_FAILURE" };
        let retval = self.st[id].retval.to_string();
        let time = Some(self.st[id].last_event_time);
        self.jobstate_node(id, time, event, &retval, host);
    }

    fn jobstate_script_started(&mut self, id: NodeId, kind: ScriptKind, host: &mut dyn Host) {
        let event = match kind {
            ScriptKind::Pre => "PRE_SCRIPT_STARTED",
            ScriptKind::Post => "POST_SCRIPT_STARTED",
            ScriptKind::Hold => return,
        };
        let cid = self.script_condor_id(id, kind);
        let time = Some(self.st[id].last_event_time);
        self.jobstate_node(id, time, event, &cid, host);
    }

    fn jobstate_script_result(&mut self, id: NodeId, kind: ScriptKind, host: &mut dyn Host) {
        let ok = self.st[id].retval == 0;
        let event = match (kind, ok) {
            (ScriptKind::Pre, true) => "PRE_SCRIPT_SUCCESS",
            (ScriptKind::Pre, false) => "PRE_SCRIPT_FAILURE",
            (ScriptKind::Post, true) => "POST_SCRIPT_SUCCESS",
            (ScriptKind::Post, false) => "POST_SCRIPT_FAILURE",
            (ScriptKind::Hold, _) => return,
        };
        let cid = self.script_condor_id(id, kind);
        let time = Some(self.st[id].last_event_time);
        self.jobstate_node(id, time, event, &cid, host);
    }

    fn script_condor_id(&self, id: NodeId, kind: ScriptKind) -> String {
        if kind != ScriptKind::Post {
            return "-".into();
        }
        let s = &self.st[id];
        let proc = if self.dag.nodes[id].noop { s.proc } else { 0 };
        self.condor_id_str(s.cluster, proc)
    }

    /// Sets the next jobstate sequence number after a rescue (`InitializeRescue`).
    pub fn set_jobstate_next_seq(&mut self, next: i32) {
        self.jobstate_next_seq = next - 1;
    }
}

#[cfg(test)]
#[path = "engine_tests.rs"]
mod tests;
