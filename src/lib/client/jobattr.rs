//! The schedd's checks on a job attribute a user sets (qmgmt.cpp `ModifyAttrCheck`): a valid
//! name, and the attributes the schedd's configuration keeps from users.

use super::Session;

/// `IsValidAttrName`.
pub fn valid_attr_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// How an attribute is kept from users: `immutable` (`IMMUTABLE_JOB_ATTRS`,
/// `SYSTEM_IMMUTABLE_JOB_ATTRS`), `protected` (only a queue superuser changes it:
/// `PROTECTED_JOB_ATTRS` and its `SYSTEM_` list) or `secure` (only the schedd:
/// `SECURE_JOB_ATTRS` and its `SYSTEM_` list); `None` when it is not.
pub fn protection(session: &Session, attr: &str) -> Option<&'static str> {
    let listed = |knobs: [&str; 2]| {
        knobs.iter().any(|k| {
            session
                .config
                .string(k)
                .ok()
                .flatten()
                .unwrap_or_default()
                .split([',', ' ', '\t'])
                .any(|a| !a.is_empty() && a.eq_ignore_ascii_case(attr))
        })
    };
    if listed(["IMMUTABLE_JOB_ATTRS", "SYSTEM_IMMUTABLE_JOB_ATTRS"]) {
        Some("immutable")
    } else if listed(["PROTECTED_JOB_ATTRS", "SYSTEM_PROTECTED_JOB_ATTRS"]) {
        Some("protected")
    } else if listed(["SECURE_JOB_ATTRS", "SYSTEM_SECURE_JOB_ATTRS"]) {
        Some("secure")
    } else {
        None
    }
}
