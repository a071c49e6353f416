//! The write endpoints (htcondor-restd has none; these are this server's own, each the
//! counterpart of a tool). Every one needs a token, acts as its user with the ownership rules
//! of the Unix socket ([`crate::daemon::requests::change`] decides for both), and wakes the
//! main loop once something changed.
//!
//! - `POST /v1/submit/{schedd}`: the body is a submit description, as condor_submit takes
//!   it; the answer `{"cluster", "count", "clusters": [{"cluster", "count"}], "message"}`.
//! - `POST /v1/act/{schedd}`: `{"action": "remove"|"hold"|"release"|"vacate"|"vacate_fast"|
//!   "suspend"|"continue"|"removex", "ids": ["C", "C.P", "owner"...], "constraint": "...",
//!   "reason": "...", "subcode": N}`; the answer each job's result in the tools' words.
//! - `POST /v1/qedit/{schedd}`: `{"ids": [...], "constraint": "...", "attributes":
//!   {"Name": "expression", ...}}`.
//! - `POST /v1/prio/{schedd}`: `{"ids": [...], "priority": N}`.
//! - `POST /v1/reschedule`.
//!
//! Refusals: 400 for a request that is wrong (in the tools' words), 403 for another user's
//! jobs, 404 when nothing matches, 409 when the jobs are not in a state for the action.

use std::collections::BTreeMap;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{json, Value};

use super::{
    authenticate, blocking, check_schedd, load_config, session, ApiError, ApiResult, Need, Shared,
};
use crate::classad::parser::parse_old_expr;
use crate::client::actions::{Action, ActionResult, Request, Target};
use crate::client::edit::EditRequest;
use crate::client::schedd::Answer;
use crate::client::Session;
use crate::daemon::requests::{change, Change};
use crate::queue::{JobId, JobIdSpec, JobQuery, Queue};

pub(super) fn routes() -> Router<Shared> {
    Router::new()
        .route("/v1/submit/{schedd}", post(submit))
        .route("/v1/act/{schedd}", post(act))
        .route("/v1/qedit/{schedd}", post(qedit))
        .route("/v1/prio/{schedd}", post(prio))
        .route("/v1/reschedule", post(reschedule))
}

/// A request's session, its user the token's (writes are never anonymous).
fn writer(headers: &HeaderMap, schedd: &str) -> Result<Session, ApiError> {
    let config = load_config()?;
    let user = authenticate(headers, &config, Need::Write)?;
    let session = session(config, user)?;
    check_schedd(&session, schedd)?;
    Ok(session)
}

/// Serves a write: its body read (within the bound), then `work` on a blocking thread in
/// the session of the request's token.
async fn serve(
    api: Shared,
    headers: HeaderMap,
    schedd: String,
    bytes: Result<Bytes, BytesRejection>,
    work: fn(&Shared, &Session, &[u8]) -> ApiResult,
) -> ApiResult {
    let bytes = bytes.map_err(|r| ApiError::new(r.status(), r.body_text()))?;
    blocking(move || {
        let session = writer(&headers, &schedd)?;
        work(&api, &session, &bytes)
    })
    .await
}

/// The jobs a request names: by id alone, or by a constraint (the ids' clauses ANDed with
/// the request's constraint, checked).
enum Named {
    Ids(Vec<JobId>),
    Constraint(String),
}

fn named(specs: &[JobIdSpec], constraint: Option<&str>) -> Result<Named, ApiError> {
    let constraint = constraint.map(str::trim).filter(|c| !c.is_empty());
    let ids: Vec<JobId> = specs
        .iter()
        .filter_map(|s| match s {
            JobIdSpec::Job(id) => Some(*id),
            _ => None,
        })
        .collect();
    if constraint.is_none() && ids.len() == specs.len() {
        return Ok(Named::Ids(ids));
    }
    let mut parts = Vec::new();
    if let Some(c) = constraint {
        checked_constraint(c)?;
        parts.push(format!("({c})"));
    }
    if !specs.is_empty() {
        parts.push(format!("({})", ids_clause(specs)));
    }
    Ok(Named::Constraint(parts.join(" && ")))
}

fn body<T: for<'de> Deserialize<'de>>(bytes: &[u8]) -> Result<T, ApiError> {
    serde_json::from_slice(bytes)
        .map_err(|e| ApiError::bad_request(format!("the request's JSON: {e}")))
}

fn open(session: &Session) -> Result<Queue, ApiError> {
    session
        .open_queue()
        .map_err(|e| ApiError::internal(e.to_string()))
}

