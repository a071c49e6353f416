//! The pool's roles on a made-up clock: the idle index, the journal's changes, drain
//! requests, and the loop's timers, which run on the time passed in rather than the real one.

use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::classad::{parse_old_ad, ClassAd};
use crate::client::master::DrainArgs;
use crate::config::Config;
use crate::negotiator;
use crate::queue::{JobId, JobStatus};
use crate::startd::{DrainSchedule, OnCompletion};
use crate::submit::{SubmitContext, SubmitFile};

use super::control::drain_request;
use super::journal::Changes;
use super::matchmaker::job_key;
use super::schedd::IdleIndex;
use super::{Msg, Now, Pool};

/// A wall clock far from the real one: nothing that read the real clock could pass for it.
const T: i64 = 2_000_000_000;

fn id(cluster: i32, proc: i32) -> JobId {
    JobId::new(cluster, proc)
}

fn idle_job(id: JobId, owner: &str, prio: i64) -> negotiator::IdleJob {
    let ad = parse_old_ad(&format!("Owner = \"{owner}\"\nJobPrio = {prio}\n")).unwrap();
    negotiator::IdleJob::new(job_key(id), ad, "example.org")
}

/// The ids of a submitter's idle jobs, in the order the index offers them.
fn order(index: &IdleIndex, submitter: &str) -> Vec<JobId> {
    index
        .of(submitter)
        .map(|j| JobId::new(j.id.cluster, j.id.proc))
        .collect()
}

#[test]
fn the_idle_index_offers_a_submitters_jobs_by_priority_then_age() {
    let mut index = IdleIndex::default();
    index.insert(id(3, 0), idle_job(id(3, 0), "alice", 0));
    index.insert(id(1, 1), idle_job(id(1, 1), "alice", 0));
    index.insert(id(2, 0), idle_job(id(2, 0), "alice", 5));
    index.insert(id(1, 0), idle_job(id(1, 0), "bob", 0));
    assert_eq!(
        order(&index, "alice@example.org"),
        [id(2, 0), id(1, 1), id(3, 0)]
    );
    assert_eq!(order(&index, "bob@example.org"), [id(1, 0)]);
    assert!(order(&index, "carol@example.org").is_empty());

    // A job inserted again takes its new place (a priority change), once.
    index.insert(id(3, 0), idle_job(id(3, 0), "alice", 9));
    assert_eq!(
        order(&index, "alice@example.org"),
        [id(3, 0), id(2, 0), id(1, 1)]
    );
    // A job moving to another submitter leaves the first one's order.
    index.insert(id(1, 1), idle_job(id(1, 1), "bob", 0));
    assert_eq!(order(&index, "alice@example.org"), [id(3, 0), id(2, 0)]);
    assert_eq!(order(&index, "bob@example.org"), [id(1, 0), id(1, 1)]);

    // A submitter with no idle job left is gone from the index.
    assert!(index.remove(id(1, 0)).is_some());
    assert!(index.remove(id(1, 1)).is_some());
    assert!(index.remove(id(1, 1)).is_none());
    assert!(!index.by_submitter.contains_key("bob@example.org"));
    assert_eq!(index.jobs.len(), 2);
}

#[test]
fn the_idle_index_keeps_the_stamps_of_jobs_read_from_the_store_only() {
    let store = crate::queue::Stamp {
        proc: 7,
        cluster: 3,
    };
    let mut index = IdleIndex::default();
    index.insert_read(id(1, 0), idle_job(id(1, 0), "alice", 0), store);
    assert_eq!(index.stamps.get(&id(1, 0)), Some(&store));
    // Changed in memory by the pool: read again at the next reload.
    index.insert(id(1, 0), idle_job(id(1, 0), "alice", 1));
    assert!(!index.stamps.contains_key(&id(1, 0)));
    index.insert_read(id(2, 0), idle_job(id(2, 0), "alice", 0), store);
    index.remove(id(2, 0));
    assert!(index.stamps.is_empty());
}

#[test]
fn changes_are_kept_in_the_order_jobs_were_first_changed() {
    let mut changes = Changes::default();
    assert!(changes.is_empty());
    changes.of(id(2, 0)).status = Some(JobStatus::Running);
    changes.expecting(id(1, 0), JobStatus::Idle);
    changes.of(id(2, 0)).to_history = true;
    assert_eq!(changes.order, [id(2, 0), id(1, 0)]);
    assert!(!changes.is_empty());
    // The first expectation stands: the status the step found the job in.
    changes.expecting(id(1, 0), JobStatus::Running);
    assert_eq!(changes.jobs[&id(1, 0)].expect, Some(JobStatus::Idle));
    assert_eq!(changes.jobs[&id(2, 0)].expect, None);
    assert!(changes.jobs[&id(2, 0)].to_history);
    assert_eq!(changes.jobs[&id(2, 0)].status, Some(JobStatus::Running));
}

