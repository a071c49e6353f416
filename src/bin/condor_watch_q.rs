fn main() -> std::process::ExitCode {
    condorlite::tools::main("condor_watch_q")
}
