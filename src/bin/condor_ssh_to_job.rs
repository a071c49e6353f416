fn main() -> std::process::ExitCode {
    condorlite::tools::main("condor_ssh_to_job")
}
