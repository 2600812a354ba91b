//! Checks of the nested parts of a manifest: tools (entry point, schema,
//! renderer); MCP servers are [`super::server`]'s.

use std::collections::BTreeMap;

use serde_json::Value;

use super::{Checker, MAX_TIMEOUT_S, Severity, describe, entrypoint_module_files, is_tool_id, join};
use crate::toolsets::interp;
use crate::toolsets::manifest::{ATELIER_CONFIG, RendererDecl, RendererKind, ToolDecl};

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
    let mut entrypoint = c.string(t, path, "entrypoint", false);
    // `entrypoint: ~` (or a blank `entrypoint:`) is no entrypoint, as a
    // missing key is: an error unless a `tools_from` export is named.
    let overlay = matches!(t.get("entrypoint"), None | Some(Value::Null));
    if let Some(ep) = &entrypoint {
        let at = join(path, "entrypoint");
        match entrypoint_module_files(ep) {
            None => {
                let hint = path_like_entrypoint(ep)
                    .map(|m| format!(": did you mean {m:?}?"))
                    .unwrap_or_default();
                c.error(&at, format!("expected \"module.path:function\", got {ep:?}{hint}"));
            }
            Some(candidates) if !candidates.iter().any(|f| c.files.contains(f)) => {
                // Seed 004 §4.1 makes the module relative to `tools/`; this
                // rule is the folder of toolset.yaml, but a module found
                // only under `tools/` can only mean that one.
                let under_tools = format!("tools.{ep}");
                match entrypoint_module_files(&under_tools) {
                    Some(in_tools) if in_tools.iter().any(|f| c.files.contains(f)) => {
                        c.push(
                            Severity::Warning,
                            &at,
                            format!(
                                "read as {under_tools:?}: entry points are relative to the toolset's folder, and \
                                 {:?} is in tools/ (write entrypoint: {under_tools})",
                                candidates[0]
                            ),
                            false,
                        );
                        entrypoint = Some(under_tools);
                    }
                    _ => c.error(
                        &at,
                        format!(
                            "module file {:?} is not in the bundle (entry points are relative to the toolset root)",
                            candidates[0]
                        ),
                    ),
                }
            }
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
    // A tool that writes no input_schema takes its function's arguments at
    // install (unknown here, where nothing runs): nothing to check against.
    if let Some(r) = renderer
        .as_ref()
        .filter(|_| !crate::toolsets::manifest::no_arguments_written(&input_schema))
    {
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

/// `tools/analyze.py:run` (a file path where a module path belongs) as the
/// entry point it stands for, `tools.analyze:run`.
fn path_like_entrypoint(ep: &str) -> Option<String> {
    let (file, func) = ep.rsplit_once(':')?;
    let file = file.trim_start_matches("./");
    let module = file.strip_suffix(".py").unwrap_or(file).replace(['/', '\\'], ".");
    let module = module.strip_suffix(".__init__").unwrap_or(&module);
    let fixed = format!("{module}:{func}");
    (fixed != ep && entrypoint_module_files(&fixed).is_some()).then_some(fixed)
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

/// A tool's or an MCP server's `timeout_s`: seconds, above 0 and at most [`MAX_TIMEOUT_S`].
/// YAML's `.inf` and `.nan` arrive as null (JSON holds neither): the
/// document's own text says which it was.
pub(super) fn timeout(c: &mut Checker, path: &str, v: Option<&Value>) -> Option<f64> {
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
