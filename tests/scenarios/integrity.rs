//! What happens when things go wrong: missing and corrupt blobs, crashes,
//! concurrent processes. (A killed CLI and unreadable files:
//! [`crate::hostile_host`].)

use std::process::Stdio;

use crate::{Env, blob_path, snap, tree_of, write};

/// A chat with two states: E1 = {a.txt: "one"}, E2 = {a.txt: "two", b.txt}.
/// Returns (chat id, e1, e2, sha of E2's a.txt); the workspace is at E1.
async fn two_states(env: &Env) -> (String, String, String, String) {
    let app = env.app().await;
    let chat = app.chats().create(None).await.expect("chat");
    let ws = app.workspace_dir(&chat.id);
    write(&ws, "a.txt", "one");
    let e1 = snap(&app, &chat.id).await.message_id.expect("e1");
    write(&ws, "a.txt", "two");
    write(&ws, "b.txt", "bee");
    let e2 = snap(&app, &chat.id).await.message_id.expect("e2");
    let sha = app
        .workspace()
        .list_files(&chat.id, None)
        .await
        .expect("ls")
        .into_iter()
        .find(|f| f.path == "a.txt")
        .expect("a")
        .sha256;
    app.workspace().checkout(&chat.id, &e1).await.expect("back to e1");
    app.close().await;
    (chat.id, e1, e2, sha)
}

#[tokio::test]
async fn a_missing_blob_is_reported_and_the_workspace_left_as_it_was() {
    let env = Env::new();
    let (chat, e1, e2, sha) = two_states(&env).await;
    let app = env.app().await;
    let ws = app.workspace_dir(&chat);
    let before = tree_of(&ws);
    std::fs::remove_file(blob_path(env.data(), &chat, &sha)).expect("rm blob");
    let err = app.workspace().checkout(&chat, &e2).await.expect_err("missing blob");
    assert_eq!(err.kind(), "missing_blob");
    let msg = err.to_string();
    assert!(msg.contains("a.txt") && msg.contains(&sha), "{msg}");
    assert_eq!(tree_of(&ws), before, "nothing was applied, not even the good b.txt");
    assert_eq!(app.chats().get(&chat).await.expect("chat").active_leaf_message_id, e1);
    assert!(!env.data().join("chats").join(&chat).join("staging").exists());
}

#[tokio::test]
async fn a_corrupt_blob_is_detected_by_its_hash() {
    let env = Env::new();
    let (chat, _e1, e2, sha) = two_states(&env).await;
    let app = env.app().await;
    let ws = app.workspace_dir(&chat);
    let before = tree_of(&ws);
    std::fs::write(blob_path(env.data(), &chat, &sha), "tw0").expect("corrupt");
    let err = app.workspace().checkout(&chat, &e2).await.expect_err("corrupt blob");
    assert_eq!(err.kind(), "corrupt_blob");
    assert!(
        err.to_string().contains("a.txt") && err.to_string().contains(&sha),
        "{err}"
    );
    assert_eq!(tree_of(&ws), before);
    let cat = app
        .workspace()
        .read_file(&chat, "a.txt", Some(&e2))
        .await
        .expect_err("cat verifies too");
    assert_eq!(cat.kind(), "corrupt_blob");
}

#[tokio::test]
async fn a_crash_between_durable_blobs_and_the_manifest_row_loses_nothing() {
    let env = Env::new();
    let chat = env.json(&["chat", "new"])["id"].as_str().expect("id").to_owned();
    let ws = env.data().join("chats").join(&chat).join("workspace");
    write(&ws, "report.txt", "important work");
    let manifests_before = env.json(&["chat", "show", &chat, "--tree"])["messages"]
        .as_array()
        .expect("messages")
        .len();

    // The process dies (SIGABRT) after the blobs are synced, before the row.
    let out = env.cli_env(
        &["workspace", "snapshot", &chat],
        &[("ATELIER_FAILPOINT", "after-blobs:abort")],
    );
    assert!(!out.status.success(), "the failpoint should have killed the process");
    let after_crash = env.json(&["chat", "show", &chat, "--tree"]);
    assert_eq!(
        after_crash["messages"].as_array().expect("messages").len(),
        manifests_before,
        "no half-recorded node"
    );
    assert!(
        !env.data()
            .join("chats")
            .join(&chat)
            .join("blobs/tmp")
            .read_dir()
            .map(|mut d| d.next().is_some())
            .unwrap_or(false)
    );

    // The edit is still in the folder and the next snapshot records it.
    let s = env.json(&["workspace", "snapshot", &chat]);
    assert_eq!(s["changed"], true);
    assert_eq!(env.ok(&["workspace", "cat", &chat, "report.txt"]), "important work");

    // Every manifest of the chat names only blobs that exist and verify.
    let app = env.app().await;
    for node in app.chats().tree(&chat).await.expect("tree") {
        for f in app
            .workspace()
            .list_files(&chat, Some(&node.message.id))
            .await
            .expect("ls")
        {
            app.workspace()
                .read_file(&chat, &f.path, Some(&node.message.id))
                .await
                .expect("blob verifies");
        }
    }
}