fn drain(schedule: &str, on_completion: &str) -> DrainArgs {
    DrainArgs {
        schedule: schedule.into(),
        on_completion: on_completion.into(),
        reason: Some("by test".into()),
        check: None,
        start: None,
        request_id: None,
    }
}

#[test]
fn drain_requests_name_a_schedule_and_a_completion() {
    for (word, schedule) in [
        ("graceful", DrainSchedule::Graceful),
        ("quick", DrainSchedule::Quick),
        ("fast", DrainSchedule::Fast),
    ] {
        let r = drain_request(drain(word, "nothing")).unwrap();
        assert_eq!(r.schedule, schedule);
        assert_eq!(r.on_completion, OnCompletion::Nothing);
        assert_eq!(r.reason.as_deref(), Some("by test"));
    }
    for (word, completion) in [
        ("resume", OnCompletion::Resume),
        ("exit", OnCompletion::Exit),
        ("restart", OnCompletion::Restart),
        ("reconfig", OnCompletion::Reconfig),
    ] {
        let r = drain_request(drain("graceful", word)).unwrap();
        assert_eq!(r.on_completion, completion);
    }
    assert_eq!(
        drain_request(drain("slow", "nothing")).unwrap_err(),
        "unknown drain schedule \"slow\""
    );
    assert_eq!(
        drain_request(drain("fast", "explode")).unwrap_err(),
        "unknown drain completion \"explode\""
    );
}

#[test]
fn the_clock_maps_wall_times_to_instants() {
    let at = Instant::now();
    let now = Now::fake(T, at);
    assert_eq!(now.instant_at(T + 30), at + Duration::from_secs(30));
    // A time that has passed is now.
    assert_eq!(now.instant_at(T - 30), at);
    assert_eq!(
        now.after(Duration::from_secs(5)),
        at + Duration::from_secs(5)
    );
    // The fraction of a second the wall clock is past `t` comes off.
    let later = Now {
        fraction: Duration::from_millis(250),
        ..now
    };
    assert_eq!(later.instant_at(T + 1), at + Duration::from_millis(750));
}

/// A pool in its own directory, opened at the made-up time `now`.
fn pool_at(now: Now) -> (tempfile::TempDir, Pool, mpsc::Receiver<Msg>) {
    let dir = tempfile::tempdir().unwrap();
    let config = Config::for_test(
        // A personal pool: jobs run as the test's user even when it is root.
        "NUM_CPUS = 1\nPERIODIC_EXPR_INTERVAL = 60\nNEGOTIATOR_INTERVAL = 20\n\
         POLLING_INTERVAL = 5\nCONDORLITE_RUN_AS_OWNER = False\n",
        "MASTER",
        None,
        dir.path(),
    );
    let (tx, rx) = mpsc::channel();
    let pool = Pool::open_at(config, tx, now, None).unwrap();
    (dir, pool, rx)
}

/// A submit by the pool's user at time `T`, in the temporary directory, with no environment.
fn submit_context(pool: &Pool) -> SubmitContext<'_> {
    SubmitContext {
        config: &pool.config,
        cwd: std::env::temp_dir(),
        env: crate::config::Environment::from_pairs(Vec::<(String, String)>::new()),
        owner: pool.session.user.clone(),
        qdate: T,
        utc_offset: Some(0),
        submit_method: 0,
        remote: false,
        command_line: Default::default(),
        preset_items: None,
        run_commands: true,
    }
}

/// Submits a description to the pool's queue, as condor_submit does.
fn submit(pool: &Pool, text: &str) {
    let ctx = submit_context(pool);
    let file = SubmitFile::parse(text, "test.sub", &ctx).unwrap();
    crate::client::submit::queue_jobs(&pool.session, &[&file], false, &mut |_, _| Ok(()))
        .map_err(|(_, e)| e.to_string())
        .unwrap();
}

fn status(pool: &Pool, job: JobId) -> Option<i64> {
    pool.queue.job(job).unwrap().map(|j| j.status_code())
}

