//! What condor_watch_q draws from the tracked jobs, as its `group_clusters`,
//! `make_rows_from_groups`, `make_table`, `make_progress_bar` and `make_summary_*` do: pure
//! functions of the state, the options and the terminal's size, so that every frame can be
//! checked as text.

use std::collections::{HashMap, HashSet};

use super::tracker::{ClusterState, Counts, JobState, Tracker};

/// What rows are (`-groupby`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GroupBy {
    Batch,
    Log,
    Cluster,
}

impl GroupBy {
    fn heading(self) -> &'static str {
        match self {
            GroupBy::Batch => "BATCH",
            GroupBy::Log => "LOG",
            GroupBy::Cluster => "CLUSTER",
        }
    }
}

/// What the queue said of DAGs: their node jobs are grouped under the DAGMan job's batch.
#[derive(Clone, Debug, Default)]
pub struct Dags {
    /// A `DAGManNodesLog` as the queue gave it, and the batch name of its cluster.
    pub nodes_logs: HashMap<String, String>,
    /// The DAGMan jobs' own clusters (they have `OtherJobRemoveRequirements`): not rows.
    pub dagman_clusters: HashSet<i32>,
    /// `DAG_NodesTotal` by batch name.
    pub nodes_total: HashMap<String, u64>,
}

/// One row of the table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    pub key: String,
    pub counts: Counts,
    /// `max(DAG_NodesTotal, the jobs seen)`.
    pub total: u64,
    /// The active jobs: `a, b`, or `first ... last` when more than two.
    pub job_ids: String,
}

impl Row {
    fn count(&self, s: JobState) -> u64 {
        self.counts[s as usize]
    }
}

/// A group being gathered.
#[derive(Default)]
struct Group {
    counts: Counts,
    nodes_total: Option<u64>,
    active: u64,
    /// The first three active jobs, and the last.
    some_active: Vec<(i32, i32)>,
    last_active: Option<(i32, i32)>,
}

impl Group {
    fn add(&mut self, c: &ClusterState) {
        for (sum, n) in self.counts.iter_mut().zip(c.counts) {
            *sum += n;
        }
        let active = c.active_procs();
        self.active += active.len() as u64;
        for &p in active.iter().take(3 - self.some_active.len().min(3)) {
            self.some_active.push((c.id, p));
        }
        if let Some(&p) = active.iter().next_back() {
            self.last_active = Some((c.id, p));
        }
    }

    fn job_ids(&self) -> String {
        let id = |(c, p): (i32, i32)| format!("{c}.{p}");
        if self.active > 2 {
            let first = self.some_active[0];
            let last = self.last_active.unwrap_or(first);
            format!("{} ... {}", id(first), id(last))
        } else {
            let ids: Vec<String> = self.some_active.iter().map(|&j| id(j)).collect();
            ids.join(", ")
        }
    }
}

/// The rows, in the order of their smallest cluster id. `show_log` is how a log's path is
/// shown (`nice_path`, then `-abbreviate`).
pub fn rows(
    tracker: &Tracker,
    group_by: GroupBy,
    dags: &Dags,
    show_log: &dyn Fn(&str) -> String,
) -> Vec<Row> {
    let mut groups: HashMap<String, Group> = HashMap::new();
    let mut order: Vec<String> = Vec::new();
    for c in tracker.clusters() {
        let log = &tracker.logs()[c.log];
        let dag_batch = dags.nodes_logs.get(log.as_str());
        let (key, dag) = match dag_batch {
            Some(batch) if group_by == GroupBy::Batch => (batch.clone(), true),
            _ if dags.dagman_clusters.contains(&c.id) => continue,
            _ => (
                match group_by {
                    GroupBy::Batch => c.batch_name(),
                    GroupBy::Log => log.clone(),
                    GroupBy::Cluster => c.id.to_string(),
                },
                false,
            ),
        };
        let group = groups.entry(key.clone()).or_insert_with(|| {
            order.push(key.clone());
            Group::default()
        });
        if dag {
            group.nodes_total = dags.nodes_total.get(&key).copied();
        }
        group.add(c);
    }
    // Clusters come in id order, so groups are first met in the order of their first cluster.
    order
        .into_iter()
        .map(|key| {
            let g = &groups[&key];
            let seen: u64 = g.counts.iter().sum();
            Row {
                key: if group_by == GroupBy::Log {
                    show_log(&key)
                } else {
                    key.clone()
                },
                counts: g.counts,
                total: g.nodes_total.map_or(seen, |n| n.max(seen)),
                job_ids: g.job_ids(),
            }
        })
        .collect()
}

