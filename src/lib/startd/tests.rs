//! Tests of the startd library: every slot-layout form, partitionable slots, custom resources,
//! `STARTD_ATTRS`, the state machine, claims and their reuse, reconfiguration and errors.
//! Every configuration is read from text in a temporary pool directory, with the machine's
//! look-ups pinned by a [`Probe`].

mod policy;

use super::*;
use crate::classad::parse_ad;
use crate::classad::unparse::expr_to_old_string;

const T0: i64 = 1_700_000_000;
const HOST: &str = "node.example.org";

/// A configuration from `text`, read as the startd reads it, in a fresh pool directory.
fn config(text: &str) -> (Config, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let body = format!(
        "LOCAL_DIR = {}\nLIBEXEC = $(LOCAL_DIR)/libexec\nNUM_CPUS = 4\nMEMORY = 4096\nDISK = 1000000\n{text}\n",
        dir.path().display()
    );
    let machine = crate::config::machine::Machine {
        early: vec![
            ("ARCH", "X86_64".into()),
            ("OPSYS", "LINUX".into()),
            ("OPSYSVER", "2204".into()),
            ("OPSYSANDVER", "Ubuntu22".into()),
            ("OPSYSMAJORVER", "22".into()),
            ("OPSYSNAME", "Ubuntu".into()),
            ("DETECTED_MEMORY", "16000".into()),
        ],
        hostname: HOST.into(),
        username: Some("tester".into()),
        physical_cpus: crate::config::machine::Lazy::known(8),
        hyperthread_cpus: 8,
        ..Default::default()
    };
    (
        Config::for_test(&body, "STARTD", Some(machine), dir.path()),
        dir,
    )
}

fn probe() -> Probe {
    Probe {
        load_avg: || Some(0.5),
        memory_mib: || Some(16000),
        virtual_memory_kib: || Some(20_000_000),
        cpus: || 8,
        free_disk: |_| Some((2_000_000, "dev1".into())),
        last_input: |_| None,
        nvidia_smi: || None,
        cpuinfo: || None,
        containers: |_| Vec::new(),
    }
}

fn startd(text: &str) -> Startd {
    let (c, _dir) = config(text);
    Startd::from_config_with(&c, T0, probe()).unwrap()
}

fn startd_err(text: &str) -> StartdError {
    let (c, _dir) = config(text);
    Startd::from_config_with(&c, T0, probe()).unwrap_err()
}

fn ad<'a>(ads: &'a [ClassAd], name: &str) -> &'a ClassAd {
    ads.iter()
        .find(|a| a.eval_attr("Name").as_str() == Some(name))
        .unwrap_or_else(|| panic!("no ad named {name}"))
}

fn int(ad: &ClassAd, attr: &str) -> i64 {
    ad.eval_attr(attr)
        .as_int()
        .unwrap_or_else(|| panic!("{attr} is not an integer: {:?}", ad.lookup(attr)))
}

fn string(ad: &ClassAd, attr: &str) -> String {
    ad.eval_attr(attr)
        .as_str()
        .unwrap_or_else(|| panic!("{attr} is not a string: {:?}", ad.lookup(attr)))
        .to_owned()
}

fn text(ad: &ClassAd, attr: &str) -> String {
    expr_to_old_string(ad.lookup(attr).unwrap_or_else(|| panic!("no {attr}")))
}

fn slot(n: &str) -> String {
    format!("{n}@{HOST}")
}

fn job(extra: &str) -> ClassAd {
    parse_ad(&format!(
        "[ClusterId = 12; ProcId = 3; Owner = \"alice\"; User = \"alice@example.org\"; GlobalJobId = \"{HOST}#12.3#1700000000\"; JobUniverse = 5; RequestCpus = 1; RequestMemory = 100; RequestDisk = 1000; Requirements = true; ImageSize = 1500; {extra}]"
    ))
    .unwrap()
}

fn cons(c: f64, m: f64, d: f64) -> Vec<(String, f64)> {
    vec![("Cpus".into(), c), ("Memory".into(), m), ("Disk".into(), d)]
}

#[test]
fn version_is_the_configs() {
    assert_eq!(CONDOR_VERSION, crate::config::condor_version());
}

#[test]
fn default_layout_is_one_partitionable_slot() {
    let s = startd("");
    let ads = s.slot_ads();
    assert_eq!(ads.len(), 1);
    let a = ad(&ads, &slot("slot1"));
    assert_eq!(string(a, "MyType"), "Machine");
    assert_eq!(string(a, "TargetType"), "Job");
    assert_eq!(string(a, "SlotType"), "Partitionable");
    assert!(a.eval_bool("PartitionableSlot", None));
    assert_eq!(int(a, "SlotID"), 1);
    assert_eq!(int(a, "SlotTypeID"), 0);
    assert_eq!(int(a, "Cpus"), 4);
    assert_eq!(int(a, "TotalSlotCpus"), 4);
    assert_eq!(int(a, "Memory"), 4096);
    assert_eq!(int(a, "Disk"), 1000000);
    assert_eq!(int(a, "TotalDisk"), 1000000);
    assert_eq!(a.eval_attr("TotalCpus").as_number_real(), Some(4.0));
    assert_eq!(int(a, "TotalMemory"), 4096);
    assert_eq!(int(a, "NumDynamicSlots"), 0);
    assert_eq!(text(a, "Requirements"), "START && (WithinResourceLimits)");
    assert_eq!(
        text(a, "WithinResourceLimits"),
        "(MY.Cpus > 0 && TARGET.RequestCpus <= MY.Cpus && MY.Memory > 0 && TARGET.RequestMemory <= MY.Memory && MY.Disk > 0 && TARGET.RequestDisk <= MY.Disk && (TARGET.RequestGPUs =?= undefined || MY.GPUs >= TARGET.RequestGPUs))"
    );
    assert_eq!(string(a, "State"), "Unclaimed");
    assert_eq!(string(a, "Activity"), "Idle");
    // GPU discovery ran and found none, as condor_gpu_discovery reports.
    assert_eq!(string(a, "MachineResources"), "Cpus Memory Disk Swap GPUs");
    assert_eq!(int(a, "GPUs"), 0);
    assert_eq!(int(a, "TotalGPUs"), 0);
    assert_eq!(int(a, "DetectedGPUs"), 0);
    assert_eq!(
        s.state(&slot("slot1")),
        Some((State::Unclaimed, Activity::Idle))
    );
}

