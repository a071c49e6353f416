//! `condor_q`'s default view: one line per batch (`reduce_results` in
//! src/condor_q.V6/queue.cpp).
//!
//! The jobs arrive in job-id order and are gathered per cluster ([`Collector`]): the first
//! job of a cluster gives the cluster's line its attributes (HTCondor folds the other procs
//! into it and reads only their ids and states, so their ads are not even parsed here).
//! Then DAG node clusters are linked under their DAGMan job, and clusters that share a
//! batch name (per owner) under the first of them. Each batch is folded into one line: its
//! job states summed (RUN counts running and transferring output, IDLE idle and
//! suspended), DONE from `TotalSubmitProcs` less the procs still in the queue (not known
//! when the query could have left some of the cluster's jobs out), and the range of its job
//! ids.

use std::collections::HashMap;
use std::sync::Arc;

use crate::classad::ClassAd;
use crate::output::mask::{Alt, Cell, Column, PrintMask, Render, RenderEnv, HIDE, LEFT};
use crate::output::render::{format_qdate, lookup_int, lookup_str};
use crate::queue::universe;
use crate::queue::JobId;

/// What the batch view needs of the first job of a cluster.
#[derive(Clone, Debug)]
struct JobRow {
    id: JobId,
    owner: Option<Arc<str>>,
    batch_name: Option<Arc<str>>,
    qdate: Option<i64>,
    status: Option<i64>,
    sched: bool,
    dag_nodes_done: Option<i64>,
    /// `DAG_NodesTotal ?: TotalSubmitProcs`.
    total: Option<i64>,
    /// The DAGMan job this job is a node of.
    dag_parent: Option<JobId>,
    batch_uid: u32,
    materialize_next: Option<i64>,
}

/// Batch names seen so far, by name and owner (`resolve_job_batch_uid`).
#[derive(Debug, Default)]
struct BatchNames {
    uids: HashMap<(Arc<str>, Option<Arc<str>>), u32>,
}

impl JobRow {
    /// The row of one job (`process_job_to_rod_per_ad_map` in batch mode). With `-dag` a
    /// DAG node job's owner column shows its node name (`DAG_OWNER`).
    fn new(id: JobId, ad: &ClassAd, status: i64, names: &mut BatchNames, dag: bool) -> JobRow {
        let owner = lookup_str(ad, "Owner");
        let shown_owner = match lookup_str(ad, "DAGNodeName") {
            Some(node) if dag && ad.lookup("DAGManJobId").is_some() => Some(node),
            _ => owner.clone(),
        };
        let universe = lookup_int(ad, "JobUniverse");
        let sched = universe == Some(universe::SCHEDULER);
        let has_dag_id = ad.lookup("DAGManJobId").is_some();
        let node_name = || lookup_str(ad, "DAGNodeName");
        let batch_attr = lookup_str(ad, "JobBatchName");
        let batch_name = match &batch_attr {
            Some(name) => Some(name.clone()),
            None if sched => Some(Arc::from(format!("DAG: {}", id.cluster.0))),
            None if has_dag_id => node_name().map(|n| Arc::from(format!("NODE: {n}"))),
            None => None,
        };
        let dag_parent = dagman_job_id(ad).map(|c| JobId::new(c as i32, 0));
        let mut batch_uid = 0;
        if dag_parent.is_none() {
            let key = match &batch_attr {
                Some(name) => Some(name.clone()),
                None if has_dag_id => node_name().map(|n| Arc::from(format!("NODE: {n}"))),
                None => None,
            };
            if let Some(key) = key {
                let next = names.uids.len() as u32 + 1;
                batch_uid = *names.uids.entry((key, owner.clone())).or_insert(next);
            }
        }
        let total = match lookup_int(ad, "DAG_NodesTotal") {
            Some(t) => Some(t),
            None => lookup_int(ad, "TotalSubmitProcs"),
        };
        JobRow {
            id,
            owner: shown_owner,
            batch_name,
            qdate: lookup_int(ad, "QDate"),
            status: Some(status),
            sched,
            dag_nodes_done: lookup_int(ad, "DAG_NodesDone"),
            total,
            dag_parent,
            batch_uid,
            materialize_next: lookup_int(ad, "JobMaterializeNextProcId").filter(|n| *n >= 0),
        }
    }
}

/// One cluster's jobs: the first one's row, and the ids and states of the others.
#[derive(Clone, Debug)]
struct ClusterRow {
    row: JobRow,
    /// How many more procs, their states, and the highest proc id.
    others: i64,
    other_states: [i64; 11],
    max_proc: i32,
}

