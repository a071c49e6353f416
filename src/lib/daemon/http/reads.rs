//! htcondor-restd's read endpoints, with its paths, parameters and JSON:
//!
//! - `GET /v1/jobs/{schedd}[/{cluster}[/{proc}[/{attribute}]]]` and the same under
//!   `/v1/history`: a list of `{"jobid": "C.P", "classad": {...}}`, one such object for a
//!   job named by cluster and proc (404 `No matching jobs` when none), or one attribute's
//!   value (404 `Undefined attribute`). `schedd` is `DEFAULT` or this pool's schedd's
//!   name; `/v1/jobs` alone is `DEFAULT`'s. `constraint` (a ClassAd expression, `true` by
//!   default) and `projection` (attribute names separated by commas) narrow the answer;
//!   `RESTD_MAX_JOBS` bounds it and `RESTD_HIDE_JOB_ATTRS` redacts attributes.
//! - `GET /v1/status[/{name}]`: `{"name", "type", "classad"}` per ad of the kind `query`
//!   names (`any` by default), with `constraint` and `projection`.
//! - `GET /v1/config[/{attribute}]`: the configuration, names in lower case.
//!
//! Ads are rendered as htcondor-restd renders them: HTCondor's JSON form (an expression is
//! the string `/Expr(...)/`), names in lower case. Private attributes are left out, as
//! condor_q leaves them out.

use std::collections::HashMap;

use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::routing::get;
use axum::{Json, Router};
use serde_json::Value;

use super::{
    authenticate, blocking, check_schedd, load_config, session, valid_attribute, ApiError,
    ApiResult, Need, Shared,
};
use crate::classad::parser::parse_old_expr;
use crate::classad::{ClassAd, Expr};
use crate::client::master::AdKind;
use crate::output::ads::{select, Selection};
use crate::queue::{ClusterId, HistoryOrder, HistoryQuery, JobId, JobIdSpec, JobQuery, Queue};

pub(super) fn routes() -> Router<Shared> {
    Router::new()
        .route("/v1/jobs", get(default_jobs))
        .route("/v1/jobs/{schedd}", get(jobs))
        .route("/v1/jobs/{schedd}/{cluster}", get(jobs))
        .route("/v1/jobs/{schedd}/{cluster}/{proc}", get(jobs))
        .route("/v1/jobs/{schedd}/{cluster}/{proc}/{attribute}", get(jobs))
        .route("/v1/history", get(default_history))
        .route("/v1/history/{schedd}", get(history))
        .route("/v1/history/{schedd}/{cluster}", get(history))
        .route("/v1/history/{schedd}/{cluster}/{proc}", get(history))
        .route(
            "/v1/history/{schedd}/{cluster}/{proc}/{attribute}",
            get(history),
        )
        .route("/v1/status", get(status))
        .route("/v1/status/{name}", get(status))
        .route("/v1/config", get(config))
        .route("/v1/config/{attribute}", get(config))
}

type Params = HashMap<String, String>;

async fn default_jobs(headers: HeaderMap, Query(q): Query<Params>) -> ApiResult {
    job_query(false, Params::new(), q, headers).await
}

async fn jobs(headers: HeaderMap, Path(p): Path<Params>, Query(q): Query<Params>) -> ApiResult {
    job_query(false, p, q, headers).await
}

async fn default_history(headers: HeaderMap, Query(q): Query<Params>) -> ApiResult {
    job_query(true, Params::new(), q, headers).await
}

async fn history(headers: HeaderMap, Path(p): Path<Params>, Query(q): Query<Params>) -> ApiResult {
    job_query(true, p, q, headers).await
}

/// A path's number (`<int:...>` in htcondor-restd: anything else is no such page).
fn number(path: &Params, name: &str) -> Result<Option<i32>, ApiError> {
    path.get(name)
        .map(|text| {
            text.parse::<i32>()
                .map_err(|_| ApiError::new(StatusCode::NOT_FOUND, "Not Found"))
        })
        .transpose()
}

/// A projection's attributes, checked (`validate_projection`); empty: all.
fn projection(query: &Params) -> Result<Vec<String>, ApiError> {
    let text = query.get("projection").map(|s| s.trim()).unwrap_or("");
    if text.is_empty() {
        return Ok(Vec::new());
    }
    let mut bad: Vec<&str> = text.split(',').filter(|a| !valid_attribute(a)).collect();
    if !bad.is_empty() {
        bad.sort_unstable();
        bad.dedup();
        return Err(ApiError::bad_request(format!(
            "Invalid attribute(s) in projection: {}",
            bad.join(", ")
        )));
    }
    Ok(text.split(',').map(str::to_owned).collect())
}

