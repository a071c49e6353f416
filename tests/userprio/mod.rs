//! condor_userprio over an accountant database written through the library.

use condorlite::accountant::groups::{GroupSpec, GroupTree};
use condorlite::accountant::{Accountant, AccountantConfig, CustomerRecord};

use crate::common::TestEnvironment;

const T: i64 = 1_700_000_000;

/// Writes records into the pool's accountant database.
fn seed(
    env: &TestEnvironment,
    cfg: AccountantConfig,
    f: impl FnOnce(&mut condorlite::accountant::AccountantState),
) {
    let mut acct = Accountant::open(cfg, env.local_dir().join("spool")).unwrap();
    acct.update(|s, _| f(s)).unwrap();
}

fn alice(s: &mut condorlite::accountant::AccountantState) {
    s.last_update_time = T;
    s.customers.insert(
        "alice@submit.example.org".into(),
        CustomerRecord {
            resources_used: 1,
            weighted_resources_used: 1.0,
            weighted_accumulated_usage: 9000.0,
            accumulated_usage: 9000.0,
            begin_usage_time: T - 9000,
            last_usage_time: T,
            ..CustomerRecord::default()
        },
    );
}

fn trimmed(s: &str) -> String {
    s.lines().map(str::trim_end).collect::<Vec<_>>().join("\n") + "\n"
}

#[test]
fn the_default_table() {
    let env = TestEnvironment::new();
    seed(&env, AccountantConfig::default(), alice);
    let out = env.run("condor_userprio", ["-allusers"]);
    assert_eq!(out.status, Some(0), "{out}");
    assert_eq!(
        trimmed(&out.stdout),
        "Last Priority Update: 11/14 22:13
                          Effective   Priority  Wghted Total Usage  Time Since Submitter Submitter
User Name                  Priority    Factor   In Use (wghted-hrs) Last Usage   Floor    Ceiling
------------------------ ------------ --------- ------ ------------ ---------- --------- ---------
alice@submit.example.org       500.00   1000.00      1         2.50      <now>
------------------------ ------------ --------- ------ ------------ ---------- --------- ---------
Number of users: 1                                   1         2.50
"
    );
    // Every line is padded to the table's width.
    let width = out.stdout.lines().nth(3).unwrap().len();
    assert!(
        out.stdout.lines().skip(1).all(|l| l.len() == width),
        "{out}"
    );
    // Without -allusers only users active in the last day are shown.
    let out = env.run("condor_userprio", Vec::<&str>::new());
    assert!(!out.stdout.contains("alice@"), "{out}");
    assert!(out.stdout.contains("Number of users: 0"), "{out}");
    // Naming the user shows it anyway.
    let out = env.run("condor_userprio", ["alice"]);
    assert!(out.stdout.contains("alice@submit.example.org"), "{out}");
}

#[test]
fn priority_and_usage_columns() {
    let env = TestEnvironment::new();
    seed(&env, AccountantConfig::default(), alice);
    let out = env.run("condor_userprio", ["-allusers", "-priority"]);
    assert_eq!(
        trimmed(&out.stdout),
        "Last Priority Update: 11/14 22:13
                          Effective     Real   Priority
User Name                  Priority   Priority  Factor
------------------------ ------------ -------- ---------
alice@submit.example.org       500.00     0.50   1000.00
------------------------ ------------ -------- ---------
Number of users: 1
"
    );
    let out = env.run("condor_userprio", ["-allusers", "-usage"]);
    assert!(out.stdout.contains("11/14/2023 19:43"), "{out}");
    assert!(out.stdout.contains("11/14/2023 22:13"), "{out}");
}

#[test]
fn edits_are_written_and_reported() {
    let env = TestEnvironment::new();
    seed(&env, AccountantConfig::default(), alice);
    let run = |args: &[&str]| env.run("condor_userprio", args);
    let out = run(&["-setfactor", "alice@submit.example.org", "10"]);
    assert_eq!(
        out.to_string(),
        "The priority factor of alice@submit.example.org was set to 10.000000\n[exit status: 0]"
    );
    let out = run(&["-setprio", "alice@submit.example.org", "3"]);
    assert_eq!(
        out.stdout,
        "The priority of alice@submit.example.org was set to 3.000000\n"
    );
    let out = run(&["-allusers", "-priority"]);
    assert!(
        out.stdout
            .contains("alice@submit.example.org        30.00     3.00     10.00"),
        "{out}"
    );
    assert_eq!(
        run(&["-setceiling", "alice@submit.example.org", "-1"]).stdout,
        "The ceiling of alice@submit.example.org was set to -1\n"
    );
    assert_eq!(
        run(&["-setfloor", "alice@submit.example.org", "4"]).stdout,
        "The floor of alice@submit.example.org was set to 4\n"
    );
    assert!(run(&["-allusers"]).stdout.contains("      4.00"));
    assert_eq!(
        run(&["-setaccum", "alice@submit.example.org", "3600"]).stdout,
        "The Accumulated Usage of alice@submit.example.org was set to 3600.000000\n"
    );
    assert_eq!(
        run(&["-setbegin", "alice@submit.example.org", "100"]).stdout,
        "The Begin Usage Time of alice@submit.example.org was set to 100\n"
    );
    assert_eq!(
        run(&["-setlast", "alice@submit.example.org", "200"]).stdout,
        "The Last Usage Time of alice@submit.example.org was set to 200\n"
    );
    assert_eq!(
        run(&["-resetusage", "alice@submit.example.org"]).stdout,
        "The accumulated usage of alice@submit.example.org was reset\n"
    );
    assert_eq!(
        run(&["-resetall"]).stdout,
        "The accumulated usage was reset for all users\n"
    );
    let out = run(&["-allusers", "-long", "-legacy"]);
    assert!(
        out.stdout.contains("Name2 = \"alice@submit.example.org\""),
        "{out}"
    );
    assert!(out.stdout.contains("PriorityFactor2 = 10.0"), "{out}");
    assert!(
        out.stdout.contains("WeightedAccumulatedUsage2 = 0.0"),
        "{out}"
    );
    assert!(out.stdout.contains("NumSubmittors = 2"), "{out}");
    assert_eq!(
        run(&["-delete", "alice@submit.example.org"]).stdout,
        "The accountant record named alice@submit.example.org was deleted\n"
    );
    assert!(!run(&["-allusers"]).stdout.contains("alice"));
}