/// Gathers the jobs of a query, cluster by cluster.
#[derive(Debug, Default)]
pub struct Collector {
    clusters: Vec<ClusterRow>,
    names: BatchNames,
    /// `-dag`: node jobs show their node names as owners.
    dag: bool,
}

impl Collector {
    pub fn new(dag: bool) -> Collector {
        Collector {
            dag,
            ..Collector::default()
        }
    }

    /// Adds the next job (in job-id order).
    pub fn add(&mut self, job: &crate::queue::Job) -> Result<(), crate::queue::QueueError> {
        let id = job.id();
        if let Some(last) = self.clusters.last_mut() {
            if last.row.id.cluster == id.cluster {
                last.others += 1;
                last.other_states[state_index(Some(job.status_code()))] += 1;
                last.max_proc = last.max_proc.max(id.proc);
                return Ok(());
            }
        }
        let row = JobRow::new(id, job.ad()?, job.status_code(), &mut self.names, self.dag);
        self.clusters.push(ClusterRow {
            row,
            others: 0,
            other_states: [0; 11],
            max_proc: id.proc,
        });
        Ok(())
    }

    /// The batch lines.
    pub fn lines(self, partial_clusters: bool) -> Vec<BatchLine> {
        reduce(&self.clusters, partial_clusters)
    }
}

/// `lookup_dagman_job_id`: an integer, or a string such as `"201.0"`.
pub(super) fn dagman_job_id(ad: &ClassAd) -> Option<i64> {
    let v = crate::output::render::lookup_value(ad, "DAGManJobId")?;
    if let Some(i) = v.as_int() {
        return (i > 0).then_some(i);
    }
    let s = v.as_str()?;
    let digits: String = s.chars().take_while(|c| c.is_ascii_digit()).collect();
    let rest = &s[digits.len()..];
    let id: i64 = digits.parse().ok()?;
    (id > 0 && (rest.is_empty() || rest.starts_with('.'))).then_some(id)
}

/// Links between cluster rows (indexes into the list).
#[derive(Clone, Debug, Default)]
struct Links {
    next_sib: Option<usize>,
    last_sib: Option<usize>,
    children: Option<usize>,
    dag_node: bool,
    folded: bool,
}

/// The sums over one batch (`child_progress`).
#[derive(Clone, Debug, Default)]
struct Progress {
    nodes_total: i64,
    nodes_done: i64,
    unknown_total: i64,
    cluster: i32,
    min_proc: i32,
    max_proc: i32,
    states: [i64; 11],
    min_jobid: Option<(i32, i32)>,
    max_jobid: (i32, i32),
}

/// One line of the batch view.
#[derive(Clone, Debug)]
pub struct BatchLine {
    owner: Option<Arc<str>>,
    batch_name: String,
    qdate: Option<i64>,
    done: i64,
    run: i64,
    idle: i64,
    held: i64,
    total: i64,
    ids: String,
}

/// Folds the cluster rows (in job-id order) into batch lines.
fn reduce(rows: &[ClusterRow], partial_clusters: bool) -> Vec<BatchLine> {
    let mut links = vec![Links::default(); rows.len()];
    link(rows, &mut links);
    let mut lines = Vec::new();
    for i in 0..rows.len() {
        if links[i].folded {
            continue;
        }
        let mut prog = Progress::default();
        reduce_children(rows, &mut links, Some(i), &mut prog, partial_clusters);
        let row = &rows[i].row;
        let unknown = prog.unknown_total > 0;
        let batch_name = row
            .batch_name
            .as_deref()
            .map_or_else(|| format!("ID: {}", row.id.cluster.0), str::to_owned);
        let (min, max) = (prog.min_jobid.unwrap_or((0, 0)), prog.max_jobid);
        let ids = if min != max {
            if min.0 == max.0 {
                format!("{}.{}-{}", min.0, min.1, max.1)
            } else {
                format!("{}.{} ... {}.{}", min.0, min.1, max.0, max.1)
            }
        } else {
            format!("{}.{}", min.0, min.1)
        };
        lines.push(BatchLine {
            owner: row.owner.clone(),
            batch_name,
            qdate: row.qdate,
            done: if unknown { 0 } else { prog.nodes_done },
            run: prog.states[2] + prog.states[6],
            idle: prog.states[1] + prog.states[7],
            held: prog.states[5],
            total: if unknown { 0 } else { prog.nodes_total },
            ids,
        });
    }
    lines
}

