//! The manifest's top level: id, version, names, the Python section, the
//! tools and servers lists (each item checked by [`super::parts`]), the
//! `user_config` (by [`super::config`]), and the cross-checks between them.

use std::collections::HashSet;

use serde_json::{Map, Value};

use super::parts::check_tool;
use super::server::check_server;
use super::{Checker, PYTHON_KEYS, Severity, TOP_KEYS, config, describe, entrypoint_module_files, join};
use crate::ids::{is_namespace_id, namespace_id_advice};
use crate::toolsets::manifest::{MANIFEST_VERSION, PythonSection, Scope, ToolsetManifest};

/// `manifest_version`: "1" as the seed writes it, and what an author means
/// by it — `1`, `1.0`, `"1.0"` —; anything else is refused saying what this
/// Atelier reads.
fn check_manifest_version(c: &mut Checker<'_>, obj: &Map<String, Value>) -> Option<String> {
    let given = match obj.get("manifest_version") {
        None | Some(Value::Null) => {
            c.error(
                "manifest_version",
                format!("`manifest_version` is required: write manifest_version: \"{MANIFEST_VERSION}\""),
            );
            return None;
        }
        Some(Value::Number(n)) if n.as_f64() == Some(1.0) => return Some(MANIFEST_VERSION.to_owned()),
        Some(Value::String(s)) if matches!(s.trim(), "1" | "1.0") => return Some(MANIFEST_VERSION.to_owned()),
        Some(Value::String(s)) => format!("{s:?}"),
        Some(Value::Number(n)) => n.to_string(),
        Some(other) => describe(other),
    };
    c.error(
        "manifest_version",
        format!("unsupported manifest_version {given}: this Atelier reads \"{MANIFEST_VERSION}\" (also written 1 or \"1.0\")"),
    );
    None
}

/// `version`: a semantic version. One with fewer than three numbers (`1`,
/// `"1.0"`, a YAML number) or a leading `v` is read as the semantic version
/// it stands for (`1.0.0`), with a warning, so upgrades still compare.
fn check_version(c: &mut Checker<'_>, obj: &Map<String, Value>) -> Option<String> {
    let (text, number) = match obj.get("version") {
        Some(Value::Number(n)) => (n.to_string(), true),
        _ => (c.string(obj, "", "version", true)?, false),
    };
    if !number && semver::Version::parse(&text).is_ok() {
        return Some(text);
    }
    let digits = text.trim().strip_prefix(['v', 'V']).unwrap_or(text.trim());
    let parts: Vec<&str> = digits.split('.').collect();
    let numeric = parts.len() <= 3
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
    let full = numeric.then(|| {
        let mut full: Vec<String> = parts.iter().map(|p| p.trim_start_matches('0').to_owned()).collect();
        full.iter_mut().filter(|p| p.is_empty()).for_each(|p| p.push('0'));
        full.resize(3, "0".to_owned());
        full.join(".")
    });
    match full.filter(|f| semver::Version::parse(f).is_ok()) {
        Some(full) => {
            let why = if number {
                format!("written as the number {text} (YAML reads `1.10` as 1.1): quote it, e.g. version: \"{full}\"")
            } else {
                format!("a semantic version has three numbers: write version: \"{full}\"")
            };
            c.push(Severity::Warning, "version", format!("read as {full:?}; {why}"), false);
            Some(full)
        }
        None => {
            let why = semver::Version::parse(&text)
                .err()
                .map(|e| format!(" ({e})"))
                .unwrap_or_default();
            c.error(
                "version",
                format!("{text:?} is not a semantic version like \"1.2.0\"{why}"),
            );
            None
        }
    }
}

