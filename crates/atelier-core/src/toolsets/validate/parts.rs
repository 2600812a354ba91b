//! Checks of the nested parts of a manifest: tools (schema, renderer) and
//! MCP servers.

use std::collections::BTreeMap;

use serde_json::Value;

use super::{Checker, MAX_TIMEOUT_S, Severity, describe, entrypoint_module_files, is_tool_id, join};
use crate::toolsets::interp;
use crate::toolsets::manifest::{ATELIER_CONFIG, McpServerDecl, RendererDecl, RendererKind, ToolDecl};

pub(super) fn check_tool(c: &mut Checker<'_>, path: &str, v: &Value) -> Option<ToolDecl> {
    let Value::Object(t) = v else {
        c.error(
            path,
            format!(
                "expected a tool (a mapping with id, name, entrypoint…), got {}",
                describe(v)
            ),
        );
        return None;
    };
    let id = c.string(t, path, "id", true);
    if let Some(id) = &id
        && !is_tool_id(id)
    {
        c.error(
            &join(path, "id"),
            format!("{id:?} is not a valid tool id: use 1-64 of A-Z, a-z, 0-9, `_` and `-`"),
        );
    }
    let name = c.string(t, path, "name", false).or_else(|| id.clone());
    let description = c.string(t, path, "description", false).unwrap_or_default();
    // Without one, the entry adds to a tool a `tools_from:` module exports
    // (checked against `tools_from` by the caller, against the exports at
    // import).
    let entrypoint = c.string(t, path, "entrypoint", false);
    // `entrypoint: ~` (or a blank `entrypoint:`) is no entrypoint, as a
    // missing key is: an error unless a `tools_from` export is named.
    let overlay = matches!(t.get("entrypoint"), None | Some(Value::Null));
    if let Some(ep) = &entrypoint {
        match entrypoint_module_files(ep) {
            None => c.error(
                &join(path, "entrypoint"),
                format!("expected \"module.path:function\", got {ep:?}"),
            ),
            Some(candidates) if !candidates.iter().any(|f| c.files.contains(f)) => c.error(
                &join(path, "entrypoint"),
                format!(
                    "module file {:?} is not in the bundle (entry points are relative to the toolset root)",
                    candidates[0]
                ),
            ),
            Some(_) => {}
        }
    }
    let category = c.string(t, path, "category", false);
    let tags = c.string_list(t, path, "tags");
    let requires_confirmation = c.bool(t, path, "requires_confirmation", false);
    let timeout_s = timeout(c, &join(path, "timeout_s"), t.get("timeout_s"));
    let input_schema = if overlay {
        if t.get("input_schema").is_some_and(|v| !v.is_null()) {
            c.error(
                &join(path, "input_schema"),
                "an entry without `entrypoint` adds to a tool a `tools_from:` module exports, whose arguments come from \
                 its function's signature: give no input_schema (or give an entrypoint)",
            );
        }
        Value::Null
    } else {
        check_schema(c, &join(path, "input_schema"), t.get("input_schema"))
    };
    let renderer = match t.get("renderer") {
        None | Some(Value::Null) => None,
        Some(r) => check_renderer(c, &join(path, "renderer"), r),
    };
    if let Some(r) = &renderer {
        check_args_refs(c, &join(path, "renderer"), &r.config, &input_schema);
    }
    let mut extra = c.warn_unknown(t, path, TOOL_KEYS);
    if !c.bool(t, path, "enabled", true) {
        // Seed 004 §1.3's `tools.enabled`: see `ToolDecl::enabled`.
        extra.insert("enabled".to_owned(), Value::Bool(false));
    }
    Some(ToolDecl {
        id: id?,
        name: name?,
        description,
        entrypoint: if overlay { String::new() } else { entrypoint? },
        category,
        tags,
        input_schema,
        requires_confirmation,
        timeout_s,
        renderer,
        extra,
    })
}

