//! Checks of `user_config` (the settings a person gives at install) and of
//! the references MCP servers make to it and to secrets.

use indexmap::IndexMap;
use serde_json::{Map, Value};

use super::{Checker, describe, join};
use crate::toolsets::config::refs::{self, Piece};
use crate::toolsets::manifest::{ConfigType, McpServerDecl, UserConfigDecl};

pub(super) fn check_user_config(c: &mut Checker<'_>, v: Option<&Value>) -> IndexMap<String, UserConfigDecl> {
    let mut out = IndexMap::new();
    let items = match v {
        None | Some(Value::Null) => return out,
        Some(Value::Object(m)) => m,
        Some(other) => {
            c.error(
                "user_config",
                format!(
                    "expected a mapping of setting keys to their definitions, got {}",
                    describe(other)
                ),
            );
            return out;
        }
    };
    for (key, def) in items {
        let path = join("user_config", key);
        if !refs::is_key(key) {
            c.push(
                super::Severity::Error,
                &path,
                format!("{key:?} is not a setting key: use letters, digits and `_`, starting with a letter or `_`"),
                true,
            );
        }
        if let Some(d) = check_one(c, &path, def) {
            out.insert(key.clone(), d);
        }
    }
    out
}

pub(crate) const CONFIG_KEYS: &[&str] = &[
    "type",
    "title",
    "description",
    "required",
    "default",
    "sensitive",
    "min",
    "max",
    "multiple",
];

fn number(c: &mut Checker<'_>, obj: &Map<String, Value>, path: &str, key: &str) -> Option<f64> {
    match obj.get(key) {
        None | Some(Value::Null) => None,
        Some(Value::Number(n)) => n.as_f64(),
        Some(other) => {
            c.error(&join(path, key), format!("expected a number, got {}", describe(other)));
            None
        }
    }
}

fn check_one(c: &mut Checker<'_>, path: &str, v: &Value) -> Option<UserConfigDecl> {
    let Value::Object(d) = v else {
        c.error(
            path,
            format!(
                "expected a setting (a mapping with type and title), got {}",
                describe(v)
            ),
        );
        return None;
    };
    let kind = c.string(d, path, "type", true).and_then(|t| {
        ConfigType::parse(&t).or_else(|| {
            c.error(
                &join(path, "type"),
                format!("{t:?} is not a setting type: use string, number, boolean, directory or file"),
            );
            None
        })
    });
    let title = c.string(d, path, "title", true);
    let description = c.string(d, path, "description", false).unwrap_or_default();
    let required = c.bool(d, path, "required", false);
    let sensitive = c.bool(d, path, "sensitive", false);
    let multiple = c.bool(d, path, "multiple", false);
    let min = number(c, d, path, "min");
    let max = number(c, d, path, "max");
    let default = d.get("default").filter(|v| !v.is_null()).cloned();
    c.warn_unknown(d, path, CONFIG_KEYS);
    let kind = kind?;
    if sensitive && kind != ConfigType::String {
        c.error(&join(path, "sensitive"), "only a string setting can be sensitive");
    }
    if multiple && !matches!(kind, ConfigType::Directory | ConfigType::File) {
        c.error(
            &join(path, "multiple"),
            "only directory and file settings take several values",
        );
    }
    if (min.is_some() || max.is_some()) && kind != ConfigType::Number {
        c.error(path, "`min` and `max` apply to number settings only");
    }
    if let (Some(lo), Some(hi)) = (min, max)
        && lo > hi
    {
        c.error(&join(path, "min"), format!("min {lo} is above max {hi}"));
    }
    if sensitive && default.is_some() {
        c.error(
            &join(path, "default"),
            "a sensitive setting cannot have a default: it would be a secret in plain text",
        );
    }
    let decl = UserConfigDecl {
        kind,
        title: title?,
        description,
        required,
        default,
        sensitive,
        min,
        max,
        multiple,
    };
    if let Some(dv) = &decl.default
        && let Err(e) = super::super::config::values::check_value(&decl, dv)
    {
        c.error(&join(path, "default"), format!("the default {e}"));
    }
    Some(decl)
}

/// Every `${…}` in a server's launch fields parses, and names a declared
/// setting; `headers` belong to `url` servers.
pub(super) fn check_server_refs(
    c: &mut Checker<'_>,
    path: &str,
    s: &McpServerDecl,
    config: &IndexMap<String, UserConfigDecl>,
) {
    let mut fields: Vec<(String, &str)> = Vec::new();
    if let Some(cmd) = &s.command {
        fields.push((join(path, "command"), cmd));
    }
    if let Some(url) = &s.url {
        fields.push((join(path, "url"), url));
    }
    fields.extend(
        s.args
            .iter()
            .enumerate()
            .map(|(i, a)| (format!("{path}.args[{i}]"), a.as_str())),
    );
    fields.extend(s.env.iter().map(|(k, v)| (join(&join(path, "env"), k), v.as_str())));
    fields.extend(
        s.headers
            .iter()
            .map(|(k, v)| (join(&join(path, "headers"), k), v.as_str())),
    );
    if !s.headers.is_empty() && s.url.is_none() {
        c.error(
            &join(path, "headers"),
            "`headers` are sent to a `url` server; this server has a `command`",
        );
    }
    for (p, value) in fields {
        match refs::parse(value) {
            Err(e) => c.error(&p, e),
            Ok(pieces) => {
                for piece in pieces {
                    if let Piece::Config(key) = piece {
                        match config.get(key) {
                            None => c.error(
                                &p,
                                format!("`${{user_config.{key}}}` names no setting in `user_config`"),
                            ),
                            Some(d)
                                if d.multiple && !(p.contains(".args[") && refs::whole_config(value) == Some(key)) =>
                            {
                                c.error(
                                    &p,
                                    format!("`{key}` takes several values: use it alone as one whole `args` item"),
                                )
                            }
                            Some(_) => {}
                        }
                    }
                }
            }
        }
    }
}