#[test]
fn bad_edits_fail_as_htcondor_does() {
    let env = TestEnvironment::new();
    let out = env.run("condor_userprio", ["-setprio", "alice", "3"]);
    assert_eq!(
        out.to_string(),
        "------- stderr -------\ncondor_userprio: You must specify the full name of the submittor you wish\n\tto update the priority of (user@uid.domain or user@full.host.name)\n[exit status: 1]"
    );
    let out = env.run("condor_userprio", ["-setfactor", "a@b", "0.5"]);
    assert_eq!(
        out.stderr,
        "Priority factors must be greater than or equal to 1.\n"
    );
    assert_eq!(out.status, Some(1));
    let out = env.run("condor_userprio", ["-setceiling", "a@b", "-2"]);
    assert_eq!(out.stderr, "ceiling must be greater than or equal to -1.\n");
    let out = env.run("condor_userprio", ["-pool", "cm.example.org"]);
    assert_eq!(
        out.stderr,
        "condor_userprio: Can't locate negotiator in cm.example.org\n"
    );
    assert_eq!(out.status, Some(1));
}

#[test]
fn groups_are_shown_with_their_users() {
    let env = TestEnvironment::new();
    std::fs::write(
        env.config_file(),
        "GROUP_NAMES = group_physics, group_chemistry\nGROUP_QUOTA_group_physics = 20\nGROUP_QUOTA_group_chemistry = 10\n",
    )
    .unwrap();
    let cfg = AccountantConfig {
        groups: GroupTree::build(
            vec![
                GroupSpec::new("group_physics").quota(20.0),
                GroupSpec::new("group_chemistry").quota(10.0),
            ],
            false,
            false,
        ),
        ..AccountantConfig::default()
    };
    seed(&env, cfg, |s| {
        s.last_update_time = T;
        for (name, used) in [
            ("group_physics.alice@x", 20.0),
            ("group_chemistry.bob@x", 10.0),
        ] {
            s.customers.insert(
                name.into(),
                CustomerRecord {
                    resources_used: used as i64,
                    weighted_resources_used: used,
                    last_usage_time: T,
                    ..CustomerRecord::default()
                },
            );
        }
        for g in ["group_physics", "group_chemistry", "<none>"] {
            s.customers.entry(g.into()).or_default().last_usage_time = T;
        }
    });
    let out = env.run("condor_userprio", ["-allusers"]);
    assert_eq!(out.status, Some(0), "{out}");
    assert_eq!(
        trimmed(&out.stdout),
        "Last Priority Update: 11/14 22:13
Group                 Config     Use    Effective   Priority  Wghted Total Usage  Time Since  Weighted  Submitter Submitter
  User Name            Quota   Surplus   Priority    Factor   In Use (wghted-hrs) Last Usage Requested    Floor    Ceiling
-------------------- --------- ------- ------------ --------- ------ ------------ ---------- ---------- --------- ---------
<none>                    0.00 yes                                 0         0.00      <now>          0
group_chemistry          10.00 no                                  0         0.00      <now>          0
  bob@x                                      500.00   1000.00     10         0.00      <now>
group_physics            20.00 no                                  0         0.00      <now>          0
  alice@x                                    500.00   1000.00     20         0.00      <now>
-------------------- --------- ------- ------------ --------- ------ ------------ ---------- ---------- --------- ---------
Number of users: 2             ByQuota                            30         0.00
"
    );
    // -quotas shows only the groups.
    let out = env.run("condor_userprio", ["-allusers", "-quotas", "-flat"]);
    assert!(out.stdout.contains("Group Name"), "{out}");
    assert!(!out.stdout.contains("bob@x"), "{out}");
    // -af prints attributes per record.
    let out = env.run(
        "condor_userprio",
        [
            "-af",
            "Name",
            "IsAccountingGroup",
            "-constraint",
            "IsAccountingGroup == false",
        ],
    );
    assert_eq!(
        out.stdout, "group_chemistry.bob@x false\ngroup_physics.alice@x false\n",
        "{out}"
    );
}
