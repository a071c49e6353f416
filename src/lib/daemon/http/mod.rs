//! The master's HTTP server: the pool for clients on other hosts (or in browsers, notebooks,
//! CI runners), on axum over hyper, in a tokio runtime on threads of its own.
//!
//! - Off unless `CONDORLITE_HTTP_ADDRESS` (`host:port`; port 0 takes a free port) is set. The
//!   address bound is written to `$(RUN)/condor_master.http` (`http://host:port`) for
//!   clients and tests to read (`https://` with TLS).
//! - TLS (rustls) when `CONDORLITE_HTTP_CERTIFICATE` and `CONDORLITE_HTTP_KEY` name a PEM
//!   certificate chain and its key. Without TLS an address other hosts can reach is refused
//!   unless `CONDORLITE_HTTP_ALLOW_INSECURE_NETWORK` is true.
//! - Every request is authenticated by an IDTOKEN (`Authorization: Bearer <token>`) signed
//!   with one of the pool's keys ([`crate::security::token::verify`]): the identity's user
//!   part (`alice` of `alice@UID_DOMAIN`) is the request's user, with the ownership rules of
//!   the Unix socket (the same code decides, [`super::requests::change`]). Reads may be
//!   opened to anonymous clients, as htcondor-restd serves them, with
//!   `CONDORLITE_HTTP_ANONYMOUS_READS = True`; writes always need a token.
//! - The read endpoints are htcondor-restd's ([`reads`]); the writes ([`writes`]) are this
//!   server's own.
//! - The scheduler loop is never waited on by a client: reads open the store read-only (as
//!   condor_q does), writes are made on a blocking thread in their own transaction (as the
//!   Unix socket's are) and wake the loop, and status queries ask the loop for its ads with
//!   a deadline. Request bodies are bounded, each request has a deadline, and at most
//!   [`MAX_CONCURRENT`] are served at once.

mod reads;
mod writes;

use std::net::{TcpListener, ToSocketAddrs};
use std::path::PathBuf;
use std::sync::mpsc::Sender;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::DefaultBodyLimit;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};

use super::{DaemonError, Msg};
use crate::client::Session;
use crate::config::Config;

/// The address to serve on (`host:port`); unset or empty: no HTTP server.
pub const ADDRESS_KNOB: &str = "CONDORLITE_HTTP_ADDRESS";
/// The server's certificate chain (PEM): with [`KEY_KNOB`], the server speaks HTTPS only.
pub const CERTIFICATE_KNOB: &str = "CONDORLITE_HTTP_CERTIFICATE";
/// The certificate's private key (PEM).
pub const KEY_KNOB: &str = "CONDORLITE_HTTP_KEY";
/// Lets the server listen on an address other hosts reach, without TLS.
pub const ALLOW_NETWORK_KNOB: &str = "CONDORLITE_HTTP_ALLOW_INSECURE_NETWORK";
/// Lets clients without a token read (jobs, history, status, config), as htcondor-restd does.
pub const ANONYMOUS_READS_KNOB: &str = "CONDORLITE_HTTP_ANONYMOUS_READS";
/// The file in `$(RUN)` the bound address is written to.
pub const ADDRESS_FILE: &str = "condor_master.http";

/// The largest request body read (a submit description, a JSON request).
pub const MAX_BODY: usize = 4 * 1024 * 1024;
/// The most requests served at once; more wait for a turn.
pub const MAX_CONCURRENT: usize = 64;
/// How long a request may take, its body's reading included.
pub const REQUEST_DEADLINE: Duration = Duration::from_secs(60);

/// A running server: its address file is removed when dropped (the server itself ends with
/// the process).
#[derive(Debug)]
pub struct Server {
    address_file: PathBuf,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.address_file);
    }
}

/// What every handler shares.
struct Api {
    to_main: Sender<Msg>,
}

type Shared = Arc<Api>;

