//! How condor_watch_q names a log in a `-groupby log` row: Python's `os.path` rules
//! (`abspath`, `relpath`), `nice_path` (the shortest of the absolute path, `~/…` and `./…`)
//! and `abbreviate_path` (each directory cut to the prefix its siblings share, plus one
//! character).

/// `os.path.normpath` of an absolute path (`abspath` against the current directory).
pub fn abspath(path: &str) -> String {
    let joined = if path.starts_with('/') {
        path.to_owned()
    } else {
        let cwd = std::env::current_dir()
            .map(|d| d.display().to_string())
            .unwrap_or_else(|_| "/".to_owned());
        format!("{cwd}/{path}")
    };
    normalize(&joined)
}

/// Resolves `.`, `..` and repeated slashes of an absolute path, lexically.
fn normalize(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for c in path.split('/') {
        match c {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            c => parts.push(c),
        }
    }
    format!("/{}", parts.join("/"))
}

/// `os.path.relpath(path, start)`, both made absolute first.
fn relpath(path: &str, start: &str) -> String {
    let p = abspath(path);
    let s = abspath(start);
    let pc: Vec<&str> = p.split('/').filter(|c| !c.is_empty()).collect();
    let sc: Vec<&str> = s.split('/').filter(|c| !c.is_empty()).collect();
    let common = pc.iter().zip(&sc).take_while(|(a, b)| a == b).count();
    let mut rel: Vec<&str> = vec![".."; sc.len() - common];
    rel.extend(&pc[common..]);
    if rel.is_empty() {
        ".".to_owned()
    } else {
        rel.join("/")
    }
}

/// `os.path.expanduser("~")`: `$HOME`, else the user's home directory from the password file.
pub fn home_dir() -> String {
    match std::env::var("HOME") {
        Ok(h) => h,
        Err(_) => nix::unistd::User::from_uid(nix::unistd::getuid())
            .ok()
            .flatten()
            .map(|u| u.dir.display().to_string())
            .unwrap_or_else(|| "~".to_owned()),
    }
}

/// `os.path.join(a, b)` where `b` is relative.
fn join(a: &str, b: &str) -> String {
    if a.ends_with('/') {
        format!("{a}{b}")
    } else {
        format!("{a}/{b}")
    }
}

/// `nice_path`: the shortest of the absolute path, the path from the home directory (`~/…`) and
/// the path from the current directory (`./…`, unless it climbs out of it); the first of the
/// shortest.
pub fn nice_path(path: &str, home: &str, cwd: &str) -> String {
    let mut options = vec![abspath(path), join("~", &relpath(path, home))];
    let from_cwd = relpath(path, cwd);
    if !from_cwd.starts_with("../") {
        options.push(join(".", &from_cwd));
    }
    let mut best = options[0].clone();
    for o in options {
        if o.chars().count() < best.chars().count() {
            best = o;
        }
    }
    best
}

/// The longest prefix all the names share (`os.path.commonprefix`).
fn common_prefix(names: &[String]) -> usize {
    let Some(first) = names.first() else {
        return 0;
    };
    let mut len = first.chars().count();
    for n in &names[1..] {
        len = first
            .chars()
            .zip(n.chars())
            .take(len)
            .take_while(|(a, b)| a == b)
            .count();
    }
    len
}

/// `abbreviate_path`: each directory of the path cut to the prefix the entries of its parent
/// share plus one character (all of it when it is alone there); `~` and `.` stay, and so
/// does the file name. A directory that cannot be listed is left whole.
pub fn abbreviate_path(path: &str, home: &str) -> String {
    let components = split_all(path);
    let Some((file, dirs)) = components.split_last() else {
        return path.to_owned();
    };
    let mut so_far = String::new();
    let mut out: Vec<String> = Vec::new();
    for c in dirs {
        so_far = if so_far.is_empty() {
            c.clone()
        } else {
            join(&so_far, c)
        };
        if so_far == "~" || so_far.starts_with("~/") {
            so_far = format!("{home}{}", &so_far[1..]);
        }
        if c == "~" || c == "." {
            out.push(c.clone());
            continue;
        }
        let parent = match so_far.rfind('/') {
            Some(0) => "/".to_owned(),
            Some(i) => so_far[..i].to_owned(),
            None => ".".to_owned(),
        };
        let parent = if so_far == "/" {
            "/".to_owned()
        } else {
            parent
        };
        let names: Option<Vec<String>> = std::fs::read_dir(&parent).ok().map(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        });
        match names {
            Some(names) => {
                let common = if names.len() == 1 {
                    0
                } else {
                    common_prefix(&names)
                };
                out.push(c.chars().take(common + 1).collect());
            }
            None => out.push(c.clone()),
        }
    }
    out.push(file.clone());
    let mut joined = out[0].clone();
    for c in &out[1..] {
        joined = join(&joined, c);
    }
    joined
}

/// `split_all`: `/a/b/c` → `/`, `a`, `b`, `c`; `./a` → `.`, `a`.
fn split_all(path: &str) -> Vec<String> {
    let mut parts: Vec<String> = Vec::new();
    let rest = if let Some(r) = path.strip_prefix('/') {
        parts.push("/".to_owned());
        r
    } else {
        path
    };
    parts.extend(rest.split('/').filter(|c| !c.is_empty()).map(str::to_owned));
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_path_rules() {
        assert_eq!(normalize("/a//b/./c/../d/"), "/a/b/d");
        assert_eq!(relpath("/a/b/c.log", "/a/x"), "../b/c.log");
        assert_eq!(relpath("/a", "/a"), ".");
        assert_eq!(
            nice_path("/home/u/w/x.log", "/home/u", "/home/u/w"),
            "./x.log"
        );
        assert_eq!(nice_path("/home/u/w/x.log", "/home/u", "/tmp"), "~/w/x.log");
        assert_eq!(nice_path("/x.log", "/home/u", "/tmp"), "/x.log");
        assert_eq!(split_all("/a/b/c"), ["/", "a", "b", "c"]);
        assert_eq!(split_all("./a"), [".", "a"]);
    }

    #[test]
    fn directories_are_cut_to_a_unique_prefix() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().to_str().unwrap();
        std::fs::create_dir_all(format!("{d}/wizbang/sub")).unwrap();
        std::fs::create_dir_all(format!("{d}/wizard")).unwrap();
        std::fs::write(format!("{d}/wizbang/sub/events.log"), "").unwrap();
        // From the temporary directory, as `~`.
        assert_eq!(
            abbreviate_path("~/wizbang/sub/events.log", d),
            "~/wizb/s/events.log"
        );
    }
}
