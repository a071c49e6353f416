//! Whole ads as `-long`, `-json`, `-jsonl` and `-xml` print them: HTCondor's
//! `CondorClassAdListWriter` (src/condor_utils/compat_classad.cpp), which `condor_q` and
//! `condor_status` use, and the plainer printing `condor_history` does.
//!
//! Attributes are sorted without regard to case (HTCondor keeps them in a case-insensitive
//! set) unless the caller asks for the ad's own order; the chained cluster ad's attributes
//! are included; private attributes (claim ids, `_condor_priv*`) are left out where
//! HTCondor leaves them out.

use crate::classad::ad::cmp_ignore_case;
use crate::classad::unparse::{json_ad_attrs, write_expr, write_name, xml_ad_attrs, Syntax};
use crate::classad::{ClassAd, Expr};

pub use crate::classad::unparse::{XML_FOOTER, XML_HEADER};

/// The forms an ad can be printed in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AdFormat {
    /// `Name = value` lines, then an empty line.
    #[default]
    Long,
    /// A JSON array of multi-line objects.
    Json,
    /// One JSON object per line.
    JsonLines,
    /// HTCondor's XML document.
    Xml,
}

impl AdFormat {
    /// The format a `-long:<form>` qualifier names (`parseAdsFileFormat`), or `None`.
    pub fn from_name(name: &str) -> Option<AdFormat> {
        match name {
            "long" => Some(AdFormat::Long),
            "json" => Some(AdFormat::Json),
            "jsonl" => Some(AdFormat::JsonLines),
            "xml" => Some(AdFormat::Xml),
            _ => None,
        }
    }
}

/// HTCondor's private attributes (`ClassAdAttributeIsPrivateAny`), never shown.
pub fn is_private_attr(name: &str) -> bool {
    const PRIVATE: [&str; 6] = [
        "Capability",
        "ChildClaimIds",
        "ClaimId",
        "ClaimIdList",
        "ClaimIds",
        "TransferKey",
    ];
    PRIVATE.iter().any(|p| p.eq_ignore_ascii_case(name))
        || name
            .get(..12)
            .is_some_and(|p| p.eq_ignore_ascii_case("_condor_priv"))
}

/// Which attributes of an ad to print, and in what order.
#[derive(Clone, Copy, Debug)]
pub struct Selection<'a> {
    /// Only these attributes (`-attributes`), matched without regard to case.
    pub only: Option<&'a [String]>,
    /// Sorted case-insensitively (HTCondor's default) or in the ad's own order (`:nosort`).
    pub sorted: bool,
    /// Leave private attributes out.
    pub exclude_private: bool,
}

impl Default for Selection<'_> {
    fn default() -> Self {
        Selection {
            only: None,
            sorted: true,
            exclude_private: true,
        }
    }
}

/// The attributes of `ad` (its chained parent's included) a selection prints, in order.
pub fn select<'ad>(ad: &'ad ClassAd, sel: &Selection<'_>) -> Vec<(&'ad str, &'ad Expr)> {
    let mut attrs: Vec<(&str, &Expr)> = ad
        .iter()
        .filter(|(n, _)| !(sel.exclude_private && is_private_attr(n)))
        .filter(|(n, _)| {
            sel.only
                .is_none_or(|only| only.iter().any(|o| o.eq_ignore_ascii_case(n)))
        })
        .collect();
    if sel.sorted {
        attrs.sort_by(|a, b| cmp_ignore_case(a.0, b.0));
    }
    attrs
}

/// `Name = value` lines (old ClassAd syntax), as `sPrintAdAttrs` writes them.
pub fn write_long(out: &mut String, attrs: &[(&str, &Expr)]) {
    for (name, e) in attrs {
        write_name(out, name, Syntax::Old);
        out.push_str(" = ");
        write_expr(out, e, Syntax::Old);
        out.push('\n');
    }
}

/// HTCondor's `CondorClassAdListWriter`: writes ads one after another with the list's
/// header, separators and footer.
#[derive(Debug, Default)]
pub struct AdListWriter {
    format: AdFormat,
    written: usize,
    wrote_header: bool,
}

