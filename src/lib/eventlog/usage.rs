//! The "Partitionable Resources" table of terminated and evicted events: how it is built from
//! a job ad (`setEventUsageAd`), printed (`formatUsageAd`) and read back (`UsageLineParser`),
//! in condor_event.cpp.

use crate::classad::ad::cmp_ignore_case;
use crate::classad::parser::parse_old_expr;
use crate::classad::unparse::expr_to_old_string;
use crate::classad::{eval_expr, ClassAd, Expr, Value};

use super::event::ResourceUsage;

/// A column's text for one value: reals as `%.2f` when they have a fraction and as integers
/// when not, anything else as old-syntax ClassAd text. The flag says whether it has a fraction.
fn cell(e: &Expr) -> (String, bool) {
    if let Expr::Lit(Value::Real(r)) = e {
        let whole = r.trunc();
        if r - whole > 0.0 {
            return (format!("{r:.2}"), true);
        }
        return (format!("{}", whole as i64), false);
    }
    (expr_to_old_string(e), false)
}

/// Integer cells of a column that has fractions get three spaces, to line up with the dots.
fn bare_integer(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|c| c.is_ascii_digit())
}

/// The label a resource is printed under.
fn label(name: &str) -> String {
    let unit = match name {
        "Memory" | "GpusMemory" => " (MB)",
        "Disk" => " (KB)",
        // One resource with two metrics cannot be shown otherwise.
        "Gpus" => " (Average)",
        "TimeExecute" | "TimeSlotBusy" => " (s)",
        _ => "",
    };
    format!("{name}{unit}")
}

/// Appends the table (nothing when there are no rows). Rows print sorted by name, case
/// folded; column widths grow to fit.
pub(crate) fn format_usage(out: &mut String, rows: &[ResourceUsage]) {
    if rows.is_empty() {
        return;
    }
    struct Cells {
        label: String,
        name_len: usize,
        cols: [String; 4],
    }
    let mut sorted: Vec<&ResourceUsage> = rows.iter().collect();
    sorted.sort_by(|a, b| cmp_ignore_case(&a.name, &b.name));
    // Which columns hold a value with a fraction. The reference sets the Assigned flag from
    // the last assigned value only, not from any.
    let mut hfp = [false; 4];
    let mut cells: Vec<Cells> = sorted
        .iter()
        .map(|r| {
            let mut cols: [String; 4] = Default::default();
            for (i, e) in [&r.usage, &r.request, &r.allocated, &r.assigned]
                .into_iter()
                .enumerate()
            {
                if let Some(e) = e {
                    let (text, frac) = cell(e);
                    cols[i] = text;
                    if i == 3 {
                        hfp[3] = frac;
                    } else {
                        hfp[i] |= frac;
                    }
                }
            }
            Cells {
                label: label(&r.name),
                name_len: r.name.len(),
                cols,
            }
        })
        .collect();
    // sizeof("Memory (MB)"), counting its NUL.
    let mut width_name = 12;
    let mut widths = [8, 8, 0, 0];
    for c in &mut cells {
        for i in 0..4 {
            if hfp[i] && bare_integer(&c.cols[i]) {
                c.cols[i].push_str("   ");
            }
            widths[i] = widths[i].max(c.cols[i].len());
        }
        width_name = width_name.max(c.name_len);
    }
    let alloc_width = widths[2].max(9);
    out.push_str(&format!(
        "\tPartitionable Resources : {:>w0$} {:>w1$} {:>w2$} {}\n",
        "Usage",
        "Request",
        if widths[2] > 0 { "Allocated" } else { "" },
        if widths[3] > 0 { "Assigned" } else { "" },
        w0 = widths[0],
        w1 = widths[1],
        w2 = alloc_width,
    ));
    for c in cells.iter().filter(|c| c.name_len > 0) {
        out.push_str(&format!(
            "\t   {:<wn$} : {:>w0$} {:>w1$} {:>w2$} {}\n",
            c.label,
            c.cols[0],
            c.cols[1],
            c.cols[2],
            c.cols[3],
            wn = width_name + 8,
            w0 = widths[0],
            w1 = widths[1],
            w2 = alloc_width,
        ));
    }
}

/// Whether a body line starts the table.
pub(crate) fn is_table_header(line: &str) -> bool {
    line.starts_with("\tPartitionable ") || line.starts_with("\tResources")
}

