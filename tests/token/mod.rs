//! condor_token_create / _list / _fetch and condor_store_cred: the scripts that set a pool up
//! with tokens and passwords run unchanged. Messages are token_create.cpp's, token_list.cpp's,
//! token_fetch.cpp's, token_utils.cpp's and store_cred_main.cpp's (HTCondor v24.0.23).

use std::os::unix::fs::PermissionsExt;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;

use crate::common::TestEnvironment;
use crate::pool::{wait_for, Master};

/// The JSON of a token's header and payload.
fn decoded(token: &str) -> (String, String) {
    let parts: Vec<&str> = token.trim().split('.').collect();
    assert_eq!(parts.len(), 3, "{token}");
    let text = |p: &str| String::from_utf8(URL_SAFE_NO_PAD.decode(p).unwrap()).unwrap();
    (text(parts[0]), text(parts[1]))
}

fn pool_key(env: &TestEnvironment) -> std::path::PathBuf {
    env.local_dir().join("passwords.d").join("POOL")
}

#[test]
fn the_master_makes_the_pool_key_and_token_create_signs_with_it() {
    let mut env = TestEnvironment::new();
    env.set_env("_CONDOR_TRUST_DOMAIN", "pool.example");
    env.set_env("CONDORLITE_NOW", "1700000000");
    let master = Master::start(&env);
    let key = pool_key(&env);
    assert!(key.is_file());
    assert_eq!(std::fs::metadata(&key).unwrap().len(), 64);
    assert_eq!(
        std::fs::metadata(&key).unwrap().permissions().mode() & 0o777,
        0o600
    );
    let log = env.local_dir().join("log").join("MasterLog");
    wait_for("the key's line in the MasterLog", || {
        std::fs::read_to_string(&log)
            .unwrap_or_default()
            .contains(&format!(
                "Created POOL token signing key in file {}",
                key.display()
            ))
    });
    let before = std::fs::read(&key).unwrap();

    let out = env.run(
        "condor_token_create",
        [
            "-identity",
            "alice@pool.example",
            "-authz",
            "READ",
            "-a",
            "WRITE",
            "-lifetime",
            "3600",
        ],
    );
    assert_eq!(out.status, Some(0), "{out}");
    let (header, payload) = decoded(&out.stdout);
    assert_eq!(header, r#"{"alg":"HS256","kid":"POOL"}"#);
    assert!(
        payload.starts_with(r#"{"exp":1700003600,"iat":1700000000,"iss":"pool.example","jti":""#),
        "{payload}"
    );
    assert!(
        payload
            .ends_with(r#"","scope":"condor:\/READ condor:\/WRITE","sub":"alice@pool.example"}"#),
        "{payload}"
    );
    // A second start keeps the key (tokens already issued stay valid).
    master.stop();
    let master = Master::start(&env);
    assert_eq!(std::fs::read(&key).unwrap(), before);
    master.stop();
}

#[test]
fn tokens_go_to_the_tokens_directory_and_are_listed() {
    let mut env = TestEnvironment::new();
    let dir = env.root().join("tokens");
    env.set_env("_CONDOR_SEC_TOKEN_DIRECTORY", dir.to_str().unwrap());
    let out = env.run(
        "condor_token_create",
        ["-identity", "bob@vm", "-token", "bob"],
    );
    assert_eq!(out.to_string(), "[exit status: 0]");
    // With no master, the first token made the pool's key.
    assert!(pool_key(&env).is_file());
    let file = dir.join("bob");
    assert_eq!(
        std::fs::metadata(&dir).unwrap().permissions().mode() & 0o777,
        0o700
    );
    assert_eq!(
        std::fs::metadata(&file).unwrap().permissions().mode() & 0o777,
        0o600
    );
    let token = std::fs::read_to_string(&file).unwrap();
    assert!(token.ends_with('\n'));
    let (header, payload) = decoded(&token);

    // A comment, a blank line and a line that is no token are passed over; an excluded name
    // (LOCAL_CONFIG_DIR_EXCLUDE_REGEXP: a backup file) is not read.
    std::fs::write(
        dir.join("more"),
        format!("# a comment\n\nnot a token\n{}", token.trim()),
    )
    .unwrap();
    std::fs::write(dir.join("old~"), &token).unwrap();
    let out = env.run("condor_token_list", Vec::<&str>::new());
    let line = |name: &str| {
        format!(
            "Header: {header} Payload: {payload} File: {}\n",
            dir.join(name).display()
        )
    };
    assert_eq!(
        out.to_string(),
        format!("{}{}[exit status: 0]", line("bob"), line("more"))
    );
    let out = env.run("condor_token_list", ["-file", file.to_str().unwrap()]);
    assert_eq!(out.to_string(), format!("{}[exit status: 0]", line("bob")));
    let out = env.run("condor_token_list", ["-dir", env.root().to_str().unwrap()]);
    assert_eq!(out.to_string(), "[exit status: 0]");
    // An endless file is not read without end.
    let out = env.run("condor_token_list", ["-file", "/dev/zero"]);
    assert_eq!(
        out.to_string(),
        "------- stderr -------\nToken file '/dev/zero' is larger than 1048576 bytes; not \
         read.\n[exit status: 0]"
    );
}

#[test]
fn the_default_tokens_directory_is_the_users_or_for_root_the_systems() {
    let env = TestEnvironment::new();
    let out = env.run(
        "condor_token_create",
        ["-identity", "carol@vm", "-token", "carol"],
    );
    assert_eq!(out.to_string(), "[exit status: 0]");
    let expected = if nix::unistd::geteuid().is_root() {
        // find_user_file refuses a user who can switch ids: SEC_TOKEN_SYSTEM_DIRECTORY.
        env.local_dir().join("tokens.d").join("carol")
    } else {
        env.root().join("home/.condor/tokens.d/carol")
    };
    assert!(expected.is_file(), "{}", expected.display());
    let out = env.run("condor_token_list", Vec::<&str>::new());
    assert!(
        out.stdout
            .ends_with(&format!("File: {}\n", expected.display())),
        "{out}"
    );
}

#[test]
fn token_create_refuses_what_htcondor_refuses() {
    let env = TestEnvironment::new();
    let out = env.run("condor_token_create", ["-identity"]);
    assert_eq!(out.status, Some(1));
    assert!(out
        .stderr
        .starts_with("Usage: condor_token_create -identity USER@DOMAIN"));
    let out = env.run("condor_token_create", ["-identity", "a@b", "-lifetime"]);
    assert_eq!(
        out.to_string(),
        "------- stderr -------\ncondor_token_create: -lifetime requires an integer in seconds.\n[exit status: 1]"
    );
    let out = env.run(
        "condor_token_create",
        ["-identity", "a@b", "-lifetime", "soon"],
    );
    assert_eq!(
        out.to_string(),
        "------- stderr -------\ncondor_token_create: Invalid argument for -lifetime: soon.\n[exit status: 1]"
    );
    let out = env.run("condor_token_create", ["-identity", "a@b", "-bogus"]);
    assert_eq!(out.status, Some(1));
    assert!(out.stderr.starts_with(
        "condor_token_create: Invalid command line argument: -bogus\nUsage: condor_token_create"
    ));
    let out = env.run(
        "condor_token_create",
        ["-identity", "a@b", "-token", "../x"],
    );
    assert_eq!(
        out.to_string(),
        "------- stderr -------\nToken name isn't a plain filename\n[exit status: 1]"
    );
    // A key that does not exist: HTCondor's error stack, exit 2.
    let out = env.run("condor_token_create", ["-identity", "a@b", "-key", "OTHER"]);
    assert_eq!(
        env.normalize(&out.to_string()),
        "------- stderr -------\nFailed to generate a token.\nTOKEN:1:Failed to read file \
         $TEST_ENV/local/passwords.d/OTHER securely.\n[exit status: 2]"
    );
    // A key file others can read is refused as read_secure_file refuses it.
    let out = env.run("condor_token_create", ["-identity", "a@b"]);
    assert_eq!(out.status, Some(0), "{out}");
    std::fs::set_permissions(pool_key(&env), std::fs::Permissions::from_mode(0o644)).unwrap();
    let out = env.run("condor_token_create", ["-identity", "a@b"]);
    assert_eq!(out.status, Some(2), "{out}");
    assert!(out.stderr.contains("POOL securely."), "{out}");
}

#[test]
fn token_fetch_issues_a_token_for_the_user_running_it() {
    let mut env = TestEnvironment::new();
    env.set_env("CONDORLITE_USER", "dave");
    env.set_env("_CONDOR_UID_DOMAIN", "example.org");
    env.set_env("_CONDOR_SEC_ISSUED_TOKEN_EXPIRATION", "600");
    env.set_env("CONDORLITE_NOW", "1700000000");
    let out = env.run(
        "condor_token_fetch",
        ["-lifetime", "86400", "-authz", "READ"],
    );
    assert_eq!(out.status, Some(0), "{out}");
    let (_, payload) = decoded(&out.stdout);
    assert!(
        payload.starts_with(r#"{"exp":1700000600,"iat":1700000000,"#),
        "{payload}"
    );
    assert!(
        payload.ends_with(r#"","scope":"condor:\/READ","sub":"dave@example.org"}"#),
        "{payload}"
    );
    let out = env.run("condor_token_fetch", ["-name", "schedd@elsewhere.invalid"]);
    assert_eq!(
        out.to_string(),
        "------- stderr -------\nERROR: couldn't locate daemon schedd@elsewhere.invalid!\n[exit status: 1]"
    );
    let out = env.run("condor_token_fetch", ["-type", "NOPE"]);
    assert_eq!(out.status, Some(1));
    assert!(out
        .stderr
        .starts_with("ERROR: unrecognized daemon type: NOPE\nUsage: condor_token_fetch"));
}

#[test]
fn store_cred_writes_the_pool_password_htcondor_reads() {
    let env = TestEnvironment::new();
    // -f: the scrambled file HTCondor's daemons read, silently.
    let file = env.root().join("pool_password");
    let out = env.run(
        "condor_store_cred",
        ["-f", file.to_str().unwrap(), "-p", "s3cret"],
    );
    assert_eq!(out.to_string(), "[exit status: 0]");
    let scrambled: Vec<u8> = b"s3cret"
        .iter()
        .zip([0xDEu8, 0xAD, 0xBE, 0xEF].iter().cycle())
        .map(|(b, k)| b ^ k)
        .collect();
    assert_eq!(std::fs::read(&file).unwrap(), scrambled);
    assert_eq!(
        std::fs::metadata(&file).unwrap().permissions().mode() & 0o777,
        0o600
    );

    // -c add: the pool password, which is the POOL signing key: tokens follow it.
    let out = env.run("condor_store_cred", ["-c", "add", "-p", "s3cret"]);
    let domain = env
        .run("condor_config_val", ["UID_DOMAIN"])
        .stdout
        .trim()
        .to_owned();
    assert_eq!(
        out.to_string(),
        format!(
            "Account: condor_pool@{domain}\nCredType: password\n\nOperation succeeded.\n[exit status: 0]"
        )
    );
    assert_eq!(std::fs::read(pool_key(&env)).unwrap(), scrambled);
    let out = env.run("condor_token_create", ["-identity", "a@b"]);
    assert_eq!(out.status, Some(0), "{out}");

    let out = env.run("condor_store_cred", ["-c", "query"]);
    assert_eq!(
        out.to_string(),
        "------- stderr -------\nQuerying the pool password is not supported.\n[exit status: 1]"
    );
    let out = env.run("condor_store_cred", ["delete", "-c"]);
    assert_eq!(
        out.to_string(),
        format!(
            "Account: condor_pool@{domain}\nCredType: password\n\nOperation succeeded.\n[exit status: 0]"
        )
    );
    assert!(!pool_key(&env).exists());
    let out = env.run("condor_store_cred", ["delete", "-c"]);
    assert!(out
        .to_string()
        .ends_with("Operation failed: username not found.\n[exit status: 1]"));
}

#[test]
fn store_cred_refuses_what_htcondor_on_linux_refuses() {
    let mut env = TestEnvironment::new();
    env.set_env("_CONDOR_UID_DOMAIN", "example.org");
    // A user's password: stored only on Windows.
    let out = env.run(
        "condor_store_cred",
        ["add", "-u", "erin@example.org", "-p", "pw"],
    );
    assert_eq!(
        out.to_string(),
        "Account: erin@example.org\nCredType: password\n\nOperation failed.\n    Make sure your \
         ALLOW_WRITE setting includes this host.\n[exit status: 1]"
    );
    let out = env.run("condor_store_cred", ["add-oauth"]);
    assert_eq!(
        out.to_string(),
        "------- stderr -------\nERROR: add-krb and add-oauth commands require a credential \
         filename argument\n[exit status: 1]"
    );
    let out = env.run("condor_store_cred", ["add", "-x"]);
    assert_eq!(out.status, Some(1));
    assert!(out.stderr.starts_with(
        "ERROR: Unrecognized option - '-x'\n\nUsage: condor_store_cred action [options]\n"
    ));
    let out = env.run("condor_store_cred", Vec::<&str>::new());
    assert_eq!(out.status, Some(1));
    assert!(out
        .stderr
        .starts_with("Usage: condor_store_cred action [options]\n"));
}
