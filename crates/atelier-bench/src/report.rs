//! Results: one [`Row`] per (scale, operation), the medians and targets that
//! decide it, the printed table and the `--json` file.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, Result};

/// What the ratio ours/reference must satisfy.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Target {
    /// Times: lower is better.
    AtMost(f64),
    /// Throughputs: higher is better.
    AtLeast(f64),
    /// No target: a row that explains another (what bounds it), printed
    /// with the table but not counted among the targets.
    Context,
}

/// What the values of a row measure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unit {
    Millis,
    MegabytesPerSecond,
}

/// One measured comparison.
#[derive(Debug, Clone)]
pub(crate) struct Row {
    pub(crate) scale: &'static str,
    pub(crate) operation: String,
    pub(crate) reference: String,
    pub(crate) unit: Unit,
    pub(crate) ours: Vec<f64>,
    pub(crate) theirs: Vec<f64>,
    pub(crate) target: Target,
}

/// The median (mean of the middle two for an even count); NaN if empty.
pub(crate) fn median(samples: &[f64]) -> f64 {
    let mut v = samples.to_vec();
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

impl Row {
    pub(crate) fn ours_median(&self) -> f64 {
        median(&self.ours)
    }

    pub(crate) fn theirs_median(&self) -> f64 {
        median(&self.theirs)
    }

    pub(crate) fn ratio(&self) -> f64 {
        self.ours_median() / self.theirs_median()
    }

    pub(crate) fn ok(&self) -> bool {
        let r = self.ratio();
        match self.target {
            Target::AtMost(t) => r <= t,
            Target::AtLeast(t) => r >= t,
            Target::Context => true,
        }
    }

    fn has_target(&self) -> bool {
        !matches!(self.target, Target::Context)
    }

    fn value(&self, v: f64) -> String {
        match self.unit {
            Unit::Millis => format!("{v:.1}"),
            Unit::MegabytesPerSecond => format!("{v:.0} MB/s"),
        }
    }

    fn target_text(&self) -> String {
        match self.target {
            Target::AtMost(t) => format!("≤{t:.2}"),
            Target::AtLeast(t) => format!("≥{t:.2}"),
            Target::Context => "—".to_owned(),
        }
    }
}

/// The table, one line per row, then `N of M targets met`.
pub(crate) fn table(rows: &[Row]) -> String {
    let header = [
        "scale",
        "operation",
        "ours (ms)",
        "reference",
        "ref (ms)",
        "ratio",
        "target",
        "ok",
    ];
    let cells: Vec<[String; 8]> = rows
        .iter()
        .map(|r| {
            [
                r.scale.to_owned(),
                r.operation.clone(),
                r.value(r.ours_median()),
                r.reference.clone(),
                r.value(r.theirs_median()),
                format!("{:.2}", r.ratio()),
                r.target_text(),
                match (r.has_target(), r.ok()) {
                    (false, _) => "",
                    (true, true) => "yes",
                    (true, false) => "no",
                }
                .to_owned(),
            ]
        })
        .collect();
    let mut widths = header.map(|h| h.chars().count());
    for row in &cells {
        for (w, c) in widths.iter_mut().zip(row) {
            *w = (*w).max(c.chars().count());
        }
    }
    // Text columns are left-aligned, numbers right-aligned.
    let right = [false, false, true, false, true, true, true, false];
    let mut out = String::new();
    let mut line = |cols: &[String]| {
        let mut s = String::new();
        for (i, c) in cols.iter().enumerate() {
            let pad = widths[i].saturating_sub(c.chars().count());
            if i > 0 {
                s.push_str("  ");
            }
            if right[i] {
                s.push_str(&" ".repeat(pad));
                s.push_str(c);
            } else {
                s.push_str(c);
                s.push_str(&" ".repeat(pad));
            }
        }
        let _ = writeln!(out, "{}", s.trim_end());
    };
    line(&header.map(str::to_owned));
    for row in &cells {
        line(row);
    }
    let targets = rows.iter().filter(|r| r.has_target());
    let met = targets.clone().filter(|r| r.ok()).count();
    let _ = writeln!(out, "{met} of {} targets met", targets.count());
    out
}

/// Writes the rows (medians, samples, targets) and the run's context as JSON.
pub(crate) fn write_json(path: &Path, rows: &[Row], context: serde_json::Value) -> Result<()> {
    let rows: Vec<serde_json::Value> = rows
        .iter()
        .map(|r| {
            let target = match r.target {
                Target::AtMost(t) => serde_json::json!({ "kind": "at_most", "ratio": t }),
                Target::AtLeast(t) => serde_json::json!({ "kind": "at_least", "ratio": t }),
                Target::Context => serde_json::Value::Null,
            };
            serde_json::json!({
                "scale": r.scale,
                "operation": r.operation,
                "reference": r.reference,
                "unit": match r.unit { Unit::Millis => "ms", Unit::MegabytesPerSecond => "MB/s" },
                "ours": r.ours_median(),
                "ref": r.theirs_median(),
                "ratio": r.ratio(),
                "target": target,
                "ok": r.ok(),
                "ours_samples": r.ours,
                "ref_samples": r.theirs,
            })
        })
        .collect();
    let doc = serde_json::json!({ "context": context, "rows": rows });
    let text = serde_json::to_string_pretty(&doc).context("encode JSON")?;
    std::fs::write(path, text + "\n").with_context(|| format!("write {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert!(median(&[]).is_nan());
    }

    #[test]
    fn targets() {
        let row = |ours: f64, target| Row {
            scale: "a",
            operation: "x".into(),
            reference: "y".into(),
            unit: Unit::Millis,
            ours: vec![ours],
            theirs: vec![10.0],
            target,
        };
        assert!(row(12.0, Target::AtMost(1.2)).ok());
        assert!(!row(12.1, Target::AtMost(1.2)).ok());
        assert!(row(7.0, Target::AtLeast(0.7)).ok());
        assert!(table(&[row(1.0, Target::AtMost(1.0))]).ends_with("1 of 1 targets met\n"));
        // A context row is shown but neither met nor missed.
        let t = table(&[row(1.0, Target::AtMost(1.0)), row(99.0, Target::Context)]);
        assert!(t.contains("—"), "{t}");
        assert!(t.ends_with("1 of 1 targets met\n"), "{t}");
    }
}