#[test]
fn machine_attributes() {
    let s = startd("UID_DOMAIN = example.org\nSTARTD_DETECT_GPUS = false");
    let ads = s.slot_ads();
    let a = ad(&ads, &slot("slot1"));
    for attr in [
        "MyType",
        "TargetType",
        "Name",
        "Machine",
        "SlotID",
        "Cpus",
        "Memory",
        "Disk",
        "TotalCpus",
        "TotalMemory",
        "TotalDisk",
        "TotalSlotCpus",
        "TotalSlotMemory",
        "TotalSlotDisk",
        "DetectedCpus",
        "DetectedMemory",
        "OpSys",
        "OpSysAndVer",
        "OpSysName",
        "Arch",
        "UidDomain",
        "FileSystemDomain",
        "LoadAvg",
        "CondorLoadAvg",
        "TotalLoadAvg",
        "TotalCondorLoadAvg",
        "KeyboardIdle",
        "ConsoleIdle",
        "State",
        "Activity",
        "EnteredCurrentState",
        "EnteredCurrentActivity",
        "ClockMin",
        "ClockDay",
        "CurrentTime",
        "MyCurrentTime",
        "DaemonStartTime",
        "LastHeardFrom",
        "Start",
        "Requirements",
        "Rank",
        "IsOwner",
        "CondorVersion",
        "CondorPlatform",
        "MachineResources",
        "HasFileTransfer",
        "StarterAbilityList",
        "SlotWeight",
        "VirtualMemory",
        "TotalVirtualMemory",
        "MyAddress",
        "StartdIpAddr",
        "CpuBusy",
        "CpuBusyTime",
        "CpuIsBusy",
        "CurrentRank",
        "TotalSlots",
        "MachineMaxVacateTime",
        "RetirementTimeRemaining",
        "JobStarts",
    ] {
        assert!(a.lookup(attr).is_some(), "no {attr}");
    }
    assert_eq!(string(a, "Machine"), HOST);
    assert_eq!(string(a, "OpSys"), "LINUX");
    assert_eq!(string(a, "Arch"), "X86_64");
    assert_eq!(string(a, "OpSysAndVer"), "Ubuntu22");
    assert_eq!(string(a, "UidDomain"), "example.org");
    assert_eq!(string(a, "FileSystemDomain"), HOST);
    assert_eq!(int(a, "DetectedCpus"), 8);
    assert_eq!(int(a, "DetectedMemory"), 16000);
    assert_eq!(int(a, "DaemonStartTime"), T0);
    assert_eq!(int(a, "MyCurrentTime"), T0);
    assert_eq!(text(a, "CurrentTime"), "time()");
    assert_eq!(a.eval_attr("TotalLoadAvg").as_number_real(), Some(0.5));
    assert_eq!(a.eval_attr("LoadAvg").as_number_real(), Some(0.5));
    // Not connected to the keyboard: the startd's age plus the boost.
    assert_eq!(int(a, "KeyboardIdle"), 1200);
    assert_eq!(int(a, "VirtualMemory"), 20_000_000);
    assert_eq!(string(a, "MachineResources"), "Cpus Memory Disk Swap");
    assert!(a.lookup("GPUs").is_none());
    assert!(string(a, "CondorVersion").starts_with("$CondorVersion: 24.0.24 "));
    assert!(string(a, "CondorPlatform").starts_with("$CondorPlatform: X86_64-Ubuntu"));
    assert_eq!(text(a, "Start"), "true");
    assert_eq!(text(a, "SlotWeight"), "Cpus");
    assert!(a.eval_bool("HasFileTransfer", None));
    // What a job with `checkpoint_exit_code` requires (the starter restarts it in place).
    assert!(a.eval_bool("HasSelfCheckpointTransfers", None));
}

#[test]
fn static_slots_one_per_cpu() {
    let s = startd("SLOT_TYPE_0_PARTITIONABLE = false\nSTARTD_DETECT_GPUS = false");
    let ads = s.slot_ads();
    assert_eq!(ads.len(), 4);
    for (n, a) in ads.iter().enumerate() {
        assert_eq!(string(a, "Name"), slot(&format!("slot{}", n + 1)));
        assert_eq!(string(a, "SlotType"), "Static");
        assert_eq!(int(a, "Cpus"), 1);
        assert_eq!(int(a, "Memory"), 1024);
        assert_eq!(int(a, "Disk"), 250000);
        assert_eq!(int(a, "TotalSlots"), 4);
        assert_eq!(text(a, "Requirements"), "START");
        assert!(a.lookup("WithinResourceLimits").is_none());
    }
}

#[test]
fn num_slots_splits_evenly() {
    let s = startd("SLOT_TYPE_0_PARTITIONABLE = false\nNUM_SLOTS = 2");
    let ads = s.slot_ads();
    assert_eq!(ads.len(), 2);
    assert_eq!(int(&ads[1], "Cpus"), 2);
    assert_eq!(int(&ads[1], "Memory"), 2048);
    assert_eq!(int(&ads[1], "Disk"), 500000);
    // Five slots on four CPUs: the even split leaves less than a CPU each.
    let e = startd_err("SLOT_TYPE_0_PARTITIONABLE = false\nNUM_SLOTS = 5");
    assert!(
        matches!(e, StartdError::OutOfResources { ref what, .. } if what == "Cpus"),
        "{e}"
    );
}

#[test]
fn slot_types_with_shares() {
    let s = startd(
        "SLOT_TYPE_1 = cpus=2, memory=25%, disk=1/4\nNUM_SLOTS_TYPE_1 = 1\nSLOT_TYPE_2 = 1/4\nNUM_SLOTS_TYPE_2 = 2\n",
    );
    let ads = s.slot_ads();
    assert_eq!(ads.len(), 3);
    let a = ad(&ads, &slot("slot1"));
    assert_eq!(int(a, "Cpus"), 2);
    assert_eq!(int(a, "Memory"), 1024);
    assert_eq!(int(a, "Disk"), 250000);
    assert_eq!(int(a, "SlotTypeID"), 1);
    for n in ["slot2", "slot3"] {
        let a = ad(&ads, &slot(n));
        assert_eq!(int(a, "Cpus"), 1);
        assert_eq!(int(a, "Memory"), 1024);
        assert_eq!(int(a, "Disk"), 250000);
        assert_eq!(int(a, "SlotTypeID"), 2);
    }
}

#[test]
fn auto_shares_split_what_is_left() {
    let s = startd(
        "SLOT_TYPE_1 = cpus=1, memory=auto\nNUM_SLOTS_TYPE_1 = 2\nSLOT_TYPE_2 = memory=1024, d=50%\nNUM_SLOTS_TYPE_2 = 1\n",
    );
    let ads = s.slot_ads();
    assert_eq!(int(&ads[0], "Cpus"), 1);
    assert_eq!(int(&ads[0], "Memory"), 1536);
    assert_eq!(int(&ads[0], "Disk"), 250000);
    assert_eq!(int(&ads[2], "Cpus"), 2);
    assert_eq!(int(&ads[2], "Memory"), 1024);
    assert_eq!(int(&ads[2], "Disk"), 500000);
}

