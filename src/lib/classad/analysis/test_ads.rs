//! Ads the analysis tests share: a vanilla job as condor_submit writes it and a
//! partitionable slot as a startd advertises it.

use crate::classad::{parse_old_ad, ClassAd};

pub(crate) fn ad(text: &str) -> ClassAd {
    parse_old_ad(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

pub(crate) const REQUIREMENTS: &str =
    "(TARGET.Arch == \"X86_64\") && (TARGET.OpSys == \"LINUX\") && \
     (TARGET.Disk >= RequestDisk) && (TARGET.Memory >= RequestMemory) && \
     ((TARGET.FileSystemDomain == MY.FileSystemDomain) || (TARGET.HasFileTransfer))";

pub(crate) fn job(extra: &str) -> ClassAd {
    ad(&format!(
        "ClusterId = 7\nProcId = 0\nOwner = \"alice\"\nUser = \"alice@vm\"\n\
         JobUniverse = 5\nJobStatus = 1\nDiskUsage = 43\nRequestDisk = DiskUsage\n\
         RequestCpus = 1\nFileSystemDomain = \"vm\"\nRequirements = {REQUIREMENTS}\n{extra}"
    ))
}

pub(crate) fn pslot(memory: i64) -> ClassAd {
    ad(&format!(
        "Name = \"slot1@vm\"\nMachine = \"vm\"\nSlotID = 1\nPartitionableSlot = true\n\
         Arch = \"X86_64\"\nOpSys = \"LINUX\"\nFileSystemDomain = \"vm\"\n\
         HasFileTransfer = true\nCpus = 2\nMemory = {memory}\nDisk = 1000000\nGPUs = 0\n\
         TotalSlotCpus = 2\nTotalSlotMemory = 2048\nTotalSlotDisk = 1000000.0\n\
         TotalSlotGPUs = 0\nMachineResources = \"Cpus Memory Disk GPUs\"\nStart = true\n\
         Requirements = START && (WithinResourceLimits)\n\
         WithinResourceLimits = (MY.Cpus > 0 && TARGET.RequestCpus <= MY.Cpus && \
         MY.Memory > 0 && TARGET.RequestMemory <= MY.Memory && MY.Disk > 0 && \
         TARGET.RequestDisk <= MY.Disk && (TARGET.RequestGPUs =?= undefined || \
         MY.GPUs >= TARGET.RequestGPUs))"
    ))
}
