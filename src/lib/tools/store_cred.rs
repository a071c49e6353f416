//! `condor_store_cred`: the pool password and users' credentials, as HTCondor's
//! src/condor_tools/store_cred_main.cpp manages them on a Unix host.
//!
//! `condor_store_cred add|delete|query[-pwd|-krb|-oauth] [-u user@domain] [-c] [-p password]
//! [-i file|-] [-s service] [-H handle] [-S scopes] [-A audience] [-n name] [-f file] [-d] [-h]`
//!
//! What it does here, as HTCondor does it on Linux:
//! - `-f FILE` writes the password (from `-p`, `-i`, or asked for) to FILE in HTCondor's
//!   scrambled pool-password format, and says nothing on success;
//! - `-c add` / `-c delete` store and remove the pool password, `SEC_PASSWORD_FILE` (which is
//!   also the `POOL` token signing key by default): the master's `STORE_POOL_CRED` handler,
//!   done here by the tool as every local request is (the directory is made 0700 if missing);
//!   `-c query` is refused as HTCondor refuses it on Unix;
//! - a user's password (`add` without `-c`) fails as the schedd fails it on Unix (passwords of
//!   users are stored only on Windows).
//!
//! `-h` (and `-help`) print the usage on stdout and exit 0, as every condorlite tool answers
//! it (HTCondor: stderr, exit 1).
//!
//! Kerberos and OAuth credentials go to a credd and its credential monitor in HTCondor; this
//! pool has neither, so `add-krb`/`add-oauth` and their queries say that the operation failed
//! and why (condorlite's message).

