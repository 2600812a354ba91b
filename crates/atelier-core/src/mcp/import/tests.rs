//! `import-config` as the apps that write these configs would have it.

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
    let files = &got.iter().find(|e| e.server.id == "files").expect("files").server;
    assert_eq!(describe(files), "npx -y @modelcontextprotocol/server-filesystem /tmp");
    let remote = got.iter().find(|e| e.server.id == "remote-api").expect("id made safe");
    assert_eq!(remote.server.headers[0].0, "Authorization");
    assert!(
        got.iter()
            .any(|e| e.server.id == "old" && e.problem.as_deref().is_some_and(|p| p.contains("SSE")))
    );
    assert_eq!(
        parse(r#"{"servers": {"a": {"command": "x"}}}"#).expect("vs code").len(),
        1
    );
    assert!(parse("[1]").is_err());
}

#[test]
fn what_the_writing_app_would_do_at_start_is_done_or_said() {
    let dir = tempfile::tempdir().expect("tmp");
    std::fs::create_dir_all(dir.path().join("srv")).expect("mkdir");
    std::fs::write(dir.path().join("srv/main.py"), "").expect("write");
    let cwd = dir.path().display().to_string();
    let text = serde_json::json!({"mcpServers": {
        "gh": {"command": "docker", "args": ["run", "-e", "TOKEN"],
               "env": {"TOKEN": "${GITHUB_TOKEN}", "LEVEL": "${LEVEL:-info}", "URL": "https://h/${GITHUB_TOKEN}/x"}},
        "asks": {"command": "x", "env": {"KEY": "${input:api-key}"}},
        "unset": {"url": "https://h/mcp", "headers": {"Authorization": "Bearer ${NOT_SET_HERE}"}},
        "my server": {"command": "a"},
        "my-server": {"command": "b"},
        "off": {"command": "c", "disabled": true},
        "rel": {"command": "python3", "args": ["srv/main.py", "-v", "pkg.module"], "cwd": cwd},
        "home": {"command": "node", "args": ["${HOME}/srv/index.js"]},
        "code": {"url": "https://h/mcp", "headers": {"Authorization": "Bearer ${env:GITHUB_TOKEN}"}},
        "editor": {"command": "node", "args": ["${workspaceFolder}/index.js"]},
        "leaky": {"command": "srv", "args": ["--token", "${GITHUB_TOKEN}"]},
    }})
    .to_string();
    let var = |n: &str| match n {
        "GITHUB_TOKEN" => Some("ghp_1".to_owned()),
        "HOME" => Some("/home/ada".to_owned()),
        _ => None,
    };
    let got = parse_with(&text, &var).expect("parses");
    let of = |id: &str| got.iter().find(|e| e.server.id == id).expect(id);
    let gh = of("gh");
    let env: Vec<(&str, &str)> = gh.server.env.iter().map(|(k, v)| (k.as_str(), v.expose())).collect();
    assert_eq!(
        env,
        [("TOKEN", "ghp_1"), ("LEVEL", "info"), ("URL", "https://h/ghp_1/x")]
    );
    assert!(gh.problem.is_none(), "{:?}", gh.problem);
    assert!(
        of("asks")
            .problem
            .as_deref()
            .is_some_and(|p| p.contains("${input:api-key}") && p.contains("VS Code"))
    );
    assert!(
        of("unset")
            .problem
            .as_deref()
            .is_some_and(|p| p.contains("mcpServers.unset.headers.Authorization uses ${NOT_SET_HERE}")),
        "{:?}",
        of("unset").problem
    );
    let twins: Vec<&Entry> = got.iter().filter(|e| e.server.id == "my-server").collect();
    assert_eq!(twins.len(), 2);
    assert!(
        twins.iter().filter(|e| e.problem.is_some()).count() == 1,
        "one of the two is refused"
    );
    let off = of("off");
    assert!(off.disabled && off.note.as_deref().is_some_and(|n| n.contains("added turned off")));
    let rel = of("rel");
    assert_eq!(
        rel.server.args,
        [format!("{cwd}/srv/main.py"), "-v".to_owned(), "pkg.module".to_owned()]
    );
    assert!(rel.note.as_deref().is_some_and(|n| n.contains("against its cwd")));
    // A command line is kept and shown as written: a place is filled
    // in, a token never is.
    assert_eq!(of("home").server.args, ["/home/ada/srv/index.js"]);
    let leaky = of("leaky");
    assert!(
        leaky
            .problem
            .as_deref()
            .is_some_and(|p| p.contains("args[1] uses ${GITHUB_TOKEN}") && p.contains("env")),
        "{:?}",
        leaky.problem
    );
    assert!(!leaky.server.args.iter().any(|a| a.contains("ghp_1")));
    // What it reads from here is said; VS Code's spellings are read.
    assert!(
        gh.note.as_deref().is_some_and(|n| n.contains("reads $GITHUB_TOKEN")),
        "{:?}",
        gh.note
    );
    let code = of("code");
    assert_eq!(code.server.headers[0].1.expose(), "Bearer ghp_1");
    assert!(
        of("editor")
            .problem
            .as_deref()
            .is_some_and(|p| p.contains("${workspaceFolder}, a variable of the editor"))
    );
}

/// Cline and Roo Code write `"timeout"` in seconds, Claude Code in
/// milliseconds: each comes out as the seconds its app meant, and the
/// preview says so; a timeout that is no duration is said and dropped.
#[test]
fn a_config_timeout_becomes_the_server_call_timeout_in_seconds() {
    let text = r#"{"mcpServers": {
        "cline": {"command": "x", "timeout": 300},
        "claude-code": {"type": "http", "url": "https://h/mcp", "timeout": 120000},
        "odd": {"command": "x", "timeout": "soon"},
        "none": {"command": "x"}
    }}"#;
    let got = parse(text).expect("parses");
    let by = |id: &str| got.iter().find(|e| e.server.id == id).expect(id);
    assert_eq!(by("cline").server.timeout_s, Some(300.0));
    assert!(by("cline").note.as_deref().is_some_and(|n| n.contains("300 s")));
    assert_eq!(by("claude-code").server.timeout_s, Some(120.0));
    assert_eq!(by("odd").server.timeout_s, None);
    assert!(
        by("odd")
            .note
            .as_deref()
            .is_some_and(|n| n.contains("\"soon\"") && n.contains("default")),
        "{:?}",
        by("odd").note
    );
    assert_eq!(by("none").server.timeout_s, None);
    assert_eq!(by("none").note, None);
}
