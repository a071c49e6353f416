//! The master's HTTP server: htcondor-restd's reads and the write endpoints, authenticated
//! by IDTOKENS that `condor_token_create` makes, on loopback with a port the master chose
//! (port 0; the bound address is read from `$(RUN)/condor_master.http`).

use std::time::Duration;

use reqwest::blocking::Client;
use reqwest::StatusCode;
use serde_json::Value;

use crate::common::TestEnvironment;
use crate::pool::{wait_for, Master};

const DOMAIN: &str = "pool.example";

/// A pool with its HTTP server, its master running.
struct Served {
    env: TestEnvironment,
    _master: Master,
    base: String,
    client: Client,
}

impl Served {
    fn start(extra: &[(&str, &str)]) -> Served {
        Served::start_with(extra, Client::builder())
    }

    /// A pool started with `extra` settings, its server reached on loopback by `client`.
    fn start_with(extra: &[(&str, &str)], client: reqwest::blocking::ClientBuilder) -> Served {
        let mut env = TestEnvironment::new();
        env.set_env("_CONDOR_CONDORLITE_HTTP_ADDRESS", "127.0.0.1:0");
        env.set_env("_CONDOR_TRUST_DOMAIN", DOMAIN);
        env.set_env("_CONDOR_UID_DOMAIN", DOMAIN);
        // The jobs stay idle: what the tests look at does not change under them.
        env.set_env("_CONDOR_START", "False");
        for (k, v) in extra {
            env.set_env(k, v);
        }
        let master = Master::start(&env);
        let file = env.local_dir().join("run").join("condor_master.http");
        wait_for("the HTTP address file", || file.is_file());
        let base = std::fs::read_to_string(&file)
            .unwrap()
            .trim()
            .replace("0.0.0.0", "127.0.0.1");
        assert!(base.contains("://127.0.0.1:"), "{base}");
        let client = client.timeout(Duration::from_secs(30)).build().unwrap();
        Served {
            env,
            _master: master,
            base,
            client,
        }
    }

    /// A token for `user` of the pool's domain (more `condor_token_create` arguments after).
    fn token(&self, user: &str, args: &[&str]) -> String {
        let identity = format!("{user}@{DOMAIN}");
        let mut all = vec!["-identity", identity.as_str()];
        all.extend_from_slice(args);
        let out = self.env.run("condor_token_create", all);
        assert_eq!(out.status, Some(0), "{out}");
        out.stdout.trim().to_owned()
    }

    /// Submits `count` held sleep jobs as `user` with condor_submit; returns the cluster.
    fn submit_as(&self, user: &str, count: u32) -> i64 {
        let file = self.env.write_file(
            &format!("{user}.sub"),
            &format!("executable = /bin/sleep\narguments = 300\nhold = true\nqueue {count}\n"),
        );
        let out = self
            .env
            .command("condor_submit")
            .env("CONDORLITE_USER", user)
            .arg("-terse")
            .arg(&file)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        let text = String::from_utf8_lossy(&out.stdout);
        text.split('.').next().unwrap().trim().parse().unwrap()
    }

    fn get(&self, path: &str, token: Option<&str>) -> (StatusCode, Value) {
        let mut request = self.client.get(format!("{}{path}", self.base));
        if let Some(t) = token {
            request = request.bearer_auth(t);
        }
        answer(request)
    }

    fn post(&self, path: &str, token: Option<&str>, body: String) -> (StatusCode, Value) {
        let mut request = self.client.post(format!("{}{path}", self.base)).body(body);
        if let Some(t) = token {
            request = request.bearer_auth(t);
        }
        answer(request)
    }
}

fn answer(request: reqwest::blocking::RequestBuilder) -> (StatusCode, Value) {
    let response = request.send().expect("the server answers");
    let status = response.status();
    let text = response.text().unwrap();
    let json = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    (status, json)
}

