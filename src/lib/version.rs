//! The version and platform strings condorlite reports, in HTCondor's forms
//! (src/condor_utils/condor_version.cpp): `$CondorVersion: <x.y.z> <date> BuildID: <id> $` and
//! `$CondorPlatform: <ARCH>-<OS> $`.
//!
//! The version is that of the HTCondor release condorlite follows (24.0), so that tools and
//! scripts that compare versions treat condorlite as that release; the BuildID names condorlite
//! and its own version. The platform is the one condorlite was built for: HTCondor's `ARCH`
//! name for the target architecture and the target operating system.

/// The HTCondor release number condorlite reports (the metrics file's `version`).
pub const VERSION_NUMBER: &str = "24.0.24";

/// `CondorVersion()`: what `condor_version` prints first and daemons publish as
/// `CondorVersion`.
pub const CONDOR_VERSION: &str = concat!(
    "$CondorVersion: 24.0.24 2026-11-22 BuildID: condorlite-",
    env!("CARGO_PKG_VERSION"),
    " $"
);

/// HTCondor's name for the architecture condorlite was built for.
#[cfg(target_arch = "x86_64")]
macro_rules! arch {
    () => {
        "X86_64"
    };
}
#[cfg(target_arch = "x86")]
macro_rules! arch {
    () => {
        "INTEL"
    };
}
#[cfg(target_arch = "aarch64")]
macro_rules! arch {
    () => {
        "aarch64"
    };
}
#[cfg(not(any(target_arch = "x86_64", target_arch = "x86", target_arch = "aarch64")))]
macro_rules! arch {
    () => {
        "UNKNOWN"
    };
}

/// The operating system condorlite was built for.
#[cfg(target_os = "linux")]
macro_rules! opsys {
    () => {
        "Linux"
    };
}
#[cfg(target_os = "macos")]
macro_rules! opsys {
    () => {
        "macOS"
    };
}
#[cfg(not(any(target_os = "linux", target_os = "macos")))]
macro_rules! opsys {
    () => {
        "Unix"
    };
}

/// `CondorPlatform()`: what `condor_version` prints second and daemons publish as
/// `CondorPlatform`.
pub const CONDOR_PLATFORM: &str = concat!("$CondorPlatform: ", arch!(), "-", opsys!(), " $");

/// The build's `PLATFORM` (the `CONDOR_BUILD_PLATFORM` knob): the platform string's body.
pub const BUILD_PLATFORM: &str = concat!(arch!(), "-", opsys!());

/// The architecture part of the platform string (`CondorVersionInfo::getArchVer`): what
/// precedes the first `-`.
pub fn platform_arch() -> &'static str {
    platform_parts().0
}

/// The operating-system part of the platform string (`CondorVersionInfo::getOpSysVer`): what
/// follows the first `-`, up to a space or `$`.
pub fn platform_opsys() -> &'static str {
    platform_parts().1
}

fn platform_parts() -> (&'static str, &'static str) {
    let body = CONDOR_PLATFORM
        .strip_prefix("$CondorPlatform: ")
        .unwrap_or(CONDOR_PLATFORM);
    let arch_len = body.find('-').unwrap_or(body.len());
    let (arch, rest) = body.split_at(arch_len);
    let rest = rest.strip_prefix('-').unwrap_or(rest);
    let os_len = rest.find([' ', '$']).unwrap_or(rest.len());
    (arch, &rest[..os_len])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_have_htcondor_forms() {
        assert!(CONDOR_VERSION.starts_with("$CondorVersion: 24.0."));
        assert!(CONDOR_VERSION.contains(" BuildID: condorlite-"));
        assert!(CONDOR_VERSION.ends_with(" $"));
        assert!(CONDOR_PLATFORM.starts_with("$CondorPlatform: "));
        assert!(CONDOR_PLATFORM.ends_with(" $"));
        assert_eq!(
            format!(
                "$CondorPlatform: {}-{} $",
                platform_arch(),
                platform_opsys()
            ),
            CONDOR_PLATFORM
        );
    }
}
