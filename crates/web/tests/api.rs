//! The JSON API over real TCP on loopback: answers, every kind of bad input (always a 4xx
//! with a JSON message), limits, timeouts, and a long solve not holding up other requests.

use grundy_app::solve::Limits;
use grundy_web::{serve_on, ServerConfig};
use serde_json::{json, Value};
use std::net::SocketAddr;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Starts the server on a free port and returns its address.
async fn start(config: ServerConfig) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { serve_on(listener, config, std::future::pending()).await.unwrap() });
    addr
}

/// One HTTP/1.1 request from the server's own page (its Host, a JSON body); returns the
/// status, the content type and the body.
async fn request(addr: SocketAddr, method: &str, path: &str, body: &[u8]) -> (u16, String, String) {
    let headers = format!("Host: {addr}\r\nContent-Type: application/json\r\n");
    send(addr, method, path, &headers, body).await
}

/// One HTTP/1.1 request with the given header lines (each ending in CRLF; no Host unless
/// given); returns the status, the content type and the body.
async fn send(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &str,
    body: &[u8],
) -> (u16, String, String) {
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    let head = format!(
        "{method} {path} HTTP/1.1\r\n{headers}Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    s.write_all(head.as_bytes()).await.unwrap();
    s.write_all(body).await.unwrap();
    let mut out = Vec::new();
    s.read_to_end(&mut out).await.unwrap();
    let text = String::from_utf8_lossy(&out).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").expect("a response head");
    let status = head[9..12].parse().unwrap();
    let ctype = head
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .strip_prefix("content-type: ")
                .map(str::to_string)
        })
        .unwrap_or_default();
    (status, ctype, body.to_string())
}

async fn post(addr: SocketAddr, path: &str, body: Value) -> (u16, Value) {
    let (status, _, text) = request(addr, "POST", path, body.to_string().as_bytes()).await;
    (
        status,
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}")),
    )
}

/// Asserts a 4xx JSON error whose message contains `needle`.
async fn expect_error(addr: SocketAddr, path: &str, body: &[u8], status: u16, needle: &str) {
    let (got, ctype, text) = request(addr, "POST", path, body).await;
    assert_eq!(got, status, "{text}");
    assert!(ctype.starts_with("application/json"), "{ctype}");
    let v: Value = serde_json::from_str(&text).unwrap();
    let msg = v["error"].as_str().unwrap();
    assert!(msg.contains(needle), "'{msg}' does not contain '{needle}'");
}

#[tokio::test]
async fn page_assets_and_families() {
    let addr = start(ServerConfig::default()).await;
    let (status, ctype, body) = request(addr, "GET", "/", b"").await;
    assert_eq!(status, 200);
    assert!(ctype.starts_with("text/html"));
    assert!(body.contains("grundy") && body.contains("/app.js"));
    let (status, ctype, _) = request(addr, "GET", "/app.js", b"").await;
    assert_eq!((status, ctype.starts_with("text/javascript")), (200, true));
    let (status, _, body) = request(addr, "GET", "/api/openapi.json", b"").await;
    assert_eq!(status, 200);
    assert!(serde_json::from_str::<Value>(&body).unwrap()["paths"]["/api/solve"].is_object());
    let (status, _, body) = request(addr, "GET", "/api/families", b"").await;
    assert_eq!(status, 200);
    let v: Value = serde_json::from_str(&body).unwrap();
    let names: Vec<&str> = v["families"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["name"].as_str().unwrap())
        .collect();
    for d in grundy_games::registry::DESCRIPTIONS {
        let listed = std::iter::once(d.name).filter(|_| d.code.is_none());
        for name in listed.chain(d.presets.iter().map(|p| p.0)) {
            assert!(names.contains(&name), "{name} missing from {names:?}");
        }
    }
    // A heap-game preset answers through the same API.
    let body = br#"{"family":"0.77","position":"5 9 12"}"#;
    let (status, _, answer) = request(addr, "POST", "/api/solve", body).await;
    assert_eq!(status, 200, "{answer}");
    let v: Value = serde_json::from_str(&answer).unwrap();
    assert_eq!(v["grundy"], 4, "{answer}");
    let (status, _, body) = request(addr, "GET", "/nope", b"").await;
    assert_eq!(status, 404);
    assert!(body.contains("error"));
}