use std::fs;
use std::io::{self, BufRead, IsTerminal, Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use clap::Command;

use super::argv::{words, Argv, Token};
use super::Tool;
use crate::cli::args::{ArgSpec, Prefix, Unknown};
use crate::cli::Invocation;
use crate::config::Config;
use crate::error::CommandError;
use crate::security::keys;

pub const TOOL: Tool = Tool {
    name: "condor_store_cred",
    clap: command,
    args: ArgSpec {
        prefixes: PREFIXES,
        // store_cred_main.cpp looks at words one character at a time: every word reaches run().
        unknown: Unknown::Positional,
    },
    usage_status: 1,
    run,
};

const PREFIXES: &[Prefix] = &[];
const WORDS: &str = "args";

/// HTCondor's `POOL_PASSWORD_USERNAME`.
const POOL_USER: &str = "condor_pool";
/// HTCondor's `MAX_PASSWORD_LENGTH`.
const MAX_PASSWORD_LENGTH: usize = 255;
/// The most read from standard input for `-i -` (1 MiB, as HTCondor).
const MAX_STDIN: u64 = 1024 * 1024;

fn command() -> Command {
    Command::new("condor_store_cred")
        .about("Manage the pool password and stored credentials")
        .long_about(
            "Add, delete or query a credential: the pool password (-c), written where the \
             pool's daemons read it, or a password file (-f). Users' passwords are stored only \
             on Windows, as with HTCondor on Linux; Kerberos and OAuth credentials need a credd.",
        )
        .after_help("Exit status: 0 on success, 2 when a query's scopes or audience do not match, 1 otherwise.")
        .disable_help_flag(true)
        .disable_version_flag(true)
        .arg(
            words(
                WORDS,
                "ACTION [OPTIONS]",
                "add[-pwd|-krb|-oauth], delete[-TYPE] or query[-TYPE], then -u USER@DOMAIN, -c, \
                 -p PASSWORD, -i FILE|-, -s SERVICE, -H HANDLE, -S SCOPES, -A AUDIENCE, -n NAME, \
                 -f FILE, -d, -h",
        ))
}

fn usage(w: &mut dyn Write) {
    let _ = write!(
        w,
        "Usage: condor_store_cred action [options]
  where action is one of:
    add[-type]        Add credential to secure storage
    delete[-type]     Remove credential from secure storage
    query[-type]      Check if a credential has been stored
  and -type is an optional credential type. it must be one of:
    -pwd              Credential is a password (default)
    -krb              Credential is Kerberos/AFS token
    -oauth            Credential is Scitoken or OAuth2 token
  and where [options] is zero or more of:
    -u username       Use the specified username
    -c                Manage the condor pool password
    -p <password>     Use the specified password rather than prompting
    -i <filename>     Read the credential from <filename>
                         If <filename> is -, read from stdin
    -s <service>      Add/Remove/Query for the given OAuth2 service
    -H <handle>       Specify a handle for the given OAuth2 service
    -S <scopes>       Add the given OAuth2 comma-separated scopes, or make sure
                         a Query matches
    -A <audience>     Add the given OAuth2 audience, or make sure a Query matches
    -n <name>         Manage credentials on the named machine
    -f <filename>     Write password to a pool password file
    -d                Display debugging messages
    -h                Display this message

If no -u argument is supplied, the name of the current user will be used.
The add-krb and add-oauth action must be used with the -i argument to specify
a file to read the credential from. The add or add-pwd action will prompt for
a password unless the -p argument is used.
Using -A or -S with oauth requires the credential to be in JSON format.

"
    );
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Add,
    Delete,
    Query,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CredType {
    Password,
    Kerberos,
    OAuth,
}

impl CredType {
    fn name(self) -> &'static str {
        match self {
            CredType::Password => "password",
            CredType::Kerberos => "kerberos",
            CredType::OAuth => "oauth",
        }
    }
}

#[derive(Debug, Default)]
struct Options {
    op: Option<(Op, CredType)>,
    username: Option<String>,
    daemon: Option<String>,
    password: Option<String>,
    credential_file: Option<String>,
    pool_password_file: Option<String>,
    service: Option<String>,
    handle: Option<String>,
    scopes: Option<String>,
    audience: Option<String>,
    help: bool,
}

/// `qualify_mode`: the type after `add-`, `delete-` or `query-`.
fn qualify(tag: Option<&str>) -> Option<CredType> {
    let Some(tag) = tag else {
        return Some(CredType::Password);
    };
    let tag = tag.to_ascii_lowercase();
    let is = |name: &str, min: usize| {
        let t = tag.trim_start_matches('-');
        tag.starts_with('-') && t.len() >= min && name.starts_with(t)
    };
    if is("pwd", 1) || is("password", 2) {
        Some(CredType::Password)
    } else if is("krb", 2) || is("kerberos", 2) {
        Some(CredType::Kerberos)
    } else if is("oauth", 2) || is("oath", 2) || is("scitokens", 3) {
        Some(CredType::OAuth)
    } else {
        None
    }
}

/// Ends the tool with the usage on stderr after `message` (store_cred_main.cpp's `usage()`
/// exits 1).
fn refuse(err: &mut dyn Write, message: &str) -> CommandError {
    let _ = write!(err, "{message}");
    usage(err);
    CommandError::Exit(1)
}

/// `parseCommandLine`: words in order, actions by their first letter, switches by the
/// letter after the dash.
fn parse(words: &[String], err: &mut dyn Write) -> Result<Options, CommandError> {
    let mut o = Options::default();
    let mut ix = 0;
    while ix < words.len() {
        let word = &words[ix];
        let (arg, dasharg) = match word.find('-') {
            Some(p) if p > 0 => (&word[..p], Some(&word[p..])),
            _ => (word.as_str(), None),
        };
        let next = |ix: &mut usize, err: &mut dyn Write, what: &str| {
            *ix += 1;
            words.get(*ix).cloned().ok_or_else(|| {
                refuse(
                    err,
                    &format!("ERROR: Option '{arg}' requires a {what} argument\n\n"),
                )
            })
        };
        let action = match arg.chars().next().map(|c| c.to_ascii_lowercase()) {
            Some('a') => Some((Op::Add, "add")),
            Some('d') => Some((Op::Delete, "delete")),
            Some('q') => Some((Op::Query, "query")),
            _ => None,
        };
        if let Some((op, name)) = action {
            if !arg.eq_ignore_ascii_case(name) {
                return Err(refuse(
                    err,
                    &format!("ERROR: Unrecognized command - '{arg}'\n\n"),
                ));
            }
            match o.op {
                None => {
                    let Some(kind) = qualify(dasharg) else {
                        let tag = dasharg.unwrap_or_default();
                        return Err(refuse(
                            err,
                            &format!("ERROR: {tag} is not a known credential type\n"),
                        ));
                    };
                    o.op = Some((op, kind));
                }
                Some((existing, _)) if existing != op => {
                    return Err(refuse(err, "ERROR: exactly one command must be provided\n"));
                }
                Some(_) => {}
            }
        } else if arg == "--help" {
            o.help = true;
        } else if let Some(switch) = arg.strip_prefix('-') {
            match switch.chars().next() {
                Some('n') => {
                    if o.daemon.is_some() {
                        return Err(refuse(err, "ERROR: only one '-n' arg may be provided\n"));
                    }
                    o.daemon = Some(next(&mut ix, err, "name")?);
                }
                Some('p') => {
                    if o.password.is_some() {
                        return Err(refuse(err, "ERROR: only one '-p' arg may be provided\n"));
                    }
                    o.password = Some(next(&mut ix, err, "password")?);
                }
                Some('c') => {
                    if o.username.is_some() {
                        return Err(refuse(
                            err,
                            "ERROR: only one '-c' or '-u' arg may be provided\n",
                        ));
                    }
                    o.username = Some(POOL_USER.to_owned());
                }
                Some('u') => {
                    if o.username.is_some() {
                        return Err(refuse(
                            err,
                            "ERROR: only one of '-s' or '-u' may be provided\n",
                        ));
                    }
                    let user = next(&mut ix, err, "username")?;
                    let at = user.find('@');
                    if at.is_none_or(|at| at == 0 || at == user.len() - 1) {
                        // HTCondor prints the usage here and goes on.
                        let _ = writeln!(
                            err,
                            "ERROR: Username '{user}' is not of the form: account@domain"
                        );
                        usage(err);
                    }
                    o.username = Some(user);
                }
                Some('i') => {
                    if o.credential_file.is_some() {
                        return Err(refuse(
                            err,
                            "ERROR: credential filename already specified\n",
                        ));
                    }
                    o.credential_file = Some(next(&mut ix, err, "filename")?);
                }
                Some(c @ ('s' | 'H' | 'S' | 'A')) => {
                    let (slot, what, again) = match c {
                        's' => (&mut o.service, "service", "OAuth service"),
                        'H' => (&mut o.handle, "handle", "OAuth handle"),
                        'S' => (&mut o.scopes, "scopes", "OAuth scopes"),
                        _ => (&mut o.audience, "audience", "OAuth audience"),
                    };
                    if slot.is_some() {
                        return Err(refuse(err, &format!("ERROR: {again} already specified\n")));
                    }
                    *slot = Some(next(&mut ix, err, what)?);
                }
                Some('f') => {
                    o.pool_password_file = Some(next(&mut ix, err, "filename")?);
                    o.op = Some((Op::Add, o.op.map_or(CredType::Password, |(_, t)| t)));
                }
                Some('d') => {}
                Some('h') => o.help = true,
                _ => {
                    return Err(refuse(
                        err,
                        &format!("ERROR: Unrecognized option - '{arg}'\n\n"),
                    ))
                }
            }
        } else {
            return Err(refuse(
                err,
                &format!("ERROR: Unrecognized command - '{word}'\n\n"),
            ));
        }
        ix += 1;
    }
    if let Some((Op::Add, CredType::Kerberos | CredType::OAuth)) = o.op {
        if o.credential_file.is_none() {
            let _ = writeln!(
                err,
                "ERROR: add-krb and add-oauth commands require a credential filename argument"
            );
            return Err(CommandError::Exit(1));
        }
    }
    Ok(o)
}

/// `getCredData`: the credential from `-i` (a file, or `-` for stdin), `-p`, or asked for.
fn credential(o: &Options, out: &mut dyn Write, err: &mut dyn Write) -> Option<Vec<u8>> {
    if let Some(file) = &o.credential_file {
        let mut bytes = Vec::new();
        if file == "-" {
            if let Err(e) = io::stdin().take(MAX_STDIN).read_to_end(&mut bytes) {
                let _ = writeln!(err, "ERROR: could read from stdin: {e}");
                return None;
            }
        } else {
            let read =
                fs::File::open(file).and_then(|f| f.take(MAX_STDIN + 1).read_to_end(&mut bytes));
            if read.is_err() || bytes.len() as u64 > MAX_STDIN {
                let _ = writeln!(err, "Could not read credential from {file}");
                return None;
            }
        }
        return Some(bytes);
    }
    if let Some(pw) = o.password.as_ref().filter(|p| !p.is_empty()) {
        return Some(pw.as_bytes().to_vec());
    }
    if let Some((_, CredType::Kerberos | CredType::OAuth)) = o.op {
        return None;
    }
    let _ = write!(out, "Enter password: ");
    let _ = out.flush();
    let password = if io::stdin().is_terminal() {
        rpassword::read_password().unwrap_or_default()
    } else {
        let mut line = String::new();
        let _ = io::stdin()
            .lock()
            .take(MAX_PASSWORD_LENGTH as u64 + 2)
            .read_line(&mut line);
        line.trim_end_matches(['\n', '\r']).to_owned()
    };
    let _ = writeln!(out);
    Some(password.into_bytes())
}

/// The password as HTCondor's C string of it: up to the first NUL.
fn c_string(bytes: &[u8]) -> &[u8] {
    bytes.split(|b| *b == 0).next().unwrap_or_default()
}

fn run(inv: &Invocation, out: &mut dyn Write, err: &mut dyn Write) -> Result<(), CommandError> {
    let argv = Argv::from_invocation(inv, PREFIXES, WORDS);
    let words: Vec<String> = argv
        .tokens
        .iter()
        .map(|t| match t {
            Token::Opt { .. } => t.text(),
            Token::Word(w) => w.clone(),
        })
        .collect();
    let config = Config::load().map_err(|e| CommandError::failed(1, e.to_string()))?;
    let o = parse(&words, err)?;
    if o.help {
        // Asked for, the usage goes where every condorlite tool prints its help.
        usage(out);
        return Ok(());
    }
    if o.op.is_none() && o.pool_password_file.is_none() {
        usage(err);
        return Err(CommandError::Exit(1));
    }
    if let Some(file) = &o.pool_password_file {
        let Some(cred) = credential(&o, out, err) else {
            return Err(CommandError::Exit(1));
        };
        if keys::write_password_file(Path::new(file), c_string(&cred)).is_err() {
            let _ = writeln!(err, "error writing password file: {file}");
            return Err(CommandError::Exit(1));
        }
        return Ok(());
    }
    let (op, kind) = o.op.expect("checked above");
    let pool = o.username.as_deref() == Some(POOL_USER);
    let account = if pool {
        if op == Op::Query {
            let _ = writeln!(err, "Querying the pool password is not supported.");
            return Err(CommandError::Exit(1));
        }
        let domain = config
            .string("SEC_PASSWORD_DOMAIN")
            .ok()
            .flatten()
            .or_else(|| config.string("UID_DOMAIN").ok().flatten());
        let Some(domain) = domain else {
            let _ = writeln!(err, "ERROR: could not domain for pool password");
            return Err(CommandError::Exit(1));
        };
        Some(format!("{POOL_USER}@{domain}"))
    } else if let Some(user) = &o.username {
        Some(user.clone())
    } else if kind == CredType::Password {
        let user = crate::client::os_user().unwrap_or_default();
        let domain = config
            .string("UID_DOMAIN")
            .ok()
            .flatten()
            .unwrap_or_default();
        Some(format!("{user}@{domain}"))
    } else {
        None
    };
    match &account {
        Some(a) => writeln!(out, "Account: {a}")?,
        None => writeln!(
            out,
            "Account: <current> ({})",
            crate::client::os_user().unwrap_or_default()
        )?,
    }
    writeln!(out, "CredType: {}\n", kind.name())?;

    let failed = |out: &mut dyn Write| -> Result<(), CommandError> {
        writeln!(out, "Operation failed.")?;
        if pool {
            writeln!(
                out,
                "    Make sure you have ALLOW_ADMINISTRATOR access to the target Master.\n    If the Master is older than 23.2.0, ALLOW_CONFIG access is needed."
            )?;
        } else {
            writeln!(
                out,
                "    Make sure your ALLOW_WRITE setting includes this host."
            )?;
        }
        Err(CommandError::Exit(1))
    };

    if kind != CredType::Password {
        let _ = writeln!(
            err,
            "condor_store_cred: {} credentials are kept by a condor_credd and its credential \
             monitor; this pool runs neither.",
            kind.name()
        );
        return failed(out);
    }
    if !pool {
        // store_cred_password: "only valid on Windows" for any user but the pool's.
        return failed(out);
    }
    let path = match config.string("SEC_PASSWORD_FILE") {
        Ok(Some(p)) if !p.is_empty() => std::path::PathBuf::from(p),
        _ => return failed(out),
    };
    match op {
        Op::Add => {
            let Some(cred) = credential(&o, out, err) else {
                return Err(CommandError::Exit(1));
            };
            let pw = c_string(&cred);
            if pw.is_empty() || pw.len() > MAX_PASSWORD_LENGTH {
                return failed(out);
            }
            if let Some(dir) = path.parent().filter(|d| !d.exists()) {
                let made = fs::create_dir_all(dir)
                    .and_then(|()| fs::set_permissions(dir, fs::Permissions::from_mode(0o700)));
                if made.is_err() {
                    return failed(out);
                }
            }
            if keys::write_password_file(&path, pw).is_err() {
                return failed(out);
            }
            writeln!(out, "Operation succeeded.")?;
        }
        Op::Delete => {
            if fs::remove_file(&path).is_err() {
                writeln!(out, "Operation failed: username not found.")?;
                return Err(CommandError::Exit(1));
            }
            writeln!(out, "Operation succeeded.")?;
        }
        Op::Query => unreachable!("refused above"),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(words: &[&str]) -> Result<Options, String> {
        let words: Vec<String> = words.iter().map(|w| w.to_string()).collect();
        let mut err = Vec::new();
        parse(&words, &mut err).map_err(|_| String::from_utf8(err).unwrap())
    }

    #[test]
    fn actions_and_types_as_store_cred_reads_them() {
        assert_eq!(
            parsed(&["add"]).unwrap().op,
            Some((Op::Add, CredType::Password))
        );
        assert_eq!(
            parsed(&["ADD-krb", "-i", "f"]).unwrap().op,
            Some((Op::Add, CredType::Kerberos))
        );
        assert_eq!(
            parsed(&["query-oauth"]).unwrap().op,
            Some((Op::Query, CredType::OAuth))
        );
        let e = parsed(&["add-x"]).unwrap_err();
        assert!(
            e.starts_with("ERROR: -x is not a known credential type\n"),
            "{e}"
        );
        let e = parsed(&["add", "delete"]).unwrap_err();
        assert!(
            e.starts_with("ERROR: exactly one command must be provided\n"),
            "{e}"
        );
        let e = parsed(&["adder"]).unwrap_err();
        assert!(
            e.starts_with("ERROR: Unrecognized command - 'adder'\n\n"),
            "{e}"
        );
        let e = parsed(&["add", "-z"]).unwrap_err();
        assert!(
            e.starts_with("ERROR: Unrecognized option - '-z'\n\n"),
            "{e}"
        );
        let e = parsed(&["add", "-p"]).unwrap_err();
        assert!(
            e.starts_with("ERROR: Option '-p' requires a password argument\n\n"),
            "{e}"
        );
        let e = parsed(&["add-oauth"]).unwrap_err();
        assert_eq!(
            e,
            "ERROR: add-krb and add-oauth commands require a credential filename argument\n"
        );
        let o = parsed(&["-c", "add", "-p", "pw"]).unwrap();
        assert_eq!(o.username.as_deref(), Some(POOL_USER));
        let o = parsed(&["-f", "/tmp/x", "-p", "pw"]).unwrap();
        assert_eq!(o.op, Some((Op::Add, CredType::Password)));
    }

    #[test]
    fn a_password_is_a_c_string() {
        assert_eq!(c_string(b"ab\0cd"), b"ab");
        assert_eq!(c_string(b"abc\n"), b"abc\n");
    }
}