#[test]
fn absolute_amounts_with_units_and_prefixes() {
    let s = startd(
        "SLOT_TYPE_1 = c=1, ram=1G, swap=10%, d=auto\nNUM_SLOTS_TYPE_1 = 2\nSLOT_TYPE_2 = mem=512\nNUM_SLOTS_TYPE_2 = 1\n",
    );
    let ads = s.slot_ads();
    assert_eq!(int(&ads[0], "Memory"), 1024);
    assert_eq!(int(&ads[0], "VirtualMemory"), 2_000_000);
    assert_eq!(int(&ads[2], "Memory"), 512);
    // The third slot takes the CPUs and swap the others left.
    assert_eq!(int(&ads[2], "Cpus"), 2);
    assert_eq!(int(&ads[2], "VirtualMemory"), 16_000_000);
    // Multi-line values are split on newlines only.
    let s = startd("SLOT_TYPE_1 @=end\n  cpus = 3\n  memory = 50%\n@end\nNUM_SLOTS_TYPE_1 = 1\n");
    let ads = s.slot_ads();
    assert_eq!(int(&ads[0], "Cpus"), 3);
    assert_eq!(int(&ads[0], "Memory"), 2048);
}

#[test]
fn partitionable_slot_types_and_names() {
    let s = startd(
        "SLOT_TYPE_1 = 50%\nSLOT_TYPE_1_PARTITIONABLE = true\nNUM_SLOTS_TYPE_1 = 1\nSLOT_TYPE_2 = 25%\nNUM_SLOTS_TYPE_2 = 2\nSLOT_TYPE_2_NAME_PREFIX = small\nSTARTD_NAME = mystartd\n",
    );
    let ads = s.slot_ads();
    let names: Vec<String> = ads.iter().map(|a| string(a, "Name")).collect();
    assert_eq!(
        names,
        [
            format!("slot1@mystartd@{HOST}"),
            format!("small2@mystartd@{HOST}"),
            format!("small3@mystartd@{HOST}")
        ]
    );
    assert_eq!(string(&ads[0], "SlotType"), "Partitionable");
    assert_eq!(int(&ads[0], "Cpus"), 2);
    assert_eq!(string(&ads[1], "SlotType"), "Static");
    assert_eq!(s.name(), format!("mystartd@{HOST}"));
    assert_eq!(string(&s.daemon_ad(), "Name"), format!("mystartd@{HOST}"));
}

#[test]
fn bad_slot_configuration() {
    let check = |text: &str, knob: &str| {
        let e = startd_err(text);
        let msg = e.to_string();
        assert!(msg.contains(knob), "{msg:?} should name {knob}");
        e
    };
    let e = check("SLOT_TYPE_1 = cpus=8\nNUM_SLOTS_TYPE_1 = 1", "SLOT_TYPE_1");
    assert!(matches!(e, StartdError::OutOfResources { ref what, .. } if what == "Cpus"));
    let e = check("SLOT_TYPE_1 = disk=100\nNUM_SLOTS_TYPE_1 = 1", "disk=100");
    assert!(
        e.to_string().contains("percent or fraction for disk"),
        "{e}"
    );
    let e = check("SLOT_TYPE_1 = frobs=2\nNUM_SLOTS_TYPE_1 = 1", "SLOT_TYPE_1");
    assert!(e.to_string().contains("unknown attribute \"frobs\""), "{e}");
    // An unknown resource asked for nothing is fine (HTCondor's common configs).
    startd("SLOT_TYPE_1 = frobs=0, cpus=1\nNUM_SLOTS_TYPE_1 = 1");
    check("SLOT_TYPE_1 = 1/0\nNUM_SLOTS_TYPE_1 = 1", "1/0");
    check("SLOT_TYPE_1 = 150%\nNUM_SLOTS_TYPE_1 = 1", "150%");
    check("SLOT_TYPE_1 = 3\nNUM_SLOTS_TYPE_1 = 1", "SLOT_TYPE_1");
    check("SLOT_TYPE_1 = memory=lots\nNUM_SLOTS_TYPE_1 = 1", "lots");
    check("SLOT_TYPE_1 = memory=\nNUM_SLOTS_TYPE_1 = 1", "memory=");
    check("SLOT_TYPE_0 = 1/2", "SLOT_TYPE_0");
    check("NUM_SLOTS_TYPE_1 = -1", "NUM_SLOTS_TYPE_1");
    let e = check("MACHINE_RESOURCE_CPUS = 4", "CPUS");
    assert!(matches!(e, StartdError::ReservedResource(_)));
    check("START = (", "START");
    check(
        "SLOT_TYPE_1 = cpus=1, memory=3000\nNUM_SLOTS_TYPE_1 = 2",
        "SLOT_TYPE_1",
    );
    let e = startd_err("SLOT_TYPE_1 = cpus=1, memory=3000\nNUM_SLOTS_TYPE_1 = 2");
    assert!(
        matches!(e, StartdError::OutOfResources { ref what, ref slot, .. } if what == "Memory" && slot.contains("slot 2")),
        "{e}"
    );
}

const GPU_CONFIG: &str = "MACHINE_RESOURCE_GPUs = CUDA0, CUDA1, CUDA2\nMACHINE_RESOURCE_actuator = 8\nSLOT_TYPE_1 = gpus=2, actuator=6, 50%\nSLOT_TYPE_1_PARTITIONABLE = true\nNUM_SLOTS_TYPE_1 = 1\nSLOT_TYPE_2 = gpus=auto, actuator=1, 25%\nNUM_SLOTS_TYPE_2 = 2\n";

#[test]
fn custom_resources_with_instance_ids() {
    let s = startd(GPU_CONFIG);
    let ads = s.slot_ads();
    let a = ad(&ads, &slot("slot1"));
    assert_eq!(
        string(a, "MachineResources"),
        "Cpus Memory Disk Swap actuator GPUs"
    );
    assert_eq!(int(a, "TotalGPUs"), 3);
    assert_eq!(int(a, "DetectedGPUs"), 3);
    assert_eq!(int(a, "Totalactuator"), 8);
    assert_eq!(int(a, "GPUs"), 2);
    assert_eq!(int(a, "TotalSlotGPUs"), 2);
    assert_eq!(string(a, "AssignedGPUs"), "CUDA0,CUDA1");
    assert_eq!(text(a, "AvailableGPUs"), "{ GPUs_CUDA0,GPUs_CUDA1 }");
    assert_eq!(int(a, "actuator"), 6);
    assert!(a.lookup("Assignedactuator").is_none());
    let b = ad(&ads, &slot("slot2"));
    assert_eq!(int(b, "GPUs"), 1);
    assert_eq!(string(b, "AssignedGPUs"), "CUDA2");
    assert_eq!(int(b, "actuator"), 1);
    let c = ad(&ads, &slot("slot3"));
    assert_eq!(int(c, "GPUs"), 0);
    assert!(c.lookup("AssignedGPUs").is_none());
    assert!(b.lookup("WithinResourceLimits").is_none());
    // Offline instances are left out.
    let s = startd(
        "MACHINE_RESOURCE_GPUs = CUDA0, CUDA1, CUDA2\nOFFLINE_MACHINE_RESOURCE_GPUs = CUDA1\n",
    );
    let ads = s.slot_ads();
    assert_eq!(int(&ads[0], "TotalGPUs"), 2);
    assert_eq!(string(&ads[0], "AssignedGPUs"), "CUDA0,CUDA2");
    assert_eq!(string(&ads[0], "OfflineGPUs"), "CUDA1");
    // MACHINE_RESOURCE_NAMES keeps only the resources it names.
    let s = startd("MACHINE_RESOURCE_NAMES = widgets\nMACHINE_RESOURCE_widgets = 4\nMACHINE_RESOURCE_gadgets = 2\nSTARTD_DETECT_GPUS = false");
    let ads = s.slot_ads();
    assert_eq!(
        string(&ads[0], "MachineResources"),
        "Cpus Memory Disk Swap widgets"
    );
    assert_eq!(int(&ads[0], "widgets"), 4);
    // Too many instances asked for.
    let e = startd_err("MACHINE_RESOURCE_GPUs = CUDA0\nSLOT_TYPE_1 = gpus=2\nNUM_SLOTS_TYPE_1 = 1");
    assert!(
        matches!(e, StartdError::OutOfResources { ref what, .. } if what == "GPUs"),
        "{e}"
    );
    // A constraint on which instances a slot takes.
    let s = startd(
        "MACHINE_RESOURCE_GPUs = CUDA0, CUDA1\nSLOT_TYPE_1 = gpus=1 : \"CUDA1\", 50%\nNUM_SLOTS_TYPE_1 = 1\nSLOT_TYPE_2 = gpus=1, 50%\nNUM_SLOTS_TYPE_2 = 1",
    );
    let ads = s.slot_ads();
    assert_eq!(string(&ads[0], "AssignedGPUs"), "CUDA1");
    assert_eq!(string(&ads[1], "AssignedGPUs"), "CUDA0");
}

