//! What a bundle's report says in words: the tools whose arguments come
//! from their functions' signatures, and what installing it will run.
#![allow(clippy::print_stdout)]

use atelier_core::toolsets::records::{ExportedTool, WillRun};
use atelier_core::toolsets::validate::requirement;
use serde_json::Value;

use crate::output;

/// Tools with arguments derived from their signatures, under `heading`:
/// `t:count_lines(path: string, top?: integer|null) — Counts lines.`
pub(super) fn print_exported(heading: &str, toolset: &str, exported: &[ExportedTool]) {
    if exported.is_empty() {
        return;
    }
    println!("{heading}");
    for t in exported {
        let schema = &t.input_schema;
        let required: Vec<&str> = schema["required"]
            .as_array()
            .map(|r| r.iter().filter_map(|v| v.as_str()).collect())
            .unwrap_or_default();
        let args: Vec<String> = schema["properties"]
            .as_object()
            .map(|props| {
                props
                    .iter()
                    .map(|(name, p)| {
                        let ty = type_words(p);
                        let opt = if required.contains(&name.as_str()) { "" } else { "?" };
                        format!("{name}{opt}: {ty}")
                    })
                    .collect()
            })
            .unwrap_or_default();
        let about = if t.description.is_empty() {
            String::new()
        } else {
            format!(" — {}", output::shown(t.description.lines().next().unwrap_or_default()))
        };
        println!(
            "  {}:{}({}){about}",
            output::shown(toolset),
            output::shown(&t.name),
            output::shown(&args.join(", "))
        );
    }
}

pub(super) fn print_will_run(w: &WillRun) {
    use output::shown;
    println!("It will run, with your rights:");
    if w.python_entrypoints.is_empty() && w.mcp_servers.is_empty() {
        println!("  (nothing)");
    }
    for e in &w.python_entrypoints {
        let asks = if e.requires_confirmation { "  (asks first)" } else { "" };
        println!("  python  {:<32} {}{asks}", shown(&e.tool_id), shown(&e.entrypoint));
    }
    if let Some(file) = &w.requirements_file {
        println!(
            "  (its requirements, read from {}: the manifest lists none)",
            shown(file)
        );
    }
    for r in &w.requirements {
        // Its release; the hashes (often dozens, one per wheel) are in the
        // bundle's requirements.txt.
        let checked = if requirement::is_hash_pinned(r) {
            "  (hash-checked)"
        } else {
            ""
        };
        println!("  pip     {}{checked}", shown(requirement::spec(r)));
    }
    for s in &w.mcp_servers {
        match (&s.command, &s.url) {
            (Some(c), _) => {
                let line: Vec<String> = std::iter::once(c).chain(&s.args).map(|a| output::arg(a)).collect();
                println!("  mcp     {:<32} {}", shown(&s.id), line.join(" "));
            }
            (None, Some(u)) => println!("  mcp     {:<32} {}", shown(&s.id), shown(u)),
            _ => {}
        }
        // Names, and only values made of references: a plain value may be
        // a secret.
        for (what, values) in [("env", &s.env), ("header", &s.headers)] {
            for v in values {
                let value = v.shown.as_deref().map_or("(a value is set; not shown)".into(), shown);
                println!("            {what} {} = {value}", shown(&v.name));
            }
        }
    }
}

/// An argument's type as one short word list: `string`, `integer|null`,
/// a Literal's values (`"m"|"km"`), a union's types, else `any`.
fn type_words(p: &Value) -> String {
    let joined = |items: &Value, word: fn(&Value) -> String| {
        items
            .as_array()
            .into_iter()
            .flatten()
            .map(word)
            .collect::<Vec<_>>()
            .join("|")
    };
    match &p["type"] {
        Value::String(s) => s.clone(),
        Value::Array(_) => joined(&p["type"], |v| v.as_str().unwrap_or_default().to_owned()),
        _ if p["enum"].is_array() => joined(&p["enum"], Value::to_string),
        _ if p["anyOf"].is_array() => joined(&p["anyOf"], |a| a["type"].as_str().unwrap_or("any").to_owned()),
        _ => "any".into(),
    }
}
