//! The built-in default table: the knobs condorlite uses, with the default values HTCondor 24.0
//! ships in `src/condor_utils/param_info.in`, plus the expression macros of HTCondor's default
//! policy (`KeyboardBusy`, `CPUIdle`, ...; see the seeds' "Default Policy Settings").
//!
//! A default is what a knob is when no source defines it: `lookup` falls back to it, `-dump`
//! lists it, `-verbose` reports it as `<Default>`. Entries named `SUBSYS.NAME` are defaults for
//! one subsystem only (HTCondor's subsystem tables). `LOCAL_DIR` is left empty here and filled
//! in at load time with the platform data directory ([`Defaults::with_local_dir`]).

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::classad::ad::{CiHasher, CiStr};

/// How a knob's value is meant to be read (`type=` in param_info.in).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    String,
    Int,
    Bool,
    Double,
    Long,
    Path,
}

impl Kind {
    /// The name `condor_config_val` prints for the type.
    pub fn name(self) -> &'static str {
        match self {
            Kind::String => "STRING",
            Kind::Int => "INT",
            Kind::Bool => "BOOL",
            Kind::Double => "DOUBLE",
            Kind::Long => "LONG",
            Kind::Path => "PATH",
        }
    }
}

/// One built-in default.
#[derive(Clone, Copy, Debug)]
pub struct Default {
    pub name: &'static str,
    pub value: &'static str,
    pub kind: Kind,
}

const fn d(name: &'static str, value: &'static str, kind: Kind) -> Default {
    Default { name, value, kind }
}

use Kind::{Bool, Double, Int, Long, Path, String};

/// The macros of the default policy that HTCondor 24 only defines through
/// `use FEATURE : POLICY_EXPR_FRAGMENTS`; condorlite defines them from the start so that a
/// policy written as the manual's "Default Policy Settings" works as written.
static POLICY_MACROS: &[Default] = &[
    d(
        "ActivationTimer",
        "ifThenElse(JobStart =!= UNDEFINED, (time() - JobStart), 0)",
        String,
    ),
    d("LastCkpt", "(time() - LastPeriodicCheckpoint)", String),
    d("NonCondorLoadAvg", "(LoadAvg - CondorLoadAvg)", String),
    d("KeyboardBusy", "(KeyboardIdle < $(MINUTE))", String),
    d("ConsoleBusy", "(ConsoleIdle  < $(MINUTE))", String),
    d(
        "CPUIdle",
        "($(NonCondorLoadAvg) <= $(BackgroundLoad))",
        String,
    ),
    d("CPUBusy", "($(NonCondorLoadAvg) >= $(HighLoad))", String),
    d("KeyboardNotBusy", "($(KeyboardBusy) == False)", String),
    d("MachineBusy", "($(CPUBusy) || $(KeyboardBusy))", String),
];

