//! The schema: fresh migrations, pragmas, foreign keys, ownership.

use sqlx::Row;

use crate::Env;

#[tokio::test]
async fn a_fresh_database_has_every_table_in_wal_mode_with_foreign_keys() {
    let env = Env::new();
    let app = env.app().await;
    let tables: Vec<String> =
        sqlx::query_scalar("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_%' ESCAPE '\\' AND name NOT LIKE 'sqlite%' ORDER BY name")
            .fetch_all(app.db())
            .await
            .expect("tables");
    assert_eq!(
        tables,
        [
            "agents",
            "chat_tool_allowances",
            "chats",
            "mcp_servers",
            "messages",
            "providers",
            "secret_names",
            "settings",
            "streaming_turns",
            "threads",
            "tool_calls",
            "tool_policies",
            "tool_render_configs",
            "tools",
            "toolset_config_values",
            "toolset_env_allowances",
            "toolset_files",
            "toolset_mcp_servers",
            "toolsets",
            "workspace_manifests",
            "workspace_trees"
        ]
    );
    let fk: i64 = sqlx::query_scalar("PRAGMA foreign_keys")
        .fetch_one(app.db())
        .await
        .expect("pragma");
    assert_eq!(fk, 1);
    let mode: String = sqlx::query_scalar("PRAGMA journal_mode")
        .fetch_one(app.db())
        .await
        .expect("pragma");
    assert_eq!(mode, "wal");
    // The seed's columns are all there.
    let cols: Vec<String> = sqlx::query("SELECT name FROM pragma_table_info('tool_calls') ORDER BY cid")
        .fetch_all(app.db())
        .await
        .expect("columns")
        .iter()
        .map(|r| r.get::<String, _>("name"))
        .collect();
    for c in [
        "id",
        "chat_id",
        "message_id",
        "tool_id",
        "args",
        "result",
        "render_plan",
        "status",
        "error",
        "started_at",
        "finished_at",
        "pre_manifest_id",
        "post_manifest_id",
    ] {
        assert!(cols.iter().any(|x| x == c), "tool_calls.{c} missing: {cols:?}");
    }
    app.close().await;
    // Reopening applies nothing twice.
    let app = env.app().await;
    let applied: i64 = sqlx::query_scalar("SELECT count(*) FROM _sqlx_migrations")
        .fetch_one(app.db())
        .await
        .expect("count");
    assert_eq!(applied, atelier_core::db::MIGRATOR.iter().count() as i64);
}

#[tokio::test]
async fn foreign_keys_are_enforced() {
    let env = Env::new();
    let app = env.app().await;
    let err = sqlx::query(
        "INSERT INTO messages (id, chat_id, parent_id, role, content, manifest_id, created_at) \
         VALUES ('m', 'no-such-chat', NULL, 'system', '[]', 'no-such-manifest', '2026-01-01T00:00:00.000Z')",
    )
    .execute(app.db())
    .await
    .expect_err("a message of a missing chat must be refused");
    assert!(err.to_string().contains("FOREIGN KEY"), "{err}");

    let chat = app.chats().create(None).await.expect("chat");
    // A second root in one chat is refused, and so is a parentless user message.
    let second_root = sqlx::query(
        "INSERT INTO messages (id, chat_id, parent_id, role, content, manifest_id, created_at) VALUES ('r2', ?, NULL, 'system', '[]', ?, 'x')",
    )
    .bind(&chat.id)
    .bind(&chat.active_manifest_id)
    .execute(app.db())
    .await;
    assert!(second_root.is_err());
    let orphan_user = sqlx::query(
        "INSERT INTO messages (id, chat_id, parent_id, role, content, manifest_id, created_at) VALUES ('u', ?, NULL, 'user', '[]', ?, 'x')",
    )
    .bind(&chat.id)
    .bind(&chat.active_manifest_id)
    .execute(app.db())
    .await;
    assert!(orphan_user.is_err());
}

