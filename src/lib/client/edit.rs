//! `condor_qedit`'s edits as the schedd makes them (qmgmt.cpp `SetAttribute` and
//! `SetAttributeByConstraint` in one transaction): each attribute set on the jobs named by id
//! or by constraint, refused for another user's job unless the user is a queue superuser, and
//! nothing set when one edit fails. What the tool prints comes back with the outcome, so that
//! the master serving a system pool's tools answers with the same words.

use crate::classad::parser::parse_old_expr;
use crate::classad::unparse::expr_to_old_string;
use crate::classad::Expr;
use crate::eventlog::{AttributeUpdate, EventBody};
use crate::output::render::lookup_str;
use crate::queue::{ClusterId, JobId, JobQuery, Queue, QueueError};

use super::jobattr::protection;
use super::userlog::JobLogs;
use super::Session;

/// The edits of one `condor_qedit`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct EditRequest {
    /// Each attribute and the expression it is set to, in name order.
    pub edits: Vec<(String, String)>,
    /// The jobs named by id (`(cluster, proc)`), or none when `query` names them.
    pub ids: Vec<(i32, i32)>,
    /// The constraint that names the jobs when no id does.
    pub query: String,
    /// Whether only the user's own jobs are edited (only `-constraint` was given; the
    /// schedd's `CONDOR_Q_ONLY_MY_JOBS` and the user's superuser status decide the rest).
    pub only_my_jobs: bool,
    pub dry_run: bool,
    /// Whether an edit reaches the cluster ads (jobs named by cluster only).
    pub cluster_edits: bool,
}

/// What the edits did: the lines for standard output, and the failure for standard error
/// (then nothing was set), or the store's error that stopped them.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct EditOutcome {
    pub printed: String,
    pub failure: Option<String>,
    pub error: Option<String>,
}

/// How the edit transaction ends without committing.
enum TxError {
    Queue(QueueError),
    /// A dry run, or an edit that failed: nothing is set.
    RollBack,
}

impl From<QueueError> for TxError {
    fn from(e: QueueError) -> Self {
        TxError::Queue(e)
    }
}

/// Makes the edits of `request` in one transaction, as `session`'s user.
pub fn edit_jobs(
    session: &Session,
    queue: &mut Queue,
    request: &EditRequest,
) -> Result<EditOutcome, QueueError> {
    let mut outcome = EditOutcome::default();
    // The tool checked these already; a request from elsewhere is checked here.
    let mut parsed = Vec::with_capacity(request.edits.len());
    for (attr, value) in &request.edits {
        if let Some(kind) = protection(session, attr).filter(|k| *k != "protected") {
            outcome.failure = Some(format!(
                "Update of {kind} attribute \"{attr}\" is not allowed."
            ));
            return Ok(outcome);
        }
        let value = if value.is_empty() { "undefined" } else { value };
        match parse_old_expr(value) {
            Ok(expr) if super::jobattr::valid_attr_name(attr) => parsed.push((attr, expr)),
            _ => {
                outcome.failure = Some(format!("Update aborted, illegal value for : {attr}"));
                return Ok(outcome);
            }
        }
    }
    let only_my_jobs = request.only_my_jobs
        && session
            .config
            .bool("CONDOR_Q_ONLY_MY_JOBS")
            .ok()
            .flatten()
            .unwrap_or(true)
        && !session.user_is_superuser();
    let dry_tag = if request.dry_run { "Can " } else { "" };
    let (printed, failure) = (&mut outcome.printed, &mut outcome.failure);
    let result = queue.transaction(|tx| -> Result<(), TxError> {
        for (attr, expr) in &parsed {
            let mut count = 0usize;
            if !request.ids.is_empty() {
                for &(c, p) in &request.ids {
                    let id = JobId::new(c, p);
                    if set_on_job(session, tx, id, attr, expr).is_err() {
                        *failure = Some(format!(
                            "Failed to set attribute \"{attr}\" for job {c}.{p}."
                        ));
                        break;
                    }
                    count += 1;
                }
            } else {
                let query = &request.query;
                let mut text = query.clone();
                if only_my_jobs {
                    text = format!("(Owner == \"{}\") && ({text})", session.user);
                }
                let Ok(constraint) = parse_old_expr(&text) else {
                    *failure = Some(format!(
                        "Failed to set attribute \"{attr}\" by constraint: {query}"
                    ));
                    break;
                };
                match set_by_constraint(
                    session,
                    tx,
                    &constraint,
                    attr,
                    expr,
                    request.cluster_edits,
                )? {
                    Some(n) if n > 0 => count = n,
                    _ => {
                        *failure = Some(if request.dry_run {
                            format!("No jobs match the constraint: {query}")
                        } else {
                            format!("Failed to set attribute \"{attr}\" by constraint: {query}")
                        });
                    }
                }
            }
            if failure.is_some() {
                break;
            }
            let count = if count > 0 {
                count.to_string()
            } else {
                "all".to_owned()
            };
            printed.push_str(&format!(
                "{dry_tag}Set attribute \"{attr}\" for {count} matching jobs.\n"
            ));
        }
        if failure.is_some() || request.dry_run {
            return Err(TxError::RollBack);
        }
        Ok(())
    });
    if let Err(TxError::Queue(e)) = result {
        if outcome.failure.is_none() {
            outcome.error = Some(e.to_string());
        }
    }
    Ok(outcome)
}

