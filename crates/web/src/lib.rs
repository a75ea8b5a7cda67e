//! The grundy web explorer: an HTTP server with a JSON API (see docs/api.md) and a page,
//! served from the binary itself, to set up positions by clicking, see who wins and play
//! against perfect play. This crate is HTTP only: every answer comes from the application
//! layer (`grundy_app`), as for the command line.
//!
//! Solves run on blocking threads, in two lanes (quick ones, and those that need more than a
//! small budget of positions), each lane with its own bound on solves at once, and each solve
//! within a time limit and the [`Limits`], so a long solve never holds up other requests;
//! every failure is a 4xx answer with a JSON body `{"error": "..."}`.

use axum::{
    body::Bytes,
    extract::Request,
    extract::{rejection::BytesRejection, DefaultBodyLimit, State},
    http::{header, StatusCode},
    middleware::{self, Next},
    response::{IntoResponse, Response},
    routing::{get, post},
    Json, Router,
};
use grundy_app::solve::{AppError, ErrorKind, Limits, SolveOptions, SolveRequest};
use grundy_app::table::TableRequest;
use serde::de::DeserializeOwned;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Semaphore;

/// The address `grundy serve` listens on unless told otherwise.
pub const DEFAULT_ADDR: &str = "127.0.0.1:7878";

/// The largest game file a request may carry in its `game` field (1 MiB, as the command
/// line reads: [`grundy_games::gamefile::MAX_FILE_LEN`]); a longer one is refused (400).
pub const MAX_GAME_FILE: usize = grundy_games::gamefile::MAX_FILE_LEN;

/// The largest request body by default: room for a game file of [`MAX_GAME_FILE`] bytes
/// written as a JSON string (at most twice as long for a text file: a newline, a quote or a
/// backslash takes two characters), and 64 KiB for the rest of the request.
pub const DEFAULT_MAX_BODY: usize = 2 * MAX_GAME_FILE + 64 * 1024;

/// How the server runs: where it listens and the limits of one request.
#[derive(Clone, Debug)]
pub struct ServerConfig {
    /// Address to listen on.
    pub addr: SocketAddr,
    /// Limits of one solve.
    pub limits: Limits,
    /// Longest a solve may take before the request is answered [`TOO_SLOW`] (504).
    pub timeout: Duration,
    /// Most quick solves running at once; further ones wait (up to `timeout`), then get 429.
    pub max_concurrent: usize,
    /// Positions a solve may store in the quick lane before it moves to the slow lane.
    pub quick_positions: usize,
    /// Time a solve may take in the quick lane before it moves to the slow lane.
    pub quick_time: Duration,
    /// Most slow solves (those beyond `quick_positions`) running at once.
    pub max_slow: usize,
    /// Largest request body accepted, in bytes (413 beyond): the game file a request may
    /// carry counts toward it ([`DEFAULT_MAX_BODY`]).
    pub max_body: usize,
    /// The persistent store: tables and slow solves are kept there and answered from it.
    pub store: Option<Arc<grundy_store::Store>>,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            addr: DEFAULT_ADDR.parse().expect("the default address is valid"),
            limits: Limits::default(),
            timeout: Duration::from_secs(10),
            max_concurrent: 4,
            quick_positions: 50_000,
            quick_time: Duration::from_millis(200),
            max_slow: 2,
            max_body: DEFAULT_MAX_BODY,
            store: None,
        }
    }
}

struct AppState {
    config: ServerConfig,
    quick: Arc<Semaphore>,
    slow: Arc<Semaphore>,
}

/// The page and its assets, compiled into the binary.
const INDEX_HTML: &str = include_str!("../assets/index.html");
const APP_JS: &str = include_str!("../assets/app.js");
const STYLE_CSS: &str = include_str!("../assets/style.css");
const OPENAPI_JSON: &str = include_str!("../assets/openapi.json");

/// Solves that take at least this long are kept in the store.
pub const KEEP_AFTER: Duration = Duration::from_millis(20);

/// An answer of the server that is not a success: its HTTP status (4xx, or 504 for a solve
/// that ran out of time) and a message, sent as `{"error": message}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HttpError {
    /// HTTP status code: 400 bad input, 404 unknown family or page, 408 a request (its
    /// upload) too slow, 413 too large, 422 a limit of the server was reached, 429 too many
    /// solves at once, 504 a solve past its deadline.
    pub status: u16,
    /// What went wrong, for a person.
    pub message: String,
}

