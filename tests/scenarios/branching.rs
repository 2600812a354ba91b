//! Branches: each keeps its own workspace; switching never loses work.

use atelier_core::model::{ContentPart, Role};

use crate::{Env, snap, tree_of, write};

pub(crate) fn text(t: &str) -> Vec<ContentPart> {
    vec![ContentPart::Text { text: t.to_owned() }]
}

#[tokio::test]
async fn two_branches_with_different_files_restore_exactly_back_and_forth() {
    let env = Env::new();
    let app = env.app().await;
    let chat = app.chats().create(Some("branches")).await.expect("chat");
    let ws = app.workspace_dir(&chat.id);
    write(&ws, "shared.txt", "common ground");
    let base = snap(&app, &chat.id).await.message_id.expect("base");

    let ask_a = app
        .workspace()
        .append_message(&chat.id, None, Role::User, text("plan A"))
        .await
        .expect("a");
    write(&ws, "plan.txt", "A");
    write(&ws, "only-a/x.bin", [0u8, 159, 146, 150]);
    let a = snap(&app, &chat.id).await.message_id.expect("a node");
    let state_a = tree_of(&ws);

    let ask_b = app
        .workspace()
        .append_message(&chat.id, Some(&base), Role::User, text("plan B"))
        .await
        .expect("b");
    assert_eq!(ask_b.parent_id.as_deref(), Some(base.as_str()));
    assert_eq!(
        tree_of(&ws),
        vec![("shared.txt".to_owned(), b"common ground".to_vec())],
        "B starts from the base"
    );
    write(&ws, "plan.txt", "B, longer");
    std::fs::remove_file(ws.join("shared.txt")).expect("rm");
    let b = snap(&app, &chat.id).await.message_id.expect("b node");
    let state_b = tree_of(&ws);

    for _ in 0..3 {
        app.workspace().checkout(&chat.id, &a).await.expect("to a");
        assert_eq!(tree_of(&ws), state_a);
        app.workspace().checkout(&chat.id, &b).await.expect("to b");
        assert_eq!(tree_of(&ws), state_b);
    }
    // Siblings are listed in creation order and the active branch is marked.
    let tree = app.chats().tree(&chat.id).await.expect("tree");
    let base_node = tree.iter().find(|n| n.message.id == base).expect("base node");
    assert_eq!(base_node.children, [ask_a.id.clone(), ask_b.id.clone()]);
    let active: Vec<&str> = tree
        .iter()
        .filter(|n| n.on_active_branch)
        .map(|n| n.message.id.as_str())
        .collect();
    assert_eq!(
        active,
        [
            chat.root_message_id.as_str(),
            base.as_str(),
            ask_b.id.as_str(),
            b.as_str()
        ]
    );

    let d = app.workspace().diff(&chat.id, &a, &b).await.expect("diff");
    assert_eq!(d.added, Vec::<String>::new());
    assert_eq!(d.removed, ["only-a/x.bin", "shared.txt"]);
    assert_eq!(d.modified.len(), 1);
    let plan = &d.modified[0];
    assert_eq!(plan.path, "plan.txt");
    let patch = plan.diff.as_deref().expect("text diff");
    assert!(patch.contains("-A") && patch.contains("+B, longer"), "{patch}");
}

#[tokio::test]
async fn hand_edits_are_recorded_before_a_branch_switch() {
    let env = Env::new();
    let app = env.app().await;
    let chat = app.chats().create(None).await.expect("chat");
    let ws = app.workspace_dir(&chat.id);
    write(&ws, "draft.md", "v1");
    let v1 = snap(&app, &chat.id).await.message_id.expect("v1");

    // Someone edits the file in their editor and never snapshots…
    write(&ws, "draft.md", "v2 — an hour of work");
    write(&ws, "img.png", [137u8, 80, 78, 71, 0, 1]);
    // …then switches to the root.
    app.workspace()
        .checkout(&chat.id, &chat.root_message_id)
        .await
        .expect("checkout");
    assert!(tree_of(&ws).is_empty());

    // The edit became a node under v1, and it can be brought back.
    let tree = app.chats().tree(&chat.id).await.expect("tree");
    let v1_node = tree.iter().find(|n| n.message.id == v1).expect("v1");
    assert_eq!(
        v1_node.children.len(),
        1,
        "the hand edit is a child of the leaf it was made on"
    );
    let edit = tree.iter().find(|n| n.message.id == v1_node.children[0]).expect("edit");
    assert_eq!(edit.message.role, Role::Edit);
    app.workspace()
        .checkout(&chat.id, &edit.message.id)
        .await
        .expect("back");
    assert_eq!(
        std::fs::read_to_string(ws.join("draft.md")).expect("read"),
        "v2 — an hour of work"
    );

    let d = app
        .workspace()
        .diff(&chat.id, &v1, &edit.message.id)
        .await
        .expect("diff");
    assert_eq!(d.added, ["img.png"]);
    let json = serde_json::to_value(&d).expect("json");
    assert_eq!(json["modified"][0]["path"], "draft.md");
    assert!(
        json["modified"][0]["diff"]
            .as_str()
            .expect("diff")
            .contains("+v2 — an hour of work")
    );
}

