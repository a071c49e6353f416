//! The custom column renderers the job tools share (HTCondor's global print-format table,
//! src/condor_utils/print_format_tables.cpp), and the typed lookups they are built on.

use std::sync::Arc;

use crate::classad::{ClassAd, Expr, Value};

use super::mask::RenderEnv;
use super::time::format_date;

/// The value of an attribute, evaluated (literals are taken as they are).
pub fn lookup_value(ad: &ClassAd, name: &str) -> Option<Value> {
    match ad.lookup(name)? {
        Expr::Lit(v) => Some(v.clone()),
        _ => Some(ad.eval_attr(name)),
    }
}

/// `LookupString`: the attribute evaluates to a string.
pub fn lookup_str(ad: &ClassAd, name: &str) -> Option<Arc<str>> {
    match lookup_value(ad, name)? {
        Value::Str(s) => Some(s),
        _ => None,
    }
}

/// `LookupInteger`: the attribute evaluates to a number (reals truncated, booleans 0/1).
pub fn lookup_int(ad: &ClassAd, name: &str) -> Option<i64> {
    lookup_value(ad, name)?.as_number_int()
}

/// `LookupFloat`.
pub fn lookup_real(ad: &ClassAd, name: &str) -> Option<f64> {
    lookup_value(ad, name)?.as_number_real()
}

/// `LookupBool`: booleans, and numbers as non-zero.
pub fn lookup_bool(ad: &ClassAd, name: &str) -> Option<bool> {
    lookup_value(ad, name)?.as_bool_equiv()
}

/// `JOB_ID`: `cluster.proc` (a missing proc is -1), or the `JobId` string.
pub fn render_job_id(ad: &ClassAd, _: &RenderEnv) -> Option<String> {
    match lookup_int(ad, "ClusterId") {
        Some(c) => Some(format!(
            "{}.{}",
            c as i32,
            lookup_int(ad, "ProcId").unwrap_or(-1) as i32
        )),
        None => lookup_str(ad, "JobId").map(|s| s.to_string()),
    }
}

/// `OWNER`.
pub fn render_owner(ad: &ClassAd, _: &RenderEnv) -> Option<String> {
    lookup_str(ad, "Owner").map(|s| s.to_string())
}

/// `QDATE`: a date column.
pub fn format_qdate(t: i64) -> String {
    format_date(t)
}

/// `JOB_UNIVERSE`: `CondorUniverseNameUcFirst`.
pub fn format_job_universe(u: i64) -> String {
    universe_name(u).to_owned()
}

/// HTCondor's universe names, first letter capitalised.
pub fn universe_name(u: i64) -> &'static str {
    const NAMES: [&str; 14] = [
        "NULL",
        "Standard",
        "Pipe",
        "Linda",
        "PVM",
        "Vanilla",
        "PVMD",
        "Scheduler",
        "MPI",
        "Grid",
        "Java",
        "Parallel",
        "Local",
        "VM",
    ];
    if (1..14).contains(&u) {
        NAMES[u as usize]
    } else {
        "Unknown"
    }
}

/// `encode_status`: the letter of a `JobStatus` (`I R X C H > S`, then `F B P`).
pub fn status_letter(status: i64) -> char {
    match status {
        1 => 'I',
        2 => 'R',
        3 => 'X',
        4 => 'C',
        5 => 'H',
        6 => '>',
        7 => 'S',
        8 => 'F',
        9 => 'B',
        10 => 'P',
        _ => ' ',
    }
}

/// `JOB_STATUS` (global table): the status letter and a transfer mark (`<`, `>`, `q`).
pub fn render_job_status(ad: &ClassAd, _: &RenderEnv) -> Option<String> {
    let status = lookup_int(ad, "JobStatus")?;
    Some(status_text(ad, status, false, 0))
}

/// The two ST characters; `cooldown_now` > 0 marks jobs in cool-down with `c` (condor_q's
/// own renderer does, the global one does not).
pub fn status_text(ad: &ClassAd, status: i64, cooldown: bool, now: i64) -> String {
    let mut st = [status_letter(status), ' '];
    let flag = |name| lookup_bool(ad, name).unwrap_or(false);
    let queued = flag("TransferQueued");
    if flag("TransferringInput") {
        st = ['<', if queued { 'q' } else { ' ' }];
    }
    if flag("TransferringOutput") || status == 6 {
        st = [if queued { 'q' } else { ' ' }, '>'];
    }
    if cooldown && lookup_int(ad, "JobCoolDownExpiration").unwrap_or(0) > now {
        st[1] = 'c';
    }
    st.iter().collect()
}

/// `JOB_DESCRIPTION`: `(JobDescription)` when there is one, else the command's base name
/// and its arguments.
pub fn render_job_description(ad: &ClassAd, _: &RenderEnv) -> Option<String> {
    let cmd = lookup_str(ad, "Cmd")?;
    let description = lookup_str(ad, "MATCH_EXP_JobDescription")
        .or_else(|| lookup_str(ad, "JobDescription"))
        .filter(|d| !d.is_empty());
    if let Some(d) = description {
        return Some(format!("({d})"));
    }
    let mut out = basename(&cmd).to_owned();
    let args = lookup_str(ad, "Arguments").or_else(|| lookup_str(ad, "Args"));
    if let Some(args) = args.filter(|a| !a.is_empty()) {
        out.push(' ');
        out.push_str(&args);
    }
    Some(out)
}

/// `condor_basename`: what follows the last `/`.
pub fn basename(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// `MEMORY_USAGE`: `MemoryUsage` in MB, else `ImageSize` (KB) in MB.
pub fn render_memory_usage(ad: &ClassAd, _: &RenderEnv) -> Option<f64> {
    if let Some(m) = lookup_int(ad, "MemoryUsage") {
        return Some(m as f64);
    }
    lookup_int(ad, "ImageSize").map(|kb| kb as f64 / 1024.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classad::parse_ad;

    #[test]
    fn job_description() {
        let env = RenderEnv::default();
        let ad = parse_ad(r#"[ Cmd = "/bin/sleep"; Arguments = "300" ]"#).unwrap();
        assert_eq!(render_job_description(&ad, &env).unwrap(), "sleep 300");
        let ad = parse_ad(r#"[ Cmd = "/bin/sleep"; Args = ""; JobDescription = "nap" ]"#).unwrap();
        assert_eq!(render_job_description(&ad, &env).unwrap(), "(nap)");
        let ad = parse_ad(r#"[ Cmd = "x" ]"#).unwrap();
        assert_eq!(render_job_description(&ad, &env).unwrap(), "x");
    }

    #[test]
    fn status_marks() {
        let ad = parse_ad("[ TransferringOutput = true; TransferQueued = true ]").unwrap();
        assert_eq!(status_text(&ad, 2, false, 0), "q>");
        let ad = parse_ad("[ JobCoolDownExpiration = 100 ]").unwrap();
        assert_eq!(status_text(&ad, 1, true, 50), "Ic");
        assert_eq!(status_text(&ad, 1, false, 50), "I ");
        assert_eq!(universe_name(5), "Vanilla");
        assert_eq!(universe_name(99), "Unknown");
    }
}
