//! Small readings HTCondor's submit code shares: sizes with units (`parse_int64_bytes`),
//! signal names, universe names, file-transfer keywords, names of submitters and
//! concurrency limits.

/// `parse_int64_bytes`: a number with an optional fraction and an optional unit (`K`, `M`,
/// `G`, `T`, optionally followed by `B`), scaled to units of `base` bytes and rounded up. A bare
/// number is already in units of `base`. Returns the value and the unit letter (0 for none), or
/// `None` when the text is not such a number.
pub fn parse_int64_bytes(input: &str, base: i64) -> Option<(i64, u8)> {
    let b = input.as_bytes();
    let mut i = 0;
    while i < b.len() && is_c_space(b[i]) {
        i += 1;
    }
    let start = i;
    // strtol
    let mut p = i;
    let neg = match b.get(p) {
        Some(b'-') => {
            p += 1;
            true
        }
        Some(b'+') => {
            p += 1;
            false
        }
        _ => false,
    };
    let digits = p;
    let mut val: i64 = 0;
    while p < b.len() && b[p].is_ascii_digit() {
        val = val
            .saturating_mul(10)
            .saturating_add(i64::from(b[p] - b'0'));
        p += 1;
    }
    if p == digits {
        // strtol consumed nothing: the end pointer is the start of the text.
        p = start;
    }
    if neg {
        val = -val;
    }
    let mut fract = 0.0f64;
    if b.get(p) == Some(&b'.') {
        p += 1;
        for scale in [10.0, 100.0, 1000.0] {
            if p < b.len() && b[p].is_ascii_digit() {
                fract += f64::from(b[p] - b'0') / scale;
                p += 1;
            } else {
                break;
            }
        }
        while p < b.len() && b[p].is_ascii_digit() {
            p += 1;
        }
    }
    if p == start {
        return None;
    }
    while p < b.len() && is_c_space(b[p]) {
        p += 1;
    }
    let unit = b.get(p).copied().unwrap_or(0);
    let mult: i64 = match unit {
        0 => base,
        b'k' | b'K' => 1024,
        b'm' | b'M' => 1024 * 1024,
        b'g' | b'G' => 1024 * 1024 * 1024,
        b't' | b'T' => 1024 * 1024 * 1024 * 1024,
        _ => return None,
    };
    let value = (((val as f64) + fract) * mult as f64 + (base - 1) as f64) as i64 / base;
    if unit == 0 || p + 1 >= b.len() {
        return Some((value, unit));
    }
    let mut q = p + 1;
    if matches!(b[q], b'b' | b'B') {
        q += 1;
    }
    while q < b.len() && is_c_space(b[q]) {
        q += 1;
    }
    (q == b.len()).then_some((value, unit))
}

/// Signal names HTCondor knows on Linux, with their numbers (`sig_name.cpp`).
const SIGNALS: [(&str, i32); 28] = [
    ("SIGKILL", 9),
    ("SIGCONT", 18),
    ("SIGTERM", 15),
    ("SIGQUIT", 3),
    ("SIGHUP", 1),
    ("SIGSTOP", 19),
    ("SIGTSTP", 20),
    ("SIGUSR1", 10),
    ("SIGUSR2", 12),
    ("SIGCHLD", 17),
    ("SIGABRT", 6),
    ("SIGALRM", 14),
    ("SIGFPE", 8),
    ("SIGILL", 4),
    ("SIGINT", 2),
    ("SIGPIPE", 13),
    ("SIGSEGV", 11),
    ("SIGTRAP", 5),
    ("SIGTTIN", 21),
    ("SIGTTOU", 22),
    ("SIGFPE", 8),
    ("SIGIO", 29),
    ("SIGBUS", 7),
    ("SIGURG", 23),
    ("SIGPROF", 27),
    ("SIGWINCH", 28),
    ("SIGSYS", 31),
    ("SIGXCPU", 24),
];

