//! DAGMan: the DAG language, the engine and its files.
//!
//! [`options`] is the option set condor_submit_dag and condor_dagman share (HTCondor's
//! `DagmanOptions` and the file-name and rescue-DAG helpers of `DagmanUtils`, from
//! src/condor_utils/dagman_utils.{h,cpp}).

pub mod options;