pub(super) fn check_root(c: &mut Checker<'_>, obj: &Map<String, Value>) -> Option<ToolsetManifest> {
    let manifest_version = check_manifest_version(c, obj);
    let id = c.string(obj, "", "id", true);
    if let Some(id) = &id
        && !is_namespace_id(id)
    {
        c.error(
            "id",
            format!("{id:?} is not a valid toolset id: {}", namespace_id_advice(id)),
        );
    }
    let prefix = c.string(obj, "", "prefix", false);
    if let Some(p) = &prefix
        && !is_namespace_id(p)
    {
        c.error(
            "prefix",
            format!(
                "{p:?} is not a valid prefix (the rule of ids): {}",
                namespace_id_advice(p)
            ),
        );
    }
    let scope = match c.string(obj, "", "scope", false) {
        None => Scope::Chat,
        Some(s) => Scope::parse(&s).unwrap_or_else(|| {
            c.error(
                "scope",
                format!("{s:?} is not a scope: use \"chat\" (the default) or \"shared\""),
            );
            Scope::Chat
        }),
    };
    let name = c.string(obj, "", "name", true);
    let version = check_version(c, obj);
    let description = c.string(obj, "", "description", false).unwrap_or_default();
    let author = c.string(obj, "", "author", false);
    let homepage = c.string(obj, "", "homepage", false);
    let icon = c.string(obj, "", "icon", false);
    if let Some(i) = &icon {
        c.bundle_file("icon", i, "the icon");
    }
    let python = match obj.get("python") {
        None | Some(Value::Null) => PythonSection::default(),
        Some(Value::Object(p)) => {
            c.warn_unknown(p, "python", PYTHON_KEYS);
            let requirements = c.string_list(p, "python", "requirements");
            for (i, r) in requirements.iter().enumerate() {
                if let Some(why) = super::requirement::problem(r) {
                    c.error(&format!("python.requirements[{i}]"), format!("{r:?} {why}"));
                }
            }
            PythonSection { requirements }
        }
        Some(other) => {
            c.error(
                "python",
                format!("expected a mapping with `requirements`, got {}", describe(other)),
            );
            PythonSection::default()
        }
    };
    let tools = match obj.get("tools") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => {
            let mut seen = HashSet::new();
            let mut out = Vec::new();
            for (i, t) in items.iter().enumerate() {
                let path = format!("tools[{i}]");
                if let Some(tool) = check_tool(c, &path, t) {
                    if !seen.insert(tool.id.clone()) {
                        c.error(&join(&path, "id"), format!("duplicate tool id {:?}", tool.id));
                    }
                    out.push(tool);
                }
            }
            out
        }
        Some(other) => {
            c.error("tools", format!("expected a list of tools, got {}", describe(other)));
            Vec::new()
        }
    };
    let tools_from = c.string_list(obj, "", "tools_from");
    for (i, module) in tools_from.iter().enumerate() {
        let path = format!("tools_from[{i}]");
        match entrypoint_module_files(&format!("{module}:x")) {
            None => c.error(
                &path,
                format!("expected a module path like \"tools.text\", got {module:?}"),
            ),
            Some(candidates) if !candidates.iter().any(|f| c.files.contains(f)) => c.error(
                &path,
                format!(
                    "module file {:?} is not in the bundle (module paths are relative to the toolset root)",
                    candidates[0]
                ),
            ),
            Some(_) => {}
        }
        if tools_from[..i].contains(module) {
            c.error(&path, format!("{module:?} is listed twice"));
        }
    }
    for (i, t) in tools.iter().enumerate().filter(|(_, t)| t.is_overlay()) {
        if tools_from.is_empty() {
            c.error(
                &format!("tools[{i}]"),
                format!(
                    "tool {:?} has no `entrypoint` (module.path:function); only an entry that adds to a tool a \
                     `tools_from:` module exports may leave it out, and there is no `tools_from:`",
                    t.id
                ),
            );
        }
    }
    let user_config = config::check_user_config(c, obj.get("user_config"));
    let mcp_servers = match obj.get("mcp_servers") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => {
            let mut seen = HashSet::new();
            let mut out = Vec::new();
            for (i, s) in items.iter().enumerate() {
                let path = format!("mcp_servers[{i}]");
                if let Some(server) = check_server(c, &path, s) {
                    config::check_server_refs(c, &path, &server, &user_config);
                    if !seen.insert(server.id.clone()) {
                        c.error(&join(&path, "id"), format!("duplicate MCP server id {:?}", server.id));
                    }
                    // A toolset of no tools of its own may wrap one server
                    // under its own id: `<id>:<tool>` can only be the
                    // server's. With tools of its own, both would be
                    // `<id>:<tool>`, and one could shadow the other.
                    if id.as_deref() == Some(server.id.as_str()) && !(tools.is_empty() && tools_from.is_empty()) {
                        c.error(
                            &join(&path, "id"),
                            "an MCP server cannot share the id of a toolset that has tools of its own (their tools \
                             would share the names `<id>:<tool>`): give the server another id, or move the toolset's \
                             tools to a toolset of their own",
                        );
                    } else if prefix.as_deref() == Some(server.id.as_str()) {
                        c.error(
                            &join(&path, "id"),
                            "an MCP server cannot be named like the toolset's prefix (they share one namespace of tool prefixes)",
                        );
                    }
                    out.push(server);
                }
            }
            out
        }
        Some(other) => {
            c.error(
                "mcp_servers",
                format!("expected a list of servers, got {}", describe(other)),
            );
            Vec::new()
        }
    };
    let extra = c.warn_unknown(obj, "", TOP_KEYS);
    Some(ToolsetManifest {
        manifest_version: manifest_version?,
        id: id?,
        name: name?,
        version: version?,
        description,
        author,
        homepage,
        icon,
        prefix,
        scope,
        python,
        tools,
        tools_from,
        mcp_servers,
        user_config,
        extra,
    })
}
