//! `condor_token_create`, `condor_token_list` and `condor_token_fetch`: IDTOKENS for this
//! pool, as HTCondor's src/condor_tools/token_*.cpp make, list and fetch them.
//!
//! - `condor_token_create -identity USER@DOMAIN [-key KEYID] [-authz AUTHZ]... [-lifetime SECS]
//!   [-token NAME | -file PATH]` signs a token with a key of this pool ([`crate::security`]);
//!   without `-token`/`-file` it is printed on stdout.
//! - `condor_token_list [-dir PATH] [-file FILE]` prints `Header: ... Payload: ... File: ...`
//!   for each token in the user's token directory (or the given one or file).
//! - `condor_token_fetch [-authz A]... [-lifetime S] [-key K] [-type T] [-name N] [-pool P]
//!   [-token NAME | -file PATH]` asks the pool's schedd for a token of the user running it.
//!
//! A token named with `-token NAME` goes to `SEC_TOKEN_DIRECTORY`, or else to
//! `~/.condor/tokens.d` (root: `SEC_TOKEN_SYSTEM_DIRECTORY`), made 0700, the file 0600.
//!
//! `-help` prints the usage on stdout and exits 0, as every condorlite tool answers it
//! (HTCondor's token tools print it on stderr and exit 1).
//!
//! On one host there is no daemon to ask over CEDAR: what HTCondor's schedd does for
//! `condor_token_fetch` (issue a token for the authenticated user, `<user>@<UID_DOMAIN>`,
//! its lifetime at most `SEC_ISSUED_TOKEN_EXPIRATION` when that is set) is done here, as every
//! local request is. The `POOL` key is made by the master when it starts, as HTCondor's
//! collector makes it; in a pool that runs without a master, the first token tool that needs
//! it makes it (HTCondor would say it cannot read the key file).