#[test]
fn the_timers_run_on_the_clock_passed_in() {
    let at = Instant::now();
    let start = Now::fake(T, at);
    let (_dir, mut pool, _rx) = pool_at(start);
    // Just opened: a negotiation is due at once.
    assert_eq!(pool.next_deadline(start), at);
    pool.step(start).unwrap();
    assert_eq!(pool.timers.next_negotiation, at + Duration::from_secs(20));
    assert_eq!(pool.timers.next_update, at + Duration::from_secs(5));
    assert_eq!(pool.timers.next_periodic, at + Duration::from_secs(60));
    // The step's wall time is what the pool records.
    assert_eq!(pool.session.now, T);

    // Six seconds on, by the made-up clock only: the startd's update came, the others wait.
    let later = Now::fake(T + 6, at + Duration::from_secs(6));
    pool.step(later).unwrap();
    assert_eq!(pool.timers.next_update, at + Duration::from_secs(11));
    assert_eq!(pool.timers.next_negotiation, at + Duration::from_secs(20));
    assert_eq!(pool.session.now, T + 6);
}

#[test]
fn the_periodic_policy_runs_when_the_clock_says_so() {
    let at = Instant::now();
    let start = Now::fake(T, at);
    let (_dir, mut pool, _rx) = pool_at(start);
    // A job that never matches, removed by its periodic policy at the first pass.
    submit(
        &pool,
        "executable = /bin/true\nrequirements = false\nperiodic_remove = true\nqueue\n",
    );
    let job = id(1, 0);
    pool.step(start).unwrap();
    assert_eq!(status(&pool, job), Some(JobStatus::Idle.code()));
    let before = Now::fake(T + 59, at + Duration::from_secs(59));
    pool.step(before).unwrap();
    assert_eq!(status(&pool, job), Some(JobStatus::Idle.code()));
    // The pass is due: the job leaves the queue, removed at the made-up time.
    let due = Now::fake(T + 60, at + Duration::from_secs(60));
    pool.step(due).unwrap();
    assert_eq!(status(&pool, job), None);
    let entries: Vec<_> = pool
        .queue
        .history(&crate::queue::HistoryQuery::all())
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0].id(), job);
    let ad: ClassAd = entries[0].ad().unwrap().clone();
    assert_eq!(
        crate::output::render::lookup_int(&ad, "EnteredCurrentStatus"),
        Some(T + 60)
    );
    assert_eq!(
        crate::output::render::lookup_int(&ad, "JobStatus"),
        Some(JobStatus::Removed.code())
    );
    assert_eq!(pool.timers.next_periodic, at + Duration::from_secs(120));
}

#[test]
fn a_drain_is_decided_by_control_and_the_startd_then_carried_out_by_the_loop() {
    use super::Action;
    use crate::client::master::{Command, Subsystem};
    let at = Instant::now();
    let now = Now::fake(T, at);
    let (_dir, mut pool, _rx) = pool_at(now);
    pool.step(now).unwrap();
    // Control starts the drain and asks for the startd's policy; it carries nothing out.
    let (id, actions) = pool
        .command(Command::Drain(drain("fast", "exit")), now)
        .unwrap();
    assert_eq!(id, "1");
    assert!(
        matches!(actions[..], [Action::EvaluateStartd]),
        "{actions:?}"
    );
    assert!(!pool.control.startd_off);
    // The startd, with no job to wait for, is drained: the completion is for control.
    let decided = pool.startd_policy(now);
    assert!(
        matches!(decided[..], [Action::DrainCompleted(OnCompletion::Exit)]),
        "{decided:?}"
    );
    pool.apply(decided, now);
    assert!(pool.control.startd_off && pool.control.startd_exited);
    // Turned on again, the exited startd is to be restarted: the loop does it.
    let (_, actions) = pool.command(Command::On(Subsystem::Startd), now).unwrap();
    assert!(
        matches!(actions[..], [Action::RestartStartd]),
        "{actions:?}"
    );
    pool.apply(actions, now);
    assert!(!pool.control.startd_off && !pool.control.startd_exited);
    assert!(pool
        .startd
        .slot_ads()
        .iter()
        .all(|ad| { crate::output::render::lookup_bool(ad, "Draining") != Some(true) }));
}

#[test]
fn a_shutdown_decides_to_vacate_and_stops_accepting() {
    use crate::client::master::{Command, Shutdown, Subsystem};
    let at = Instant::now();
    let now = Now::fake(T, at);
    let (_dir, mut pool, _rx) = pool_at(now);
    assert!(pool.accepting());
    let (answer, actions) = pool
        .command(Command::Off(Subsystem::Master, Shutdown::Graceful), now)
        .unwrap();
    assert_eq!(answer, "");
    // Nothing runs, so nothing is to stop; no new job starts.
    assert!(actions.is_empty());
    assert!(!pool.accepting());
}

