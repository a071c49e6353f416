//! Control requests: signals, the socket's commands, on/off, reconfig, stopping, drains.

use super::*;

/// A `condor_drain` request as the startd takes it.
pub(super) fn drain_request(args: DrainArgs) -> Result<DrainRequest, String> {
    let schedule = match args.schedule.as_str() {
        "graceful" => DrainSchedule::Graceful,
        "quick" => DrainSchedule::Quick,
        "fast" => DrainSchedule::Fast,
        other => return Err(format!("unknown drain schedule {other:?}")),
    };
    let on_completion = match args.on_completion.as_str() {
        "nothing" => OnCompletion::Nothing,
        "resume" => OnCompletion::Resume,
        "exit" => OnCompletion::Exit,
        "restart" => OnCompletion::Restart,
        "reconfig" => OnCompletion::Reconfig,
        other => return Err(format!("unknown drain completion {other:?}")),
    };
    Ok(DrainRequest {
        schedule,
        reason: args.reason,
        on_completion,
        check: args.check,
        start: args.start,
        request_id: args.request_id,
    })
}

impl Pool {
    pub(super) fn signal(&mut self, sig: i32) {
        use nix::sys::signal::Signal;
        match Signal::try_from(sig) {
            Ok(Signal::SIGHUP) => {
                if let Err(e) = self.reconfig() {
                    tracing::error!("reconfig failed: {e}");
                }
            }
            Ok(Signal::SIGQUIT) => self.stop(Shutdown::Fast, false),
            Ok(_) => self.stop(Shutdown::Graceful, false),
            Err(_) => {}
        }
    }

    pub(super) fn command(&mut self, cmd: Command) -> Result<String, String> {
        tracing::info!("command: {}", cmd.line());
        match cmd {
            Command::Jobs(signal, ids) => return Ok(self.signal_jobs(signal, &ids)),
            Command::Drain(args) => {
                let request = drain_request(args)?;
                let id = self
                    .startd
                    .drain(request, now())
                    .map_err(|e| e.to_string())?;
                self.apply_startd(now());
                return Ok(id);
            }
            Command::CancelDrain(id) => {
                self.startd
                    .cancel_drain(id.as_deref(), now())
                    .map_err(|e| e.to_string())?;
                self.apply_startd(now());
                self.negotiate_now = true;
            }
            Command::Reschedule => {
                self.negotiate_now = true;
                self.local.woken();
            }
            Command::Reconfig => self.reconfig().map_err(|e| e.to_string())?,
            Command::Off(Subsystem::Master, how) => self.stop(how, false),
            Command::Restart(Subsystem::Master, how) => self.stop(how, true),
            Command::Off(daemon, how) => {
                self.set_off(daemon, true);
                if matches!(
                    daemon,
                    Subsystem::Daemons | Subsystem::Schedd | Subsystem::Startd
                ) {
                    self.vacate_all(how, "the daemon was turned off");
                }
                if matches!(daemon, Subsystem::Daemons | Subsystem::Schedd) {
                    self.vacate_local(how);
                }
            }
            Command::Restart(daemon, how) => {
                if matches!(
                    daemon,
                    Subsystem::Daemons | Subsystem::Schedd | Subsystem::Startd
                ) {
                    self.vacate_all(how, "the daemon was restarted");
                }
                if matches!(daemon, Subsystem::Daemons | Subsystem::Schedd) {
                    self.vacate_local(how);
                }
                self.reconfig().map_err(|e| e.to_string())?;
            }
            Command::On(daemon) => {
                self.set_off(daemon, false);
                if self.startd_exited && !self.startd_off {
                    // The startd that exited on a drain's completion starts afresh.
                    self.restart_startd();
                }
                self.negotiate_now = true;
                self.local.woken();
            }
            // The socket sends queries as `Msg::Query`; one arriving here changes nothing.
            Command::Query(_) => {}
        }
        Ok(String::new())
    }

    /// Turns daemons off (`condor_off -schedd`, ...) or back on; the master stands for all.
    pub(super) fn set_off(&mut self, daemon: Subsystem, off: bool) {
        match daemon {
            Subsystem::Master | Subsystem::Daemons => {
                self.schedd_off = off;
                self.startd_off = off;
                self.negotiator_off = off;
            }
            Subsystem::Schedd => self.schedd_off = off,
            Subsystem::Startd => self.startd_off = off,
            Subsystem::Negotiator | Subsystem::Collector => self.negotiator_off = off,
        }
    }

    /// Reads the configuration again (`condor_reconfig`, SIGHUP).
    pub(super) fn reconfig(&mut self) -> Result<(), DaemonError> {
        let config = Config::load()?;
        let t = now();
        self.flush_accountant();
        self.startd.reconfigure(&config, t)?;
        self.defrag = defrag_of(&config, self.startd.name())?;
        let neg = Negotiator::from_config(&config)?;
        self.negotiator
            .reconfigure(neg.config().clone(), neg.accountant_config().clone());
        self.policy = UserPolicy::from_config(&config);
        self.run_config = RunConfig::from_config(&config);
        self.local.config = LocalConfig::from_config(&config);
        self.local.woken();
        self.accountant = Accountant::open(
            self.negotiator.accountant_config().clone(),
            self.session.spool(),
        )?;
        self.checked_claims = None;
        self.accounting_domain = config
            .string("ACCOUNTING_DOMAIN")?
            .or(config.string("UID_DOMAIN")?)
            .unwrap_or_default();
        self.session = Session::new(config.clone(), self.session.user.clone(), t)?;
        self.config = config;
        // The idle jobs' submitter names carry the accounting domain: read them all again.
        self.idle = IdleIndex::default();
        self.reload_next = true;
        self.negotiate_now = true;
        tracing::info!("reconfigured");
        Ok(())
    }

    /// Begins stopping: no new job starts; running jobs are vacated as `how` says.
    pub(super) fn stop(&mut self, how: Shutdown, restart: bool) {
        tracing::info!("shutting down ({})", how.word());
        self.lifecycle = Lifecycle::Stopping { how, restart };
        self.vacate_all(how, "the condor_master is shutting down");
        // The schedd's shutdown: its own jobs get their KillSig and go back to idle.
        self.vacate_local(how);
    }

    pub(super) fn vacate_all(&mut self, how: Shutdown, why: &str) {
        if how == Shutdown::Peaceful {
            return;
        }
        let ids: Vec<JobId> = self.running.keys().copied().collect();
        for id in ids {
            self.stop_job(
                id,
                Stop::Vacate {
                    reason: why.to_owned(),
                    code: hold_codes::JOB_SHOULD_REQUEUE,
                    subcode: 0,
                },
                how == Shutdown::Fast,
            );
        }
    }

    pub(super) fn accepting(&self) -> bool {
        self.lifecycle == Lifecycle::Running && !self.schedd_off && !self.startd_off
    }

    /// Whether the master runs on (it is not stopping).
    pub(super) fn lifecycle_running(&self) -> bool {
        self.lifecycle == Lifecycle::Running
    }
}
