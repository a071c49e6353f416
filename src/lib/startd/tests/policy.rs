//! The policy state machine driven with a controllable clock and fake machine inputs (the
//! `CONDORLITE_MACHINE_INPUTS` file): the manual's example policies as it writes them
//! (3.5.9), the default policy, retirement and vacate time to the second, `KILLING_TIMEOUT`,
//! `CLAIM_WORKLIFE`, preemption by the negotiator, and draining. Each step asserts the slots'
//! (State, Activity) and the decisions returned.

use super::{config, job, probe, slot, string, text, HOST, T0};
use crate::classad::ClassAd;
use crate::startd::{
    Activity, Decision, DrainRequest, DrainSchedule, JobAction, OnCompletion, Startd, StartdError,
    State,
};

/// A startd whose keyboard, console and load come from an inputs file the test rewrites.
struct Rig {
    s: Startd,
    inputs: std::path::PathBuf,
    _dir: tempfile::TempDir,
}

/// The inputs of an idle machine: nobody at the keyboard for a day, no load.
const IDLE: &str = "KeyboardIdle = 86400\nConsoleIdle = 86400\nLoadAvg = 0\n";

impl Rig {
    fn at(text: &str, start: i64) -> Rig {
        let dir = tempfile::tempdir().unwrap();
        let inputs = dir.path().join("inputs");
        std::fs::write(&inputs, IDLE).unwrap();
        let (c, _pool) = config(&format!(
            "CONDORLITE_MACHINE_INPUTS = {}\nSLOTS_CONNECTED_TO_KEYBOARD = 1000\nSLOTS_CONNECTED_TO_CONSOLE = 1000\nSLOT_TYPE_0_PARTITIONABLE = false\nSTARTD_DETECT_GPUS = false\n{text}",
            inputs.display()
        ));
        let s = Startd::from_config_with(&c, start, probe()).unwrap();
        Rig {
            s,
            inputs,
            _dir: dir,
        }
    }

    fn new(text: &str) -> Rig {
        Rig::at(text, T0)
    }

    /// What the machine looks like from now on (`Name = value` lines).
    fn inputs(&self, text: &str) {
        std::fs::write(&self.inputs, text).unwrap();
    }

    fn keyboard(&self, idle: i64) {
        self.inputs(&format!(
            "KeyboardIdle = {idle}\nConsoleIdle = 86400\nLoadAvg = 0\n"
        ));
    }

    fn state(&self, n: &str) -> (State, Activity) {
        self.s
            .state(&slot(n))
            .unwrap_or_else(|| panic!("no slot {n}"))
    }

    fn eval(&mut self, t: i64) -> Vec<Decision> {
        self.s.evaluate(t)
    }

    /// Claims slot `n` for `j` and starts it, at `t`.
    fn run(&mut self, n: &str, j: &ClassAd, t: i64) {
        self.s.claim(&slot(n), j, &[], t).unwrap();
        self.s.activate(&slot(n), j, t).unwrap();
        assert_eq!(self.state(n), (State::Claimed, Activity::Busy));
    }

    fn ad(&self, n: &str) -> ClassAd {
        self.s.slot_ad(&slot(n)).unwrap()
    }

    fn int(&self, n: &str, attr: &str) -> i64 {
        let ad = self.ad(n);
        ad.eval_attr(attr)
            .as_int()
            .unwrap_or_else(|| panic!("{attr} of {n} is not an integer: {:?}", ad.lookup(attr)))
    }
}

fn act(n: &str, action: JobAction) -> Decision {
    Decision::Job {
        slot: slot(n),
        action,
    }
}

fn vacate(n: &str, reason: &str, code: i64) -> Decision {
    act(
        n,
        JobAction::Vacate {
            reason: reason.into(),
            code,
        },
    )
}

fn kill(n: &str, reason: &str, code: i64) -> Decision {
    act(
        n,
        JobAction::Kill {
            reason: reason.into(),
            code,
        },
    )
}

const PREEMPT_REASON: &str = "PREEMPT expression evaluated to True";
const DRAIN_REASON: &str = "Startd was draining";
const CLAIMED_BUSY: (State, Activity) = (State::Claimed, Activity::Busy);
const SUSPENDED: (State, Activity) = (State::Claimed, Activity::Suspended);
const RETIRING: (State, Activity) = (State::Claimed, Activity::Retiring);
const VACATING: (State, Activity) = (State::Preempting, Activity::Vacating);
const KILLING: (State, Activity) = (State::Preempting, Activity::Killing);
const UNCLAIMED: (State, Activity) = (State::Unclaimed, Activity::Idle);
const OWNER: (State, Activity) = (State::Owner, Activity::Idle);
const DRAINED_RETIRING: (State, Activity) = (State::Drained, Activity::Retiring);
const DRAINED_IDLE: (State, Activity) = (State::Drained, Activity::Idle);

/// The manual's "Default Policy Settings" (3.5.9.1), "the entire set of policy settings",
/// as it writes them (`PERIODIC_CHECKPOINT` left out: its continuation line ends in a
/// space, and nothing here checkpoints), with its default `IS_OWNER`.
const DESKTOP: &str = r#"
##  These macros are here to help write legible expressions:
MINUTE          = 60
HOUR            = (60 * $(MINUTE))
StateTimer      = (CurrentTime - EnteredCurrentState)
ActivityTimer   = (CurrentTime - EnteredCurrentActivity)
ActivationTimer = (CurrentTime - JobStart)
LastCkpt        = (CurrentTime - LastPeriodicCheckpoint)

NonCondorLoadAvg        = (LoadAvg - CondorLoadAvg)
BackgroundLoad          = 0.3
HighLoad                = 0.5
StartIdleTime           = 15 * $(MINUTE)
ContinueIdleTime        = 5 * $(MINUTE)
MaxSuspendTime          = 10 * $(MINUTE)