pub fn signal_number(name: &str) -> Option<i32> {
    SIGNALS
        .iter()
        .chain([("SIGXFSZ", 25)].iter())
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|&(_, v)| v)
}

pub fn signal_name(num: i32) -> Option<&'static str> {
    SIGNALS
        .iter()
        .chain([("SIGXFSZ", 25)].iter())
        .find(|(_, v)| *v == num)
        .map(|&(n, _)| n)
}

/// C's `atoi`, widened (the one copy: [`crate::classad::cnum::atoi`]).
pub fn atoi(s: &str) -> i64 {
    i64::from(crate::classad::cnum::atoi(s))
}

pub use crate::classad::cnum::is_c_space;

/// Universe numbers (condor_universe.h).
pub use crate::queue::universe;

const UNIVERSES: [(&str, i64); 13] = [
    ("GRID", universe::GRID),
    ("JAVA", universe::JAVA),
    ("LINDA", 3),
    ("LOCAL", universe::LOCAL),
    ("MPI", universe::MPI),
    ("PARALLEL", universe::PARALLEL),
    ("PIPE", 2),
    ("PVM", 4),
    ("PVMD", 6),
    ("SCHEDULER", universe::SCHEDULER),
    ("STANDARD", universe::STANDARD),
    ("VANILLA", universe::VANILLA),
    ("VM", universe::VM),
];

/// `CondorUniverseNumberEx`: a universe name (any case) or number; 0 when unknown.
pub fn universe_number(name: &str) -> i64 {
    let n = atoi(name);
    if n != 0 {
        return n;
    }
    UNIVERSES
        .iter()
        .find(|(u, _)| u.eq_ignore_ascii_case(name))
        .map_or(0, |&(_, v)| v)
}

/// `CondorUniverseNameUcFirst`.
pub fn universe_name_ucfirst(u: i64) -> &'static str {
    match u {
        1 => "Standard",
        2 => "Pipe",
        3 => "Linda",
        4 => "PVM",
        5 => "Vanilla",
        6 => "PVMD",
        7 => "Scheduler",
        8 => "MPI",
        9 => "Grid",
        10 => "Java",
        11 => "Parallel",
        12 => "Local",
        13 => "VM",
        _ => "Unknown",
    }
}

/// `universeCanReconnect`.
pub fn universe_can_reconnect(u: i64) -> bool {
    matches!(
        u,
        universe::VANILLA | universe::JAVA | universe::PARALLEL | universe::VM
    )
}

/// `mightTransfer`.
pub fn might_transfer(u: i64) -> bool {
    matches!(
        u,
        universe::VANILLA | universe::MPI | universe::PARALLEL | universe::JAVA | universe::VM
    )
}

/// `should_transfer_files` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShouldTransfer {
    Yes,
    No,
    IfNeeded,
}

impl ShouldTransfer {
    pub fn parse(s: &str) -> Option<ShouldTransfer> {
        if s.eq_ignore_ascii_case("YES") || s.eq_ignore_ascii_case("TRUE") {
            Some(ShouldTransfer::Yes)
        } else if s.eq_ignore_ascii_case("NO") || s.eq_ignore_ascii_case("FALSE") {
            Some(ShouldTransfer::No)
        } else if s.eq_ignore_ascii_case("IF_NEEDED") {
            Some(ShouldTransfer::IfNeeded)
        } else {
            None
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ShouldTransfer::Yes => "YES",
            ShouldTransfer::No => "NO",
            ShouldTransfer::IfNeeded => "IF_NEEDED",
        }
    }
}

/// `when_to_transfer_output` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WhenTransfer {
    None,
    OnExit,
    OnExitOrEvict,
    OnSuccess,
}

