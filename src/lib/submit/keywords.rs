//! The submit commands that set one job attribute each, with no special processing
//! (HTCondor's `prunable_keywords` table, up to its "SPECIAL HANDLING" banner). A command may
//! also be written as its attribute's name (`JobPrio = 4` for `priority = 4`).

/// How a simple command's value goes into the job ad.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Parsed as a ClassAd expression.
    Expr,
    /// A string, as written.
    Str,
    /// A string with surrounding quotes removed.
    StrStripQuotes,
    /// A comma/space-separated list, re-joined with `,`.
    List,
    /// A file name made absolute against the initial directory (`log`).
    LogFile,
    /// A log file name with surrounding quotes removed (`starter_log`).
    LogFileStripQuotes,
    Bool,
    Int,
    /// A non-negative integer.
    Uint,
}

/// One simple command.
#[derive(Clone, Copy, Debug)]
pub struct Keyword {
    pub key: &'static str,
    pub attr: &'static str,
    pub kind: Kind,
    /// Ignored when the command before it in the table was given (`prio` after `priority`).
    pub alt: bool,
}

const fn k(key: &'static str, attr: &'static str, kind: Kind) -> Keyword {
    Keyword {
        key,
        attr,
        kind,
        alt: false,
    }
}

const fn alt(key: &'static str, attr: &'static str, kind: Kind) -> Keyword {
    Keyword {
        key,
        attr,
        kind,
        alt: true,
    }
}

use Kind::*;