/// `linkup_nodes_by_id`, cluster by cluster (a cluster's procs are always linked together).
fn link(rows: &[ClusterRow], links: &mut [Links]) {
    let index: HashMap<JobId, usize> = rows
        .iter()
        .enumerate()
        .filter(|(_, r)| r.row.id.proc == 0)
        .map(|(i, r)| (r.row.id, i))
        .collect();
    let mut first_of_batch: HashMap<u32, usize> = HashMap::new();
    for (i, cluster) in rows.iter().enumerate() {
        let row = &cluster.row;
        if let Some(parent_id) = row.dag_parent {
            links[i].dag_node = true;
            if i == 0 {
                continue;
            }
            if let Some(&parent) = index.get(&parent_id) {
                match links[parent].children {
                    None => links[parent].children = Some(i),
                    Some(head) => append_sibling(links, head, i),
                }
            }
        } else if row.batch_uid != 0 {
            let first = *first_of_batch.entry(row.batch_uid).or_insert(i);
            if first != i && !row.sched {
                append_sibling(links, first, i);
            }
        }
    }
}

fn append_sibling(links: &mut [Links], head: usize, sib: usize) {
    match links[head].last_sib {
        None => links[head].next_sib = Some(sib),
        Some(last) => links[last].next_sib = Some(sib),
    }
    links[head].last_sib = Some(sib);
}

/// `reduce_children`: a cluster, its siblings and their children.
fn reduce_children(
    rows: &[ClusterRow],
    links: &mut [Links],
    mut at: Option<usize>,
    prog: &mut Progress,
    partial: bool,
) {
    while let Some(i) = at {
        reduce_procs(&rows[i], links[i].dag_node, prog, partial);
        if !rows[i].row.sched {
            let min = (prog.cluster, prog.min_proc);
            prog.min_jobid = Some(prog.min_jobid.map_or(min, |m| m.min(min)));
            prog.max_jobid = prog.max_jobid.max((prog.cluster, prog.max_proc));
        }
        links[i].folded = true;
        if let Some(child) = links[i].children {
            reduce_children(rows, links, Some(child), prog, partial);
        }
        at = links[i].next_sib;
    }
}

/// `reduce_procs`: one cluster's procs.
fn reduce_procs(cluster: &ClusterRow, dag_node: bool, prog: &mut Progress, partial: bool) {
    let row = &cluster.row;
    prog.cluster = row.id.cluster.0;
    prog.min_proc = row.id.proc;
    prog.max_proc = row.id.proc;
    let mut total_submit_procs = 0;
    let mut num_procs = 0;
    if row.sched {
        prog.nodes_total += row.total.unwrap_or(0);
        prog.nodes_done += row.dag_nodes_done.unwrap_or(0);
    } else {
        if let Some(t) = row.total {
            total_submit_procs = t;
            num_procs = 1;
        }
        prog.states[state_index(row.status)] += 1;
    }
    for (s, n) in prog.states.iter_mut().zip(cluster.other_states) {
        *s += n;
    }
    prog.max_proc = prog.max_proc.max(cluster.max_proc);
    num_procs += cluster.others;
    if !row.sched && !dag_node {
        if total_submit_procs != 0 {
            let mut done = total_submit_procs - num_procs;
            if let Some(next_proc) = row.materialize_next {
                let jobs = prog.states.iter().sum::<i64>();
                done = next_proc - jobs;
            }
            prog.nodes_total += total_submit_procs;
            if !partial {
                prog.nodes_done += done;
            }
        } else {
            prog.unknown_total += 1;
        }
    }
}

fn state_index(status: Option<i64>) -> usize {
    match status {
        Some(s @ 0..=10) => s as usize,
        _ => 0,
    }
}

/// The batch view's columns (`jobProgress_PrintFormat`).
pub fn mask() -> PrintMask {
    let mut mask = PrintMask::new();
    mask.set_separators(None, Some(" "), None, Some("\n"));
    let nothing: fn(&ClassAd, &RenderEnv) -> Option<String> = |_, _| None;
    let auto = crate::output::mask::AUTO_WIDTH | crate::output::mask::NO_TRUNCATE;
    mask.push_headed(
        "OWNER",
        Column::new("Owner", None, -5, auto, Render::Str(nothing)).with_alt(Alt::from_text("??")),
    );
    mask.push_headed(
        "BATCH_NAME",
        Column::new("Cmd", None, -12, 0, Render::Str(nothing)),
    );
    mask.push_headed(
        "   SUBMITTED",
        Column::new("QDate", Some("%Y"), 12, 0, Render::IntFormat(format_qdate)),
    );
    for (head, attr) in [
        ("  DONE", "JobStatus"),
        ("  RUN ", "JobUniverse"),
        ("  IDLE", "DAG_NodesQueued"),
        ("  HOLD", "DAG_NodesDone"),
        (" TOTAL", "DAG_NodesTotal?:TotalSubmitProcs"),
    ] {
        mask.push_headed(
            head,
            Column::new(attr, Some("%6d"), 6, 0, Render::Printf).with_alt(Alt::from_text("_")),
        );
    }
    mask.push_headed(
        "JOB_IDS",
        Column::new("JobStatus", None, 0, 0, Render::Str(nothing)),
    );
    mask
}