async fn install_toolset(app: &atelier_core::Atelier) {
    for sql in [
        "INSERT INTO toolsets (id, name, version, installed_at, source_type, manifest_version) VALUES ('ts', 'TS', '1.0.0', 'x', 'zip', '1')",
        "INSERT INTO toolset_files (toolset_id, path, kind, sha256, size, stored_path) VALUES ('ts', 'tools/a.py', 'python', 'h', 1, 'toolsets/ts/tools/a.py')",
        "INSERT INTO tools (tool_id, toolset_id, name, entrypoint) VALUES ('ts:a', 'ts', 'A', 'tools.a:run')",
        "INSERT INTO tool_render_configs (tool_id, renderer, config) VALUES ('ts:a', 'code', '{\"file\":\"$args.path\"}')",
        "INSERT INTO toolset_mcp_servers (toolset_id, server_id, config) VALUES ('ts', 'srv', '{\"command\":\"x\"}')",
    ] {
        sqlx::query(sql).execute(app.db()).await.expect(sql);
    }
}

#[tokio::test]
async fn uninstalling_a_toolset_removes_its_parts_but_never_tool_call_history() {
    let env = Env::new();
    let app = env.app().await;
    install_toolset(&app).await;
    let chat = app.chats().create(None).await.expect("chat");
    sqlx::query(
        "INSERT INTO tool_calls (id, chat_id, message_id, tool_id, args, status, started_at, pre_manifest_id, post_manifest_id) \
         VALUES ('tc', ?, ?, 'ts:a', '{}', 'success', 'x', ?, ?)",
    )
    .bind(&chat.id)
    .bind(&chat.root_message_id)
    .bind(&chat.active_manifest_id)
    .bind(&chat.active_manifest_id)
    .execute(app.db())
    .await
    .expect("tool call");

    sqlx::query("DELETE FROM toolsets WHERE id = 'ts'")
        .execute(app.db())
        .await
        .expect("uninstall");
    for (table, column) in [
        ("toolset_files", "toolset_id"),
        ("tools", "toolset_id"),
        ("tool_render_configs", "tool_id"),
        ("toolset_mcp_servers", "toolset_id"),
    ] {
        let n: i64 = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
            "SELECT count(*) FROM {table} WHERE {column} LIKE 'ts%'"
        )))
        .fetch_one(app.db())
        .await
        .expect("count");
        assert_eq!(n, 0, "{table} should be emptied with its toolset");
    }
    let calls: i64 = sqlx::query_scalar("SELECT count(*) FROM tool_calls WHERE tool_id = 'ts:a'")
        .fetch_one(app.db())
        .await
        .expect("count");
    assert_eq!(calls, 1, "tool-call history must survive the toolset");
}

#[tokio::test]
async fn deleting_a_chat_removes_its_rows_and_folder_only() {
    let env = Env::new();
    let app = env.app().await;
    let keep = app.chats().create(Some("keep")).await.expect("chat");
    let gone = app.chats().create(Some("gone")).await.expect("chat");
    crate::write(&app.workspace_dir(&gone.id), "a.txt", "a");
    crate::snap(&app, &gone.id).await;
    app.chats().delete(&gone.id).await.expect("delete");
    for table in ["messages", "workspace_manifests", "workspace_trees"] {
        let n: i64 = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
            "SELECT count(*) FROM {table} WHERE chat_id = ?"
        )))
        .bind(&gone.id)
        .fetch_one(app.db())
        .await
        .expect("count");
        assert_eq!(n, 0, "{table} rows of the deleted chat remain");
    }
    assert!(!env.data().join("chats").join(&gone.id).exists());
    assert!(app.workspace_dir(&keep.id).is_dir());
    assert_eq!(app.chats().list().await.expect("list").len(), 1);
    let err = app.chats().get(&gone.id).await.expect_err("deleted");
    assert_eq!(err.kind(), "chat_not_found");
}

#[tokio::test]
async fn builtin_tool_rows_are_restored_from_their_definitions_on_open() {
    let env = Env::new();
    let app = env.app().await;
    sqlx::query("UPDATE tools SET description = 'tampered' WHERE tool_id = 'write_file'")
        .execute(app.db())
        .await
        .expect("tamper");
    app.close().await;
    let app = env.app().await;
    let tool = app.toolsets().tool("write_file").await.expect("builtin");
    assert!(tool.description.starts_with("Write content"), "{}", tool.description);
    let ids: Vec<String> = app
        .toolsets()
        .tools()
        .await
        .expect("tools")
        .into_iter()
        .map(|t| t.tool_id)
        .collect();
    assert_eq!(ids, ["delete_file", "list_files", "read_file", "write_file"]);
}
