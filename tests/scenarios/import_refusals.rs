//! An upgrade refused after its secrets were written — a call of the
//! toolset running, a failure just before the commit — leaves nothing: the
//! installed version keeps its secrets (a value it had comes back with the
//! origin it had, a key it did not have is gone again) and no artifact of
//! the refused version is left in `artifacts/`.

use std::path::{Path, PathBuf};

use crate::Env;
use crate::bundles::zip_of;
use crate::secrets::{files_holding, on_bus_with, text};
use crate::toolset_secrets::DEAD_BUS;

/// Version `version` of toolset `keep`: a server with a plain-text token
/// (moved to the secret store at import), a sensitive setting, and an html
/// renderer whose artifact differs by version.
fn keep_zip(dir: &Path, version: &str, token: &str, extra_config: &str) -> PathBuf {
    let m = format!(
        "manifest_version: \"1\"\nid: keep\nname: Keep\nversion: \"{version}\"\n\
         user_config:\n  api_key: {{type: string, title: API key, sensitive: true, required: true}}\n{extra_config}\
         tools:\n  - id: hello\n    entrypoint: tools.hello:run\n    \
           input_schema: {{type: object, properties: {{}}}}\n    \
           renderer: {{type: html, artifact: artifacts/page.html, data: \"$return\"}}\n\
         mcp_servers:\n  - id: keep-srv\n    command: /bin/true\n    env:\n      TOKEN: \"{token}\"\n"
    );
    let page = format!("<html><body>page of {version}</body></html>");
    zip_of(
        dir,
        &format!("keep-{version}.zip"),
        &[
            ("toolset.yaml", m.as_bytes()),
            ("tools/hello.py", b"def run(workspace):\n    return {}\n"),
            ("artifacts/page.html", page.as_bytes()),
        ],
    )
}

fn import(env: &Env, zip: &Path, stdin: &str, vars: &[(&str, &str)]) -> std::process::Output {
    let zip = zip.to_str().expect("utf-8");
    on_bus_with(
        env,
        DEAD_BUS,
        &["toolset", "import", zip, "--allow-file-secrets"],
        Some(stdin),
        vars,
    )
}

fn artifacts(env: &Env) -> Vec<String> {
    let mut found = files_holding(&env.data().join("artifacts"), b"page of");
    found.sort();
    found
}

/// Where each value is now: the files of the data dir holding it.
fn holders(env: &Env, value: &str) -> Vec<String> {
    files_holding(env.data(), value.as_bytes())
        .into_iter()
        .map(|p| {
            p.strip_prefix(&env.data().display().to_string())
                .unwrap_or(&p)
                .to_owned()
        })
        .collect()
}

#[tokio::test]
async fn a_refused_upgrade_keeps_the_installed_versions_secrets_and_leaves_no_artifact() {
    let env = Env::new();
    let t = tempfile::tempdir().expect("tmp");
    let v1 = import(
        &env,
        &keep_zip(t.path(), "1.0.0", "tok-ONE-1111", ""),
        "key-ONE-1111\n",
        &[],
    );
    assert!(v1.status.success(), "{}", text(&v1));
    let kept = artifacts(&env);
    assert_eq!(kept.len(), 1, "{kept:?}");
    // Version 2 changes the token and adds a sensitive setting.
    let second = "  second: {type: string, title: Second, sensitive: true, required: true}\n";
    let v2 = keep_zip(t.path(), "2.0.0", "tok-TWO-2222", second);

    // A call of the toolset runs, in another process (which holds its
    // chat's lock): the upgrade is refused.
    let app = env.app().await;
    let chat = app.chats().create(None).await.expect("chat");
    sqlx::query("INSERT INTO tool_calls (id, chat_id, tool_id, status, started_at) VALUES ('c1', ?, 'keep:hello', 'running', 'x')")
        .bind(&chat.id)
        .execute(app.db())
        .await
        .expect("call");
    let running = atelier_core::lock::FileLock::acquire(&env.data().join("chats").join(&chat.id).join("lock"))
        .expect("the call's chat lock");
    let unchanged = |refused: &str| {
        assert_eq!(
            holders(&env, "tok-ONE-1111"),
            ["/secrets.json"],
            "{refused}: the old token is kept"
        );
        assert_eq!(
            holders(&env, "key-ONE-1111"),
            ["/secrets.json"],
            "{refused}: the old setting is kept"
        );
        assert!(
            holders(&env, "tok-TWO-2222").is_empty(),
            "{refused}: the new token is not stored"
        );
        assert!(
            holders(&env, "sec-TWO-2222").is_empty(),
            "{refused}: the new setting is not stored"
        );
        assert_eq!(artifacts(&env), kept, "{refused}: no artifact of the refused version");
    };
    // Which of them the bundle brought: put back as they were, not as the
    // refused import wrote them (its token) nor as the person's.
    let origins = || async {
        sqlx::query_as::<_, (String, String)>("SELECT key, origin FROM secret_names ORDER BY key")
            .fetch_all(app.db())
            .await
            .expect("origins")
    };
    let before = origins().await;
    assert_eq!(
        before,
        [
            ("TOKEN".to_owned(), "bundle".to_owned()),
            ("user_config.api_key".to_owned(), "person".to_owned())
        ]
    );
    let busy = import(&env, &v2, "sec-TWO-2222\n", &[]);
    assert!(!busy.status.success(), "{}", text(&busy));
    assert!(text(&busy).contains(&chat.id), "{}", text(&busy));
    unchanged("busy");
    assert_eq!(origins().await, before, "busy");
    drop(running);
    // And failing just before its commit (the busy check passed).
    sqlx::query("DELETE FROM tool_calls")
        .execute(app.db())
        .await
        .expect("done");
    let failed = import(
        &env,
        &v2,
        "sec-TWO-2222\n",
        &[("ATELIER_FAILPOINT", "import-before-commit")],
    );
    assert!(!failed.status.success(), "{}", text(&failed));
    assert!(text(&failed).contains("import-before-commit"), "{}", text(&failed));
    unchanged("failpoint");
    assert_eq!(origins().await, before, "failpoint");
    let names: Vec<String> = sqlx::query_scalar("SELECT key FROM secret_names ORDER BY key")
        .fetch_all(app.db())
        .await
        .expect("names");
    assert!(!names.iter().any(|k| k.contains("second")), "{names:?}");
    let version: String = sqlx::query_scalar("SELECT version FROM toolsets WHERE id = 'keep'")
        .fetch_one(app.db())
        .await
        .expect("row");
    assert_eq!(version, "1.0.0");

    // The upgrade, once nothing stands in its way, replaces them all.
    let done = import(&env, &v2, "sec-TWO-2222\n", &[]);
    assert!(done.status.success(), "{}", text(&done));
    assert_eq!(holders(&env, "tok-TWO-2222"), ["/secrets.json"]);
    assert_eq!(holders(&env, "sec-TWO-2222"), ["/secrets.json"]);
    assert!(holders(&env, "tok-ONE-1111").is_empty());
    assert_eq!(artifacts(&env).len(), 2, "both versions' pages are kept for old calls");
}
