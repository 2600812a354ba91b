//! `mcpServers` JSON — the config files of Claude Desktop, Cursor, VS Code
//! (`servers`) — as servers to add. The preview says what each would run
//! before anything is added, as the toolset consent step does; values of
//! `env` and `headers` go to the secret store like any added server's.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::Mcp;
use super::servers::{NewServer, ServerRecord, check_id};
use crate::secrets::Secret;
use crate::{Error, Result};

/// One server found in a config, and whether it can be added.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ImportCandidate {
    pub id: String,
    /// The command line or the URL: what adding it would run or reach.
    pub runs: String,
    pub env_keys: Vec<String>,
    pub header_keys: Vec<String>,
    /// Why it cannot be added, if it cannot (an id in use, SSE).
    pub problem: Option<String>,
}

fn bad(reason: String) -> Error {
    Error::InvalidData {
        what: "MCP config",
        reason,
    }
}

fn strings(v: Option<&Value>, at: &str) -> Result<Vec<String>> {
    match v {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(a)) => a
            .iter()
            .map(|x| {
                x.as_str()
                    .map(str::to_owned)
                    .ok_or_else(|| bad(format!("{at}: every item must be a string")))
            })
            .collect(),
        Some(_) => Err(bad(format!("{at} must be a list of strings"))),
    }
}

fn pairs(v: Option<&Value>, at: &str) -> Result<Vec<(String, Secret)>> {
    match v {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Object(m)) => m
            .iter()
            .map(|(k, x)| match x {
                Value::String(s) => Ok((k.clone(), Secret::new(s.clone()))),
                other => Ok((k.clone(), Secret::new(other.to_string()))),
            })
            .collect(),
        Some(_) => Err(bad(format!("{at} must be an object of strings"))),
    }
}

/// The servers of a config text, each with what it would run.
pub fn parse(text: &str) -> Result<Vec<(NewServer, Option<String>)>> {
    let root: Value = serde_json::from_str(text).map_err(|e| bad(format!("not JSON: {e}")))?;
    let servers = root
        .get("mcpServers")
        .or_else(|| root.get("servers"))
        .unwrap_or(&root)
        .as_object()
        .ok_or_else(|| bad("expected an object with \"mcpServers\" (or \"servers\")".to_owned()))?;
    let mut out = Vec::new();
    for (name, entry) in servers {
        let at = format!("mcpServers.{name}");
        let id: String = name
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                    c
                } else {
                    '-'
                }
            })
            .collect();
        let kind = entry.get("type").and_then(Value::as_str).unwrap_or_default();
        let mut problem = check_id(&id).err().map(|e| e.to_string());
        if kind == "sse" {
            problem =
                Some("the old SSE transport is not supported: use the server's streamable HTTP address".to_owned());
        }
        let new = NewServer {
            id,
            command: entry.get("command").and_then(Value::as_str).map(str::to_owned),
            args: strings(entry.get("args"), &format!("{at}.args"))?,
            url: entry
                .get("url")
                .or_else(|| entry.get("serverUrl"))
                .and_then(Value::as_str)
                .map(str::to_owned),
            env: pairs(entry.get("env"), &format!("{at}.env"))?,
            headers: pairs(entry.get("headers"), &format!("{at}.headers"))?,
        };
        if new.command.is_none() && new.url.is_none() {
            problem = Some(format!("{at} has neither \"command\" nor \"url\""));
        }
        out.push((new, problem));
    }
    Ok(out)
}

fn describe(s: &NewServer) -> String {
    match (&s.command, &s.url) {
        (Some(c), _) => std::iter::once(c.as_str())
            .chain(s.args.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" "),
        (None, Some(u)) => u.clone(),
        (None, None) => String::new(),
    }
}

impl Mcp<'_> {
    /// What importing `text` would add (nothing is added).
    pub async fn preview_config(&self, text: &str) -> Result<Vec<ImportCandidate>> {
        let existing: Vec<String> = self.list().await?.into_iter().map(|s| s.id).collect();
        Ok(parse(text)?
            .into_iter()
            .map(|(s, problem)| ImportCandidate {
                problem: problem.or_else(|| {
                    existing
                        .contains(&s.id)
                        .then(|| format!("an MCP server {:?} already exists", s.id))
                }),
                runs: describe(&s),
                env_keys: s.env.iter().map(|(k, _)| k.clone()).collect(),
                header_keys: s.headers.iter().map(|(k, _)| k.clone()).collect(),
                id: s.id,
            })
            .collect())
    }

    /// Adds the servers of `text` that can be added (see
    /// [`Mcp::preview_config`]), or only those named in `only`.
    pub async fn import_config(&self, text: &str, only: Option<&[String]>) -> Result<Vec<ServerRecord>> {
        let mut added = Vec::new();
        for (server, problem) in parse(text)? {
            if problem.is_some() || only.is_some_and(|o| !o.contains(&server.id)) {
                continue;
            }
            if self.get(&server.id).await.is_ok() {
                continue;
            }
            added.push(self.add(server).await?);
        }
        Ok(added)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claude_desktop_and_vs_code_configs_parse() {
        let text = r#"{"mcpServers": {
            "files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]},
            "github": {"command": "docker", "args": ["run"], "env": {"GITHUB_TOKEN": "ghp_x"}},
            "remote api": {"url": "https://example.invalid/mcp", "headers": {"Authorization": "Bearer t"}},
            "old": {"type": "sse", "url": "https://example.invalid/sse"}
        }}"#;
        let got = parse(text).expect("parses");
        assert_eq!(got.len(), 4);
        let files = &got.iter().find(|(s, _)| s.id == "files").expect("files").0;
        assert_eq!(describe(files), "npx -y @modelcontextprotocol/server-filesystem /tmp");
        let remote = got.iter().find(|(s, _)| s.id == "remote-api").expect("id made safe");
        assert_eq!(remote.0.headers[0].0, "Authorization");
        assert!(
            got.iter()
                .any(|(s, p)| s.id == "old" && p.as_deref().is_some_and(|p| p.contains("SSE")))
        );
        assert_eq!(
            parse(r#"{"servers": {"a": {"command": "x"}}}"#).expect("vs code").len(),
            1
        );
        assert!(parse("[1]").is_err());
    }
}
