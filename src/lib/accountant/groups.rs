//! Accounting groups as configured (`GROUP_NAMES`, `GROUP_QUOTA_<g>`, `GROUP_QUOTA_DYNAMIC_<g>`,
//! `GROUP_ACCEPT_SURPLUS[_<g>]`, `GROUP_AUTOREGROUP[_<g>]`, `GROUP_PRIO_FACTOR_<g>`), and which
//! group a submitter belongs to, as HTCondor's `GroupEntry::hgq_construct_tree` and
//! `GroupEntry::GetAssignedGroup` (src/condor_negotiator.V6/GroupEntry.cpp) have them.
//!
//! The tree is rooted at the invented group `<none>`. Group names are dotted paths
//! (`group_physics.hep`); a group whose parent is not configured is ignored, as is a duplicate.
//! Names compare case-insensitively. A submitter `a.b.user@domain` belongs to the deepest
//! configured group along `a.b`; a submitter without a group part belongs to `<none>`.

use crate::config::{Config, ConfigError};

/// The name of the root of the group tree.
pub const ROOT_GROUP: &str = "<none>";

/// One configured group.
#[derive(Clone, Debug, PartialEq)]
pub struct Group {
    /// The full dotted name, as spelled in `GROUP_NAMES` (`<none>` for the root).
    pub name: String,
    /// `GROUP_QUOTA_<g>` (absolute) or `GROUP_QUOTA_DYNAMIC_<g>` (a fraction of the parent).
    pub config_quota: f64,
    /// Whether `config_quota` is a static (absolute) quota.
    pub static_quota: bool,
    /// `GROUP_ACCEPT_SURPLUS_<g>` (default `GROUP_ACCEPT_SURPLUS`); always true for the root.
    pub accept_surplus: bool,
    /// `GROUP_AUTOREGROUP_<g>` (default `GROUP_AUTOREGROUP`); for the root, whether any group has it.
    pub autoregroup: bool,
    /// `GROUP_PRIO_FACTOR_<g>`, 0 when not set.
    pub prio_factor: f64,
    /// Index of the parent group (`None` for the root).
    pub parent: Option<usize>,
    /// Indices of the child groups, in the sorted order of their names.
    pub children: Vec<usize>,
}

impl Group {
    fn root() -> Group {
        Group {
            name: ROOT_GROUP.to_owned(),
            config_quota: 0.0,
            static_quota: false,
            accept_surplus: true,
            autoregroup: false,
            prio_factor: 0.0,
            parent: None,
            children: Vec::new(),
        }
    }
}

/// The configured group tree. Index 0 is the root `<none>`; [`GroupTree::breadth_first`] lists
/// the groups parents first.
#[derive(Clone, Debug, PartialEq)]
pub struct GroupTree {
    groups: Vec<Group>,
    /// The groups in breadth-first order (root first), as HTCondor's `hgq_groups`.
    order: Vec<usize>,
    /// `GROUP_ACCEPT_SURPLUS` is true, or some group accepts surplus.
    pub any_accept_surplus: bool,
}

impl Default for GroupTree {
    fn default() -> Self {
        GroupTree {
            groups: vec![Group::root()],
            order: vec![0],
            any_accept_surplus: false,
        }
    }
}

/// How one group is configured, for building a tree without a [`Config`].
#[derive(Clone, Debug)]
pub struct GroupSpec {
    pub name: String,
    /// `Some(q)`: a static quota. `None` with `dynamic` set: a dynamic one.
    pub quota: Option<f64>,
    pub dynamic: Option<f64>,
    pub accept_surplus: Option<bool>,
    pub autoregroup: Option<bool>,
    pub prio_factor: f64,
}

impl GroupSpec {
    pub fn new(name: &str) -> GroupSpec {
        GroupSpec {
            name: name.to_owned(),
            quota: None,
            dynamic: None,
            accept_surplus: None,
            autoregroup: None,
            prio_factor: 0.0,
        }
    }

    pub fn quota(mut self, q: f64) -> Self {
        self.quota = Some(q);
        self
    }

    pub fn dynamic(mut self, q: f64) -> Self {
        self.dynamic = Some(q);
        self
    }

    pub fn accept_surplus(mut self, yes: bool) -> Self {
        self.accept_surplus = Some(yes);
        self
    }