/// HTCondor's defaults for the knobs condorlite uses.
static TABLE: &[Default] = &[
    d("MAX_DRAINING_ACTIVATION_DELAY", "20", String),
    d("PREEN_COREFILE_MAX_SIZE", "50000000", Long),
    d("PREEN_COREFILE_STALE_AGE", "5184000", Int),
    d("PREEN_COREFILES_PER_PROCESS", "10", Int),
    d("DEFAULT_MASTER_SHUTDOWN_SCRIPT", "", Path),
    d("FULL_HOSTNAME", "", String),
    d("HOST_ALIAS", "$(FULL_HOSTNAME)", String),
    d("HOSTNAME", "", String),
    d("SUBSYSTEM", "", String),
    d("LOCALNAME", "", String),
    d("PROCD_ADDRESS", "$(RUN)/procd_pipe", String),
    d("BIND_ALL_INTERFACES", "true", Bool),
    d("EXECUTE", "$(LOCAL_DIR)/execute", Path),
    d("UID_DOMAIN", "$(FULL_HOSTNAME)", String),
    d("ACCOUNTING_DOMAIN", "$(UID_DOMAIN)", String),
    d("TRUST_UID_DOMAIN", "", String),
    d("FILESYSTEM_DOMAIN", "$(FULL_HOSTNAME)", String),
    d("ARCH", "", String),
    d("OPSYS", "", String),
    d("OPSYSANDVER", "", String),
    d("STARTER_LOG", "$(LOG)/StarterLog", Path),
    d("STARTER_DEBUG", "D_PID ", String),
    d("STARTER_LOG_NAME_APPEND", "", String),
    d("USER_JOB_WRAPPER", "", String),
    d("SOFT_UID_DOMAIN", "", String),
    d("LIBEXEC", "$(RELEASE_DIR)/libexec", String),
    d("LOG", "$(LOCAL_DIR)/log", Path),
    d("INCLUDE", "$(RELEASE_DIR)/include", Path),
    d("ETC", "$(LOCAL_DIR)", Path),
    d("GROUP_NAMES", "", String),
    d("PRIORITY_HALFLIFE", "86400", Double),
    d("NICE_USER_PRIO_FACTOR", "1e10", Double),
    d("NICE_USER_ACCOUNTING_GROUP_NAME", "nice-user", String),
    d("REMOTE_PRIO_FACTOR", "1e7", Double),
    d("DEFAULT_PRIO_FACTOR", "1000", Double),
    d("ACCOUNTANT_LOCAL_DOMAIN", "", String),
    d("ACCOUNTANT_DATABASE_FILE", "$(SPOOL)/Accountantnew.log", Path),
    d("MAX_ACCOUNTANT_DATABASE_SIZE", "1000000", Int),
    d("SPOOL", "$(LOCAL_DIR)/spool", Path),
    d("NEGOTIATOR_DISCOUNT_SUSPENDED_RESOURCES", "false", Bool),
    d("CONCURRENCY_LIMIT_DEFAULT", "2308032", Int),
    d("PREEMPTION_REQUIREMENTS", "False", String),
    d("SEC_ENABLE_MATCH_PASSWORD_AUTHENTICATION", "true", Bool),
    d("SEC_ENABLE_IMPERSONATION_TOKENS", "false", Bool),
    d("SEC_IMPERSONATION_TOKEN_LIMITS", "", String),
    d("SEC_ENABLE_REMOTE_ADMINISTRATION", "true", Bool),
    d("DELEGATE_JOB_GSI_CREDENTIALS", "true", Bool),
    d("USE_NFS", "", String),
    d("RECONNECT_BACKOFF_CEILING", "300", Int),
    d("SHADOW_MAX_JOB_CLEANUP_RETRIES", "5", Int),
    d("SHADOW_JOB_CLEANUP_RETRY_DELAY", "30", Int),
    d("SHADOW_LAZY_QUEUE_UPDATE", "true", Bool),
    d("RESERVED_MEMORY", "0", Int),
    d("RESERVED_SWAP", "0", Int),
    d("COUNT_HYPERTHREAD_CPUS", "true", Bool),
    d("NUM_CPUS", "$(DETECTED_CPUS_LIMIT)", Int),
    d("CONSOLE_DEVICES", "mouse, console", String),
    d("SLOTS_CONNECTED_TO_CONSOLE", "0", Int),
    d("SLOTS_CONNECTED_TO_KEYBOARD", "0", Int),
    d("RELEASE_DIR", "/usr", String),
    d("HAD_USE_PRIMARY", "false", Bool),
    d("HAD_LIST", "", String),
    d("HAD_STAND_ALONE_DEBUG", "", String),
    d("HAD_CONNECTION_TIMEOUT", "5", String),
    d("HAD_USE_REPLICATION", "false", Bool),
    d("HAD_UPDATE_INTERVAL", "300", String),
    d("HAD_FIPS_MODE", "1", Int),
    d("REPLICATION_LIST", "", String),
    d("LVM_USE_THIN_PROVISIONING", "false", Bool),
    d("LVM_BACKING_FILE", "$(SPOOL)/startd_disk.img", String),
    d("LVM_BACKING_FILE_SIZE_MB", "10240", Int),
    d("LVM_THIN_LV_EXTRA_SIZE_MB", "2000", Int),
    d("LVM_HIDE_MOUNT", "false", Bool),
    d("MAX_TIME_SKIP", "1200", Int),
    d("PID_SNAPSHOT_INTERVAL", "15", Int),
    d("MASTER.PID_SNAPSHOT_INTERVAL", "60", Int),
    d("SEC_DEBUG_PRINT_KEYS", "false", Bool),
    d("SEC_DEFAULT_AUTHENTICATION_TIMEOUT", "20", Int),
    d("WANT_UDP_COMMAND_SOCKET", "true", Bool),
    d("NETWORK_MAX_PENDING_CONNECTS", "0", Int),
    d("TCP_FORWARDING_HOST", "", String),
    d("PRIVATE_NETWORK_INTERFACE", "", String),
    d("PRIVATE_NETWORK_NAME", "$(FULL_HOSTNAME)", String),
    d("USE_CLONE_TO_CREATE_PROCESSES", "true", Bool),
    d("SEC_INVALIDATE_SESSIONS_VIA_TCP", "true", Bool),
    d("CERTIFICATE_MAPFILE", "", String),
    d("CERTIFICATE_MAPFILE_ASSUME_HASH_KEYS", "false", Bool),
    d("USER_MAPFILE", "", String),
    d("NOT_RESPONDING_TIMEOUT", "3600", Int),
    d("ENABLE_STDOUT_TESTING", "false", Bool),
    d("EXCEPT_ON_ERROR", "", String),
    d("DISABLE_SETUID", "false", Bool),
    d("DISABLE_AUTHENTICATION_IP_CHECK", "false", Bool),
    d("SEC_SESSION_DURATION_SLOP", "20", Int),
    d("USE_PROCESS_GROUPS", "true", Bool),
    d("USE_VISIBLE_DESKTOP", "false", String),
    d("MAX_PID_COLLISION_RETRY", "9", Int),
    d("COLLECTOR_SOCKET_BUFSIZE", "10000*1024", Int),
    d("PIPE_BUFFER_MAX", "10240", Int),
    d("TOUCH_LOG_INTERVAL", "60", Int),
    d("BIN", "$(RELEASE_DIR)/bin", Path),
    d("CREATE_CORE_FILES", "true", Bool),
    d("CORE_FILE_NAME", "core.$(SUBSYSTEM)", String),
    d("DROP_CORE_ON_RECONFIG", "", String),
    d("SHUTDOWN_GRACEFUL_TIMEOUT", "", String),
    d("CONDOR_ADMIN", "root@$(FULL_HOSTNAME)", String),
    // condorlite: the platform data directory, filled in at load time (HTCondor: $(TILDE)).
    d("LOCAL_DIR", "", String),
    d("PERIODIC_EXPR_INTERVAL", "60", Int),
    d("MAX_PERIODIC_EXPR_INTERVAL", "1200", Int),
    d("COLLECTOR_HOST", "$(CONDOR_HOST)", String),
    d("STARTD_ATTRS", "", String),
    d("DEFAULT_DOMAIN_NAME", "", String),
    d("ALL_DEBUG", "", String),
    d("MAIL", "/usr/bin/mail", Path),
    d("STARTD_RESOURCE_PREFIX", "", String),
    d("STARTD_RECOMPUTE_DISK_FREE", "false", Bool),
    d("STARTD_JOB_HOOK_KEYWORD", "", String),
    d("STARTER_LIST", "STARTER", String),
    d("SBIN", "$(RELEASE_DIR)/sbin", Path),
    d("SINGULARITY", "$(LIBEXEC)/apptainer", String),
    d("SINGULARITY_JOB", "false", Bool),
    d("SINGULARITY_VERBOSITY", "-s", String),
    d("SINGULARITY_IMAGE_EXPR", "SingularityImage", String),
    d("SINGULARITY_MOUNT_HOME", "false", Bool),
    d("SINGULARITY_TEST_SANDBOX", "$(LIBEXEC)/singularity_test_sandbox", String),
    d("SINGULARITY_USE_PID_NAMESPACES", "auto", String),
    d("UPDATE_INTERVAL", "300", Int),
    d("STARTD_SENDS_ALIVES", "peer", String),
    d("STARTER_HANDLES_ALIVES", "true", Bool),
    d("VM_GAHP_CONFIG", "", String),
    d("VM_MAX_NUMBER", "", String),
    d("VM_MEMORY", "", String),
    d("VM_RECHECK_INTERVAL", "600", Int),
    d("LOCK", "$(LOG)", String),
    // condorlite: the daemon's pid file and socket live in their own directory (HTCondor: $(LOCK)).
    d("RUN", "$(LOCAL_DIR)/run", Path),
    d("VM_KILLING_TIMEOUT", "60", Int),
    d("RunBenchmarks", "LastBenchmark == 0", String),
    d("POLLING_INTERVAL", "5", Int),
    d("UPDATE_SPREAD_TIME", "$(UPDATE_COLLECTOR_WITH_TCP:0) ? 0 : 8", Int),
    d("ACCOUNTANT_HOST", "", String),
    d("MATCH_TIMEOUT", "120", Int),
    d("KILLING_TIMEOUT", "30", Int),
    d("MAX_CLAIM_ALIVES_MISSED", "6", Int),
    d("SYSTEM_STARTD_JOB_ATTRS", "ImageSize, ExecutableSize, JobUniverse, NiceUser, CPUsUsage, ResidentSetSize, ProportionalSetSizeKb, MemoryUsage, DiskUsage, ScratchDirFileCount", String),
    d("STARTD_JOB_ATTRS", "", String),
    d("STARTD_SLOT_ATTRS", "", String),
    d("SYSTEM_STARTD_SLOT_ATTRS", "", String),
    d("KEYBOARD_CPUS", "1", Int),
    d("DISCONNECTED_KEYBOARD_IDLE_BOOST", "1200", Int),
    d("STARTD_NOCLAIM_SHUTDOWN", "0", Int),
    d("STARTD_NAME", "", String),
    d("VALID_COD_USERS", "", String),
    d("STARTD_SHOULD_WRITE_CLAIM_ID_FILE", "true", Bool),
    d("START", "True", String),
    d("ENABLE_BACKFILL", "false", Bool),
    d("BACKFILL_SYSTEM", "", String),
    d("MAX_SLOT_TYPES", "10", Int),
    d("SYSTEM_STARTD_ATTRS", "COLLECTOR_HOST_STRING DedicatedScheduler", String),
    d("DETECTED_CPUS_LIMIT", "$(DETECTED_CPUS)", Int),
    d("STARTD_CRON_NAME", "", String),
    d("STARTD_CRON_AUTOPUBLISH", "", String),
    d("STARTD_DETECT_GPUS", "-properties $(GPU_DISCOVERY_EXTRA)", String),
    d("ENVIRONMENT_FOR_AssignedGPUs", "GPU_DEVICE_ORDINAL=/(CUDA|OCL)//  CUDA_VISIBLE_DEVICES=/CUDA//", String),
    d("ENVIRONMENT_VALUE_FOR_UnAssignedGPUs", "10000", String),
    d("CLASSAD_USER_LIBS", "", String),
    d("CLASSAD_USER_PYTHON_LIB", "$(LIBEXEC)/libclassad_python_user.so", String),
    d("CLASSAD_USER_PYTHON_MODULES", "", String),
    d("ENABLE_CLASSAD_CACHING", "true", Bool),
    d("SUBMIT_ALLOW_GETENV", "true", Bool),
    d("SUBMIT_SKIP_FILECHECKS", "true", String),
    d("SUBMIT_GENERATE_CUSTOM_RESOURCE_REQUIREMENTS", "true", Bool),
    d("SUBMIT_DEFAULT_SHOULD_TRANSFER_FILES", "", String),
    d("SUBMIT_SEND_RESCHEDULE", "true", Bool),
    // condorlite: condor_submit, condor_q and condor_wait say when no condor_master runs for
    // the pool (HTCondor has no knob: its condor_submit fails without a schedd).
    d("CONDORLITE_WARN_NO_MASTER", "true", Bool),
    d("SUBMIT_CONTAINER_NEVER_XFER_ABSOLUTE_CMD", "false", Bool),
    d("DEFAULT_UNIVERSE", "", String),
    d("DEFAULT_IO_BUFFER_SIZE", "", String),
    d("DEFAULT_IO_BUFFER_BLOCK_SIZE", "", String),
    d("SCHEDD_INTERVAL", "", String),
    d("DEFAULT_RANK_STANDARD", "", String),
    d("APPEND_RANK_STANDARD", "", String),
    d("DEFAULT_RANK_VANILLA", "", String),
    d("APPEND_RANK_VANILLA", "", String),
    d("DEFAULT_RANK", "", String),
    d("APPEND_RANK", "", String),
    d("LOG_ON_NFS_IS_ERROR", "false", Bool),
    d("SUBMIT_ATTRS", "", String),
    d("APPEND_REQ_VANILLA", "", String),
    d("APPEND_REQ_STANDARD", "", String),
    d("APPEND_REQ_VM", "", String),
    d("APPEND_REQUIREMENTS", "", String),
    d("WARN_ON_UNUSED_SUBMIT_FILE_MACROS", "true", Bool),
    d("PROCD", "$(SBIN)/condor_procd", Path),
    d("RESTART_PROCD_ON_ERROR", "true", Bool),
    d("LOCAL_CONFIG_DIR", "", String),
    d("ABORT_ON_EXCEPTION", "false", Bool),
    d("REQUIRE_LOCAL_CONFIG_FILE", "true", Bool),
    d("LOCAL_CONFIG_FILE", "", String),
    d("ENABLE_RUNTIME_CONFIG", "false", Bool),
    d("RUNTIME_CONFIG_ADMIN", "", String),
    d("USER_CONFIG_FILE", "user_config", String),
    d("ENABLE_PERSISTENT_CONFIG", "false", Bool),
    d("PERSISTENT_CONFIG_DIR", "", String),
    d("EVENT_LOG", "", String),
    d("EVENT_LOG_USE_XML", "false", Bool),
    d("EVENT_LOG_LOCKING", "false", Bool),
    d("EVENT_LOG_ROTATION_LOCK", "$(LOCK)/EventLogLock", String),
    d("EVENT_LOG_MAX_SIZE", "1000000", Long),
    d("EVENT_LOG_MAX_ROTATIONS", "1", Long),
    d("EVENT_LOG_FSYNC", "false", Bool),
    d("EVENT_LOG_COUNT_EVENTS", "false", Bool),
    d("EVENT_LOG_JOB_AD_INFORMATION_ATTRS", "", String),
    d("STARTER_UPLOAD_TIMEOUT", "300", Int),
    d("VM_GAHP_SEND_ALL_CLASSAD", "true", Bool),
    d("STARTER_INITIAL_UPDATE_INTERVAL", "8", Int),
    d("STARTER_ALWAYS_HOLD_ON_OOM", "true", Bool),
    d("DISABLE_EXECUTE_DIRECTORY_ENCRYPTION", "false", Bool),
    d("ENCRYPT_EXECUTE_DIRECTORY", "false", Bool),
    d("STARTER_JOB_ENVIRONMENT", "", String),
    d("STARTER_NUM_THREADS_ENV_VARS", "CUBACORES GOMAXPROCS JULIA_NUM_THREADS MKL_NUM_THREADS NUMEXPR_NUM_THREADS OMP_NUM_THREADS OMP_THREAD_LIMIT OPENBLAS_NUM_THREADS PYTHON_CPU_COUNT ROOT_MAX_THREADS TF_LOOP_PARALLEL_ITERATIONS TF_NUM_THREADS", String),
    d("STARTER_FILE_XFER_STALL_TIMEOUT", "3600", Int),
    d("JOB_RENICE_INCREMENT", "0", String),
    d("JOB_INHERITS_STARTER_ENVIRONMENT", "false", String),
    d("STARTER_SETS_HOME_ENV", "true", Bool),
    d("MAX_REMAP_RECURSIONS", "128", Int),
    // condorlite: keep a finished job's scratch directory (for debugging; HTCondor has no knob).
    d("STARTER_KEEP_SCRATCH_DIR", "false", Bool),
    d("MPI_CONDOR_RSH_PATH", "", String),
    d("LOCAL_UNIVERSE_MAX_JOB_CLEANUP_RETRIES", "5", Int),
    d("LOCAL_UNIVERSE_JOB_CLEANUP_RETRY_DELAY", "30", Int),
    d("STARTER_JOB_HOOK_KEYWORD", "", String),
    d("VM_STATUS_INTERVAL", "60", Int),
    d("VM_STATUS_MAX_ERROR", "5", Int),
    d("VM_GAHP_REQ_TIMEOUT", "300", Int),
    d("VM_SOFT_SUSPEND", "false", Bool),
    d("NEGOTIATOR_CROSS_SLOT_PRIOS", "false", Bool),
    d("NEGOTIATOR_INTERVAL", "60", Int),
    d("NEGOTIATOR_UPDATE_AFTER_CYCLE", "false", Bool),
    d("NEGOTIATOR_TRIM_SHUTDOWN_THRESHOLD", "0", Int),
    d("NEGOTIATOR_TIMEOUT", "30", Int),
    d("NEGOTIATOR_MAX_TIME_PER_CYCLE", "1200", Int),
    d("NEGOTIATOR_MAX_TIME_PER_SUBMITTER", "60", Int),
    d("NEGOTIATOR_MAX_TIME_PER_SCHEDD", "120", Int),
    d("NEGOTIATOR_MAX_TIME_PER_PIESPIN", "120", Int),
    d("NEGOTIATOR_MATCH_EXPRS", "", String),
    d("NEGOTIATOR_NUM_THREADS", "1", Int),
    d("PREEMPTION_RANK", "(RemoteUserPrio * 1000000) - ifThenElse(isUndefined(TotalJobRuntime), 0, TotalJobRuntime)", String),
    d("NEGOTIATOR_PRE_JOB_RANK", "(10000000 * My.Rank) + (1000000 * (RemoteOwner =?= UNDEFINED)) - (100000 * Cpus) - Memory", String),
    d("NEGOTIATOR_POST_JOB_RANK", "(RemoteOwner =?= UNDEFINED) * (ifthenElse(isUndefined(KFlops), 1000, Kflops) - SlotID - 1.0e10*(Offline=?=True))", String),
    d("NEGOTIATOR_MATCHLIST_CACHING", "true", Bool),
    d("NEGOTIATOR_CONSIDER_PREEMPTION", "true", Bool),
    d("NEGOTIATOR_CONSIDER_EARLY_PREEMPTION", "false", Bool),
    d("NEGOTIATOR_DEPTH_FIRST", "false", Bool),
    d("NEGOTIATOR_INFORM_STARTD", "false", Bool),
    d("NEGOTIATOR_USE_NONBLOCKING_STARTD_CONTACT", "true", Bool),
    d("NEGOTIATOR_USE_WEIGHTED_DEMAND", "true", Bool),
    d("NEGOTIATOR_SLOT_POOLSIZE_CONSTRAINT", "", String),
    d("NEGOTIATOR_SLOT_CONSTRAINT", "", String),
    d("GROUP_AUTOREGROUP", "false", Bool),
    d("GROUP_ACCEPT_SURPLUS", "false", Bool),
    d("NEGOTIATOR_USE_SLOT_WEIGHTS", "true", Bool),
    d("NEGOTIATOR_ALLOW_QUOTA_OVERSUBSCRIPTION", "true", Bool),
    d("GROUP_QUOTA_MAX_ALLOCATION_ROUNDS", "3", Int),
    d("GROUP_QUOTA_ROUND_ROBIN_RATE", "1.0e100", Double),
    d("STARTD_AD_REEVAL_EXPR", "", String),
    d("NEGOTIATOR_IGNORE_USER_PRIORITIES", "false", Bool),
    d("COLLECTOR_HOST_FOR_NEGOTIATOR", "$(FULL_HOSTNAME)", String),
    d("RECEIVE_MSGS_DURATION", "250", Int),
    d("HISTORY", "$(SPOOL)/history", String),
    d("JOB_EPOCH_HISTORY", "$(SPOOL)/epoch_history", String),
    d("PREEN_ADMIN", "", String),
    d("SYSTEM_VALID_SPOOL_FILES", "job_queue.log, job_queue.log.tmp, history, Accountant.log, Accountantnew.log, local_univ_execute, .pgpass, .schedd_address, .schedd_address.super, .schedd_classad, OfflineLog, startd_disk.img, checkpoint-cleanup", String),
    d("VALID_SPOOL_FILES", "", String),
    d("INVALID_LOG_FILES", "", String),
    d("LIB", "$(RELEASE_DIR)/lib", Path),
    d("SEC_PASSWORD_DOMAIN", "", String),
    d("JOB_ROUTER_SOURCE_JOB_CONSTRAINT", "", String),
    d("MAX_JOB_MIRROR_UPDATE_LAG", "600", Int),
    d("JOB_ROUTER_POLLING_PERIOD", "10", Int),
    d("JOB_ROUTER_NAME", "jobrouter", String),
    d("POLLING_PERIOD", "", String),
    d("QUEUE_SUPER_USERS", "root, condor", String),
    d("QUEUE_SUPER_USER_MAY_IMPERSONATE", "", String),
    d("QUEUE_ALL_USERS_TRUSTED", "false", Bool),
    d("SYSTEM_SECURE_JOB_ATTRS", "x509userProxySubject x509UserProxyEmail x509UserProxyVOName x509UserProxyFirstFQAN x509UserProxyFQAN TotalSubmitProcs AuthTokenSubject AuthTokenIssuer AuthTokenGroups AuthTokenId AuthTokenScopes", String),
    d("SECURE_JOB_ATTRS", "", String),
    d("IGNORE_ATTEMPTS_TO_SET_SECURE_JOB_ATTRS", "true", Bool),
    d("SYSTEM_IMMUTABLE_JOB_ATTRS", "Owner ClusterId JobUniverse ProcId MyType TargetType User", String),
    d("IMMUTABLE_JOB_ATTRS", "", String),
    d("SYSTEM_PROTECTED_JOB_ATTRS", "", String),
    d("PROTECTED_JOB_ATTRS", "", String),
    d("GLOBAL_JOB_ID_WITH_TIME", "true", Bool),
    d("CLAIM_RECYCLING_CONSIDER_LIMITS", "true", Bool),
    d("UNUSED_CLAIM_TIMEOUT", "600", Int),
    d("SCHEDD_PREEMPTION_REQUIREMENTS", "", String),
    d("SCHEDD_PREEMPTION_RANK", "", String),
    d("SCHEDD_RESTART_REPORT", "$(LOG)/ScheddRestartReport", String),
    d("SCHEDD_ALLOW_LATE_MATERIALIZE", "true", Bool),
    d("SCHEDD_ASSUME_NEGOTIATOR_GONE", "2000000000", Int),
    d("SCHEDD_NON_DURABLE_LATE_MATERIALIZE", "true", Bool),
    d("SCHEDD_SEND_RESCHEDULE", "true", Bool),
    d("DEDICATED_SCHEDULER_USE_FIFO", "true", Bool),
    d("MPI_MASTER_IP", "", String),
    d("SHADOW_LIST", "SHADOW", String),
    d("SHADOW", "$(SBIN)/condor_shadow", Path),
    d("SHADOW_RENICE_INCREMENT", "0", Int),
    d("STARTER_LOCAL", "$(SBIN)/condor_starter", Path),
    d("JOB_QUEUE_LOG", "$(SPOOL)/job_queue.log", Path),
    d("LOCAL_UNIV_EXECUTE", "$(SPOOL)/local_univ_execute", Path),
    d("SCHEDD_ADDRESS_FILE", "$(SPOOL)/.schedd_address", Path),
    d("SCHEDD_DAEMON_AD_FILE", "$(SPOOL)/.schedd_classad", String),
    d("SCHED_UNIV_RENICE_INCREMENT", "0", Int),
    d("SCHEDD_SEND_VACATE_VIA_TCP", "true", Bool),
    d("KEEP_OUTPUT_SANDBOX", "false", Bool),
    d("ENABLE_HISTORY_ROTATION", "true", Bool),
    d("PER_JOB_HISTORY_DIR", "", String),
    d("SCHEDD_MIN_INTERVAL", "5", Int),
    d("JOB_START_DELAY", "0", Int),
    d("MAX_JOBS_RUNNING", "MIN({$(DETECTED_MEMORY), 10000})", Int),
    d("CURB_MATCHMAKING", "(RecentDaemonCoreDutyCycle > 0.98) || (TransferQueueNumWaitingToUpload > TransferQueueMaxUploading)", String),
    d("START_LOCAL_UNIVERSE", "TotalLocalJobsRunning < 200", String),
    d("START_SCHEDULER_UNIVERSE", "TotalSchedulerJobsRunning < 500", String),
    d("MAX_JOBS_SUBMITTED", "2147483647", Int),
    d("MAX_JOBS_PER_OWNER", "100000", Int),
    d("MAX_JOBS_PER_SUBMISSION", "20000", Int),
    d("ALLOW_SUBMIT_FROM_KNOWN_USERS_ONLY", "false", Bool),
    d("MAX_RUNNING_SCHEDULER_JOBS_PER_OWNER", "200", String),
    d("NEGOTIATE_ALL_JOBS_IN_CLUSTER", "", String),
    d("STARTD_CONTACT_TIMEOUT", "45", Int),
    d("FLOCK_COLLECTOR_HOSTS", "$(FLOCK_TO)", String),
    d("FLOCK_NEGOTIATOR_HOSTS", "$(FLOCK_TO)", String),
    d("FLOCK_BY_DEFAULT", "true", Bool),
    d("SHADOW_SIZE_ESTIMATE", "125", Int),
    d("MAX_SHADOW_EXCEPTIONS", "2", Int),
    d("GRIDMANAGER_PER_JOB", "false", Bool),
    d("MAX_JOB_QUEUE_LOG_ROTATIONS", "1", Int),
    d("GRIDMANAGER", "$(SBIN)/condor_gridmanager", Path),
    d("GRIDMANAGER_ARGS", "", String),
    d("SCHEDD_CRON_NAME", "", String),
    d("SCHEDD_BACKUP_SPOOL", "", String),
    d("CHOWN_JOB_SPOOL_FILES", "False", Bool),
    d("SCHEDD_QUERY_WORKERS", "8", Int),
    d("HA_LOCK_URL", "", String),
    d("HA_LOCK_HOLD_TIME", "", String),
    d("HA_POLL_PERIOD", "", String),
    d("MASTER_NAME", "", String),
    d("START_MASTER", "", String),
    d("START_DAEMONS", "", String),
    d("PUBLISH_OBITUARIES", "", String),
    d("OBITUARY_LOG_LENGTH", "200", Int),
    d("ALLOW_ADMIN_COMMANDS", "true", Bool),
    d("PREEN", "$(SBIN)/condor_preen", Path),
    d("DC_DAEMON_LIST", "", String),
    d("MASTER_HA_LIST", "", String),
    d("DAEMON_LIST", "MASTER", String),
    d("PREEN_ARGS", "-m -r", String),
    d("COLLECTOR_LOG", "$(LOG)/CollectorLog", Path),
    d("KBDD_LOG", "$(LOG)/KbdLog", Path),
    d("MASTER_LOG", "$(LOG)/MasterLog", Path),
    d("NEGOTIATOR_LOG", "$(LOG)/NegotiatorLog", Path),
    d("NEGOTIATOR_MATCH_LOG", "$(LOG)/MatchLog", Path),
    d("SCHEDD_LOG", "$(LOG)/SchedLog", Path),
    d("SHADOW_LOG", "$(LOG)/ShadowLog", Path),
    d("SHADOW_STATS_LOG", "$(LOG)/XferStatsLog", Path),
    d("STARTER_STATS_LOG", "$(LOG)/XferStatsLog", Path),
    d("STARTD_LOG", "$(LOG)/StartLog", Path),
    d("JOB_ROUTER_LOG", "$(LOG)/JobRouterLog", Path),
    d("ROOSTER_LOG", "$(LOG)/RoosterLog", Path),
    d("SHARED_PORT_LOG", "$(LOG)/SharedPortLog", Path),
    d("HAD_LOG", "$(LOG)/HADLog", Path),
    d("REPLICATION_LOG", "$(LOG)/ReplicationLog", Path),
    d("TRANSFERER_LOG", "$(LOG)/TransfererLog", Path),
    d("SCHEDD", "$(SBIN)/condor_schedd", Path),
    d("STARTD", "$(SBIN)/condor_startd", Path),
    d("TRUNC_MASTER_LOG_ON_OPEN", "false", Bool),
    d("TRUNC_NEGOTIATOR_LOG_ON_OPEN", "false", Bool),
    d("TRUNC_SCHED_LOG_ON_OPEN", "false", Bool),
    d("TRUNC_STARTER_LOG_ON_OPEN", "false", Bool),
    d("TRUNC_SHADOW_LOG_ON_OPEN", "false", Bool),
    d("TRUNC_MATCH_LOG_ON_OPEN", "false", Bool),
    d("SHADOW_LOCK", "$(LOCK)/ShadowLock", Path),
    d("DEBUG_TIME_FORMAT", "%m/%d/%y %H:%M:%S", String),
    d("MASTER_DEBUG_WAIT", "false", Bool),
    d("SHADOW_DEBUG_WAIT", "false", Bool),
    d("SCHED_DEBUG_WAIT", "false", Bool),
    d("STARTER_DEBUG_WAIT", "false", Bool),
    d("NEGOTIATOR_DEBUG_WAIT", "false", Bool),
    d("NEGOTIATOR_READ_CONFIG_BEFORE_CYCLE", "false", Bool),
    d("SCHEDD_JOB_QUEUE_LOG_FLUSH_DELAY", "5", Int),
    d("USE_SHARED_PORT", "true", Bool),
    d("SHADOW_WORKLIFE", "3600", Int),
    d("CLAIM_WORKLIFE", "1200", Int),
    d("NEGOTIATION_CYCLE_STATS_LENGTH", "3", Int),
    d("SYSTEM_JOB_MACHINE_ATTRS", "Cpus,SlotWeight", String),
    d("SYSTEM_JOB_MACHINE_ATTRS_HISTORY_LENGTH", "1", Int),
    d("LOCAL_CONFIG_DIR_EXCLUDE_REGEXP", r#"^((\..*)|(.*\.pl)|(.*\.py)|(.*\.sh)|(.*~)|(#.*)|(.*\.rpmsave)|(.*\.rpmnew)|(.*\.dpkg-old)|(.*\.dpkg-dist)|(.*\.cfsaved))$"#, String),
    d("STATISTICS_WINDOW_QUANTUM", "240", Int),
    d("STATISTICS_WINDOW_QUANTUM_DC", "", String),
    d("STATISTICS_WINDOW_QUANTUM_SCHEDD", "", String),
    d("STATISTICS_WINDOW_SECONDS", "1200", Int),
    d("DCSTATISTICS_TIMESPANS", "4m:240 20m:1200 4h:14400", String),
    d("DCSTATISTICS_WINDOW_SECONDS", "", String),
    d("SHADOW_RUN_UNKNOWN_USER_JOBS", "false", Bool),
    d("SCHEDD_ROUND_ATTR_ProportionalSetSizeKb", "25%", String),
    d("SCHEDD_ROUND_ATTR_ResidentSetSize", "25%", String),
    d("SCHEDD_ROUND_ATTR_ExecutableSize", "25%", String),
    d("SCHEDD_ROUND_ATTR_ImageSize", "25%", String),
    d("SCHEDD_ROUND_ATTR_DiskUsage", "25%", String),
    d("SCHEDD_ROUND_ATTR_NumCkpts", "4", String),
    d("WANT_SUSPEND", "False", String),
    d("WANT_VACATE", "True", String),
    d("SUSPEND", "False", String),
    d("CONTINUE", "True", String),
    d("PREEMPT", "False", String),
    d("KILL", "False", String),
    d("MachineMaxVacateTime", "$(MaxVacateTime)", Int),
    d("PERIODIC_CHECKPOINT", "((time() - LastPeriodicCheckpoint)/60.0) > (180.0 + $RANDOM_INTEGER(-30,30,1))", String),
    d("DEFRAG_DRAINING_START_EXPR", "FALSE", String),
    d("DEFRAG_REQUIREMENTS", "", String),
    d("DEFRAG_CANCEL_REQUIREMENTS", "$(DEFRAG_WHOLE_MACHINE_EXPR)", String),
    d("DEFRAG_WHOLE_MACHINE_EXPR", "Cpus == TotalSlotCpus", String),
    d("DEFRAG_LOG", "$(LOG)/DefragLog", Path),
    d("DEFRAG_INTERVAL", "600", Int),
    d("DEFRAG_DRAINING_MACHINES_PER_HOUR", "0", Int),
    d("DEFRAG_MAX_CONCURRENT_DRAINING", "-1", Int),
    d("DEFRAG_MAX_WHOLE_MACHINES", "-1", Int),
    d("DEFRAG_RANK", "-ExpectedMachineGracefulDrainingBadput", String),
    d("DEFRAG_DRAINING_SCHEDULE", "graceful", String),
    d("DEFRAG_UPDATE_INTERVAL", "300", Int),
    d("DEFRAG_NAME", "", String),
    d("GROUP_SORT_EXPR", r#"ifThenElse(AccountingGroup=?="<none>",3.4e+38,ifThenElse(GroupQuota>0,GroupResourcesInUse/GroupQuota,3.3e+38))"#, String),
    d("CLAIM_PARTITIONABLE_LEFTOVERS", "$(NEGOTIATOR_USE_SLOT_WEIGHTS)", String),
    d("MOUNT_UNDER_SCRATCH", r#""/tmp,/var/tmp""#, String),
    d("NAMED_CHROOT", "", String),
    d("MEMORY_USAGE_METRIC", "((ResidentSetSize+1023)/1024)", String),
    d("MEMORY_USAGE_METRIC_VM", "((ImageSize+1023)/1024)", String),
    d("DEFAULT_JOB_MAX_RETRIES", "2", Int),
    d("JOB_DEFAULT_REQUESTMEMORY", "ifthenelse(MemoryUsage =!= UNDEFINED,MemoryUsage,(ImageSize+1023)/1024)", String),
    d("JOB_DEFAULT_REQUESTDISK", "DiskUsage", String),
    d("JOB_DEFAULT_REQUESTCPUS", "1", String),
    d("JOB_DEFAULT_LEASE_DURATION", "2400", String),
    d("MUST_MODIFY_REQUEST_EXPRS", "false", Bool),
    d("MODIFY_REQUEST_EXPR_REQUESTCPUS", "quantize(RequestCpus,{1})", String),
    d("MODIFY_REQUEST_EXPR_REQUESTMEMORY", "quantize(RequestMemory,{128})", String),
    d("MODIFY_REQUEST_EXPR_REQUESTDISK", "quantize(RequestDisk,{1024})", String),
    d("CONSUMPTION_POLICY", "false", Bool),
    d("CONSUMPTION_CPUS", "quantize(target.RequestCpus,{1})", String),
    d("CONSUMPTION_MEMORY", "quantize(target.RequestMemory,{128})", String),
    d("CONSUMPTION_DISK", "quantize(target.RequestDisk,{1024})", String),
    d("SLOT_WEIGHT", "Cpus", String),
    d("ENABLE_DEPRECATION_WARNINGS", "true", Bool),
    d("CLASSAD_ENABLE_USER_HOME", "true", Bool),
    d("STARTER_RLIMIT_AS", "0", Int),
    d("INTERACTIVE_SUBMIT_FILE", "$(LIBEXEC)/interactive.sub", String),
    d("INTERACTIVE_SUBMIT_CMD_OVERRIDE", "/bin/sh", String),
    d("INTERACTIVE_SUBMIT_ARGS_OVERRIDE", r#""-c 'sleep 180 && while test -d ${_CONDOR_SCRATCH_DIR}/.condor_ssh_to_job_1; do /bin/sleep 3; done'""#, String),
    d("MAX_GLOBAL_JOB_PRIOS", "500", Int),
    d("USE_GLOBAL_JOB_PRIOS", "false", Bool),
    d("TRANSFER_QUEUE_USER_EXPR", r#"strcat("Owner_",Owner)"#, String),
    d("ALLOW_TRANSFER_REMAP_TO_MKDIR", "true", Bool),
    d("MAX_TRANSFER_INPUT_MB", "-1", Int),
    d("MAX_TRANSFER_OUTPUT_MB", "-1", Int),
    d("TRANSFER_IO_REPORT_INTERVAL", "10", Int),
    d("TRANSFER_IO_REPORT_TIMESPANS", "1m:60 5m:300 1h:3600 1d:86400", String),
    d("GRACEFULLY_REMOVE_JOBS", "true", Bool),
    d("BASE_CGROUP", "htcondor", String),
    d("CGROUP_POLLING_INTERVAL", "5", Int),
    d("CGROUP_MEMORY_LIMIT_POLICY", "hard", String),
    d("USE_PID_NAMESPACES", "false", Bool),
    d("PER_JOB_NAMESPACES", "true", Bool),
    d("CHIRP_DELAYED_UPDATE_PREFIX", "Chirp*", String),
    d("CHIRP_DELAYED_UPDATE_MAX_ATTRS", "100", Int),
    d("ENABLE_CHIRP_IO", "true", Bool),
    d("ENABLE_CHIRP_UPDATES", "true", Bool),
    d("ENABLE_CHIRP_DELAYED", "true", Bool),
    d("GANGLIA_GMETRIC", "", String),
    d("GANGLIA_LIB", "", String),
    d("GANGLIA_LIB_PATH", "/lib,/usr/lib,/usr/local/lib", String),
    d("GANGLIA_LIB64_PATH", "/lib64,/usr/lib64,/usr/local/lib64", String),
    d("GANGLIA_CONFIG", "/etc/ganglia/gmond.conf", String),
    d("GANGLIA_GSTAT_COMMAND", "gstat --all --mpifile --gmond_ip=localhost --gmond_port=8649", String),
    d("GANGLIAD_METRICS_CONFIG_DIR", "$(ETC)/ganglia.d", Path),
    d("GANGLIAD_VERBOSITY", "0", Int),
    d("GANGLIAD_INTERVAL", "60", Int),
    d("FILE_TRANSFER_DISK_LOAD_THROTTLE", "2.0", String),
    d("FILE_TRANSFER_DISK_LOAD_THROTTLE_SHORT_HORIZON", "1m", String),
    d("FILE_TRANSFER_DISK_LOAD_THROTTLE_LONG_HORIZON", "5m", String),
    d("FILE_TRANSFER_DISK_LOAD_THROTTLE_WAIT_BETWEEN_INCREMENTS", "60", Int),
    d("HTTP_PUBLIC_FILES_STALE_AGE", "604800", Int),
    d("SCHEDD_MAX_FILE_DESCRIPTORS", "20000", Int),
    d("SCHEDD_USE_SLOT_WEIGHT", "true", Bool),
    d("USE_RESOURCE_REQUEST_COUNTS", "true", Bool),
    d("NEGOTIATOR_RESOURCE_REQUEST_LIST_SIZE", "200", Int),
    d("NEGOTIATOR_PREFETCH_REQUESTS", "true", Bool),
    d("NEGOTIATOR_PREFETCH_REQUESTS_MAX_TIME", "60", Int),
    d("HISTORY_HELPER", "$(BIN)/condor_history", Path),
    d("ENABLE_IPV6", "auto", String),
    d("ENABLE_IPV4", "auto", String),
    d("PREFER_IPV4", "true", Bool),
    d("ADVERTISE_IPV4_FIRST", "$(PREFER_IPV4)", String),
    d("IGNORE_TARGET_PROTOCOL_PREFERENCE", "$(PREFER_IPV4)", String),
    d("IGNORE_DNS_PROTOCOL_PREFERENCE", "$(PREFER_IPV4)", String),
    d("PREFER_OUTBOUND_IPV4", "$(PREFER_IPV4)", String),
    d("JOB_EXECDIR_PERMISSIONS", "user", String),
    d("DISCARD_SESSION_KEYRING_ON_STARTUP", "true", Bool),
    d("CONTAINER_SHARED_FS", "/cvmfs", String),
    d("DOCKER", "/usr/bin/docker", String),
    d("SUBMIT_REQUIREMENT_NAMES", "", String),
    d("IS_OWNER", "False", String),
    d("FILETRANSFER_PLUGINS", "$(LIBEXEC)/curl_plugin, $(LIBEXEC)/data_plugin, $(LIBEXEC)/box_plugin.py, $(LIBEXEC)/gdrive_plugin.py, $(LIBEXEC)/onedrive_plugin.py", String),
    d("MAX_DEFAULT_LOG", "10 Mb", String),
    d("FILE_TRANSFER_STATS_LOG", "$(LOG)/transfer_history", Path),
    d("IsWindows", "false", Bool),
    d("IsMaster", "false", Bool),
    d("IsCollector", "false", Bool),
    d("IsNegotiator", "false", Bool),
    d("IsSchedd", "false", Bool),
    d("IsStartd", "false", Bool),
    d("IsStarter", "false", Bool),
    d("IsShadow", "false", Bool),
    d("IsTool", "false", Bool),
    d("IsSubmit", "false", Bool),
    d("MINUTE", "60", String),
    d("HOUR", "3600", String),
    d("STANDARD", "1", String),
    d("IsStandard", "(TARGET.JobUniverse == $(STANDARD))", String),
    d("VANILLA", "5", String),
    d("IsVanilla", "(TARGET.JobUniverse == $(VANILLA))", String),
    d("MPI", "8", String),
    d("IsMPI", "(TARGET.JobUniverse == $(MPI))", String),
    d("VM", "13", String),
    d("IsVM", "(TARGET.JobUniverse == $(VM))", String),
    d("BigJob", "(TARGET.ImageSize >= (50 * 1024))", String),
    d("MediumJob", "(TARGET.ImageSize >= (15 * 1024) && TARGET.ImageSize < (50 * 1024))", String),
    d("SmallJob", "(TARGET.ImageSize <  (15 * 1024))", String),
    d("BackgroundLoad", "0.3", String),
    d("HighLoad", "0.5", String),
    d("StartIdleTime", "15 * $(MINUTE)", String),
    d("ContinueIdleTime", "5 * $(MINUTE)", String),
    d("MaxSuspendTime", "10 * $(MINUTE)", String),
    d("MaxVacateTime", "10 * $(MINUTE)", String),
    d("StateTimer", "(time() - EnteredCurrentState)", String),
    d("ActivityTimer", "(time() - EnteredCurrentActivity)", String),
    d("MASTER.ENABLE_CLASSAD_CACHING", "false", Bool),
    d("SHADOW.ENABLE_CLASSAD_CACHING", "false", Bool),
    d("STARTER.ENABLE_CLASSAD_CACHING", "false", Bool),
    d("MASTER.IsMaster", "true", Bool),
    d("COLLECTOR.IsCollector", "true", Bool),
    d("NEGOTIATOR.IsNegotiator", "true", Bool),
    d("SCHEDD.IsSchedd", "true", Bool),
    d("STARTD.IsStartd", "true", Bool),
    d("STARTER.IsStarter", "true", Bool),
    d("SHADOW.IsShadow", "true", Bool),
    d("TOOL.IsTool", "true", Bool),
    d("SUBMIT.IsSubmit", "true", Bool),
];

type Index = HashMap<&'static CiStr, &'static Default, CiHasher>;

/// Every default, by name in any case (built without copying a name: every tool reads it).
fn index() -> &'static Index {
    static INDEX: OnceLock<Index> = OnceLock::new();
    INDEX.get_or_init(|| {
        TABLE
            .iter()
            .chain(POLICY_MACROS)
            .map(|d| (CiStr::new(d.name), d))
            .collect()
    })
}

/// The default table of one load: the static table with `LOCAL_DIR` filled in.
#[derive(Clone, Debug)]
pub struct Defaults {
    local_dir: std::string::String,
}

impl Defaults {
    /// The defaults, with `LOCAL_DIR` defaulting to `local_dir`.
    pub fn with_local_dir(local_dir: impl Into<std::string::String>) -> Defaults {
        Defaults {
            local_dir: local_dir.into(),
        }
    }

    /// The default of `name` (which may be `SUBSYS.NAME`). An empty default is no default,
    /// as in HTCondor's table.
    pub fn get(&self, name: &str) -> Option<&str> {
        let d = index().get(CiStr::new(name))?;
        Some(self.value_of(d)).filter(|v| !v.is_empty())
    }

    /// The default of `name` for subsystem (or local name) `prefix` only.
    pub fn get_prefixed(&self, prefix: &str, name: &str) -> Option<&str> {
        let key = format!("{prefix}.{name}");
        index()
            .get(CiStr::new(&key))
            .map(|d| self.value_of(d))
            .filter(|v| !v.is_empty())
    }

    /// The entry for `name`, with its type and spelling.
    pub fn entry(&self, name: &str) -> Option<&'static Default> {
        index().get(CiStr::new(name)).copied()
    }

    fn value_of<'s>(&'s self, d: &'static Default) -> &'s str {
        if d.name == "LOCAL_DIR" {
            &self.local_dir
        } else {
            d.value
        }
    }

    /// Every default as `(name, value)`, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, &str)> + '_ {
        TABLE
            .iter()
            .chain(POLICY_MACROS)
            .map(move |d| (d.name, self.value_of(d)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for d in TABLE.iter().chain(POLICY_MACROS) {
            assert!(seen.insert(d.name.to_ascii_lowercase()), "{} twice", d.name);
        }
    }

    #[test]
    fn lookups() {
        let defaults = Defaults::with_local_dir("/pool");
        assert_eq!(defaults.get("priority_halflife"), Some("86400"));
        assert_eq!(
            defaults.entry("PRIORITY_HALFLIFE").unwrap().kind,
            Kind::Double
        );
        assert_eq!(defaults.get("LOCAL_DIR"), Some("/pool"));
        assert_eq!(defaults.get("SPOOL"), Some("$(LOCAL_DIR)/spool"));
        assert_eq!(defaults.get_prefixed("MASTER", "IsMaster"), Some("true"));
        assert_eq!(defaults.get("master.ismaster"), Some("true"));
        assert_eq!(defaults.get("IsMaster"), Some("false"));
        assert_eq!(
            defaults.get("KeyboardBusy"),
            Some("(KeyboardIdle < $(MINUTE))")
        );
        assert_eq!(defaults.get("NO_SUCH_KNOB"), None);
    }
}