fn wake(api: &Shared) {
    let _ = api.to_main.send(crate::daemon::Msg::Wake);
}

/// Job ids as the tools take them (`C`, `C.P`, an owner), as a constraint's text.
fn ids_clause(specs: &[JobIdSpec]) -> String {
    specs
        .iter()
        .map(|s| match s {
            JobIdSpec::Job(id) => {
                format!("(ClusterId == {} && ProcId == {})", id.cluster.0, id.proc)
            }
            JobIdSpec::Cluster(c) => format!("(ClusterId == {})", c.0),
            JobIdSpec::Owner(o) => format!("(Owner == \"{}\")", o.replace(['"', '\\'], "")),
        })
        .collect::<Vec<_>>()
        .join(" || ")
}

/// A constraint given with a request, checked: the words of the tools' refusal.
fn checked_constraint(text: &str) -> Result<(), ApiError> {
    parse_old_expr(text).map(|_| ()).map_err(|_| {
        ApiError::bad_request(format!("Parse error in constraint expression \"{text}\""))
    })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ActBody {
    action: String,
    #[serde(default)]
    ids: Vec<String>,
    #[serde(default)]
    constraint: Option<String>,
    #[serde(default)]
    reason: Option<String>,
    #[serde(default)]
    subcode: i64,
}

fn action_named(word: &str) -> Option<Action> {
    Some(match word.to_ascii_lowercase().as_str() {
        "remove" | "rm" => Action::Remove,
        "removex" | "forcex" => Action::RemoveX,
        "hold" => Action::Hold,
        "release" => Action::Release,
        "vacate" => Action::Vacate,
        "vacate_fast" | "vacatefast" => Action::VacateFast,
        "suspend" => Action::Suspend,
        "continue" => Action::Continue,
        _ => return None,
    })
}

async fn act(
    State(api): State<Shared>,
    headers: HeaderMap,
    Path(schedd): Path<String>,
    bytes: Result<Bytes, BytesRejection>,
) -> ApiResult {
    serve(api, headers, schedd, bytes, act_on).await
}

fn act_on(api: &Shared, session: &Session, bytes: &[u8]) -> ApiResult {
    let request: ActBody = body(bytes)?;
    let action = action_named(&request.action)
        .ok_or_else(|| ApiError::bad_request(format!("unknown action {:?}", request.action)))?;
    let mut specs = Vec::new();
    for id in &request.ids {
        specs.push(
            JobIdSpec::parse_for_action(id).map_err(|e| ApiError::bad_request(e.to_string()))?,
        );
    }
    if specs.is_empty()
        && request
            .constraint
            .as_deref()
            .is_none_or(|c| c.trim().is_empty())
    {
        return Err(ApiError::bad_request("You did not specify any jobs"));
    }
    let target = match named(&specs, request.constraint.as_deref())? {
        Named::Ids(ids) => Target::Ids(ids),
        Named::Constraint(text) => Target::Constraint(text),
    };
    let request = Request {
        action,
        target,
        reason: request
            .reason
            .unwrap_or_else(|| crate::tools::rm::default_reason(action)),
        subcode: request.subcode,
    };
    let mut queue = open(session)?;
    let outcome = match change(session, &mut queue, Change::Act(request)) {
        Answer::Acted(outcome) => outcome,
        Answer::Failed(text) => return Err(ApiError::internal(text)),
        _ => return Err(ApiError::internal("unexpected answer")),
    };
    if outcome.success > 0 {
        wake(api);
    }
    let results: Vec<Value> = outcome
        .results
        .iter()
        .map(|(id, result)| {
            let (_, message) = crate::tools::rm::result_message(action, *id, *result);
            json!({ "jobid": id.to_string(), "result": format!("{result:?}"), "message": message })
        })
        .collect();
    let answer = json!({
        "success": outcome.success,
        "total_job_ads": outcome.total_job_ads,
        "results": results,
    });
    if outcome.success > 0 {
        return Ok(Json(answer));
    }
    let any = |r: ActionResult| outcome.results.iter().any(|(_, x)| *x == r);
    let (status, message) = if any(ActionResult::PermissionDenied) {
        (StatusCode::FORBIDDEN, first_message(&results))
    } else if outcome
        .results
        .iter()
        .all(|(_, r)| *r == ActionResult::NotFound)
    {
        (StatusCode::NOT_FOUND, "No matching jobs".to_owned())
    } else {
        (StatusCode::CONFLICT, first_message(&results))
    };
    Err(ApiError::new(status, message))
}

fn first_message(results: &[Value]) -> String {
    results
        .iter()
        .filter(|r| r["result"] != "Success")
        .filter_map(|r| r["message"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EditBody {
    #[serde(default)]
    ids: Vec<String>,
    #[serde(default)]
    constraint: Option<String>,
    attributes: BTreeMap<String, Value>,
}

async fn qedit(
    State(api): State<Shared>,
    headers: HeaderMap,
    Path(schedd): Path<String>,
    bytes: Result<Bytes, BytesRejection>,
) -> ApiResult {
    serve(api, headers, schedd, bytes, edit).await
}

fn edit(api: &Shared, session: &Session, bytes: &[u8]) -> ApiResult {
    let request: EditBody = body(bytes)?;
    let specs: Vec<JobIdSpec> = request.ids.iter().map(|s| JobIdSpec::parse(s)).collect();
    let by_constraint = request
        .constraint
        .as_deref()
        .is_some_and(|c| !c.trim().is_empty());
    if specs.is_empty() && !by_constraint {
        return Err(ApiError::bad_request(
            "condor_qedit : Error - there were no jobs specified.",
        ));
    }
    if request.attributes.is_empty() {
        return Err(ApiError::bad_request(
            "condor_qedit : Error - no attributes specifed.",
        ));
    }
    let edits: Vec<(String, String)> = request
        .attributes
        .iter()
        .map(|(name, value)| {
            let text = match value {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            (name.clone(), text)
        })
        .collect();
    let named = named(&specs, request.constraint.as_deref())?;
    let job_ids = match &named {
        Named::Ids(ids) => ids.clone(),
        Named::Constraint(_) => Vec::new(),
    };
    let (ids, query) = match named {
        Named::Ids(ids) => (
            ids.iter().map(|id| (id.cluster.0, id.proc)).collect(),
            String::new(),
        ),
        Named::Constraint(text) => (Vec::new(), text),
    };
    let request = EditRequest {
        edits,
        ids,
        query,
        only_my_jobs: specs.is_empty(),
        dry_run: false,
        cluster_edits: !by_constraint
            && !specs.is_empty()
            && specs.iter().all(|s| matches!(s, JobIdSpec::Cluster(_))),
    };
    let mut queue = open(session)?;
    let outcome = match change(session, &mut queue, Change::Edit(request)) {
        Answer::Edited(outcome) => outcome,
        Answer::Failed(text) => return Err(ApiError::internal(text)),
        _ => return Err(ApiError::internal("unexpected answer")),
    };
    if let Some(error) = outcome.error {
        return Err(ApiError::internal(error));
    }
    if let Some(failure) = outcome.failure {
        let status = if others_job(session, &queue, &job_ids) {
            StatusCode::FORBIDDEN
        } else {
            StatusCode::BAD_REQUEST
        };
        return Err(ApiError::new(status, failure));
    }
    wake(api);
    Ok(Json(json!({ "message": outcome.printed })))
}

/// Whether one of `ids` is a job in the queue the session's user may not act on.
fn others_job(session: &Session, queue: &Queue, ids: &[JobId]) -> bool {
    let Ok(jobs) = queue.jobs_by_id(ids.iter().copied()) else {
        return false;
    };
    jobs.iter().any(|job| {
        let owner = job
            .ad()
            .ok()
            .and_then(|ad| crate::output::render::lookup_str(ad, "Owner"));
        !session.may_act_on(owner.as_deref())
    })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PrioBody {
    ids: Vec<String>,
    priority: i32,
}

async fn prio(
    State(api): State<Shared>,
    headers: HeaderMap,
    Path(schedd): Path<String>,
    bytes: Result<Bytes, BytesRejection>,
) -> ApiResult {
    serve(api, headers, schedd, bytes, set_prio).await
}

fn set_prio(api: &Shared, session: &Session, bytes: &[u8]) -> ApiResult {
    let request: PrioBody = body(bytes)?;
    if request.ids.is_empty() {
        return Err(ApiError::bad_request("You did not specify any jobs"));
    }
    let specs: Vec<JobIdSpec> = request.ids.iter().map(|s| JobIdSpec::parse(s)).collect();
    let mut queue = open(session)?;
    let selected = queue
        .job_ids(&JobQuery::ids(specs))
        .map_err(|e| ApiError::internal(e.to_string()))?;
    if selected.is_empty() {
        return Err(ApiError::new(StatusCode::NOT_FOUND, "No matching jobs"));
    }
    let changes: Vec<(JobId, i32)> = selected.iter().map(|&id| (id, request.priority)).collect();
    let refused = match change(session, &mut queue, Change::Prio(changes)) {
        Answer::Refused(ids) => ids,
        Answer::Failed(text) => return Err(ApiError::internal(text)),
        _ => return Err(ApiError::internal("unexpected answer")),
    };
    let messages: Vec<String> = refused
        .iter()
        .map(|id| {
            format!(
                "Couldn't set new priority for {}.{}.",
                id.cluster.0, id.proc
            )
        })
        .collect();
    if refused.len() == selected.len() {
        return Err(ApiError::new(StatusCode::FORBIDDEN, messages.join("\n")));
    }
    wake(api);
    Ok(Json(json!({
        "changed": selected.len() - refused.len(),
        "refused": refused.iter().map(|id| id.to_string()).collect::<Vec<_>>(),
        "message": messages.join("\n"),
    })))
}

async fn reschedule(State(api): State<Shared>, headers: HeaderMap) -> ApiResult {
    blocking(move || {
        let session = writer(&headers, "DEFAULT")?;
        wake(&api);
        Ok(Json(json!({
            "message": format!("Sent \"Reschedule\" command to local schedd {}", session.schedd_name())
        })))
    })
    .await
}

/// A submit description from the body, made into jobs here as condor_submit makes them (its
/// relative names relative to the user's home directory) and stored as the user's, in one
/// transaction.
async fn submit(
    State(api): State<Shared>,
    headers: HeaderMap,
    Path(schedd): Path<String>,
    bytes: Result<Bytes, BytesRejection>,
) -> ApiResult {
    serve(api, headers, schedd, bytes, queue_description).await
}

fn queue_description(api: &Shared, session: &Session, bytes: &[u8]) -> ApiResult {
    if !crate::daemon::requests::may_submit_in_master(session) {
        let text = crate::daemon::requests::submit_in_master_refusal(session);
        return Err(ApiError::new(StatusCode::FORBIDDEN, text.trim_end()));
    }
    let text = String::from_utf8(bytes.to_vec())
        .map_err(|_| ApiError::bad_request("the submit description is not UTF-8"))?;
    let account = nix::unistd::User::from_name(&session.user)
        .ok()
        .flatten()
        .ok_or_else(|| {
            ApiError::new(
                StatusCode::FORBIDDEN,
                format!("{} has no account on this host", session.user),
            )
        })?;
    let ctx = crate::submit::SubmitContext {
        config: &session.config,
        cwd: account.dir.clone(),
        env: crate::config::Environment::default(),
        owner: session.user.clone(),
        qdate: session.now,
        utc_offset: None,
        submit_method: crate::submit::SUBMIT_METHOD_CONDOR_SUBMIT,
        remote: false,
        command_line: Default::default(),
        preset_items: None,
        // Never in the master: a command would run with its rights, not the user's.
        run_commands: false,
    };
    let file = crate::submit::SubmitFile::parse(&text, "-", &ctx)
        .map_err(|e| ApiError::bad_request(e.condor_submit_text().trim()))?;
    let queued = crate::client::submit::queue_jobs(session, &[&file], false, &mut |_, job| {
        crate::tools::submit::check_job_executable(job)
    });
    let (made, events) = queued.map_err(|(_, e)| match e {
        crate::client::submit::SubmitFailure::Text(text) => ApiError::bad_request(text.trim()),
        crate::client::submit::SubmitFailure::Queue(e) => ApiError::internal(e.to_string()),
        crate::client::submit::SubmitFailure::Remote(text) => ApiError::internal(text),
    })?;
    events.write(session);
    wake(api);
    let clusters: Vec<Value> = made
        .iter()
        .flatten()
        .map(|(c, n)| json!({ "cluster": c.0, "count": n }))
        .collect();
    let count: u32 = made.iter().flatten().map(|(_, n)| n).sum();
    let first = made.iter().flatten().next().map(|(c, _)| c.0);
    let message = made
        .iter()
        .flatten()
        .map(|(c, n)| format!("{n} job(s) submitted to cluster {}.", c.0))
        .collect::<Vec<_>>()
        .join("\n");
    Ok(Json(json!({
        "cluster": first,
        "count": count,
        "clusters": clusters,
        "message": message,
    })))
}