/// The column edges of a table, taken from its header line as the reference does, so that
/// empty cells and values wider than the header still land in the right column.
pub(crate) struct UsageColumns {
    use_end: usize,
    req_end: usize,
    alloc_end: Option<usize>,
    assigned_start: Option<usize>,
}

impl UsageColumns {
    pub(crate) fn from_header(header: &str) -> UsageColumns {
        let table = header
            .find(':')
            .map_or(&header[1.min(header.len())..], |i| &header[i + 1..]);
        let b = table.as_bytes();
        let mut p = 0;
        let skip = |p: &mut usize, space: bool| {
            while *p < b.len() && (b[*p] == b' ') == space {
                *p += 1;
            }
        };
        skip(&mut p, true);
        skip(&mut p, false);
        let use_end = p + 1;
        skip(&mut p, true);
        skip(&mut p, false);
        let req_end = p + 1;
        skip(&mut p, true);
        let mut alloc_end = None;
        let mut assigned_start = None;
        if p < b.len() {
            if let Some(a) = table[p..].find("Allocated") {
                let a = p + a;
                alloc_end = Some(a + 9);
                assigned_start = table[a..].find("Assigned").map(|s| a + s);
            }
        }
        UsageColumns {
            use_end,
            req_end,
            alloc_end,
            assigned_start,
        }
    }

    /// Reads one row; `None` when the line is not a row (it has no colon).
    pub(crate) fn parse_row(&self, line: &str) -> Option<ResourceUsage> {
        let start = line.trim_start_matches(['\t', ' ']);
        let name_len = start.find([' ', ':']).unwrap_or(start.len());
        let name = &start[..name_len];
        let colon = start[name_len..].find(':')? + name_len;
        let table = &start[colon + 1..];
        let slice = |from: usize, to: usize| {
            let to = to.min(table.len());
            let from = from.min(to);
            // A cell that is blank or not an expression is left out, as AssignExpr does.
            table
                .get(from..to)
                .and_then(|t| parse_old_expr(t.trim()).ok())
        };
        Some(ResourceUsage {
            name: name.to_string(),
            usage: slice(0, self.use_end),
            request: slice(self.use_end, self.req_end),
            allocated: self.alloc_end.and_then(|end| slice(self.req_end, end)),
            assigned: self.assigned_start.and_then(|s| slice(s, table.len())),
        })
    }
}

/// Capitalises each word, lower-casing the rest (`title_case`).
fn title_case(s: &str) -> String {
    let mut upper = true;
    s.chars()
        .map(|c| {
            let out = if upper {
                c.to_ascii_uppercase()
            } else {
                c.to_ascii_lowercase()
            };
            upper = c.is_ascii_whitespace();
            out
        })
        .collect()
}

