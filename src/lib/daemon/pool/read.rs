//! The read side: the ads `condor_status` and the tools ask for.

use super::*;

pub(super) fn common_daemon_attrs(ad: &mut ClassAd, host: &str, started: i64, t: i64) {
    ad.insert("Machine", Expr::lit(host));
    ad.insert("DaemonStartTime", Expr::lit(started));
    ad.insert("LastHeardFrom", Expr::lit(t));
    ad.insert("MyCurrentTime", Expr::lit(t));
    ad.insert("CondorVersion", Expr::lit(crate::version::CONDOR_VERSION));
}

impl Pool {
    /// The ads of one kind, as they are now (for `condor_status` and the other tools).
    pub(super) fn ads(&mut self, kind: AdKind, now: Now) -> Vec<ClassAd> {
        let t = now.t;
        let host = self.session.full_hostname();
        let daemon_ad = |my_type: &str, name: &str| {
            let mut ad = ClassAd::new();
            ad.insert("MyType", Expr::lit(my_type));
            ad.insert("Name", Expr::lit(name));
            common_daemon_attrs(&mut ad, &host, self.control.started_at, t);
            ad
        };
        match kind {
            AdKind::Slots => {
                self.startd.refresh(t);
                self.startd.slot_ads()
            }
            AdKind::Startd => {
                self.startd.refresh(t);
                vec![self.startd.daemon_ad()]
            }
            AdKind::Schedd => vec![self.schedd_ads(t).0],
            AdKind::Submitters => self.schedd_ads(t).1,
            AdKind::Negotiator => {
                let mut ad = self.matchmaker.negotiator.negotiator_ad(&host);
                common_daemon_attrs(&mut ad, &host, self.control.started_at, t);
                vec![ad]
            }
            AdKind::Master => {
                let mut ad = daemon_ad("DaemonMaster", &host);
                ad.insert(
                    "MasterIpAddr",
                    Expr::lit(self.session.schedd_address().as_str()),
                );
                ad.insert("RealUid", Expr::lit(nix::unistd::getuid().as_raw() as i64));
                vec![ad]
            }
            AdKind::Collector => {
                let mut ad = daemon_ad("Collector", &format!("My Pool - {host}@{host}"));
                ad.insert("HostsTotal", Expr::lit(1i64));
                ad.insert("RunningJobs", Expr::lit(self.shadow.running.len() as i64));
                ad.insert("IdleJobs", Expr::lit(self.schedd.idle.jobs.len() as i64));
                vec![ad]
            }
        }
    }

    /// The schedd ad and one submitter ad per user with jobs.
    pub(super) fn schedd_ads(&self, t: i64) -> (ClassAd, Vec<ClassAd>) {
        let host = self.session.full_hostname();
        let name = self.session.schedd_name();
        let mut per_user: BTreeMap<String, [i64; 3]> = BTreeMap::new();
        let counts = self
            .queue
            .count_by_status(&JobQuery::all())
            .unwrap_or_default();
        let mut totals = [0i64; 3];
        let mut all = 0i64;
        for (status, n) in counts {
            all += n as i64;
            let i = match status {
                2 => 0,
                1 => 1,
                5 => 2,
                _ => continue,
            };
            totals[i] += n as i64;
        }
        for j in self.schedd.idle.jobs.values() {
            per_user.entry(j.submitter.to_string()).or_default()[1] += 1;
        }
        for r in self.shadow.running.values() {
            per_user.entry(r.submitter.to_string()).or_default()[0] += 1;
        }
        let held = parse_old_expr("JobStatus == 5").expect("constant expression");
        if let Ok(jobs) = self.queue.jobs(&JobQuery::all().with_constraint(held)) {
            for ad in jobs.flatten().filter_map(|j| j.into_ad().ok()) {
                let who = negotiator::submitter_name(&ad, &self.schedd.accounting_domain);
                per_user.entry(who).or_default()[2] += 1;
            }
        }
        let mut schedd = ClassAd::new();
        schedd.insert("MyType", Expr::lit("Scheduler"));
        schedd.insert("Name", Expr::lit(name.as_str()));
        schedd.insert(
            "ScheddIpAddr",
            Expr::lit(self.session.schedd_address().as_str()),
        );
        // As `count_jobs`: the scheduler universe's jobs are counted apart.
        let (local_running, local_idle) = (
            self.schedd.local.running.len(),
            self.schedd.local.idle_count(),
        );
        schedd.insert(
            "TotalRunningJobs",
            Expr::lit((totals[0] - local_running as i64).max(0)),
        );
        schedd.insert(
            "TotalIdleJobs",
            Expr::lit((totals[1] - local_idle as i64).max(0)),
        );
        self.schedd
            .local
            .config
            .publish(&mut schedd, local_running, local_idle);
        schedd.insert("TotalHeldJobs", Expr::lit(totals[2]));
        schedd.insert("TotalJobAds", Expr::lit(all));
        schedd.insert("NumUsers", Expr::lit(per_user.len() as i64));
        common_daemon_attrs(&mut schedd, &host, self.control.started_at, t);
        let submitters = per_user
            .into_iter()
            .map(|(user, [running, idle, held])| {
                let mut ad = ClassAd::new();
                ad.insert("MyType", Expr::lit("Submitter"));
                ad.insert("Name", Expr::lit(user.as_str()));
                ad.insert("ScheddName", Expr::lit(name.as_str()));
                ad.insert("RunningJobs", Expr::lit(running));
                ad.insert("IdleJobs", Expr::lit(idle));
                ad.insert("HeldJobs", Expr::lit(held));
                common_daemon_attrs(&mut ad, &host, self.control.started_at, t);
                ad
            })
            .collect();
        (schedd, submitters)
    }
}