#[tokio::test]
async fn binary_and_mode_changes_are_reported_as_such() {
    let env = Env::new();
    let app = env.app().await;
    let chat = app.chats().create(None).await.expect("chat");
    let ws = app.workspace_dir(&chat.id);
    write(&ws, "blob.bin", [0u8, 1, 2]);
    write(&ws, "tool.sh", "echo");
    let a = snap(&app, &chat.id).await.message_id.expect("a");
    write(&ws, "blob.bin", [0u8, 1, 3]);
    std::fs::set_permissions(ws.join("tool.sh"), std::os::unix::fs::PermissionsExt::from_mode(0o755)).expect("chmod");
    let b = snap(&app, &chat.id).await.message_id.expect("b");
    let d = serde_json::to_value(app.workspace().diff(&chat.id, &a, &b).await.expect("diff")).expect("json");
    assert_eq!(
        d["modified"][0],
        serde_json::json!({"path": "blob.bin", "binary": true})
    );
    assert_eq!(
        d["modified"][1],
        serde_json::json!({"path": "tool.sh", "mode_only": true, "mode_from": 0o644, "mode_to": 0o755})
    );
}

#[tokio::test]
async fn switching_to_a_branch_lands_on_its_newest_leaf() {
    let env = Env::new();
    let app = env.app().await;
    let chat = app.chats().create(None).await.expect("chat");
    let ws = app.workspace_dir(&chat.id);
    write(&ws, "a.txt", "a");
    let a = snap(&app, &chat.id).await.message_id.expect("a");
    write(&ws, "a.txt", "a1");
    let a1 = snap(&app, &chat.id).await.message_id.expect("a1");
    app.workspace().checkout(&chat.id, &a).await.expect("back to a");
    write(&ws, "a.txt", "a2");
    let a2 = snap(&app, &chat.id).await.message_id.expect("a2");
    write(&ws, "b.txt", "deeper");
    let a2_child = snap(&app, &chat.id).await.message_id.expect("a2 child");

    app.workspace().checkout(&chat.id, &a1).await.expect("to a1");
    assert_eq!(
        app.chats().latest_leaf(&chat.id, &a).await.expect("leaf"),
        a2_child,
        "the newest child, then down"
    );
    assert_eq!(
        app.chats().latest_leaf(&chat.id, &a1).await.expect("leaf"),
        a1,
        "a leaf is its own"
    );
    // The tree says the same for every node, so a view never works it out.
    let tree = app.chats().tree(&chat.id).await.expect("tree");
    for node in &tree {
        let asked = app.chats().latest_leaf(&chat.id, &node.message.id).await.expect("leaf");
        assert_eq!(node.latest_leaf, asked, "node {}", node.message.id);
    }
    let now = app
        .workspace()
        .switch_branch(&chat.id, &a2, &Default::default())
        .await
        .expect("switch");
    assert_eq!(now.active_leaf_message_id, a2_child);
    assert_eq!(std::fs::read_to_string(ws.join("b.txt")).expect("b"), "deeper");
    let now = app
        .workspace()
        .switch_branch(&chat.id, &a1, &Default::default())
        .await
        .expect("switch back");
    assert_eq!(now.active_leaf_message_id, a1);
    assert!(!ws.join("b.txt").exists());
    assert_eq!(std::fs::read_to_string(ws.join("a.txt")).expect("a"), "a1");
}

/// A file a person writes while a switch runs, where the other branch has
/// a folder, is kept (it was deleted without trace before), the folder's
/// files are not made, and the rest of the switch goes through.
#[tokio::test]
async fn a_file_written_by_hand_where_a_folder_goes_is_kept_and_the_switch_goes_on() {
    let env = Env::new();
    let chat = env.json(&["chat", "new"])["id"].as_str().expect("id").to_owned();
    let ws = env.data().join("chats").join(&chat).join("workspace");
    write(&ws, "notes/a.md", "from B");
    write(&ws, "other.txt", "B");
    let b = env.json(&["workspace", "snapshot", &chat])["message_id"]
        .as_str()
        .expect("B")
        .to_owned();
    std::fs::remove_dir_all(ws.join("notes")).expect("rm");
    write(&ws, "notes", "a file on A");
    write(&ws, "other.txt", "A");
    env.ok(&["workspace", "snapshot", &chat]);

    let out = checkout_paused(&env, &chat, &b, || {
        write(&ws, "notes", "IMPORTANT HAND EDIT");
    });
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("notes: changed by hand"), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(ws.join("notes")).expect("kept"),
        "IMPORTANT HAND EDIT"
    );
    assert_eq!(
        std::fs::read_to_string(ws.join("other.txt")).expect("other"),
        "B",
        "the switch went on"
    );
    let s = env.json(&["workspace", "snapshot", &chat]);
    assert_eq!(s["changed"], true, "the hand edit is recorded: {s}");
}