use std::fs::{self, OpenOptions};
use std::io::{Read, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use clap::Command;
use regex::Regex;

use super::argv::{flag_option, words, Argv, Token};
use super::Tool;
use crate::cli::args::{ArgSpec, Prefix, Unknown};
use crate::cli::Invocation;
use crate::client::locate::{self, PoolLocation};
use crate::client::Session;
use crate::config::Config;
use crate::error::CommandError;
use crate::security::keys::{self, POOL_KEY};
use crate::security::token::{self, TokenRequest, MAX_TOKEN_BYTES};

const WORDS: &str = "args";

pub const CREATE: Tool = Tool {
    name: "condor_token_create",
    clap: create_command,
    args: ArgSpec {
        prefixes: CREATE_PREFIXES,
        unknown: Unknown::Positional,
    },
    usage_status: 1,
    run: run_create,
};

pub const LIST: Tool = Tool {
    name: "condor_token_list",
    clap: list_command,
    args: ArgSpec {
        prefixes: LIST_PREFIXES,
        unknown: Unknown::Positional,
    },
    usage_status: 1,
    run: run_list,
};

pub const FETCH: Tool = Tool {
    name: "condor_token_fetch",
    clap: fetch_command,
    args: ArgSpec {
        prefixes: FETCH_PREFIXES,
        unknown: Unknown::Positional,
    },
    usage_status: 1,
    run: run_fetch,
};

/// token_create.cpp's tests, in its order.
const CREATE_PREFIXES: &[Prefix] = &[
    Prefix::min("identity", 2),
    Prefix::min("key", 1),
    Prefix::min("authz", 1),
    Prefix::min("lifetime", 1),
    Prefix::min("token", 2),
    Prefix::min("file", 1),
    Prefix::min("debug", 1).qualified(),
    Prefix::min("help", 1),
];

/// token_list.cpp's tests, in its order.
const LIST_PREFIXES: &[Prefix] = &[
    Prefix::min("debug", 1).qualified(),
    Prefix::min("help", 1),
    Prefix::min("dir", 1),
    Prefix::min("file", 1),
];

/// token_fetch.cpp's tests, in its order.
const FETCH_PREFIXES: &[Prefix] = &[
    Prefix::min("authz", 1),
    Prefix::min("lifetime", 1),
    Prefix::min("pool", 1),
    Prefix::min("name", 1),
    Prefix::min("key", 1),
    Prefix::min("token", 2),
    Prefix::min("file", 1),
    Prefix::min("type", 1),
    Prefix::min("remote", 1),
    Prefix::min("debug", 1).qualified(),
    Prefix::min("help", 1),
];

fn create_command() -> Command {
    Command::new("condor_token_create")
        .about("Generate an IDTOKEN signed with a key of this pool")
        .long_about(
            "Make an IDTOKEN (a JSON Web Token) for an identity, signed with the pool's POOL \
             key or a named key in SEC_PASSWORD_DIRECTORY, and print it or write it to a file.",
        )
        .after_help("Exit status: 0 on success, 1 for a bad command line or an unwritable file, 2 when the token cannot be made.")
        .disable_help_flag(true)
        .disable_version_flag(true)
        .arg(flag_option("identity", "-identity USER@DOMAIN: the token's identity"))
        .arg(flag_option("key", "-key KEYID: the signing key (default POOL)"))
        .arg(flag_option("authz", "-authz AUTHZ: limit the token to this authorization (repeatable)"))
        .arg(flag_option("lifetime", "-lifetime SECONDS: the token expires this long after now"))
        .arg(flag_option("token", "-token NAME: write the token to NAME in the tokens directory"))
        .arg(flag_option("file", "-file PATH: write the token to PATH"))
        .arg(flag_option("debug", "Show extra debugging information"))
        .arg(flag_option("help", "Print the usage and exit 1"))
        .arg(words(WORDS, "ARG", "Anything else is refused").hide(true))
}

fn list_command() -> Command {
    Command::new("condor_token_list")
        .about("List the IDTOKENS available to the current user")
        .long_about(
            "Print the header and payload of every token in the user's tokens directory \
             (SEC_TOKEN_DIRECTORY, ~/.condor/tokens.d, or for root SEC_TOKEN_SYSTEM_DIRECTORY), \
             or in the directory or file given.",
        )
        .disable_help_flag(true)
        .disable_version_flag(true)
        .arg(flag_option("debug", "Show extra debugging information"))
        .arg(flag_option("help", "Print the usage and exit"))
        .arg(flag_option(
            "dir",
            "-dir PATH: look in this directory for tokens",
        ))
        .arg(flag_option(
            "file",
            "-file FILE: look in this file for a token",
        ))
        .arg(words(WORDS, "ARG", "Anything else is refused").hide(true))
}

fn fetch_command() -> Command {
    Command::new("condor_token_fetch")
        .about("Get an IDTOKEN for the current user from the pool's schedd")
        .long_about(
            "Ask the pool's schedd for a token of the user running the command \
             (user@UID_DOMAIN), and print it or write it to a file.",
        )
        .disable_help_flag(true)
        .disable_version_flag(true)
        .arg(flag_option(
            "authz",
            "-authz AUTHZ: limit the token to this authorization (repeatable)",
        ))
        .arg(flag_option(
            "lifetime",
            "-lifetime SECONDS: the token's longest lifetime",
        ))
        .arg(flag_option(
            "pool",
            "-pool HOST: the pool's central manager",
        ))
        .arg(flag_option("name", "-name NAME: the daemon to ask"))
        .arg(flag_option(
            "key",
            "-key KEYID: ask for a token signed with this key",
        ))
        .arg(flag_option(
            "token",
            "-token NAME: write the token to NAME in the tokens directory",
        ))
        .arg(flag_option("file", "-file PATH: write the token to PATH"))
        .arg(flag_option(
            "type",
            "-type SUBSYSTEM: the type of daemon to ask (default SCHEDD)",
        ))
        .arg(flag_option(
            "remote",
            "Have the collector fetch the token from the schedd",
        ))
        .arg(flag_option("debug", "Show extra debugging information"))
        .arg(flag_option("help", "Print the usage and exit 1"))
        .arg(words(WORDS, "ARG", "Anything else is refused").hide(true))
}

fn create_usage(w: &mut dyn Write) {
    let _ = write!(
        w,
        "Usage: condor_token_create -identity USER@DOMAIN [-key KEYID] [-authz AUTHZ] [-lifetime VAL] [-token NAME | -file NAME]
Generates a token from the local password.

Token options:
    -authz    <authz>                Whitelist one or more authorization
    -lifetime <val>                  Max token lifetime, in seconds
    -identity <USER@DOMAIN>          User identity
    -key      <KEYID>                Key to use for signing

Other options:
    -token    <NAME>                 Name of token file in tokens.d
    -file     <NAME>                 Token filename
"
    );
}

fn list_usage(w: &mut dyn Write) {
    let _ = write!(
        w,
        "Usage: condor_token_list [-dir PATH]
Lists the tokens available to the current user.

options:
    -dir  <path>  Look in the given directory for tokens
    -file  <filename>  Look in the given file for a token
    -help         print this message

If no -dir agument is supplied, tokens are located by using the condor config files.
Ordinary users will use SEC_TOKEN_DIRECTORY or ~/tokens.d, The root user will use SEC_TOKEN_SYSTEM_DIRECTORY.
"
    );
}

fn fetch_usage(w: &mut dyn Write) {
    let _ = write!(
        w,
        "Usage: condor_token_fetch [-type TYPE] [-name NAME] [-remote] [-pool POOL] [-authz AUTHZ] [-lifetime VAL] [-token NAME | -file NAME]

Generates a token from a remote daemon and prints its contents to stdout.

Token options:
    -authz    <authz>                Whitelist one or more authorization
    -lifetime <val>                  Max token lifetime, in seconds
    -key      <key>                  Request an alternate signing key
Specifying target options:
    -pool    <host>                  Query this collector
    -remote                          Have collector fetch token remotely
    -name    <name>                  Find a daemon with this name
    -type    <subsystem>             Type of daemon to contact (default: SCHEDD)

Other options:
    -token    <NAME>                 Name of token file in tokens.d
    -file     <NAME>                 Token filename
"
    );
}

/// Where a token goes: stdout, a name in the tokens directory, or a path.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
enum Destination {
    #[default]
    Stdout,
    TokensDir(String),
    File(String),
}

/// The options condor_token_create and condor_token_fetch share, read left to right.
#[derive(Debug, Default)]
struct TokenArgs {
    request: TokenRequest,
    destination: Destination,
    pool: Option<String>,
    name: Option<String>,
    daemon_type: Option<String>,
    remote: bool,
}

/// Reads a command line of `prefixes` as token_create.cpp/token_fetch.cpp do: `Err` with the
/// message (and whether the usage follows) that ends the tool with exit status 1.
fn read_token_args(
    tool: &str,
    argv: &Argv,
    fetch: bool,
) -> Result<TokenArgs, (Option<String>, bool)> {
    let mut args = TokenArgs::default();
    let mut i = 0;
    while i < argv.len() {
        let word = argv.tokens[i].clone();
        let mut value = |what: &str| -> Result<String, (Option<String>, bool)> {
            i += 1;
            argv.text(i)
                .ok_or_else(|| (Some(format!("{tool}: {what}")), false))
        };
        match &word {
            Token::Opt { id: "identity", .. } => {
                args.request.identity =
                    value("-identity requires a condor identity as an argument")?;
            }
            Token::Opt { id: "key", .. } => {
                args.request.key_id = value(if fetch {
                    "-key requires a key name argument."
                } else {
                    "-key requires a key ID as an argument"
                })?;
            }
            Token::Opt { id: "authz", .. } => {
                let authz = value("-authz requires an authorization name argument")?;
                args.request.authz.push(authz);
            }
            Token::Opt { id: "lifetime", .. } => {
                let text = value("-lifetime requires an integer in seconds.")?;
                let lifetime = stol(&text).ok_or_else(|| {
                    (
                        Some(format!("{tool}: Invalid argument for -lifetime: {text}.")),
                        false,
                    )
                })?;
                args.request.lifetime = (lifetime >= 0).then_some(lifetime);
            }
            Token::Opt { id: "token", .. } => {
                args.destination =
                    Destination::TokensDir(value("-token requires a file name argument.")?);
            }
            Token::Opt { id: "file", .. } => {
                args.destination =
                    Destination::File(value("-file requires a file name argument.")?);
            }
            Token::Opt { id: "pool", .. } => {
                args.pool = Some(value("-pool requires a pool name argument.")?);
            }
            Token::Opt { id: "name", .. } => {
                args.name = Some(value("-name requires a daemon name argument.")?);
            }
            Token::Opt { id: "type", .. } => {
                let t = value("-type requires a daemon type argument.")?;
                if !DAEMON_TYPES.iter().any(|d| d.eq_ignore_ascii_case(&t)) {
                    return Err((Some(format!("ERROR: unrecognized daemon type: {t}")), true));
                }
                args.daemon_type = Some(t.to_ascii_uppercase());
            }
            Token::Opt { id: "remote", .. } => args.remote = true,
            Token::Opt { id: "debug", .. } => {}
            Token::Opt { id: "help", .. } => return Err((Some(HELP.to_owned()), true)),
            other => {
                return Err((
                    Some(format!(
                        "{tool}: Invalid command line argument: {}",
                        other.text()
                    )),
                    true,
                ))
            }
        }
        i += 1;
    }
    Ok(args)
}

/// The daemon types `stringToDaemonType` knows.
const DAEMON_TYPES: &[&str] = &[
    "MASTER",
    "SCHEDD",
    "STARTD",
    "COLLECTOR",
    "NEGOTIATOR",
    "KBDD",
    "VIEW_COLLECTOR",
    "CLUSTER",
    "CREDD",
    "GENERIC",
    "HAD",
    "ANY",
];

/// `std::stol`: leading white space, a sign, digits; what follows them is ignored; `None`
/// without digits or out of range.
fn stol(text: &str) -> Option<i64> {
    let t = text.trim_start();
    let sign = usize::from(t.starts_with(['-', '+']));
    let digits = t[sign..].bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    t[..sign + digits].parse().ok()
}

/// What [`read_token_args`] returns for `-help`: the usage goes to stdout and the tool
/// succeeds, as every condorlite tool answers `-help` (HTCondor: stderr, exit 1).
const HELP: &str = "-help";

/// Ends a tool whose command line was refused: the message, then (when asked) the usage;
/// or, for `-help`, prints the usage on `out`.
fn refuse(
    out: &mut dyn Write,
    err: &mut dyn Write,
    (message, usage): (Option<String>, bool),
    print_usage: fn(&mut dyn Write),
) -> Result<(), CommandError> {
    if message.as_deref() == Some(HELP) {
        print_usage(out);
        return Ok(());
    }
    Err(refuse_on(err, (message, usage), print_usage))
}

fn refuse_on(
    err: &mut dyn Write,
    (message, usage): (Option<String>, bool),
    print_usage: fn(&mut dyn Write),
) -> CommandError {
    if let Some(m) = message {
        let _ = writeln!(err, "{m}");
    }
    if usage {
        print_usage(err);
    }
    CommandError::Exit(1)
}

fn load_config() -> Result<Config, CommandError> {
    Config::load().map_err(|e| CommandError::failed(1, e.to_string()))
}

fn run_create(
    inv: &Invocation,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<(), CommandError> {
    let tool = CREATE.name;
    let argv = Argv::from_invocation(inv, CREATE_PREFIXES, WORDS);
    let config = load_config()?;
    // token_create.cpp wants two words at least; `-help` alone is still help.
    let help_alone = matches!(argv.get(0), Some(Token::Opt { id: "help", .. }));
    if argv.len() < 2 && !help_alone {
        return Err(refuse_on(err, (None, true), create_usage));
    }
    let args = match read_token_args(tool, &argv, false) {
        Ok(args) => args,
        Err(r) => return refuse(out, err, r, create_usage),
    };
    let session = Session::new(
        config,
        String::new(),
        crate::client::process_now().map_err(|e| CommandError::failed(1, e.to_string()))?,
    )
    .map_err(|e| CommandError::failed(1, e.to_string()))?;
    let token = sign(&session, &args.request, err, 2)?;
    write_out_token(&session.config, &args.destination, &token, out, err)
}

fn run_fetch(
    inv: &Invocation,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<(), CommandError> {
    let tool = FETCH.name;
    let argv = Argv::from_invocation(inv, FETCH_PREFIXES, WORDS);
    let session = Session::from_process().map_err(|e| CommandError::failed(1, e.to_string()))?;
    let mut args = match read_token_args(tool, &argv, true) {
        Ok(args) => args,
        Err(r) => return refuse(out, err, r, fetch_usage),
    };
    if args.remote && args.daemon_type.as_deref().is_some_and(|t| t != "SCHEDD") {
        let _ = writeln!(
            err,
            "{tool}: Remote fetch (-remote) is only valid with the schedd."
        );
        return Err(CommandError::Exit(1));
    }
    if let Some(pool) = &args.pool {
        if session.locate_pool(pool) != PoolLocation::Local {
            let host = locate::host_part(pool);
            let _ = writeln!(err, "ERROR: unknown host {host}");
            return Err(CommandError::Exit(1));
        }
    }
    if let Some(name) = &args.name {
        if !locate::is_this_host(&session.config, locate::host_part(name)) {
            let _ = writeln!(err, "ERROR: couldn't locate daemon {name}!");
            return Err(CommandError::Exit(1));
        }
    }
    // The schedd issues the token for the authenticated user, within its own limit.
    let domain = session
        .config
        .string("UID_DOMAIN")
        .map_err(|e| CommandError::failed(1, e.to_string()))?
        .unwrap_or_default();
    args.request.identity = format!("{}@{domain}", session.user);
    let limit = session
        .config
        .int("SEC_ISSUED_TOKEN_EXPIRATION")
        .map_err(|e| CommandError::failed(1, e.to_string()))?
        .filter(|l| *l >= 0);
    if let Some(limit) = limit {
        args.request.lifetime = Some(args.request.lifetime.map_or(limit, |l| l.min(limit)));
    }
    let token = sign(&session, &args.request, err, 1).map_err(|e| {
        if matches!(e, CommandError::Exit(_)) {
            e
        } else {
            CommandError::failed(1, format!("Failed to request a session token: {e}"))
        }
    })?;
    write_out_token(&session.config, &args.destination, &token, out, err)
}

/// Signs `request` with the pool's key, making the `POOL` key first if the pool has none
/// (see the module's note). A failure prints HTCondor's message and error stack and ends the
/// tool with `status`.
fn sign(
    session: &Session,
    request: &TokenRequest,
    err: &mut dyn Write,
    status: u8,
) -> Result<String, CommandError> {
    if request.key_id.is_empty() || request.key_id == POOL_KEY {
        if let Ok(Some(path)) = keys::create_pool_key_if_needed(&session.config) {
            tracing::info!("Created POOL token signing key in file {}", path.display());
        }
    }
    token::generate(&session.config, request, session.now).map_err(|e| {
        let _ = writeln!(err, "Failed to generate a token.\n{e}");
        CommandError::Exit(status)
    })
}

/// The user's tokens directory: `SEC_TOKEN_DIRECTORY`, else `~/.condor/tokens.d` for an
/// ordinary user and `SEC_TOKEN_SYSTEM_DIRECTORY` for root (`find_user_file` refuses a user
/// who can switch ids).
fn tokens_dir(config: &Config) -> Option<PathBuf> {
    if let Ok(Some(dir)) = config.string("SEC_TOKEN_DIRECTORY") {
        if !dir.is_empty() {
            return Some(PathBuf::from(dir));
        }
    }
    if !nix::unistd::geteuid().is_root() {
        // `$HOME`, or the home directory of the password database.
        if let Some(dirs) = directories::BaseDirs::new() {
            return Some(dirs.home_dir().join(".condor").join("tokens.d"));
        }
    }
    config
        .string("SEC_TOKEN_SYSTEM_DIRECTORY")
        .ok()
        .flatten()
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
}

/// Writes the token where it goes (`htcondor::write_out_token`).
fn write_out_token(
    config: &Config,
    destination: &Destination,
    token: &str,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<(), CommandError> {
    let path = match destination {
        Destination::Stdout => {
            writeln!(out, "{token}")?;
            return Ok(());
        }
        Destination::File(path) => PathBuf::from(path),
        Destination::TokensDir(name) => {
            let plain = Path::new(name)
                .file_name()
                .is_some_and(|f| f == name.as_str());
            if !plain {
                let _ = writeln!(err, "Token name isn't a plain filename");
                return Err(CommandError::Exit(1));
            }
            let Some(dir) = tokens_dir(config) else {
                let _ = writeln!(err, "Cannot write token to {name}: no tokens directory");
                return Err(CommandError::Exit(1));
            };
            if !dir.exists() {
                let made = fs::create_dir_all(&dir)
                    .and_then(|()| fs::set_permissions(&dir, fs::Permissions::from_mode(0o700)));
                if let Err(e) = made {
                    let _ = writeln!(
                        err,
                        "Cannot write token to {}: {e}",
                        dir.join(name).display()
                    );
                    return Err(CommandError::Exit(1));
                }
            }
            dir.join(name)
        }
    };
    let written = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW)
        .open(&path)
        .and_then(|mut f| f.write_all(format!("{token}\n").as_bytes()));
    if let Err(e) = written {
        let errno = e.raw_os_error().unwrap_or(0);
        let _ = writeln!(
            err,
            "Cannot write token to {}: {} (errno={errno})",
            path.display(),
            nix::errno::Errno::from_raw(errno).desc()
        );
        return Err(CommandError::Exit(1));
    }
    Ok(())
}

fn run_list(
    inv: &Invocation,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<(), CommandError> {
    let tool = LIST.name;
    let argv = Argv::from_invocation(inv, LIST_PREFIXES, WORDS);
    let config = load_config()?;
    let mut dir: Option<PathBuf> = None;
    let mut debug = false;
    let mut i = 0;
    while i < argv.len() {
        match &argv.tokens[i] {
            Token::Opt { id: "debug", .. } => debug = true,
            Token::Opt { id: "help", .. } => {
                list_usage(out);
                return Ok(());
            }
            Token::Opt { id: "dir", .. } => {
                i += 1;
                let Some(d) = argv.text(i) else {
                    let _ = writeln!(err, "{tool}: -dir requires path argument.");
                    list_usage(err);
                    return Err(CommandError::Exit(1));
                };
                dir = Some(PathBuf::from(d));
            }
            Token::Opt { id: "file", .. } => {
                i += 1;
                let Some(f) = argv.text(i) else {
                    let _ = writeln!(err, "{tool}: -file requires file argument.");
                    list_usage(err);
                    return Err(CommandError::Exit(1));
                };
                print_token_file(Path::new(&f), debug, out, err)?;
                return Ok(());
            }
            other => {
                let _ = writeln!(
                    err,
                    "{tool}: Invalid command line argument: {}",
                    other.text()
                );
                list_usage(err);
                return Err(CommandError::Exit(1));
            }
        }
        i += 1;
    }
    let Some(dir) = dir.or_else(|| tokens_dir(&config)) else {
        return Ok(());
    };
    let exclude = config
        .string("LOCAL_CONFIG_DIR_EXCLUDE_REGEXP")
        .ok()
        .flatten()
        .and_then(|r| Regex::new(&r).ok());
    let Ok(entries) = fs::read_dir(&dir) else {
        if debug {
            let _ = writeln!(err, "Cannot open {}", dir.display());
        }
        return Ok(());
    };
    let mut files: Vec<(String, PathBuf)> = entries
        .filter_map(Result::ok)
        .filter(|e| !e.path().is_dir())
        .filter_map(|e| Some((e.file_name().into_string().ok()?, e.path())))
        .filter(|(name, _)| !exclude.as_ref().is_some_and(|r| r.is_match(name)))
        .collect();
    files.sort();
    for (_, path) in files {
        print_token_file(&path, debug, out, err)?;
    }
    Ok(())
}

/// The largest token file read.
const MAX_TOKEN_FILE: u64 = 1024 * 1024;

/// Prints each token of a file (`printToken`): lines that are empty, comments or not tokens
/// are skipped (said with `-debug`).
fn print_token_file(
    path: &Path,
    debug: bool,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<(), CommandError> {
    let mut text = Vec::new();
    let read = fs::File::open(path).and_then(|f| f.take(MAX_TOKEN_FILE + 1).read_to_end(&mut text));
    if let Err(e) = read {
        if debug {
            let _ = writeln!(err, "Failed to open token file '{}': {e}", path.display());
        }
        return Ok(());
    }
    if text.len() as u64 > MAX_TOKEN_FILE {
        let _ = writeln!(
            err,
            "Token file '{}' is larger than {MAX_TOKEN_FILE} bytes; not read.",
            path.display()
        );
        return Ok(());
    }
    let text = String::from_utf8_lossy(&text);
    let mut invalid = 0;
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if line.len() > MAX_TOKEN_BYTES {
            invalid += 1;
            continue;
        }
        match token::decode(line) {
            Ok((header, payload)) => writeln!(
                out,
                "Header: {header} Payload: {payload} File: {}",
                path.display()
            )?,
            Err(_) => invalid += 1,
        }
    }
    if invalid > 0 && debug {
        let _ = writeln!(
            err,
            "Failed to decode {invalid} JWT lines in keyfile '{}'",
            path.display()
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(words: &[&str]) -> Result<TokenArgs, (Option<String>, bool)> {
        let inv = CREATE.parse_words(words).unwrap();
        read_token_args(
            "t",
            &Argv::from_invocation(&inv, CREATE_PREFIXES, WORDS),
            false,
        )
    }

    #[test]
    fn create_reads_its_options_as_token_create_does() {
        let a = args(&[
            "-id", "a@b", "-a", "READ", "-authz", "WRITE", "-l", "60", "-to", "x",
        ])
        .unwrap();
        assert_eq!(a.request.identity, "a@b");
        assert_eq!(a.request.authz, ["READ", "WRITE"]);
        assert_eq!(a.request.lifetime, Some(60));
        assert_eq!(a.destination, Destination::TokensDir("x".into()));
        let a = args(&["-identity", "a@b", "-lifetime", "12abc", "-f", "out"]).unwrap();
        assert_eq!(a.request.lifetime, Some(12));
        assert_eq!(a.destination, Destination::File("out".into()));
        assert_eq!(
            args(&["-identity", "a@b", "-lifetime", "x"]).unwrap_err(),
            (Some("t: Invalid argument for -lifetime: x.".into()), false)
        );
        assert_eq!(
            args(&["-identity"]).unwrap_err(),
            (
                Some("t: -identity requires a condor identity as an argument".into()),
                false
            )
        );
        assert_eq!(
            args(&["-identity", "a@b", "-i", "x"]).unwrap_err(),
            (Some("t: Invalid command line argument: -i".into()), true)
        );
    }

    #[test]
    fn stol_is_cs() {
        assert_eq!(stol(" 42x"), Some(42));
        assert_eq!(stol("-5"), Some(-5));
        assert_eq!(stol("x"), None);
        assert_eq!(stol("99999999999999999999"), None);
    }
}