/// condor_q's ads (`-json`), names in lower case, without the time of the query.
fn condor_q_ads(env: &TestEnvironment) -> Vec<Value> {
    let out = env.run("condor_q", ["-allusers", "-json"]);
    assert_eq!(out.status, Some(0), "{out}");
    let ads: Vec<Value> = serde_json::from_str(&out.stdout).unwrap();
    ads.into_iter()
        .map(|ad| {
            Value::Object(
                ad.as_object()
                    .unwrap()
                    .iter()
                    .filter(|(k, _)| *k != "ServerTime")
                    .map(|(k, v)| (k.to_ascii_lowercase(), v.clone()))
                    .collect(),
            )
        })
        .collect()
}

#[test]
fn reads_answer_as_restd_with_condor_qs_ads() {
    let pool = Served::start(&[]);
    let alice = pool.submit_as("alice", 2);
    let bob = pool.submit_as("bob", 1);
    let token = pool.token("alice", &[]);

    let (status, jobs) = pool.get("/v1/jobs/DEFAULT", Some(&token));
    assert_eq!(status, StatusCode::OK, "{jobs}");
    let jobs = jobs.as_array().unwrap();
    let ids: Vec<&str> = jobs.iter().map(|j| j["jobid"].as_str().unwrap()).collect();
    assert_eq!(
        ids,
        [
            format!("{alice}.0"),
            format!("{alice}.1"),
            format!("{bob}.0")
        ]
    );
    let ads: Vec<Value> = jobs.iter().map(|j| j["classad"].clone()).collect();
    assert_eq!(ads, condor_q_ads(&pool.env));
    assert_eq!(ads[0]["owner"], "alice");
    // `/v1/jobs` alone is the default schedd's.
    assert_eq!(
        pool.get("/v1/jobs", Some(&token))
            .1
            .as_array()
            .unwrap()
            .len(),
        3
    );

    // A constraint and a projection: only what was asked for, the job id beside it.
    let (status, some) = pool.get(
        "/v1/jobs/DEFAULT?constraint=Owner%20%3D%3D%20%22bob%22&projection=Owner,JobStatus",
        Some(&token),
    );
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        some,
        serde_json::json!([{"classad": {"jobstatus": 5, "owner": "bob"}, "jobid": format!("{bob}.0")}])
    );
    // One cluster, one job, one attribute.
    let (_, cluster) = pool.get(&format!("/v1/jobs/DEFAULT/{alice}"), Some(&token));
    assert_eq!(cluster.as_array().unwrap().len(), 2);
    let (status, job) = pool.get(&format!("/v1/jobs/DEFAULT/{alice}/1"), Some(&token));
    assert_eq!(status, StatusCode::OK);
    assert_eq!(job["jobid"], format!("{alice}.1"));
    assert_eq!(job["classad"], ads[1]);
    let (_, attr) = pool.get(&format!("/v1/jobs/DEFAULT/{alice}/1/cmd"), Some(&token));
    assert_eq!(attr, "/bin/sleep");
    let (status, none) = pool.get(&format!("/v1/jobs/DEFAULT/{alice}/7"), Some(&token));
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(none["message"], "No matching jobs");
    let (status, none) = pool.get(
        &format!("/v1/jobs/DEFAULT/{alice}/1/NoSuchAttr"),
        Some(&token),
    );
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(none["message"], "Undefined attribute");

    // Bad input: 400 in the tools' (and restd's) words.
    let (status, bad) = pool.get("/v1/jobs/DEFAULT?constraint=Owner%20%3D%3D", Some(&token));
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(
        bad["message"],
        "Parse error in constraint expression \"Owner ==\""
    );
    let (status, bad) = pool.get("/v1/jobs/DEFAULT?projection=Owner,1x", Some(&token));
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(bad["message"], "Invalid attribute(s) in projection: 1x");
    let (status, bad) = pool.get("/v1/jobs/elsewhere.example", Some(&token));
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(bad["message"], "Schedd not found: elsewhere.example");

    // History: a removed job is there.
    let out = pool.env.run("condor_rm", [format!("{bob}.0")]);
    assert_eq!(out.status, Some(0), "{out}");
    wait_for("bob's job in the history", || {
        let (_, h) = pool.get("/v1/history/DEFAULT?projection=JobStatus", Some(&token));
        h.as_array().is_some_and(|a| {
            a.iter()
                .any(|j| j["jobid"] == format!("{bob}.0") && j["classad"]["jobstatus"] == 3)
        })
    });

    // Status: the slots and the daemons, as condor_status has them.
    let (status, ads) = pool.get("/v1/status?query=startd", Some(&token));
    assert_eq!(status, StatusCode::OK, "{ads}");
    let ads = ads.as_array().unwrap();
    assert!(ads.iter().any(|a| a["type"] == "Machine"), "{ads:?}");
    let (_, schedd) = pool.get("/v1/status?query=schedd&projection=Name", Some(&token));
    let schedd = schedd.as_array().unwrap();
    assert_eq!(schedd.len(), 1);
    assert_eq!(schedd[0]["type"], "Scheduler");
    assert_eq!(schedd[0]["classad"]["name"], schedd[0]["name"]);

    // Config: names in lower case, values expanded.
    let (_, config) = pool.get("/v1/config", Some(&token));
    assert_eq!(config["uid_domain"], DOMAIN);
    let (_, one) = pool.get("/v1/config/TRUST_DOMAIN", Some(&token));
    assert_eq!(one, DOMAIN);
    let (status, _) = pool.get("/v1/config/NO_SUCH_KNOB_HERE", Some(&token));
    assert_eq!(status, StatusCode::NOT_FOUND);
}