/// The table, in HTCondor's order.
pub const SIMPLE: &[Keyword] = &[
    k("next_job_start_delay", "NextJobStartDelay", Expr),
    k("keep_claim_idle", "KeepClaimIdle", Expr),
    k("job_ad_information_attrs", "JobAdInformationAttrs", Str),
    k("ulog_execute_attrs", "UserLogExecuteEventAttrs", Str),
    k("max_idle", "JobMaterializeMaxIdle", Expr),
    alt("materialize_max_idle", "JobMaterializeMaxIdle", Expr),
    k("docker_network_type", "DockerNetworkType", Str),
    k("docker_pull_policy", "DockerPullPolicy", Str),
    k(
        "docker_override_entrypoint",
        "DockerOverrideEntrypoint",
        Bool,
    ),
    k("container_target_dir", "ContainerTargetDir", StrStripQuotes),
    k("transfer_container", "TransferContainer", Bool),
    k("transfer_plugins", "TransferPlugins", Str),
    k("want_io_proxy", "WantIOProxy", Bool),
    k("starter_debug", "JobStarterDebug", StrStripQuotes),
    k("starter_log", "JobStarterLog", LogFileStripQuotes),
    k("job_machine_attrs", "JobMachineAttrs", Str),
    k(
        "job_machine_attrs_history_length",
        "JobMachineAttrsHistoryLength",
        Int,
    ),
    k("notify_user", "NotifyUser", Str),
    k("email_attributes", "EmailAttributes", List),
    k("remote_initialdir", "RemoteIwd", Str),
    k("Remote_grid_resource", "Remote_GridResource", Str),
    k(
        "Remote_Remote_grid_resource",
        "Remote_Remote_GridResource",
        Str,
    ),
    k("output_destination", "OutputDestination", Str),
    k("want_graceful_removal", "WantGracefulRemoval", Expr),
    k("job_max_vacate_time", "JobMaxVacateTime", Expr),
    k("encrypt_execute_directory", "EncryptExecuteDirectory", Bool),
    k("encrypt_input_files", "EncryptInputFiles", Str),
    k("encrypt_output_files", "EncryptOutputFiles", Str),
    k("dont_encrypt_input_files", "DontEncryptInputFiles", Str),
    k("dont_encrypt_output_files", "DontEncryptOutputFiles", Str),
    k("load_profile", "LoadProfile", Bool),
    k("file_remaps", "FileRemaps", Expr),
    k("buffer_files", "BufferFiles", Expr),
    k("buffer_size", "BufferSize", Expr),
    k("buffer_block_size", "BufferBlockSize", Expr),
    k("fetch_files", "FetchFiles", Str),
    k("compress_files", "CompressFiles", Str),
    k("append_files", "AppendFiles", Str),
    k("local_files", "LocalFiles", Str),
    k("log", "UserLog", LogFile),
    k("dagman_log", "DAGManNodesLog", LogFile),
    k("log_xml", "UserLogUseXML", Bool),
    k("noop_job", "IsNoopJob", Expr),
    k("noop_job_exit_signal", "NoopJobExitSignal", Expr),
    k("noop_job_exit_code", "NoopJobExitCode", Expr),
    k("dag_node_name", "DAGNodeName", Str),
    k("match_list_length", "LastMatchListLength", Int),
    k("dagman_job_id", "DAGManJobId", Uint),
    k("submit_event_notes", "SubmitEventNotes", Str),
    k("submit_event_user_notes", "SubmitEventUserNotes", Str),
    k("stack_size", "StackSize", Expr),
    k("jar_files", "JarFiles", Str),
    k("parallel_script_shadow", "ParallelScriptShadow", Str),
    k("parallel_script_starter", "ParallelScriptStarter", Str),
    k("cron_minute", "CronMinute", Str),
    k("cron_hour", "CronHour", Str),
    k("cron_day_of_month", "CronDayOfMonth", Str),
    k("cron_month", "CronMonth", Str),
    k("cron_day_of_week", "CronDayOfWeek", Str),
    k("description", "JobDescription", Str),
    k("batch_name", "JobBatchName", StrStripQuotes),
    k("batch_id", "JobBatchId", StrStripQuotes),
    k("max_job_retirement_time", "MaxJobRetirementTime", Expr),
    k("job_lease_duration", "JobLeaseDuration", Expr),
    k("core_size", "CoreSize", Int),
    k("priority", "JobPrio", Int),
    alt("prio", "JobPrio", Int),
    k("run_as_owner", "RunAsOwner", Bool),
    k("max_transfer_input_mb", "MaxTransferInputMB", Expr),
    k("max_transfer_output_mb", "MaxTransferOutputMB", Expr),
    k("manifest", "ManifestDesired", Bool),
    k("manifest_dir", "ManifestDir", Str),
    k("checkpoint_exit_code", "SuccessCheckpointExitCode", Int),
    k("checkpoint_destination", "CheckpointDestination", Str),
    k("aws_region", "AWSRegion", Str),
    k("aws_access_key_id_file", "EC2AccessKeyId", Str),
    k("aws_secret_access_key_file", "EC2SecretAccessKey", Str),
    k("s3_access_key_id_file", "EC2AccessKeyId", Str),
    k("s3_secret_access_key_file", "EC2SecretAccessKey", Str),
    k("gs_access_key_id_file", "EC2AccessKeyId", Str),
    k("gs_secret_access_key_file", "EC2SecretAccessKey", Str),
    k(
        "erase_output_and_error_on_restart",
        "EraseOutputAndErrorOnRestart",
        Bool,
    ),
    k("transfer_checkpoint_files", "TransferCheckpoint", Str),
    k("preserve_relative_paths", "PreserveRelativePaths", Bool),
    k("cuda_version", "CUDAVersion", Str),
    k("skip_if_dataflow", "SkipIfDataflow", Bool),
    k("allowed_job_duration", "AllowedJobDuration", Expr),
    k("allowed_execute_duration", "AllowedExecuteDuration", Expr),
    k("jobset", "JobSetName", StrStripQuotes),
];

/// `request_*` names that are refused as custom resources (likely mistakes for GPU
/// properties).
pub const DISALLOWED_REQUESTS: &[&str] = &["request_gpu_memory", "request_gpus_memory"];