/// Warns about each `$args.x` in a renderer whose `x` the tool's
/// `input_schema` does not declare (a typo renders as nothing).
fn check_args_refs(c: &mut Checker<'_>, path: &str, config: &BTreeMap<String, Value>, schema: &Value) {
    let Some(Value::Object(props)) = schema.get("properties") else {
        return;
    };
    fn strings<'v>(v: &'v Value, at: String, out: &mut Vec<(String, &'v str)>) {
        match v {
            Value::String(s) => out.push((at, s)),
            Value::Array(a) => a
                .iter()
                .enumerate()
                .for_each(|(i, x)| strings(x, format!("{at}[{i}]"), out)),
            Value::Object(m) => m.iter().for_each(|(k, x)| strings(x, join(&at, k), out)),
            _ => {}
        }
    }
    let mut found = Vec::new();
    for (k, v) in config {
        strings(v, join(path, k), &mut found);
    }
    for (at, text) in found {
        let Ok(t) = interp::parse(text) else { continue };
        for part in t.parts {
            let interp::Part::Expr(e) = part else { continue };
            let (interp::Root::Args, Some(interp::Segment::Key(name))) = (e.root, e.path.first()) else {
                continue;
            };
            if props.contains_key(name) {
                continue;
            }
            let hint = super::did_you_mean(name, props.keys().map(String::as_str))
                .map(|m| format!("; did you mean `$args.{m}`?"))
                .unwrap_or_default();
            let declared: Vec<&str> = props.keys().map(String::as_str).collect();
            c.push(
                Severity::Warning,
                &at,
                format!(
                    "`{e}` is not an argument of this tool (its input_schema declares {}){hint}",
                    if declared.is_empty() {
                        "none".to_owned()
                    } else {
                        declared.join(", ")
                    }
                ),
                false,
            );
        }
    }
}

fn check_schema(c: &mut Checker<'_>, path: &str, v: Option<&Value>) -> Value {
    let schema = match v {
        None | Some(Value::Null) => return serde_json::json!({"type": "object", "properties": {}}),
        Some(s @ Value::Object(_)) => s.clone(),
        Some(other) => {
            c.error(path, format!("expected a JSON Schema object, got {}", describe(other)));
            return Value::Null;
        }
    };
    if let Some(t) = schema.get("type")
        && t != "object"
    {
        c.error(
            &join(path, "type"),
            format!("tool arguments are keyword arguments: the type must be \"object\", got {t}"),
        );
    }
    if schema.get("properties").and_then(|p| p.get("workspace")).is_some() {
        c.error(
            &join(path, "properties.workspace"),
            "`workspace` is reserved: every tool receives the chat's workspace folder as its first argument",
        );
    }
    if schema.get("properties").and_then(|p| p.get(ATELIER_CONFIG)).is_some() {
        c.error(
            &join(path, &format!("properties.{ATELIER_CONFIG}")),
            format!("`{ATELIER_CONFIG}` is reserved: a tool that declares it as a parameter receives its toolset's settings, which the model never sees"),
        );
    }
    // A typo in a `type` reads better in words than as the meta-schema's
    // complaint; the rest of the schema is only checked when there is none.
    let typos = type_typos(&schema, "");
    for (at, bad) in &typos {
        let hint = super::did_you_mean(bad, JSON_TYPES.iter().copied())
            .map(|m| format!(" (did you mean `{m}`?)"))
            .unwrap_or_default();
        c.error(
            &join(path, at),
            format!("unknown type `{bad}`{hint}: use one of {}", JSON_TYPES.join(", ")),
        );
    }
    if !typos.is_empty() {
        return schema;
    }
    if let Err(e) = jsonschema::meta::validate(&schema) {
        let at = e.instance_path().to_string();
        let sub = at.trim_start_matches('/').replace('/', ".");
        c.error(
            &if sub.is_empty() {
                path.to_owned()
            } else {
                join(path, &sub)
            },
            format!("not a valid JSON Schema: {e}"),
        );
    } else if let Err(e) = jsonschema::options().build(&schema) {
        c.error(path, format!("not a usable JSON Schema: {e}"));
    }
    schema
}

/// The types JSON Schema knows.
pub(crate) const TOOL_KEYS: &[&str] = &[
    "id",
    "name",
    "description",
    "entrypoint",
    "category",
    "tags",
    "input_schema",
    "requires_confirmation",
    "enabled",
    "timeout_s",
    "renderer",
];
pub(crate) const SERVER_KEYS: &[&str] = &["id", "type", "command", "args", "env", "url", "headers", "auto_enabled"];

