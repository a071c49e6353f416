//! Configuration templates (metaknobs): `use CATEGORY : TEMPLATE(args)`.
//!
//! The templates are HTCondor 24.0's, from the metaknob section of `param_info.in`. A template
//! is configuration text; [`expand_args`](super::expand::expand_meta_args) substitutes its
//! `$(1)`, `$(2?)`, `$(0#)`, ... arguments before it is parsed like a file.

/// One template.
#[derive(Clone, Copy, Debug)]
pub struct Template {
    pub category: &'static str,
    pub name: &'static str,
    pub text: &'static str,
}

const fn t(category: &'static str, name: &'static str, text: &'static str) -> Template {
    Template {
        category,
        name,
        text,
    }
}

static TEMPLATES: &[Template] = &[
    t(
        "FEATURE",
        "POLICY_EXPR_FRAGMENTS",
        r#"	PolicyExprFragments=1
	KeyboardBusy=(KeyboardIdle < $(MINUTE))
	ConsoleBusy=(ConsoleIdle  < $(MINUTE))
	KeyboardNotBusy=($(KeyboardBusy) == False)
	JustCPU=($(CPUBusy) && ($(KeyboardBusy) == False))
	MachineBusy=($(CPUBusy) || $(KeyboardBusy))
	NonCondorLoadAvg=(LoadAvg - CondorLoadAvg)
	CpuIdle=($(NonCondorLoadAvg) <= $(BackgroundLoad))
	CpuBusy=($(NonCondorLoadAvg) >= $(HighLoad))
	ActivationTimer=ifThenElse(JobStart =!= UNDEFINED, (time() - JobStart), 0)
	LastCkpt=(time() - LastPeriodicCheckpoint)"#,
    ),
    t(
        "POLICY",
        "DESKTOP",
        r#"	if ! defined PolicyExprFragments
		use FEATURE : POLICY_EXPR_FRAGMENTS
	endif
	STARTD_LATCH_EXPRS = $(STARTD_LATCH_EXPRS) CpuBusy
	CpuBusyTimer=IfThenElse(CpuBusyValue is 1, time() - CpuBusyTime, 0)
	WANT_SUSPEND=($(SmallJob) || $(KeyboardNotBusy) || $(IsVanilla) ) && ( $(SUSPEND))
	WANT_VACATE=$(ActivationTimer) > 600 || $(IsVanilla)
	SUSPEND=($(KeyboardBusy) || ( ($(CpuBusyTimer) > 120) && $(ActivationTimer) > 90))
	CONTINUE=($(CPUIdle) && ($(ActivityTimer) > 10) && (KeyboardIdle > $(ContinueIdleTime)))
	PREEMPT=(((Activity == "Suspended") && ($(ActivityTimer) > $(MaxSuspendTime))) || (SUSPEND && (WANT_SUSPEND == False)))
	START=((KeyboardIdle > $(StartIdleTime)) && ( $(CPUIdle) || (State != "Unclaimed" && State != "Owner")) )
	KILL=False
	MaxJobRetirementTime=0
	CLAIM_WORKLIFE=
	SLOTS_CONNECTED_TO_KEYBOARD=1000000
	SLOTS_CONNECTED_TO_CONSOLE=1000000
	IS_OWNER=(START =?= False)"#,
    ),
    t(
        "FEATURE",
        "POLICY_HOURS_TO_START",
        r#"    # Desktops are never idle during the Workday, use 24 hour day, fractional hours
    WorkdayBeginHour=$(1:8)
    WorkdayEndHour=$(2:12+5)
    # don't start jobs with 30 minutes of the start of day
    WorkdayBeginMinuteStartJobs=($(WorkdayBeginHour))*60 - 29.5
    # begin evicting jobs 10 minutes before the start of the day
    WorkdayBeginMinuteStopJobs=($(WorkdayBeginHour))*60 - 9.5
    WorkdayEndMinute=($(WorkdayEndHour))*60 + 0.5
    RunJobsHours=ClockMin < $INT(WorkdayBeginMinuteStartJobs) || ClockMin > $INT(WorkdayEndMinute)
    NoJobsHours=ClockMin > $INT(WorkdayBeginMinuteStopJobs) && ClockMin < $INT(WorkdayEndMinute)
    if $(3?)
       WorkweekFirstDay=$(3:1)
       WorkweekLastDay=$(4:5)
       IsWeekend=ClockDay < $INT(WorkweekFirstDay) || ClockDay > $INT(WorkWeekLastDay)
       IsWorkday=ClockDay >= $INT(WorkweekFirstDay) && ClockDay <= $INT(WorkWeekLastDay)
       RunJobsHours=$(IsWeekend) || $(RunJobsHours)
       NoJobsHours=$(IsWorkday) && $(NoJobsHours)
    endif
    RunJobsHours=($(RunJobsHours))
    NoJobsHours=($(NoJobsHours))"#,
    ),
    t(
        "POLICY",
        "DESKTOP_IDLE",
        r#"    if $(1?)
        use FEATURE : POLICY_HOURS_TO_START($(1+))
    endif
    NonCondorLoadAvg=(LoadAvg - CondorLoadAvg)
    CpuBusy=($(NonCondorLoadAvg) >= $(HighLoad))
    CpuIdle=($(NonCondorLoadAvg) <= $(BackgroundLoad))
    STARTD_LATCH_EXPRS = $(STARTD_LATCH_EXPRS) CpuBusy
    # the CpuBusy LATCH_EXPR produces CpuBusyValue=0 or 1, CpuBusyTime is the time that CpuBusyValue changed
    CpuBusyTimer=(CpuBusyValue * (time() - CpuBusyTime))
    # preempt on Keyboard activity, CpuBusy and optionally hours of day and/or day of week
    PreemptKeyboardIdleTime=60
    PreemptCpuBusyTime=120
    PREEMPT=(KeyboardIdle < $(PreemptKeyboardIdleTime)) || ($(CpuBusyTimer) > $(PreemptCpuBusyTime))
    if defined NoJobsHours
        PREEMPT = ($(PREEMPT)) && ($(NoJobsHours))
    endif
    # start on KeyboardIdle, CpuIdle and optionally hours of day and/or day of week
    START=(KeyboardIdle > $(StartIdleTime)) && $(CPUIdle)
    if defined RunJobsHours
        START = ($(START)) || ($(RunJobsHours))
    endif
    # boilerplate for evict but not suspend
    WANT_SUSPEND=False
    WANT_VACATE=True
    SUSPEND=False
    CONTINUE=True
    KILL=False
    MaxJobRetirementTime=0
    CLAIM_WORKLIFE=
    SLOTS_CONNECTED_TO_KEYBOARD=1000000
    SLOTS_CONNECTED_TO_CONSOLE=1000000
    IS_OWNER=(START =?= False)"#,
    ),
    t(
        "POLICY",
        "DESKTOP_HOURS",
        r#"    use FEATURE : POLICY_HOURS_TO_START($(1+))
    # set CpuBusy latch and NonCondorLoadAvg in case admin wants to use them
    NonCondorLoadAvg=(LoadAvg - CondorLoadAvg)
    CpuBusy=($(NonCondorLoadAvg) >= $(HighLoad))
    STARTD_LATCH_EXPRS = $(STARTD_LATCH_EXPRS) CpuBusy
    # the CpuBusy LATCH_EXPR produces CpuBusyValue=0 or 1, CpuBusyTime is the time that CpuBusyValue changed
    CpuBusyTimer=(CpuBusyValue * (time() - CpuBusyTime))
    PREEMPT = $(NoJobsHours)
    START = $(RunJobsHours)
    # boilerplate for evict but not suspend
    WANT_SUSPEND=False
    WANT_VACATE=True
    SUSPEND=False
    CONTINUE=True
    KILL=False
    MaxJobRetirementTime=0
    CLAIM_WORKLIFE=
    SLOTS_CONNECTED_TO_KEYBOARD=1000000
    SLOTS_CONNECTED_TO_CONSOLE=1000000
    IS_OWNER=(START =?= False)"#,
    ),
    t(
        "POLICY",
        "ALWAYS_RUN_JOBS",
        r#"	WANT_SUSPEND=False
	WANT_VACATE=True
	SUSPEND=False
	CONTINUE=True
	PREEMPT=False
	START=True
	KILL=False
	PREEMPTION_REQUIREMENTS=False
	NEGOTIATOR_CONSIDER_PREEMPTION=False
	MaxJobRetirementTime=2147483647
	CLAIM_WORKLIFE=1200"#,
    ),
    t(
        "FEATURE",
        "TESTINGMODE_POLICY_VALUES",
        r#"	TESTINGMODE_WANT_SUSPEND=False
	TESTINGMODE_WANT_VACATE=True
	TESTINGMODE_START=True
	TESTINGMODE_SUSPEND=False
	TESTINGMODE_CONTINUE=True
	TESTINGMODE_PREEMPT=False
	TESTINGMODE_KILL=False
	TESTINGMODE_PERIODIC_CHECKPOINT=False
	TESTINGMODE_PREEMPTION_REQUIREMENTS=False
	TESTINGMODE_PREEMPTION_RANK=0
	TESTINGMODE_CLAIM_WORKLIFE=1200"#,
    ),
    t(
        "FEATURE",
        "UWCS_DESKTOP_POLICY_VALUES",
        r#"	if ! defined PolicyExprFragments
		use FEATURE : POLICY_EXPR_FRAGMENTS
	endif
	STARTD_LATCH_EXPRS = $(STARTD_LATCH_EXPRS) CpuBusy
	CpuBusyTimer=IfThenElse(CpuBusyValue is 1, time() - CpuBusyTime, 0)
	UWCS_WANT_SUSPEND=( $(SmallJob) || $(KeyboardNotBusy) || $(IsVanilla) ) && ( $(SUSPEND) )
	UWCS_WANT_VACATE=( $(ActivationTimer) > 10 * $(MINUTE) || $(IsVanilla) )
	UWCS_START=( (KeyboardIdle > $(StartIdleTime)) && ( $(CPUIdle) || (State != "Unclaimed" && State != "Owner")) )
	UWCS_SUSPEND=( $(KeyboardBusy) || ( ($(CpuBusyTimer) > 2 * $(MINUTE)) && $(ActivationTimer) > 90 ) )
	UWCS_CONTINUE=( $(CPUIdle) && ($(ActivityTimer) > 10) && (KeyboardIdle > $(ContinueIdleTime)) )
	UWCS_PREEMPT=( ((Activity == "Suspended") && ($(ActivityTimer) > $(MaxSuspendTime))) || (SUSPEND && (WANT_SUSPEND == False)) )
	UWCS_MaxJobRetirementTime=0
	UWCS_KILL=false
	UWCS_PERIODIC_CHECKPOINT=$(LastCkpt) > (3 * $(HOUR) + $RANDOM_INTEGER(-30,30,1) * $(MINUTE) )
	UWCS_NEGOTIATOR_PRE_JOB_RANK=(10000000 * My.Rank) + (1000000 * (RemoteOwner =?= UNDEFINED)) - (100000 * Cpus) - Memory
	UWCS_NEGOTIATOR_POST_JOB_RANK=(RemoteOwner =?= UNDEFINED) * (ifthenElse(isUndefined(KFlops), 1000, Kflops) - SlotID - 1.0e10*(Offline=?=True))
	UWCS_PREEMPTION_REQUIREMENTS=((SubmitterGroup =?= RemoteGroup) && ($(StateTimer) > (1 * $(HOUR))) && (RemoteUserPrio > TARGET.SubmitterUserPrio * 1.2)) || (MY.NiceUser == True)
	UWCS_PREEMPTION_RANK=(RemoteUserPrio * 1000000) - ifThenElse(isUndefined(TotalJobRuntime), 0, TotalJobRuntime)"#,
    ),
    t(
        "POLICY",
        "UWCS_DESKTOP",
        r#"	use FEATURE : UWCS_DESKTOP_POLICY_VALUES
	WANT_SUSPEND=$(UWCS_WANT_SUSPEND)
	WANT_VACATE=$(UWCS_WANT_VACATE)
	SUSPEND=$(UWCS_SUSPEND)
	CONTINUE=$(UWCS_CONTINUE)
	PREEMPT=$(UWCS_PREEMPT)
	START=$(UWCS_START)
	KILL=$(UWCS_KILL)
	PERIODIC_CHECKPOINT=$(UWCS_PERIODIC_CHECKPOINT)
	PREEMPTION_REQUIREMENTS=$(UWCS_PREEMPTION_REQUIREMENTS)
	PREEMPTION_RANK=$(UWCS_PREEMPTION_RANK)
	NEGOTIATOR_PRE_JOB_RANK=$(UWCS_NEGOTIATOR_PRE_JOB_RANK)
	NEGOTIATOR_POST_JOB_RANK=$(UWCS_NEGOTIATOR_POST_JOB_RANK)
	MaxJobRetirementTime=$(UWCS_MaxJobRetirementTime)
	CLAIM_WORKLIFE=$(UWCS_CLAIM_WORKLIFE)
	SLOTS_CONNECTED_TO_KEYBOARD=1024*1024
	IS_OWNER=(START =?= False)"#,
    ),
    t(
        "POLICY",
        "LIMIT_JOB_RUNTIMES",
        r#"	MAX_JOB_RUNTIME=$(1:24*3600)
	MaxJobRetirementTime=$(MAX_JOB_RUNTIME)+120
	PREEMPT=(Activity == "Busy") && ((time() - EnteredCurrentActivity) > $(MAX_JOB_RUNTIME))"#,
    ),
    t(
        "POLICY",
        "PREEMPT_IF_RUNTIME_EXCEEDS",
        r#"	MAX_JOB_RUNTIME = $(1:24*3600)
	PREEMPT_RUNTIME_EXCEEDS = (JobState == "Running") && ((time() - JobCurrentStartDate) > $(MAX_JOB_RUNTIME))
	use policy : PREEMPT_IF( PREEMPT_RUNTIME_EXCEEDS )"#,
    ),
    t(
        "POLICY",
        "HOLD_IF_RUNTIME_EXCEEDS",
        r#"	MAX_JOB_RUNTIME = $(1:24*3600)
	HOLD_REASON_RUNTIME_EXCEEDS = runtime exceeded maximum ($(MAX_JOB_RUNTIME) seconds)
	HOLD_RUNTIME_EXCEEDS = (JobState == "Running") && ((time() - JobCurrentStartDate) > $(MAX_JOB_RUNTIME))
	use policy : WANT_HOLD_IF( HOLD_RUNTIME_EXCEEDS, $(HOLD_SUBCODE_RUNTIME_EXCEEDS:103), $(HOLD_REASON_RUNTIME_EXCEEDS) )"#,
    ),
    t(
        "POLICY",
        "STARTD_PUBLISH_CpusUsage",
        r#"  #
  # Publish the number of CPU cores being used by the job into
  # to slot ad as attribute "CpusUsage". This value will
  # be the average number of cores used by the job over the
  # past minute, sampling every 5 seconds
  #
  CpusUsage = ifthenelse(TotalLoadAvg > 0.0 && Activity!="Idle", CondorLoadAvg/TotalLoadAvg*MIN({TotalLoadAvg, $(DETECTED_CORES)}), 0)
  STARTD_ATTRS = $(STARTD_ATTRS) CpusUsage"#,
    ),
    t(
        "POLICY",
        "PREEMPT_IF_CPUS_EXCEEDED",
        r#"  use POLICY : STARTD_PUBLISH_CpusUsage
  #
  # If the startd sees the number of CPU cores used by the job exceed the
  # number of cores in the slot by more than 0.8, preempt the job
  # immediately ignoring any retirement time.
  #
  CPU_EXCEEDED = (CpusUsage > Cpus + 0.8)
  use POLICY : PREEMPT_IF(CPU_EXCEEDED)"#,
    ),
    t(
        "POLICY",
        "HOLD_IF_CPUS_EXCEEDED",
        r#"  use POLICY : STARTD_PUBLISH_CpusUsage
  #
  # If the startd sees the number of CPU cores used by the job exceed the
  # number of cores in the slot by more than 0.8, preempt the job
  # immediately ignoring any retirement time.
  #
  CPU_EXCEEDED = (CpusUsage > Cpus + 0.8)
  HOLD_REASON_CPU_EXCEEDED = CPU usage exceeded request_cpus
  use POLICY : WANT_HOLD_IF( CPU_EXCEEDED, $(HOLD_SUBCODE_CPU_EXCEEDED:101), $(HOLD_REASON_CPU_EXCEEDED) )"#,
    ),
    t(
        "POLICY",
        "PREEMPT_IF_DISK_EXCEEDED",
        r#"  #
  # If the startd sees the disk usage of the job exceed the
  # disk in the slot, preempt the job immediately ignoring
  # any retirement time.  VM universe jobs can't go over their
  # disk allocations, so we ignore them.
  #
  DISK_EXCEEDED = (JobUniverse != 13 && DiskUsage =!= UNDEFINED && DiskUsage > Disk)
  use POLICY : PREEMPT_IF(DISK_EXCEEDED)"#,
    ),
    t(
        "POLICY",
        "HOLD_IF_DISK_EXCEEDED",
        r#"  #
  # If the startd preempted a job because disk usage exceeded
  # the amount of memory in the slot, put the job on hold.  VM
  # universe jobs can't go over their disk allocations, so
  # we ignore them.
  #
  DISK_EXCEEDED = (JobUniverse != 13 && DiskUsage =!= UNDEFINED && DiskUsage > Disk)
  HOLD_REASON_DISK_EXCEEDED = disk usage exceeded allocated disk
  use POLICY : WANT_HOLD_IF( DISK_EXCEEDED, $(HOLD_SUBCODE_DISK_EXCEEDED:104), $(HOLD_REASON_DISK_EXCEEDED) )"#,
    ),
    t(
        "POLICY",
        "PREEMPT_IF_MEMORY_EXCEEDED",
        r#"  #
  # If the startd sees the memory usage of the job exceed the
  # memory in the slot, preempt the job immediately ignoring
  # any retirement time.  VM universe jobs can't go over their
  # memory allocations, so we ignore them.
  #
  MEMORY_EXCEEDED = (JobUniverse != 13 && MemoryUsage =!= UNDEFINED && MemoryUsage > Memory)
  use POLICY : PREEMPT_IF(MEMORY_EXCEEDED)"#,
    ),
    t(
        "POLICY",
        "HOLD_IF_MEMORY_EXCEEDED",
        r#"  #
  # If the startd preempted a job because memory usage exceeded
  # the amount of memory in the slot, put the job on hold.  VM
  # universe jobs can't go over their memory allocations, so
  # we ignore them.
  #
  MEMORY_EXCEEDED = (JobUniverse != 13 && MemoryUsage =!= UNDEFINED && MemoryUsage > Memory)
  HOLD_REASON_MEMORY_EXCEEDED = memory usage exceeded request_memory
  use POLICY : WANT_HOLD_IF( MEMORY_EXCEEDED, $(HOLD_SUBCODE_MEMORY_EXCEEDED:102), $(HOLD_REASON_MEMORY_EXCEEDED) )"#,
    ),
    t(
        "POLICY",
        "PREEMPT_IF",
        r#"  if !$(1?)
    error : use POLICY : PREEMPT_IF requires an argument. It should be the name of a config variable that has the trigger expression.
  endif
  if defined PREEMPT
    PREEMPT = $($(1)) || $(PREEMPT)
  else
    PREEMPT = $($(1))
  endif
  MAXJOBRETIREMENTTIME = ifthenelse($($(1)),-1,$(MAXJOBRETIREMENTTIME:0))
  if defined WANT_SUSPEND
    WANT_SUSPEND = $($(1)) =!= true && $(WANT_SUSPEND)
  else
    WANT_SUSPEND = $($(1)) =!= true
  endif"#,
    ),
    t(
        "POLICY",
        "WANT_HOLD_IF",
        r#"  use POLICY : PREEMPT_IF($(1))
  if ! $(3?)
    error : use POLICY : WANT_HOLD_IF requires 3 arguments: policy_variable, subcode, reason_text
  endif
  if defined WANT_HOLD
    WANT_HOLD = (JobUniverse != 1 && $($(1))) || $(WANT_HOLD)
  else
    WANT_HOLD = (JobUniverse != 1 && $($(1)))
  endif
  WANT_HOLD_SUBCODE = ifThenElse($($(1)), $(2) , $(WANT_HOLD_SUBCODE:UNDEFINED))
  WANT_HOLD_REASON = ifThenElse($($(1)), "$(3+)", $(WANT_HOLD_REASON:UNDEFINED))"#,
    ),
    t(
        "ROLE",
        "Personal",
        r#"	CONDOR_HOST=127.0.0.1
	COLLECTOR_HOST=$(CONDOR_HOST):0
	DAEMON_LIST=MASTER COLLECTOR NEGOTIATOR STARTD SCHEDD
	RunBenchmarks=0"#,
    ),
    t("ROLE", "Execute", r#"	DAEMON_LIST=$(DAEMON_LIST) STARTD"#),
    t("ROLE", "Submit", r#"	DAEMON_LIST=$(DAEMON_LIST) SCHEDD"#),
    t(
        "ROLE",
        "CentralManager",
        r#"	DAEMON_LIST=$(DAEMON_LIST) COLLECTOR NEGOTIATOR"#,
    ),
    t(
        "SECURITY",
        "HOST_BASED",
        r#"	ALLOW_ADMINISTRATOR=$(CONDOR_HOST)
	ALLOW_READ=*
	ALLOW_WRITE=$(FULL_HOSTNAME) $(IPV4_ADDRESS) $(IPV6_ADDRESS)
	ALLOW_DAEMON=$(FULL_HOSTNAME) $(IPV4_ADDRESS) $(IPV6_ADDRESS)
	ALLOW_NEGOTIATOR=$(CONDOR_HOST)
	ALLOW_NEGOTIATOR_SCHEDD=$(ALLOW_NEGOTIATOR) $(FLOCK_NEGOTIATOR_HOSTS)
	ALLOW_WRITE_COLLECTOR=$(ALLOW_WRITE) $(FLOCK_FROM)
	ALLOW_WRITE_STARTD=$(ALLOW_WRITE) $(FLOCK_FROM)
	ALLOW_READ_COLLECTOR=$(ALLOW_READ) $(FLOCK_FROM)
	ALLOW_READ_STARTD=$(ALLOW_READ) $(FLOCK_FROM)

	# To smooth upgrades from 8.8.
	LEGACY_ALLOW_SEMANTICS = TRUE"#,
    ),
    t(
        "SECURITY",
        "WITH_AUTHENTICATION",
        r#"	SEC_DEFAULT_AUTHENTICATION=required
	SEC_DEFAULT_INTEGRITY=required"#,
    ),
    t(
        "SECURITY",
        "STRONG",
        r#"	SEC_DEFAULT_ENCRYPTION=required
	SEC_DEFAULT_INTEGRITY=required
	SEC_DEFAULT_AUTHENTICATION=required"#,
    ),
    t(
        "SECURITY",
        "USER_BASED",
        r#"	if $(CondorIsAdmin)
	  authuser=condor
	else
	  authuser=$(USERNAME)
	endif
	use security:recommended($(authuser))
	# If we're running under a regular account, limit job submission
	# to this account.
	if ! $(CondorIsAdmin)
	  ALLOW_WRITE = $(authuser)@$(UID_DOMAIN)
	endif"#,
    ),
    t(
        "FEATURE",
        "AssignAccountingGroup",
        r#"	if ! $(1?)
	  error : use FEATURE : AssignAccountingGroup requires a map_file argument
	endif
	use FEATURE : ScheddUsermapFile(AssignAccountingGroup, $(1))
	JOB_TRANSFORM_NAMES = $(JOB_TRANSFORM_NAMES) AssignAccountingGroup
	JOB_TRANSFORM_AssignAccountingGroup @=end
		COPY Owner = AcctGroupUser
		COPY AcctGroup = RequestedAcctGroup
		EVALSET AcctGroup = usermap("AssignAccountingGroup",AcctGroupUser,AcctGroup)
		EVALSET AccountingGroup = join(".",AcctGroup,AcctGroupUser)
	@end
	# make sure that the user can't qedit these attributes once they have been set.
	IMMUTABLE_JOB_ATTRS = $(IMMUTABLE_JOB_ATTRS) AcctGroup AcctGroupUser AccountingGroup
	# optionally check that the user requested a valid group
	if $(2:True)
	  SUBMIT_REQUIREMENT_NAMES = $(SUBMIT_REQUIREMENT_NAMES) CheckRequestedGroup
	  SUBMIT_REQUIREMENT_CheckRequestedGroup = RequestedAcctGroup is undefined || RequestedAcctGroup == AcctGroup
	  SUBMIT_REQUIREMENT_CheckRequestedGroup_REASON = strcat("Permission denied setting accounting_group to ", RequestedAcctGroup)
	endif
	# require that the user mapped into an accounting group
	SUBMIT_REQUIREMENT_NAMES = $(SUBMIT_REQUIREMENT_NAMES) AssignAccountingGroup
	SUBMIT_REQUIREMENT_AssignAccountingGroup = AcctGroup isnt undefined && AccountingGroup isnt undefined
	SUBMIT_REQUIREMENT_AssignAccountingGroup_REASON = strcat("Submit requirement AssignAccountingGroup not met - Could not map '", Owner, "' to an accounting group ", RequestedAcctGroup)"#,
    ),
    t(
        "FEATURE",
        "SetJobAttrFromUsermap",
        r#"	if ! $(3?)
	  error : use FEATURE : SetJobAttrFromUsermap requires at least 3 arguments: dest_attr, src_attr, map_name [,map_file]
	endif
	if $(4?)
	   use FEATURE : ScheddUsermapFile($(3), $(4))
	endif
	JOB_TRANSFORM_NAMES = $(JOB_TRANSFORM_NAMES) Set$(1)
	JOB_TRANSFORM_Set$(1) = [ eval_set_$(1)=usermap("$(3)",$(2),$(1)); ]
	SUBMIT_REQUIREMENT_NAMES = $(SUBMIT_REQUIREMENT_NAMES) Require$(1)
	SUBMIT_REQUIREMENT_Require$(1) = $(1) isnt undefined
	SUBMIT_REQUIREMENT_Require$(1)_REASON = strcat("Submit requirement Require$(1) not met - Could not map '", $(2)?:"undefined", "' to a $(1)")"#,
    ),
    t(
        "FEATURE",
        "ScheddUsermapFile",
        r#"   if ! $(2?)
     error : use FEATURE : ScheddUsermapFile requires 2 arguments: map_name, map_file
   endif
   SCHEDD_CLASSAD_USER_MAP_NAMES = $(SCHEDD_CLASSAD_USER_MAP_NAMES) $(1)
   CLASSAD_USER_MAPFILE_$(1) = $(2)"#,
    ),
    t(
        "FEATURE",
        "REMOTE_RUNTIME_CONFIG",
        r#"	ENABLE_RUNTIME_CONFIG=True
	ALLOW_CONFIG=$(ALLOW_ADMINISTRATOR)
	# the value of this attribute defines which parameters can be set remotely
	if $(0#)
		SETTABLE_ATTRS_CONFIG=$(SETTABLE_ATTRS_CONFIG) $(0)
	endif"#,
    ),
    t(
        "FEATURE",
        "REMOTE_CONFIG",
        r#"	ENABLE_PERSISTENT_CONFIG=True
	PERSISTENT_CONFIG_DIR=$(SPOOL)
	use FEATURE : REMOTE_RUNTIME_CONFIG($(0))"#,
    ),
    t(
        "FEATURE",
        "GPUs",
        r#"	MACHINE_RESOURCE_INVENTORY_GPUs=$(LIBEXEC)/condor_gpu_discovery $(1) -properties $(GPU_DISCOVERY_EXTRA)
	ENVIRONMENT_FOR_AssignedGPUs=GPU_DEVICE_ORDINAL=/(CUDA|OCL)//  CUDA_VISIBLE_DEVICES=/CUDA//
	ENVIRONMENT_VALUE_FOR_UnAssignedGPUs=10000

	use feature : GPUsMonitor"#,
    ),
    t(
        "FEATURE",
        "Monitor",
        r#"	if ! $(5?)
		error: use feature : monitor requires five or more arguments
	endif

	STARTD_CRON_JOBLIST = $(STARTD_CRON_JOBLIST) $(1)_MONITOR
	STARTD_CRON_$(1)_MONITOR_MODE = $(2)
	STARTD_CRON_$(1)_MONITOR_PERIOD = $(3)
	STARTD_CRON_$(1)_MONITOR_EXECUTABLE = $(4)
	STARTD_CRON_$(1)_MONITOR_METRICS = $(5+)"#,
    ),
    t(
        "FEATURE",
        "GPUsMonitor",
        r#"	use feature : Monitor( GPUs, WaitForExit, 300, $(GPU_MONITOR), SUM:GPUs, PEAK:GPUsMemory )
	STARTD_CRON_GPUs_MONITOR_CONDITION = TotalGPUs > 0 && OpSys =!= "WINDOWS"

	STARTD_JOB_ATTRS = $(STARTD_JOB_ATTRS) GPUsUsage GPUsMemoryUsage"#,
    ),
    t(
        "FEATURE",
        "PelicanCache",
        r#"	# NOTE: This feature is still very experimental and could have bugs and unexpected behavior
	PELICANCACHE=/usr/bin/pelican
	DAEMON_LIST=$(DAEMON_LIST) PELICANCACHE
	PELICANCACHE_LOG=$(LOG)/PelicanCacheLog
	PELICANCACHE_SIZE=$(1:256GB)
	PELICANCACHE_RUNLOCATION=$(2:$(LOCAL_DIR)/localcache)
	PELICANCACHE_FEDERATION=$(3:osg-htc.org)
	PELICANCACHE_HIGHWATERMARKPERCENTAGE=95
	PELICANCACHE_LOWWATERMARKPERCENTAGE=85
	# pass some args to the PELICANCACHE daemon in the environment and some in the args
	PELICANCACHE_ARGS=serve -d --module localcache -L $(PELICANCACHE_LOG) -f $(PELICANCACHE_FEDERATION)
	PELICANCACHE_ENVIRONMENT @=end
	   PELICAN_SERVER_ENABLEUI=false
	   PELICAN_LOCALCACHE_SIZE=$(PELICANCACHE_SIZE)
	   PELICAN_LOCALCACHE_RUNLOCATION=$(PELICANCACHE_RUNLOCATION)
	   PELICAN_LOCALCACHE_HIGHWATERMARKPERCENTAGE=$(PELICANCACHE_HIGHWATERMARKPERCENTAGE)
	   PELICAN_LOCALCACHE_LOWWATERMARKPERCENTAGE=$(PELICANCACHE_LOWWATERMARKPERCENTAGE)
	@end
	# push an environment variable into the STARTD, which the STARTER and the transfer plugins will inherit
	# we use the leading delimiter syntax here, with ; as the delimiter on all platforms
	STARTD_ENVIRONMENT=;NEAREST_CACHE=unix:/$(PELICANCACHE_RUNLOCATION)/cache.sock;$(STARTD_ENVIRONMENT)"#,
    ),
    t(
        "FEATURE",
        "PartitionableSlot",
        r#"	NUM_SLOTS_TYPE_$(1:1)=1
	SLOT_TYPE_$(1:1)_PARTITIONABLE=true
	SLOT_TYPE_$(1:1)=$(2+:100%)"#,
    ),
    t(
        "FEATURE",
        "StaticSlots",
        r#"	NUM_SLOTS_TYPE_$(1:1)=$(2:$(NUM_CPUS))
	SLOT_TYPE_$(1:1)_PARTITIONABLE=false
	SLOT_TYPE_$(1:1)=$(3+:1/$(NUM_SLOTS_TYPE_$(1:1)))
	SLOT_TYPE_$(1:1)=$(3+)"#,
    ),
    t(
        "FEATURE",
        "OneShotCronHook",
        r#"   if ! $(3?)
     error : use FEATURE : OneShotCronHook requires at least 3 arguments: STARTD_CRON | SCHEDD_CRON, tag, hook_exe [,hook_args]
   endif
   $(1)_JOBLIST=$($(1)_JOBLIST) $(2)
   $(1)_$(2)_MODE=OneShot
   $(1)_$(2)_KILL=true
   $(1)_$(2)_RECONFIG_RERUN=true
   $(1)_$(2)_EXECUTABLE=$(3)
   if $(4?)
     $(1)_$(2)_ARGS=$(4)
   endif"#,
    ),
    t(
        "FEATURE",
        "PeriodicCronHook",
        r#"   if ! $(4?)
     error : use FEATURE : PeriodicCronHook requires at least 4 arguments: STARTD_CRON | SCHEDD_CRON, tag, period, hook_exe [,hook_args]
   endif
   $(1)_JOBLIST=$($(1)_JOBLIST) $(2)
   $(1)_$(2)_MODE=Periodic
   $(1)_$(2)_PERIOD=$(3)
   $(1)_$(2)_EXECUTABLE=$(4)
   if $(5?)
     $(1)_$(2)_ARGS=$(5)
   endif"#,
    ),
    t(
        "FEATURE",
        "ContinuousCronHook",
        r#"   if ! $(3?)
     error : use FEATURE : ContinuousCronHook requires at least 3 arguments: STARTD_CRON | SCHEDD_CRON, tag, hook_exe [,hook_args]
   endif
   $(1)_JOBLIST=$($(1)_JOBLIST) $(2)
   $(1)_$(2)_MODE=WaitForExit
   $(1)_$(2)_PERIOD=0
   $(1)_$(2)_EXECUTABLE=$(3)
   if $(4?)
     $(1)_$(2)_ARGS=$(4)
   endif"#,
    ),
    t(
        "FEATURE",
        "StartdCronPeriodic",
        r#"use FEATURE : PeriodicCronHook(STARTD_CRON, $(0))"#,
    ),
    t(
        "FEATURE",
        "ScheddCronPeriodic",
        r#"use FEATURE : PeriodicCronHook(SCHEDD_CRON, $(0))"#,
    ),
    t(
        "FEATURE",
        "StartdCronOneShot",
        r#"use FEATURE : OneShotCronHook(STARTD_CRON, $(0))"#,
    ),
    t(
        "FEATURE",
        "ScheddCronOneShot",
        r#"use FEATURE : OneShotCronHook(SCHEDD_CRON, $(0))"#,
    ),
    t(
        "FEATURE",
        "StartdCronContinuous",
        r#"use FEATURE : ContinuousCronHook(STARTD_CRON, $(0))"#,
    ),
    t(
        "FEATURE",
        "ScheddCronContinuous",
        r#"use FEATURE : ContinuousCronHook(SCHEDD_CRON, $(0))"#,
    ),
    t(
        "FEATURE",
        "ChildCollector",
        r#"   COLLECTOR$(1)=$(COLLECTOR)
   if $(2?)
      COLLECTOR$(1)_ARGS= -p $(2)
   else
      COLLECTOR$(1)_ARGS= -sock collector$(1)
   endif
   COLLECTOR$(1).COLLECTOR_NAME=Collector$(1)
   COLLECTOR$(1).CONDOR_VIEW_HOST=$(TOP_COLLECTOR_HOST)
   COLLECTOR$(1).CCB_RECONNECT_FILE=$(SPOOL)/Collector$(1).ccb_reconnect
   DAEMON_LIST=$(DAEMON_LIST) COLLECTOR$(1)
   # change TOP_COLLECTOR_HOST to point all of the child collectors at a different top-level collector
   TOP_COLLECTOR_HOST=$(COLLECTOR_HOST)"#,
    ),
    t(
        "SECURITY",
        "get_htcondor_idtokens",
        r#"# Standard security configuration: Authenticate all non-READ connections
# and do encryption and integrity checks for all connections.
use security:recommended

# In older versions (23.X and prior), enabling integrity/encryption
# required authentication. To allow unauthenticated READ commands with
# encryption, we added ANONYMOUS, an authentication method that doesn't
# actually authenticate.
# To work with older peers, we include that setting here.
SEC_READ_AUTHENTICATION_METHODS = $(SEC_DEFAULT_AUTHENTICATION_METHODS),ANONYMOUS
SEC_CLIENT_AUTHENTICATION_METHODS = $(SEC_DEFAULT_AUTHENTICATION_METHODS),ANONYMOUS

# IDTOKENs issued by HTCondor include the identity of the issuer.  This
# identity is used to determine which IDTOKEN(s) to present to which
# daemon(s).  The TRUST_DOMAIN variable sets that identity.  Setting it
# to the same thing on each machine in your pool ensures that a token
# issued by one machine is presented to every other machine in your pool.
#
# When get_htcondor creates an IDTOKEN for a machine, it uses this variable
# to create the identity for that IDTOKEN.  This makes it easy to look at
# the authorization lists (see below) and distinguish between IDTOKENS in
# your pool and (if you allow them) IDTOKENS from other pools.
TRUST_DOMAIN = $(CONDOR_HOST)"#,
    ),
    t(
        "ROLE",
        "get_htcondor_central_manager",
        r#"use security:get_htcondor_idtokens

use role:CentralManager"#,
    ),
    t(
        "ROLE",
        "get_htcondor_submit",
        r#"use security:get_htcondor_idtokens

use role:submit"#,
    ),
    t(
        "ROLE",
        "get_htcondor_execute",
        r#"use security:get_htcondor_idtokens

use role:execute"#,
    ),
    t(
        "SECURITY",
        "recommended_v9_0",
        r#"# Make it easy to detect if this metaknob was set.
SECURITY_MODEL = 9.0

# Assume that FS and IDTOKENS are in SEC_DEFAULT_AUTHENTICATION_METHODS,
# which they are by default.
use security:strong

# This allows anyone who can access port 9618 to READ, which lets
# condor_status and condor_q work over the network out of the box.
SEC_READ_AUTHENTICATION = OPTIONAL
SEC_READ_ENCRYPTION = OPTIONAL
SEC_READ_INTEGRITY = OPTIONAL

ALLOW_ADMINISTRATOR = $(1:condor)@* condor_pool@* $(2:root@*) $(3+)
ALLOW_DAEMON = $(1:condor)@*  condor_pool@*
ALLOW_NEGOTIATOR = $(1:condor)@* condor_pool@*
ALLOW_WRITE = *
ALLOW_READ = *"#,
    ),
    t(
        "SECURITY",
        "recommended_v24_0",
        r#"# Make it easy to detect if this metaknob was set.
SECURITY_MODEL = 24.0

# Assume that FS and IDTOKENS are in SEC_DEFAULT_AUTHENTICATION_METHODS,
# which they are by default.
use security:strong

# This allows anyone who can access port 9618 to READ, which lets
# condor_status and condor_q work over the network out of the box.
SEC_READ_AUTHENTICATION = OPTIONAL
SEC_CLIENT_AUTHENTICATION = OPTIONAL

ALLOW_ADMINISTRATOR = $(1:condor)@* condor@password $(2:root@*) $(3+)
ALLOW_DAEMON = $(1:condor)@*  condor@password
ALLOW_NEGOTIATOR = $(1:condor)@* condor@password
ALLOW_WRITE = *
ALLOW_READ = *"#,
    ),
    t(
        "SECURITY",
        "recommended",
        r#"# Latest revision was made for 24.0
use security:recommended_v24_0($(1+))"#,
    ),
    t(
        "SECURITY",
        "FIPS",
        r#"FIPS = True
use security:strong
SEC_DEFAULT_CRYPTO_METHODS = AES,3DES"#,
    ),
    t(
        "EXPERIMENTAL",
        "CollectorNode",
        r#"   COLLECTOR$(1)=$(COLLECTOR)
   if $(2?)
      COLLECTOR$(1)_ARGS=-f -local-name COLLECTOR$(1) -p $(2)
   else
      COLLECTOR$(1)_ARGS=-f -local-name COLLECTOR$(1) -sock collector$(1)
   endif
   COLLECTOR$(1).COLLECTOR_LOG=$(LOG)/Collector$(1)Log
   COLLECTOR$(1).CCB_RECONNECT_FILE=$(SPOOL)/Collector$(1).ccb_reconnect
   DAEMON_LIST=$(DAEMON_LIST) COLLECTOR$(1)"#,
    ),
    t(
        "EXPERIMENTAL",
        "HAD",
        r#"   DAEMON_LIST = $(DAEMON_LIST) HAD REPLICATION
   HAD_USE_REPLICATION = TRUE
   MASTER_HAD_BACKOFF_CONSTANT = 360"#,
    ),
    t(
        "EXPERIMENTAL",
        "HADSharedPort",
        r#"   use EXPERIMENTAL : HADReplication( $(1), $(2), $(SHARED_PORT_PORT), $(SHARED_PORT_PORT) )"#,
    ),
    t(
        "EXPERIMENTAL",
        "HADFixedPort",
        r#"   HAD_ARGS = -p $(3)
   REPLICATION_ARGS = -p $(4)
   use EXPERIMENTAL : HADReplication( $(1), $(2), $(3), $(4) )"#,
    ),
    t(
        "EXPERIMENTAL",
        "HADReplication",
        r#"   HAD_LIST = $(HAD_LIST) $(2):$(3)
   REPLICATION_LIST = $(REPLICATION_LIST) $(2):$(4)
   HAD_CONTROLLEE = $(1)
   MASTER_$(1)_CONTROLLER = HAD"#,
    ),
    t(
        "UPGRADE",
        "DISCARD",
        r#"	LeaseManager
	LeaseManger_ADDRESS_FILE
	LeaseManager_LOG
	LeaseManager_DEBUG
	MAX_LeaseManager_LOG
	LeaseManager.GETADS_INTERVAL
	LeaseManager.PRUNE_INTERVAL
	LeaseManager.DEBUG_ADS
	LeaseManager.CLASSAD_LOG
	STORK
	STORK_ADDRESS_FILE
	STORK_LOG_BASE
	STORK_LOG
	STORK_DEBUG
	MAX_STORK_LOG
	STORK_PORT
	STORK_ARGS
	DEFRAG_STATE_FILE"#,
    ),
    t("UPGRADE", "DISCARDX", r#""#),
    t(
        "UPGRADE",
        "DISCARDIF",
        r#"	RESERVED_DISK=5
	ALL_DEBUG=
	MAX_COLLECTOR_LOG=1000000
	MAX_KBDD_LOG=1000000
	MAX_MASTER_LOG=1000000
	MAX_NEGOTIATOR_LOG=1000000
	MAX_NEGOTIATOR_MATCH_LOG=1000000
	MAX_SCHEDD_LOG=1000000
	MAX_SHADOW_LOG=1000000
	MAX_SHARED_PORT_LOG=1000000
	MAX_STARTD_LOG=1000000
	MAX_STARTER_LOG=1000000
	MAX_JOB_ROUTER_LOG=1000000
	MAX_REPLICATION_LOG=1000000
	MAX_ROOSTER_LOG=1000000
	MAX_HAD_LOG=1000000
	MAX_TRANSFERER_LOG=1000000
	MAX_GRIDMANAGER_LOG=1000000
	MAX_C_GAHP_LOG=1000000
	MAX_VM_GAHP_LOG=1000000
	MAX_CREDD_LOG=4000000
	VALID_SPOOL_FILES=job_queue.log, job_queue.log.tmp, history, Accountant.log, Accountantnew.log, local_univ_execute, .pgpass, .schedd_address, .schedd_classad
	VALID_SPOOL_FILES=job_queue.log, job_queue.log.tmp, history, Accountant.log, Accountantnew.log, local_univ_execute, .pgpass, .schedd_address, .schedd_classad, OfflineLog"#,
    ),
    t(
        "UPGRADE",
        "DISCARDIFX",
        r#"	QUEUE_SUPER_USERS=root, condor"#,
    ),
    t("UPGRADE", "DISCARD_VMWARE", r#""#),
    t(
        "FEATURE",
        "KRB",
        r#"	SEC_CREDENTIAL_DIRECTORY_KRB=/var/lib/condor/krb_credentials
	DAEMON_LIST=$(DAEMON_LIST),CREDMON_KRB
	SEC_CREDENTIAL_PRODUCER=$(LIBEXEC)/cred_producer_krb
	SEC_CREDENTIAL_MONITOR_KRB_LOG=$(LOG)/CredMonKrbLog
	AUTO_INCLUDE_CREDD_IN_DAEMON_LIST = True
	USE_KEYRING_SESSIONS=True"#,
    ),
    t(
        "FEATURE",
        "OAUTH",
        r#"	SEC_CREDENTIAL_DIRECTORY_OAUTH=/var/lib/condor/oauth_credentials
	CREDMON_OAUTH_LOG=$(LOG)/CredMonOAuthLog
	DAEMON_LIST=$(DAEMON_LIST),CREDMON_OAUTH
	AUTO_INCLUDE_CREDD_IN_DAEMON_LIST=True
	TRUST_CREDENTIAL_DIRECTORY=True"#,
    ),
    t(
        "FEATURE",
        "ADSTASH",
        r#"	ADSTASH_SCHEDD_HISTORY=True
	DAEMON_LIST=$(DAEMON_LIST),ADSTASH"#,
    ),
    t(
        "FEATURE",
        "CommonCloudAttributesGoogle",
        r#"	use FEATURE : StartdCronOneShot(cloud, $(LIBEXEC)/common-cloud-attributes-google.py, $(0))
	STARTD_CRON_cloud_PREFIX = Cloud"#,
    ),
    t(
        "FEATURE",
        "JobsHaveInstanceIDs",
        r#"	SYSTEM_JOB_MACHINE_ATTRS = $(SYSTEM_JOB_MACHINE_ATTRS) CloudInstanceID"#,
    ),
    t(
        "FEATURE",
        "CommonCloudAttributesAWS",
        r#"	use FEATURE : StartdCronOneShot(cloud, $(LIBEXEC)/common-cloud-attributes-aws.py, $(0))
	STARTD_CRON_cloud_PREFIX = Cloud"#,
    ),
    t(
        "FEATURE",
        "HPC_ANNEX",
        r#"	# Let the command-line tool know that things are configured.
	HPC_ANNEX_ENABLED = true


	## The annex EPs need a specific port number.

	# This is the default value from `use role:personal`.
	ispersonal = "127.0.0.1:0"=="$(COLLECTOR_HOST)"
	if $INT(ispersonal)
		COLLECTOR_HOST = $(FULL_HOSTNAME):$(COLLECTOR_PORT)
	endif

	# This is the default value from the `make-personal-condor` script.
	ispersonal = "$(FULL_HOSTNAME):0"=="$(COLLECTOR_HOST)"
	if $INT(ispersonal)
		COLLECTOR_HOST = $(FULL_HOSTNAME):$(COLLECTOR_PORT)
	endif


	# Create an "AP collector".  At some point, we'd like to make such a
	# thing first-class.  In the short term, adding a command-line flag
	# to the collector to set its subsystem would be an improvement.
	AP_COLLECTOR = $(COLLECTOR)
	AP_COLLECTOR.COLLECTOR_LOG = $(LOG)/AP_Collector.log
	AP_COLLECTOR.CCB_RECONNECT_FILE = $(SPOOL)/AP_Collector.ccb_reconnect
	DAEMON_LIST = $(DAEMON_LIST) AP_COLLECTOR

	# Giving the AP collector a stable shared port ID means we don't
	# have to worry about updating annex pilots because of a restart.
	AP_COLLECTOR_ARGS = -f -local-name AP_COLLECTOR -sock ap_collector

	# For now, don't worry about quoting the Sinful brackets.
	ANNEX_COLLECTOR = $(TCP_FORWARDING_HOST:$(FULL_HOSTNAME)):$(SHARED_PORT_PORT)?sock=ap_collector

	# Any user who can submit jobs can use the AP collector for annex.
	AP_COLLECTOR.ALLOW_ADVERTISE_STARTD = $(ALLOW_ADVERTISE_STARTD) $(ALLOW_WRITE)
	AP_COLLECTOR.ALLOW_ADVERTISE_MASTER = $(ALLOW_ADVERTISE_MASTER) $(ALLOW_WRITE)

	# Until we can give the schedd a stable shared port ID, the annex
	# pilot needs to be able to look the schedd up in the AP collector.
	if defined COLLECTOR_HOST
		SCHEDD.COLLECTOR_HOST = $(COLLECTOR_HOST) $(ANNEX_COLLECTOR)
	else
		SCHEDD.COLLECTOR_HOST = $(ANNEX_COLLECTOR)
	endif

	# The AP collector creates the "AP" signing key.
	ANNEX_TOKEN_KEY_NAME = $(SEC_TOKEN_AP_SIGNING_KEY_NAME)
	ANNEX_TOKEN_DOMAIN = $(UID_DOMAIN)


	# We assume that the token directories (passwords.d and tokens.d) are
	# already set.  HTCondor should create and populate the appropriately,
	# if so.


	JOB_TRANSFORM_NAMES = $(JOB_TRANSFORM_NAMES) AssignAnnex
	JOB_TRANSFORM_AssignAnnex @=end
		REQUIREMENTS TargetAnnexName =!= undefined
		my_identity = "$(MY.Owner)@$(ANNEX_TOKEN_DOMAIN)"
		addl_reqs = ifThenElse(TARGET.AuthenticatedIdentity is undefined, true, $(my_identity) == TARGET.AuthenticatedIdentity) && (MY.TargetAnnexName == TARGET.AnnexName)
		if defined MY.JobMachineAttrs
			SET JobMachineAttrs "$(MY.JobMachineAttrs),AnnexName"
		else
			SET JobMachineAttrs "AnnexName"
		endif
		if defined MY.Requirements
			SET Requirements $(addl_reqs) && ($(MY.Requirements))
		else
			SET Requirements $(addl_reqs)
		endif
	@end

	# The schedd will not try to activate a directly-connected claim
	# with a job whose owner is not the authenticated identity of the
	# directly-connected EP.  This limits the damage that can be done
	# by a misconfigured EP to only running the annex owner's other
	# jobs, which I think no long justifies tranforming all other jobs.
	if $(ANNEX_JOBS_EXCLUSIVELY:FALSE)
		JOB_TRANSFORM_NAMES = $(JOB_TRANSFORM_NAMES) AnnexJobsExclusively
		JOB_TRANSFORM_AnnexJobsExclusively @=end
			REQUIREMENTS TargetAnnexName =?= undefined
			addl_reqs = ifThenElse(TARGET.AuthenticatedIdentity is undefined, true, regexp("^condor(_pool)?@.*$", TARGET.AuthenticatedIdentity))
			if defined MY.Requirements
				SET Requirements $(addl_reqs) && ($(MY.Requirements))
			else
				SET Requirements $(addl_reqs)
			endif
		@end
	endif"#,
    ),
    t(
        "POLICY",
        "OnlyRegisteredCheckpointDestinations",
        r#"	TOOL_CLASSAD_USER_MAP_NAMES = $(TOOL_CLASSAD_USER_MAP_NAMES) checkpoint_destination_map
	SCHEDD_CLASSAD_USER_MAP_NAMES = $(SCHEDD_CLASSAD_USER_MAP_NAMES) checkpoint_destination_map
	CLASSAD_USER_MAPFILE_checkpoint_destination_map = $(CHECKPOINT_DESTINATION_MAPFILE)
	CLASSAD_USER_MAP_PREFIX_checkpoint_destination_map = TRUE

	JOB_TRANSFORM_NAMES = $(JOB_TRANSFORM_NAMES) ValidateCheckpointDestination
	JOB_TRANSFORM_ValidateCheckpointDestination @=end
		EVALSET CheckpointDestinationValid = ifthenelse(undefined =?= userMap("checkpoint_destination_map", CheckpointDestination), undefined, True)
	@end

	IMMUTABLE_JOB_ATTRS = $(IMMUTABLE_JOB_ATTRS) CheckpointDestinationValid

	SUBMIT_REQUIREMENT_NAMES = $(SUBMIT_REQUIREMENT_NAMES) RejectInvalidCheckpointDestination
	SUBMIT_REQUIREMENT_RejectInvalidCheckpointDestination = CheckpointDestination =?= undefined || CheckpointDestinationValid =?= True
	SUBMIT_REQUIREMENT_RejectInvalidCheckpointDestination_REASON = "You specified a checkpoint_destination this AP does not know how to clean up.  You may need to add a trailing / to the URL.""#,
    ),
    t(
        "FEATURE",
        "GANGLIA",
        r#"	DAEMON_LIST=$(DAEMON_LIST),GANGLIAD"#,
    ),
];

/// The category named by `name` up to its first colon (case-insensitive), as HTCondor compares
/// category names: `FEATURE:GPUs` names the FEATURE category.
pub fn category(name: &str) -> Option<&'static str> {
    let name = name.split(':').next().unwrap_or_default();
    TEMPLATES
        .iter()
        .find(|t| t.category.eq_ignore_ascii_case(name))
        .map(|t| t.category)
}

/// The template `name` of `category` (case-insensitive).
pub fn lookup(category: &str, name: &str) -> Option<&'static Template> {
    TEMPLATES
        .iter()
        .find(|t| t.category.eq_ignore_ascii_case(category) && t.name.eq_ignore_ascii_case(name))
}

/// The templates of `category`, sorted by name as HTCondor lists them.
pub fn templates(category: &str) -> Vec<&'static Template> {
    let mut list: Vec<&Template> = TEMPLATES
        .iter()
        .filter(|t| t.category.eq_ignore_ascii_case(category))
        .collect();
    list.sort_by(|a, b| {
        a.name
            .to_ascii_lowercase()
            .cmp(&b.name.to_ascii_lowercase())
    });
    list
}

/// The lines of `category:template` (`$UPGRADE.DISCARD` and friends), for filters.
pub fn lines(category: &str, name: &str) -> Vec<&'static str> {
    lookup(category, name)
        .map(|t| {
            t.text
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn categories_compare_up_to_the_colon() {
        assert_eq!(category("feature:GPUs"), Some("FEATURE"));
        assert_eq!(category("Policy"), Some("POLICY"));
        assert_eq!(category("NOPE"), None);
        assert!(lookup("policy", "always_run_jobs").is_some());
        assert!(lookup("ROLE", "personal")
            .unwrap()
            .text
            .contains("DAEMON_LIST"));
        let roles: Vec<&str> = templates("role").iter().map(|t| t.name).collect();
        assert!(
            roles.starts_with(&["CentralManager", "Execute"]),
            "{roles:?}"
        );
        // param_info.in's `default = use ...`: the spaces around `=` are not the value's.
        assert_eq!(
            lookup("FEATURE", "StartdCronPeriodic").unwrap().text,
            "use FEATURE : PeriodicCronHook(STARTD_CRON, $(0))"
        );
    }
}