#[test]
fn requests_without_a_valid_token_are_refused() {
    let pool = Served::start(&[]);
    pool.submit_as("alice", 1);
    let (status, body) = pool.get("/v1/jobs/DEFAULT", None);
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert!(
        body["message"].as_str().unwrap().contains("token"),
        "{body}"
    );
    let (status, _) = pool.get("/v1/jobs/DEFAULT", Some("not.a.token"));
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    // Signed with another key: refused.
    let good = pool.token("alice", &[]);
    let mut forged: Vec<&str> = good.split('.').collect();
    let other = pool.token("bob", &[]);
    forged[2] = other.split('.').nth(2).unwrap();
    let (status, _) = pool.get("/v1/jobs/DEFAULT", Some(&forged.join(".")));
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    // Expired: made long ago with a short life.
    let out = pool
        .env
        .command("condor_token_create")
        .env("CONDORLITE_NOW", "1000000000")
        .args(["-identity", &format!("alice@{DOMAIN}"), "-lifetime", "60"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let expired = String::from_utf8(out.stdout).unwrap();
    let (status, _) = pool.get("/v1/jobs/DEFAULT", Some(expired.trim()));
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    // Another domain's identity, or one without a domain, is no user here.
    for identity in ["alice@elsewhere.example", "alice"] {
        let out = pool.env.run("condor_token_create", ["-identity", identity]);
        assert_eq!(out.status, Some(0), "{out}");
        let (status, body) = pool.get("/v1/jobs/DEFAULT", Some(out.stdout.trim()));
        assert_eq!(status, StatusCode::UNAUTHORIZED);
        assert_eq!(
            body["message"],
            format!("the token's identity {identity} is not a user of this pool's UID_DOMAIN ({DOMAIN})")
        );
    }
    // A token limited to READ reads but does not write.
    let read_only = pool.token("alice", &["-authz", "READ"]);
    assert_eq!(
        pool.get("/v1/jobs/DEFAULT", Some(&read_only)).0,
        StatusCode::OK
    );
    let (status, _) = pool.post("/v1/reschedule", Some(&read_only), String::new());
    assert_eq!(status, StatusCode::FORBIDDEN);
    // Writes always need a token.
    let (status, _) = pool.post("/v1/reschedule", None, String::new());
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(
        pool.post("/v1/reschedule", Some(&good), String::new()).0,
        StatusCode::OK
    );
}

#[test]
fn anonymous_reads_where_the_pool_allows_them() {
    let pool = Served::start(&[("_CONDOR_CONDORLITE_HTTP_ANONYMOUS_READS", "True")]);
    pool.submit_as("alice", 1);
    let (status, jobs) = pool.get("/v1/jobs/DEFAULT", None);
    assert_eq!(status, StatusCode::OK);
    assert_eq!(jobs.as_array().unwrap().len(), 1);
    // A token sent is still checked, and writes still need one.
    assert_eq!(
        pool.get("/v1/jobs/DEFAULT", Some("x.y.z")).0,
        StatusCode::UNAUTHORIZED
    );
    let body = r#"{"action": "remove", "ids": ["1.0"]}"#.to_owned();
    assert_eq!(
        pool.post("/v1/act/DEFAULT", None, body).0,
        StatusCode::UNAUTHORIZED
    );
}

#[test]
fn users_act_on_their_own_jobs_only() {
    let pool = Served::start(&[]);
    let alice_jobs = pool.submit_as("alice", 2);
    let bob_jobs = pool.submit_as("bob", 1);
    let alice = pool.token("alice", &[]);
    let act = |body: &str| pool.post("/v1/act/DEFAULT", Some(&alice), body.to_owned());

    // Another user's job: 403, in condor_rm's words, and the job is untouched.
    let (status, body) = act(&format!(
        r#"{{"action": "remove", "ids": ["{bob_jobs}.0"]}}"#
    ));
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert_eq!(
        body["message"],
        format!("Permission denied to remove job {bob_jobs}.0")
    );
    assert_eq!(crate::pool::count(&pool.env, "JobStatus == 5"), 3);

    // Her own: released, then removed by cluster with a reason.
    let (status, body) = act(&format!(
        r#"{{"action": "release", "ids": ["{alice_jobs}.1"]}}"#
    ));
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["success"], 1);
    assert_eq!(
        body["results"][0]["message"],
        format!("Job {alice_jobs}.1 released")
    );
    let (status, body) = act(&format!(
        r#"{{"action": "remove", "ids": ["{alice_jobs}"], "reason": "over HTTP"}}"#
    ));
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["success"], 2);
    let reason = crate::pool::history_attr(&pool.env, &format!("{alice_jobs}.0"), "RemoveReason");
    assert_eq!(reason, "over HTTP (by user alice)");

    // Bad input: 400.
    let (status, body) = act(r#"{"action": "remove", "constraint": "Owner =="}"#);
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(
        body["message"],
        "Parse error in constraint expression \"Owner ==\""
    );
    let (status, body) = act(r#"{"action": "remove", "ids": ["0.1"]}"#);
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    let (status, _) = act(r#"{"action": "explode", "ids": ["1.0"]}"#);
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let (status, _) = act("not json");
    assert_eq!(status, StatusCode::BAD_REQUEST);

    // qedit and prio: her jobs only.
    let again = pool.submit_as("alice", 1);
    let edit = |ids: &str| {
        pool.post(
            "/v1/qedit/DEFAULT",
            Some(&alice),
            format!(r#"{{"ids": [{ids}], "attributes": {{"Foo": "\"bar\"", "Answer": 42}}}}"#),
        )
    };
    let (status, body) = edit(&format!("\"{again}.0\""));
    assert_eq!(status, StatusCode::OK, "{body}");
    let out = pool
        .env
        .run("condor_q", [&format!("{again}.0"), "-af", "Foo", "Answer"]);
    assert_eq!(out.stdout, "bar 42\n");
    let (status, body) = edit(&format!("\"{bob_jobs}.0\""));
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    let out = pool
        .env
        .run("condor_q", [&format!("{bob_jobs}.0"), "-af", "Foo"]);
    assert_eq!(out.stdout, "undefined\n");

    let prio = |id: String| {
        pool.post(
            "/v1/prio/DEFAULT",
            Some(&alice),
            format!(r#"{{"ids": ["{id}"], "priority": 7}}"#),
        )
    };
    assert_eq!(prio(format!("{again}.0")).0, StatusCode::OK);
    let (status, body) = prio(format!("{bob_jobs}.0"));
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_eq!(
        body["message"],
        format!("Couldn't set new priority for {bob_jobs}.0.")
    );
    let out = pool.env.run(
        "condor_q",
        [
            &format!("{again}.0"),
            &format!("{bob_jobs}.0"),
            "-af",
            "JobPrio",
        ],
    );
    // In id order: bob's first.
    assert_eq!(out.stdout, "0\n7\n");
}

#[test]
fn a_submit_over_http_reads_back() {
    // The master's own user (a queue superuser) submits.
    let pool = Served::start(&[]);
    let me = nix::unistd::User::from_uid(nix::unistd::geteuid())
        .unwrap()
        .unwrap()
        .name;
    let token = pool.token(&me, &[]);
    let text = "executable = /bin/sleep\narguments = 300\nhold = true\nqueue 3\n";
    let (status, body) = pool.post("/v1/submit/DEFAULT", Some(&token), text.to_owned());
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["count"], 3);
    let cluster = body["cluster"].as_i64().unwrap();
    assert_eq!(
        body["message"],
        format!("3 job(s) submitted to cluster {cluster}.")
    );
    let (_, jobs) = pool.get(
        &format!("/v1/jobs/DEFAULT/{cluster}?projection=Owner,Args"),
        Some(&token),
    );
    let jobs = jobs.as_array().unwrap();
    assert_eq!(jobs.len(), 3);
    assert_eq!(
        jobs[2]["classad"],
        serde_json::json!({"args": "300", "owner": me})
    );
    assert_eq!(condor_q_ads(&pool.env).len(), 3);

    // A description condor_submit refuses: 400 with its words, nothing queued.
    let (status, body) = pool.post(
        "/v1/submit/DEFAULT",
        Some(&token),
        "executable = /no/such/program\nqueue\n".to_owned(),
    );
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(
        body["message"],
        "ERROR: Can't access executable file /no/such/program: No such file or directory"
    );
    assert_eq!(condor_q_ads(&pool.env).len(), 3);

    // A user who is not a queue superuser may not submit to a pool whose jobs run as the
    // master's user (the Unix socket's rule).
    let alice = pool.token("alice", &[]);
    let (status, body) = pool.post("/v1/submit/DEFAULT", Some(&alice), text.to_owned());
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .starts_with("alice may not submit"),
        "{body}"
    );
}

#[test]
fn silent_clients_hold_up_no_other() {
    let pool = Served::start(&[]);
    pool.submit_as("alice", 1);
    let token = pool.token("alice", &[]);
    let addr = pool.base.trim_start_matches("http://").to_owned();
    // More silent connections than requests are served at once, one with half a request.
    let mut silent: Vec<std::net::TcpStream> = (0..80)
        .map(|_| std::net::TcpStream::connect(&addr).unwrap())
        .collect();
    use std::io::Write;
    silent[0]
        .write_all(b"GET /v1/jobs/DEFAULT HTTP/1.1\r\nHost: x\r\n")
        .unwrap();
    // Clients at once, each answered.
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..20)
            .map(|_| s.spawn(|| pool.get("/v1/jobs/DEFAULT", Some(&token)).0))
            .collect();
        for h in handles {
            assert_eq!(h.join().unwrap(), StatusCode::OK);
        }
    });
    // The main loop answers too (a status query goes through it).
    assert_eq!(
        pool.get("/v1/status?query=master", Some(&token)).0,
        StatusCode::OK
    );
    // A body larger than the bound is refused, not read.
    let big = "x".repeat(5 * 1024 * 1024);
    let (status, body) = pool.post("/v1/submit/DEFAULT", Some(&token), big);
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(
        body["message"],
        "Failed to buffer the request body: length limit exceeded"
    );
    drop(silent);
}