#[tokio::test]
async fn a_failure_after_verifying_leaves_the_workspace_untouched() {
    let env = Env::new();
    let (chat, e1, e2, _) = two_states(&env).await;
    let ws = env.data().join("chats").join(&chat).join("workspace");
    let before = tree_of(&ws);
    let out = env.cli_env(
        &["chat", "checkout", &chat, &e2],
        &[("ATELIER_FAILPOINT", "after-verify")],
    );
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("error: ") && stderr.lines().count() == 1,
        "one clear line: {stderr}"
    );
    assert_eq!(tree_of(&ws), before);
    assert_eq!(
        env.json(&["chat", "show", &chat])["chat"]["active_leaf_message_id"],
        e1.as_str()
    );
    env.ok(&["chat", "checkout", &chat, &e2]);
    assert_eq!(std::fs::read_to_string(ws.join("b.txt")).expect("b"), "bee");
}

#[tokio::test]
async fn two_processes_snapshotting_one_chat_record_the_edit_once() {
    let env = Env::new();
    let chat = env.json(&["chat", "new"])["id"].as_str().expect("id").to_owned();
    let ws = env.data().join("chats").join(&chat).join("workspace");
    for i in 0..300 {
        write(&ws, &format!("d{}/f{i}.txt", i % 7), format!("file {i}").repeat(50));
    }
    let spawn = || {
        std::process::Command::new(env!("CARGO_BIN_EXE_atelier"))
            .arg("--data-dir")
            .arg(env.data())
            .args(["workspace", "snapshot", &chat, "--json"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn")
    };
    let (a, b) = (spawn(), spawn());
    let outs = [a.wait_with_output().expect("a"), b.wait_with_output().expect("b")];
    let mut changed = Vec::new();
    for o in &outs {
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
        changed.push(v["changed"].as_bool().expect("changed"));
    }
    changed.sort();
    assert_eq!(changed, [false, true], "exactly one process records the edit");
    let tree = env.json(&["chat", "show", &chat, "--tree"]);
    assert_eq!(
        tree["messages"].as_array().expect("messages").len(),
        2,
        "root + one edit node"
    );
}

/// Blobs a crashed snapshot left behind (synced, but no manifest names them)
/// are removed by `atelier gc`; every blob a manifest names stays.
#[tokio::test]
async fn gc_removes_blobs_no_manifest_references_and_keeps_the_rest() {
    let env = Env::new();
    let chat = env.json(&["chat", "new"])["id"].as_str().expect("id").to_owned();
    let ws = env.data().join("chats").join(&chat).join("workspace");
    write(&ws, "kept.txt", "recorded");
    env.ok(&["workspace", "snapshot", &chat]);
    write(&ws, "lost.txt", "never recorded");
    let out = env.cli_env(
        &["workspace", "snapshot", &chat],
        &[("ATELIER_FAILPOINT", "after-blobs:abort")],
    );
    assert!(!out.status.success(), "the failpoint should have killed the process");
    std::fs::remove_file(ws.join("lost.txt")).expect("rm");
    let orphan = blob_path(
        env.data(),
        &chat,
        &atelier_core::store::Hash::of(b"never recorded").to_hex(),
    );
    assert!(orphan.is_file(), "the crashed snapshot left its blob");

    let report = env.json(&["gc"]);
    assert_eq!(report["blobs_removed"], 1, "{report}");
    assert_eq!(report["bytes_freed"], "never recorded".len(), "{report}");
    assert!(!orphan.exists());
    assert!(blob_path(env.data(), &chat, &atelier_core::store::Hash::of(b"recorded").to_hex()).is_file());
    assert_eq!(env.ok(&["workspace", "cat", &chat, "kept.txt"]), "recorded");
    // Nothing left to collect.
    assert_eq!(env.json(&["gc"])["blobs_removed"], 0);
}

#[tokio::test]
async fn a_chat_delete_killed_half_way_is_put_right_on_the_next_start() {
    let env = Env::new();
    for (failpoint, kept) in [
        ("delete-before-commit:abort", true),
        ("delete-after-commit:abort", false),
    ] {
        let chat = env.json(&["chat", "new"])["id"].as_str().expect("id").to_owned();
        let ws = env.data().join("chats").join(&chat).join("workspace");
        crate::write(&ws, "notes.txt", "mine");
        env.ok(&["workspace", "snapshot", &chat]);
        let out = env.cli_env(&["chat", "delete", &chat], &[("ATELIER_FAILPOINT", failpoint)]);
        assert!(
            !out.status.success(),
            "{failpoint}: the failpoint should have killed the process"
        );
        let app = env.app().await;
        let exists = app.chats().get(&chat).await.is_ok();
        assert_eq!(exists, kept, "{failpoint}");
        let folder = env.data().join("chats").join(&chat);
        assert_eq!(folder.exists(), kept, "{failpoint}: the folder follows the row");
        if kept {
            assert_eq!(std::fs::read_to_string(ws.join("notes.txt")).expect("back"), "mine");
        }
        let trash: Vec<String> = std::fs::read_dir(env.data().join("chats"))
            .expect("dir")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with('.'))
            .collect();
        assert!(trash.is_empty(), "{failpoint}: left {trash:?}");
        app.close().await;
    }
}

/// A blob damaged in place (same size) is found when it is read and moved
/// aside; a truncated one is found by the next snapshot that stores its
/// content. Either way, snapshotting a good copy of the file repairs every
/// state that names it, and `gc` then drops the bad copy.
#[tokio::test]
async fn a_snapshot_of_a_good_copy_repairs_a_damaged_blob() {
    let env = Env::new();
    let (chat, _e1, e2, sha) = two_states(&env).await;
    let app = env.app().await;
    let ws = app.workspace_dir(&chat);
    let blob = blob_path(env.data(), &chat, &sha);
    let aside = env.data().join("chats").join(&chat).join("blobs/corrupt").join(&sha);

    // Damaged in place: the read that finds it moves it aside.
    std::fs::write(&blob, "tw0").expect("damage");
    let err = app.workspace().checkout(&chat, &e2).await.expect_err("corrupt");
    assert!(err.to_string().contains("a snapshot of a good copy"), "{err}");
    assert!(aside.is_file() && !blob.exists(), "the bad copy is kept aside");
    let again = app
        .workspace()
        .read_file(&chat, "a.txt", Some(&e2))
        .await
        .expect_err("still bad");
    assert_eq!(again.kind(), "corrupt_blob", "said as corrupt, not missing: {again}");

    write(&ws, "a.txt", "two");
    snap(&app, &chat).await;
    assert_eq!(
        app.workspace()
            .read_file(&chat, "a.txt", Some(&e2))
            .await
            .expect("repaired"),
        b"two"
    );
    app.workspace()
        .checkout(&chat, &e2)
        .await
        .expect("checkout works again");
    let report = app
        .workspace()
        .gc(&atelier_core::Observer::default())
        .await
        .expect("gc");
    assert!(!aside.exists(), "gc drops the repaired blob's bad copy: {report:?}");
    assert!(blob.is_file());

    // Truncated: the snapshot storing the same content again notices.
    std::fs::write(&blob, "t").expect("truncate");
    write(&ws, "copy-of-a.txt", "two");
    snap(&app, &chat).await;
    assert_eq!(std::fs::read(&blob).expect("blob"), b"two", "stored again whole");
}

/// `atelier gc --verify` finds damage that keeps the size (nothing reads
/// the blob until a checkout needs it) and moves it aside, so the next
/// snapshot of a good copy repairs it; without `--verify` nothing is read.
#[tokio::test]
async fn gc_verify_finds_same_size_damage_before_a_checkout_does() {
    let env = Env::new();
    let (chat, _e1, e2, sha) = two_states(&env).await;
    let blob = blob_path(env.data(), &chat, &sha);
    std::fs::write(&blob, "tw0").expect("damage, same size");
    let plain = env.json(&["gc"]);
    assert_eq!(plain["blobs_corrupt"], 0, "plain gc reads nothing: {plain}");
    assert!(blob.is_file());

    let checked = env.json(&["gc", "--verify"]);
    assert_eq!(checked["blobs_corrupt"], 1, "{checked}");
    assert!(!blob.exists(), "moved aside");
    let said = env.ok(&["gc", "--verify"]);
    assert!(said.contains("every kept blob matches its hash"), "{said}");

    // The person still has a good copy: one snapshot repairs the state.
    let ws = env.data().join("chats").join(&chat).join("workspace");
    write(&ws, "good-copy.txt", "two");
    env.ok(&["workspace", "snapshot", &chat]);
    assert_eq!(env.ok(&["workspace", "cat", &chat, "a.txt", "--manifest", &e2]), "two");
}