#[test]
fn a_scoped_pool_takes_only_the_clusters_it_is_handed() {
    let at = Instant::now();
    let now = Now::fake(T, at);
    let dir = tempfile::tempdir().unwrap();
    let config = Config::for_test("NUM_CPUS = 1\n", "MASTER", None, dir.path());
    let (tx, _rx) = mpsc::channel();
    let mut pool = Pool::open_at(config, tx, now, Some(Default::default())).unwrap();
    let never = "executable = /bin/true\nrequirements = false\nqueue 2\n";
    submit(&pool, never);
    submit(&pool, never);
    pool.step(now).unwrap();
    assert!(pool.schedd.idle.jobs.is_empty());
    pool.handle(Msg::Adopt(2), now);
    pool.step(now).unwrap();
    let ids: Vec<JobId> = pool.schedd.idle.jobs.keys().copied().collect();
    assert_eq!(ids, [id(2, 0), id(2, 1)]);
    assert_eq!(status(&pool, id(1, 0)), Some(JobStatus::Idle.code()));
}

mod factories {
    use super::*;
    use crate::eventlog::Completion;
    use crate::queue::{ClusterId, ProcCounts};

    use super::super::factory::{decide, FactoryStep, FactoryView};

    fn view(next_proc: i64, present: i64, running: i64) -> FactoryView {
        FactoryView {
            limit: Some(5),
            max_idle: Some(2),
            system_limit: 20_000,
            next_proc,
            total_procs: 10,
            paused: false,
            removed: false,
            counts: ProcCounts {
                present,
                idle: present - running,
                running,
                held: 0,
            },
        }
    }

    #[test]
    fn a_factory_makes_what_its_limits_leave_room_for() {
        // Nothing yet: max_idle allows two.
        assert_eq!(decide(&view(0, 0, 0)), FactoryStep::Materialize(2));
        // Two running: two more may be idle, and the limit of five leaves three.
        assert_eq!(decide(&view(2, 2, 2)), FactoryStep::Materialize(2));
        assert_eq!(decide(&view(4, 4, 4)), FactoryStep::Materialize(1));
        // Two idle already: none.
        assert_eq!(decide(&view(2, 2, 0)), FactoryStep::Wait);
        // No max_idle: up to the limit; no limit either: up to what is left.
        let unlimited_idle = FactoryView {
            max_idle: None,
            ..view(3, 3, 0)
        };
        assert_eq!(decide(&unlimited_idle), FactoryStep::Materialize(2));
        let unlimited = FactoryView {
            limit: None,
            ..unlimited_idle
        };
        assert_eq!(decide(&unlimited), FactoryStep::Materialize(7));
        // MAX_JOBS_PER_SUBMISSION bounds the limit.
        let system = FactoryView {
            system_limit: 4,
            ..unlimited
        };
        assert_eq!(decide(&system), FactoryStep::Materialize(1));
        // Paused: nothing.
        let paused = FactoryView {
            paused: true,
            ..view(0, 0, 0)
        };
        assert_eq!(decide(&paused), FactoryStep::Wait);
    }

    #[test]
    fn a_done_factory_leaves_with_its_last_proc() {
        assert_eq!(decide(&view(10, 1, 1)), FactoryStep::Wait);
        assert_eq!(
            decide(&view(10, 0, 0)),
            FactoryStep::Remove(Completion::Complete)
        );
        let removed = FactoryView {
            removed: true,
            ..view(4, 0, 0)
        };
        assert_eq!(
            decide(&removed),
            FactoryStep::Remove(Completion::Incomplete)
        );
        let paused_done = FactoryView {
            paused: true,
            ..view(10, 0, 0)
        };
        assert_eq!(
            decide(&paused_done),
            FactoryStep::Remove(Completion::Complete)
        );
    }

    /// Submits a factory to the pool's queue, as condor_submit does.
    fn submit_factory(pool: &Pool, text: &str) -> ClusterId {
        let ctx = submit_context(pool);
        let file = SubmitFile::parse(text, "test.sub", &ctx).unwrap();
        let limit = file.want_factory_submit().unwrap().unwrap();
        let digest = crate::submit::factory::Digest::of(text, "test.sub", &ctx, &file);
        crate::client::submit::queue_factory(
            &pool.session,
            &file,
            &digest,
            limit,
            false,
            &mut |_| Ok(()),
        )
        .map_err(|e| e.to_string())
        .unwrap()
        .cluster
    }

