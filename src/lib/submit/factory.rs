//! Late materialization, the submit side: whether a description asks for a job factory
//! (`max_materialize`, `max_idle`/`materialize_max_idle`, or condor_submit's `-factory`, as
//! HTCondor's `SubmitHash::want_factory_submit` decides), and the factory's submit digest.
//!
//! HTCondor's digest is the submit hash written out as a description, with the queue
//! statement's items in a file of their own. condorlite's is everything its submit code
//! needs to make any job of the cluster again, byte for byte as a non-factory submit would
//! have made it: the description's text and name, the submit's directory, environment,
//! owner, time and command line, and the queue statement's loop variables and item rows as
//! the submit loaded them ([`super::PresetItems`]: a file of items, a command's output or a
//! glob is read once, at submit). The schedd parses it again ([`Digest::file`]) with its own
//! configuration, and makes proc `N` without making procs `1..N` ([`super::Jobs::skip_to`]).

use std::path::PathBuf;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::{CommandLine, PresetItems, SubmitContext, SubmitError, SubmitFile};
use crate::config::{Config, Environment};

/// What the submit of a job factory stores for the schedd.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Digest {
    pub text: String,
    pub file_name: String,
    pub cwd: PathBuf,
    pub env: Vec<(String, String)>,
    pub owner: String,
    pub qdate: i64,
    /// The submitter's time zone offset at `qdate` (for `$(Year)`, `$(Month)`, `$(Day)`).
    pub utc_offset: i32,
    pub submit_method: i64,
    pub remote: bool,
    pub assignments: Vec<(String, String)>,
    pub append: Vec<String>,
    pub queue: Option<String>,
    pub batch_name: Option<String>,
    pub items: PresetItems,
}

impl Digest {
    /// The digest of `file`, parsed from `text` (named `file_name`) in `ctx`.
    pub fn of(text: &str, file_name: &str, ctx: &SubmitContext<'_>, file: &SubmitFile) -> Digest {
        let items = file
            .statements()
            .first()
            .map(|st| PresetItems {
                vars: st.args.vars.clone(),
                items: st.args.items.clone(),
            })
            .unwrap_or_default();
        let utc_offset = ctx.utc_offset.unwrap_or_else(|| {
            use chrono::{Offset, TimeZone};
            chrono::Local
                .timestamp_opt(ctx.qdate, 0)
                .single()
                .map_or(0, |d| d.offset().fix().local_minus_utc())
        });
        Digest {
            text: text.to_owned(),
            file_name: file_name.to_owned(),
            cwd: ctx.cwd.clone(),
            env: ctx
                .env
                .iter()
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
                .collect(),
            owner: ctx.owner.clone(),
            qdate: ctx.qdate,
            utc_offset,
            submit_method: ctx.submit_method,
            remote: ctx.remote,
            assignments: ctx.command_line.assignments.clone(),
            append: ctx.command_line.append.clone(),
            queue: ctx.command_line.queue.clone(),
            batch_name: ctx.command_line.batch_name.clone(),
            items,
        }
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a digest is plain data")
    }

    pub fn from_json(text: &str) -> Result<Digest, String> {
        serde_json::from_str(text).map_err(|e| format!("the submit digest is damaged: {e}"))
    }

    /// The submit context the digest was made in, with the schedd's configuration.
    pub fn context<'c>(&self, config: &'c Config) -> SubmitContext<'c> {
        SubmitContext {
            config,
            cwd: self.cwd.clone(),
            env: Environment::from_pairs(self.env.iter().cloned()),
            owner: self.owner.clone(),
            qdate: self.qdate,
            utc_offset: Some(self.utc_offset),
            submit_method: self.submit_method,
            remote: self.remote,
            command_line: CommandLine {
                assignments: self.assignments.clone(),
                append: self.append.clone(),
                queue: self.queue.clone(),
                batch_name: self.batch_name.clone(),
            },
            preset_items: Some(Arc::new(self.items.clone())),
            run_commands: true,
        }
    }

    /// The description parsed again, ready to make the factory's jobs.
    pub fn file(&self, config: &Config) -> Result<SubmitFile, SubmitError> {
        SubmitFile::parse(&self.text, &self.file_name, &self.context(config))
    }
}