/// `SetAttribute` on one job: refused for another user's job.
fn set_on_job(
    session: &Session,
    tx: &mut crate::queue::Transaction<'_>,
    id: JobId,
    attr: &str,
    value: &Expr,
) -> Result<(), QueueError> {
    if id.proc < 0 {
        return Err(QueueError::ClusterNotFound(id.cluster));
    }
    let job = tx.job(id)?.ok_or(QueueError::JobNotFound(id))?;
    let owner = lookup_str(job.ad()?, "Owner");
    if !session.may_act_on(owner.as_deref()) {
        return Err(QueueError::JobNotFound(id));
    }
    tx.set_attr(id, attr, value.clone())
}

/// `SetAttributeByConstraint`: every matching job (and, for edits of whole clusters, their
/// cluster ads). Returns how many jobs matched, `None` when one could not be set.
fn set_by_constraint(
    session: &Session,
    tx: &mut crate::queue::Transaction<'_>,
    constraint: &Expr,
    attr: &str,
    value: &Expr,
    cluster_edits: bool,
) -> Result<Option<usize>, QueueError> {
    let query = JobQuery::all().with_constraint(constraint.clone());
    let mut matched: Vec<(JobId, bool, bool)> = Vec::new();
    for job in tx.jobs(&query)? {
        let job = job?;
        let ad = job.ad()?;
        let owner = lookup_str(ad, "Owner");
        let owns_attr = ad.own_iter().any(|(n, _)| n.eq_ignore_ascii_case(attr));
        matched.push((job.id(), session.may_act_on(owner.as_deref()), owns_attr));
    }
    if matched.iter().any(|(_, allowed, _)| !allowed) {
        return Ok(None);
    }
    let mut clusters: Vec<ClusterId> = matched.iter().map(|(id, _, _)| id.cluster).collect();
    clusters.dedup();
    if cluster_edits {
        for c in &clusters {
            let ad = tx.cluster_ad(*c)?;
            let matches = ad
                .as_ref()
                .is_some_and(|ad| crate::queue::constraint_holds(constraint, ad));
            if matches && tx.set_attr(*c, attr, value.clone()).is_err() {
                return Ok(None);
            }
        }
    }
    for (id, _, owns_attr) in &matched {
        // A cluster edit reaches every proc that does not set the attribute itself.
        if cluster_edits && !owns_attr {
            continue;
        }
        if tx.set_attr(*id, attr, value.clone()).is_err() {
            return Ok(None);
        }
    }
    Ok(Some(matched.len()))
}

/// The attribute `condor_prio` sets.
pub const JOB_PRIO: &str = "JobPrio";

/// `condor_prio`'s `UpdateJobAd` for each job: `SetAttributeInt(C, P, JobPrio, new,
/// SHOULDLOG)`, in one transaction; a job that cannot be set (gone, another user's, the
/// attribute immutable or protected) is skipped and returned. The attribute-update events
/// are logged once the transaction has committed.
pub fn set_priorities(
    session: &Session,
    queue: &mut Queue,
    changes: &[(JobId, i32)],
) -> Result<Vec<JobId>, QueueError> {
    let protection = protection(session, JOB_PRIO);
    let immutable = protection == Some("immutable");
    let protected = protection == Some("protected") && !session.user_is_superuser();
    let mut events: Vec<(JobId, JobLogs, AttributeUpdate)> = Vec::new();
    let mut refused: Vec<JobId> = Vec::new();
    queue.transaction(|tx| -> Result<(), QueueError> {
        for &(id, new) in changes {
            let Some(job) = tx.job(id)? else {
                refused.push(id);
                continue;
            };
            let ad = job.into_ad()?;
            let owner = lookup_str(&ad, "Owner");
            if immutable || protected || !session.may_act_on(owner.as_deref()) {
                refused.push(id);
                continue;
            }
            let old_value = ad.lookup(JOB_PRIO).map(expr_to_old_string);
            tx.set_attr(id, JOB_PRIO, Expr::lit(i64::from(new)))?;
            events.push((
                id,
                JobLogs::of(session, &ad),
                AttributeUpdate {
                    name: JOB_PRIO.to_owned(),
                    value: new.to_string(),
                    old_value,
                },
            ));
        }
        Ok(())
    })?;
    for (id, logs, event) in events {
        logs.write(
            id.cluster.0,
            id.proc,
            session.now,
            EventBody::AttributeUpdate(event),
        );
    }
    Ok(refused)
}