impl HttpError {
    /// An error with this status and message.
    pub fn new(status: u16, message: impl Into<String>) -> Self {
        HttpError {
            status,
            message: message.into(),
        }
    }
}

/// The status of a solve that ran out of time: 504, as gRPC's `DEADLINE_EXCEEDED` maps to
/// HTTP. Not 408: browsers resend a request answered 408 on a kept-alive connection (it
/// means "you were idle too long" there), so one timed-out solve from the explorer ran three
/// times in Chromium, and the page heard of it after three deadlines.
pub const TOO_SLOW: u16 = 504;

/// The HTTP status of an application error's kind.
pub fn status_of(kind: ErrorKind) -> u16 {
    match kind {
        ErrorKind::BadInput => 400,
        ErrorKind::UnknownFamily => 404,
        ErrorKind::TooLarge => 413,
        ErrorKind::Limit | ErrorKind::PositionLimit | ErrorKind::Memory => 422,
        ErrorKind::Cancelled => TOO_SLOW,
    }
}

impl From<AppError> for HttpError {
    fn from(e: AppError) -> Self {
        HttpError::new(status_of(e.kind), e.message)
    }
}

impl IntoResponse for HttpError {
    fn into_response(self) -> Response {
        let status = StatusCode::from_u16(self.status).unwrap_or(StatusCode::BAD_REQUEST);
        (status, Json(serde_json::json!({ "error": self.message }))).into_response()
    }
}

/// The application: page, assets and API, with the given configuration.
pub fn router(config: ServerConfig) -> Router {
    let max_body = config.max_body;
    let state = Arc::new(AppState {
        quick: Arc::new(Semaphore::new(config.max_concurrent.max(1))),
        slow: Arc::new(Semaphore::new(config.max_slow.max(1))),
        config,
    });
    Router::new()
        .route(
            "/",
            get(|| async { asset("text/html; charset=utf-8", INDEX_HTML) }),
        )
        .route(
            "/app.js",
            get(|| async { asset("text/javascript; charset=utf-8", APP_JS) }),
        )
        .route(
            "/style.css",
            get(|| async { asset("text/css; charset=utf-8", STYLE_CSS) }),
        )
        .route(
            "/api/openapi.json",
            get(|| async { asset("application/json", OPENAPI_JSON) }),
        )
        .route("/api/families", get(families))
        .route(
            "/api/health",
            get(|| async {
                Json(serde_json::json!({
                    "ok": true,
                    "memory": {
                        "in_use": grundy_core::memory::in_use(),
                        "peak": grundy_core::memory::peak(),
                        "budget": grundy_core::memory::budget(),
                    }
                }))
            }),
        )
        .route("/api/solve", post(solve))
        .route("/api/table", post(table))
        .fallback(|| async { HttpError::new(404, "no such page or API endpoint") })
        .method_not_allowed_fallback(|| async {
            HttpError::new(
                405,
                "method not allowed: the API takes POST for /api/solve and /api/table, GET otherwise",
            )
        })
        .layer(DefaultBodyLimit::max(max_body))
        .layer(middleware::from_fn_with_state(state.clone(), guard))
        .layer(middleware::from_fn_with_state(state.clone(), request_deadline))
        .with_state(state)
}