impl WhenTransfer {
    pub fn parse(s: &str) -> Option<WhenTransfer> {
        if s.eq_ignore_ascii_case("ON_EXIT") {
            Some(WhenTransfer::OnExit)
        } else if s.eq_ignore_ascii_case("ON_EXIT_OR_EVICT") {
            Some(WhenTransfer::OnExitOrEvict)
        } else if s.eq_ignore_ascii_case("NEVER") {
            Some(WhenTransfer::None)
        } else if s.eq_ignore_ascii_case("ON_SUCCESS") {
            Some(WhenTransfer::OnSuccess)
        } else {
            None
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            WhenTransfer::None => "NEVER",
            WhenTransfer::OnExit => "ON_EXIT",
            WhenTransfer::OnExitOrEvict => "ON_EXIT_OR_EVICT",
            WhenTransfer::OnSuccess => "ON_SUCCESS",
        }
    }
}

/// `IsValidSubmitterName`: no whitespace.
pub fn is_valid_submitter_name(name: &str) -> bool {
    !name.bytes().any(is_c_space)
}

/// `IsValidAttrName`: a letter or `_`, then letters, digits and `_`.
pub fn is_valid_attr_name(name: &str) -> bool {
    let b = name.as_bytes();
    match b.first() {
        Some(c) if c.is_ascii_alphabetic() || *c == b'_' => {}
        _ => return false,
    }
    b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_')
}

/// `ParseConcurrencyLimit`: `name[.sub][:increment]`.
pub fn is_valid_concurrency_limit(limit: &str) -> bool {
    let name = limit.split_once(':').map_or(limit, |(n, _)| n);
    match name.split_once('.') {
        Some((a, b)) => is_valid_attr_name(a) && is_valid_attr_name(b),
        None => is_valid_attr_name(name),
    }
}

/// `condor_basename`: the part after the last `/` or `\`.
pub fn basename(path: &str) -> &str {
    match path.rfind(['/', '\\']) {
        Some(i) => &path[i + 1..],
        None => path,
    }
}

/// `compress_path`: runs of path separators become one.
pub fn compress_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    let mut prev_sep = false;
    for c in path.chars() {
        let sep = c == '/' || c == '\\';
        if sep && prev_sep {
            continue;
        }
        prev_sep = sep;
        out.push(c);
    }
    out
}

/// `IsUrl`: `scheme://...` with a scheme of letters, digits, `+`, `-` or `.`.
pub fn is_url(s: &str) -> bool {
    match s.find("://") {
        Some(i) if i > 0 => s[..i]
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'-' | b'.')),
        _ => false,
    }
}

/// `getURLType(url, true)`: the scheme, lower-cased.
pub fn url_type(s: &str) -> String {
    s.split_once("://")
        .map_or(String::new(), |(scheme, _)| scheme.to_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        let mb = 1024 * 1024;
        for (text, want) in [
            ("100", 100),
            ("2048K", 2),
            ("2049K", 3),
            ("1M", 1),
            ("1.5G", 1536),
            ("2g", 2048),
            ("1T", 1_048_576),
            ("512MB", 512),
            ("10KB", 1),
            ("0.5", 1),
            ("1.1", 2),
            ("3 G", 3072),
        ] {
            assert_eq!(
                parse_int64_bytes(text, mb).map(|v| v.0),
                Some(want),
                "{text}"
            );
        }
        for bad in ["7b", "1X", "2 + 2", "MY.x", "", "10 ZB"] {
            assert_eq!(parse_int64_bytes(bad, mb), None, "{bad}");
        }
        assert_eq!(parse_int64_bytes("1.5M", 1024).map(|v| v.0), Some(1536));
    }

    #[test]
    fn names() {
        assert_eq!(signal_number("sigint"), Some(2));
        assert_eq!(signal_name(9), Some("SIGKILL"));
        assert_eq!(signal_number("TERM"), None);
        assert_eq!(universe_number("VANILLA"), 5);
        assert_eq!(universe_number("bogus"), 0);
        assert!(is_valid_concurrency_limit("db.write:0.5"));
        assert!(!is_valid_concurrency_limit("a-b"));
    }
}
