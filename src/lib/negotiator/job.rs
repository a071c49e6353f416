//! Idle jobs as the negotiator sees them: who submitted them (the accounting name), the order
//! their submitter wants them tried in, and their ad.

use std::cmp::Ordering;
use std::sync::Arc;

use crate::accountant::string_attr;
use crate::classad::{ClassAd, Value};

/// A job's id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct JobId {
    pub cluster: i32,
    pub proc: i32,
}

impl JobId {
    pub fn new(cluster: i32, proc: i32) -> JobId {
        JobId { cluster, proc }
    }
}

impl std::fmt::Display for JobId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.cluster, self.proc)
    }
}

/// The priorities a submitter orders its own jobs by (higher first): `PreJobPrio1`,
/// `PreJobPrio2`, `JobPrio`, `PostJobPrio1`, `PostJobPrio2`, each 0 when absent.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct JobPrio(pub [i64; 5]);

impl JobPrio {
    pub fn from_ad(ad: &ClassAd) -> JobPrio {
        let get = |name: &str| match ad.eval_attr(name) {
            Value::Int(i) => i,
            Value::Real(r) => r as i64,
            Value::Bool(b) => b as i64,
            _ => 0,
        };
        JobPrio([
            get("PreJobPrio1"),
            get("PreJobPrio2"),
            get("JobPrio"),
            get("PostJobPrio1"),
            get("PostJobPrio2"),
        ])
    }

    /// The job priority proper (`JobPrio`).
    pub fn job_prio(&self) -> i64 {
        self.0[2]
    }
}

/// The order in which a submitter's jobs are tried: the priorities, higher first, then the
/// job id (older clusters first), as the schedd's `prio_compar` has it.
pub fn negotiation_order(a: (&JobPrio, JobId), b: (&JobPrio, JobId)) -> Ordering {
    b.0 .0.cmp(&a.0 .0).then(a.1.cmp(&b.1))
}

/// One idle job offered to the negotiator.
#[derive(Clone, Debug)]
pub struct IdleJob {
    pub id: JobId,
    /// The accounting name: `AccountingGroup@domain`, else `user@domain`.
    pub submitter: Arc<str>,
    pub prio: JobPrio,
    pub ad: ClassAd,
}

impl IdleJob {
    /// Reads the submitter and priorities from the ad; `accounting_domain` is
    /// `ACCOUNTING_DOMAIN` (by default `UID_DOMAIN`).
    pub fn new(id: JobId, ad: ClassAd, accounting_domain: &str) -> IdleJob {
        IdleJob {
            id,
            submitter: submitter_name(&ad, accounting_domain).into(),
            prio: JobPrio::from_ad(&ad),
            ad,
        }
    }

    /// A job with an explicit submitter name.
    pub fn with_submitter(id: JobId, ad: ClassAd, submitter: &str) -> IdleJob {
        IdleJob {
            id,
            submitter: submitter.into(),
            prio: JobPrio::from_ad(&ad),
            ad,
        }
    }
}

/// The name a job is accounted under, as the schedd's `get_job_prio` computes it:
/// `AccountingGroup` (e.g. `group_physics.hep.alice`) or the user part of `User` (else
/// `Owner`), then `@` and the accounting domain. `NiceUser` jobs (the deprecated attribute)
/// are accounted as `nice-user.<name>`.
pub fn submitter_name(ad: &ClassAd, accounting_domain: &str) -> String {
    let mut name = String::new();
    if matches!(ad.eval_attr("NiceUser"), Value::Bool(true))
        || matches!(ad.eval_attr("NiceUser"), Value::Int(i) if i != 0)
    {
        name.push_str("nice-user.");
    }
    let base = match string_attr(ad, "AccountingGroup").filter(|g| !g.is_empty()) {
        Some(group) => group,
        None => {
            let user = string_attr(ad, "User")
                .or_else(|| string_attr(ad, "Owner"))
                .unwrap_or_default();
            match user.rfind('@') {
                Some(i) if !accounting_domain.is_empty() => user[..i].to_owned(),
                Some(_) => return format!("{name}{user}"),
                None => user,
            }
        }
    };
    name.push_str(&base);
    if !accounting_domain.is_empty() {
        name.push('@');
        name.push_str(accounting_domain);
    }
    name
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classad::parse_ad;

    #[test]
    fn submitter_names() {
        let ad = |s: &str| parse_ad(s).unwrap();
        assert_eq!(
            submitter_name(
                &ad(r#"[Owner = "alice"; User = "alice@submit.host"]"#),
                "example.org"
            ),
            "alice@example.org"
        );
        assert_eq!(
            submitter_name(
                &ad(r#"[Owner = "alice"; AccountingGroup = "group_physics.hep.alice"]"#),
                "example.org"
            ),
            "group_physics.hep.alice@example.org"
        );
        assert_eq!(
            submitter_name(&ad(r#"[Owner = "bob"; NiceUser = true]"#), "d"),
            "nice-user.bob@d"
        );
    }

    #[test]
    fn order_is_priority_then_id() {
        let hi = JobPrio([0, 0, 10, 0, 0]);
        let lo = JobPrio([0, 0, 9, 0, 0]);
        let pre = JobPrio([1, 0, -5, 0, 0]);
        let mut v = [
            (lo, JobId::new(1, 0)),
            (hi, JobId::new(2, 1)),
            (hi, JobId::new(2, 0)),
            (pre, JobId::new(3, 0)),
        ];
        v.sort_by(|a, b| negotiation_order((&a.0, a.1), (&b.0, b.1)));
        let ids: Vec<String> = v.iter().map(|x| x.1.to_string()).collect();
        assert_eq!(ids, ["3.0", "2.0", "2.1", "1.0"]);
    }
}