/// A constraint, parsed; the words of condor_q's refusal when it does not parse.
fn constraint(text: &str) -> Result<Expr, ApiError> {
    parse_old_expr(text).map_err(|_| {
        ApiError::bad_request(format!("Parse error in constraint expression \"{text}\""))
    })
}

/// An ad as htcondor-restd renders it: the selected attributes in HTCondor's JSON form,
/// names in lower case (nested ads' too).
pub(super) fn ad_json(ad: &ClassAd, only: &[String]) -> Value {
    let sel = Selection {
        only: (!only.is_empty()).then_some(only),
        sorted: true,
        exclude_private: true,
    };
    let attrs = select(ad, &sel);
    let mut text = String::new();
    crate::classad::unparse::json_ad_attrs(&mut text, attrs.into_iter(), 0, true);
    lower_keys(serde_json::from_str(&text).unwrap_or(Value::Null))
}

fn lower_keys(value: Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(k, v)| (k.to_ascii_lowercase(), lower_keys(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(lower_keys).collect()),
        other => other,
    }
}

/// `/v1/jobs` and `/v1/history`.
async fn job_query(history: bool, path: Params, query: Params, headers: HeaderMap) -> ApiResult {
    blocking(move || {
        let config = load_config()?;
        let user = authenticate(&headers, &config, Need::Read)?;
        let session = session(config, user)?;
        check_schedd(&session, path.get("schedd").map_or("DEFAULT", |s| s))?;
        let cluster = number(&path, "cluster")?;
        let proc = number(&path, "proc")?;
        let attribute = path.get("attribute");
        let mut only = match attribute {
            Some(a) if !valid_attribute(a) => {
                return Err(ApiError::bad_request(format!("Invalid attribute: {a}")))
            }
            Some(a) => vec![a.clone()],
            None => projection(&query)?,
        };
        let text = query
            .get("constraint")
            .map(|s| s.trim())
            .filter(|s| !s.is_empty())
            .unwrap_or("true");
        let mut jobs = JobQuery::all();
        let single = match (cluster, proc) {
            (Some(c), Some(p)) => {
                jobs = JobQuery::ids([JobIdSpec::Job(JobId::new(c, p))]);
                true
            }
            (Some(c), None) => {
                jobs = JobQuery::ids([JobIdSpec::Cluster(ClusterId(c))])
                    .with_constraint(constraint(text)?);
                false
            }
            _ => {
                jobs = jobs.with_constraint(constraint(text)?);
                false
            }
        };
        let projected = !only.is_empty();
        if projected {
            only.extend(["ClusterId".to_owned(), "ProcId".to_owned()]);
        }
        let keep_ids = |name: &str| {
            !projected
                || only[..only.len() - 2]
                    .iter()
                    .any(|a| a.eq_ignore_ascii_case(name))
        };
        let (keep_cluster, keep_proc) = (keep_ids("ClusterId"), keep_ids("ProcId"));
        let limit = max_jobs(&session);
        let hidden: Vec<String> = session
            .config
            .string("RESTD_HIDE_JOB_ATTRS")
            .ok()
            .flatten()
            .unwrap_or_default()
            .split([' ', '\t', ','])
            .filter(|s| !s.is_empty())
            .map(str::to_ascii_lowercase)
            .collect();
        let queue = Queue::open_read_only(session.spool())
            .map_err(|e| ApiError::internal(format!("Error querying schedd: {e}")))?;
        let mut found = Vec::new();
        let render = |ad: &ClassAd| {
            let mut json = ad_json(ad, &only);
            let map = json.as_object_mut().expect("an ad renders as an object");
            let id = format!(
                "{}.{}",
                map.get("clusterid").unwrap_or(&Value::Null),
                map.get("procid").unwrap_or(&Value::Null)
            );
            if !keep_cluster {
                map.remove("clusterid");
            }
            if !keep_proc {
                map.remove("procid");
            }
            for attr in &hidden {
                if let Some(v) = map.get_mut(attr) {
                    *v = Value::from("<REDACTED>");
                }
            }
            serde_json::json!({ "classad": json, "jobid": id })
        };
        let failed = |e: crate::queue::QueueError| {
            ApiError::internal(format!(
                "Error querying {}: {e}",
                if history { "history file" } else { "schedd" }
            ))
        };
        if history {
            let q = HistoryQuery::new(jobs, HistoryOrder::NewestFirst);
            for entry in queue.history(&q).map_err(failed)? {
                if limit.is_some_and(|l| found.len() >= l) {
                    break;
                }
                found.push(render(entry.map_err(failed)?.ad().map_err(failed)?));
            }
        } else {
            for job in queue.jobs(&jobs).map_err(failed)? {
                if limit.is_some_and(|l| found.len() >= l) {
                    break;
                }
                found.push(render(job.map_err(failed)?.ad().map_err(failed)?));
            }
        }
        if !single {
            return Ok(Json(Value::Array(found)));
        }
        let Some(mut job) = found.into_iter().next() else {
            return Err(ApiError::new(StatusCode::NOT_FOUND, "No matching jobs"));
        };
        let Some(attribute) = attribute else {
            return Ok(Json(job));
        };
        job["classad"]
            .as_object_mut()
            .and_then(|ad| ad.remove(&attribute.to_ascii_lowercase()))
            .map(Json)
            .ok_or_else(|| ApiError::new(StatusCode::NOT_FOUND, "Undefined attribute"))
    })
    .await
}

