//! IDTOKENS: JSON Web Tokens signed with a pool key, as HTCondor's
//! `Condor_Auth_Passwd::generate_token` makes them.
//!
//! The signing key is derived from the key file's secret with HKDF-SHA256 (salt `htcondor`,
//! info `master jwt`, 32 bytes); the token is HS256 over the base64url (unpadded) header and
//! payload. The header is `{"alg":"HS256","kid":KEY}`; the payload holds `iat`, `iss`
//! (`TRUST_DOMAIN`), `jti` (16 random bytes in hex), `sub` (the identity), and when asked
//! `exp` (`iat` + lifetime) and `scope` (`condor:/AUTHZ` words). The JSON is written as
//! jwt-cpp's picojson writes it (keys in order, `/` escaped as `\/`), so a token decodes to the
//! same text HTCondor's `condor_token_list` shows, and HTCondor accepts the token when it has
//! the same key.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use hmac::{Hmac, KeyInit, Mac};
use rand::RngCore;
use sha2::Sha256;

use super::keys::{self, KeyError, POOL_KEY};
use crate::config::Config;

/// The length of the derived HS256 key (`AUTH_PW_KEY_STRENGTH`).
const JWT_KEY_BYTES: usize = 32;

/// The largest token read from a file or a request.
pub const MAX_TOKEN_BYTES: usize = 64 * 1024;

/// What a new token says.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TokenRequest {
    /// `sub`: the identity, `user@domain`.
    pub identity: String,
    /// `kid`: the signing key (empty: `POOL`).
    pub key_id: String,
    /// `scope`: the authorizations the token is limited to (none: all of the identity's).
    pub authz: Vec<String>,
    /// Seconds from now to `exp` (none: the token does not expire).
    pub lifetime: Option<i64>,
}

/// A token's claims, once its signature is checked ([`verify`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Claims {
    pub subject: String,
    pub issuer: String,
    pub key_id: String,
    pub issued_at: Option<i64>,
    pub expires: Option<i64>,
    /// The authorizations of `scope` (without `condor:/`); empty when the token has none.
    pub authz: Vec<String>,
    pub id: Option<String>,
}