/// Starts the server if the configuration asks for one: binds its address (so that a bad
/// one fails the master's start), writes the address file, and serves on a thread.
pub(super) fn start(config: &Config, to_main: Sender<Msg>) -> Result<Option<Server>, DaemonError> {
    let Some(text) = config.string(ADDRESS_KNOB)? else {
        return Ok(None);
    };
    let text = text.trim().to_owned();
    if text.is_empty() {
        return Ok(None);
    }
    let bad = |why: String| DaemonError::Config(format!("{ADDRESS_KNOB} = {text}: {why}"));
    let addr = text
        .to_socket_addrs()
        .map_err(|e| bad(e.to_string()))?
        .next()
        .ok_or_else(|| bad("no address".into()))?;
    let tls = tls_config(config)?;
    if tls.is_none()
        && !addr.ip().is_loopback()
        && !config.bool(ALLOW_NETWORK_KNOB)?.unwrap_or(false)
    {
        return Err(bad(format!(
            "not a loopback address: without TLS ({CERTIFICATE_KNOB} and {KEY_KNOB}) the \
             HTTP server listens where other hosts reach it only when {ALLOW_NETWORK_KNOB} = \
             True"
        )));
    }
    let listener = TcpListener::bind(addr).map_err(|e| bad(e.to_string()))?;
    listener
        .set_nonblocking(true)
        .map_err(|e| bad(e.to_string()))?;
    let address = listener.local_addr().map_err(|e| bad(e.to_string()))?;
    let run = config
        .string("RUN")?
        .ok_or_else(|| DaemonError::Config("RUN is not defined in the configuration".into()))?;
    let address_file = PathBuf::from(run).join(ADDRESS_FILE);
    let scheme = if tls.is_some() { "https" } else { "http" };
    std::fs::write(&address_file, format!("{scheme}://{address}\n"))
        .map_err(|e| DaemonError::io(&address_file, e))?;
    let server = Server { address_file };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("http")
        .enable_all()
        .build()
        .map_err(|e| bad(e.to_string()))?;
    let app = router(Arc::new(Api { to_main }));
    std::thread::Builder::new()
        .name("http server".into())
        .spawn(move || {
            runtime.block_on(async move {
                let served = match tls {
                    Some(tls) => {
                        let tls = axum_server::tls_rustls::RustlsConfig::from_config(tls);
                        axum_server::from_tcp_rustls(listener, tls)
                            .serve(app.into_make_service())
                            .await
                    }
                    None => match tokio::net::TcpListener::from_std(listener) {
                        Ok(l) => axum::serve(l, app).await,
                        Err(e) => Err(e),
                    },
                };
                if let Err(e) = served {
                    tracing::error!("the HTTP server stopped: {e}");
                }
            });
        })
        .map_err(|e| DaemonError::io(std::path::Path::new("thread"), e))?;
    tracing::info!("serving HTTP on {scheme}://{address}");
    Ok(Some(server))
}

/// The TLS configuration [`CERTIFICATE_KNOB`] and [`KEY_KNOB`] name (both, or neither:
/// plain HTTP), with rustls' safe defaults.
fn tls_config(config: &Config) -> Result<Option<Arc<rustls::ServerConfig>>, DaemonError> {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    let knob = |name: &str| -> Result<Option<String>, DaemonError> {
        Ok(config.string(name)?.filter(|v| !v.trim().is_empty()))
    };
    let (cert, key) = match (knob(CERTIFICATE_KNOB)?, knob(KEY_KNOB)?) {
        (None, None) => return Ok(None),
        (Some(cert), Some(key)) => (cert, key),
        (Some(_), None) | (None, Some(_)) => {
            return Err(DaemonError::Config(format!(
                "{CERTIFICATE_KNOB} and {KEY_KNOB} are set together, or neither"
            )))
        }
    };
    let bad = |knob: &str, path: &str, why: String| {
        DaemonError::Config(format!("{knob} = {path}: {why}"))
    };
    let certs = CertificateDer::pem_file_iter(&cert)
        .and_then(|certs| certs.collect::<Result<Vec<_>, _>>())
        .map_err(|e| bad(CERTIFICATE_KNOB, &cert, e.to_string()))?;
    if certs.is_empty() {
        return Err(bad(
            CERTIFICATE_KNOB,
            &cert,
            "no certificate in the file".into(),
        ));
    }
    let private =
        PrivateKeyDer::from_pem_file(&key).map_err(|e| bad(KEY_KNOB, &key, e.to_string()))?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let server = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| bad(CERTIFICATE_KNOB, &cert, e.to_string()))?
        .with_no_client_auth()
        .with_single_cert(certs, private)
        .map_err(|e| bad(KEY_KNOB, &key, e.to_string()))?;
    let mut server = server;
    server.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(Some(Arc::new(server)))
}

fn router(api: Shared) -> Router {
    use tower_http::timeout::TimeoutLayer;
    Router::new()
        .route("/", get(|| async { Json(serde_json::json!({})) }))
        .merge(reads::routes())
        .merge(writes::routes())
        .fallback(|| async { ApiError::new(StatusCode::NOT_FOUND, "Not Found") })
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .layer(TimeoutLayer::with_status_code(
            StatusCode::REQUEST_TIMEOUT,
            REQUEST_DEADLINE,
        ))
        .layer(tower::limit::GlobalConcurrencyLimitLayer::new(
            MAX_CONCURRENT,
        ))
        .with_state(api)
}