#[test]
fn a_network_address_without_tls_is_refused() {
    let mut env = TestEnvironment::new();
    env.set_env("_CONDOR_CONDORLITE_HTTP_ADDRESS", "0.0.0.0:0");
    let out = env.run("condor_master", ["-f"]);
    assert_eq!(out.status, Some(1), "{out}");
    assert!(
        out.stderr
            .contains("CONDORLITE_HTTP_ADDRESS = 0.0.0.0:0: not a loopback address"),
        "{out}"
    );
}

#[test]
fn tls_serves_https_and_opens_the_network() {
    let env_dir = tempfile::tempdir().unwrap();
    let certified =
        rcgen::generate_simple_self_signed(vec!["localhost".into(), "127.0.0.1".into()]).unwrap();
    let cert = env_dir.path().join("server.crt");
    let key = env_dir.path().join("server.key");
    std::fs::write(&cert, certified.cert.pem()).unwrap();
    std::fs::write(&key, certified.key_pair.serialize_pem()).unwrap();
    let root = reqwest::Certificate::from_pem(certified.cert.pem().as_bytes()).unwrap();
    // With TLS, an address other hosts reach is allowed.
    let pool = Served::start_with(
        &[
            ("_CONDOR_CONDORLITE_HTTP_ADDRESS", "0.0.0.0:0"),
            (
                "_CONDOR_CONDORLITE_HTTP_CERTIFICATE",
                cert.to_str().unwrap(),
            ),
            ("_CONDOR_CONDORLITE_HTTP_KEY", key.to_str().unwrap()),
        ],
        Client::builder()
            .tls_built_in_root_certs(false)
            .add_root_certificate(root),
    );
    assert!(pool.base.starts_with("https://"), "{}", pool.base);
    pool.submit_as("alice", 1);
    let token = pool.token("alice", &[]);
    let (status, jobs) = pool.get("/v1/jobs/DEFAULT", Some(&token));
    assert_eq!(status, StatusCode::OK);
    assert_eq!(jobs.as_array().unwrap().len(), 1);
    // Plain HTTP to the TLS port gets no answer.
    let plain = pool.base.replace("https://", "http://");
    assert!(Client::new()
        .get(format!("{plain}/v1/jobs"))
        .send()
        .is_err());
}