#[test]
fn partitionable_carving_and_release() {
    let mut s = startd(GPU_CONFIG);
    let p = slot("slot1");
    let mut c = cons(1.0, 128.0, 1024.0);
    c.push(("GPUs".into(), 1.0));
    let d1 = s.claim(&p, &job("RequestGPUs = 1"), &c, T0 + 10).unwrap();
    assert_eq!(d1, slot("slot1_1"));
    let d2 = s.claim(&p, &job("RequestGPUs = 1"), &c, T0 + 20).unwrap();
    assert_eq!(d2, slot("slot1_2"));
    assert_eq!(s.state(&d1), Some((State::Claimed, Activity::Idle)));
    let ads = s.slot_ads();
    let pa = ad(&ads, &p);
    assert_eq!(int(pa, "Cpus"), 0);
    assert_eq!(int(pa, "TotalSlotCpus"), 2);
    assert_eq!(int(pa, "Memory"), 2048 - 256);
    assert_eq!(int(pa, "GPUs"), 0);
    assert_eq!(string(pa, "AssignedGPUs"), "CUDA0,CUDA1");
    assert_eq!(int(pa, "NumDynamicSlots"), 2);
    assert_eq!(
        text(pa, "ChildName"),
        format!("{{ \"{}\",\"{}\" }}", d1, d2)
    );
    assert_eq!(text(pa, "ChildCpus"), "{ 1,1 }");
    assert_eq!(
        text(pa, "ChildRemoteUser"),
        "{ \"alice@example.org\",\"alice@example.org\" }"
    );
    assert_eq!(string(pa, "State"), "Unclaimed");
    let da = ad(&ads, &d1);
    assert_eq!(string(da, "SlotType"), "Dynamic");
    assert!(da.eval_bool("DynamicSlot", None));
    assert_eq!(int(da, "SlotID"), 1);
    assert_eq!(int(da, "ParentSlotId"), 1);
    assert_eq!(int(da, "DSlotId"), 1);
    assert_eq!(int(da, "Cpus"), 1);
    assert_eq!(int(da, "Memory"), 128);
    assert_eq!(int(da, "GPUs"), 1);
    assert_eq!(int(da, "TotalSlotGPUs"), 1);
    assert_eq!(string(da, "AssignedGPUs"), "CUDA0");
    assert_eq!(string(ad(&ads, &d2), "AssignedGPUs"), "CUDA1");
    // Disk: the request plus HTCondor's slop.
    assert_eq!(int(da, "Disk"), 1024 + 1024);
    assert_eq!(string(da, "State"), "Claimed");
    assert_eq!(string(da, "RemoteUser"), "alice@example.org");
    // No CPUs left: a third claim is refused.
    let e = s
        .claim(&p, &job(""), &cons(1.0, 128.0, 1024.0), T0 + 30)
        .unwrap_err();
    assert!(
        matches!(
            e,
            StartdError::NotWilling(_) | StartdError::Insufficient { .. }
        ),
        "{e}"
    );
    // Release gives everything back, and the number is used again.
    s.release(&d1, T0 + 40);
    assert_eq!(s.state(&d1), None);
    let ads = s.slot_ads();
    let pa = ad(&ads, &p);
    assert_eq!(int(pa, "Cpus"), 1);
    assert_eq!(int(pa, "Memory"), 2048 - 128);
    assert_eq!(int(pa, "GPUs"), 1);
    assert_eq!(text(pa, "AvailableGPUs"), "{ GPUs_CUDA0 }");
    let d3 = s.claim(&p, &job(""), &c, T0 + 50).unwrap();
    assert_eq!(d3, slot("slot1_1"));
    assert_eq!(string(ad(&s.slot_ads(), &d3), "AssignedGPUs"), "CUDA0");
    s.release(&d2, T0 + 60);
    s.release(&d3, T0 + 60);
    let ads = s.slot_ads();
    let pa = ad(&ads, &p);
    assert_eq!(int(pa, "Cpus"), 2);
    assert_eq!(int(pa, "Memory"), 2048);
    assert_eq!(int(pa, "Disk"), 500000);
    assert_eq!(int(pa, "GPUs"), 2);
    assert_eq!(ads.len(), 3);
}

#[test]
fn claims_refused() {
    let mut s =
        startd("START = Owner == \"alice\"\nSLOT_TYPE_0_PARTITIONABLE = false\nNUM_SLOTS = 2");
    let e = s
        .claim(&slot("slot1"), &job("Owner = \"bob\""), &[], T0)
        .unwrap_err();
    assert!(matches!(e, StartdError::NotWilling(_)), "{e}");
    assert!(matches!(
        s.claim(&slot("slot9"), &job(""), &[], T0),
        Err(StartdError::NoSuchSlot(_))
    ));
    s.claim(&slot("slot1"), &job(""), &[], T0).unwrap();
    let e = s.claim(&slot("slot1"), &job(""), &[], T0).unwrap_err();
    assert!(
        matches!(
            e,
            StartdError::WrongState {
                state: State::Claimed,
                ..
            }
        ),
        "{e}"
    );
    let e = s.activate(&slot("slot2"), &job(""), T0).unwrap_err();
    assert!(
        matches!(
            e,
            StartdError::WrongState {
                state: State::Unclaimed,
                ..
            }
        ),
        "{e}"
    );
    // A partitionable slot asked for more than it has.
    let mut s = startd("");
    let e = s
        .claim(
            &slot("slot1"),
            &job("RequestMemory = 10"),
            &cons(1.0, 9000.0, 10.0),
            T0,
        )
        .unwrap_err();
    assert!(
        matches!(e, StartdError::Insufficient { ref resource, .. } if resource == "Memory"),
        "{e}"
    );
    let e = s
        .claim(
            &slot("slot1"),
            &job(""),
            &[("Cpus".into(), 1.0), ("Frobs".into(), 1.0)],
            T0,
        )
        .unwrap_err();
    assert!(
        matches!(e, StartdError::Insufficient { ref resource, .. } if resource == "Frobs"),
        "{e}"
    );
    // A resource the claim does not name comes from the job's request.
    let d = s
        .claim(
            &slot("slot1"),
            &job("RequestMemory = 300"),
            &[("Cpus".into(), 2.0)],
            T0,
        )
        .unwrap();
    let ads = s.slot_ads();
    assert_eq!(int(ad(&ads, &d), "Memory"), 300);
    assert_eq!(int(ad(&ads, &d), "Cpus"), 2);
    assert_eq!(s.slot_names().len(), 2);
}