/// Whether `host` (a `Host` header, or the authority of an `Origin`) names the server at
/// `addr`: when it listens on a loopback address, only a loopback name (`localhost`,
/// `127.x.y.z`, `[::1]`) with its port, so a page of another site cannot reach it through a
/// name of its own resolving to 127.0.0.1 (DNS rebinding); elsewhere any name with its port.
pub fn host_allowed(host: &str, addr: SocketAddr) -> bool {
    let (name, port) = match host.rsplit_once(':') {
        Some((n, p)) if !n.is_empty() && !p.contains(']') => (n, Some(p)),
        _ => (host, None),
    };
    let port_ok = match port {
        Some(p) => p.parse::<u16>() == Ok(addr.port()),
        None => addr.port() == 80,
    };
    if !port_ok {
        return false;
    }
    if !addr.ip().is_loopback() {
        return true;
    }
    let name = name.to_ascii_lowercase();
    name == "localhost"
        || name == "[::1]"
        || name
            .parse::<std::net::Ipv4Addr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// Refuses what no page of this server sends: a `Host` that does not name the server, an
/// `Origin` of another site (403), and a POST whose body is not declared JSON (415: a form
/// or `text/plain` body is what a cross-site page could send without asking first).
async fn guard(State(state): State<Arc<AppState>>, req: Request, next: Next) -> Response {
    let addr = state.config.addr;
    let [host, origin, content_type] = [header::HOST, header::ORIGIN, header::CONTENT_TYPE].map(|name| {
        req.headers()
            .get(name)
            .map(|v| v.to_str().unwrap_or("\u{fffd}").to_string())
    });
    match host {
        Some(h) if host_allowed(&h, addr) => {}
        Some(h) => {
            return HttpError::new(403, format!("Host '{h}' does not name this server ({addr})"))
                .into_response()
        }
        None => return HttpError::new(400, "a request needs a Host header").into_response(),
    }
    if let Some(origin) = origin {
        let same = origin
            .strip_prefix("http://")
            .is_some_and(|authority| host_allowed(authority, addr));
        if !same {
            return HttpError::new(403, format!("requests from the origin '{origin}' are not served"))
                .into_response();
        }
    }
    if req.method() == axum::http::Method::POST {
        let json = content_type.is_some_and(|t| {
            t.split(';')
                .next()
                .is_some_and(|m| m.trim().eq_ignore_ascii_case("application/json"))
        });
        if !json {
            return HttpError::new(
                415,
                "the body must be JSON, sent with Content-Type: application/json",
            )
            .into_response();
        }
    }
    next.run(req).await
}

/// Every request, its body included, must be done within twice the solve timeout: a client
/// that sends its body slowly gets 408 rather than holding the request open.
async fn request_deadline(State(state): State<Arc<AppState>>, req: Request, next: Next) -> Response {
    let limit = state.config.timeout * 2;
    match tokio::time::timeout(limit, next.run(req)).await {
        Ok(r) => r,
        Err(_) => HttpError::new(
            408,
            format!(
                "the request took longer than {} s (a slow upload?)",
                limit.as_secs_f64()
            ),
        )
        .into_response(),
    }
}

fn asset(content_type: &'static str, body: &'static str) -> Response {
    ([(header::CONTENT_TYPE, content_type)], body).into_response()
}

async fn families() -> Json<serde_json::Value> {
    Json(serde_json::json!({ "families": grundy_app::solve::families() }))
}

/// Reads a JSON body ourselves, so a malformed one gets a JSON error saying where.
/// A body over the size limit (`max_body`) is refused with 413, saying the limits.
fn parse_body<T: DeserializeOwned>(
    body: Result<Bytes, BytesRejection>,
    max_body: usize,
) -> Result<T, HttpError> {
    let body = body.map_err(|e| {
        let status = e.status().as_u16();
        if status == 413 {
            return HttpError::new(413, too_large_body(max_body));
        }
        let status = if (400..500).contains(&status) { status } else { 400 };
        HttpError::new(status, format!("cannot read the request body: {}", e.body_text()))
    })?;
    serde_json::from_slice(&body).map_err(|e| HttpError::new(400, format!("malformed JSON request: {e}")))
}

/// The message of a 413 for a body over `max_body` bytes: the limits of a request body and
/// of the game file it may carry.
fn too_large_body(max_body: usize) -> String {
    format!(
        "the request body is longer than the server's limit of {max_body} bytes ({}); a game \
         file in `game` may have at most {MAX_GAME_FILE} bytes (1 MiB)",
        grundy_core::memory::human_bytes(max_body as u64)
    )
}

/// Runs `work` on a blocking thread, within the server's limits of concurrency and time, in
/// two lanes: first in the quick lane, with a small budget of positions
/// ([`ServerConfig::quick_positions`]) and of time ([`ServerConfig::quick_time`]); a solve
/// that needs more goes on in the slow lane (at most [`ServerConfig::max_slow`] at once)
/// with the full limits until the request's deadline. A solve whose time is up is stopped
/// (through [`Limits::cancel`]), so it frees its lane at once, and long solves never hold the
/// quick lane, which keeps answering small requests.
async fn run_limited<T, F>(state: &AppState, limit: TimeLimit, work: F) -> Result<T, HttpError>
where
    T: Send + 'static,
    F: Fn(Limits) -> Result<T, AppError> + Send + Sync + 'static,
{
    let work = Arc::new(work);
    let config = &state.config;
    let full = config.limits.clone();
    let quick = Limits {
        max_positions: full.max_positions.min(config.quick_positions),
        ..full.clone()
    };
    let deadline = tokio::time::Instant::now() + limit.time;
    let can_grow = full.max_positions > config.quick_positions || config.quick_time < limit.time;
    let w = work.clone();
    match run_lane(&state.quick, deadline, Some(config.quick_time), quick, move |l| {
        w(l)
    })
    .await?
    {
        LaneEnd::Done(Err(e))
            if e.kind == ErrorKind::PositionLimit && full.max_positions > config.quick_positions => {}
        LaneEnd::Done(r) => return r.map_err(HttpError::from),
        LaneEnd::OutOfTime if can_grow && tokio::time::Instant::now() < deadline => {}
        LaneEnd::OutOfTime => return Err(too_slow(limit)),
    }
    match run_lane(&state.slow, deadline, None, full, move |l| work(l)).await? {
        LaneEnd::Done(r) => r.map_err(HttpError::from),
        LaneEnd::OutOfTime => Err(too_slow(limit)),
    }
}

/// How long a request may take, and whether that is the request's own `timeout` (shorter
/// than the server's) or the server's.
#[derive(Clone, Copy, Debug)]
struct TimeLimit {
    time: Duration,
    asked: bool,
}

impl TimeLimit {
    /// The server's limit.
    fn server(config: &ServerConfig) -> Self {
        TimeLimit {
            time: config.timeout,
            asked: false,
        }
    }

    /// The request's `timeout` (seconds) where it is shorter than the server's limit; 400 for
    /// one that is not a positive number of seconds.
    fn asked(config: &ServerConfig, timeout: Option<f64>) -> Result<Self, HttpError> {
        let Some(t) = timeout else {
            return Ok(Self::server(config));
        };
        if !(t.is_finite() && t > 0.0) {
            return Err(HttpError::new(
                400,
                format!("field `timeout`: {t} is not a positive number of seconds"),
            ));
        }
        Ok(match Duration::try_from_secs_f64(t) {
            Ok(d) if d < config.timeout => TimeLimit {
                time: d.max(Duration::from_millis(1)),
                asked: true,
            },
            _ => Self::server(config),
        })
    }
}

fn too_slow(limit: TimeLimit) -> HttpError {
    let whose = if limit.asked {
        "the request's `timeout`"
    } else {
        "the server's limit"
    };
    HttpError::new(
        TOO_SLOW,
        format!(
            "the solve took longer than {whose} of {} s",
            limit.time.as_secs_f64()
        ),
    )
}

/// How a run in one lane ended.
enum LaneEnd<T> {
    /// It finished, with this answer.
    Done(Result<T, AppError>),
    /// Its time ran out; it was told to stop.
    OutOfTime,
}

/// Runs `work` in `lane`: waits for a place until `deadline` (429 after), then runs for at
/// most `budget` (and not past `deadline`), stopping the work when the time is up.
async fn run_lane<T, F>(
    lane: &Arc<Semaphore>,
    deadline: tokio::time::Instant,
    budget: Option<Duration>,
    mut limits: Limits,
    work: F,
) -> Result<LaneEnd<T>, HttpError>
where
    T: Send + 'static,
    F: FnOnce(Limits) -> Result<T, AppError> + Send + 'static,
{
    let permit = tokio::time::timeout_at(deadline, lane.clone().acquire_owned())
        .await
        .map_err(|_| HttpError::new(429, "too many solves at once: try again shortly"))?
        .map_err(|_| HttpError::new(429, "the server is shutting down"))?;
    let end = match budget {
        Some(b) => deadline.min(tokio::time::Instant::now() + b),
        None => deadline,
    };
    let cancel = Arc::new(AtomicBool::new(false));
    limits.cancel = Some(cancel.clone());
    let task = tokio::task::spawn_blocking(move || {
        let out = work(limits);
        // What the solve held is freed by now: give it back to the system, so the
        // server's resident size returns to its idle size after heavy requests.
        grundy_core::memory::release_free_memory();
        drop(permit);
        out
    });
    Ok(match tokio::time::timeout_at(end, task).await {
        Err(_) => {
            cancel.store(true, Ordering::Relaxed);
            LaneEnd::OutOfTime
        }
        Ok(Err(_)) => LaneEnd::Done(Err(AppError::new(
            ErrorKind::Limit,
            "the solve failed unexpectedly",
        ))),
        Ok(Ok(r)) => LaneEnd::Done(r),
    })
}

async fn solve(
    State(state): State<Arc<AppState>>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, HttpError> {
    let req: SolveRequest = parse_body(body, state.config.max_body)?;
    let limit = TimeLimit::asked(&state.config, req.timeout)?;
    let store = state.config.store.clone();
    let r = run_limited(&state, limit, move |limits| {
        let opts = SolveOptions {
            store: store.as_deref(),
            keep_after: KEEP_AFTER,
            ..SolveOptions::default()
        };
        grundy_app::solve::solve_with(&req, &limits, opts)
    })
    .await?;
    json_capped(&r, state.config.limits.max_response)
}

/// `value` as a JSON response, or 422 when it is longer than `cap` bytes (the estimate
/// before the solve refuses most such answers; this is the exact check).
fn json_capped<T: serde::Serialize>(value: &T, cap: u64) -> Result<Response, HttpError> {
    let body = serde_json::to_vec(value)
        .map_err(|e| HttpError::new(500, format!("cannot write the answer: {e}")))?;
    if body.len() as u64 > cap {
        return Err(HttpError::new(
            422,
            format!(
                "the answer is {} bytes of JSON, more than the limit of {} an answer may take",
                body.len(),
                cap
            ),
        ));
    }
    Ok(([(axum::http::header::CONTENT_TYPE, "application/json")], body).into_response())
}

async fn table(
    State(state): State<Arc<AppState>>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, HttpError> {
    let req: TableRequest = parse_body(body, state.config.max_body)?;
    let store = state.config.store.clone();
    let r = run_limited(&state, TimeLimit::server(&state.config), move |limits| {
        grundy_app::table::table_kept(store.as_deref(), &req, &limits)
    })
    .await?;
    json_capped(&r, state.config.limits.max_response)
}

/// Stops a background task when dropped (when the server stops).
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Serves until Ctrl-C (or SIGTERM), printing the address it listens on to stderr.
pub async fn serve(config: ServerConfig) -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind(config.addr).await?;
    let addr = listener.local_addr()?;
    eprintln!("grundy: serving the explorer on http://{addr}/ (Ctrl-C to stop)");
    if let Some(share) = config.limits.memory {
        eprintln!(
            "grundy: memory: {} for each of at most {} solves at once (--memory-budget {})",
            grundy_core::memory::human_bytes(share),
            config.max_concurrent.max(1) + config.max_slow.max(1),
            grundy_core::memory::human_bytes(grundy_core::memory::budget())
        );
    }
    serve_on(listener, config, shutdown()).await
}

/// Serves on `listener` until `stop` completes. Each connection is HTTP/1.1 with a deadline
/// for its request headers (twice the solve timeout), so a client that sends its headers
/// slowly is disconnected rather than kept open for ever.
pub async fn serve_on(
    listener: tokio::net::TcpListener,
    config: ServerConfig,
    stop: impl std::future::Future<Output = ()>,
) -> std::io::Result<()> {
    let header_timeout = config.timeout * 2;
    // The address actually served (a port of 0 asks the system for one): the Host and Origin
    // of requests are checked against it.
    let config = ServerConfig {
        addr: listener.local_addr()?,
        ..config
    };
    let app = router(config);
    tokio::pin!(stop);
    // Freed memory goes back to the system a moment after the work that held it is done
    // (request bodies and answers are freed on the runtime's threads, after the solve).
    let trimmer = tokio::spawn(async {
        let mut last = 0;
        loop {
            tokio::time::sleep(Duration::from_secs(1)).await;
            let now = grundy_core::memory::in_use();
            if now != last {
                last = now;
                grundy_core::memory::release_free_memory();
            }
        }
    });
    let _trimmer = AbortOnDrop(trimmer);
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                // Out of file descriptors and the like: wait a little, go on.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    continue;
                }
            },
            _ = &mut stop => return Ok(()),
        };
        let service = hyper_util::service::TowerToHyperService::new(app.clone());
        tokio::spawn(async move {
            let mut http = hyper::server::conn::http1::Builder::new();
            http.timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(header_timeout);
            // A connection that fails (reset, timed out) concerns that client only.
            let _ = http
                .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                .await;
        });
    }
}

async fn shutdown() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! { _ = ctrl_c => {}, _ = term => {} }
}

/// Runs [`serve`] on a fresh multi-threaded runtime (for the `grundy serve` command).
pub fn serve_blocking(config: ServerConfig) -> std::io::Result<()> {
    grundy_core::memory::return_memory_promptly();
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        // A solve's thread ends a second after its work: the memory its allocator arena
        // kept goes back to the system with it (the default keeps it 10 s).
        .thread_keep_alive(Duration::from_secs(1))
        .build()?
        .block_on(serve(config))
}
