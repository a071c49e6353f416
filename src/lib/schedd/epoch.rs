//! The job epoch history: at the end of every run of a job (it exited, was evicted, held or
//! removed while running), its ad as the shadow has it then, appended to `JOB_EPOCH_HISTORY`
//! (`$(SPOOL)/epoch_history`), as HTCondor 24.0's shadow does (`writeJobEpochFile`,
//! src/condor_utils/job_ad_instance_recording.cpp): the ad's `Name = value` lines,
//! `JobEpochWriteDate`, then the banner
//! `*** EPOCH ClusterId=C ProcId=P RunInstanceId=N Owner="o" CurrentTime=T`, where the run
//! instance is `NumShadowStarts - 1`. `condor_history -epochs` reads it.
//!
//! The file is bounded as HTCondor bounds it: before an append that would take it past
//! `MAX_EPOCH_HISTORY_LOG` bytes (20 MiB), it is renamed `<file>.<YYYYMMDDTHHMMSS>` and only
//! the newest `MAX_EPOCH_HISTORY_ROTATIONS` (2) renamed copies are kept. An empty
//! `JOB_EPOCH_HISTORY` turns the recording off. (`JOB_EPOCH_HISTORY_DIR`'s per-job files are
//! not written.)

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::classad::ClassAd;
use crate::config::Config;
use crate::output::ads::{select, write_long, Selection};
use crate::output::render::{lookup_int, lookup_str};

/// The epoch ad's text: the ad, `JobEpochWriteDate`, the banner; `None` when the ad lacks
/// what the banner needs (`ClusterId`, `ProcId`, `NumShadowStarts` of at least 1), as the
/// shadow then writes nothing.
pub fn epoch_record(ad: &ClassAd, now: i64) -> Option<String> {
    let cluster = lookup_int(ad, "ClusterId").filter(|c| *c >= 0)?;
    let proc = lookup_int(ad, "ProcId").filter(|p| *p >= 0)?;
    let run = lookup_int(ad, "NumShadowStarts")? - 1;
    if run < 0 {
        return None;
    }
    let owner = lookup_str(ad, "Owner").map_or_else(|| "?".to_owned(), |o| o.to_string());
    let sel = Selection {
        only: None,
        sorted: false,
        exclude_private: false,
    };
    let mut text = String::new();
    write_long(&mut text, &select(ad, &sel));
    text.push_str(&format!("JobEpochWriteDate = {now}\n"));
    text.push_str(&format!(
        "*** EPOCH ClusterId={cluster} ProcId={proc} RunInstanceId={run} Owner=\"{owner}\" \
         CurrentTime={now}\n"
    ));
    Some(text)
}

/// Where epoch ads go, and the file's bounds.
#[derive(Clone, Debug)]
pub struct EpochHistory {
    pub path: PathBuf,
    pub max_bytes: u64,
    pub rotations: usize,
}

impl EpochHistory {
    /// `JOB_EPOCH_HISTORY`, `MAX_EPOCH_HISTORY_LOG`, `MAX_EPOCH_HISTORY_ROTATIONS`; `None` when
    /// the file is not configured.
    pub fn from_config(config: &Config) -> Option<EpochHistory> {
        let path = config
            .string("JOB_EPOCH_HISTORY")
            .ok()
            .flatten()
            .filter(|p| !p.trim().is_empty())?;
        let max_bytes = config
            .int("MAX_EPOCH_HISTORY_LOG")
            .ok()
            .flatten()
            .unwrap_or(20 << 20)
            .max(0) as u64;
        let rotations = config
            .int("MAX_EPOCH_HISTORY_ROTATIONS")
            .ok()
            .flatten()
            .unwrap_or(2)
            .max(1) as usize;
        Some(EpochHistory {
            path: PathBuf::from(path),
            max_bytes,
            rotations,
        })
    }