#[tokio::test]
async fn solve_nim() {
    let addr = start(ServerConfig::default()).await;
    let (status, v) = post(
        addr,
        "/api/solve",
        json!({"family": "nim", "position": "3 5 7", "remoteness": true}),
    )
    .await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["grundy"], 1);
    assert_eq!(v["outcome"], "first");
    assert_eq!(v["winning_moves"], json!(["1:3->2", "2:5->4", "3:7->6"]));
    let moves = v["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 3 + 5 + 7);
    let m = moves.iter().find(|m| m["move"] == "2:5->4").unwrap();
    assert_eq!(m["wins"], true);
    assert_eq!(m["grundy"], 0);
    assert_eq!(m["outcome"], "second");
    assert_eq!(m["position_after"], "3 4 7");
    assert!(m["remoteness"].is_u64());
    // Perfect play picks a winning move, the fastest one.
    let best = v["best_move"].as_str().unwrap();
    let fastest = moves
        .iter()
        .filter(|m| m["wins"] == true)
        .map(|m| m["remoteness"].as_u64().unwrap())
        .min()
        .unwrap();
    let b = moves.iter().find(|m| m["move"] == best).unwrap();
    assert_eq!(
        (b["wins"].as_bool(), b["remoteness"].as_u64()),
        (Some(true), Some(fastest))
    );
    // Misère: 1 1 is a first-player win (take one heap, leave the last token).
    let (status, v) = post(
        addr,
        "/api/solve",
        json!({"family": "nim", "position": "1 1", "misere": true}),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(
        (v["convention"].as_str(), v["outcome"].as_str()),
        (Some("misere"), Some("first"))
    );
    assert_eq!(v["grundy"], Value::Null);
}

#[tokio::test]
async fn immediate_wins_end_the_game() {
    let addr = start(ServerConfig::default()).await;
    let (status, v) = post(
        addr,
        "/api/solve",
        json!({"family": "crosses", "position": "XX......"}),
    )
    .await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["grundy"], Value::Null);
    assert_eq!(v["best_move"], "3");
    let ends: Vec<&Value> = v["moves"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["ends_game"] == true)
        .collect();
    assert_eq!(ends.len(), 1);
    assert_eq!(ends[0]["move"], "3");
    assert_eq!(ends[0]["position_after"], "XXX.....");
}

#[tokio::test]
async fn graph_games_carry_their_graph() {
    let addr = start(ServerConfig::default()).await;
    let (status, v) = post(
        addr,
        "/api/solve",
        json!({"family": "points", "position": "110000000011", "misere": true}),
    )
    .await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["graph"]["points"], 12);
    assert_eq!(v["graph"]["edges"].as_array().unwrap().len(), 12);
    let (status, v) = post(
        addr,
        "/api/solve",
        json!({"family": "graph", "board": "cycle:5", "rule": "node-kayles"}),
    )
    .await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["graph"]["edges"].as_array().unwrap().len(), 5);
    // A move on the whole graph leads to a points position on the same graph.
    assert_eq!(v["moves"][0]["position_after"], "00110");
    let (status, v) = post(
        addr,
        "/api/solve",
        json!({"family": "points", "board": "cycle:5", "rule": "node-kayles", "position": "00110"}),
    )
    .await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["moves"].as_array().unwrap().len(), 2);
}

