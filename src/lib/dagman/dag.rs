//! The parsed DAG: its nodes (with everything the DAG file says of each), the edges between
//! them, the categories and the files DAGMan writes, as `parse.cpp` leaves HTCondor's `Dag`
//! once splices are lifted and edges adjusted. Nothing here changes while the DAG runs; the
//! running state is [`super::engine`]'s.

use std::collections::{BTreeMap, HashMap};

/// A node's index in [`Dag::nodes`].
pub type NodeId = usize;

/// What kind of node a line declares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    Job,
    Final,
    Provisioner,
    Service,
}

impl NodeKind {
    /// The keyword that declares the kind (`JobTypeString` aside, as `Dag::Rescue` writes it).
    pub fn keyword(self) -> &'static str {
        match self {
            NodeKind::Job => "JOB",
            NodeKind::Final => "FINAL",
            NodeKind::Provisioner => "PROVISIONER",
            NodeKind::Service => "SERVICE",
        }
    }
}

/// PRE, POST or HOLD.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScriptKind {
    Pre,
    Post,
    Hold,
}

impl ScriptKind {
    pub fn name(self) -> &'static str {
        match self {
            ScriptKind::Pre => "PRE",
            ScriptKind::Post => "POST",
            ScriptKind::Hold => "HOLD",
        }
    }
}

/// Which of a script's output streams `SCRIPT DEBUG` keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DebugStreams {
    Stdout,
    Stderr,
    All,
}

/// A `SCRIPT` line.
#[derive(Clone, Debug, PartialEq)]
pub struct Script {
    pub kind: ScriptKind,
    /// The command and its arguments as written (split on blanks when run; no quoting).
    pub cmd: String,
    /// `DEFER status time`: an exit with `status` runs the script again after `time` s.
    pub defer: Option<(i32, i64)>,
    /// `DEBUG file STDOUT|STDERR|ALL`.
    pub debug: Option<(String, DebugStreams)>,
}

/// A `VARS` pair.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Var {
    pub name: String,
    pub value: String,
    /// Set before the submit file is read (the file may override it); otherwise after.
    pub prepend: bool,
}

/// `ABORT-DAG-ON node value [RETURN r]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AbortDagOn {
    pub value: i32,
    pub ret: Option<i32>,
}

/// Where a node's job description comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Description {
    /// A submit file, relative to the node's directory.
    File,
    /// An inline description (`JOB name { ... }`, or a `SUBMIT-DESCRIPTION` named by the JOB
    /// line): its text.
    Inline(std::sync::Arc<str>),
}

/// One node and everything the DAG file says of it.
#[derive(Clone, Debug)]
pub struct Node {
    pub name: String,
    pub kind: NodeKind,
    /// The submit file (or description name) as written on the JOB line; for a SUBDAG, the
    /// generated `<dagfile>.condor.sub`.
    pub submit: String,
    pub description: Description,
    /// `SUBDAG EXTERNAL`: the nested DAG file.
    pub dag_file: Option<String>,
    /// The node's directory (`DIR`, with any splice's directory before it); empty for the
    /// DAG's own.
    pub dir: String,
    pub noop: bool,
    /// `DONE` on the JOB line (HTCondor's "user defined as DONE").
    pub pre_done: bool,
    /// A `DONE` line (as rescue DAGs mark finished nodes).
    pub done_line: bool,
    pub pre: Option<Script>,
    pub post: Option<Script>,
    pub hold: Option<Script>,
    pub pre_skip: Option<i32>,
    pub retry_max: i32,
    pub retry_unless_exit: Option<i32>,
    pub abort_dag_on: Option<AbortDagOn>,
    pub vars: Vec<Var>,
    /// `PRIORITY` as written (the effective priority adds `-Priority`).
    pub priority: i32,
    pub category: Option<String>,
    pub save_file: Option<String>,
    /// Parents and children, each in node-creation order (HTCondor keeps edges sorted by
    /// node id), without duplicates.
    pub parents: Vec<NodeId>,
    pub children: Vec<NodeId>,
    /// The file and line that declared the node.
    pub declared: (std::sync::Arc<str>, usize),
    /// Creation order (HTCondor's node id): splice nodes are created before they are lifted
    /// into the DAG, so this differs from the position in [`Dag::nodes`].
    pub(crate) created: u32,
}

