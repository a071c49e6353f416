//! Job states, as HTCondor numbers and names them (`JobStatus` in src/condor_includes/proc.h,
//! `JobStatusNames[]` in src/condor_utils/proc.cpp, `encode_status` in
//! src/condor_utils/condor_q.cpp).

use std::fmt;

/// A job's `JobStatus`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum JobStatus {
    Idle = 1,
    Running = 2,
    Removed = 3,
    Completed = 4,
    Held = 5,
    TransferringOutput = 6,
    Suspended = 7,
    /// Reserved by HTCondor ("possible future use").
    Failed = 8,
    /// Reserved by HTCondor ("possible future use").
    Blocked = 9,
    /// A cluster whose jobs are still being materialized.
    Preparing = 10,
}

impl JobStatus {
    pub const ALL: [JobStatus; 10] = [
        JobStatus::Idle,
        JobStatus::Running,
        JobStatus::Removed,
        JobStatus::Completed,
        JobStatus::Held,
        JobStatus::TransferringOutput,
        JobStatus::Suspended,
        JobStatus::Failed,
        JobStatus::Blocked,
        JobStatus::Preparing,
    ];

    /// The status with this `JobStatus` number, if HTCondor defines one.
    pub fn from_code(code: i64) -> Option<JobStatus> {
        JobStatus::ALL.into_iter().find(|s| s.code() == code)
    }

    /// The `JobStatus` number.
    pub fn code(self) -> i64 {
        self as i64
    }

    /// HTCondor's name (`getJobStatusString`): `IDLE`, `RUNNING`, ...
    pub fn name(self) -> &'static str {
        match self {
            JobStatus::Idle => "IDLE",
            JobStatus::Running => "RUNNING",
            JobStatus::Removed => "REMOVED",
            JobStatus::Completed => "COMPLETED",
            JobStatus::Held => "HELD",
            JobStatus::TransferringOutput => "TRANSFERRING_OUTPUT",
            JobStatus::Suspended => "SUSPENDED",
            JobStatus::Failed => "FAILED",
            JobStatus::Blocked => "BLOCKED",
            JobStatus::Preparing => "PREPARING",
        }
    }

    /// The letter `condor_q` shows in its ST column.
    pub fn letter(self) -> char {
        match self {
            JobStatus::Idle => 'I',
            JobStatus::Running => 'R',
            JobStatus::Removed => 'X',
            JobStatus::Completed => 'C',
            JobStatus::Held => 'H',
            JobStatus::TransferringOutput => '>',
            JobStatus::Suspended => 'S',
            JobStatus::Failed => 'F',
            JobStatus::Blocked => 'B',
            JobStatus::Preparing => 'P',
        }
    }

    /// Completed and removed jobs are done: they may leave the queue for the history.
    pub fn is_finished(self) -> bool {
        matches!(self, JobStatus::Completed | JobStatus::Removed)
    }
}

impl fmt::Display for JobStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_names_letters() {
        for s in JobStatus::ALL {
            assert_eq!(JobStatus::from_code(s.code()), Some(s));
        }
        assert_eq!(JobStatus::from_code(0), None);
        assert_eq!(JobStatus::from_code(11), None);
        assert_eq!(JobStatus::Held.code(), 5);
        assert_eq!(JobStatus::TransferringOutput.name(), "TRANSFERRING_OUTPUT");
        let letters: String = JobStatus::ALL[..7].iter().map(|s| s.letter()).collect();
        assert_eq!(letters, "IRXCH>S");
        assert!(JobStatus::Removed.is_finished() && !JobStatus::Held.is_finished());
    }
}