impl SubmitFile {
    /// Whether the description asks for late materialization (HTCondor's
    /// `want_factory_submit`): `Some(max_materialize)` when `max_materialize` (or
    /// `JobMaterializeLimit`) is set, `Some(i32::MAX)` when only `max_idle` (or
    /// `materialize_max_idle`, `JobMaterializeMaxIdle`) is, as the first queue statement
    /// sees them.
    pub fn want_factory_submit(&self) -> Result<Option<i64>, SubmitError> {
        let Some(st) = self.statements().first() else {
            return Ok(None);
        };
        let value = |names: &[&str]| -> Result<Option<i64>, SubmitError> {
            let live = super::hash::Live::default();
            let scope = super::hash::Scope::new(
                &st.hash,
                &self.setup.predefined,
                &live,
                &self.setup.env,
                None,
            );
            let Some((name, raw)) = names
                .iter()
                .find_map(|n| scope.lookup_raw(n).map(|r| (*n, r)))
            else {
                return Ok(None);
            };
            let expanded = crate::config::expand::Expander::new(&scope)
                .expand(raw)
                .map_err(|e| SubmitError::Abort {
                    message: e.0,
                    place: super::AbortPlace::Reading { line: st.line },
                })?;
            let expanded = expanded.trim();
            if expanded.is_empty() {
                return Ok(None);
            }
            let n = expanded.parse::<i64>().ok().or_else(|| {
                crate::classad::parser::parse_expr(expanded)
                    .ok()
                    .and_then(|e| crate::classad::ClassAd::new().eval_expr(&e, None).as_int())
            });
            match n {
                Some(n) => Ok(Some(n)),
                None => Err(SubmitError::Abort {
                    message: format!("{name}={expanded} is invalid, must eval to an integer."),
                    place: super::AbortPlace::Reading { line: st.line },
                }),
            }
        };
        if let Some(n) = value(&["max_materialize", "JobMaterializeLimit"])? {
            return Ok(Some(n));
        }
        if value(&["max_idle", "JobMaterializeMaxIdle"])?.is_some()
            || value(&["materialize_max_idle"])?.is_some()
        {
            return Ok(Some(i64::from(i32::MAX)));
        }
        Ok(None)
    }

    /// The line of the first thing after the first queue statement that is not blank or a
    /// comment (a factory's description must end at its queue statement), if any.
    pub fn extra_data_line(&self, text: &str) -> Option<u32> {
        let st = self.statements().first()?;
        if st.from_command_line || st.line == 0 {
            return None;
        }
        let mut lines = text.lines().enumerate().skip(st.line as usize);
        if st.args.items_filename == "<" {
            for (_, l) in lines.by_ref() {
                if l.trim_start().starts_with(')') {
                    break;
                }
            }
        }
        lines
            .find(|(_, l)| {
                let t = l.trim();
                !t.is_empty() && !t.starts_with('#')
            })
            .map(|(i, _)| i as u32 + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx(config: &Config) -> SubmitContext<'_> {
        SubmitContext {
            config,
            cwd: std::env::temp_dir(),
            env: Environment::from_pairs([("HOME", "/home/a")]),
            owner: "alice".into(),
            qdate: 1_700_000_000,
            utc_offset: Some(0),
            submit_method: 0,
            remote: false,
            command_line: CommandLine::default(),
            preset_items: None,
            run_commands: true,
        }
    }

    const TEXT: &str = "executable = /bin/echo\narguments = $(Process) $(x) $(Step) $(ENV(HOME))\n\
                        max_idle = 4\nqueue 2 x from (\n  a\n  b\n  c\n)\n";

    #[test]
    fn any_job_of_a_digest_is_the_job_the_submit_makes() {
        let dir = tempfile::tempdir().unwrap();
        let config = Config::for_test("", "SUBMIT", None, dir.path());
        let ctx = ctx(&config);
        let file = SubmitFile::parse(TEXT, "f.sub", &ctx).unwrap();
        assert_eq!(
            file.want_factory_submit().unwrap(),
            Some(i64::from(i32::MAX))
        );
        let all: Vec<String> = file
            .jobs(7)
            .map(|j| format!("{:?}", j.unwrap().flat_ad()))
            .collect();
        assert_eq!(all.len(), 6);
        // Through JSON, parsed again elsewhere, each job made without those before it.
        let digest = Digest::from_json(&Digest::of(TEXT, "f.sub", &ctx, &file).to_json()).unwrap();
        let other = tempfile::tempdir().unwrap();
        let schedd = Config::for_test("", "SCHEDD", None, other.path());
        let again = digest.file(&schedd).unwrap();
        for (n, expected) in all.iter().enumerate() {
            let mut jobs = again.jobs(7);
            let first = jobs.next().unwrap().unwrap();
            let job = if n == 0 {
                first
            } else {
                jobs.skip_to(n as i64);
                jobs.next().unwrap().unwrap()
            };
            assert_eq!(job.proc_id, n as i64);
            let ad = format!("{:?}", job.flat_ad());
            assert_eq!(&ad, expected, "job {n}");
        }
    }

    #[test]
    fn the_factory_keywords() {
        let dir = tempfile::tempdir().unwrap();
        let config = Config::for_test("", "SUBMIT", None, dir.path());
        let ctx = ctx(&config);
        let want = |text: &str| {
            SubmitFile::parse(text, "f.sub", &ctx)
                .unwrap()
                .want_factory_submit()
                .map_err(|e| e.condor_submit_text())
        };
        assert_eq!(want("executable = /bin/true\nqueue 3\n"), Ok(None));
        assert_eq!(
            want("executable = /bin/true\nmax_materialize = 2 + 3\nqueue\n"),
            Ok(Some(5))
        );
        assert_eq!(
            want(
                "executable = /bin/true\nN = 7\nJobMaterializeLimit = $(N)\nmax_idle = 1\nqueue\n"
            ),
            Ok(Some(7))
        );
        assert_eq!(
            want("executable = /bin/true\nmaterialize_max_idle = 1\nqueue\n"),
            Ok(Some(i64::from(i32::MAX)))
        );
        assert_eq!(
            want("executable = /bin/true\nmax_materialize = lots\nqueue\n"),
            Err("ERROR on Line 3 of submit file: max_materialize=lots is invalid, must eval to an integer.\n".into())
        );
    }
}