impl Node {
    pub(crate) fn new(name: &str, kind: NodeKind, submit: &str, dir: &str, created: u32) -> Node {
        Node {
            name: name.to_owned(),
            kind,
            submit: submit.to_owned(),
            description: Description::File,
            dag_file: None,
            dir: dir.to_owned(),
            noop: false,
            pre_done: false,
            done_line: false,
            pre: None,
            post: None,
            hold: None,
            pre_skip: None,
            retry_max: 0,
            retry_unless_exit: None,
            abort_dag_on: None,
            vars: Vec::new(),
            priority: 0,
            category: None,
            save_file: None,
            parents: Vec::new(),
            children: Vec::new(),
            declared: (std::sync::Arc::from(""), 0),
            created,
        }
    }

    pub fn script(&self, kind: ScriptKind) -> Option<&Script> {
        match kind {
            ScriptKind::Pre => self.pre.as_ref(),
            ScriptKind::Post => self.post.as_ref(),
            ScriptKind::Hold => self.hold.as_ref(),
        }
    }

    /// `JobTypeString`: how dagman.out names the node's job.
    pub fn job_type(&self) -> &'static str {
        "HTCondor"
    }
}

/// `DOT file [UPDATE|DONT-UPDATE] [OVERWRITE|DONT-OVERWRITE] [INCLUDE header]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DotSpec {
    pub file: String,
    pub update: bool,
    pub overwrite: bool,
    pub include: Option<String>,
}

/// `NODE_STATUS_FILE file [minUpdate] [ALWAYS-UPDATE]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StatusFileSpec {
    pub file: String,
    pub min_update: i64,
    pub always_update: bool,
}

/// The parsed DAG.
#[derive(Clone, Debug, Default)]
pub struct Dag {
    /// Every node, in HTCondor's order (`Dag::_nodes`, where SERVICE nodes are kept apart:
    /// they are skipped wherever the DAG's nodes are counted or listed).
    pub nodes: Vec<Node>,
    /// The SERVICE nodes.
    pub services: Vec<NodeId>,
    pub(crate) index: HashMap<String, NodeId>,
    pub final_node: Option<NodeId>,
    pub provisioner: Option<NodeId>,
    /// `MAXJOBS` by category (`None`: a category with nodes but no limit).
    pub categories: BTreeMap<String, Option<i32>>,
    pub dot: Option<DotSpec>,
    pub node_status: Option<StatusFileSpec>,
    pub jobstate_log: Option<String>,
    /// The first `REJECT` (`file (line N)`).
    pub reject: Option<String>,
    /// `CONFIG` (handled by condor_submit_dag; written into a full rescue DAG).
    pub config: Option<String>,
    /// Every `CONFIG` line of the DAG's own files: the file it names, and where.
    pub config_lines: Vec<(String, (std::sync::Arc<str>, usize))>,
    /// How many SPLICE commands were parsed, nested ones included.
    pub num_splices: usize,
}

