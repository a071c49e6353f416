//! Control requests: signals, the socket's commands, on/off, reconfig, stopping, drains.

use super::*;

/// What control decides: whether the pool is stopping, and which daemons are off.
pub(super) struct Control {
    pub(super) lifecycle: Lifecycle,
    pub(super) schedd_off: bool,
    pub(super) startd_off: bool,
    /// The startd exited when a drain completed (`-exit-on-completion`): `condor_on` starts
    /// a new one.
    pub(super) startd_exited: bool,
    pub(super) negotiator_off: bool,
    /// When the master started, for the daemons' ads.
    pub(super) started_at: i64,
}

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
    /// A signal to the master, at time `now`: SIGHUP reconfigures, SIGQUIT stops fast, the
    /// others gracefully; the jobs to stop.
    pub(super) fn signal(&mut self, sig: i32, now: Now) -> Vec<Action> {
        use nix::sys::signal::Signal;
        match Signal::try_from(sig) {
            Ok(Signal::SIGHUP) => {
                if let Err(e) = self.reconfig(now) {
                    tracing::error!("reconfig failed: {e}");
                }
                Vec::new()
            }
            Ok(Signal::SIGQUIT) => self.stop(Shutdown::Fast, false),
            Ok(_) => self.stop(Shutdown::Graceful, false),
            Err(_) => Vec::new(),
        }
    }

    /// A command from the socket (other than the jobs' signals, which go to the shadow), at
    /// time `now`: its answer and what the other roles are to do, or why it failed.
    pub(super) fn command(
        &mut self,
        cmd: Command,
        now: Now,
    ) -> Result<(String, Vec<Action>), String> {
        let mut actions = Vec::new();
        match cmd {
            Command::Jobs(..) => return Err("job signals are the shadow's".into()),
            Command::Now(bid, victims) => return self.reassign_slot(bid, &victims, now),
            Command::Drain(args) => {
                let request = drain_request(args)?;
                let id = self
                    .startd
                    .drain(request, now.t)
                    .map_err(|e| e.to_string())?;
                return Ok((id, vec![Action::EvaluateStartd]));
            }
            Command::CancelDrain(id) => {
                self.startd
                    .cancel_drain(id.as_deref(), now.t)
                    .map_err(|e| e.to_string())?;
                self.timers.negotiate_now = true;
                actions.push(Action::EvaluateStartd);
            }
            Command::Reschedule => {
                self.timers.negotiate_now = true;
                self.schedd.local.woken();
            }
            Command::Reconfig => self.reconfig(now).map_err(|e| e.to_string())?,
            Command::Off(Subsystem::Master, how) => actions = self.stop(how, false),
            Command::Restart(Subsystem::Master, how) => actions = self.stop(how, true),
            Command::Off(daemon, how) => {
                self.set_off(daemon, true);
                actions = self.vacated(daemon, how, "the daemon was turned off");
            }
            Command::Restart(daemon, how) => {
                actions = self.vacated(daemon, how, "the daemon was restarted");
                self.reconfig(now).map_err(|e| e.to_string())?;
            }
            Command::On(daemon) => {
                self.set_off(daemon, false);
                if self.control.startd_exited && !self.control.startd_off {
                    // The startd that exited on a drain's completion starts afresh.
                    actions.push(Action::RestartStartd);
                }
                self.timers.negotiate_now = true;
                self.schedd.local.woken();
            }
            // The socket sends queries as `Msg::Query`, and serves queue changes on the
            // connection's own thread; one arriving here changes nothing.
            Command::Query(_) | Command::Schedd => {}
        }
        Ok((String::new(), actions))
    }

    /// The jobs to stop when `daemon` is turned off or restarted: the slots' jobs with the
    /// schedd or the startd, the schedd's own jobs with the schedd.
    fn vacated(&self, daemon: Subsystem, how: Shutdown, why: &str) -> Vec<Action> {
        let mut actions = Vec::new();
        if matches!(
            daemon,
            Subsystem::Daemons | Subsystem::Schedd | Subsystem::Startd
        ) {
            actions.extend(self.vacate_all(how, why));
        }
        if matches!(daemon, Subsystem::Daemons | Subsystem::Schedd) {
            actions.extend(self.vacate_local(how));
        }
        actions
    }

    /// A drain finished with an `-on-completion` request: `-exit-on-completion` turns the
    /// startd off (as the master does not restart an exited startd), `-restart-on-completion`
    /// starts it afresh from the configuration, `-reconfig-on-completion` reconfigures.
    pub(super) fn drain_completed(&mut self, what: OnCompletion, now: Now) -> Vec<Action> {
        tracing::info!("draining completed: {what:?}");
        match what {
            OnCompletion::Exit => {
                self.set_off(Subsystem::Startd, true);
                self.control.startd_exited = true;
            }
            OnCompletion::Restart => return vec![Action::RestartStartd],
            OnCompletion::Reconfig => {
                if let Err(e) = self.reconfig(now) {
                    tracing::error!("reconfig failed: {e}");
                }
            }
            OnCompletion::Resume | OnCompletion::Nothing => self.timers.negotiate_now = true,
        }
        Vec::new()
    }

    /// Turns daemons off (`condor_off -schedd`, ...) or back on; the master stands for all.
    pub(super) fn set_off(&mut self, daemon: Subsystem, off: bool) {
        match daemon {
            Subsystem::Master | Subsystem::Daemons => {
                self.control.schedd_off = off;
                self.control.startd_off = off;
                self.control.negotiator_off = off;
            }
            Subsystem::Schedd => self.control.schedd_off = off,
            Subsystem::Startd => self.control.startd_off = off,
            Subsystem::Negotiator | Subsystem::Collector => self.control.negotiator_off = off,
        }
    }

    /// Reads the configuration again (`condor_reconfig`, SIGHUP).
    pub(super) fn reconfig(&mut self, now: Now) -> Result<(), DaemonError> {
        let config = Config::load()?;
        let t = now.t;
        crate::daemon::create_pool_signing_key(&config);
        self.flush_accountant();
        self.startd.reconfigure(&config, t)?;
        self.matchmaker.defrag = defrag_of(&config, self.startd.name())?;
        let neg = Negotiator::from_config(&config)?;
        self.matchmaker
            .negotiator
            .reconfigure(neg.config().clone(), neg.accountant_config().clone());
        self.schedd.policy = UserPolicy::from_config(&config);
        self.schedd.run_config = RunConfig::from_config(&config);
        self.schedd.local.config = LocalConfig::from_config(&config);
        self.schedd.local.woken();
        self.matchmaker.accountant = Accountant::open(
            self.matchmaker.negotiator.accountant_config().clone(),
            self.session.spool(),
        )?;
        self.matchmaker.checked_claims = None;
        self.schedd.accounting_domain = config
            .string("ACCOUNTING_DOMAIN")?
            .or(config.string("UID_DOMAIN")?)
            .unwrap_or_default();
        self.session = Session::new(config.clone(), self.session.user.clone(), t)?.direct();
        self.config = config;
        // The idle jobs' submitter names carry the accounting domain: read them all again.
        self.schedd.idle = IdleIndex::default();
        self.schedd.reload_next = true;
        self.timers.negotiate_now = true;
        tracing::info!("reconfigured");
        Ok(())
    }

    /// Begins stopping: no new job starts; the running jobs to vacate as `how` says.
    pub(super) fn stop(&mut self, how: Shutdown, restart: bool) -> Vec<Action> {
        tracing::info!("shutting down ({})", how.word());
        self.control.lifecycle = Lifecycle::Stopping { how, restart };
        let mut actions = self.vacate_all(how, "the condor_master is shutting down");
        // The schedd's shutdown: its own jobs get their KillSig and go back to idle.
        actions.extend(self.vacate_local(how));
        actions
    }

    /// Every job running on a slot, to vacate (`how` says whether at once) for `why`.
    pub(super) fn vacate_all(&self, how: Shutdown, why: &str) -> Vec<Action> {
        if how == Shutdown::Peaceful {
            return Vec::new();
        }
        let mut ids: Vec<JobId> = self.shadow.running.keys().copied().collect();
        ids.sort();
        ids.into_iter()
            .map(|job| Action::Stop {
                job,
                stop: Stop::Vacate {
                    reason: why.to_owned(),
                    code: hold_codes::JOB_SHOULD_REQUEUE,
                    subcode: 0,
                },
                fast: how == Shutdown::Fast,
            })
            .collect()
    }

    pub(super) fn accepting(&self) -> bool {
        self.control.lifecycle == Lifecycle::Running
            && !self.control.schedd_off
            && !self.control.startd_off
    }

    /// Whether the master runs on (it is not stopping).
    pub(super) fn lifecycle_running(&self) -> bool {
        self.control.lifecycle == Lifecycle::Running
    }
}