    pub fn autoregroup(mut self, yes: bool) -> Self {
        self.autoregroup = Some(yes);
        self
    }
}

impl GroupTree {
    /// Reads `GROUP_NAMES` and the per-group knobs.
    pub fn from_config(config: &Config) -> Result<GroupTree, ConfigError> {
        let view = config.subsystem("NEGOTIATOR");
        let default_surplus = view.bool("GROUP_ACCEPT_SURPLUS")?.unwrap_or(false);
        let default_regroup = view.bool("GROUP_AUTOREGROUP")?.unwrap_or(false);
        let mut specs = Vec::new();
        for name in view.list("GROUP_NAMES")? {
            let mut spec = GroupSpec::new(&name);
            // HTCondor clamps a static quota to [0, INT_MAX] and a dynamic one to [0, 1]; an
            // out-of-range value counts as unset.
            match view.double(&format!("GROUP_QUOTA_{name}"))? {
                Some(q) if (0.0..=i32::MAX as f64).contains(&q) => spec.quota = Some(q),
                _ => {
                    if let Some(q) = view.double(&format!("GROUP_QUOTA_DYNAMIC_{name}"))? {
                        if (0.0..=1.0).contains(&q) {
                            spec.dynamic = Some(q);
                        }
                    }
                }
            }
            spec.accept_surplus = view.bool(&format!("GROUP_ACCEPT_SURPLUS_{name}"))?;
            spec.autoregroup = view.bool(&format!("GROUP_AUTOREGROUP_{name}"))?;
            spec.prio_factor = view
                .double(&format!("GROUP_PRIO_FACTOR_{name}"))?
                .unwrap_or(0.0);
            specs.push(spec);
        }
        Ok(GroupTree::build(specs, default_surplus, default_regroup))
    }

    /// Builds the tree from group specifications, with the global surplus and autoregroup
    /// defaults (`GROUP_ACCEPT_SURPLUS`, `GROUP_AUTOREGROUP`).
    pub fn build(
        mut specs: Vec<GroupSpec>,
        default_accept_surplus: bool,
        default_autoregroup: bool,
    ) -> GroupTree {
        specs.retain(|s| s.name != ROOT_GROUP && !s.name.is_empty());
        // Sorting puts every parent before its children.
        specs.sort_by(|a, b| cmp_ci(&a.name, &b.name));
        let mut tree = GroupTree {
            any_accept_surplus: default_accept_surplus,
            ..GroupTree::default()
        };
        let mut any_regroup = default_autoregroup;
        for spec in specs {
            let path: Vec<&str> = spec.name.split('.').collect();
            let mut at = 0usize;
            let mut missing_parent = false;
            for part in &path[..path.len() - 1] {
                match tree.child_named(at, part) {
                    Some(c) => at = c,
                    None => {
                        missing_parent = true;
                        break;
                    }
                }
            }
            if missing_parent || tree.child_named(at, path[path.len() - 1]).is_some() {
                continue;
            }
            let (config_quota, static_quota) = match (spec.quota, spec.dynamic) {
                (Some(q), _) => (q.max(0.0), true),
                (None, Some(q)) => (q.max(0.0), false),
                (None, None) => (0.0, false),
            };
            let accept_surplus = spec.accept_surplus.unwrap_or(default_accept_surplus);
            let autoregroup = spec.autoregroup.unwrap_or(default_autoregroup);
            tree.any_accept_surplus |= accept_surplus;
            any_regroup |= autoregroup;
            let index = tree.groups.len();
            tree.groups.push(Group {
                name: spec.name.clone(),
                config_quota,
                static_quota,
                accept_surplus,
                autoregroup,
                prio_factor: spec.prio_factor,
                parent: Some(at),
                children: Vec::new(),
            });
            tree.groups[at].children.push(index);
        }
        tree.groups[0].autoregroup = any_regroup;
        let mut order = vec![0];
        let mut i = 0;
        while i < order.len() {
            let children = tree.groups[order[i]].children.clone();
            order.extend(children);
            i += 1;
        }
        tree.order = order;
        tree
    }