impl Dag {
    /// The node called `name` (node names are case-sensitive).
    pub fn find(&self, name: &str) -> Option<NodeId> {
        self.index.get(name).copied()
    }

    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id]
    }

    /// How many nodes there are (SERVICE nodes aside), with or without the FINAL node.
    pub fn num_nodes(&self, include_final: bool) -> usize {
        self.nodes.len()
            - self.services.len()
            - usize::from(!include_final && self.final_node.is_some())
    }

    /// The nodes HTCondor keeps in `Dag::_nodes` (all but SERVICE nodes), in order.
    pub fn graph_nodes(&self) -> impl Iterator<Item = (NodeId, &Node)> + '_ {
        self.nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| n.kind != NodeKind::Service)
    }

    /// The number of edges.
    pub fn num_edges(&self) -> usize {
        self.nodes.iter().map(|n| n.children.len()).sum()
    }

    /// A cycle through the DAG's edges, as the node names around it (first == last), if
    /// there is one.
    pub fn find_cycle(&self) -> Option<Vec<NodeId>> {
        // Iterative three-colour depth-first search: a DAG of 10,000 nodes in a chain must not
        // overflow the stack.
        #[derive(Clone, Copy, PartialEq)]
        enum Colour {
            White,
            Grey,
            Black,
        }
        let mut colour = vec![Colour::White; self.nodes.len()];
        let mut stack: Vec<(NodeId, usize)> = Vec::new();
        for start in 0..self.nodes.len() {
            if colour[start] != Colour::White {
                continue;
            }
            colour[start] = Colour::Grey;
            stack.push((start, 0));
            while let Some(&mut (node, ref mut next)) = stack.last_mut() {
                if let Some(&child) = self.nodes[node].children.get(*next) {
                    *next += 1;
                    match colour[child] {
                        Colour::White => {
                            colour[child] = Colour::Grey;
                            stack.push((child, 0));
                        }
                        Colour::Grey => {
                            let from = stack.iter().position(|(n, _)| *n == child).unwrap_or(0);
                            let mut cycle: Vec<NodeId> =
                                stack[from..].iter().map(|(n, _)| *n).collect();
                            cycle.push(child);
                            return Some(cycle);
                        }
                        Colour::Black => {}
                    }
                } else {
                    colour[node] = Colour::Black;
                    stack.pop();
                }
            }
        }
        None
    }

    /// The graph's height and width as 24.0's metrics file reports them (`Dag::isCycle`'s
    /// depth-first numbering): a walk from each node without parents, in order, children in
    /// order, meets each node once; the height is the deepest depth met (the first nodes are
    /// at depth 0), the width twice the largest number of nodes met at one depth (HTCondor
    /// counts each node twice there). SERVICE nodes are not walked; the FINAL node is.
    pub fn metrics_height_and_width(&self) -> (usize, usize) {
        let mut visited = vec![false; self.nodes.len()];
        let mut counts: Vec<usize> = vec![0];
        let (mut height, mut width) = (0, 0);
        for (start, node) in self.graph_nodes() {
            if visited[start] || !node.parents.is_empty() {
                continue;
            }
            // Frames: (node, depth, next child); a node is counted when first met.
            let mut stack = vec![(start, 0usize, 0usize)];
            visited[start] = true;
            counts[0] += 2;
            width = width.max(counts[0]);
            while let Some(frame) = stack.last_mut() {
                let (n, depth, next) = *frame;
                let Some(&child) = self.nodes[n].children.get(next) else {
                    stack.pop();
                    continue;
                };
                frame.2 += 1;
                if visited[child] {
                    continue;
                }
                visited[child] = true;
                let d = depth + 1;
                if counts.len() <= d {
                    counts.resize(d + 1, 0);
                }
                counts[d] += 2;
                width = width.max(counts[d]);
                height = height.max(d);
                stack.push((child, d, 0));
            }
        }
        (height, width)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chain(n: usize, back_edge: bool) -> Dag {
        let mut dag = Dag::default();
        for i in 0..n {
            dag.nodes.push(Node::new(
                &format!("N{i}"),
                NodeKind::Job,
                "x.sub",
                "",
                i as u32,
            ));
        }
        for i in 1..n {
            dag.nodes[i - 1].children.push(i);
            dag.nodes[i].parents.push(i - 1);
        }
        if back_edge {
            dag.nodes[n - 1].children.push(0);
            dag.nodes[0].parents.push(n - 1);
        }
        dag
    }

    #[test]
    fn cycles_are_found_without_recursion() {
        assert_eq!(chain(100_000, false).find_cycle(), None);
        let cycle = chain(50_000, true).find_cycle().unwrap();
        assert_eq!(cycle.first(), cycle.last());
        assert_eq!(cycle.len(), 50_001);
    }

    #[test]
    fn metrics_height_and_width_are_24_0s() {
        // A chain of 5: depths 0 to 4, one node (counted twice) at each.
        assert_eq!(chain(5, false).metrics_height_and_width(), (4, 2));
        // A cycle through every node: nothing without parents is walked.
        assert_eq!(chain(5, true).metrics_height_and_width(), (0, 0));
        // A diamond: A; B and C; D.
        let mut dag = chain(4, false);
        for n in &mut dag.nodes {
            n.parents.clear();
            n.children.clear();
        }
        for (p, c) in [(0, 1), (0, 2), (1, 3), (2, 3)] {
            dag.nodes[p].children.push(c);
            dag.nodes[c].parents.push(p);
        }
        assert_eq!(dag.metrics_height_and_width(), (2, 4));
    }
}