/// Why a token could not be made or accepted.
#[derive(Debug, thiserror::Error)]
pub enum TokenError {
    /// An error of the key files, in HTCondor's stack form.
    #[error(transparent)]
    Key(#[from] KeyError),
    #[error("{0}")]
    Invalid(String),
}

impl From<crate::config::ConfigError> for TokenError {
    fn from(e: crate::config::ConfigError) -> TokenError {
        TokenError::Key(e.into())
    }
}

/// HS256's key for signing key `key_id`'s secret.
fn jwt_key(secret: &[u8]) -> [u8; JWT_KEY_BYTES] {
    let mut okm = [0u8; JWT_KEY_BYTES];
    hkdf::Hkdf::<Sha256>::new(Some(b"htcondor"), secret)
        .expand(b"master jwt", &mut okm)
        .expect("32 bytes is a valid HKDF-SHA256 length");
    okm
}

fn signature(jwt_key: &[u8], signed: &str) -> Vec<u8> {
    let mut mac =
        <Hmac<Sha256> as KeyInit>::new_from_slice(jwt_key).expect("HMAC takes a key of any length");
    mac.update(signed.as_bytes());
    mac.finalize().into_bytes().to_vec()
}

/// The issuer of this pool's tokens: `TRUST_DOMAIN`, which may not hold spaces or commas.
pub fn issuer(config: &Config) -> Result<String, TokenError> {
    let issuer = config.string("TRUST_DOMAIN")?.unwrap_or_default();
    if issuer.is_empty() {
        return Err(passwd("Issuer namespace is not set"));
    }
    if issuer.contains([',', ' ', '\t']) {
        return Err(passwd("Issuer namespace may not contain spaces or commas"));
    }
    Ok(issuer)
}

fn passwd(message: &str) -> TokenError {
    TokenError::Key(KeyError {
        subsys: "PASSWD",
        code: 1,
        message: message.to_owned(),
    })
}

/// Makes a token as `condor_token_create` does, issued at `now`.
pub fn generate(config: &Config, request: &TokenRequest, now: i64) -> Result<String, TokenError> {
    let key_id = if request.key_id.is_empty() {
        POOL_KEY
    } else {
        request.key_id.as_str()
    };
    let secret = keys::signing_key(config, key_id)?;
    let issuer = issuer(config)?;
    let mut jti = [0u8; 16];
    rand::thread_rng().fill_bytes(&mut jti);
    let jti: String = jti.iter().map(|b| format!("{b:02x}")).collect();

    let mut payload: Vec<(&str, Json)> = vec![
        ("iat", Json::Int(now)),
        ("iss", Json::Str(issuer)),
        ("jti", Json::Str(jti)),
        ("sub", Json::Str(request.identity.clone())),
    ];
    if let Some(lifetime) = request.lifetime {
        payload.push(("exp", Json::Int(now.saturating_add(lifetime))));
    }
    if !request.authz.is_empty() {
        let scope = request
            .authz
            .iter()
            .map(|a| format!("condor:/{a}"))
            .collect::<Vec<_>>()
            .join(" ");
        payload.push(("scope", Json::Str(scope)));
    }
    let header = vec![
        ("alg", Json::Str("HS256".into())),
        ("kid", Json::Str(key_id.to_owned())),
    ];
    let signed = format!(
        "{}.{}",
        URL_SAFE_NO_PAD.encode(object(header)),
        URL_SAFE_NO_PAD.encode(object(payload))
    );
    let sig = signature(&jwt_key(&secret), &signed);
    Ok(format!("{signed}.{}", URL_SAFE_NO_PAD.encode(sig)))
}

/// A token's header and payload, as the JSON text they encode (`jwt::decode`; the signature is
/// not checked).
pub fn decode(token: &str) -> Result<(String, String), TokenError> {
    let parts: Vec<&str> = token.trim().split('.').collect();
    if parts.len() != 3 {
        return Err(TokenError::Invalid(
            "a token has three parts separated by '.'".into(),
        ));
    }
    let text = |part: &str, what: &str| -> Result<String, TokenError> {
        let bytes = URL_SAFE_NO_PAD
            .decode(part.trim_end_matches('='))
            .map_err(|e| {
                TokenError::Invalid(format!("the token's {what} is not base64url: {e}"))
            })?;
        let text = String::from_utf8(bytes)
            .map_err(|_| TokenError::Invalid(format!("the token's {what} is not UTF-8")))?;
        serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(&text).map_err(|e| {
            TokenError::Invalid(format!("the token's {what} is not a JSON object: {e}"))
        })?;
        Ok(text)
    };
    Ok((text(parts[0], "header")?, text(parts[1], "payload")?))
}

/// Checks a token made by this pool: its key exists and signed it, its issuer is this pool's
/// `TRUST_DOMAIN`, and at `now` it has not expired.
pub fn verify(config: &Config, token: &str, now: i64) -> Result<Claims, TokenError> {
    let token = token.trim();
    if token.len() > MAX_TOKEN_BYTES {
        return Err(TokenError::Invalid("the token is too long".into()));
    }
    let (header, payload) = decode(token)?;
    let header: serde_json::Value = serde_json::from_str(&header).expect("decode checked it");
    let payload: serde_json::Value = serde_json::from_str(&payload).expect("decode checked it");
    if header.get("alg").and_then(|v| v.as_str()) != Some("HS256") {
        return Err(TokenError::Invalid(
            "the token is not signed with HS256".into(),
        ));
    }
    let key_id = header
        .get("kid")
        .and_then(|v| v.as_str())
        .unwrap_or(POOL_KEY)
        .to_owned();
    if key_id.contains('/') || key_id.starts_with('.') {
        return Err(TokenError::Invalid(format!("bad key id {key_id:?}")));
    }
    let secret = keys::signing_key(config, &key_id)?;
    let (signed, sig) = token.rsplit_once('.').expect("decode checked the parts");
    let sig = URL_SAFE_NO_PAD
        .decode(sig.trim_end_matches('='))
        .map_err(|_| TokenError::Invalid("the token's signature is not base64url".into()))?;
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(&jwt_key(&secret))
        .expect("HMAC takes a key of any length");
    mac.update(signed.as_bytes());
    mac.verify_slice(&sig)
        .map_err(|_| TokenError::Invalid("the token's signature does not verify".into()))?;

    let string = |name: &str| {
        payload
            .get(name)
            .and_then(|v| v.as_str())
            .map(str::to_owned)
    };
    let int = |name: &str| payload.get(name).and_then(|v| v.as_i64());
    let issuer = string("iss").unwrap_or_default();
    let ours = self::issuer(config)?;
    if issuer != ours {
        return Err(TokenError::Invalid(format!(
            "the token was issued by {issuer:?}, not by this pool ({ours:?})"
        )));
    }
    let expires = int("exp");
    if expires.is_some_and(|exp| exp <= now) {
        return Err(TokenError::Invalid("the token has expired".into()));
    }
    let subject = string("sub")
        .filter(|s| !s.is_empty())
        .ok_or_else(|| TokenError::Invalid("the token names no identity (sub)".into()))?;
    let authz = string("scope")
        .map(|s| {
            s.split_whitespace()
                .filter_map(|w| w.strip_prefix("condor:/"))
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    Ok(Claims {
        subject,
        issuer,
        key_id,
        issued_at: int("iat"),
        expires,
        authz,
        id: string("jti"),
    })
}

/// A JSON value as the tokens use them.
enum Json {
    Int(i64),
    Str(String),
}

/// An object written as picojson writes it: keys in order, no spaces.
fn object(mut members: Vec<(&str, Json)>) -> String {
    members.sort_by(|a, b| a.0.cmp(b.0));
    let mut out = String::from("{");
    for (i, (key, value)) in members.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_str(&mut out, key);
        out.push(':');
        match value {
            Json::Int(n) => out.push_str(&n.to_string()),
            Json::Str(s) => push_str(&mut out, s),
        }
    }
    out.push('}');
    out
}

/// A JSON string as picojson escapes it (`/` too).
fn push_str(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '/' => out.push_str("\\/"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                out.push_str(&format!("\\u{:04x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pool(dir: &std::path::Path) -> Config {
        let text = format!(
            "LOCAL_DIR = {}\nTRUST_DOMAIN = pool.example\n",
            dir.display()
        );
        Config::for_test(&text, "TOOL", None, dir)
    }

    #[test]
    fn picojson_escapes_as_htcondor_writes_scopes() {
        let text = object(vec![
            ("sub", Json::Str("a\"b\n".into())),
            ("scope", Json::Str("condor:/READ condor:/WRITE".into())),
            ("iat", Json::Int(7)),
        ]);
        assert_eq!(
            text,
            r#"{"iat":7,"scope":"condor:\/READ condor:\/WRITE","sub":"a\"b\n"}"#
        );
    }

    #[test]
    fn a_token_verifies_with_its_key_and_only_with_it() {
        let dir = tempfile::tempdir().unwrap();
        let config = pool(dir.path());
        keys::create_pool_key_if_needed(&config).unwrap();
        let request = TokenRequest {
            identity: "alice@pool.example".into(),
            authz: vec!["READ".into(), "WRITE".into()],
            lifetime: Some(60),
            ..TokenRequest::default()
        };
        let token = generate(&config, &request, 1_000).unwrap();
        let (header, payload) = decode(&token).unwrap();
        assert_eq!(header, r#"{"alg":"HS256","kid":"POOL"}"#);
        assert!(payload.starts_with(r#"{"exp":1060,"iat":1000,"iss":"pool.example","jti":""#));
        assert!(payload
            .ends_with(r#"","scope":"condor:\/READ condor:\/WRITE","sub":"alice@pool.example"}"#));
        let claims = verify(&config, &token, 1_059).unwrap();
        assert_eq!(claims.subject, "alice@pool.example");
        assert_eq!(claims.authz, ["READ", "WRITE"]);
        assert_eq!(claims.expires, Some(1060));
        assert!(verify(&config, &token, 1_060)
            .unwrap_err()
            .to_string()
            .contains("expired"));

        // Another pool's key does not verify it.
        let other = tempfile::tempdir().unwrap();
        let other = pool(other.path());
        keys::create_pool_key_if_needed(&other).unwrap();
        let refused = verify(&other, &token, 1_000).unwrap_err().to_string();
        assert!(refused.contains("signature"), "{refused}");

        // Nor does a token whose payload was changed.
        let parts: Vec<&str> = token.split('.').collect();
        let forged_payload = payload.replace("alice", "admin");
        let forged = format!(
            "{}.{}.{}",
            parts[0],
            URL_SAFE_NO_PAD.encode(forged_payload),
            parts[2]
        );
        assert!(verify(&config, &forged, 1_000).is_err());
    }

    /// The HS256 key of a known secret, as HTCondor derives it (RFC 5869's HKDF-SHA256 with
    /// HTCondor's salt and info), checked against a value computed independently with
    /// Python's hmac module.
    #[test]
    fn jwt_key_is_hkdf_sha256_of_the_secret() {
        let key = jwt_key(b"secretsecret");
        let hex: String = key.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(hex, JWT_KEY_OF_SECRETSECRET);
    }

    const JWT_KEY_OF_SECRETSECRET: &str =
        "41e0ef4aca2aeae8a5866a335ec12f4acf1f07eae7b2cae2e4ce627080daa77b";

    #[test]
    fn without_a_key_the_error_is_htcondors() {
        let dir = tempfile::tempdir().unwrap();
        let config = pool(dir.path());
        let err = generate(&config, &TokenRequest::default(), 0).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "TOKEN:1:Failed to read file {}/passwords.d/POOL securely.",
                dir.path().display()
            )
        );
    }
}