    fn child_named(&self, parent: usize, part: &str) -> Option<usize> {
        self.groups[parent].children.iter().copied().find(|&c| {
            let name = &self.groups[c].name;
            let last = name.rsplit('.').next().unwrap_or(name);
            last.eq_ignore_ascii_case(part)
        })
    }

    /// Whether any group besides the root is configured (HTCondor's "HGQ mode").
    pub fn has_groups(&self) -> bool {
        self.groups.len() > 1
    }

    pub fn len(&self) -> usize {
        self.groups.len()
    }

    pub fn is_empty(&self) -> bool {
        false
    }

    pub fn group(&self, index: usize) -> &Group {
        &self.groups[index]
    }

    pub fn groups(&self) -> &[Group] {
        &self.groups
    }

    /// The group indices in breadth-first order, the root first.
    pub fn breadth_first(&self) -> &[usize] {
        &self.order
    }

    /// The index of the configured group called `name` (case-insensitively).
    pub fn find(&self, name: &str) -> Option<usize> {
        self.groups
            .iter()
            .position(|g| g.name.eq_ignore_ascii_case(name))
    }

    /// The group a customer (a submitter or a group name) is accounted to, and whether the
    /// customer is itself a group name (a name without `@`), as `GetAssignedGroup` decides.
    pub fn assigned(&self, customer: &str) -> (usize, bool) {
        let is_group = !customer.contains('@');
        if let Some(g) = self.find(customer) {
            return (g, is_group);
        }
        let Some(at) = customer.rfind('@') else {
            return (0, true);
        };
        let local = &customer[..at];
        let Some(dot) = local.rfind('.') else {
            return (0, false);
        };
        let mut group = 0;
        for part in local[..dot].split('.') {
            match self.child_named(group, part) {
                Some(c) => group = c,
                None => break,
            }
        }
        (group, false)
    }

    /// The name of the group a customer is accounted to.
    pub fn assigned_name(&self, customer: &str) -> &str {
        &self.groups[self.assigned(customer).0].name
    }
}

/// Case-insensitive ordering (`strcasecmp`).
pub fn cmp_ci(a: &str, b: &str) -> std::cmp::Ordering {
    a.bytes()
        .map(|c| c.to_ascii_lowercase())
        .cmp(b.bytes().map(|c| c.to_ascii_lowercase()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree() -> GroupTree {
        GroupTree::build(
            vec![
                GroupSpec::new("group_physics.hep").quota(15.0),
                GroupSpec::new("group_chemistry").quota(10.0),
                GroupSpec::new("group_physics").quota(20.0),
                GroupSpec::new("group_physics.lep").quota(5.0),
                GroupSpec::new("orphan.child").quota(1.0),
                GroupSpec::new("GROUP_CHEMISTRY").quota(3.0),
            ],
            false,
            false,
        )
    }

    #[test]
    fn parents_come_first_and_orphans_and_duplicates_are_dropped() {
        let t = tree();
        let names: Vec<&str> = t
            .breadth_first()
            .iter()
            .map(|&i| t.group(i).name.as_str())
            .collect();
        assert_eq!(
            names,
            [
                "<none>",
                "group_chemistry",
                "group_physics",
                "group_physics.hep",
                "group_physics.lep"
            ]
        );
        // The first of two spellings wins; its quota is the one kept.
        assert_eq!(
            t.group(t.find("GROUP_CHEMISTRY").unwrap()).config_quota,
            10.0
        );
    }

    #[test]
    fn submitters_map_to_the_deepest_configured_group() {
        let t = tree();
        assert_eq!(
            t.assigned_name("group_physics.hep.alice@x"),
            "group_physics.hep"
        );
        assert_eq!(
            t.assigned_name("group_physics.hep.sub.alice@x"),
            "group_physics.hep"
        );
        assert_eq!(
            t.assigned_name("group_physics.qcd.alice@x"),
            "group_physics"
        );
        assert_eq!(t.assigned_name("Group_Physics.alice@x"), "group_physics");
        assert_eq!(t.assigned_name("alice@x"), "<none>");
        assert_eq!(t.assigned_name("nosuch.alice@x"), "<none>");
        assert_eq!(
            t.assigned("group_physics"),
            (t.find("group_physics").unwrap(), true)
        );
        assert_eq!(t.assigned("defunct"), (0, true));
        assert_eq!(t.assigned("<none>"), (0, true));
    }
}