#[test]
fn claim_activation_and_release_of_a_static_slot() {
    let mut s =
        startd("SLOT_TYPE_0_PARTITIONABLE = false\nRANK = 10\nSTARTD_JOB_ATTRS = NiceUser Cmd\nSTARTD_DETECT_GPUS = false\n");
    let n = slot("slot2");
    let j = job("AccountingGroup = \"physics.alice\"; ScheddName = \"schedd@node\"; Cmd = \"/bin/sleep\"; ConcurrencyLimits = \"db\"");
    assert_eq!(s.claim(&n, &j, &[], T0 + 5).unwrap(), n);
    assert_eq!(s.state(&n), Some((State::Claimed, Activity::Idle)));
    let ads = s.slot_ads();
    let a = ad(&ads, &n);
    assert_eq!(string(a, "RemoteUser"), "alice@example.org");
    assert_eq!(string(a, "RemoteOwner"), "alice");
    assert_eq!(string(a, "AccountingGroup"), "physics.alice@example.org");
    assert_eq!(string(a, "ClientMachine"), HOST);
    assert_eq!(string(a, "RemoteScheddName"), "schedd@node");
    assert_eq!(string(a, "ConcurrencyLimits"), "db");
    assert_eq!(string(a, "Cmd"), "/bin/sleep");
    assert_eq!(int(a, "EnteredCurrentState"), T0 + 5);
    assert!(string(a, "PublicClaimId").ends_with("#..."));
    assert!(s.claim_id(&n).unwrap().starts_with("<127.0.0.1:9618>#"));
    assert!(a.lookup("JobId").is_none());

    let env = s.activate(&n, &j, T0 + 10).unwrap();
    assert!(env.is_empty(), "{env:?}");
    assert_eq!(s.state(&n), Some((State::Claimed, Activity::Busy)));
    s.refresh(T0 + 70);
    let ads = s.slot_ads();
    let a = ad(&ads, &n);
    assert_eq!(string(a, "JobId"), "12.3");
    assert_eq!(string(a, "GlobalJobId"), format!("{HOST}#12.3#1700000000"));
    assert_eq!(int(a, "JobStart"), T0 + 10);
    assert_eq!(a.eval_attr("CurrentRank").as_number_real(), Some(10.0));
    assert_eq!(int(a, "TotalJobRunTime"), 60);
    assert_eq!(int(a, "ImageSize"), 1500);
    assert_eq!(int(a, "EnteredCurrentActivity"), T0 + 10);
    assert_eq!(int(a, "EnteredCurrentState"), T0 + 5);
    assert_eq!(int(a, "JobStarts"), 1);
    assert_eq!(int(a, "TotalTimeClaimedIdle"), 5);
    assert_eq!(int(a, "TotalTimeClaimedBusy"), 60);
    let d = s.daemon_ad();
    assert_eq!(d.eval_attr("TotalInUseCpus").as_number_real(), Some(1.0));
    assert_eq!(int(&d, "TotalInUseMemory"), 1024);

    s.set_job_usage(&n, 1.0, Some(4000));
    s.refresh(T0 + 80);
    let ads = s.slot_ads();
    let a = ad(&ads, &n);
    assert_eq!(a.eval_attr("CondorLoadAvg").as_number_real(), Some(1.0));
    assert_eq!(int(a, "ImageSize"), 4000);

    s.deactivate(&n, T0 + 100);
    assert_eq!(s.state(&n), Some((State::Claimed, Activity::Idle)));
    let ads = s.slot_ads();
    let a = ad(&ads, &n);
    assert!(a.lookup("JobId").is_none());
    assert_eq!(int(a, "TotalClaimRunTime"), 90);
    assert_eq!(string(a, "RemoteUser"), "alice@example.org");

    s.release(&n, T0 + 110);
    assert_eq!(s.state(&n), Some((State::Unclaimed, Activity::Idle)));
    let ads = s.slot_ads();
    let a = ad(&ads, &n);
    assert!(a.lookup("RemoteUser").is_none());
    assert!(a.lookup("Cmd").is_none());
    assert_eq!(int(a, "EnteredCurrentState"), T0 + 110);
    assert_eq!(int(a, "TotalTimeClaimedBusy"), 90);
}

#[test]
fn owner_and_unclaimed_follow_is_owner() {
    // KeyboardIdle starts at the 1200 s boost and grows with the startd's age.
    let mut s =
        startd("IS_OWNER = KeyboardIdle < 1300\nSLOT_TYPE_0_PARTITIONABLE = false\nNUM_SLOTS = 1");
    let n = slot("slot1");
    assert_eq!(s.state(&n), Some((State::Owner, Activity::Idle)));
    s.refresh(T0 + 50);
    assert_eq!(s.state(&n), Some((State::Owner, Activity::Idle)));
    s.refresh(T0 + 200);
    assert_eq!(s.state(&n), Some((State::Unclaimed, Activity::Idle)));
    let ads = s.slot_ads();
    assert_eq!(int(&ads[0], "EnteredCurrentState"), T0 + 200);
    assert_eq!(int(&ads[0], "TotalTimeOwnerIdle"), 200);
    // The default IS_OWNER follows START.
    let mut s = startd("START = KeyboardIdle > 1300\nIS_OWNER = (START =?= False)\nSLOT_TYPE_0_PARTITIONABLE = false\nNUM_SLOTS = 1");
    assert_eq!(s.state(&n), Some((State::Owner, Activity::Idle)));
    // A job that START accepts may claim a slot in the Owner state.
    let e = s.claim(&n, &job(""), &[], T0 + 1).unwrap_err();
    assert!(matches!(e, StartdError::NotWilling(_)));
    s.refresh(T0 + 200);
    assert_eq!(s.state(&n), Some((State::Unclaimed, Activity::Idle)));
    // START referring to the job is undefined locally: the slot is not the owner's.
    let s = startd("START = Owner == \"alice\"\nIS_OWNER = (START =?= False)\nNUM_SLOTS = 1");
    assert_eq!(
        s.state(&slot("slot1")),
        Some((State::Unclaimed, Activity::Idle))
    );
}