impl AdListWriter {
    pub fn new(format: AdFormat) -> AdListWriter {
        AdListWriter {
            format,
            written: 0,
            wrote_header: false,
        }
    }

    pub fn format(&self) -> AdFormat {
        self.format
    }

    /// How many non-empty ads were written.
    pub fn count(&self) -> usize {
        self.written
    }

    /// Appends one ad (`appendAd`); an ad with nothing to print writes nothing.
    pub fn append(&mut self, out: &mut String, ad: &ClassAd, sel: &Selection<'_>) {
        let attrs = select(ad, sel);
        self.append_attrs(out, &attrs);
    }

    /// Appends one ad given as its attributes, in the order to print them.
    pub fn append_attrs(&mut self, out: &mut String, attrs: &[(&str, &Expr)]) {
        if attrs.is_empty() {
            return;
        }
        match self.format {
            AdFormat::Long => {
                write_long(out, attrs);
                out.push('\n');
            }
            AdFormat::Json => {
                out.push_str(if self.written > 0 { ",\n" } else { "[\n" });
                json_ad_attrs(out, attrs.iter().copied(), 0, false);
                out.push('\n');
                self.wrote_header = true;
            }
            AdFormat::JsonLines => {
                json_ad_attrs(out, attrs.iter().copied(), 0, true);
                out.push('\n');
            }
            AdFormat::Xml => {
                if self.written == 0 {
                    out.push_str(XML_HEADER);
                }
                xml_ad_attrs(out, attrs.iter().copied());
                self.wrote_header = true;
            }
        }
        self.written += 1;
    }

    /// The end of the list (`appendFooter`): `]` after JSON ads (nothing when there were
    /// none), the XML footer (and, when `xml_always`, the header too if no ad wrote it).
    pub fn footer(&mut self, out: &mut String, xml_always: bool) {
        match self.format {
            AdFormat::Xml => {
                if !self.wrote_header {
                    if !xml_always {
                        return;
                    }
                    out.push_str(XML_HEADER);
                }
                out.push_str(XML_FOOTER);
            }
            AdFormat::Json if self.written > 0 => out.push_str("]\n"),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classad::parse_ad;

    fn job() -> ClassAd {
        let mut proc_ad = parse_ad(r#"[ ProcId = 0; b = "x"; ClaimId = "secret" ]"#).unwrap();
        proc_ad.chain_to(parse_ad(r#"[ ClusterId = 1; A = 2.0; Cmd = "/bin/sleep" ]"#).unwrap());
        proc_ad
    }

    #[test]
    fn long_is_sorted_without_case_and_private_attrs() {
        let mut w = AdListWriter::new(AdFormat::Long);
        let mut out = String::new();
        w.append(&mut out, &job(), &Selection::default());
        assert_eq!(
            out,
            "A = 2.0\nb = \"x\"\nClusterId = 1\nCmd = \"/bin/sleep\"\nProcId = 0\n\n"
        );
    }

    #[test]
    fn json_list_and_empty_list() {
        let mut w = AdListWriter::new(AdFormat::Json);
        let mut out = String::new();
        w.footer(&mut out, true);
        assert_eq!(out, "");
        let only = ["clusterid".to_owned()];
        let sel = Selection {
            only: Some(&only),
            ..Selection::default()
        };
        w.append(&mut out, &job(), &sel);
        w.append(&mut out, &job(), &sel);
        w.footer(&mut out, true);
        assert_eq!(
            out,
            "[\n{\n  \"ClusterId\": 1\n}\n,\n{\n  \"ClusterId\": 1\n}\n]\n"
        );
    }

    #[test]
    fn xml_always_has_header_and_footer() {
        let mut w = AdListWriter::new(AdFormat::Xml);
        let mut out = String::new();
        w.footer(&mut out, true);
        assert_eq!(out, format!("{XML_HEADER}{XML_FOOTER}"));
    }
}
