fn main() -> std::process::ExitCode {
    condorlite::tools::main("condor_token_fetch")
}