/// A server's `type` (as Claude Desktop and MCPB configs write it), which
/// must agree with `command` / `url`; the old SSE transport is refused, not
/// spoken as streamable HTTP to an address that does not serve it.
fn check_transport(c: &mut Checker<'_>, path: &str, s: &serde_json::Map<String, Value>, has_command: bool) {
    let at = join(path, "type");
    let kind = match s.get("type") {
        None | Some(Value::Null) => return,
        Some(Value::String(k)) => k.to_ascii_lowercase().replace(['-', '_'], ""),
        Some(other) => {
            c.error(&at, format!("expected \"stdio\" or \"http\", got {}", describe(other)));
            return;
        }
    };
    match kind.as_str() {
        "sse" => c.error(
            &at,
            "the old SSE transport (`type: sse`) is not supported: Atelier speaks only stdio and streamable HTTP; \
             many servers serve streamable HTTP at `/mcp` (then give that `url` and drop `type`)",
        ),
        "stdio" if !has_command => c.error(&at, "a `stdio` server needs a `command`"),
        "http" | "streamablehttp" if has_command => c.error(&at, "an `http` server needs a `url`, not a `command`"),
        "stdio" | "http" | "streamablehttp" => {}
        _ => c.error(
            &at,
            format!(
                "unknown server type {:?}: use \"stdio\" (with `command`) or \"http\" (streamable HTTP, with `url`)",
                s["type"]
            ),
        ),
    }
}

const JSON_TYPES: &[&str] = &["string", "number", "integer", "boolean", "object", "array", "null"];

/// Every `type` in `schema` (and its subschemas) that is not a JSON type:
/// (its path, the word).
fn type_typos(schema: &Value, at: &str) -> Vec<(String, String)> {
    let Value::Object(o) = schema else { return Vec::new() };
    let mut out = Vec::new();
    let here = |k: &str| {
        if at.is_empty() {
            k.to_owned()
        } else {
            format!("{at}.{k}")
        }
    };
    match o.get("type") {
        Some(Value::String(t)) if !JSON_TYPES.contains(&t.as_str()) => out.push((here("type"), t.clone())),
        Some(Value::Array(ts)) => {
            for (i, t) in ts.iter().enumerate() {
                if let Some(t) = t.as_str().filter(|t| !JSON_TYPES.contains(t)) {
                    out.push((format!("{}[{i}]", here("type")), t.to_owned()));
                }
            }
        }
        _ => {}
    }
    for key in ["properties", "$defs", "definitions", "patternProperties"] {
        if let Some(Value::Object(m)) = o.get(key) {
            for (name, sub) in m {
                out.extend(type_typos(sub, &here(&format!("{key}.{name}"))));
            }
        }
    }
    for key in ["items", "additionalProperties", "not", "if", "then", "else", "contains"] {
        if let Some(sub) = o.get(key) {
            out.extend(type_typos(sub, &here(key)));
        }
    }
    for key in ["anyOf", "oneOf", "allOf", "prefixItems"] {
        if let Some(Value::Array(subs)) = o.get(key) {
            for (i, sub) in subs.iter().enumerate() {
                out.extend(type_typos(sub, &format!("{}[{i}]", here(key))));
            }
        }
    }
    out
}

fn check_renderer(c: &mut Checker<'_>, path: &str, v: &Value) -> Option<RendererDecl> {
    let Value::Object(r) = v else {
        c.error(
            path,
            format!("expected a renderer (a mapping with `type`), got {}", describe(v)),
        );
        return None;
    };
    let kind_name = c.string(r, path, "type", true)?;
    let Some(kind) = RendererKind::parse(&kind_name) else {
        c.error(
            &join(path, "type"),
            format!("unknown renderer type {kind_name:?}: use code, document, html, frame or image"),
        );
        return None;
    };
    let known = kind.keys();
    match kind {
        RendererKind::Code | RendererKind::Document => {
            match (r.get("file"), r.get("content")) {
                (Some(_), Some(_)) => c.error(
                    path,
                    format!("a {kind_name} renderer takes `file` or `content`, not both"),
                ),
                (None, None) => c.error(
                    path,
                    format!("a {kind_name} renderer needs `file` (a workspace path) or `content`"),
                ),
                _ => {}
            }
            for key in ["file", "content", "language"] {
                if r.contains_key(key) {
                    c.string(r, path, key, false);
                }
            }
            c.bool(r, path, "editable", false);
        }
        RendererKind::Html => {
            if let Some(a) = c.string(r, path, "artifact", true) {
                c.bundle_file(&join(path, "artifact"), &a, "the artifact");
            }
        }
        RendererKind::Frame => {
            c.string(r, path, "url", true);
        }
        RendererKind::Image => {
            match (r.get("file"), r.get("url")) {
                (Some(_), Some(_)) => c.error(path, "an image renderer takes `file` or `url`, not both"),
                (None, None) => c.error(
                    path,
                    "an image renderer needs `file` (a workspace image) or `url` (a data: or loopback URL)",
                ),
                _ => {}
            }
            for key in ["file", "url", "alt"] {
                if r.contains_key(key) {
                    c.string(r, path, key, false);
                }
            }
        }
    }
    let mut config = BTreeMap::new();
    for (k, v) in r {
        if k != "type" {
            c.templates(&join(path, k), v);
            config.insert(k.clone(), v.clone());
        }
    }
    c.warn_unknown(r, path, known);
    Some(RendererDecl { kind, config })
}