/// A refusal: its status and htcondor-restd's body, `{"message": ...}`.
#[derive(Debug)]
pub(crate) struct ApiError {
    status: StatusCode,
    message: String,
}

impl ApiError {
    fn new(status: StatusCode, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            message: message.into(),
        }
    }

    fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, message)
    }

    fn internal(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::SERVICE_UNAVAILABLE, message)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut response = (
            self.status,
            Json(serde_json::json!({ "message": self.message })),
        )
            .into_response();
        if self.status == StatusCode::UNAUTHORIZED {
            response.headers_mut().insert(
                axum::http::header::WWW_AUTHENTICATE,
                axum::http::HeaderValue::from_static("Bearer"),
            );
        }
        response
    }
}

type ApiResult = Result<Json<serde_json::Value>, ApiError>;

/// What a request needs its token to allow (a token with a `scope` allows only the
/// authorizations it names).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Need {
    Read,
    Write,
}

impl Need {
    fn word(self) -> &'static str {
        match self {
            Need::Read => "READ",
            Need::Write => "WRITE",
        }
    }
}

/// The request's user, from its bearer token; `None` for an anonymous read where the pool
/// allows them.
fn authenticate(
    headers: &HeaderMap,
    config: &Config,
    need: Need,
) -> Result<Option<String>, ApiError> {
    let unauthorized = |m: String| ApiError::new(StatusCode::UNAUTHORIZED, m);
    let Some(value) = headers.get(axum::http::header::AUTHORIZATION) else {
        if need == Need::Read && matches!(config.bool(ANONYMOUS_READS_KNOB), Ok(Some(true))) {
            return Ok(None);
        }
        return Err(unauthorized(
            "a token is required: send Authorization: Bearer <IDTOKEN>".into(),
        ));
    };
    let token = value
        .to_str()
        .ok()
        .and_then(|v| {
            let (scheme, token) = v.trim().split_once(' ')?;
            scheme.eq_ignore_ascii_case("bearer").then_some(token)
        })
        .ok_or_else(|| unauthorized("the Authorization header is not Bearer <IDTOKEN>".into()))?;
    let claims = crate::security::token::verify(config, token, super::now())
        .map_err(|e| unauthorized(format!("the token was refused: {}", token_refusal(&e))))?;
    let (user, domain) = claims
        .subject
        .split_once('@')
        .unwrap_or((claims.subject.as_str(), ""));
    let uid_domain = config
        .string("UID_DOMAIN")
        .ok()
        .flatten()
        .unwrap_or_default();
    if user.is_empty() || !domain.eq_ignore_ascii_case(&uid_domain) {
        return Err(unauthorized(format!(
            "the token's identity {} is not a user of this pool's UID_DOMAIN ({uid_domain})",
            claims.subject
        )));
    }
    if !claims.authz.is_empty() && !claims.authz.iter().any(|a| a == need.word()) {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            format!("the token's scope does not allow {}", need.word()),
        ));
    }
    Ok(Some(user.to_owned()))
}

fn token_refusal(e: &crate::security::token::TokenError) -> String {
    match e {
        crate::security::token::TokenError::Key(k) => k.message.clone(),
        crate::security::token::TokenError::Invalid(text) => text.clone(),
    }
}

/// The configuration, read afresh for a request (a `condor_reconfig` takes effect at once).
fn load_config() -> Result<Config, ApiError> {
    Config::load().map_err(|e| ApiError::internal(e.to_string()))
}

/// The session a request is served in: its token's user (anonymous reads: nobody's).
fn session(config: Config, user: Option<String>) -> Result<Session, ApiError> {
    super::requests::served_session(config, user.unwrap_or_default()).map_err(ApiError::internal)
}

/// Runs blocking work (the store, the configuration, the main loop's answer) off the
/// runtime's threads.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| ApiError::internal(format!("the request failed: {e}")))?
}

/// Whether `name` is a valid attribute name (htcondor-restd's `validate_attribute`).
fn valid_attribute(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Whether `name` names this pool's schedd (htcondor-restd's `DEFAULT` is the local one).
fn check_schedd(session: &Session, name: &str) -> Result<(), ApiError> {
    if name == "DEFAULT" || session.is_local_schedd(name) {
        Ok(())
    } else {
        Err(ApiError::bad_request(format!("Schedd not found: {name}")))
    }
}