#[test]
fn a_certificate_without_its_key_is_refused() {
    let mut env = TestEnvironment::new();
    env.set_env("_CONDOR_CONDORLITE_HTTP_ADDRESS", "127.0.0.1:0");
    env.set_env("_CONDOR_CONDORLITE_HTTP_CERTIFICATE", "/nonexistent.crt");
    let out = env.run("condor_master", ["-f"]);
    assert_eq!(out.status, Some(1), "{out}");
    assert!(
        out.stderr.contains(
            "CONDORLITE_HTTP_CERTIFICATE and CONDORLITE_HTTP_KEY are set together, or neither"
        ),
        "{out}"
    );
}

#[test]
fn reads_answer_while_a_writer_holds_the_store() {
    let pool = Served::start(&[]);
    pool.submit_as("alice", 2);
    let token = pool.token("alice", &[]);
    // A writer in the middle of a long transaction (a large submit, the master's commit).
    let db = pool.env.local_dir().join("spool").join("job_queue.db");
    let writer = rusqlite::Connection::open(&db).unwrap();
    writer.execute_batch("BEGIN IMMEDIATE").unwrap();
    let started = std::time::Instant::now();
    let (status, jobs) = pool.get("/v1/jobs/DEFAULT?projection=Owner", Some(&token));
    assert_eq!(status, StatusCode::OK, "{jobs}");
    assert_eq!(jobs.as_array().unwrap().len(), 2);
    let (status, _) = pool.get("/v1/history/DEFAULT", Some(&token));
    assert_eq!(status, StatusCode::OK);
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    writer.execute_batch("ROLLBACK").unwrap();
}
