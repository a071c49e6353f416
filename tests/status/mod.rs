//! condor_status: every display mode on ads read from files (`-ads`, HTCondor's own option)
//! modelled on a real pool's: a partitionable slot with two dynamic slots on one machine,
//! three static slots (Unclaimed, Claimed, Owner) of two slot types on another, and the
//! daemons' ads. The ActvtyTime, StateTime and Uptime columns come from the ads' own clocks
//! (`MyCurrentTime`, `LastHeardFrom`), as in HTCondor.

use crate::common::{TestEnvironment, NO_MASTER_HINT};

/// The fixtures' clock: 2024-01-31 12:00:00 UTC.
const NOW: i64 = 1_706_702_400;

/// A pool with no master running, the clock pinned, and no DNS lookups for bare names.
fn pool() -> TestEnvironment {
    let mut env = TestEnvironment::new();
    env.set_env("CONDORLITE_NOW", &NOW.to_string());
    env.set_env("_CONDOR_NO_DNS", "true");
    env
}

fn fixture(name: &str) -> String {
    format!(
        "{}/tests/fixtures/status/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// The default table's heading and the blank line under it. 24.0's slot tables are code,
/// not print formats (src/condor_status.V6/prettyPrint.cpp at v24.0.23,
/// `ppSetStartdNormalCols`): Name -18 when piped (-34 with -wide; on a terminal wider than 80,
/// 12 growing to fit), OpSys -10, Arch -6, State -9, Activity -8, LoadAv 6 (`format_load_avg`),
/// Mem `%4d`, `  ActvtyTime` 12 `%T` with no separator before it (`ActivityTime` with one
/// under -wide). Every `ppSetColumn` column also grows to fit its values
/// (`ppWidthOpts` sets FormatOptionAutoWidth), so the 23-character slot names widen Name and
/// the 5-digit memory widens Mem: `name` is the longest name shown.
fn heading(name: usize) -> String {
    format!(
        "{:name$} OpSys      Arch   State     Activity LoadAv Mem    ActvtyTime\n\n",
        "Name"
    )
}

/// The slot totals of the fixtures' one platform: a blank line, then the table with these
/// counts in its key row and in its Total row.
fn linux_totals(counts: &str) -> String {
    format!(
        "\n               Total Owner Claimed Unclaimed Matched Preempting  Drain Backfill BkIdle\n\n\
         \x20 X86_64/LINUX{counts}\n\n         Total{counts}\n[exit status: 0]"
    )
}

#[track_caller]
fn check(env: &TestEnvironment, args: &[&str], expected: &str) {
    let out = env.run("condor_status", args);
    assert_eq!(out.to_string(), expected, "condor_status {args:?}");
}

/// -help prints the usage (on stdout, where condorlite tools print their help) and exits 0;
/// an unknown option prints it on stderr after the error.
#[test]
fn help_and_unknown_options() {
    let env = pool();
    let out = env.run("condor_status", ["-help"]);
    assert_eq!((out.stderr.as_str(), out.status), ("", Some(0)));
    assert!(out.stdout.starts_with(
        "Usage: condor_status [help-opt] [query-opt] [custom-opts] [display-opts] [name ...]\n    \
         where [help-opt] is one of\n\t-help\t\t\tPrint this screen and exit\n"
    ));
    assert!(out.stdout.ends_with(
        "\t-print-format <file>\tUse <file> to set display attributes and formatting\n\
         \t\t\t\t(experimental, see htcondor-wiki for more information)\n"
    ));
    let all = env.run("condor_status", ["-help", "all"]);
    assert_eq!(
        all.stdout,
        format!(
            "{}\n\n    subsystem types:\n\tschedd\n\tsubmitters\n\tstartd\n\tdefrag\n\tgrid\n\
             \taccounting\n\tnegotiator\n\tmaster\n\tcollector\n\tgeneric\n\thad\n",
            out.stdout
        )
    );
    let bad = env.run("condor_status", ["-bogus", "-help"]);
    assert_eq!((bad.stdout.as_str(), bad.status), ("", Some(1)));
    assert_eq!(
        bad.stderr,
        format!("Error:  Unknown option -bogus\n{}", out.stdout)
    );
}

#[test]
fn version() {
    let env = pool();
    let out = env.run("condor_status", ["-version"]);
    assert_eq!(
        out.to_string(),
        format!(
            "{}\n{}\n[exit status: 0]",
            condorlite::version::CONDOR_VERSION,
            condorlite::version::CONDOR_PLATFORM
        )
    );
}

/// The slots, sorted by machine then name in natural order (slot2 before slot10), then the totals table.
#[test]
fn default_view_with_totals() {
    let env = pool();
    check(
        &env,
        &["-ads", &fixture("slots.ads")],
        &format!(
            "{}slot1@ep1.example.org   LINUX      X86_64 Unclaimed Idle      0.000 12288  0+00:40:00\n\
             slot1_1@ep1.example.org LINUX      X86_64 Claimed   Busy      0.980  1024  0+01:00:00\n\
             slot1_2@ep1.example.org LINUX      X86_64 Claimed   Busy      0.550  2048  0+00:01:00\n\
             slot1@ep2.example.org   LINUX      X86_64 Unclaimed Idle      0.000  1996  1+00:16:40\n\
             slot2@ep2.example.org   LINUX      X86_64 Claimed   Busy      1.000  1996  0+00:15:00\n\
             slot10@ep2.example.org  LINUX      X86_64 Owner     Idle      0.000  3992  0+00:00:00\n\
             {}",
            heading(23),
            linux_totals("     6     1       3         2       0          0      0        0      0")
        ),
    );
}

/// A bare name is a slot's Name or a Machine; names are ORed.
#[test]
fn names_select_machines_and_slots() {
    let env = pool();
    check(
        &env,
        &["-ads", &fixture("slots.ads"), "ep2.example.org", "slot1@ep1.example.org"],
        &format!(
            "{}slot1@ep1.example.org  LINUX      X86_64 Unclaimed Idle      0.000 12288  0+00:40:00\n\
             slot1@ep2.example.org  LINUX      X86_64 Unclaimed Idle      0.000  1996  1+00:16:40\n\
             slot2@ep2.example.org  LINUX      X86_64 Claimed   Busy      1.000  1996  0+00:15:00\n\
             slot10@ep2.example.org LINUX      X86_64 Owner     Idle      0.000  3992  0+00:00:00\n\
             {}",
            heading(22),
            linux_totals("     4     1       1         2       0          0      0        0      0")
        ),
    );
    check(
        &env,
        &["-ads", &fixture("slots.ads"), "nonesuch"],
        "------- stderr -------
condor_status: unknown host nonesuch
[exit status: 1]",
    );
}

/// -compact: one row per machine and slot type, the partitionable slot's children rolled up.
#[test]
fn compact_folds_each_machine_into_a_row() {
    let env = pool();
    check(
        &env,
        &["-ads", &fixture("slots.ads"), "-compact"],
        "Machine         Platform       Slots Cpus Gpus  TotalGb FreCpu  FreeGb  CpuLoad ST Jobs/Min MaxSlotGb

ep1.example.org x64/AlmaLinux9    2     8         15.00      5    12.00    0.19 **     0.15      2.00
ep2.example.org x64/Debian12      2S    1          1.95      1     1.95    0.25 **     0.05      1.95
   slot10       x64/Debian12      1S    2          3.90      2     3.90    0.25 Oi     0.00      3.90

               Total Owner Claimed Unclaimed Matched Preempting  Drain Backfill BkIdle

x64/AlmaLinux9     3     0       2         1       0          0      0        0      0
  x64/Debian12     3     1       1         1       0          0      0        0      0

         Total     6     1       3         2       0          0      0        0      0
[exit status: 0]",
    );
}

/// -state, -server, -claimed (and its totals), -avail. 24.0's columns (prettyPrint.cpp,
/// v24.0.23): -state (`ppSetStateCols`) Name -12, Cpu 3, ` Mem` 5, LoadAv 6, then 11-wide
/// times, which `ppSetColumnFormat` makes 12 wide with no separator before them, State -7,
/// Activ -5; -server (`ppSetServerCols`) Name -13, OpSys -11, Arch -6, LoadAv 6, Memory `%8d`,
/// Disk `%9d`, Mips `%7d`, KFlops `%9d`; -claimed (`ppSetRunCols`) Name -15, OpSys -11, Arch -6,
/// LoadAv 6, RemoteUser -20, ClientMachine -16. Each column grows to fit its values.
#[test]
fn state_server_and_claimed_views() {
    let env = pool();
    check(
        &env,
        &["-ads", &fixture("slots.ads"), "-state"],
        "Name                    Cpu  Mem  LoadAv  KbdIdle    State      StateTime  Activ  ActvtyTime 

slot1@ep1.example.org     5 12288  0.000  1+00:00:00 Unclaimed  0+00:39:50 Idle    0+00:39:50
slot1_1@ep1.example.org   1  1024  0.980  1+00:00:00 Claimed    0+01:00:00 Busy    0+00:59:50
slot1_2@ep1.example.org   2  2048  0.550  1+00:00:00 Claimed    0+00:00:55 Busy    0+00:00:50
slot1@ep2.example.org     1  1996  0.000  0+01:02:05 Unclaimed  1+00:16:30 Idle    1+00:16:30
slot2@ep2.example.org     1  1996  1.000  0+01:02:05 Claimed    0+00:14:50 Busy    0+00:14:50
slot10@ep2.example.org    2  3992  0.000  0+00:00:12 Owner      0+00:09:50 Idle   0+00:00:-10

               Total Owner Unclaimed Claimed Preempting Matched  Drain Backfill BkIdle

          Busy     0     0         0       3          0       0      0        0      0
          Idle     0     1         2       0          0       0      0        0      0

         Total     0     1         2       3          0       0      0        0      0
[exit status: 0]",
    );
    check(
        &env,
        &["-ads", &fixture("slots.ads"), "-server"],
        "Name                    OpSys       Arch   LoadAv Memory   Disk      Mips    KFlops   

slot1@ep1.example.org   LINUX       X86_64  0.000    12288  20971520   29877   1452354
slot1_1@ep1.example.org LINUX       X86_64  0.980     1024   1048576   29877   1452354
slot1_2@ep1.example.org LINUX       X86_64  0.550     2048   1048576   29877   1452354
slot1@ep2.example.org   LINUX       X86_64  0.000     1996   4194304   18000    901234
slot2@ep2.example.org   LINUX       X86_64  1.000     1996   4194304   18000    901234
slot10@ep2.example.org  LINUX       X86_64  0.000     3992   8388608   18000    901234

                  Slots Avail  Memory        Disk        MIPS      KFLOPS

  X86_64/LINUX        6     5       23344    39845888      143631     7060764

         Total        6     5       23344    39845888      143631     7060764
[exit status: 0]",
    );
    check(
        &env,
        &["-ads", &fixture("slots.ads"), "-claimed"],
        "Name                    OpSys       Arch   LoadAv RemoteUser           ClientMachine     

slot1_1@ep1.example.org LINUX       X86_64  0.980 alice@example.org    submit.example.org
slot1_2@ep1.example.org LINUX       X86_64  0.550 bob@example.org      submit.example.org
slot2@ep2.example.org   LINUX       X86_64  1.000 carol@example.org    submit.example.org

               Machines         MIPS       KFLOPS   AvgLoadAvg

  X86_64/LINUX        3        77754      3805942   0.843

         Total        3        77754      3805942   0.843
[exit status: 0]",
    );
    check(
        &env,
        &["-ads", &fixture("slots.ads"), "-avail"],
        &format!(
            "{}slot1@ep1.example.org LINUX      X86_64 Unclaimed Idle      0.000 12288  0+00:40:00\n\
             slot1@ep2.example.org LINUX      X86_64 Unclaimed Idle      0.000  1996  1+00:16:40\n\
             {}",
            heading(21),
            linux_totals("     2     0       0         2       0          0      0        0      0")
        ),
    );
}

/// -total(s): a blank line, then only the totals table.
#[test]
fn totals_only() {
    let env = pool();
    check(
        &env,
        &["-ads", &fixture("slots.ads"), "-total"],
        &linux_totals("     6     1       3         2       0          0      0        0      0"),
    );
    check(
        &env,
        &[
            "-ads",
            &fixture("slots.ads"),
            "-constraint",
            "Memory > 2000 && Machine == \"ep2.example.org\"",
            "-totals",
        ],
        &linux_totals("     1     1       0         0       0          0      0        0      0"),
    );
}

/// -af with its qualifiers and -format print bare rows, sorted as the table is.
#[test]
fn autoformat_and_format() {
    let env = pool();
    check(
        &env,
        &[
            "-ads",
            &fixture("slots.ads"),
            "-af",
            "Name",
            "State",
            "Memory",
            "-constraint",
            "Cpus > 1",
        ],
        "slot1@ep1.example.org Unclaimed 12288
slot1_2@ep1.example.org Claimed 2048
slot10@ep2.example.org Owner 3992
[exit status: 0]",
    );
    check(
        &env,
        &[
            "-ads",
            &fixture("slots.ads"),
            "-af:h",
            "Name",
            "Cpus",
            "Memory/1024",
        ],
        "Name                    Cpus Memory/1024
slot1@ep1.example.org   5    12         
slot1_1@ep1.example.org 1    1          
slot1_2@ep1.example.org 2    2          
slot1@ep2.example.org   1    1          
slot2@ep2.example.org   1    1          
slot10@ep2.example.org  2    3          
[exit status: 0]",
    );
    check(
        &env,
        &[
            "-ads",
            &fixture("slots.ads"),
            "-af:lrng",
            "Name",
            "Memory",
            "-limit",
            "1",
        ],
        "
Name = \"slot1@ep1.example.org\"
Memory = 12288
[exit status: 0]",
    );
    check(
        &env,
        &[
            "-ads",
            &fixture("slots.ads"),
            "-format",
            "%s ",
            "Name",
            "-format",
            "%d\\n",
            "Cpus",
            "-limit",
            "3",
        ],
        "slot1@ep1.example.org 5
slot1_1@ep1.example.org 1
slot1_2@ep1.example.org 2
[exit status: 0]",
    );
}

/// Whole ads: -long, -json, -xml (XML prints its header and footer even with no ad; JSON nothing).
#[test]
fn long_json_and_xml() {
    let env = pool();
    check(
        &env,
        &[
            "-ads",
            &fixture("slots.ads"),
            "-l",
            "-attributes",
            "Name,Memory,State",
            "-limit",
            "2",
        ],
        "Memory = 12288
Name = \"slot1@ep1.example.org\"
State = \"Unclaimed\"

Memory = 1024
Name = \"slot1_1@ep1.example.org\"
State = \"Claimed\"

[exit status: 0]",
    );
    check(
        &env,
        &[
            "-ads",
            &fixture("slots.ads"),
            "-json",
            "-attributes",
            "Name,Memory",
            "ep2.example.org",
        ],
        "[
{
  \"Memory\": 1996,
  \"Name\": \"slot1@ep2.example.org\"
}
,
{
  \"Memory\": 1996,
  \"Name\": \"slot2@ep2.example.org\"
}
,
{
  \"Memory\": 3992,
  \"Name\": \"slot10@ep2.example.org\"
}
]
[exit status: 0]",
    );
    check(
        &env,
        &[
            "-ads",
            &fixture("slots.ads"),
            "-xml",
            "-attributes",
            "Name",
            "-limit",
            "1",
        ],
        "<?xml version=\"1.0\"?>
<!DOCTYPE classads SYSTEM \"classads.dtd\">
<classads>
<c>
    <a n=\"Name\"><s>slot1@ep1.example.org</s></a>
</c>

</classads>
[exit status: 0]",
    );
    check(
        &env,
        &[
            "-ads",
            &fixture("slots.ads"),
            "-json",
            "-constraint",
            "false",
        ],
        "[exit status: 0]",
    );
    check(
        &env,
        &[
            "-ads",
            &fixture("slots.ads"),
            "-xml",
            "-constraint",
            "false",
        ],
        "<?xml version=\"1.0\"?>
<!DOCTYPE classads SYSTEM \"classads.dtd\">
<classads>
</classads>
[exit status: 0]",
    );
    check(
        &env,
        &[
            "-ads",
            &fixture("slots.ads"),
            "-long:nosort",
            "-attributes",
            "Memory,name,CPUS",
            "-limit",
            "1",
        ],
        "Cpus = 5
Memory = 12288
Name = \"slot1@ep1.example.org\"

[exit status: 0]",
    );
    check(
        &env,
        &["-ads", &fixture("negotiator.ads"), "-negotiator", "-long"],
        "LastHeardFrom = 1706702390
LastNegotiationCycleActiveSubmitterCount0 = 2
LastNegotiationCycleCandidateSlots0 = 6
LastNegotiationCycleDuration0 = 0
LastNegotiationCycleEnd0 = 1706702380
LastNegotiationCycleMatches0 = 3
LastNegotiationCycleNumIdleJobs0 = 12
LastNegotiationCycleNumSchedulers0 = 1
LastNegotiationCycleRejections0 = 0
Machine = \"cm.example.org\"
MyType = \"Negotiator\"
Name = \"cm.example.org\"

[exit status: 0]",
    );
}

/// -sort replaces the default keys (and requires them to be defined); -sort no keeps the input order.
#[test]
fn sorting() {
    let env = pool();
    check(
        &env,
        &[
            "-ads",
            &fixture("slots.ads"),
            "-sort",
            "Memory",
            "-af",
            "Name",
            "Memory",
        ],
        "slot1_1@ep1.example.org 1024
slot1@ep2.example.org 1996
slot2@ep2.example.org 1996
slot1_2@ep1.example.org 2048
slot10@ep2.example.org 3992
slot1@ep1.example.org 12288
[exit status: 0]",
    );
    check(
        &env,
        &["-ads", &fixture("slots.ads"), "-sort", "no", "-af", "Name"],
        "slot1@ep1.example.org
slot1_1@ep1.example.org
slot1_2@ep1.example.org
slot1@ep2.example.org
slot2@ep2.example.org
slot10@ep2.example.org
[exit status: 0]",
    );
    check(
        &env,
        &[
            "-ads",
            &fixture("slots.ads"),
            "-sort",
            "-Memory",
            "-sort",
            "Name",
            "-af",
            "Name",
            "Memory",
        ],
        "slot1_1@ep1.example.org 1024
slot1@ep2.example.org 1996
slot2@ep2.example.org 1996
slot1_2@ep1.example.org 2048
slot10@ep2.example.org 3992
slot1@ep1.example.org 12288
[exit status: 0]",
    );
}

/// -wide: the ActivityTime column and keys fitted to the totals; -wide:N crops the Name column and the lines to N-1 columns.
#[test]
fn wide_and_forced_widths() {
    let env = pool();
    check(
        &env,
        &["-ads", &fixture("slots.ads"), "-wide"],
        "Name                               OpSys      Arch   State     Activity LoadAv Mem   ActivityTime

slot1@ep1.example.org              LINUX      X86_64 Unclaimed Idle      0.000 12288   0+00:40:00
slot1_1@ep1.example.org            LINUX      X86_64 Claimed   Busy      0.980  1024   0+01:00:00
slot1_2@ep1.example.org            LINUX      X86_64 Claimed   Busy      0.550  2048   0+00:01:00
slot1@ep2.example.org              LINUX      X86_64 Unclaimed Idle      0.000  1996   1+00:16:40
slot2@ep2.example.org              LINUX      X86_64 Claimed   Busy      1.000  1996   0+00:15:00
slot10@ep2.example.org             LINUX      X86_64 Owner     Idle      0.000  3992   0+00:00:00

             Total Owner Claimed Unclaimed Matched Preempting  Drain Backfill BkIdle

X86_64/LINUX     6     1       3         2       0          0      0        0      0

       Total     6     1       3         2       0          0      0        0      0
[exit status: 0]",
    );
    check(
        &env,
        &["-ads", &fixture("slots.ads"), "-wide:60"],
        "Name                    OpSys      Arch   State     Activit

slot1@ep1.example.org   LINUX      X86_64 Unclaimed Idle   
slot1_1@ep1.example.org LINUX      X86_64 Claimed   Busy   
slot1_2@ep1.example.org LINUX      X86_64 Claimed   Busy   
slot1@ep2.example.org   LINUX      X86_64 Unclaimed Idle   
slot2@ep2.example.org   LINUX      X86_64 Claimed   Busy   
slot10@ep2.example.org  LINUX      X86_64 Owner     Idle   

               Total Owner Claimed Unclaimed Matched Preempting  Drain Backfill BkIdle

  X86_64/LINUX     6     1       3         2       0          0      0        0      0

         Total     6     1       3         2       0          0      0        0      0
[exit status: 0]",
    );
    // A display wider than 80 (prettyPrint.cpp, v24.0.23): the default table's Name starts
    // at 12 and fits the names (`FitToName`, reset by `ppAdjustProjection`); -server's is
    // MAX(-40, 65 - width) = -24 at 89; -state's time columns are 12 wide with a separator
    // over 90 and its Name MAX(-40, 34 + 3*12 - width) = -29 at 99; -collector's Name and
    // Machine share the room beyond 79 (2/3 of it, at most 20, to Name).
    check(
        &env,
        &["-ads", &fixture("slots.ads"), "-wide:90"],
        "Name                    OpSys      Arch   State     Activity LoadAv Mem    ActvtyTime

slot1@ep1.example.org   LINUX      X86_64 Unclaimed Idle      0.000 12288  0+00:40:00
slot1_1@ep1.example.org LINUX      X86_64 Claimed   Busy      0.980  1024  0+01:00:00
slot1_2@ep1.example.org LINUX      X86_64 Claimed   Busy      0.550  2048  0+00:01:00
slot1@ep2.example.org   LINUX      X86_64 Unclaimed Idle      0.000  1996  1+00:16:40
slot2@ep2.example.org   LINUX      X86_64 Claimed   Busy      1.000  1996  0+00:15:00
slot10@ep2.example.org  LINUX      X86_64 Owner     Idle      0.000  3992  0+00:00:00

               Total Owner Claimed Unclaimed Matched Preempting  Drain Backfill BkIdle

  X86_64/LINUX     6     1       3         2       0          0      0        0      0

         Total     6     1       3         2       0          0      0        0      0
[exit status: 0]",
    );
    check(
        &env,
        &["-ads", &fixture("slots.ads"), "-server", "-wide:90"],
        "Name                     OpSys       Arch   LoadAv Memory   Disk      Mips    KFlops   

slot1@ep1.example.org    LINUX       X86_64  0.000    12288  20971520   29877   1452354
slot1_1@ep1.example.org  LINUX       X86_64  0.980     1024   1048576   29877   1452354
slot1_2@ep1.example.org  LINUX       X86_64  0.550     2048   1048576   29877   1452354
slot1@ep2.example.org    LINUX       X86_64  0.000     1996   4194304   18000    901234
slot2@ep2.example.org    LINUX       X86_64  1.000     1996   4194304   18000    901234
slot10@ep2.example.org   LINUX       X86_64  0.000     3992   8388608   18000    901234

                  Slots Avail  Memory        Disk        MIPS      KFLOPS

  X86_64/LINUX        6     5       23344    39845888      143631     7060764

         Total        6     5       23344    39845888      143631     7060764
[exit status: 0]",
    );
    check(
        &env,
        &["-ads", &fixture("slots.ads"), "-state", "-wide:100"],
        "Name                          Cpu  Mem  LoadAv   KbdIdle    State       StateTime  Activ   ActvtyTi

slot1@ep1.example.org           5 12288  0.000   1+00:00:00 Unclaimed   0+00:39:50 Idle     0+00:39
slot1_1@ep1.example.org         1  1024  0.980   1+00:00:00 Claimed     0+01:00:00 Busy     0+00:59
slot1_2@ep1.example.org         2  2048  0.550   1+00:00:00 Claimed     0+00:00:55 Busy     0+00:00
slot1@ep2.example.org           1  1996  0.000   0+01:02:05 Unclaimed   1+00:16:30 Idle     1+00:16
slot2@ep2.example.org           1  1996  1.000   0+01:02:05 Claimed     0+00:14:50 Busy     0+00:14
slot10@ep2.example.org          2  3992  0.000   0+00:00:12 Owner       0+00:09:50 Idle    0+00:00:

               Total Owner Unclaimed Claimed Preempting Matched  Drain Backfill BkIdle

          Busy     0     0         0       3          0       0      0        0      0
          Idle     0     1         2       0          0       0      0        0      0

         Total     0     1         2       3          0       0      0        0      0
[exit status: 0]",
    );
    check(
        &env,
        &["-ads", &fixture("collector.ads"), "-collector", "-wide:100"],
        "Name                                      Machine                   RunningJobs IdleJobs HostsTotal

My Pool - cm.example.org@cm.example.org   cm.example.org                      3       14          2
[exit status: 0]",
    );
}

/// The schedd (with its totals quirk: an empty key row), schedd -run, submitters, negotiator, master, startd and collector tables.
#[test]
fn daemon_views() {
    let env = pool();
    check(
        &env,
        &["-ads", &fixture("schedd.ads"), "-schedd"],
        "Name                     Machine            RunningJobs   IdleJobs   HeldJobs

batch@submit.example.org submit.example.org           0          2          0
submit.example.org       submit.example.org           3         12          1

                TotalRunningJobs      TotalIdleJobs      TotalHeldJobs

              
         Total                 3                 14                  1
[exit status: 0]",
    );
    check(
        &env,
        &["-ads", &fixture("schedd.ads"), "-run"],
        "Name               TotalJobs Shadows ActiveDAGs IdleDAGs RcntDone RcntStart

submit.example.org        16       3          0        0        4         7
[exit status: 0]",
    );
    check(
        &env,
        &["-ads", &fixture("submitters.ads"), "-submitters"],
        "Name              Machine            RunningJobs   IdleJobs   HeldJobs

alice@example.org submit.example.org           2         10          1
bob@example.org   submit.example.org           1          2          0

                 RunningJobs   IdleJobs   HeldJobs

alice@example.org          2         10          1
  bob@example.org          1          2          0

            Total          3         12          1
[exit status: 0]",
    );
    check(
        &env,
        &["-ads", &fixture("negotiator.ads"), "-negotiator"],
        "Name           LastCycleEnd (Sec)   Slots Submitrs Schedds    Jobs Matches Rejections

cm.example.org   1/31 11:59     0       6        2       1      12       3          0
[exit status: 0]",
    );
    check(
        &env,
        // masterNormal_PrintFormat's `WIDTH -14` truncates the version (make_printmask.cpp).
        &["-ads", &fixture("master.ads"), "-master"],
        "Name            Version        Cpus   Memory      Uptime    

ep1.example.org 24.0.24.condor    8    15.0 GB    1+00:00:00
ep2.example.org 24.0.2.769530     4     7.8 GB    0+01:00:00
[exit status: 0]",
    );
    check(
        &env,
        &["-ads", &fixture("startd.ads"), "-startd"],
        "Name            Platform       Version            Cpus   Memory   GPUs     Uptime    

ep1.example.org x64/AlmaLinux9 24.0.24.condorlite    8    15.0 GB     0    1+00:00:00
ep2.example.org x64/Debian12   24.0.24.condorlite    4     7.8 GB     2    0+01:00:00

              Machines    Slots     Cpus BusyCpus   BkCpus     GPUs BusyGPUs   BkGPUs  Memory%   BkMem%

x64/AlmaLinux9       1        3        8        3        0        0        0        0   20.00%    0.00%
  x64/Debian12       1        3        4        1        0        2        1        0   25.00%    0.00%

         Total       2        6       12        4        0        2        1        0   22.50%    0.00%
[exit status: 0]",
    );
    check(
        &env,
        &["-ads", &fixture("collector.ads"), "-collector"],
        "Name                                    Machine            RunningJobs IdleJobs HostsTotal

My Pool - cm.example.org@cm.example.org cm.example.org               3       14          2
[exit status: 0]",
    );
}

/// Conflicting modes and styles, in status.cpp's words: a second mode is an error, a second
/// style only a message.
#[test]
fn conflicts() {
    let env = pool();
    let (slots, schedd) = (fixture("slots.ads"), fixture("schedd.ads"));
    check(
        &env,
        &["-ads", &schedd, "-schedd", "-master"],
        "------- stderr -------
Error:  Arg 4 (-master) contradicts arg 3 (-schedd)
[exit status: 1]",
    );
    check(
        &env,
        &[
            "-ads", &slots, "-state", "-server", "-af", "Name", "-limit", "2",
        ],
        "slot1@ep1.example.org
slot1_1@ep1.example.org
------- stderr -------
Error:  arg 4 (-server) contradicts arg 3 (-state)
[exit status: 0]",
    );
    check(
        &env,
        &["-ads", &slots, "-compact", "-schedd"],
        "------- stderr -------
Error:  arg (-compact) contradicts arg 4 (-schedd) \n[exit status: 1]",
    );
    check(
        &env,
        &["-ads", &slots, "-startd", "-compact"],
        "------- stderr -------
Error:  arg (-compact) contradicts arg 3 (-startd) remove -startd from command or use -slot instead
[exit status: 1]",
    );
}

/// Options without their values, and what does not parse.
#[test]
fn missing_values_and_parse_errors() {
    let env = pool();
    let slots = fixture("slots.ads");
    let af = "Error: Argument -af requires at least one attribute parameter";
    for (args, message) in [
        (
            &["-limit"][..],
            "condor_status: -limit requires one additional argument",
        ),
        (
            &["-constraint"][..],
            "condor_status: -constraint requires another argument",
        ),
        (
            &["-attributes"][..],
            "condor_status: -attributes requires one additional argument",
        ),
        (
            &["-sort"][..],
            "condor_status: -sort requires another argument",
        ),
        (
            &["-format", "%d"][..],
            "condor_status: -format requires two other arguments",
        ),
        (&["-af"][..], af),
        (&["-af", "-l"][..], af),
    ] {
        let mut argv = vec!["-ads", slots.as_str()];
        argv.extend(args);
        let hint = "Use \"condor_status -help\" for details";
        check(
            &env,
            &argv,
            &format!("------- stderr -------\n{message}\n{hint}\n[exit status: 1]"),
        );
    }
    check(
        &env,
        &["-ads"],
        "------- stderr -------
condor_status: -ads requires a filename argument
Use \"condor_status -help\" for details
[exit status: 1]",
    );
    // An -af expression that does not parse ends the tool silently, as in HTCondor.
    check(&env, &["-ads", &slots, "-af", "a +"], "[exit status: 1]");
    for args in [["-format", "%d", "a +"], ["-sort", "a +", "-l"]] {
        let mut argv = vec!["-ads", slots.as_str()];
        argv.extend(args);
        check(
            &env,
            &argv,
            "------- stderr -------\nError:  Parse error of: a +\n[exit status: 1]",
        );
    }
}

/// As read_classad_file does: a file that cannot be read or a constraint that does not parse print a message and no ad.
#[test]
fn ads_file_problems_are_not_failures() {
    let env = pool();
    check(
        &env,
        &["-ads", &fixture("slots.ads"), "-constraint", "a +"],
        "------- stderr -------
Invalid constraint expression : ( (a +) )
[exit status: 0]",
    );
    check(
        &env,
        &["-ads", "no-such-file.ads"],
        "------- stderr -------
Can't open file of ClassAds: no-such-file.ads
[exit status: 0]",
    );
}

/// No condor_master (the collector) to ask: HTCondor's message for an unreachable collector,
/// then how to start a master for this pool, whatever is asked for.
#[test]
fn without_a_master() {
    let env = pool();
    for args in [
        &[][..],
        &["-schedd"],
        &["-af", "Name"],
        &["-long"],
        &["-total"],
    ] {
        let out = env.run("condor_status", args);
        assert_eq!(
            env.normalize(&out.to_string()),
            format!(
                "------- stderr -------
Error: communication error
CEDAR:6001:Failed to connect to <127.0.0.1:9618>
{NO_MASTER_HINT}[exit status: 1]"
            ),
            "condor_status {args:?}"
        );
    }
    check(
        &env,
        &["-schedd", "-constraint", "a +"],
        "------- stderr -------
Error: invalid constraint

[exit status: 1]",
    );
}

/// status.cpp reads -limit with atoi: a word that is no number is no limit, `2x` is 2. A
/// -format conversion printf does not know is printed as it is.
#[test]
fn limit_is_read_as_atoi_and_unknown_conversions_print_as_they_are() {
    let env = pool();
    let slots = fixture("slots.ads");
    let all = env.run("condor_status", ["-ads", &slots, "-af", "Name"]);
    check(
        &env,
        &["-ads", &slots, "-af", "Name", "-limit", "abc"],
        &all.to_string(),
    );
    check(
        &env,
        &["-ads", &slots, "-af", "Name", "-limit", "2x"],
        "slot1@ep1.example.org\nslot1_1@ep1.example.org\n[exit status: 0]",
    );
    check(
        &env,
        &["-ads", &slots, "-format", "%Q\\n", "Name", "-limit", "2"],
        "%Q\n%Q\n[exit status: 0]",
    );
}

/// -print-format FILE (status.cpp, `set_status_print_mask_from_stream`): the format's columns,
/// its WHERE ANDed into the query, its headings without the blank line of the built-in tables,
/// and no totals (24.0 keeps `PP_CUSTOM` as the totals' style, even with SUMMARY STANDARD).
/// A file that cannot be opened, an aggregating format and a missing file name are refused
/// with HTCondor's messages; the parser's own complaints are printed and the table shown.
#[test]
fn print_format_files() {
    let env = pool();
    let pf = env.write_file(
        "claimed.pf",
        "SELECT\nName AS Slot WIDTH -24\nState AS St WIDTH 9\nMemory PRINTF %6d\n\
         WHERE State == \"Claimed\"\nSUMMARY STANDARD\n",
    );
    let pf = pf.to_str().unwrap();
    let expected = "Slot                     St        Memory
slot1_1@ep1.example.org    Claimed   1024
slot1_2@ep1.example.org    Claimed   2048
slot2@ep2.example.org      Claimed   1996
[exit status: 0]";
    check(
        &env,
        &["-ads", &fixture("slots.ads"), "-print-format", pf],
        expected,
    );
    // The shortest prefix, and a qualifier (ignored).
    check(&env, &["-ads", &fixture("slots.ads"), "-pr", pf], expected);
    check(
        &env,
        &["-ads", &fixture("slots.ads"), "-print-format:x", pf],
        expected,
    );
    // `-pr !` only turns off the configured default print formats: the default table.
    let out = env.run("condor_status", ["-ads", &fixture("slots.ads"), "-pr", "!"]);
    assert!(out.stdout.starts_with(&heading(23)), "{out}");
    let bad = env.write_file("bad.pf", "SELECT\nName AS N WIDTH 12 PRINTAS NOSUCH\n");
    check(
        &env,
        &[
            "-ads",
            &fixture("slots.ads"),
            "-constraint",
            "Machine == \"ep2.example.org\"",
            "-pr",
            bad.to_str().unwrap(),
        ],
        "N           
slot1@ep2.ex
slot2@ep2.ex
slot10@ep2.e
------- stderr -------
Unknown argument NOSUCH for PRINTAS
[exit status: 0]",
    );
    let unique = env.write_file("unique.pf", "SELECT UNIQUE\nName\n");
    let unique = unique.to_str().unwrap();
    check(
        &env,
        &["-ads", &fixture("slots.ads"), "-pr", unique],
        &format!(
            "------- stderr -------\nprint-format aggregation not supported\n\
             Error: invalid select file {unique}\n[exit status: 1]"
        ),
    );
    check(
        &env,
        &["-ads", &fixture("slots.ads"), "-pr", "/nonexistent.pf"],
        "------- stderr -------\nCan't open select file: /nonexistent.pf\n\
         Error: invalid select file /nonexistent.pf\n[exit status: 1]",
    );
    for args in [&["-pr"][..], &["-pr", "-long"][..]] {
        check(
            &env,
            args,
            "------- stderr -------\nError: Argument -print-format requires a filename argument\n\
             [exit status: 1]",
        );
    }
}

/// -gpus (24.0's `SlotGPUs_PrintFormat`, its WHERE keeping the slots with GPUs) with the state
/// totals status.cpp gives it; -startd -gpus (`DaemonGPUs_PrintFormat`, `TotalGPUs > 0`) with
/// the startd totals, in either order; -gpus -compact is refused (condorlite's slots do not
/// carry the GPU properties 24.0's compact GPU table folds).
#[test]
fn gpus() {
    let env = pool();
    check(
        &env,
        &["-ads", &fixture("gpus.ads"), "-gpus"],
        "Name                     ST User              GPUs GPU-Memory GPU-Name             

slot1@gpu1.example.org   Ui _                    1 39.6 GB    NVIDIA A100-SXM4-40GB
slot1_1@gpu1.example.org Cb alice@example.org    1 39.6 GB    NVIDIA A100-SXM4-40GB

               Total Owner Unclaimed Claimed Preempting Matched  Drain Backfill BkIdle

          Busy     0     0         0       1          0       0      0        0      0
          Idle     0     0         1       0          0       0      0        0      0

         Total     0     0         1       1          0       0      0        0      0
[exit status: 0]",
    );
    let startd = "Name            Cores   Memory   GPUs GPU-Memory GPU-Name Offline-GPUs

ep2.example.org 4         7.8 GB 2                                    

              Machines    Slots     Cpus BusyCpus   BkCpus     GPUs BusyGPUs   BkGPUs  Memory%   BkMem%

  x64/Debian12       1        3        4        1        0        2        1        0   25.00%    0.00%

         Total       1        3        4        1        0        2        1        0   25.00%    0.00%
[exit status: 0]";
    check(
        &env,
        &["-ads", &fixture("startd.ads"), "-startd", "-gpus"],
        startd,
    );
    check(
        &env,
        &["-ads", &fixture("startd.ads"), "-gpu", "-startd"],
        startd,
    );
    check(
        &env,
        &["-ads", &fixture("gpus.ads"), "-gpus", "-compact"],
        "------- stderr -------\nError:  -compact with -gpus is not supported by condorlite\n\
         [exit status: 1]",
    );
}

/// -any (`ppSetAnyNormalCols`): every ad, whatever its type: MyType and TargetType (-18,
/// `None` when missing) and Name (`%-41.41s`), no totals.
#[test]
fn any_ads() {
    let env = pool();
    let ads = env.write_file(
        "mixed.ads",
        &format!(
            "{}\nMyType = \"Negotiator\"\nName = \"a-negotiator-with-a-name-longer-than-forty-one\"\n",
            std::fs::read_to_string(fixture("schedd.ads")).unwrap()
        ),
    );
    // The column grows to the raw value's length (`calc_column_width`), the printf cuts the
    // text: the long name is cut to 41 and padded to 46. The ad without a Machine sorts last.
    let expected = "MyType             TargetType         Name                                          \n\n\
                    Scheduler          None               batch@submit.example.org                      \n\
                    Scheduler          None               submit.example.org                            \n\
                    Negotiator         None               a-negotiator-with-a-name-longer-than-fort     \n\
                    [exit status: 0]";
    check(&env, &["-ads", ads.to_str().unwrap(), "-any"], expected);
    check(&env, &["-ads", ads.to_str().unwrap(), "-an"], expected);
}

/// -direct NAME asks the named daemon: condorlite's master answers for this host's daemons,
/// so a name that is not one of them fails as 24.0's `Daemon::locate` does; -direct needs a
/// value; a second -direct wins, with status.cpp's warning. -broken is not a 24.0 option
/// (it came in 24.10): an unknown option.
#[test]
fn direct_and_broken() {
    let env = pool();
    check(
        &env,
        &["-direct"],
        "------- stderr -------\ncondor_status: -direct requires another argument\n\
         Use \"condor_status -help\" for details\n[exit status: 1]",
    );
    let out = env.run(
        "condor_status",
        ["-dir", "nosuch.example.org", "-af", "Name"],
    );
    assert_eq!(
        env.normalize(&out.to_string()),
        format!(
            "------- stderr -------\nError: Failed to locate startd nosuch.example.org\n\
             Can't find address for startd nosuch.example.org\n{NO_MASTER_HINT}[exit status: 1]"
        )
    );
    let out = env.run("condor_status", ["-broken"]);
    assert_eq!(out.status, Some(1));
    assert!(
        out.stderr
            .starts_with("Error:  Unknown option -broken\nUsage: condor_status"),
        "{out}"
    );
    assert!(
        !out.stderr.contains("-broken\t"),
        "24.0's usage has no -broken: {out}"
    );

    let master = crate::pool::Master::start(&env);
    let startd = env.run("condor_status", ["-startd", "-af", "Name"]);
    let name = startd.stdout.trim().to_owned();
    let slots = env.run("condor_status", ["-af", "Name"]);
    assert_eq!(slots.status, Some(0), "{slots}");
    let direct = env.run("condor_status", ["-direct", &name, "-af", "Name"]);
    assert_eq!(direct.to_string(), slots.to_string());
    let twice = env.run(
        "condor_status",
        ["-direct", "x", "-direct", &name, "-af", "Name"],
    );
    assert_eq!(
        twice.to_string(),
        format!("{}------- stderr -------\nWarning:  Multiple -direct arguments given, using \"{name}\"\n[exit status: 0]", slots.stdout)
    );
    let other = env.run(
        "condor_status",
        ["-schedd", "-direct", "nosuch", "-af", "Name"],
    );
    assert_eq!(
        other.to_string(),
        "------- stderr -------\nError: Failed to locate schedd nosuch\n\
         Can't find address for schedd nosuch\n[exit status: 1]"
    );
    drop(master);
}

/// A pool replaces condor_status's tables with print-format files of its own
/// (`STATUS_DEFAULT_SLOTS_PRINT_FORMAT_FILE`, `STATUS_SLOTS_CLAIMED_PRINT_FORMAT_FILE`, ...:
/// prettyPrint.cpp's `ppInitPrintMask` and `paramNameFromPPMode`); the totals stay the
/// mode's, `-pr !` turns the files off, and a file that aggregates is warned about.
#[test]
fn a_pool_replaces_default_tables_with_print_format_files() {
    let mut env = pool();
    let ads = fixture("slots.ads");
    let builtin = env.run("condor_status", ["-ads", &ads]).to_string();
    let claimed_builtin = env
        .run("condor_status", ["-ads", &ads, "-claimed"])
        .to_string();
    let pf = env.write_file(
        "mine.pf",
        "SELECT\nName AS Slot WIDTH -24\nMemory PRINTF %6d\nWHERE State == \"Claimed\"\nSUMMARY NONE\n",
    );
    env.set_env(
        "_CONDOR_STATUS_DEFAULT_SLOTS_PRINT_FORMAT_FILE",
        pf.to_str().unwrap(),
    );
    // The table's headings and the empty line after them, as prettyPrintHeadings prints
    // them for any style but the custom one.
    let expected = "Slot                     Memory

slot1_1@ep1.example.org    1024
slot1_2@ep1.example.org    2048
slot2@ep2.example.org      1996
[exit status: 0]";
    check(&env, &["-ads", &ads], expected);
    // The claimed slots' table has its own knob.
    assert_eq!(
        env.run("condor_status", ["-ads", &ads, "-claimed"])
            .to_string(),
        claimed_builtin
    );
    assert_eq!(
        env.run("condor_status", ["-ads", &ads, "-pr", "!"])
            .to_string(),
        builtin
    );
    // With the summary, the totals are the slots' own.
    let standard = env.write_file(
        "standard.pf",
        "SELECT\nName AS Slot WIDTH -24\nSUMMARY STANDARD\n",
    );
    env.set_env(
        "_CONDOR_STATUS_DEFAULT_SLOTS_PRINT_FORMAT_FILE",
        standard.to_str().unwrap(),
    );
    let out = env.run("condor_status", ["-ads", &ads]);
    let totals = &builtin[builtin.find("\n\n               Total").unwrap()..];
    assert!(
        out.stdout
            .starts_with("Slot                    \n\nslot1@ep1.example.org   \n"),
        "{out}"
    );
    assert!(out.to_string().ends_with(totals), "{out}");
    let unique = env.write_file("unique.pf", "SELECT UNIQUE\nArch\n");
    env.set_env(
        "_CONDOR_STATUS_SLOTS_CLAIMED_PRINT_FORMAT_FILE",
        unique.to_str().unwrap(),
    );
    let out = env.run("condor_status", ["-ads", &ads, "-claimed"]);
    assert_eq!(
        out.stderr,
        format!(
            "print-format aggregation not supported\n\
             Warning: default STATUS_SLOTS_CLAIMED_PRINT_FORMAT_FILE select file '{}' is invalid\n",
            unique.display()
        ),
        "{out}"
    );
    assert_eq!(
        out.stdout,
        claimed_builtin.strip_suffix("[exit status: 0]").unwrap()
    );
}