    fn procs(pool: &Pool, cluster: ClusterId) -> Vec<i32> {
        let q = crate::queue::JobQuery::ids([crate::queue::JobIdSpec::Cluster(cluster)]);
        pool.queue
            .job_ids(&q)
            .unwrap()
            .into_iter()
            .map(|j| j.proc)
            .collect()
    }

    #[test]
    fn the_schedd_materializes_at_each_step_and_the_new_jobs_are_idle_at_the_next() {
        let at = Instant::now();
        let now = Now::fake(T, at);
        let (_dir, mut pool, _rx) = pool_at(now);
        let cluster = submit_factory(
            &pool,
            "executable = /bin/true\nrequirements = false\nmax_idle = 3\nqueue 7\n",
        );
        assert!(procs(&pool, cluster).is_empty());
        pool.step(now).unwrap();
        assert_eq!(procs(&pool, cluster), [0, 1, 2]);
        // The new jobs are read at once: the step after makes them idle jobs.
        assert!(pool.next_deadline(now) <= now.at);
        let later = Now::fake(T + 1, at + Duration::from_secs(1));
        pool.step(later).unwrap();
        let idle: Vec<JobId> = pool.schedd.idle.jobs.keys().copied().collect();
        assert_eq!(idle, [id(cluster.0, 0), id(cluster.0, 1), id(cluster.0, 2)]);
        // Their submit time is the submit's, not the step's.
        let job = pool.queue.job(id(cluster.0, 2)).unwrap().unwrap();
        let ad = job.into_ad().unwrap();
        assert_eq!(crate::output::render::lookup_int(&ad, "QDate"), Some(T));
        // Held jobs are still not running: no more are made.
        pool.queue
            .transaction(|tx| tx.set_status(id(cluster.0, 0), JobStatus::Held))
            .unwrap();
        pool.step(later).unwrap();
        assert_eq!(procs(&pool, cluster), [0, 1, 2]);
    }
}

#[test]
fn a_late_exit_of_another_waiter_is_not_the_runs() {
    let at = Instant::now();
    let now = Now::fake(T, at);
    let (_dir, mut pool, rx) = pool_at(now);
    submit(&pool, "executable = /bin/sleep\narguments = 60\nqueue\n");
    pool.step(now).unwrap();
    let job = id(1, 0);
    let waiter = pool.shadow.running.get(&job).expect("the job runs").job.pid;
    // An exit reported for an earlier waiter of the job's (an adoption given up, a run
    // replaced) neither ends this run nor waits for it.
    pool.handle(
        Msg::Exited {
            job,
            pid: waiter + 100_000,
        },
        now,
    );
    assert!(pool.shadow.running.contains_key(&job));
    // Its own waiter's end does.
    let _ = pool.shadow.running[&job].job.hard_kill();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left).expect("the reaper reports the exit") {
            msg @ Msg::Exited { pid, .. } if pid == waiter => {
                pool.handle(msg, now);
                break;
            }
            _ => continue,
        }
    }
    assert!(!pool.shadow.running.contains_key(&job));
}

#[test]
fn reassign_slot_refuses_a_now_job_that_is_not_idle_and_victims_that_do_not_run() {
    use crate::client::master::Command;
    let at = Instant::now();
    let now = Now::fake(T, at);
    let (_dir, mut pool, _rx) = pool_at(now);
    // Never matched: both jobs stay idle.
    submit(
        &pool,
        "executable = /bin/true\nrequirements = false\nqueue 2\n",
    );
    pool.step(now).unwrap();
    let refusal = |pool: &mut Pool, bid: JobId, victims: Vec<JobId>| {
        pool.command(Command::Now(bid, victims), now).unwrap_err()
    };
    assert_eq!(
        refusal(&mut pool, id(1, 0), vec![id(1, 1)]),
        "no match for vacate-job ID"
    );
    assert_eq!(
        refusal(&mut pool, id(9, 0), vec![id(1, 1)]),
        "the now-job must be idle"
    );
    assert_eq!(
        refusal(&mut pool, id(1, 0), vec![]),
        "invalid vacate-job ID list"
    );
    assert!(pool.matchmaker.now_jobs.is_empty());
    assert!(pool.matchmaker.preempting.is_empty());
}
