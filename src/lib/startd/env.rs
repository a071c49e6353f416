//! The environment a slot's resources give a job, as HTCondor's starter sets it from the slot
//! ad (`Starter::PublishToEnv`, src/condor_starter.V6.1/starter.cpp):
//!
//! - `_CONDOR_Assigned<Res>` for every resource with assigned instances (or with an
//!   `ENVIRONMENT_FOR_Assigned<Res>` knob, then `ENVIRONMENT_VALUE_FOR_UnAssigned<Res>` when
//!   none are assigned);
//! - the variables `ENVIRONMENT_FOR_Assigned<Res>` names: `NAME` alone takes the ids (digits
//!   and commas only for `CUDA_VISIBLE_DEVICES` and `GPU_DEVICE_ORDINAL`), `NAME=/re/repl/`
//!   rewrites each id (the default for GPUs gives `CUDA_VISIBLE_DEVICES=0,1` for
//!   `CUDA0, CUDA1`);
//! - for GPUs, `NVIDIA_VISIBLE_DEVICES` (and `CUDA_VISIBLE_DEVICES`) from the assigned GPUs'
//!   UUIDs, or `none`, unless `AUTO_SET_NVIDIA_VISIBLE_DEVICES` is false.

/// What the configuration says about one resource's environment.
#[derive(Clone, Debug, Default)]
pub struct ResourceEnv {
    /// The resource (`GPUs`).
    pub name: String,
    /// `ENVIRONMENT_FOR_Assigned<name>`.
    pub proto: Option<String>,
    /// `ENVIRONMENT_VALUE_FOR_UnAssigned<name>`.
    pub unassigned: Option<String>,
}

/// Sets `name` in `env`, replacing an earlier value.
pub fn set(env: &mut Vec<(String, String)>, name: &str, value: &str) {
    match env.iter_mut().find(|(n, _)| n == name) {
        Some(e) => e.1 = value.to_owned(),
        None => env.push((name.to_owned(), value.to_owned())),
    }
}

/// Digits and commas of `s` (HTCondor's special case for CUDA ids).
fn digits_and_commas(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_ascii_digit() || *c == ',')
        .collect()
}

/// Expands `$N` group references of a replacement.
fn substitute(repl: &str, caps: &regex::Captures<'_>) -> String {
    let mut out = String::new();
    let mut chars = repl.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '$' {
            if let Some(d) = chars.peek().and_then(|d| d.to_digit(10)) {
                chars.next();
                if let Some(m) = caps.get(d as usize) {
                    out.push_str(m.as_str());
                }
                continue;
            }
        }
        out.push(c);
    }
    out
}

/// Sets the variables one `ENVIRONMENT_FOR_Assigned<Res>` value describes
/// (`SetEnvironmentForAssignedRes`); returns a problem with the value, if any.
pub fn apply_proto(env: &mut Vec<(String, String)>, proto: &str, assigned: &str) -> Option<String> {
    let mut rest = proto;
    loop {
        rest = rest.trim_start();
        if rest.is_empty() {
            return None;
        }
        let Some(eq) = rest.find('=') else {
            // Just a name: the whole list goes in it.
            let name = rest.trim();
            let value = if name == "CUDA_VISIBLE_DEVICES" || name == "GPU_DEVICE_ORDINAL" {
                digits_and_commas(assigned)
            } else {
                assigned.to_owned()
            };
            set(env, name, &value);
            return None;
        };
        let name = rest[..eq].trim().to_owned();
        let spec = rest[eq + 1..].trim_start();
        let Some(sep) = spec.chars().next() else {
            return Some(format!("{name}: missing replacement"));
        };
        let body = &spec[sep.len_utf8()..];
        let Some(mid) = body.find(sep) else {
            return Some(format!("{name}: missing replacement end marker"));
        };
        let Some(end) = body[mid + sep.len_utf8()..]
            .find(sep)
            .map(|e| e + mid + sep.len_utf8())
        else {
            return Some(format!("{name}: missing replacement end marker"));
        };
        let pattern = &body[..mid];
        let repl = &body[mid + sep.len_utf8()..end];
        let re = match compiled(pattern) {
            Ok(re) => re,
            Err(e) => return Some(format!("{name}: bad pattern {pattern:?}: {e}")),
        };
        let value = if name == "CUDA_VISIBLE_DEVICES" && pattern.is_empty() {
            digits_and_commas(assigned)
        } else {
            assigned
                .split(|c: char| c == ',' || c.is_whitespace())
                .filter(|s| !s.is_empty())
                .map(|id| match re.captures(id) {
                    Some(caps) => {
                        let m = caps.get(0).map_or(0..0, |m| m.range());
                        format!(
                            "{}{}{}",
                            &id[..m.start],
                            substitute(repl, &caps),
                            &id[m.end..]
                        )
                    }
                    None => id.to_owned(),
                })
                .collect::<Vec<_>>()
                .join(",")
        };
        set(env, &name, &value);
        rest = &body[end + sep.len_utf8()..];
        rest = rest.strip_prefix(',').unwrap_or(rest);
    }
}

/// A pattern compiled once per thread: the same few patterns come with every job.
fn compiled(pattern: &str) -> Result<regex::Regex, regex::Error> {
    thread_local! {
        static CACHE: std::cell::RefCell<std::collections::HashMap<String, regex::Regex>> =
            Default::default();
    }
    CACHE.with(|c| {
        if let Some(re) = c.borrow().get(pattern) {
            return Ok(re.clone());
        }
        let re = regex::Regex::new(pattern)?;
        c.borrow_mut().insert(pattern.to_owned(), re.clone());
        Ok(re)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_gpu_proto() {
        let mut env = Vec::new();
        let proto = "GPU_DEVICE_ORDINAL=/(CUDA|OCL)//  CUDA_VISIBLE_DEVICES=/CUDA//";
        assert_eq!(apply_proto(&mut env, proto, "CUDA0,CUDA2"), None);
        assert_eq!(
            env,
            [
                ("GPU_DEVICE_ORDINAL".to_owned(), "0,2".to_owned()),
                ("CUDA_VISIBLE_DEVICES".to_owned(), "0,2".to_owned())
            ]
        );
        let mut env = Vec::new();
        apply_proto(&mut env, proto, "GPU-1a2b3c4d");
        assert_eq!(env[1].1, "GPU-1a2b3c4d");
        let mut env = Vec::new();
        apply_proto(&mut env, "X=/dev(\\d)/unit$1/", "dev3, dev4");
        assert_eq!(env[0].1, "unit3,unit4");
        let mut env = Vec::new();
        apply_proto(&mut env, "CUDA_VISIBLE_DEVICES", "CUDA1, CUDA3");
        assert_eq!(env[0].1, "1,3");
        let mut env = Vec::new();
        assert!(apply_proto(&mut env, "X=/a/b", "a").is_some());
    }
}