#[test]
fn matches_time_out() {
    let mut s = startd("SLOT_TYPE_0_PARTITIONABLE = false\nNUM_SLOTS = 1\nMATCH_TIMEOUT = 60");
    let n = slot("slot1");
    s.matched(&n, T0 + 10).unwrap();
    assert_eq!(s.state(&n), Some((State::Matched, Activity::Idle)));
    let ads = s.slot_ads();
    assert_eq!(text(&ads[0], "Requirements"), "false");
    s.refresh(T0 + 30);
    assert_eq!(s.state(&n), Some((State::Matched, Activity::Idle)));
    s.refresh(T0 + 70);
    assert_eq!(s.state(&n), Some((State::Unclaimed, Activity::Idle)));
    s.matched(&n, T0 + 80).unwrap();
    s.claim(&n, &job(""), &[], T0 + 90).unwrap();
    assert_eq!(s.state(&n), Some((State::Claimed, Activity::Idle)));
    assert!(s.matched(&n, T0 + 100).is_err());
}

#[test]
fn the_transition_table() {
    use state::transition as t;
    use Activity::*;
    use State::*;
    assert_eq!(t(Owner, Idle, Event::IsOwnerFalse), Some((Unclaimed, Idle)));
    assert_eq!(t(Unclaimed, Idle, Event::IsOwnerTrue), Some((Owner, Idle)));
    assert_eq!(t(Claimed, Idle, Event::IsOwnerTrue), None);
    assert_eq!(t(Unclaimed, Idle, Event::Claimed), Some((Claimed, Idle)));
    assert_eq!(t(Claimed, Idle, Event::Activated), Some((Claimed, Busy)));
    assert_eq!(t(Claimed, Busy, Event::Activated), None);
    assert_eq!(t(Claimed, Busy, Event::Deactivated), Some((Claimed, Idle)));
    assert_eq!(t(Claimed, Busy, Event::Released), Some((Owner, Idle)));
    assert_eq!(t(Matched, Idle, Event::MatchTimedOut), Some((Owner, Idle)));
    assert_eq!(State::from_name("claimed"), Some(Claimed));
    assert_eq!(Activity::from_name("Retiring"), Some(Retiring));
    assert_eq!(Preempting.to_string(), "Preempting");
    assert_eq!(Benchmarking.name(), "Benchmarking");
    let mut sm = state::StateMachine::new(100);
    assert!(sm.apply(Event::IsOwnerFalse, 110));
    assert!(!sm.apply(Event::Activated, 120));
    assert!(sm.apply(Event::Claimed, 130));
    assert!(sm.apply(Event::Activated, 140));
    assert_eq!(sm.entered_state(), 130);
    assert_eq!(sm.entered_activity(), 140);
    assert_eq!(sm.time_in(Unclaimed, Idle, 200), 20);
    assert_eq!(sm.time_in(Claimed, Busy, 200), 60);
}

#[test]
fn claim_reuse_and_worklife() {
    let mut s = startd(
        "SLOT_TYPE_0_PARTITIONABLE = false\nCLAIM_WORKLIFE = 600\nSTART = Owner =!= \"mallory\"",
    );
    let n = slot("slot1");
    let j = job("");
    s.claim(&n, &j, &[], T0).unwrap();
    // Before any job ran, the worklife does not count.
    assert!(s.may_reuse(&n, &j, T0 + 5000));
    s.activate(&n, &j, T0 + 10).unwrap();
    assert!(s.may_reuse(&n, &j, T0 + 100));
    s.deactivate(&n, T0 + 200);
    assert!(s.may_reuse(&n, &j, T0 + 600));
    assert!(!s.may_reuse(&n, &j, T0 + 601));
    assert!(!s.may_reuse(&n, &job("Owner = \"mallory\""), T0 + 300));
    assert!(!s.may_reuse(&n, &job("Requirements = Memory > 100000"), T0 + 300));
    assert!(!s.may_reuse(&slot("slot2"), &j, T0 + 300), "not claimed");
    assert!(!s.may_reuse(&slot("nope"), &j, T0 + 300));

    let mut s = startd("SLOT_TYPE_0_PARTITIONABLE = false\nCLAIM_WORKLIFE = 0");
    s.claim(&n, &j, &[], T0).unwrap();
    assert!(s.may_reuse(&n, &j, T0));
    s.activate(&n, &j, T0).unwrap();
    s.deactivate(&n, T0);
    assert!(!s.may_reuse(&n, &j, T0));

    let mut s = startd("SLOT_TYPE_0_PARTITIONABLE = false\nCLAIM_WORKLIFE = -1");
    s.claim(&n, &j, &[], T0).unwrap();
    s.activate(&n, &j, T0).unwrap();
    s.deactivate(&n, T0 + 10);
    assert!(s.may_reuse(&n, &j, T0 + 10_000_000));

    // A dynamic slot runs only jobs that fit it.
    let mut s = startd("CLAIM_WORKLIFE = -1");
    let d = s
        .claim(&slot("slot1"), &j, &cons(1.0, 128.0, 1024.0), T0)
        .unwrap();
    assert!(s.may_reuse(&d, &job("RequestMemory = 128"), T0));
    assert!(!s.may_reuse(&d, &job("RequestMemory = 129"), T0));
    assert!(!s.may_reuse(&d, &job("RequestCpus = 2"), T0));
    assert!(
        !s.may_reuse(&slot("slot1"), &j, T0),
        "the partitionable slot is not claimed"
    );
}

#[test]
fn startd_attrs_and_slot_prefixes() {
    let s = startd(
        r#"SLOT_TYPE_0_PARTITIONABLE = false
favorite_color = "blue"
favorite_season = "spring"
STARTD_ATTRS = favorite_color, favorite_season, IsDesktop, Broken
SLOT2_favorite_color = "green"
SLOT3_favorite_season = "summer"
SLOT1_STARTD_ATTRS = favorite_movie
favorite_movie = "Casablanca"
IsDesktop = KeyboardIdle > 600
Broken = "unterminated
STARTD_EXPRS = Legacy
Legacy = 42
STARTD_SLOT_ATTRS = State, Cpus
"#,
    );
    let ads = s.slot_ads();
    let a1 = ad(&ads, &slot("slot1"));
    let a2 = ad(&ads, &slot("slot2"));
    let a3 = ad(&ads, &slot("slot3"));
    assert_eq!(string(a1, "favorite_color"), "blue");
    assert_eq!(string(a2, "favorite_color"), "green");
    assert_eq!(string(a3, "favorite_color"), "blue");
    assert_eq!(string(a1, "favorite_season"), "spring");
    assert_eq!(string(a3, "favorite_season"), "summer");
    assert_eq!(string(a1, "favorite_movie"), "Casablanca");
    assert!(a2.lookup("favorite_movie").is_none());
    assert_eq!(text(a1, "IsDesktop"), "KeyboardIdle > 600");
    assert!(a1.eval_bool("IsDesktop", None));
    assert_eq!(int(a1, "Legacy"), 42);
    assert!(a1.lookup("Broken").is_none());
    assert!(
        s.warnings().iter().any(|w| w.contains("Broken")),
        "{:?}",
        s.warnings()
    );
    // STARTD_SLOT_ATTRS: every slot's State in every ad.
    assert_eq!(string(a3, "slot1_State"), "Unclaimed");
    assert_eq!(int(a1, "slot4_Cpus"), 1);
    // The daemon ad has the global attributes.
    let d = s.daemon_ad();
    assert_eq!(string(&d, "favorite_color"), "blue");
    assert_eq!(int(&d, "Legacy"), 42);
}

