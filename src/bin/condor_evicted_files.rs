fn main() -> std::process::ExitCode {
    condorlite::tools::main("condor_evicted_files")
}
