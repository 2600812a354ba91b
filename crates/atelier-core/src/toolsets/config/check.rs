//! The typed checks of a setting's value (`user_config`): its type, its
//! range, paths that exist; and `~` / `${HOME}` in paths.

use std::path::Path;

use serde_json::Value;

use crate::toolsets::manifest::{ConfigType, UserConfigDecl};

fn expect(kind: &str, v: &Value) -> String {
    format!("must be {kind}, got {}", short(v))
}

fn short(v: &Value) -> String {
    match v {
        Value::String(s) => format!("{s:?}"),
        other => other.to_string(),
    }
}

/// Checks a value against its definition; the normalized value, or why
/// not (a sentence that follows the setting's name).
pub fn check_value(decl: &UserConfigDecl, v: &Value) -> std::result::Result<Value, String> {
    match decl.kind {
        ConfigType::String => match v {
            Value::String(_) => Ok(v.clone()),
            other => Err(expect("a string", other)),
        },
        // A form field or a command line gives text: "3", "true".
        ConfigType::Boolean => match v {
            Value::Bool(_) => Ok(v.clone()),
            Value::String(s) => match s.trim() {
                "true" | "yes" | "1" => Ok(Value::Bool(true)),
                "false" | "no" | "0" => Ok(Value::Bool(false)),
                _ => Err(expect("true or false", v)),
            },
            other => Err(expect("true or false", other)),
        },
        ConfigType::Number => {
            let typed = match v {
                Value::String(s) => parse_number(s),
                Value::Number(_) => Some(v.clone()),
                _ => None,
            }
            .ok_or_else(|| expect("a number", v))?;
            let n = typed.as_f64().ok_or_else(|| expect("a number", v))?;
            let range = match (decl.min, decl.max) {
                (Some(lo), Some(hi)) => format!("a number from {lo} to {hi}"),
                (Some(lo), None) => format!("a number of at least {lo}"),
                (None, Some(hi)) => format!("a number of at most {hi}"),
                (None, None) => String::new(),
            };
            if decl.min.is_some_and(|lo| n < lo) || decl.max.is_some_and(|hi| n > hi) {
                return Err(expect(&range, v));
            }
            Ok(typed)
        }
        ConfigType::Directory | ConfigType::File => {
            let what = if decl.kind == ConfigType::File {
                "file"
            } else {
                "directory"
            };
            let one = |x: &Value| match x {
                Value::String(s) if !s.trim().is_empty() => Ok(Value::String(s.clone())),
                other => Err(expect(&format!("a {what} path"), other)),
            };
            match (decl.multiple, v) {
                (true, Value::Array(items)) => items
                    .iter()
                    .map(one)
                    .collect::<std::result::Result<_, _>>()
                    .map(Value::Array),
                (true, single) => one(single).map(|s| Value::Array(vec![s])),
                (false, single) => one(single),
            }
        }
    }
}

/// A number typed as text (a form field, the command line, a quoted
/// default): `3` stays an integer — Python gets `3`, which `range()` and
/// `round(x, n)` take, not `3.0` —, `2.5` or `1e3` a float.
fn parse_number(text: &str) -> Option<Value> {
    let t = text.trim();
    if !t.contains(['.', 'e', 'E']) {
        if let Ok(i) = t.parse::<i64>() {
            return Some(Value::from(i));
        }
        if let Ok(u) = t.parse::<u64>() {
            return Some(Value::from(u));
        }
    }
    let f = t.parse::<f64>().ok().filter(|f| f.is_finite())?;
    serde_json::Number::from_f64(f).map(Value::Number)
}

/// `~` and `${HOME}` at the start of a path, as MCPB defaults write them.
pub fn expand_home(p: &str) -> String {
    let home = dirs::home_dir().map(|h| h.display().to_string()).unwrap_or_default();
    if let Some(rest) = p.strip_prefix("${HOME}") {
        format!("{home}{rest}")
    } else if p == "~" || p.starts_with("~/") {
        format!("{home}{}", &p[1..])
    } else {
        p.to_owned()
    }
}

/// A directory or file setting names something that exists, by an absolute path.
pub(crate) fn check_exists(decl: &UserConfigDecl, v: &Value) -> std::result::Result<(), String> {
    if !matches!(decl.kind, ConfigType::Directory | ConfigType::File) {
        return Ok(());
    }
    let paths: Vec<&str> = match v {
        Value::String(s) => vec![s.as_str()],
        Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    for p in paths {
        let full = expand_home(p);
        let path = Path::new(&full);
        if !path.is_absolute() {
            return Err(format!("{p:?} is not an absolute path"));
        }
        let ok = if decl.kind == ConfigType::File {
            path.is_file()
        } else {
            path.is_dir()
        };
        if !ok {
            let what = if decl.kind == ConfigType::File {
                "file"
            } else {
                "directory"
            };
            return Err(format!("{p:?} is not an existing {what}"));
        }
    }
    Ok(())
}

/// A stored or default value with `~` / `${HOME}` expanded in paths, and
/// a number default written as text (`default: "3"`) as the number.
pub(crate) fn expand_value(decl: &UserConfigDecl, v: &Value) -> Value {
    match (decl.kind, v) {
        (ConfigType::Number, Value::String(s)) => parse_number(s).unwrap_or_else(|| v.clone()),
        (ConfigType::Directory | ConfigType::File, Value::String(s)) => Value::String(expand_home(s)),
        (ConfigType::Directory | ConfigType::File, Value::Array(a)) => Value::Array(
            a.iter()
                .map(|x| x.as_str().map_or_else(|| x.clone(), |s| Value::String(expand_home(s))))
                .collect(),
        ),
        _ => v.clone(),
    }
}