#[test]
fn slot_type_overrides() {
    let mut s = startd(
        "SLOT_TYPE_1 = 50%\nNUM_SLOTS_TYPE_1 = 1\nSLOT_TYPE_1_START = Owner == \"alice\"\nSLOT_TYPE_2 = 50%\nNUM_SLOTS_TYPE_2 = 1\nSLOT_TYPE_2_HIDDEN = true\nSLOT_TYPE_1_RANK = 5\nSLOT_TYPE_1_STARTD_ATTRS = Color\nColor = \"red\"\nSLOT_TYPE_1_SLOT_WEIGHT = Cpus * 2\n",
    );
    let ads = s.slot_ads();
    assert_eq!(ads.len(), 1, "the hidden slot is not advertised");
    let a = &ads[0];
    assert_eq!(text(a, "Start"), "Owner == \"alice\"");
    assert_eq!(text(a, "Rank"), "5");
    assert_eq!(string(a, "Color"), "red");
    assert_eq!(text(a, "SlotWeight"), "Cpus * 2");
    assert_eq!(int(a, "TotalSlots"), 2);
    assert!(s
        .claim(&slot("slot1"), &job("Owner = \"bob\""), &[], T0)
        .is_err());
    assert!(s
        .claim(&slot("slot2"), &job("Owner = \"bob\""), &[], T0)
        .is_ok());
}

#[test]
fn consumption_policy() {
    let s = startd("CONSUMPTION_POLICY = true\nSTARTD_DETECT_GPUS = false");
    let ads = s.slot_ads();
    let a = &ads[0];
    assert_eq!(
        text(a, "ConsumptionMemory"),
        "quantize(target.RequestMemory,{ 128 })"
    );
    assert_eq!(
        text(a, "WithinResourceLimits"),
        "(ifThenElse(TARGET._cp_orig_RequestCpus =!= undefined,TARGET.RequestCpus <= MY.Cpus,MY.ConsumptionCpus <= MY.Cpus) && ifThenElse(TARGET._cp_orig_RequestDisk =!= undefined,TARGET.RequestDisk <= MY.Disk,MY.ConsumptionDisk <= MY.Disk) && ifThenElse(TARGET._cp_orig_RequestMemory =!= undefined,TARGET.RequestMemory <= MY.Memory,MY.ConsumptionMemory <= MY.Memory))"
    );
}

#[test]
fn gpus_from_nvidia_smi() {
    let (c, _dir) = config("use feature : GPUs\nSLOT_TYPE_0_PARTITIONABLE = false\nNUM_SLOTS = 2");
    let mut p = probe();
    p.nvidia_smi = || {
        Some("GPU 0: Tesla T4 (UUID: GPU-0123abcd-1111-2222-3333-444455556666)\nGPU 1: Tesla T4 (UUID: GPU-89abcdef-1111-2222-3333-444455556666)\n".into())
    };
    let mut s = Startd::from_config_with(&c, T0, p).unwrap();
    let ads = s.slot_ads();
    assert_eq!(int(&ads[0], "TotalGPUs"), 2);
    assert_eq!(
        string(&ads[0], "DetectedGPUs"),
        "GPU-0123abcd, GPU-89abcdef"
    );
    assert_eq!(string(&ads[0], "AssignedGPUs"), "GPU-0123abcd");
    assert_eq!(string(&ads[1], "AssignedGPUs"), "GPU-89abcdef");
    let props = ads[1].eval_attr("GPUs_GPU_89abcdef");
    let Value::Ad(_) = props else {
        panic!("no properties: {props:?}");
    };
    assert_eq!(
        ads[1]
            .eval_expr(
                &parse_old_expr("GPUs_GPU_89abcdef.DeviceName").unwrap(),
                None
            )
            .as_str(),
        Some("Tesla T4")
    );
    let n = slot("slot2");
    s.claim(&n, &job("RequestGPUs = 1"), &[], T0).unwrap();
    let env = s.activate(&n, &job("RequestGPUs = 1"), T0).unwrap();
    let get = |k: &str| env.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
    assert_eq!(get("_CONDOR_AssignedGPUs"), Some("GPU-89abcdef"));
    assert_eq!(get("GPU_DEVICE_ORDINAL"), Some("GPU-89abcdef"));
    let uuid = "GPU-89abcdef-1111-2222-3333-444455556666";
    assert_eq!(get("NVIDIA_VISIBLE_DEVICES"), Some(uuid));
    assert_eq!(get("CUDA_VISIBLE_DEVICES"), Some(uuid));
}

#[test]
fn assigned_resource_environment() {
    let mut s = startd(
        "MACHINE_RESOURCE_GPUs = CUDA0, CUDA1, CUDA2\nMACHINE_RESOURCE_widgets = w1 w2\nENVIRONMENT_FOR_Assignedwidgets = WIDGETS\n",
    );
    let p = slot("slot1");
    let mut c = cons(1.0, 128.0, 1024.0);
    c.push(("GPUs".into(), 2.0));
    let d = s.claim(&p, &job("RequestGPUs = 2"), &c, T0).unwrap();
    s.release(&d, T0);
    let d = s.claim(&p, &job("RequestGPUs = 2"), &c, T0).unwrap();
    let env = s.activate(&d, &job("RequestGPUs = 2"), T0).unwrap();
    let get = |k: &str| env.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
    assert_eq!(get("_CONDOR_AssignedGPUs"), Some("CUDA0,CUDA1"));
    assert_eq!(get("CUDA_VISIBLE_DEVICES"), Some("0,1"));
    assert_eq!(get("GPU_DEVICE_ORDINAL"), Some("0,1"));
    assert_eq!(get("NVIDIA_VISIBLE_DEVICES"), Some("none"));
    // A resource with an environment knob and none assigned.
    assert_eq!(get("_CONDOR_Assignedwidgets"), Some(""));
    assert_eq!(get("WIDGETS"), Some(""));
    // A slot without GPUs gets the "unassigned" value.
    let mut s =
        startd("MACHINE_RESOURCE_GPUs = CUDA0\nSLOT_TYPE_0_PARTITIONABLE = false\nNUM_SLOTS = 2");
    let n = slot("slot2");
    s.claim(&n, &job(""), &[], T0).unwrap();
    let env = s.activate(&n, &job(""), T0).unwrap();
    let get = |k: &str| env.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
    assert_eq!(get("_CONDOR_AssignedGPUs"), Some("10000"));
    assert_eq!(get("CUDA_VISIBLE_DEVICES"), Some("10000"));
}