/// The display options.
#[derive(Clone, Copy, Debug)]
pub struct Layout {
    pub group_by: GroupBy,
    pub table: bool,
    pub progress: bool,
    pub row_progress: bool,
    pub summary: bool,
    pub percentages: bool,
    pub updated_at: bool,
    /// Colours are written (`-color` on a terminal: `colorize` checks the terminal itself).
    pub color: bool,
    pub refresh: bool,
    /// Some `-exit` condition was given (no `Input ^C to exit` line then).
    pub exit_conditions: bool,
}

const RESET: &str = "\x1b[0m";
const RED: &str = "\x1b[31m";
const GREEN: &str = "\x1b[32m";
const YELLOW: &str = "\x1b[33m";
const CYAN: &str = "\x1b[36m";
const BRIGHT_YELLOW: &str = "\x1b[93m";
const BRIGHT_WHITE: &str = "\x1b[97m";

fn colorize(s: &str, color: &str) -> String {
    format!("{color}{s}{RESET}")
}

/// The length of a line on the screen: its characters, colours left out (`strip_ansi`).
pub fn visible_width(s: &str) -> usize {
    let mut n = 0;
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\x1b' && chars.peek() == Some(&'[') {
            chars.next();
            // Parameters and intermediates, then one final byte.
            for c in chars.by_ref() {
                if ('@'..='~').contains(&c) {
                    break;
                }
            }
        } else {
            n += 1;
        }
    }
    n
}

/// What erases a frame drawn on a terminal, leaving the cursor where it began: up its lines,
/// blanks as wide as each, and up again (HTCondor's `move + clear + move`).
pub fn erase(frame: &str) -> String {
    let lines: Vec<&str> = frame.lines().collect();
    let up = format!("\x1b[{}A\r", lines.len());
    let blank: Vec<String> = lines.iter().map(|l| " ".repeat(visible_width(l))).collect();
    format!("{up}{}\n{up}", blank.join("\n"))
}

/// The length Python's `len` gives.
fn width(s: &str) -> usize {
    s.chars().count()
}

/// A frame: the blocks that are on, each followed by a blank line but the last, cut to the
/// terminal's height; then `...` when appending and `Input ^C to exit` when no condition ends
/// the watch. `now` is the local time, `%Y-%m-%d %H:%M:%S`.
pub fn frame(layout: &Layout, rows: &[Row], now: &str, (columns, lines): (usize, usize)) -> String {
    let mut totals = Counts::default();
    let mut total = 0;
    for r in rows {
        for (sum, n) in totals.iter_mut().zip(r.counts) {
            *sum += n;
        }
        total += r.total;
    }
    let mut msg: Vec<String> = Vec::new();
    if layout.table {
        msg.extend(table(layout, rows, columns));
        msg.push(String::new());
    }
    if layout.progress {
        msg.push(progress_bar(&totals, total, columns, layout.color));
        msg.push(String::new());
    }
    if layout.summary {
        msg.push(if layout.percentages {
            summary_percentages(&totals, total)
        } else {
            summary_totals(&totals, total, columns)
        });
        msg.push(String::new());
    }
    if layout.updated_at {
        msg.push(format!("Updated at {now}"));
        msg.push(String::new());
    }
    let mut text = if msg.len() > lines {
        msg.truncate(lines.saturating_sub(1));
        msg.pop();
        let mut t = msg.join("\n");
        t.push_str("\nInsufficient terminal height to display full output!");
        t
    } else {
        msg.pop();
        msg.join("\n")
    };
    if !layout.refresh {
        text.push_str("\n...");
    }
    if !layout.exit_conditions {
        text.push_str("\nInput ^C to exit");
    }
    text
}

/// A column of the table.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Column {
    Key,
    State(JobState),
    Total,
    JobIds,
}