    /// Appends the job's epoch ad (see [`epoch_record`]), rotating the file first when it
    /// would grow past its bound.
    pub fn append(&self, ad: &ClassAd, now: i64) -> io::Result<()> {
        let Some(text) = epoch_record(ad, now) else {
            return Ok(());
        };
        let size = std::fs::metadata(&self.path).map_or(0, |m| m.len());
        if size > 0 && size + text.len() as u64 > self.max_bytes {
            self.rotate(now)?;
        }
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)?;
        // One write: other writers' records never interleave with it.
        file.write_all(text.as_bytes())
    }

    /// Renames the file `<file>.<time>` and drops the oldest renamed copies beyond the
    /// number kept.
    fn rotate(&self, now: i64) -> io::Result<()> {
        let stamp = chrono::DateTime::from_timestamp(now, 0)
            .unwrap_or_default()
            .with_timezone(&chrono::Local)
            .format("%Y%m%dT%H%M%S");
        let rotated = PathBuf::from(format!("{}.{stamp}", self.path.display()));
        if rotated.exists() {
            // Rotated once already this second: the file grows past its bound until the
            // next second rather than replace that copy.
            return Ok(());
        }
        std::fs::rename(&self.path, rotated)?;
        let mut old = rotated_copies(&self.path);
        old.sort();
        while old.len() > self.rotations {
            let _ = std::fs::remove_file(old.remove(0));
        }
        Ok(())
    }
}

/// The renamed copies of `path` (`<name>.` and 14 digits around a `T`), by name.
fn rotated_copies(path: &Path) -> Vec<PathBuf> {
    let (Some(dir), Some(base)) = (path.parent(), path.file_name().and_then(|b| b.to_str())) else {
        return Vec::new();
    };
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_str()
                .and_then(|n| n.strip_prefix(base))
                .and_then(|rest| rest.strip_prefix('.'))
                .is_some_and(|s| {
                    s.len() == 15
                        && s.as_bytes()[8] == b'T'
                        && s.chars().filter(char::is_ascii_digit).count() == 14
                })
        })
        .map(|e| e.path())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ad(text: &str) -> ClassAd {
        crate::classad::parse_ad(text).expect("a valid ad")
    }

    #[test]
    fn the_record_is_the_ad_its_write_date_and_the_banner() {
        let a = ad(r#"[ClusterId = 7; ProcId = 2; Owner = "alice"; NumShadowStarts = 3]"#);
        assert_eq!(
            epoch_record(&a, 1_706_702_400).as_deref(),
            Some(
                "ClusterId = 7\nProcId = 2\nOwner = \"alice\"\nNumShadowStarts = 3\n\
                 JobEpochWriteDate = 1706702400\n\
                 *** EPOCH ClusterId=7 ProcId=2 RunInstanceId=2 Owner=\"alice\" \
                 CurrentTime=1706702400\n"
            )
        );
        // No run started: nothing is written, as the shadow writes nothing.
        let a = ad(r#"[ClusterId = 7; ProcId = 2; NumShadowStarts = 0]"#);
        assert_eq!(epoch_record(&a, 0), None);
    }

    #[test]
    fn the_file_is_rotated_and_its_copies_bounded() {
        let dir = tempfile::tempdir().unwrap();
        let h = EpochHistory {
            path: dir.path().join("epoch_history"),
            max_bytes: 200,
            rotations: 2,
        };
        let a = ad(r#"[ClusterId = 1; ProcId = 0; Owner = "alice"; NumShadowStarts = 1]"#);
        for t in 0..6 {
            h.append(&a, 1_706_702_400 + t * 3600).unwrap();
        }
        let copies = rotated_copies(&h.path);
        assert_eq!(copies.len(), 2, "{copies:?}");
        let size = std::fs::metadata(&h.path).unwrap().len();
        assert!(size <= 200, "{size}");
    }

    #[test]
    fn a_second_rotation_in_the_same_second_keeps_the_first_copy() {
        let dir = tempfile::tempdir().unwrap();
        let h = EpochHistory {
            path: dir.path().join("epoch_history"),
            max_bytes: 200,
            rotations: 5,
        };
        let a = ad(r#"[ClusterId = 1; ProcId = 0; Owner = "alice"; NumShadowStarts = 1]"#);
        for _ in 0..6 {
            h.append(&a, 1_706_702_400).unwrap();
        }
        let copies = rotated_copies(&h.path);
        assert_eq!(copies.len(), 1, "{copies:?}");
        let records = |p: &Path| {
            std::fs::read_to_string(p)
                .unwrap()
                .matches("*** EPOCH")
                .count()
        };
        // Nothing was lost to a rename over the first copy.
        assert_eq!(records(&copies[0]) + records(&h.path), 6);
    }
}