#[test]
fn inventory_programs() {
    let (c, dir) = config("");
    let script = dir.path().join("widgets.sh");
    std::fs::write(
        &script,
        "#!/bin/sh\necho 'DetectedWidgets = \"w1, w2, w3\"'\necho 'WidgetVendor = \"acme\"'\necho 'w2 = [ Speed = 7 ]'\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let conf = format!(
        "MACHINE_RESOURCE_INVENTORY_Widgets = {}\nOFFLINE_MACHINE_RESOURCE_Widgets = w3\nSTARTD_DETECT_GPUS = false\nSLOT_TYPE_0_PARTITIONABLE = false\nNUM_SLOTS = 2\n",
        script.display()
    );
    let (c2, _d2) = config(&conf);
    drop(c);
    let s = Startd::from_config_with(&c2, T0, probe()).unwrap();
    let ads = s.slot_ads();
    assert_eq!(int(&ads[0], "TotalWidgets"), 2);
    assert_eq!(string(&ads[0], "WidgetVendor"), "acme");
    assert_eq!(string(&ads[0], "AssignedWidgets"), "w1");
    assert_eq!(string(&ads[1], "AssignedWidgets"), "w2");
    assert_eq!(string(&ads[1], "OfflineWidgets"), "w3");
    assert_eq!(
        ads[1]
            .eval_expr(&parse_old_expr("Widgets_w2.Speed").unwrap(), None)
            .as_int(),
        Some(7)
    );
    let d = s.daemon_ad();
    assert_eq!(text(&d, "DetectedWidgets"), "{ Widgets_w2 }");
    // A program that cannot run is an error naming the knob.
    let e = startd_err("MACHINE_RESOURCE_INVENTORY_Frobs = /nonexistent/frobs --all");
    assert!(
        matches!(e, StartdError::Inventory { ref knob, .. } if knob.eq_ignore_ascii_case("MACHINE_RESOURCE_INVENTORY_Frobs")),
        "{e}"
    );
}

#[test]
fn daemon_ad() {
    let s = startd("STARTD_DETECT_GPUS = false");
    let d = s.daemon_ad();
    assert_eq!(string(&d, "MyType"), "StartD");
    assert_eq!(string(&d, "Name"), HOST);
    assert_eq!(string(&d, "Machine"), HOST);
    assert_eq!(int(&d, "TotalSlots"), 1);
    assert_eq!(d.eval_attr("TotalCpus").as_number_real(), Some(4.0));
    assert_eq!(int(&d, "TotalMemory"), 4096);
    assert_eq!(d.eval_attr("TotalInUseCpus").as_number_real(), Some(0.0));
    assert_eq!(string(&d, "CondorVersion"), CONDOR_VERSION);
    assert!(d.lookup("CondorScratchDir").is_none());
    assert!(d.lookup("TargetType").is_none());
    assert!(d.lookup("State").is_none());
}

#[test]
fn reconfigure_keeps_claims() {
    let (c1, _d1) = config("SLOT_TYPE_0_PARTITIONABLE = false\nSTARTD_DETECT_GPUS = false");
    let mut s = Startd::from_config_with(&c1, T0, probe()).unwrap();
    let n2 = slot("slot2");
    s.claim(&n2, &job(""), &[], T0).unwrap();
    s.activate(&n2, &job(""), T0).unwrap();

    let (c2, _d2) = config(
        "SLOT_TYPE_0_PARTITIONABLE = false\nNUM_SLOTS = 2\nSTARTD_DETECT_GPUS = false\nSTARTD_ATTRS = Color\nColor = \"red\"",
    );
    s.reconfigure(&c2, T0 + 100).unwrap();
    let ads = s.slot_ads();
    let names: Vec<String> = ads.iter().map(|a| string(a, "Name")).collect();
    assert_eq!(names, [slot("slot1"), slot("slot2")]);
    // The unclaimed slot took the new layout; the claimed one kept its job and size, and
    // the new policy.
    assert_eq!(int(&ads[0], "Cpus"), 2);
    assert_eq!(int(&ads[1], "Cpus"), 1);
    assert_eq!(string(&ads[1], "State"), "Claimed");
    assert_eq!(string(&ads[1], "Activity"), "Busy");
    assert_eq!(string(&ads[1], "Color"), "red");
    assert_eq!(int(&ads[1], "DaemonLastReconfigTime"), T0 + 100);
    // Once free, the kept slot gives way to the new layout's.
    s.deactivate(&n2, T0 + 200);
    s.release(&n2, T0 + 200);
    let ads = s.slot_ads();
    assert_eq!(ads.len(), 2);
    assert_eq!(int(&ads[1], "Cpus"), 2);
    assert_eq!(string(&ads[1], "State"), "Unclaimed");

    // A reconfiguration that fails changes nothing.
    let (bad, _d3) = config("SLOT_TYPE_1 = cpus=99\nNUM_SLOTS_TYPE_1 = 1");
    assert!(s.reconfigure(&bad, T0 + 300).is_err());
    assert_eq!(s.slot_ads().len(), 2);

    // Partitionable slots with dynamic slots are kept whole.
    let (c4, _d4) = config("STARTD_DETECT_GPUS = false");
    let mut s = Startd::from_config_with(&c4, T0, probe()).unwrap();
    let d = s
        .claim(&slot("slot1"), &job(""), &cons(1.0, 128.0, 1024.0), T0)
        .unwrap();
    let (c5, _d5) = config("STARTD_DETECT_GPUS = false\nNUM_CPUS = 2");
    s.reconfigure(&c5, T0 + 10).unwrap();
    let ads = s.slot_ads();
    assert_eq!(ads.len(), 2);
    assert_eq!(int(&ads[0], "Cpus"), 3);
    s.release(&d, T0 + 20);
    let ads = s.slot_ads();
    assert_eq!(ads.len(), 1);
    assert_eq!(int(&ads[0], "Cpus"), 2);
}

#[test]
fn cpu_busy_and_load() {
    let mut s = startd("CpuBusy = LoadAvg > 0.4\nSLOT_TYPE_0_PARTITIONABLE = false");
    s.refresh(T0 + 30);
    let ads = s.slot_ads();
    // The 0.5 load not due to jobs goes to the first slot.
    assert_eq!(ads[0].eval_attr("LoadAvg").as_number_real(), Some(0.5));
    assert_eq!(ads[1].eval_attr("LoadAvg").as_number_real(), Some(0.0));
    assert!(ads[0].eval_bool("CpuIsBusy", None));
    assert_eq!(int(&ads[0], "CpuBusyTime"), 30);
    assert!(!ads[1].eval_bool("CpuIsBusy", None));
}
