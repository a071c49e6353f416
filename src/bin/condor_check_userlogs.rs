fn main() -> std::process::ExitCode {
    condorlite::tools::main("condor_check_userlogs")
}
