fn main() -> std::process::ExitCode {
    condorlite::tools::main("classad_eval")
}