pub(super) fn check_server(c: &mut Checker<'_>, path: &str, v: &Value) -> Option<McpServerDecl> {
    let Value::Object(s) = v else {
        c.error(
            path,
            format!(
                "expected an MCP server (a mapping with id and command or url), got {}",
                describe(v)
            ),
        );
        return None;
    };
    let id = c.string(s, path, "id", true);
    if let Some(id) = &id
        && !crate::ids::is_namespace_id(id)
    {
        c.error(
            &join(path, "id"),
            format!(
                "{id:?} is not a valid server id (the rule of toolset ids): {}",
                crate::ids::namespace_id_advice(id)
            ),
        );
    }
    let command = c.string(s, path, "command", false);
    let url = c.string(s, path, "url", false);
    match (&command, &url) {
        (Some(_), Some(_)) => c.error(
            path,
            "give `command` (a local server) or `url` (a remote one), not both",
        ),
        (None, None) => c.error(path, "an MCP server needs a `command` or a `url`"),
        (None, Some(u)) if !(u.starts_with("http://") || u.starts_with("https://")) => c.error(
            &join(path, "url"),
            format!("expected an http:// or https:// URL, got {u:?}"),
        ),
        _ => {}
    }
    let args = c.string_list(s, path, "args");
    let env = string_map(c, s, path, "env", "variable names");
    let headers = string_map(c, s, path, "headers", "header names");
    let auto_enabled = c.bool(s, path, "auto_enabled", true);
    check_transport(c, path, s, command.is_some());
    let extra = c.warn_unknown(s, path, SERVER_KEYS);
    let cwd = join(path, "cwd");
    if let Some(p) = c.problems.iter_mut().find(|p| p.path == cwd) {
        p.message = "unknown key `cwd` (kept, but not used): a stdio server runs in the chat's workspace folder \
                     (a `scope: shared` one in a folder of its own), so give it paths relative to that or absolute ones"
            .to_owned();
    }
    Some(McpServerDecl {
        id: id?,
        command,
        args,
        env,
        url,
        headers,
        auto_enabled,
        extra,
    })
}

/// `env:` or `headers:`: names to string values (`${…}` references allowed).
fn string_map(
    c: &mut Checker<'_>,
    s: &serde_json::Map<String, Value>,
    path: &str,
    key: &str,
    names: &str,
) -> BTreeMap<String, String> {
    let p = join(path, key);
    match s.get(key) {
        None | Some(Value::Null) => BTreeMap::new(),
        Some(Value::Object(m)) => {
            let mut out = BTreeMap::new();
            for (k, v) in m {
                match v {
                    Value::String(x) => {
                        out.insert(k.clone(), x.clone());
                    }
                    other => c.error(
                        &join(&p, k),
                        format!(
                            "expected a string (use \"${{NAME}}\" for a secret or environment variable), got {}",
                            describe(other)
                        ),
                    ),
                }
            }
            out
        }
        Some(other) => {
            c.error(
                &p,
                format!("expected a mapping of {names} to values, got {}", describe(other)),
            );
            BTreeMap::new()
        }
    }
}

/// A tool's `timeout_s`: seconds, above 0 and at most [`MAX_TIMEOUT_S`].
/// YAML's `.inf` and `.nan` arrive as null (JSON holds neither): the
/// document's own text says which it was.
fn timeout(c: &mut Checker, path: &str, v: Option<&Value>) -> Option<f64> {
    let expected = format!("expected a number of seconds above 0 and at most {MAX_TIMEOUT_S} (a day)");
    match v {
        None => None,
        Some(Value::Null) => {
            if let Some(raw) = c.locs.non_finite(path) {
                c.error(path, format!("{expected}, got {raw}, which is not a number of seconds"));
            }
            None
        }
        Some(Value::Number(n)) if n.as_f64().is_some_and(|x| x > 0.0 && x <= MAX_TIMEOUT_S) => n.as_f64(),
        Some(other) => {
            c.error(path, format!("{expected}, got {}", describe(other)));
            None
        }
    }
}