#[tokio::test]
async fn tables() {
    let addr = start(ServerConfig::default()).await;
    let (status, v) = post(addr, "/api/table", json!({"family": "cutting", "size": 4})).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["kind"], "grid");
    // Sheets 2x2, 2x3, 3x2 and 3x3 are losses for the player to move; 1-wide sheets win at once.
    assert_eq!(v["values"][1][1], 0);
    assert_eq!(v["values"][1][2], 0);
    assert_eq!(v["values"][0][3], Value::Null);
    let (status, v) = post(addr, "/api/table", json!({"family": "nim", "size": 5})).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["values"], json!([[0, 1, 2, 3, 4]]));
    // Crosses: strips of n empty squares (0.007 shifted by two: 0, 1, 1, 1, 2 for n = 0..4 ...).
    let (status, v) = post(addr, "/api/table", json!({"family": "crosses", "size": 4})).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["kind"], "sequence");
    let (status, v) = post(addr, "/api/table", json!({"family": "bombs", "size": 3})).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["values"][0][0], 0, "a bomb on the corner explodes at once");
    assert_eq!(v["values"][0][2], 2, "a bomb at (0, 2) is a nim heap of 2");
    // Chomp and Cram rectangles: grids cut to 8×8 and 6×6 whatever the size asked, the same
    // read either way round; a 1×n bar of Chomp is a heap of n − 1, a 1×n strip of Cram a
    // heap of n in 0.07 (Dawson's Kayles).
    for (family, side, strip) in [
        ("chomp", 8, vec![0, 1, 2, 3, 4, 5]),
        ("cram", 6, vec![0, 1, 1, 2, 0, 3]),
    ] {
        let (status, v) = post(addr, "/api/table", json!({"family": family, "size": 20})).await;
        assert_eq!(status, 200, "{v}");
        assert_eq!(v["kind"], "grid");
        let rows = v["values"].as_array().unwrap();
        assert_eq!(rows.len(), side, "{family}");
        for (i, row) in rows.iter().enumerate() {
            assert_eq!(row.as_array().unwrap().len(), side);
            for j in 0..side {
                assert_eq!(
                    row[j],
                    rows[j][i],
                    "{family} {}x{} and {}x{}",
                    i + 1,
                    j + 1,
                    j + 1,
                    i + 1
                );
            }
        }
        for (j, g) in strip.into_iter().enumerate() {
            assert_eq!(rows[0][j], g, "{family} 1x{}", j + 1);
        }
    }
    expect_error(addr, "/api/table", br#"{"family":"points"}"#, 400, "no table").await;
    expect_error(addr, "/api/table", br#"{"family":"darkraft"}"#, 400, "no table").await;
    expect_error(
        addr,
        "/api/table",
        br#"{"family":"nim","size":100000}"#,
        400,
        "size",
    )
    .await;
    expect_error(addr, "/api/table", br#"{"family":"zzz"}"#, 404, "unknown family").await;
}

#[tokio::test]
async fn bad_input_is_a_4xx_with_a_message() {
    let addr = start(ServerConfig::default()).await;
    expect_error(
        addr,
        "/api/solve",
        b"{\"family\": \"nim\", ",
        400,
        "malformed JSON",
    )
    .await;
    expect_error(addr, "/api/solve", b"", 400, "malformed JSON").await;
    expect_error(addr, "/api/solve", b"[1,2,3]", 400, "malformed JSON").await;
    expect_error(addr, "/api/solve", b"\xff\xfe", 400, "malformed JSON").await;
    expect_error(
        addr,
        "/api/solve",
        br#"{"family":"nim","position":"1","colour":"red"}"#,
        400,
        "unknown field",
    )
    .await;
    expect_error(
        addr,
        "/api/solve",
        br#"{"family":"chess","position":"e4"}"#,
        404,
        "unknown family",
    )
    .await;
    expect_error(
        addr,
        "/api/solve",
        br#"{"family":"nim","position":"3 x"}"#,
        400,
        "column 3",
    )
    .await;
    expect_error(
        addr,
        "/api/solve",
        br#"{"family":"crosses","position":"...","misere":true}"#,
        400,
        "misère",
    )
    .await;
    expect_error(
        addr,
        "/api/solve",
        br#"{"family":"crosses","position":"XXX.."}"#,
        400,
        "three",
    )
    .await;
    expect_error(
        addr,
        "/api/solve",
        br#"{"family":"nim","position":"1","rule":"x"}"#,
        400,
        "--rule applies to points, graph, not nim",
    )
    .await;
    expect_error(
        addr,
        "/api/solve",
        br#"{"family":"points","position":"1","board":"moon"}"#,
        400,
        "unknown board",
    )
    .await;
    expect_error(
        addr,
        "/api/solve",
        br#"{"family":"nim","position":"281474976710656"}"#,
        422,
        "too large",
    )
    .await;
}

#[tokio::test]
async fn sizes_and_limits() {
    let config = ServerConfig {
        limits: Limits {
            max_positions: 50,
            ..Limits::default()
        },
        max_body: 4096,
        ..ServerConfig::default()
    };
    let addr = start(config).await;
    let big = format!(r#"{{"family":"nim","position":"{}"}}"#, "1 ".repeat(4000));
    expect_error(addr, "/api/solve", big.as_bytes(), 413, "request body").await;
    expect_error(
        addr,
        "/api/solve",
        br#"{"family":"nim","position":"100000"}"#,
        422,
        "limit of 5000",
    )
    .await;
    expect_error(
        addr,
        "/api/solve",
        br#"{"family":"graph","board":"grid:3x4","remoteness":true}"#,
        422,
        "50 stored positions",
    )
    .await;
    // The server is still fine afterwards.
    let (status, _) = post(addr, "/api/solve", json!({"family": "nim", "position": "1 2"})).await;
    assert_eq!(status, 200);
}

/// A solve that takes half a minute in a debug build (4×5 grid, remoteness).
const SLOW: &str = r#"{"family":"graph","board":"grid:4x5","remoteness":true}"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_solves_time_out_and_never_block_other_requests() {
    let config = ServerConfig {
        timeout: Duration::from_millis(1000),
        max_concurrent: 2,
        ..ServerConfig::default()
    };
    let addr = start(config).await;
    let slow = tokio::spawn(async move { request(addr, "POST", "/api/solve", SLOW.as_bytes()).await });
    tokio::time::sleep(Duration::from_millis(30)).await;
    // While it runs, other requests (the page, a small solve) are answered: before it ends.
    let (status, _, _) = request(addr, "GET", "/api/families", b"").await;
    assert_eq!(status, 200);
    let (status, _) = post(addr, "/api/solve", json!({"family": "nim", "position": "4 5 6"})).await;
    assert_eq!(status, 200);
    assert!(
        !slow.is_finished(),
        "the small requests waited for the slow solve"
    );
    let (status, ctype, body) = slow.await.unwrap();
    assert_eq!(status, 504, "{body}");
    assert!(ctype.starts_with("application/json"));
    assert!(body.contains("longer than the server's limit"), "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_may_ask_for_a_shorter_time_limit() {
    // The server would give the slow solve a minute; the request asks for 0.3 s and gets its
    // 504 then, naming its own limit.
    let config = ServerConfig {
        timeout: Duration::from_secs(60),
        ..ServerConfig::default()
    };
    let addr = start(config).await;
    let mut slow: Value = serde_json::from_str(SLOW).unwrap();
    slow["timeout"] = json!(0.3);
    let (status, v) = post(addr, "/api/solve", slow.clone()).await;
    assert_eq!(status, 504, "{v}");
    let msg = v["error"].as_str().unwrap();
    assert!(msg.contains("the request's `timeout` of 0.3 s"), "{msg}");
    // A quick solve within its limit answers as without one.
    let (status, v) = post(
        addr,
        "/api/solve",
        json!({"family": "nim", "position": "4 5 6", "timeout": 5}),
    )
    .await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["grundy"], 7);
    // Not a positive number of seconds: 400 naming the field.
    for bad in [json!(0), json!(-1.5), json!("3"), json!(null)] {
        let (status, v) = post(
            addr,
            "/api/solve",
            json!({"family": "nim", "position": "1", "timeout": bad}),
        )
        .await;
        if bad.is_null() {
            // null is no limit asked (the field's default).
            assert_eq!(status, 200, "{v}");
            continue;
        }
        assert_eq!(status, 400, "{bad}: {v}");
        // The engine's check names the field; the JSON reader (a string) the column.
        let msg = v["error"].as_str().unwrap();
        assert!(
            msg.contains("field `timeout`") || msg.contains("column"),
            "{bad}: {msg}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_longer_time_limit_than_the_servers_is_the_servers() {
    let config = ServerConfig {
        timeout: Duration::from_millis(500),
        ..ServerConfig::default()
    };
    let addr = start(config).await;
    let mut slow: Value = serde_json::from_str(SLOW).unwrap();
    slow["timeout"] = json!(1e9);
    let (status, v) = post(addr, "/api/solve", slow).await;
    assert_eq!(status, 504, "{v}");
    let msg = v["error"].as_str().unwrap();
    assert!(msg.contains("the server's limit of 0.5 s"), "{msg}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn long_solves_move_to_their_own_lane_and_are_stopped_at_the_deadline() {
    let config = ServerConfig {
        timeout: Duration::from_millis(1000),
        max_concurrent: 2,
        max_slow: 1,
        quick_positions: 1000,
        quick_time: Duration::from_millis(100),
        ..ServerConfig::default()
    };
    let addr = start(config).await;
    let a = tokio::spawn(async move { request(addr, "POST", "/api/solve", SLOW.as_bytes()).await });
    tokio::time::sleep(Duration::from_millis(50)).await;
    // A second long solve outgrows the quick lane and waits for the slow one.
    let b = tokio::spawn(async move { request(addr, "POST", "/api/solve", SLOW.as_bytes()).await });
    tokio::time::sleep(Duration::from_millis(150)).await;
    // Small solves are answered all the while, before the long ones end: those left the
    // quick lane.
    for _ in 0..5 {
        let (status, v) = post(addr, "/api/solve", json!({"family": "nim", "position": "4 5 6"})).await;
        assert_eq!(status, 200, "{v}");
        assert!(!a.is_finished(), "a small solve waited for a long one");
    }
    assert_eq!(a.await.unwrap().0, 504);
    // B waits for the slow lane until its own deadline: it gets the lane for its last moments
    // (504) or not at all (429), depending on how soon A winds down.
    let b = b.await.unwrap().0;
    assert!(b == 504 || b == 429, "{b}");
    // The long solves were stopped at their deadlines (not left running to the end, half a
    // minute): the slow lane is free for a solve that needs it.
    let (status, v) = post(
        addr,
        "/api/solve",
        json!({"family": "graph", "board": "grid:3x3", "remoteness": true}),
    )
    .await;
    assert_eq!(status, 200, "{v}");
    let (status, _, _) = request(addr, "GET", "/api/health", b"").await;
    assert_eq!(status, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tables_are_stopped_at_the_deadline_too() {
    let config = ServerConfig {
        timeout: Duration::from_millis(200),
        limits: Limits {
            max_table: 1000,
            ..Limits::default()
        },
        ..ServerConfig::default()
    };
    let addr = start(config).await;
    let (status, v) = post(addr, "/api/table", json!({"family": "bombs", "size": 1000})).await;
    assert_eq!(status, 504, "{v}");
    let (status, _) = post(addr, "/api/table", json!({"family": "nim", "size": 5})).await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn slow_uploads_get_408() {
    let config = ServerConfig {
        timeout: Duration::from_millis(200),
        ..ServerConfig::default()
    };
    let addr = start(config).await;
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    // Announce 100 bytes of body, send 10, then stall.
    let head = format!(
        "POST /api/solve HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: 100\r\nConnection: close\r\n\r\n{{\"family\":"
    );
    s.write_all(head.as_bytes()).await.unwrap();
    let mut out = Vec::new();
    tokio::time::timeout(Duration::from_secs(5), s.read_to_end(&mut out))
        .await
        .expect("the server answers a stalled upload")
        .unwrap();
    let text = String::from_utf8_lossy(&out);
    assert!(text.starts_with("HTTP/1.1 408"), "{text}");
    assert!(text.contains("slow upload"), "{text}");
    // Meanwhile and afterwards the server is fine.
    let (status, _, _) = request(addr, "GET", "/api/health", b"").await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn slow_headers_are_cut_off() {
    let config = ServerConfig {
        timeout: Duration::from_millis(200),
        ..ServerConfig::default()
    };
    let addr = start(config).await;
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    s.write_all(format!("GET /api/health HTTP/1.1\r\nHost: {addr}\r\nX-Slow: ").as_bytes())
        .await
        .unwrap();
    let mut out = Vec::new();
    tokio::time::timeout(Duration::from_secs(5), s.read_to_end(&mut out))
        .await
        .expect("the server closes a connection whose headers never end")
        .unwrap_or_default();
    let text = String::from_utf8_lossy(&out);
    assert!(text.is_empty() || text.starts_with("HTTP/1.1 408"), "{text}");
    let (status, _, _) = request(addr, "GET", "/api/health", b"").await;
    assert_eq!(status, 200);
}

/// [`send`] without the content type.
async fn raw(addr: SocketAddr, method: &str, path: &str, headers: &str, body: &[u8]) -> (u16, String) {
    let (status, _, text) = send(addr, method, path, headers, body).await;
    (status, text)
}

#[tokio::test]
async fn only_json_from_this_server_is_served() {
    let addr = start(ServerConfig::default()).await;
    let port = addr.port();
    let body = br#"{"family":"nim","position":"1 2"}"#;
    let json = "Content-Type: application/json\r\n";
    let host = format!("Host: {addr}\r\n");
    // The page's own requests: its host, its origin, JSON.
    let ok = format!("{host}Origin: http://{addr}\r\n{json}");
    assert_eq!(raw(addr, "POST", "/api/solve", &ok, body).await.0, 200);
    let localhost = format!("Host: localhost:{port}\r\nOrigin: http://localhost:{port}\r\n{json}");
    assert_eq!(raw(addr, "POST", "/api/solve", &localhost, body).await.0, 200);
    let charset = format!("{host}Content-Type: application/json; charset=utf-8\r\n");
    assert_eq!(raw(addr, "POST", "/api/solve", &charset, body).await.0, 200);
    // What a page of another site could send without asking first: a text/plain or form
    // body (415), its own origin (403); a rebound name (403); no Host (400).
    for (headers, status, needle) in [
        (
            format!("{host}Content-Type: text/plain\r\n"),
            415,
            "application/json",
        ),
        (host.clone(), 415, "application/json"),
        (
            format!("{host}Content-Type: application/x-www-form-urlencoded\r\n"),
            415,
            "JSON",
        ),
        (
            format!("{host}Origin: http://evil.example\r\n{json}"),
            403,
            "origin",
        ),
        (
            format!("{host}Origin: http://127.0.0.1:1\r\n{json}"),
            403,
            "origin",
        ),
        (format!("Host: evil.example:{port}\r\n{json}"), 403, "Host"),
        (format!("Host: 127.0.0.1:1\r\n{json}"), 403, "Host"),
        (json.to_string(), 400, "Host"),
    ] {
        let (got, text) = raw(addr, "POST", "/api/solve", &headers, body).await;
        assert_eq!(got, status, "{headers:?}: {text}");
        let v: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
        assert!(v["error"].as_str().unwrap().contains(needle), "{text}");
    }
    // A wrong method is a JSON error too.
    let (got, text) = raw(addr, "GET", "/api/solve", &host, b"").await;
    assert_eq!(got, 405, "{text}");
    assert!(
        serde_json::from_str::<Value>(&text).unwrap()["error"].is_string(),
        "{text}"
    );
}

#[test]
fn hosts_that_name_the_server() {
    use grundy_web::host_allowed;
    let lo: SocketAddr = "127.0.0.1:7878".parse().unwrap();
    for h in [
        "127.0.0.1:7878",
        "localhost:7878",
        "LOCALHOST:7878",
        "[::1]:7878",
        "127.0.0.2:7878",
    ] {
        assert!(host_allowed(h, lo), "{h}");
    }
    for h in [
        "evil.example:7878",
        "127.0.0.1:7879",
        "127.0.0.1",
        "localhost",
        "[::1]",
        "",
        ":7878",
        "10.0.0.1:7878",
    ] {
        assert!(!host_allowed(h, lo), "{h}");
    }
    // Served on every interface: any name, with the port.
    let all: SocketAddr = "0.0.0.0:8080".parse().unwrap();
    assert!(host_allowed("grundy.lan:8080", all));
    assert!(!host_allowed("grundy.lan:8081", all));
}

#[tokio::test]
async fn empty_positions_are_refused_and_sizes_state_their_limits() {
    let addr = start(ServerConfig::default()).await;
    // An empty or blank position is a bad request, for every family that reads text...
    for body in [
        br#"{"family":"nim","position":""}"#.as_slice(),
        br#"{"family":"nim","position":"  \n "}"#,
        br#"{"family":"0.77","position":""}"#,
        br#"{"family":"nim"}"#,
    ] {
        expect_error(addr, "/api/solve", body, 400, "empty position").await;
    }
    // ... but a graph given by its board needs no text.
    let (status, v) = post(
        addr,
        "/api/solve",
        json!({"family": "graph", "board": "petersen", "position": ""}),
    )
    .await;
    assert_eq!(status, 200, "{v}");
    // The position with no token is written 0, and a move to it says so.
    let (status, v) = post(
        addr,
        "/api/solve",
        json!({"family": "nim", "position": "2", "remoteness": true}),
    )
    .await;
    assert_eq!(status, 200, "{v}");
    let last = v["moves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["move"] == "1:2->0")
        .cloned()
        .unwrap();
    assert_eq!(
        (last["position_after"].as_str(), last["remoteness"].as_u64()),
        (Some("0"), Some(0))
    );
    let (status, v) = post(addr, "/api/solve", json!({"family": "nim", "position": "0"})).await;
    assert_eq!(
        (status, v["moves"].as_array().map(|m| m.len())),
        (200, Some(0)),
        "{v}"
    );
    // Table sizes of any JSON number are answered with the real limit.
    for size in ["-1", "0", "1e30", "2.5", "99999999999999999999999"] {
        let body = format!(r#"{{"family":"nim","size":{size}}}"#);
        expect_error(
            addr,
            "/api/table",
            body.as_bytes(),
            400,
            "between 1 and the limit of 40",
        )
        .await;
    }
}

/// Game files of the kinds that read in every build: heap specs and graph specs.
const SUBTRACTION: &str = "kind = \"subtraction\"\nset = [1, 3, 4]\n";
const KAYLES: &str = "# Kayles\nkind = \"take-and-break\"\nname = \"kayles\"\nrules = [\n  { remove = [1, 2], leave = [0, 1, 2] },\n]\n";
const PETERSEN: &str = "kind = \"graph\"\nrule = \"node-kayles\"\nboard = \"petersen\"\n";

#[tokio::test]
async fn game_files_are_solved_played_and_tabled() {
    let addr = start(ServerConfig::default()).await;
    // The game is the file's, whatever `family` says (or without one).
    for family in [None, Some("nim"), Some("no-such-family")] {
        let mut body = json!({"game": KAYLES, "position": "5 9 12", "remoteness": true});
        if let Some(f) = family {
            body["family"] = json!(f);
        }
        let (status, v) = post(addr, "/api/solve", body).await;
        assert_eq!(status, 200, "{v}");
        assert_eq!(
            (v["family"].as_str(), v["grundy"].as_u64()),
            (Some("0.77"), Some(4)),
            "{v}"
        );
        assert_eq!(v["board"]["kind"], "heaps");
    }
    // A subtraction game, played move by move with the same file, as the page plays it.
    let mut position = "9 14".to_string();
    let mut turns = 0;
    loop {
        let (status, v) = post(
            addr,
            "/api/solve",
            json!({"game": SUBTRACTION, "position": position, "remoteness": true}),
        )
        .await;
        assert_eq!(status, 200, "{v}");
        assert_eq!(v["family"], "sub:1,3,4");
        let moves = v["moves"].as_array().unwrap();
        // Every move takes 1, 3 or 4 tokens from one heap (`H:A->B`).
        for m in moves {
            let text = m["move"].as_str().unwrap();
            let (a, b) = text.split_once(':').unwrap().1.split_once("->").unwrap();
            let taken = a.parse::<u64>().unwrap() - b.parse::<u64>().unwrap();
            assert!([1, 3, 4].contains(&taken), "{text}");
        }
        let Some(best) = v["best_move"].as_str() else {
            break;
        };
        let m = moves.iter().find(|m| m["move"] == best).unwrap();
        position = m["position_after"].as_str().unwrap().to_string();
        if m["remoteness"] == 0 {
            break;
        }
        turns += 1;
        assert!(turns < 30, "the game does not end");
    }
    // Misère play of a heap spec, and moves that follow the set.
    let (status, v) = post(
        addr,
        "/api/solve",
        json!({"game": SUBTRACTION, "position": "2", "misere": true}),
    )
    .await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["convention"], "misere");
    assert_eq!(
        v["moves"].as_array().unwrap().len(),
        1,
        "only 1 can be taken from 2: {v}"
    );
    // A graph spec: a points position on its board, moves leading to points positions of
    // the same game.
    let (status, v) = post(
        addr,
        "/api/solve",
        json!({"game": PETERSEN, "position": "1111111111"}),
    )
    .await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["board"]["kind"], "graph");
    assert_eq!(v["board"]["points"], 10);
    assert_eq!(v["moves"].as_array().unwrap().len(), 10);
    let after = v["moves"][0]["position_after"].as_str().unwrap().to_string();
    let (status, v) = post(addr, "/api/solve", json!({"game": PETERSEN, "position": after})).await;
    assert_eq!(status, 200, "{v}");
    // Tables: a heap spec has its game's sequence; a graph spec none.
    let (status, v) = post(addr, "/api/table", json!({"game": SUBTRACTION, "size": 10})).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["kind"], "sequence");
    assert_eq!(v["values"], json!([[0, 1, 0, 1, 2, 3, 2, 0, 1, 0]]));
    let (status, v) = post(
        addr,
        "/api/table",
        json!({"game": SUBTRACTION, "family": "cutting", "size": 5}),
    )
    .await;
    assert_eq!((status, &v["values"]), (200, &json!([[0, 1, 0, 1, 2]])), "{v}");
    let body = json!({"game": PETERSEN, "size": 5}).to_string();
    expect_error(addr, "/api/table", body.as_bytes(), 400, "no table").await;
}

#[tokio::test]
async fn bad_game_files_say_their_line_and_column() {
    let addr = start(ServerConfig::default()).await;
    for (file, at, needle) in [
        (
            "kind = \"subtraction\"\nset = [1, 3, 4\n",
            "<request>:2:15: ",
            "unclosed array",
        ),
        (
            "kind = \"subtraction\"\n\nsett = [1, 3]\n",
            "<request>:3:1: ",
            "unknown field `sett`",
        ),
        ("\nkind = \"chess\"\n", "<request>:2:8: ", "unknown kind 'chess'"),
        (
            "kind = \"graph\"\nrule = \"node-kayles\"\nboard = \"moon\"\n",
            "<request>:3:9: ",
            "moon",
        ),
        ("name = \"x\"\n", "<request>:1:1: ", "needs a kind"),
        (" \n", "<request>:1:1: ", "empty"),
    ] {
        for path in ["/api/solve", "/api/table"] {
            let body = json!({"game": file, "position": "3"}).to_string();
            let body = if path == "/api/table" {
                json!({"game": file}).to_string()
            } else {
                body
            };
            let (status, _, text) = request(addr, "POST", path, body.as_bytes()).await;
            assert_eq!(status, 400, "{path} {file:?}: {text}");
            let v: Value = serde_json::from_str(&text).unwrap();
            let msg = v["error"].as_str().unwrap();
            assert!(
                msg.starts_with(at),
                "{path} {file:?}: '{msg}' does not start with '{at}'"
            );
            assert!(
                msg.contains(needle),
                "{path} {file:?}: '{msg}' does not say '{needle}'"
            );
        }
    }
    // A good file with a bad position: the position's error, as for a built-in family.
    let body = json!({"game": SUBTRACTION, "position": "3 x"}).to_string();
    expect_error(addr, "/api/solve", body.as_bytes(), 400, "column 3").await;
    // Options of the built-in families do not go with a game file of another family.
    let body = json!({"game": SUBTRACTION, "position": "3", "board": "petersen"}).to_string();
    expect_error(addr, "/api/solve", body.as_bytes(), 400, "board").await;
    // A game file must be a string.
    expect_error(
        addr,
        "/api/solve",
        br#"{"game": 3, "position": "3"}"#,
        400,
        "malformed JSON",
    )
    .await;
}

#[tokio::test]
async fn game_files_count_toward_the_body_limit() {
    use grundy_web::{DEFAULT_MAX_BODY, MAX_GAME_FILE};
    // The default body limit lets a game file of the largest size through, even written
    // with an escape for every character but its lines' first.
    const { assert!(DEFAULT_MAX_BODY >= 2 * MAX_GAME_FILE + 1024) };
    let addr = start(ServerConfig::default()).await;
    // A file of 1 MiB reads (its comments are most of it) ...
    let line = "# \"quoted\" and \\ escaped\n";
    let padding = line.repeat((MAX_GAME_FILE - SUBTRACTION.len()) / line.len());
    let file = format!("{SUBTRACTION}{padding}");
    assert!(file.len() <= MAX_GAME_FILE && file.len() > MAX_GAME_FILE - 100);
    let (status, v) = post(addr, "/api/solve", json!({"game": file, "position": "7"})).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["family"], "sub:1,3,4");
    // ... a longer one is refused, saying the limit ...
    let file = format!("{SUBTRACTION}{}", "#".repeat(MAX_GAME_FILE));
    let body = json!({"game": file, "position": "7"}).to_string();
    assert!(body.len() < DEFAULT_MAX_BODY);
    expect_error(
        addr,
        "/api/solve",
        body.as_bytes(),
        400,
        &format!("the limit of {MAX_GAME_FILE}"),
    )
    .await;
    let body = json!({"game": file, "size": 5}).to_string();
    expect_error(
        addr,
        "/api/table",
        body.as_bytes(),
        400,
        &format!("the limit of {MAX_GAME_FILE}"),
    )
    .await;
    // ... and a body past the server's limit is refused before it is read (413), saying
    // both limits.
    let file = "#".repeat(DEFAULT_MAX_BODY);
    let body = json!({"game": file, "position": "7"}).to_string();
    for path in ["/api/solve", "/api/table"] {
        let (status, _, text) = request(addr, "POST", path, body.as_bytes()).await;
        assert_eq!(status, 413, "{text}");
        let msg = serde_json::from_str::<Value>(&text).unwrap()["error"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(
            msg.contains(&format!("limit of {DEFAULT_MAX_BODY} bytes")),
            "{msg}"
        );
        assert!(
            msg.contains(&format!("at most {MAX_GAME_FILE} bytes (1 MiB)")),
            "{msg}"
        );
    }
    // A smaller limit of the server holds for game files too.
    let addr = start(ServerConfig {
        max_body: 4096,
        ..ServerConfig::default()
    })
    .await;
    let file = format!("{SUBTRACTION}{}", "# a comment\n".repeat(400));
    let body = json!({"game": file, "position": "7"}).to_string();
    expect_error(addr, "/api/solve", body.as_bytes(), 413, "limit of 4096 bytes").await;
    // The page refuses files past the same limit before sending them.
    let app_js = include_str!("../assets/app.js");
    assert!(app_js.contains(&format!("const MAX_GAME_FILE = {MAX_GAME_FILE};")));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn game_files_have_the_limits_of_built_in_games() {
    let config = ServerConfig {
        timeout: Duration::from_millis(1000),
        max_concurrent: 2,
        ..ServerConfig::default()
    };
    let addr = start(config).await;
    // Too many moves: refused up front, as the same position of the built-in game.
    for body in [
        json!({"family": "0.77", "position": "100000"}),
        json!({"game": KAYLES, "position": "100000"}),
    ] {
        let (status, v) = post(addr, "/api/solve", body.clone()).await;
        assert_eq!(status, 422, "{body}: {v}");
        assert!(v["error"].as_str().unwrap().contains("limit of 5000"), "{v}");
    }
    // Too long a position text: 413, as for any family.
    let body = json!({"game": SUBTRACTION, "position": "1 ".repeat(10_000)}).to_string();
    expect_error(addr, "/api/solve", body.as_bytes(), 413, "position text").await;
    // A slow solve of a graph spec (the same game as `SLOW`) is stopped at the deadline,
    // while small requests are answered: the same lanes and deadline as built-in games.
    let slow_file = "kind = \"graph\"\nrule = \"one-or-two\"\nboard = \"grid:4x5\"\n";
    let body = json!({"game": slow_file, "position": "1".repeat(20), "remoteness": true}).to_string();
    let slow = tokio::spawn(async move { request(addr, "POST", "/api/solve", body.as_bytes()).await });
    tokio::time::sleep(Duration::from_millis(100)).await;
    let (status, v) = post(
        addr,
        "/api/solve",
        json!({"game": SUBTRACTION, "position": "4 5 6"}),
    )
    .await;
    assert_eq!(status, 200, "{v}");
    assert!(!slow.is_finished(), "the small request waited for the slow solve");
    let (status, _, text) = slow.await.unwrap();
    assert_eq!(status, 504, "{text}");
    assert!(text.contains("longer than the server's limit"), "{text}");
}