/// `RESTD_MAX_JOBS`: the most jobs an answer lists (none, or a negative value: no bound).
fn max_jobs(session: &crate::client::Session) -> Option<usize> {
    session
        .config
        .int("RESTD_MAX_JOBS")
        .ok()
        .flatten()
        .and_then(|n| usize::try_from(n).ok())
}

/// The ad kinds `query` names (htcondor-restd's `AD_TYPES_MAP`); kinds this pool has no
/// daemon for have no ads.
fn ad_kinds(query: &str) -> Result<Vec<AdKind>, ApiError> {
    Ok(match query {
        "any" => AdKind::ALL.to_vec(),
        "startd" => vec![AdKind::Slots, AdKind::Startd],
        "schedd" => vec![AdKind::Schedd],
        "submitter" => vec![AdKind::Submitters],
        "negotiator" => vec![AdKind::Negotiator],
        "master" => vec![AdKind::Master],
        "collector" => vec![AdKind::Collector],
        "accounting" | "credd" | "defrag" | "generic" | "grid" | "had" | "license" => vec![],
        other => {
            return Err(ApiError::bad_request(format!(
                "query: {other:?} is not a valid choice"
            )))
        }
    })
}

/// How long a status query waits for the main loop's answer.
const ANSWER_DEADLINE: std::time::Duration = std::time::Duration::from_secs(15);

/// `/v1/status`.
async fn status(
    State(api): State<Shared>,
    headers: HeaderMap,
    Path(path): Path<Params>,
    Query(query): Query<Params>,
) -> ApiResult {
    blocking(move || {
        let config = load_config()?;
        authenticate(&headers, &config, Need::Read)?;
        let kinds = ad_kinds(query.get("query").map_or("any", |s| s.trim()))?;
        let only = projection(&query)?;
        let mut text = query
            .get("constraint")
            .map(|s| s.trim())
            .filter(|s| !s.is_empty())
            .unwrap_or("true")
            .to_owned();
        if let Some(name) = path.get("name") {
            text = format!("{text} && (name == \"{}\")", name.replace(['"', '\\'], ""));
        }
        let constraint = constraint(&text)?;
        let mut found = Vec::new();
        for kind in kinds {
            let (tx, rx) = std::sync::mpsc::channel();
            let peer = super::super::Peer::this_process();
            if api
                .to_main
                .send(super::super::Msg::Query(kind, peer, tx))
                .is_err()
            {
                return Err(ApiError::internal("the master is stopping"));
            }
            let ads = rx
                .recv_timeout(ANSWER_DEADLINE)
                .map_err(|_| ApiError::internal("the master did not answer"))?;
            for ad in ads
                .iter()
                .filter(|ad| crate::queue::constraint_holds(&constraint, ad))
            {
                let full = ad_json(ad, &[]);
                let json = ad_json(ad, &only);
                found.push(serde_json::json!({
                    "classad": json,
                    "name": full.get("name").cloned().unwrap_or(Value::Null),
                    "type": full.get("mytype").cloned().unwrap_or(Value::Null),
                }));
            }
        }
        Ok(Json(Value::Array(found)))
    })
    .await
}

/// `/v1/config`: every knob (the defaults included) and its value, expanded, as
/// `htcondor.param` holds them; or one knob's value.
async fn config(headers: HeaderMap, Path(path): Path<Params>) -> ApiResult {
    blocking(move || {
        let config = load_config()?;
        authenticate(&headers, &config, Need::Read)?;
        if let Some(attribute) = path.get("attribute") {
            if !valid_attribute(attribute) {
                return Err(ApiError::bad_request(format!(
                    "Invalid attribute: {attribute}"
                )));
            }
            return match config.string(attribute) {
                Ok(Some(value)) => Ok(Json(Value::from(value))),
                _ => Err(ApiError::new(
                    StatusCode::NOT_FOUND,
                    format!("Undefined attribute: {attribute}"),
                )),
            };
        }
        let mut all = serde_json::Map::new();
        for name in crate::tools::config_val::all_names(&config) {
            if let Ok(Some(value)) = config.string(&name) {
                all.insert(name.to_ascii_lowercase(), Value::from(value));
            }
        }
        Ok(Json(Value::Object(all)))
    })
    .await
}