/// A person edits, creates and deletes files at the worst moment: after the
/// checkout recorded the folder and verified its blobs, before it touches
/// anything (the `after-verify:pause` failpoint holds it there). Every one
/// of those changes survives and the next snapshot records it; the rest of
/// the checkout happens as usual.
#[tokio::test]
async fn hand_edits_made_while_a_checkout_runs_are_kept_and_recorded() {
    let env = Env::new();
    let chat = env.json(&["chat", "new"])["id"].as_str().expect("id").to_owned();
    let ws = env.data().join("chats").join(&chat).join("workspace");
    for f in ["replaced.txt", "deleted.txt", "plain.txt", "created.txt"] {
        write(&ws, f, "one");
    }
    let one = env.json(&["workspace", "snapshot", &chat])["message_id"]
        .as_str()
        .expect("first state")
        .to_owned();
    for f in ["replaced.txt", "deleted.txt", "plain.txt", "doomed.txt"] {
        write(&ws, f, "two");
    }
    std::fs::remove_file(ws.join("created.txt")).expect("remove");
    env.ok(&["workspace", "snapshot", &chat]);
    // Going back to `one`: replaced/deleted/plain get "one" again,
    // created.txt comes back, doomed.txt goes away.

    let out = checkout_paused(&env, &chat, &one, || {
        write(&ws, "replaced.txt", "edited by hand");
        write(&ws, "doomed.txt", "saved by hand");
        write(&ws, "created.txt", "made by hand");
        std::fs::remove_file(ws.join("deleted.txt")).expect("delete by hand");
    });
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    for f in ["replaced.txt", "doomed.txt", "deleted.txt", "created.txt"] {
        assert!(stderr.contains(&format!("{f}: changed by hand")), "{f} named: {stderr}");
    }

    let read = |f: &str| std::fs::read_to_string(ws.join(f)).ok();
    assert_eq!(read("replaced.txt").as_deref(), Some("edited by hand"));
    assert_eq!(read("doomed.txt").as_deref(), Some("saved by hand"));
    assert_eq!(read("created.txt").as_deref(), Some("made by hand"));
    assert_eq!(read("deleted.txt"), None, "a deletion by hand stays a deletion");
    assert_eq!(
        read("plain.txt").as_deref(),
        Some("one"),
        "the checkout itself happened"
    );

    let s = env.json(&["workspace", "snapshot", &chat]);
    assert_eq!(s["changed"], true, "the hand edits are recorded: {s}");
    let cat = |f: &str| env.cli(&["workspace", "cat", &chat, f]);
    assert_eq!(String::from_utf8_lossy(&cat("replaced.txt").stdout), "edited by hand");
    assert_eq!(String::from_utf8_lossy(&cat("doomed.txt").stdout), "saved by hand");
    assert_eq!(String::from_utf8_lossy(&cat("created.txt").stdout), "made by hand");
    assert!(
        !cat("deleted.txt").status.success(),
        "deleted.txt is not in the new state"
    );
    assert_eq!(
        env.json(&["workspace", "snapshot", &chat])["changed"],
        false,
        "recorded once"
    );
}

/// `atelier chat checkout chat target`, held at its `after-verify:pause`
/// failpoint (the folder recorded and the blobs verified, nothing touched
/// yet) while `meanwhile` does what a person would; then let go.
fn checkout_paused(env: &Env, chat: &str, target: &str, meanwhile: impl FnOnce()) -> std::process::Output {
    let flag = env.data().join("paused");
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_atelier"))
        .arg("--data-dir")
        .arg(env.data())
        .args(["chat", "checkout", chat, target])
        .env("ATELIER_FAILPOINT", "after-verify:pause")
        .env("ATELIER_FAILPOINT_FLAG", &flag)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn checkout");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !flag.exists() {
        assert!(
            std::time::Instant::now() < deadline,
            "the checkout never reached the failpoint"
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    meanwhile();
    std::fs::remove_file(&flag).expect("release the checkout");
    child.wait_with_output().expect("checkout")
}
