//! condor_version: the version and platform strings, and version.cpp's argument handling.

use condorlite::version::{CONDOR_PLATFORM, CONDOR_VERSION};

use crate::common::TestEnvironment;

const USAGE: &str = "Usage: condor_version [options]\n   If no options are specified, print the \
                     version and platform strings\n   where the tool was built.  Valid options \
                     are:\n   -help\t(this message)\n   -arch\t(print the ARCH string)\n   \
                     -opsys\t(print the OPSYS string)\n";

/// The parts of the platform string (`X86_64-Linux`).
fn parts() -> (String, String) {
    let body = CONDOR_PLATFORM
        .trim_start_matches("$CondorPlatform: ")
        .trim_end_matches(" $");
    let (arch, opsys) = body.split_once('-').expect("ARCH-OPSYS");
    (arch.to_owned(), opsys.to_owned())
}

#[test]
fn prints_version_and_platform() {
    let env = TestEnvironment::new();
    let out = env.run("condor_version", Vec::<&str>::new());
    assert_eq!(
        out.to_string(),
        format!("{CONDOR_VERSION}\n{CONDOR_PLATFORM}\n[exit status: 0]")
    );
    assert!(CONDOR_VERSION.starts_with("$CondorVersion: 24.0."));
}

#[test]
fn arch_and_opsys_in_the_order_asked() {
    let env = TestEnvironment::new();
    let (arch, opsys) = parts();
    let run = |args: &[&str]| env.run("condor_version", args).to_string();
    assert_eq!(run(&["-arch"]), format!("{arch}\n[exit status: 0]"));
    assert_eq!(run(&["-opsys"]), format!("{opsys}\n[exit status: 0]"));
    // Only the letter after the dash counts.
    assert_eq!(
        run(&["-a", "-o"]),
        format!("{arch}\n{opsys}\n[exit status: 0]")
    );
    assert_eq!(
        run(&["-ostrich", "-anything"]),
        format!("{opsys}\n{arch}\n[exit status: 0]")
    );
    assert_eq!(
        run(&["-o", "-a", "-o"]),
        format!("{opsys}\n{arch}\n[exit status: 0]")
    );
}

#[test]
fn help_and_bad_arguments() {
    let env = TestEnvironment::new();
    let run = |args: &[&str]| env.run("condor_version", args).to_string();
    // Asked for, the usage goes to stdout (where condorlite tools print their help).
    for help in ["-help", "-h", "--help"] {
        assert_eq!(run(&[help]), format!("{USAGE}[exit status: 0]"));
    }
    assert_eq!(
        run(&["-x"]),
        format!(
            "------- stderr -------\nERROR: unrecognized argument: '-x'\n{USAGE}[exit status: 1]"
        )
    );
    assert_eq!(
        run(&["arch"]),
        format!("------- stderr -------\nERROR: invalid argument: 'arch'\n{USAGE}[exit status: 1]")
    );
    assert_eq!(
        run(&["--arch"]),
        format!("------- stderr -------\nERROR: unrecognized argument: '--arch'\n{USAGE}[exit status: 1]")
    );
}
