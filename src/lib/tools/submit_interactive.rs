//! `condor_submit -interactive`: the job HTCondor's `-interactive` queues (submit.cpp:
//! `MY.InteractiveJob = True`, the default description `$(LIBEXEC)/interactive.sub`, or the
//! user's with its command replaced by `INTERACTIVE_SUBMIT_CMD_OVERRIDE` and
//! `INTERACTIVE_SUBMIT_ARGS_OVERRIDE`), then `condor_ssh_to_job -auto-retry
//! -remove-on-interrupt` into it ([`super::ssh_to_job::connect`]): wait for the job to run,
//! then run the user's shell on this terminal in the job's directory with the job's
//! environment. While the shell runs, the job's own command stays alive (the session
//! directory `.condor_ssh_to_job_1` it waits on is there); when the shell exits, the job is
//! removed and condor_submit exits with the shell's status.

use std::io::Write;

use super::ssh_to_job::Request;
use crate::client::Session;
use crate::error::CommandError;
use crate::queue::JobId;

/// HTCondor's `src/condor_examples/interactive.sub`, the job `-interactive` queues when no
/// submit file is given and `INTERACTIVE_SUBMIT_FILE` names no file (condorlite installs
/// none).
pub const INTERACTIVE_SUB: &str = "\
universe = vanilla
executable = /bin/sh
arguments = \"-c 'sleep 180 && while test -d ${_CONDOR_SCRATCH_DIR}/.condor_ssh_to_job_1; do /bin/sleep 3; done'\"
environment = \"TMOUT=7200\"
transfer_executable = false
notification = never
priority = 1000
request_memory = 512m
queue
";

fn remove_job(id: JobId) {
    let _ = super::rm::RM.execute(
        ["condor_rm".to_owned(), id.to_string()],
        &mut Vec::new(),
        &mut Vec::new(),
    );
}

/// After the job of `cluster` was queued: the session (see the module documentation).
pub fn session(
    session: &Session,
    cluster: i64,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<(), CommandError> {
    let id = JobId::new(cluster as i32, 0);
    let config = &session.config;
    if !crate::client::master::is_running(config) {
        remove_job(id);
        let _ = writeln!(
            err,
            "ERROR: job {id} cannot start: -interactive needs the pool's condor_master (the job was removed)\n{}",
            crate::client::master::start_hint(config)
        );
        return Err(CommandError::Exit(1));
    }
    let _ = out.flush();
    let request = Request {
        auto_retry: true,
        remove_on_interrupt: true,
        ..Request::shell(id)
    };
    let status = super::ssh_to_job::connect(session, &request, out, err);
    super::set_wait_signals(nix::sys::signal::SigHandler::SigDfl);
    remove_job(id);
    match status? {
        0 => Ok(()),
        code => Err(CommandError::Exit(code)),
    }
}