/// The table a terminated or evicted event reports for a job, from its ad: for each resource
/// of `ProvisionedResources` (default `Cpus, Disk, Memory`) the provisioned amount, the
/// request, the usage (the average where the job ad has one) and the assigned instances, plus
/// GPU memory, and the activation times as `TimeExecute` and `TimeSlotBusy` usage.
pub fn usage_from_job_ad(job: &ClassAd) -> Vec<ResourceUsage> {
    let resources = job
        .lookup("ProvisionedResources")
        .and_then(|e| eval_expr(e, Some(job), None).ok())
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_else(|| "Cpus, Disk, Memory".to_string());
    // Only scalars are copied into the table.
    let scalar = |attr: &str| -> Option<Expr> {
        let v = eval_expr(job.lookup(attr)?, Some(job), None).ok()?;
        matches!(
            v,
            Value::Error | Value::Bool(_) | Value::Int(_) | Value::Real(_)
        )
        .then(|| Expr::Lit(v))
    };
    let mut rows: Vec<ResourceUsage> = Vec::new();
    fn row<'r>(rows: &'r mut Vec<ResourceUsage>, name: &str) -> &'r mut ResourceUsage {
        let i = match rows.iter().position(|r| r.name.eq_ignore_ascii_case(name)) {
            Some(i) => i,
            None => {
                rows.push(ResourceUsage {
                    name: name.to_string(),
                    ..Default::default()
                });
                rows.len() - 1
            }
        };
        &mut rows[i]
    }
    for name in resources
        .split([',', ' ', '\t', '\r', '\n'])
        .filter(|s| !s.is_empty())
    {
        let res = title_case(name);
        if let Some(e) = scalar(&format!("{res}Provisioned")) {
            row(&mut rows, name).allocated = Some(e);
        }
        if let Some(e) = scalar(&format!("Request{res}")) {
            row(&mut rows, &res).request = Some(e);
        }
        for usage in [format!("{res}Usage"), format!("{res}AverageUsage")] {
            if let Some(e) = scalar(&usage) {
                row(&mut rows, &res).usage = Some(e);
            }
        }
        for usage in [
            format!("{res}MemoryUsage"),
            format!("{res}MemoryAverageUsage"),
        ] {
            if let Some(e) = scalar(&usage) {
                row(&mut rows, &format!("{res}Memory")).usage = Some(e);
            }
        }
        if let Some(e) = job.lookup(&format!("Assigned{res}")) {
            row(&mut rows, &res).assigned = Some(e.clone());
        }
    }
    if !rows.is_empty() {
        for (name, attr) in [
            ("TimeExecute", "ActivationExecutionDuration"),
            ("TimeSlotBusy", "ActivationDuration"),
        ] {
            if let Some(Value::Int(n)) = job
                .lookup(attr)
                .and_then(|e| eval_expr(e, Some(job), None).ok())
            {
                row(&mut rows, name).usage = Some(Expr::lit(n));
            }
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classad::parse_old_ad;

    fn lit(s: &str) -> Option<Expr> {
        Some(parse_old_expr(s).unwrap())
    }

    fn row(name: &str, u: &str, r: &str, a: &str, s: &str) -> ResourceUsage {
        let o = |t: &str| if t.is_empty() { None } else { lit(t) };
        ResourceUsage {
            name: name.into(),
            usage: o(u),
            request: o(r),
            allocated: o(a),
            assigned: o(s),
        }
    }

    #[test]
    fn the_table_as_condor_event_prints_it() {
        let rows = vec![
            row("Memory", "0", "128", "128", ""),
            row("Cpus", "0", "1", "1", ""),
            row("Disk", "36", "1024", "1034424", ""),
        ];
        let mut out = String::new();
        format_usage(&mut out, &rows);
        assert_eq!(
            out,
            "\tPartitionable Resources :    Usage  Request Allocated \n\
             \t   Cpus                 :        0        1         1 \n\
             \t   Disk (KB)            :       36     1024   1034424 \n\
             \t   Memory (MB)          :        0      128       128 \n"
        );
    }

    #[test]
    fn fractions_pad_integers_and_assigned_gets_a_column() {
        let rows = vec![
            row("Cpus", "0.25", "1", "1", ""),
            row("Gpus", "0.5", "1", "1", "\"GPU-ab12\""),
            row("Memory", "", "128", "", ""),
        ];
        let mut out = String::new();
        format_usage(&mut out, &rows);
        assert_eq!(
            out,
            "\tPartitionable Resources :    Usage  Request Allocated Assigned\n\
             \t   Cpus                 :     0.25        1         1 \n\
             \t   Gpus (Average)       :     0.50        1         1 \"GPU-ab12\"\n\
             \t   Memory (MB)          :               128           \n"
        );
        // and it reads back, blank cells and all
        let mut lines = out.lines();
        let cols = UsageColumns::from_header(lines.next().unwrap());
        let back: Vec<ResourceUsage> = lines.map(|l| cols.parse_row(l).unwrap()).collect();
        assert_eq!(back, rows);
    }

    #[test]
    fn a_job_ad_gives_its_table() {
        let job = parse_old_ad(
            "RequestCpus = 1\nCpusProvisioned = 2\nCpusUsage = 0.5\nRequestMemory = 64 * 2\n\
             MemoryUsage = 3\nRequestDisk = 1024\nDiskProvisioned = 2048\nDiskUsage = 5\n\
             ActivationDuration = 9\n",
        )
        .unwrap();
        let rows = usage_from_job_ad(&job);
        assert_eq!(
            rows,
            vec![
                row("Cpus", "0.5", "1", "2", ""),
                row("Disk", "5", "1024", "2048", ""),
                row("Memory", "3", "128", "", ""),
                row("TimeSlotBusy", "9", "", "", ""),
            ]
        );
    }
}