/// How many characters a count needs (`number_width`).
fn number_width(n: i64) -> usize {
    n.max(0).to_string().len()
}

/// Sizes the batch view's columns to its lines (`fnFixupWidthsForProgressFormat` and the
/// squeeze to the terminal width), and returns the rows to display.
pub fn layout(mask: &mut PrintMask, lines: &[BatchLine], width: Option<usize>) -> Vec<Vec<Cell>> {
    let owner_render_width = lines
        .iter()
        .filter_map(|l| l.owner.as_ref().map(|o| o.len()))
        .max()
        .unwrap_or(0)
        .max(5) as i32;
    let mut owner_width = lines
        .iter()
        .map(|l| l.owner.as_ref().map_or(0, |o| o.len()))
        .max()
        .unwrap_or(0) as i32;
    let mut batch_width = lines.iter().map(|l| l.batch_name.len()).max().unwrap_or(0) as i32;
    let mut ids_width = lines.iter().map(|l| l.ids.len()).max().unwrap_or(0) as i32;
    let any_held = lines.iter().any(|l| l.held > 0);
    let mut counts = [0usize; 5];
    for l in lines {
        for (k, n) in [l.done, l.run, l.idle, l.held, l.total]
            .into_iter()
            .enumerate()
        {
            counts[k] = counts[k].max(number_width(n));
        }
    }
    if let Some(display) = width {
        let var_wid = display as i32 - 50;
        if batch_width + owner_width + ids_width > var_wid {
            let var_min = 8 + 10 + 9;
            let (mut bw, mut nw, iw) = {
                let each = (var_wid - var_min) / 3;
                (each, each, each)
            };
            if iw < ids_width {
                let needed = (batch_width + owner_width) - (bw + nw + 10 + 8);
                if needed > 7 && bw < 10 {
                    ids_width /= 2;
                }
            }
            if iw + 9 > ids_width {
                let rw = iw + 9 - ids_width;
                nw += rw / 2;
                bw += rw - rw / 2;
            }
            if bw + 10 > batch_width {
                let rw = bw + 10 - batch_width;
                nw = (8 + nw + rw).min(owner_width) - 8;
            }
            if nw + 8 > owner_width {
                let rw = nw + 8 - owner_width;
                bw = (10 + bw + rw).min(batch_width) - 10;
            }
            batch_width = batch_width.min(bw + 10);
            owner_width = owner_width.min(nw + 8);
        }
    }
    if !lines.is_empty() {
        let owner = &mut mask.columns[0];
        if owner_width < owner_render_width {
            owner.width = owner_width.max(8);
            owner.opts &= !(crate::output::mask::NO_TRUNCATE | crate::output::mask::AUTO_WIDTH);
        } else {
            owner.width = owner_width;
        }
        owner.opts |= LEFT;
        mask.columns[1].width = -batch_width.max(10);
        for (k, w) in counts.into_iter().enumerate() {
            if w > 6 {
                let col = &mut mask.columns[3 + k];
                col.width = w as i32;
                col.set_printf(&format!("%{w}d"));
            }
        }
        if !any_held {
            mask.columns[6].opts |= HIDE;
        }
    }
    let count = |n: i64| if n > 0 { Cell::Int(n) } else { Cell::Invalid };
    lines
        .iter()
        .map(|l| {
            vec![
                l.owner
                    .as_ref()
                    .map_or(Cell::Invalid, |o| Cell::Str(o.to_string())),
                Cell::Str(l.batch_name.clone()),
                l.qdate.map_or(Cell::Invalid, Cell::Int),
                count(l.done),
                count(l.run),
                count(l.idle),
                count(l.held),
                count(l.total),
                Cell::Str(l.ids.clone()),
            ]
        })
        .collect()
}