/// `make_table`, after `strip_empty_columns` and the zeros stripped (shown as `-`).
fn table(layout: &Layout, rows: &[Row], columns: usize) -> Vec<String> {
    let mut headers = vec![Column::Key];
    for s in JobState::ORDERED {
        let always = matches!(s, JobState::Idle | JobState::Running | JobState::Completed);
        if always || !rows.iter().all(|r| r.count(s) == 0) {
            headers.push(Column::State(s));
        }
    }
    headers.push(Column::Total);
    if !rows.is_empty() {
        headers.push(Column::JobIds);
    }
    let heading = |c: Column| match c {
        Column::Key => layout.group_by.heading(),
        Column::State(s) => s.heading(),
        Column::Total => "TOTAL",
        Column::JobIds => "JOB_IDS",
    };
    let number = |n: u64| {
        if n == 0 {
            "- ".to_owned()
        } else {
            format!("{n} ")
        }
    };
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            headers
                .iter()
                .map(|&c| match c {
                    Column::Key => format!("{} ", r.key),
                    Column::State(s) => number(r.count(s)),
                    Column::Total => number(r.total),
                    Column::JobIds => format!("{} ", r.job_ids),
                })
                .collect()
        })
        .collect();
    let mut lengths: Vec<usize> = headers.iter().map(|&c| heading(c).len()).collect();
    for row in &cells {
        for (l, cell) in lengths.iter_mut().zip(row) {
            *l = (*l).max(width(cell));
        }
    }
    let justify = |c: Column, s: &str, len: usize| {
        let pad = " ".repeat(len.saturating_sub(width(s)));
        match c {
            Column::Key | Column::JobIds => format!("{s}{pad}"),
            _ => format!("{pad}{s}"),
        }
    };
    let header: Vec<String> = headers
        .iter()
        .zip(&lengths)
        .map(|(&c, &l)| justify(c, heading(c), l))
        .collect();
    let mut lines = vec![header.join("  ").trim_end().to_owned()];
    let mut body: Vec<String> = cells
        .iter()
        .zip(rows)
        .map(|(row, r)| {
            let fields: Vec<String> = headers
                .iter()
                .zip(&lengths)
                .zip(row)
                .map(|((&c, &l), cell)| justify(c, cell, l))
                .collect();
            let line = fields.join("  ");
            if layout.color {
                colorize(&line, row_color(r))
            } else {
                line
            }
        })
        .collect();
    // The first row's length without its colours (all rows are as long).
    let remaining = match cells.first() {
        Some(_) => {
            columns as i64 - lengths.iter().sum::<usize>() as i64 - 2 * (lengths.len() as i64 - 1)
        }
        None => columns as i64,
    };
    if layout.row_progress && remaining > 10 {
        for (line, r) in body.iter_mut().zip(rows) {
            line.push_str(&progress_bar(
                &r.counts,
                r.total,
                remaining as usize,
                layout.color,
            ));
        }
    } else {
        // Cut as Python slices: by characters, colours included.
        for line in &mut body {
            if let Some((i, _)) = line.char_indices().nth(columns) {
                line.truncate(i);
            }
        }
    }
    lines.extend(body);
    lines
}

/// `determine_row_color`.
fn row_color(r: &Row) -> &'static str {
    if r.count(JobState::Held) > 0 {
        RED
    } else if r.count(JobState::Completed) == r.total {
        GREEN
    } else if r.count(JobState::Running) > 0 {
        CYAN
    } else if r.count(JobState::Idle) > 0 {
        YELLOW
    } else {
        BRIGHT_WHITE
    }
}