KeyboardBusy            = KeyboardIdle < $(MINUTE)
ConsoleBusy             = (ConsoleIdle  < $(MINUTE))
CPUIdle                = $(NonCondorLoadAvg) <= $(BackgroundLoad)
CPUBusy                = $(NonCondorLoadAvg) >= $(HighLoad)
KeyboardNotBusy         = ($(KeyboardBusy) == False)
MachineBusy             = ($(CPUBusy) || $(KeyboardBusy)

WANT_SUSPEND       = ( $(SmallJob) || $(KeyboardNotBusy) \
                       || $(IsVanilla) )
WANT_VACATE        = ( $(ActivationTimer) > 10 * $(MINUTE) \
                       || $(IsVanilla) )
START        = ( (KeyboardIdle > $(StartIdleTime)) \
                  && ( $(CPUIdle) || \
                       (State != "Unclaimed" && State != "Owner")) )
SUSPEND         = ( $(KeyboardBusy) || \
                 ( (CpuBusyTime > 2 * $(MINUTE)) \
                    && $(ActivationTimer) > 90 ) )
CONTINUE        = ( $(CPUIdle) && ($(ActivityTimer) > 10) \
                  && (KeyboardIdle > $(ContinueIdleTime)) )
PREEMPT	        = ( ((Activity == "Suspended") && \
                    ($(ActivityTimer) > $(MaxSuspendTime))) \
                    || (SUSPEND && (WANT_SUSPEND == False)) )
MAXJOBRETIREMENTTIME = 0
MachineMaxVacateTime = 10 * $(MINUTE)
KILL            = False
IS_OWNER = (START =?= False)
"#;

#[test]
fn default_policy_never_evicts() {
    let mut r = Rig::new("NUM_SLOTS = 1");
    assert_eq!(r.state("slot1"), UNCLAIMED);
    let j = job("");
    r.run("slot1", &j, T0);
    assert_eq!(r.eval(T0 + 10), vec![]);
    // Keyboard and load do not matter to HTCondor 24's defaults.
    r.inputs("KeyboardIdle = 0\nConsoleIdle = 0\nLoadAvg = 4\n");
    assert_eq!(r.eval(T0 + 50_000), vec![]);
    assert_eq!(r.state("slot1"), CLAIMED_BUSY);
    let ad = r.ad("slot1");
    assert_eq!(text(&ad, "MachineMaxVacateTime"), "10 * 60");
    assert_eq!(r.int("slot1", "RetirementTimeRemaining"), 0);
    assert_eq!(r.int("slot1", "TotalJobRunTime"), 50_000);
    // Polling while claimed.
    assert_eq!(r.s.next_timer(T0 + 50_000), Some(T0 + 50_005));
    // The job ends: the claim is past CLAIM_WORKLIFE (1200 s), so it ends with it.
    assert!(!r.s.job_ended(&slot("slot1"), T0 + 50_010));
    assert_eq!(r.state("slot1"), UNCLAIMED);
    assert_eq!(r.eval(T0 + 50_010), vec![]);
    assert_eq!(r.s.next_timer(T0 + 50_010), None);
}

#[test]
fn desktop_policy_suspends_then_preempts() {
    let mut r = Rig::new(&format!("NUM_SLOTS = 1\n{DESKTOP}"));
    assert_eq!(r.state("slot1"), UNCLAIMED);
    // Someone at the keyboard: START is false, and IS_OWNER with it.
    r.keyboard(5);
    assert_eq!(r.eval(T0), vec![]);
    assert_eq!(r.state("slot1"), OWNER);
    assert!(matches!(
        r.s.claim(&slot("slot1"), &job(""), &[], T0),
        Err(StartdError::NotWilling(_))
    ));
    r.keyboard(2000);
    assert_eq!(r.eval(T0 + 1), vec![]);
    assert_eq!(r.state("slot1"), UNCLAIMED);
    let j = job("");
    r.run("slot1", &j, T0 + 1);
    assert_eq!(r.eval(T0 + 50), vec![]);

    // The keyboard is touched: SUSPEND, and a small vanilla job wants suspension (#14).
    r.keyboard(5);
    assert_eq!(r.eval(T0 + 101), vec![act("slot1", JobAction::Suspend)]);
    assert_eq!(r.state("slot1"), SUSPENDED);
    assert_eq!(r.eval(T0 + 102), vec![]);
    // Idle long enough, but suspended only 10 s: CONTINUE waits for ActivityTimer > 10.
    r.keyboard(400);
    assert_eq!(r.eval(T0 + 111), vec![]);
    assert_eq!(r.eval(T0 + 112), vec![act("slot1", JobAction::Continue)]);
    assert_eq!(r.state("slot1"), CLAIMED_BUSY);
    // Suspended again, for longer than MaxSuspendTime: PREEMPT (#16), no retirement time,
    // WANT_VACATE for a vanilla job: the job is continued and vacated (#18).
    r.keyboard(5);
    assert_eq!(r.eval(T0 + 201), vec![act("slot1", JobAction::Suspend)]);
    assert_eq!(r.int("slot1", "TotalJobRunTime"), 100 + 89);
    assert_eq!(r.int("slot1", "TotalJobSuspendTime"), 11);
    assert_eq!(r.eval(T0 + 801), vec![]);
    assert_eq!(r.state("slot1"), SUSPENDED);
    assert_eq!(
        r.eval(T0 + 802),
        vec![
            act("slot1", JobAction::Continue),
            vacate("slot1", PREEMPT_REASON, 1011)
        ]
    );
    assert_eq!(r.state("slot1"), VACATING);
    let ad = r.ad("slot1");
    assert_eq!(text(&ad, "Requirements"), "false");
    assert_eq!(r.int("slot1", "TotalJobSuspendTime"), 11 + 601);
    // MachineMaxVacateTime (10 minutes) later the soft kill becomes a hard one, repeated
    // every KILLING_TIMEOUT (30 s).
    assert_eq!(r.s.next_timer(T0 + 802), Some(T0 + 807));
    assert_eq!(r.eval(T0 + 1401), vec![]);
    assert_eq!(r.eval(T0 + 1402), vec![kill("slot1", PREEMPT_REASON, 1011)]);
    assert_eq!(r.state("slot1"), VACATING);
    assert_eq!(r.eval(T0 + 1431), vec![]);
    assert_eq!(r.eval(T0 + 1432), vec![kill("slot1", PREEMPT_REASON, 1011)]);
    // The job is gone: the claim ends, and with the keyboard busy the slot is the owner's
    // (#22).
    assert!(!r.s.job_ended(&slot("slot1"), T0 + 1440));
    assert_eq!(r.state("slot1"), OWNER);
    assert_eq!(r.eval(T0 + 1441), vec![]);
    let ad = r.ad("slot1");
    assert_eq!(int_of(&ad, "TotalTimePreemptingVacating"), 638);
    assert!(ad.lookup("RemoteUser").is_none());
}

fn int_of(ad: &ClassAd, attr: &str) -> i64 {
    ad.eval_attr(attr)
        .as_int()
        .unwrap_or_else(|| panic!("{attr} is not an integer: {:?}", ad.lookup(attr)))
}

#[test]
fn test_job_policy() {
    // 3.5.9.2: coltrane's test jobs start whatever happens, and are never suspended,
    // vacated or killed.
    let mut r = Rig::new(&format!(
        "NUM_SLOTS = 2\n{DESKTOP}\n{}",
        r#"
        START      = ($(START)) || Owner == "coltrane"
        SUSPEND    = ($(SUSPEND)) && Owner != "coltrane"
        CONTINUE   = $(CONTINUE)
        PREEMPT    = ($(PREEMPT)) && Owner != "coltrane"
        KILL       = $(KILL)
"#
    ));
    let coltrane = job("Owner = \"coltrane\"");
    let alice = job("");
    r.run("slot1", &coltrane, T0);
    r.run("slot2", &alice, T0);
    r.keyboard(5);
    // FALSE || UNDEFINED: the free slots would stay Unclaimed, for coltrane.
    assert_eq!(r.eval(T0 + 100), vec![act("slot2", JobAction::Suspend)]);
    assert_eq!(r.state("slot1"), CLAIMED_BUSY);
    assert_eq!(r.state("slot2"), SUSPENDED);
    assert_eq!(
        r.eval(T0 + 701),
        vec![
            act("slot2", JobAction::Continue),
            vacate("slot2", PREEMPT_REASON, 1011)
        ]
    );
    assert_eq!(r.eval(T0 + 5000), vec![kill("slot2", PREEMPT_REASON, 1011)]);
    assert_eq!(r.state("slot1"), CLAIMED_BUSY);
    assert!(!r.s.job_ended(&slot("slot2"), T0 + 5001));
    assert_eq!(r.state("slot2"), UNCLAIMED);
    // Only coltrane's jobs start while the keyboard is busy.
    assert!(r.s.claim(&slot("slot2"), &alice, &[], T0 + 5002).is_err());
    r.run("slot2", &coltrane, T0 + 5002);
    assert_eq!(r.eval(T0 + 6000), vec![]);
}

/// Seconds since the epoch of a local time.
fn local(y: i32, m: u32, d: u32, h: u32, min: u32) -> i64 {
    use chrono::TimeZone;
    chrono::Local
        .with_ymd_and_hms(y, m, d, h, min, 0)
        .earliest()
        .unwrap()
        .timestamp()
}

#[test]
fn time_of_day_policy() {
    // 3.5.9.3, on the default policy: jobs start only after hours, and a job the morning
    // finds running is preempted rather than suspended. 2024-01-08 is a Monday.
    let time_of_day = r#"
WorkHours = ( (ClockMin >= 480 && ClockMin < 1020) && \
              (ClockDay > 0 && ClockDay < 6) )
AfterHours = ( (ClockMin < 480 || ClockMin >= 1020) || \
               (ClockDay == 0 || ClockDay == 6) )
# Only start jobs after hours.
START = $(AfterHours) && $(CPUIdle) && KeyboardIdle > $(StartIdleTime)

# Consider the machine busy during work hours, or if the keyboard or
# CPU are busy.
MachineBusy = ( $(WorkHours) || $(CPUBusy) || $(KeyboardBusy) )
WANT_SUSPEND = $(AfterHours)
"#;
    let monday7 = local(2024, 1, 8, 7, 0);
    let mut r = Rig::at(&format!("NUM_SLOTS = 1\n{DESKTOP}\n{time_of_day}"), monday7);
    assert_eq!(r.state("slot1"), UNCLAIMED);
    let monday9 = local(2024, 1, 8, 9, 0);
    assert_eq!(r.eval(monday9), vec![]);
    assert_eq!(r.int("slot1", "ClockMin"), 540);
    assert_eq!(r.int("slot1", "ClockDay"), 1);
    assert_eq!(r.state("slot1"), OWNER);
    assert!(r.s.claim(&slot("slot1"), &job(""), &[], monday9).is_err());

    let monday20 = local(2024, 1, 8, 20, 0);
    assert_eq!(r.eval(monday20), vec![]);
    assert_eq!(r.state("slot1"), UNCLAIMED);
    r.run("slot1", &job(""), monday20);
    // After hours the owner's return suspends the job ...
    r.keyboard(5);
    assert_eq!(
        r.eval(monday20 + 1800),
        vec![act("slot1", JobAction::Suspend)]
    );
    r.keyboard(400);
    assert_eq!(
        r.eval(monday20 + 1900),
        vec![act("slot1", JobAction::Continue)]
    );
    // ... in the morning it preempts it at once.
    r.keyboard(5);
    let tuesday9 = local(2024, 1, 9, 9, 0);
    assert_eq!(
        r.eval(tuesday9),
        vec![vacate("slot1", PREEMPT_REASON, 1011)]
    );
    assert_eq!(r.state("slot1"), VACATING);
    assert!(!r.s.job_ended(&slot("slot1"), tuesday9 + 5));
    assert_eq!(r.state("slot1"), OWNER);
}

/// 3.5.9.4's policy, as the manual writes it. `JustCpu` is the default configuration's
/// macro the example relies on (HTCondor 24: `use FEATURE : POLICY_EXPR_FRAGMENTS`).
const DESKTOP_OR_NOT: &str = r#"
JustCpu = ($(CPUBusy) && ($(KeyboardBusy) == False))
# If "IsDesktop" is configured, make it an attribute of the machine ClassAd.
STARTD_ATTRS = IsDesktop

# Only consider starting jobs if:
# 1) the load average is low enough OR the machine is currently
#    running an HTCondor job
# 2) AND the user is not active (if a desktop)
START = ( ($(CPUIdle) || (State != "Unclaimed" && State != "Owner")) \
          && (IsDesktop =!= True || (KeyboardIdle > $(StartIdleTime))) )

# Suspend (instead of vacating/killing) for the following cases:
WANT_SUSPEND = ( $(SmallJob) || $(JustCpu) \
                 || $(IsVanilla) )

# When preempting, vacate (instead of killing) in the following cases:
WANT_VACATE  = ( $(ActivationTimer) > 10 * $(MINUTE) \
                 || $(IsVanilla) )

# Suspend jobs if:
# 1) The CPU has been busy for more than 2 minutes, AND
# 2) the job has been running for more than 90 seconds
# 3) OR suspend if this is a desktop and the user is active
SUSPEND = ( ((CpuBusyTime > 2 * $(MINUTE)) && ($(ActivationTimer) > 90)) \
            || ( IsDesktop =?= True && $(KeyboardBusy) ) )

# Continue jobs if:
# 1) the CPU is idle, AND 
# 2) we've been suspended more than 5 minutes AND
# 3) the keyboard has been idle for long enough (if this is a desktop)
CONTINUE = ( $(CPUIdle) && ($(ActivityTimer) > 300) \
             && (IsDesktop =!= True || (KeyboardIdle > $(ContinueIdleTime))) )

# Preempt jobs if:
# 1) The job is suspended and has been suspended longer than we want
# 2) OR, we don't want to suspend this job, but the conditions to
#    suspend jobs have been met (someone is using the machine)
PREEMPT = ( ((Activity == "Suspended") && \
            ($(ActivityTimer) > $(MaxSuspendTime))) \
           || (SUSPEND && (WANT_SUSPEND == False)) )

# Replace 0 in the following expression with whatever amount of
# retirement time you want dedicated machines to provide.  The other part
# of the expression forces the whole expression to 0 on desktop
# machines.
MAXJOBRETIREMENTTIME = (IsDesktop =!= True) * 0

# Kill jobs if they have taken too long to vacate gracefully
MachineMaxVacateTime = 10 * $(MINUTE)
KILL = False
"#;

#[test]
fn desktop_and_non_desktop_policy() {
    let mut desk = Rig::new(&format!(
        "NUM_SLOTS = 1\n{DESKTOP_OR_NOT}\nIsDesktop = True"
    ));
    let mut node = Rig::new(&format!("NUM_SLOTS = 1\n{DESKTOP_OR_NOT}"));
    assert!(desk.ad("slot1").eval_bool("IsDesktop", None));
    assert!(node.ad("slot1").lookup("IsDesktop").is_none());
    desk.run("slot1", &job(""), T0);
    node.run("slot1", &job(""), T0);
    // Logging in to debug: only the desktop cares.
    desk.keyboard(5);
    node.keyboard(5);
    assert_eq!(desk.eval(T0 + 100), vec![act("slot1", JobAction::Suspend)]);
    assert_eq!(node.eval(T0 + 100), vec![]);
    assert_eq!(node.state("slot1"), CLAIMED_BUSY);
    // The CPU busy with other work for more than 2 minutes suspends on both.
    node.inputs("KeyboardIdle = 5\nConsoleIdle = 5\nLoadAvg = 1.0\n");
    assert_eq!(node.eval(T0 + 200), vec![]);
    assert_eq!(node.int("slot1", "CpuBusyTime"), 0);
    assert_eq!(node.eval(T0 + 320), vec![]);
    assert_eq!(node.int("slot1", "CpuBusyTime"), 120);
    assert_eq!(node.eval(T0 + 321), vec![act("slot1", JobAction::Suspend)]);
    node.inputs("KeyboardIdle = 5\nConsoleIdle = 5\nLoadAvg = 0\n");
    assert_eq!(node.eval(T0 + 621), vec![]);
    assert_eq!(node.eval(T0 + 622), vec![act("slot1", JobAction::Continue)]);
    // The desktop's user stays: suspended past MaxSuspendTime, vacated.
    assert_eq!(
        desk.eval(T0 + 701),
        vec![
            act("slot1", JobAction::Continue),
            vacate("slot1", PREEMPT_REASON, 1011)
        ]
    );
}

#[test]
fn suspendable_slots_policy() {
    // 3.5.9.6 on a one-core machine: slot1 is non-suspendable, slot2 suspendable. (The
    // manual's NonSuspendableSlotState lacks its last parenthesis; it is closed here.)
    let mut r = Rig::new(
        r#"DETECTED_CORES = 1
# Lie to HTCondor, to achieve 2 slots for each real slot
NUM_CPUS = $(DETECTED_CORES)*2
# There is no good way to tell HTCondor that the two slots should be treated
# as though they share the same real memory, so lie about how much
# memory we have.
MEMORY = $(DETECTED_MEMORY)*2

# Slots 1 through DETECTED_CORES are nonsuspendable and the rest are
# suspendable
IsSuspendableSlot = SlotID > $(DETECTED_CORES)

# If I am a suspendable slot, my corresponding nonsuspendable slot is
# my SlotID plus $(DETECTED_CORES)
NonSuspendableSlotState = eval(strcat("slot",SlotID-$(DETECTED_CORES),"_State"))

# The above expression looks at slotX_State, so we need to add
# State to the list of slot attributes to advertise.
STARTD_SLOT_ATTRS = $(STARTD_SLOT_ATTRS) State

# For convenience, advertise these expressions in the machine ad.
STARTD_ATTRS = $(STARTD_ATTRS) IsSuspendableSlot NonSuspendableSlotState

MyNonSuspendableSlotIsIdle = \
  (NonSuspendableSlotState =!= "Claimed" && NonSuspendableSlotState =!= "Preempting")

# NonSuspendable slots are always willing to start jobs.
# Suspendable slots are only willing to start if the NonSuspendable slot is idle.
START = \
  IsSuspendableSlot!=True && IsSuspendableJob=!=True || \
  IsSuspendableSlot && IsSuspendableJob==True && $(MyNonSuspendableSlotIsIdle)

# Suspend the suspendable slot if the other slot is busy.
SUSPEND = \
  IsSuspendableSlot && $(MyNonSuspendableSlotIsIdle)!=True

WANT_SUSPEND = $(SUSPEND)

CONTINUE = ($(SUSPEND)) != True
"#,
    );
    assert_eq!(r.s.slot_names(), [slot("slot1"), slot("slot2")]);
    let suspendable = job("IsSuspendableJob = True");
    let plain = job("");
    assert!(r.s.claim(&slot("slot2"), &plain, &[], T0).is_err());
    assert!(r.s.claim(&slot("slot1"), &suspendable, &[], T0).is_err());
    r.run("slot2", &suspendable, T0);
    assert_eq!(r.eval(T0 + 10), vec![]);
    // The non-suspendable slot gets a job: the other one's is suspended.
    r.run("slot1", &plain, T0 + 20);
    assert_eq!(string(&r.ad("slot2"), "NonSuspendableSlotState"), "Claimed");
    assert_eq!(r.eval(T0 + 25), vec![act("slot2", JobAction::Suspend)]);
    assert_eq!(r.state("slot2"), SUSPENDED);
    // The claim stays when its job ends; the suspended job waits for the claim to go.
    assert!(r.s.job_ended(&slot("slot1"), T0 + 100));
    assert_eq!(r.eval(T0 + 101), vec![]);
    r.s.release(&slot("slot1"), T0 + 102);
    assert_eq!(r.eval(T0 + 102), vec![act("slot2", JobAction::Continue)]);
    assert_eq!(r.state("slot2"), CLAIMED_BUSY);
    assert_eq!(r.int("slot2", "TotalJobSuspendTime"), 77);
}

/// A policy whose PREEMPT follows the keyboard and SUSPEND the console, with retirement.
const RETIRE: &str = "NUM_SLOTS = 1
SUSPEND = ConsoleIdle < 60
CONTINUE = ConsoleIdle >= 60
WANT_SUSPEND = $(SUSPEND)
PREEMPT = KeyboardIdle < 60
MAXJOBRETIREMENTTIME = 3600
MachineMaxVacateTime = 100
POLLING_INTERVAL = 100000
";

#[test]
fn retirement_to_the_second() {
    let mut r = Rig::new(RETIRE);
    // The job asks for less retirement than the machine offers: its own wins.
    r.run("slot1", &job("MaxJobRetirementTime = 1000"), T0);
    assert_eq!(r.int("slot1", "RetirementTimeRemaining"), 1000);
    assert_eq!(r.eval(T0 + 50), vec![]);
    assert_eq!(r.int("slot1", "RetirementTimeRemaining"), 950);
    // PREEMPT: retirement (#13), nothing done to the job yet.
    r.keyboard(5);
    assert_eq!(r.eval(T0 + 100), vec![]);
    assert_eq!(r.state("slot1"), RETIRING);
    // Vacated the vacate time (100 s) before the retirement's end: at run time 900.
    assert_eq!(r.s.next_timer(T0 + 100), Some(T0 + 900));
    // Suspended for 200 s in retirement (#20, #16): that time does not count.
    r.inputs("KeyboardIdle = 5\nConsoleIdle = 5\nLoadAvg = 0\n");
    assert_eq!(r.eval(T0 + 300), vec![act("slot1", JobAction::Suspend)]);
    assert_eq!(r.state("slot1"), SUSPENDED);
    assert_eq!(r.s.next_timer(T0 + 300), Some(T0 + 300 + 100_000));
    assert_eq!(r.eval(T0 + 499), vec![]);
    assert_eq!(r.int("slot1", "RetirementTimeRemaining"), 700);
    r.keyboard(5);
    assert_eq!(r.eval(T0 + 500), vec![act("slot1", JobAction::Continue)]);
    assert_eq!(r.state("slot1"), RETIRING);
    assert_eq!(r.s.next_timer(T0 + 500), Some(T0 + 1100));
    assert_eq!(r.eval(T0 + 1099), vec![]);
    assert_eq!(r.state("slot1"), RETIRING);
    assert_eq!(r.int("slot1", "RetirementTimeRemaining"), 101);
    assert_eq!(
        r.eval(T0 + 1100),
        vec![vacate("slot1", PREEMPT_REASON, 1011)]
    );
    assert_eq!(r.state("slot1"), VACATING);
    assert_eq!(r.s.next_timer(T0 + 1100), Some(T0 + 1200));
    assert_eq!(r.eval(T0 + 1199), vec![]);
    // Hard-killed at the retirement's end.
    assert_eq!(r.eval(T0 + 1200), vec![kill("slot1", PREEMPT_REASON, 1011)]);
    assert_eq!(r.s.next_timer(T0 + 1200), Some(T0 + 1230));
    assert!(!r.s.job_ended(&slot("slot1"), T0 + 1201));
    assert_eq!(r.state("slot1"), UNCLAIMED);

    // The job asking for more than the machine offers gets the machine's.
    let mut r = Rig::new(RETIRE);
    r.run("slot1", &job("MaxJobRetirementTime = 5000"), T0);
    assert_eq!(r.int("slot1", "RetirementTimeRemaining"), 3600);
    r.keyboard(5);
    assert_eq!(r.eval(T0 + 10), vec![]);
    assert_eq!(r.s.next_timer(T0 + 10), Some(T0 + 3500));
    // A retiring job that ends on its own ends the claim (#18, #22).
    assert!(!r.s.job_ended(&slot("slot1"), T0 + 20));
    assert_eq!(r.state("slot1"), UNCLAIMED);
    assert_eq!(r.eval(T0 + 21), vec![]);
}

#[test]
fn vacate_time_from_the_job_and_its_retirement() {
    let rig = |mjrt: i64, job_attrs: &str| {
        let mut r = Rig::new(&format!(
            "NUM_SLOTS = 1\nPREEMPT = KeyboardIdle < 60\nMAXJOBRETIREMENTTIME = {mjrt}\nMachineMaxVacateTime = 100\nPOLLING_INTERVAL = 100000"
        ));
        r.run("slot1", &job(job_attrs), T0);
        r.keyboard(5);
        r
    };
    // The job wants more vacate time than the machine's 100 s, and has the retirement
    // to pay for it: vacated 300 s before the retirement's end, killed at its end.
    let mut r = rig(1000, "JobMaxVacateTime = 300");
    assert_eq!(r.eval(T0 + 100), vec![]);
    assert_eq!(r.s.next_timer(T0 + 100), Some(T0 + 700));
    assert_eq!(r.eval(T0 + 699), vec![]);
    assert_eq!(
        r.eval(T0 + 700),
        vec![vacate("slot1", PREEMPT_REASON, 1011)]
    );
    assert_eq!(r.eval(T0 + 999), vec![]);
    assert_eq!(r.eval(T0 + 1000), vec![kill("slot1", PREEMPT_REASON, 1011)]);
    // Less than the machine's: the job's.
    let mut r = rig(1000, "JobMaxVacateTime = 50");
    assert_eq!(r.eval(T0 + 100), vec![]);
    assert_eq!(
        r.eval(T0 + 950),
        vec![vacate("slot1", PREEMPT_REASON, 1011)]
    );
    assert_eq!(r.eval(T0 + 1000), vec![kill("slot1", PREEMPT_REASON, 1011)]);
    // Some retirement, less than wanted but more than the machine's: all of it.
    let mut r = rig(150, "JobMaxVacateTime = 300");
    assert_eq!(r.eval(T0), vec![vacate("slot1", PREEMPT_REASON, 1011)]);
    assert_eq!(r.s.next_timer(T0), Some(T0 + 150));
    assert_eq!(r.eval(T0 + 149), vec![]);
    assert_eq!(r.eval(T0 + 150), vec![kill("slot1", PREEMPT_REASON, 1011)]);
    // No retirement: the machine's.
    let mut r = rig(0, "JobMaxVacateTime = 300");
    assert_eq!(r.eval(T0 + 10), vec![vacate("slot1", PREEMPT_REASON, 1011)]);
    assert_eq!(r.eval(T0 + 109), vec![]);
    assert_eq!(r.eval(T0 + 110), vec![kill("slot1", PREEMPT_REASON, 1011)]);
    // KillSigTimeout, the old name, when JobMaxVacateTime is not given.
    let mut r = rig(0, "KillSigTimeout = 20");
    assert_eq!(r.eval(T0 + 10), vec![vacate("slot1", PREEMPT_REASON, 1011)]);
    assert_eq!(r.eval(T0 + 30), vec![kill("slot1", PREEMPT_REASON, 1011)]);
}

#[test]
fn killing_timeout_and_kill() {
    // WANT_VACATE false after PREEMPT: straight to Killing, the kill repeated every
    // KILLING_TIMEOUT until the job is gone.
    let mut r = Rig::new(
        "NUM_SLOTS = 1\nPREEMPT = KeyboardIdle < 60\nWANT_VACATE = False\nKILLING_TIMEOUT = 10\nPOLLING_INTERVAL = 100000",
    );
    r.run("slot1", &job(""), T0);
    r.keyboard(5);
    assert_eq!(r.eval(T0 + 5), vec![kill("slot1", PREEMPT_REASON, 1011)]);
    assert_eq!(r.state("slot1"), KILLING);
    assert_eq!(r.s.next_timer(T0 + 5), Some(T0 + 15));
    assert_eq!(r.eval(T0 + 14), vec![]);
    assert_eq!(r.eval(T0 + 15), vec![kill("slot1", PREEMPT_REASON, 1011)]);
    assert_eq!(r.eval(T0 + 25), vec![kill("slot1", PREEMPT_REASON, 1011)]);
    assert!(!r.s.job_ended(&slot("slot1"), T0 + 26));
    assert_eq!(r.state("slot1"), UNCLAIMED);
    let ad = r.ad("slot1");
    assert_eq!(int_of(&ad, "TotalTimePreemptingKilling"), 21);

    // KILL while vacating (#21).
    let mut r = Rig::new(
        "NUM_SLOTS = 1\nPREEMPT = KeyboardIdle < 60\nKILL = KeyboardIdle < 10\nPOLLING_INTERVAL = 100000",
    );
    r.run("slot1", &job(""), T0);
    r.keyboard(30);
    assert_eq!(r.eval(T0 + 5), vec![vacate("slot1", PREEMPT_REASON, 1011)]);
    assert_eq!(r.state("slot1"), VACATING);
    r.keyboard(5);
    assert_eq!(r.eval(T0 + 6), vec![kill("slot1", PREEMPT_REASON, 1011)]);
    assert_eq!(r.state("slot1"), KILLING);
}

#[test]
fn idle_claims_end() {
    // CLAIM_WORKLIFE: an idle claim that ran a job ends once older.
    let mut r = Rig::new("NUM_SLOTS = 1\nCLAIM_WORKLIFE = 600");
    r.run("slot1", &job(""), T0);
    assert!(r.s.job_ended(&slot("slot1"), T0 + 100));
    assert_eq!(r.state("slot1"), (State::Claimed, Activity::Idle));
    assert_eq!(r.s.next_timer(T0 + 100), Some(T0 + 105));
    assert_eq!(r.eval(T0 + 600), vec![]);
    assert_eq!(r.state("slot1"), (State::Claimed, Activity::Idle));
    assert_eq!(
        r.eval(T0 + 601),
        vec![Decision::ClaimEnded {
            slot: slot("slot1"),
            reason: "idle claim shutting down due to CLAIM_WORKLIFE".into()
        }]
    );
    assert_eq!(r.state("slot1"), UNCLAIMED);
    assert!(r.s.claim_id(&slot("slot1")).is_none());
    // 0: one job per claim.
    let mut r = Rig::new("NUM_SLOTS = 1\nCLAIM_WORKLIFE = 0");
    r.run("slot1", &job(""), T0);
    assert!(!r.s.job_ended(&slot("slot1"), T0 + 100));
    assert_eq!(r.state("slot1"), UNCLAIMED);
    assert_eq!(r.eval(T0 + 100), vec![]);
    // START false for the claim's job (#10).
    let mut r = Rig::new("NUM_SLOTS = 1\nSTART = KeyboardIdle > 100");
    r.s.claim(&slot("slot1"), &job(""), &[], T0).unwrap();
    r.keyboard(5);
    assert_eq!(
        r.eval(T0 + 10),
        vec![Decision::ClaimEnded {
            slot: slot("slot1"),
            reason: "START is false".into()
        }]
    );
    assert_eq!(r.state("slot1"), UNCLAIMED);
}

#[test]
fn preemption_by_the_negotiator() {
    // The defaults: no retirement, 10 minutes to vacate.
    let mut r = Rig::new("NUM_SLOTS = 2");
    r.run("slot1", &job(""), T0);
    r.s.preempt(&slot("slot1"), true, T0 + 10).unwrap();
    assert_eq!(r.state("slot1"), VACATING);
    let rank = "Preempted for a higher Ranked job";
    assert_eq!(r.eval(T0 + 10), vec![vacate("slot1", rank, 1018)]);
    assert_eq!(r.eval(T0 + 609), vec![]);
    assert_eq!(r.eval(T0 + 610), vec![kill("slot1", rank, 1018)]);
    assert!(!r.s.job_ended(&slot("slot1"), T0 + 611));
    assert_eq!(r.state("slot1"), UNCLAIMED);
    // An idle claim ends at once; an unclaimed slot cannot be preempted.
    r.s.claim(&slot("slot2"), &job(""), &[], T0).unwrap();
    r.s.preempt(&slot("slot2"), false, T0 + 20).unwrap();
    assert_eq!(
        r.eval(T0 + 20),
        vec![Decision::ClaimEnded {
            slot: slot("slot2"),
            // The retirement of a claim with no job is over at once (eval_policy's order).
            reason: "claim retirement ended/expired".into()
        }]
    );
    assert!(matches!(
        r.s.preempt(&slot("slot2"), false, T0 + 30),
        Err(StartdError::WrongState { .. })
    ));

    // With retirement: retiring until the vacate time before its end.
    let conf = "NUM_SLOTS = 1\nMAXJOBRETIREMENTTIME = 500\nMachineMaxVacateTime = 60\nPOLLING_INTERVAL = 100000";
    let mut r = Rig::new(conf);
    r.run("slot1", &job(""), T0);
    r.s.preempt(&slot("slot1"), false, T0 + 100).unwrap();
    assert_eq!(r.state("slot1"), RETIRING);
    assert_eq!(r.eval(T0 + 100), vec![]);
    assert_eq!(r.s.next_timer(T0 + 100), Some(T0 + 440));
    // Another job for the claim is not taken while it retires.
    assert!(!r.s.may_reuse(&slot("slot1"), &job(""), T0 + 100));
    let prio = "Preempted for a Priority user";
    assert_eq!(r.eval(T0 + 440), vec![vacate("slot1", prio, 1019)]);
    // The preempting match goes away before that: back to work (#19).
    let mut r = Rig::new(conf);
    r.run("slot1", &job(""), T0);
    r.s.preempt(&slot("slot1"), false, T0 + 100).unwrap();
    r.s.withdraw_preemption(&slot("slot1"), T0 + 200).unwrap();
    assert_eq!(r.state("slot1"), CLAIMED_BUSY);
    assert_eq!(r.eval(T0 + 1000), vec![]);
}

/// Two static slots with retirement, the first running a job from T0.
fn draining_rig(extra: &str) -> Rig {
    let mut r = Rig::new(&format!(
        "NUM_SLOTS = 2\nMAXJOBRETIREMENTTIME = 1000\nMachineMaxVacateTime = 60\nPOLLING_INTERVAL = 100000\n{extra}"
    ));
    r.run("slot1", &job(""), T0);
    r
}

fn request(schedule: DrainSchedule, on_completion: OnCompletion) -> DrainRequest {
    DrainRequest {
        schedule,
        reason: Some("by tester".into()),
        on_completion,
        ..DrainRequest::default()
    }
}

#[test]
fn graceful_drain() {
    let mut r = draining_rig("");
    let id =
        r.s.drain(
            request(DrainSchedule::Graceful, OnCompletion::Nothing),
            T0 + 100,
        )
        .unwrap();
    assert_eq!(id, "1");
    assert_eq!(r.state("slot1"), RETIRING);
    assert_eq!(r.state("slot2"), DRAINED_RETIRING);
    assert_eq!(r.eval(T0 + 100), vec![]);
    for n in ["slot1", "slot2"] {
        let ad = r.ad(n);
        assert!(ad.eval_bool("Draining", None));
        assert_eq!(string(&ad, "DrainReason"), "by tester");
        assert_eq!(string(&ad, "DrainingRequestId"), "1");
        assert_eq!(int_of(&ad, "LastDrainStartTime"), T0 + 100);
        assert!(ad.lookup("LastDrainStopTime").is_none());
        assert_eq!(text(&ad, "Requirements"), "false");
        assert_eq!(
            int_of(&ad, "ExpectedMachineGracefulDrainingCompletion"),
            T0 + 1000
        );
        assert_eq!(
            int_of(&ad, "ExpectedMachineQuickDrainingCompletion"),
            T0 + 160
        );
        // CPU-seconds: the slots have two CPUs each.
        assert_eq!(
            int_of(&ad, "ExpectedMachineGracefulDrainingBadput"),
            2 * (100 + 900)
        );
        assert_eq!(
            int_of(&ad, "ExpectedMachineQuickDrainingBadput"),
            2 * (100 + 60)
        );
    }
    let d = r.s.daemon_ad();
    assert_eq!(string(&d, "DrainingRequestId"), "1");
    // No new claims; the claim takes no new job.
    assert!(r.s.claim(&slot("slot2"), &job(""), &[], T0 + 100).is_err());
    assert!(!r.s.may_reuse(&slot("slot1"), &job(""), T0 + 100));
    // The retirement is honoured: vacated with its vacate time to spare.
    assert_eq!(r.s.next_timer(T0 + 100), Some(T0 + 940));
    assert_eq!(r.eval(T0 + 939), vec![]);
    assert_eq!(r.eval(T0 + 940), vec![vacate("slot1", DRAIN_REASON, 1014)]);
    assert!(!r.s.job_ended(&slot("slot1"), T0 + 950));
    assert_eq!(r.state("slot1"), DRAINED_IDLE);
    assert_eq!(r.state("slot2"), DRAINED_IDLE);
    assert_eq!(r.eval(T0 + 1000), vec![]);
    let ad = r.ad("slot1");
    assert_eq!(string(&ad, "State"), "Drained");
    assert_eq!(int_of(&ad, "TotalMachineDrainingBadput"), 2 * 950);
    // slot2 drained from T0+100, slot1 from T0+950, two CPUs each.
    assert_eq!(
        int_of(&ad, "TotalMachineDrainingUnclaimedTime"),
        2 * (900 + 50)
    );
    assert_eq!(
        int_of(&ad, "ExpectedMachineGracefulDrainingCompletion"),
        T0 + 950
    );
    // Cancelled: back to Unclaimed (#35, #1).
    let e = r.s.cancel_drain(Some("2"), T0 + 1000).unwrap_err();
    assert!(
        matches!(e, StartdError::Drain { code: 10002, ref message } if message == "No matching draining request id 2."),
        "{e}"
    );
    r.s.cancel_drain(Some("1"), T0 + 1000).unwrap();
    assert_eq!(r.state("slot1"), UNCLAIMED);
    assert_eq!(r.state("slot2"), UNCLAIMED);
    assert_eq!(r.eval(T0 + 1000), vec![]);
    let ad = r.ad("slot1");
    assert!(ad.lookup("Draining").is_none());
    assert!(ad.lookup("DrainReason").is_none());
    assert_eq!(int_of(&ad, "LastDrainStopTime"), T0 + 1000);
    assert_eq!(int_of(&ad, "TotalTimeDrainedIdle"), 50);
    assert_eq!(text(&ad, "Requirements"), "START");
    // A cancel with no id when nothing drains is fine; the next request is number 2.
    r.s.cancel_drain(None, T0 + 1001).unwrap();
    let id =
        r.s.drain(
            request(DrainSchedule::Graceful, OnCompletion::Nothing),
            T0 + 1002,
        )
        .unwrap();
    assert_eq!(id, "2");
}

#[test]
fn cancelled_graceful_drain_unretires() {
    let mut r = draining_rig("");
    r.s.drain(
        request(DrainSchedule::Graceful, OnCompletion::Nothing),
        T0 + 100,
    )
    .unwrap();
    assert_eq!(r.state("slot1"), RETIRING);
    r.s.cancel_drain(None, T0 + 200).unwrap();
    // #19, #34
    assert_eq!(r.state("slot1"), CLAIMED_BUSY);
    assert_eq!(r.state("slot2"), UNCLAIMED);
    assert_eq!(r.eval(T0 + 900), vec![]);
    assert!(r.s.job_ended(&slot("slot1"), T0 + 1000));
}

#[test]
fn quick_and_fast_drains() {
    let mut r = draining_rig("");
    r.s.drain(
        request(DrainSchedule::Quick, OnCompletion::Nothing),
        T0 + 100,
    )
    .unwrap();
    assert_eq!(r.state("slot1"), VACATING);
    assert_eq!(r.eval(T0 + 100), vec![vacate("slot1", DRAIN_REASON, 1014)]);
    assert_eq!(r.eval(T0 + 160), vec![kill("slot1", DRAIN_REASON, 1014)]);
    assert!(!r.s.job_ended(&slot("slot1"), T0 + 170));
    assert_eq!(r.state("slot1"), DRAINED_IDLE);
    assert_eq!(
        int_of(&r.ad("slot2"), "TotalMachineDrainingBadput"),
        2 * 170
    );

    let mut r = draining_rig("");
    r.s.drain(
        request(DrainSchedule::Fast, OnCompletion::Nothing),
        T0 + 100,
    )
    .unwrap();
    assert_eq!(r.state("slot1"), KILLING);
    assert_eq!(r.eval(T0 + 100), vec![kill("slot1", DRAIN_REASON, 1014)]);
    assert!(!r.s.job_ended(&slot("slot1"), T0 + 101));
    assert_eq!(r.state("slot1"), DRAINED_IDLE);
    assert_eq!(r.state("slot2"), DRAINED_IDLE);
}

#[test]
fn drains_on_completion() {
    let idle = || Rig::new("NUM_SLOTS = 2");
    // Nothing: drained until cancelled. A claim without a job ends with the drain.
    let mut r = idle();
    r.s.claim(&slot("slot2"), &job(""), &[], T0).unwrap();
    r.s.drain(request(DrainSchedule::Graceful, OnCompletion::Nothing), T0)
        .unwrap();
    assert_eq!(
        r.eval(T0 + 10),
        vec![Decision::ClaimEnded {
            slot: slot("slot2"),
            reason: DRAIN_REASON.into()
        }]
    );
    assert_eq!(r.state("slot1"), DRAINED_IDLE);
    assert_eq!(r.state("slot2"), DRAINED_IDLE);
    // Resume: back to work once drained, the drain's stop time recorded.
    let mut r = draining_rig("");
    r.s.drain(
        request(DrainSchedule::Quick, OnCompletion::Resume),
        T0 + 100,
    )
    .unwrap();
    assert_eq!(r.state("slot2"), DRAINED_RETIRING);
    assert_eq!(r.eval(T0 + 100), vec![vacate("slot1", DRAIN_REASON, 1014)]);
    assert!(!r.s.job_ended(&slot("slot1"), T0 + 120));
    assert_eq!(r.state("slot1"), UNCLAIMED);
    assert_eq!(r.state("slot2"), UNCLAIMED);
    assert_eq!(r.eval(T0 + 120), vec![]);
    let ad = r.ad("slot1");
    assert!(ad.lookup("Draining").is_none());
    assert_eq!(int_of(&ad, "LastDrainStopTime"), T0 + 120);
    // Exit and Restart: asked of the master once, the slots left drained.
    for on in [OnCompletion::Exit, OnCompletion::Restart] {
        let mut r = idle();
        r.s.drain(request(DrainSchedule::Graceful, on), T0).unwrap();
        assert_eq!(r.eval(T0), vec![Decision::Daemon(on)]);
        assert_eq!(r.eval(T0 + 10), vec![]);
        assert_eq!(r.state("slot1"), DRAINED_IDLE);
        assert!(r.ad("slot1").eval_bool("Draining", None));
    }
    // Reconfig: draining stops, and the master reconfigures.
    let mut r = idle();
    r.s.drain(request(DrainSchedule::Fast, OnCompletion::Reconfig), T0)
        .unwrap();
    assert_eq!(r.eval(T0), vec![Decision::Daemon(OnCompletion::Reconfig)]);
    assert_eq!(r.state("slot1"), UNCLAIMED);
    assert!(r.ad("slot1").lookup("Draining").is_none());
}

#[test]
fn drain_requests_refused() {
    let mut r = Rig::new("NUM_SLOTS = 2");
    let check = |c: &str| DrainRequest {
        check: Some(c.into()),
        ..DrainRequest::default()
    };
    let refused = |e: StartdError, text: &str, code: i64| match e {
        StartdError::Drain { code: c, message } => {
            assert_eq!((c, message.as_str()), (code, text));
        }
        other => panic!("{other}"),
    };
    refused(
        r.s.drain(check("SlotID == 1"), T0).unwrap_err(),
        &format!("Draining check expression is false on slot2@{HOST}."),
        10003,
    );
    refused(
        r.s.drain(check("NoSuchAttribute"), T0).unwrap_err(),
        &format!("Draining check expression does not evaluate to a bool on slot1@{HOST}."),
        10003,
    );
    refused(
        r.s.drain(check("1"), T0).unwrap_err(),
        &format!("Draining check expression does not evaluate to a bool on slot1@{HOST}."),
        10003,
    );
    assert!(matches!(
        r.s.drain(check("SlotID =="), T0),
        Err(StartdError::BadExpression { what: "check", .. })
    ));
    // Nothing changed.
    assert_eq!(r.state("slot1"), UNCLAIMED);
    assert!(r.ad("slot1").lookup("Draining").is_none());
    assert_eq!(r.s.drain(check("SlotID > 0"), T0).unwrap(), "1");
    refused(
        r.s.drain(DrainRequest::default(), T0).unwrap_err(),
        "Draining already in progress.",
        10001,
    );
    // The caller may name the request.
    r.s.cancel_drain(Some("1"), T0 + 1).unwrap();
    let named = DrainRequest {
        request_id: Some("defrag-7".into()),
        ..DrainRequest::default()
    };
    assert_eq!(r.s.drain(named, T0 + 2).unwrap(), "defrag-7");
    r.s.cancel_drain(Some("defrag-7"), T0 + 3).unwrap();
}

#[test]
fn draining_start_expression() {
    // While the original job retires, the drain's START lets bob's jobs in; once the
    // original job is gone, they are evicted too.
    let mut r = draining_rig("");
    let req = DrainRequest {
        start: Some("Owner == \"bob\"".into()),
        ..request(DrainSchedule::Graceful, OnCompletion::Nothing)
    };
    r.s.drain(req, T0 + 100).unwrap();
    assert_eq!(r.state("slot2"), DRAINED_RETIRING);
    let ad = r.ad("slot2");
    assert_eq!(text(&ad, "Start"), "Owner == \"bob\"");
    assert_eq!(text(&ad, "Requirements"), "START");
    assert!(r.s.has_free_resources());
    assert!(r.s.claim(&slot("slot2"), &job(""), &[], T0 + 100).is_err());
    let bob = job("Owner = \"bob\"");
    r.run("slot2", &bob, T0 + 100);
    assert!(r.ad("slot2").eval_bool("AcceptedWhileDraining", None));
    assert_eq!(r.eval(T0 + 200), vec![]);
    assert_eq!(r.state("slot2"), CLAIMED_BUSY);
    // The original job ends: the final draining evicts bob's.
    assert!(!r.s.job_ended(&slot("slot1"), T0 + 300));
    assert_eq!(r.state("slot1"), DRAINED_RETIRING);
    assert_eq!(r.eval(T0 + 300), vec![vacate("slot2", DRAIN_REASON, 1014)]);
    assert_eq!(r.state("slot2"), VACATING);
    assert!(!r.s.job_ended(&slot("slot2"), T0 + 310));
    assert_eq!(r.state("slot1"), DRAINED_IDLE);
    assert_eq!(r.state("slot2"), DRAINED_IDLE);
    assert_eq!(text(&r.ad("slot2"), "Requirements"), "false");
}

#[test]
fn partitionable_slot_drains() {
    let mut r = Rig::new("SLOT_TYPE_0_PARTITIONABLE = true\nPOLLING_INTERVAL = 100000");
    let p = slot("slot1");
    let d =
        r.s.claim(&p, &job(""), &super::cons(1.0, 128.0, 1024.0), T0)
            .unwrap();
    r.s.activate(&d, &job(""), T0).unwrap();
    r.s.drain(
        request(DrainSchedule::Quick, OnCompletion::Nothing),
        T0 + 10,
    )
    .unwrap();
    assert_eq!(r.state("slot1"), DRAINED_RETIRING);
    assert_eq!(r.s.state(&d), Some(VACATING));
    assert_eq!(r.eval(T0 + 10), vec![vacate("slot1_1", DRAIN_REASON, 1014)]);
    // The dynamic slot goes with its job; the partitionable slot has it all back.
    assert!(!r.s.job_ended(&d, T0 + 20));
    assert_eq!(r.s.state(&d), None);
    assert_eq!(r.state("slot1"), DRAINED_IDLE);
    assert_eq!(r.int("slot1", "Cpus"), 4);
}

#[test]
fn suspension_by_request() {
    let mut r = Rig::new("NUM_SLOTS = 1\nWANT_SUSPEND = True\nSUSPEND = False");
    r.run("slot1", &job(""), T0);
    r.s.suspend_claim(&slot("slot1"), T0 + 10).unwrap();
    assert_eq!(r.state("slot1"), SUSPENDED);
    // CONTINUE (true by default) does not resume a job suspended by request.
    assert_eq!(r.eval(T0 + 100), vec![]);
    assert_eq!(r.state("slot1"), SUSPENDED);
    r.s.continue_claim(&slot("slot1"), T0 + 110).unwrap();
    assert_eq!(r.state("slot1"), CLAIMED_BUSY);
    assert_eq!(r.eval(T0 + 110), vec![]);
    assert_eq!(r.int("slot1", "TotalJobRunTime"), 10);
    assert!(r.s.continue_claim(&slot("slot1"), T0 + 120).is_err());
}

#[test]
fn the_claimed_transitions() {
    use crate::startd::state::transition as t;
    use crate::startd::Event as E;
    use Activity::*;
    use State::*;
    assert_eq!(t(Claimed, Busy, E::Suspend), Some((Claimed, Suspended))); // 14
    assert_eq!(t(Claimed, Retiring, E::Suspend), Some((Claimed, Suspended))); // 20
    assert_eq!(t(Claimed, Suspended, E::Continue), Some((Claimed, Busy))); // 15
    assert_eq!(
        t(Claimed, Suspended, E::ContinueRetiring),
        Some((Claimed, Retiring))
    ); // 16
    assert_eq!(t(Claimed, Busy, E::Retire), Some((Claimed, Retiring))); // 13
    assert_eq!(t(Claimed, Retiring, E::Unretire), Some((Claimed, Busy))); // 19
    assert_eq!(t(Claimed, Idle, E::Vacate), Some((Preempting, Vacating))); // 10
    assert_eq!(
        t(Claimed, Suspended, E::Vacate),
        Some((Preempting, Vacating))
    ); // 17
    assert_eq!(t(Claimed, Retiring, E::Kill), Some((Preempting, Killing))); // 18
    assert_eq!(
        t(Preempting, Vacating, E::Kill),
        Some((Preempting, Killing))
    ); // 21
    assert_eq!(t(Preempting, Killing, E::Kill), None);
    assert_eq!(
        t(Claimed, Retiring, E::Deactivated),
        Some((Preempting, Vacating))
    ); // 18
    assert_eq!(t(Preempting, Vacating, E::Deactivated), Some((Owner, Idle))); // 22
    assert_eq!(t(Preempting, Killing, E::Deactivated), Some((Owner, Idle))); // 25
    assert_eq!(t(Owner, Idle, E::Drain), Some((Drained, Retiring))); // 36
    assert_eq!(t(Unclaimed, Idle, E::Drain), Some((Drained, Retiring))); // 37
    assert_eq!(
        t(Drained, Retiring, E::DrainComplete),
        Some((Drained, Idle))
    ); // 33
    assert_eq!(t(Drained, Retiring, E::DrainStopped), Some((Owner, Idle))); // 34
    assert_eq!(t(Drained, Idle, E::DrainStopped), Some((Owner, Idle))); // 35
    assert_eq!(t(Claimed, Busy, E::Drain), None);
}

#[test]
fn machine_inputs_file() {
    let r = Rig::new("NUM_SLOTS = 2\nSLOTS_CONNECTED_TO_KEYBOARD = 1");
    r.inputs("LoadAvg = 1.5\nKeyboardIdle = 42\n");
    let mut r = r;
    r.s.refresh(T0 + 10);
    let ads = r.s.slot_ads();
    assert_eq!(ads[0].eval_attr("TotalLoadAvg").as_number_real(), Some(1.5));
    assert_eq!(int_of(&ads[0], "KeyboardIdle"), 42);
    // Not connected to the keyboard: the startd's age plus the boost.
    assert_eq!(int_of(&ads[1], "KeyboardIdle"), 1210);
    // ConsoleIdle not given: the probe's (no terminal seen: disconnected).
    assert_eq!(int_of(&ads[0], "ConsoleIdle"), 1210);
    // Read again at every refresh.
    r.inputs("KeyboardIdle = 7\n");
    r.s.refresh(T0 + 20);
    assert_eq!(int_of(&r.ad("slot1"), "KeyboardIdle"), 7);
    assert_eq!(
        r.ad("slot1").eval_attr("TotalLoadAvg").as_number_real(),
        Some(0.5)
    );
}