/// `make_progress_bar`: `[` DONE `#`, RUN `=`, IDLE `-`, HELD/SUSPENDED/REMOVED `!` `]`, in
/// `min(width, 79) - 2` characters; what rounding leaves goes to the longest section.
fn progress_bar(counts: &Counts, total: u64, width: usize, color: bool) -> String {
    let inner = width.min(79) as i64 - 2;
    let sections = [
        (JobState::Completed, GREEN, '#'),
        (JobState::Running, CYAN, '='),
        (JobState::Idle, BRIGHT_YELLOW, '-'),
        (JobState::Held, RED, '!'),
        (JobState::Suspended, RED, '!'),
        (JobState::Removed, RED, '!'),
    ];
    let mut lengths: Vec<i64> = sections
        .iter()
        .map(|&(s, _, _)| {
            let n = counts[s as usize];
            let fraction = if n == 0 || total == 0 {
                0.0
            } else {
                n as f64 / total as f64
            };
            (inner as f64 * fraction) as i64
        })
        .collect();
    // The first of the longest, as Python's max does.
    let mut longest = 0;
    for (i, &l) in lengths.iter().enumerate() {
        if l > lengths[longest] {
            longest = i;
        }
    }
    lengths[longest] += inner - lengths.iter().sum::<i64>();
    let mut bar = String::from("[");
    for (&(_, c, ch), &l) in sections.iter().zip(&lengths) {
        let part: String = std::iter::repeat_n(ch, l.max(0) as usize).collect();
        bar.push_str(&if color { colorize(&part, c) } else { part });
    }
    bar.push(']');
    bar
}

/// The summary's states, in its order, and their words.
const SUMMARY: [(JobState, &str); 6] = [
    (JobState::Completed, "completed"),
    (JobState::Removed, "removed"),
    (JobState::Idle, "idle"),
    (JobState::Running, "running"),
    (JobState::Held, "held"),
    (JobState::Suspended, "suspended"),
];

/// `make_summary_with_totals`: the states that have jobs; the words cut shorter (down to two
/// characters) until the line fits.
fn summary_totals(counts: &Counts, total: u64, columns: usize) -> String {
    let mut strip = 10;
    loop {
        let parts: Vec<String> = SUMMARY
            .iter()
            .filter(|(s, _)| counts[*s as usize] > 0)
            .map(|&(s, word)| format!("{} {}", counts[s as usize], &word[..word.len().min(strip)]))
            .collect();
        let line = format!("Total: {total} jobs; {}", parts.join(", "));
        if line.len() <= columns || strip <= 2 {
            return line;
        }
        strip -= 1;
    }
}

/// `make_summary_with_percentages`: every state, rounded half to even as Python's `round`.
/// (Its shorter form for narrow terminals is never used: it measures the line's first
/// character.)
fn summary_percentages(counts: &Counts, total: u64) -> String {
    let parts: Vec<String> = SUMMARY
        .iter()
        .map(|&(s, word)| {
            let n = counts[s as usize];
            let p = if n == 0 || total == 0 {
                0.0
            } else {
                (100.0 * (n as f64 / total as f64)).round_ties_even()
            };
            format!("{}% {word}", p as i64)
        })
        .collect();
    format!("Total: {total} jobs; {}", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eventlog::{EventBody, Execute, JobHeld, JobTerminated, Submit};
    use crate::tools::watch_q::tracker::Filter;

    fn counts(done: u64, run: u64, idle: u64, held: u64) -> Counts {
        let mut c = Counts::default();
        c[JobState::Completed as usize] = done;
        c[JobState::Running as usize] = run;
        c[JobState::Idle as usize] = idle;
        c[JobState::Held as usize] = held;
        c
    }

    #[test]
    fn the_bar_gives_what_rounding_leaves_to_its_longest_section() {
        // 10 inside: 3.33 -> 3 each, the remainder to the first of the longest.
        assert_eq!(
            progress_bar(&counts(1, 1, 1, 0), 3, 12, false),
            "[####===---]"
        );
        // Nothing to show: all of it goes to the first section, as in HTCondor's.
        assert_eq!(progress_bar(&Counts::default(), 0, 7, false), "[#####]");
        assert_eq!(progress_bar(&counts(0, 0, 0, 2), 2, 500, false).len(), 79);
        assert_eq!(
            progress_bar(&counts(1, 0, 0, 0), 1, 5, true),
            "[\x1b[32m###\x1b[0m\x1b[36m\x1b[0m\x1b[93m\x1b[0m\x1b[31m\x1b[0m\x1b[31m\x1b[0m\x1b[31m\x1b[0m]"
        );
    }

    #[test]
    fn summaries() {
        let c = counts(30, 12, 7, 1);
        assert_eq!(
            summary_totals(&c, 50, 80),
            "Total: 50 jobs; 30 completed, 7 idle, 12 running, 1 held"
        );
        assert_eq!(
            summary_totals(&c, 50, 48),
            "Total: 50 jobs; 30 comp, 7 idle, 12 runn, 1 held"
        );
        assert_eq!(
            summary_totals(&c, 50, 45),
            "Total: 50 jobs; 30 com, 7 idl, 12 run, 1 hel"
        );
        assert_eq!(
            summary_totals(&c, 50, 10),
            "Total: 50 jobs; 30 co, 7 id, 12 ru, 1 he"
        );
        // 12.5% rounds to even.
        assert_eq!(
            summary_percentages(&counts(1, 7, 0, 0), 8),
            "Total: 8 jobs; 12% completed, 0% removed, 0% idle, 88% running, 0% held, 0% suspended"
        );
    }

    #[test]
    fn events_to_a_frame() {
        let mut t = Tracker::new(Filter::default(), HashMap::new());
        let log = t.log_index("/w/jobs.log");
        for p in 0..4 {
            t.apply(log, 7, p, &EventBody::Submit(Submit::default()));
        }
        t.apply(log, 7, 0, &EventBody::Execute(Execute::default()));
        t.apply(
            log,
            7,
            1,
            &EventBody::JobTerminated(JobTerminated::default()),
        );
        t.apply(log, 7, 3, &EventBody::JobHeld(JobHeld::default()));
        t.apply(log, 9, 0, &EventBody::Submit(Submit::default()));
        let rows = rows(&t, GroupBy::Log, &Dags::default(), &|l: &str| {
            format!("<{l}>")
        });
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].job_ids, "7.0 ... 9.0");
        let layout = Layout {
            group_by: GroupBy::Log,
            table: true,
            progress: false,
            row_progress: false,
            summary: true,
            percentages: false,
            updated_at: true,
            color: false,
            refresh: true,
            exit_conditions: false,
        };
        assert_eq!(
            frame(&layout, &rows, "2024-01-31 12:00:00", (80, 24)),
            "LOG             HELD  IDLE  RUN  DONE  TOTAL  JOB_IDS\n\
             </w/jobs.log>     1     2    1     1      5   7.0 ... 9.0 \n\
             \n\
             Total: 5 jobs; 1 completed, 2 idle, 1 running, 1 held\n\
             \n\
             Updated at 2024-01-31 12:00:00\n\
             Input ^C to exit"
        );
        let colored = Layout {
            color: true,
            ..layout
        };
        let text = frame(&colored, &rows, "now", (80, 24));
        assert!(text.contains("\x1b[31m</w/jobs.log>"), "{text:?}");
        assert_eq!(visible_width("\x1b[31mab\x1b[0m"), 2);
        assert_eq!(
            erase("\x1b[31mab\x1b[0m\n\nxyz"),
            "\x1b[3A\r  \n\n   \n\x1b[3A\r"
        );
    }

    #[test]
    fn dag_nodes_join_the_dagman_jobs_batch() {
        let mut t = Tracker::new(Filter::default(), HashMap::new());
        let nodes = t.log_index("/w/x.dag.nodes.log");
        let own = t.log_index("/w/x.dag.dagman.log");
        t.apply(nodes, 11, 0, &EventBody::Submit(Submit::default()));
        t.apply(
            nodes,
            12,
            0,
            &EventBody::JobTerminated(JobTerminated::default()),
        );
        t.apply(own, 10, 0, &EventBody::Execute(Execute::default()));
        let dags = Dags {
            nodes_logs: HashMap::from([("/w/x.dag.nodes.log".into(), "x.dag+10".into())]),
            dagman_clusters: HashSet::from([10]),
            nodes_total: HashMap::from([("x.dag+10".into(), 5)]),
        };
        let rows = rows(&t, GroupBy::Batch, &dags, &|l: &str| l.to_owned());
        assert_eq!(rows.len(), 1);
        assert_eq!((rows[0].key.as_str(), rows[0].total), ("x.dag+10", 5));
        assert_eq!(rows[0].count(JobState::Completed), 1);
        // By cluster, the DAGMan job's own cluster is left out.
        let rows = super::rows(&t, GroupBy::Cluster, &dags, &|l: &str| l.to_owned());
        assert_eq!(
            rows.iter().map(|r| r.key.as_str()).collect::<Vec<_>>(),
            ["11", "12"]
        );
    }
}
