//! A hostile host: the CLI killed mid-call takes its Python worker and the
//! tool with it; a file or folder the person cannot read keeps its last
//! recorded version and the chat stays usable; a data dir Atelier makes is
//! its owner's alone.

use crate::Env;

/// `atelier-worker` processes whose environment names this data dir.
fn workers_of(data: &std::path::Path) -> Vec<u32> {
    let needle = data.to_string_lossy().into_owned();
    std::fs::read_dir("/proc")
        .map(|d| {
            d.flatten()
                .filter_map(|e| e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()))
                .filter(|pid| {
                    let cmd = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
                    let env = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
                    String::from_utf8_lossy(&cmd).contains("atelier-worker")
                        && String::from_utf8_lossy(&env).contains(&needle)
                })
                .collect()
        })
        .unwrap_or_default()
}

/// A toolset `spin` whose one tool writes `count.txt` every 10 ms for 30 s.
pub(crate) fn spin_toolset(dir: &std::path::Path) -> std::path::PathBuf {
    let manifest = "manifest_version: \"1\"\nid: spin\nname: Spin\nversion: \"1.0.0\"\ntools:\n  - id: spin\n    \
                    entrypoint: tools.spin:run\n    timeout_s: 60\n    input_schema: {type: object}\n";
    let code = b"import time\n\ndef run(workspace):\n    for i in range(3000):\n        (workspace / 'count.txt').write_text(str(i))\n        time.sleep(0.01)\n    return {}\n";
    crate::bundles::zip_of(
        dir,
        "spin.zip",
        &[("toolset.yaml", manifest.as_bytes()), ("tools/spin.py", code)],
    )
}

/// A model that calls `spin.spin` once, then answers `then`.
pub(crate) async fn spin_call_server(then: &str) -> atelier_llm::replay::ReplayServer {
    use crate::conversation::{answer, chunk};
    use atelier_core::routing::exposure::{Exposure, wire_names};
    let wire = wire_names(["spin.spin"], Exposure::Openai).remove(0);
    atelier_llm::replay::ReplayServer::start(vec![
        atelier_llm::replay::Reply::sse(&[
            chunk(
                serde_json::json!({"tool_calls": [{"index": 0, "id": "call_spin", "type": "function",
                    "function": {"name": wire, "arguments": "{}"}}]}),
                None,
            ),
            chunk(serde_json::json!({}), Some("tool_calls")),
            "data: [DONE]".to_owned(),
        ]),
        answer(then),
    ])
    .await
    .expect("server")
}

#[test]
fn a_killed_cli_takes_its_python_worker_and_the_tool_with_it() {
    let env = Env::new();
    let t = tempfile::tempdir().expect("tmp");
    let zip = spin_toolset(t.path());
    env.ok(&["toolset", "import", zip.to_str().expect("utf-8")]);
    let chat = env.json(&["chat", "new"])["id"].as_str().expect("id").to_owned();
    let count = env.data().join("chats").join(&chat).join("workspace/count.txt");
    let mut cli = std::process::Command::new(env!("CARGO_BIN_EXE_atelier"))
        .arg("--data-dir")
        .arg(env.data())
        .args(["run", "spin:spin", "--chat", &chat, "--quiet"])
        .env_remove("ATELIER_DATA_DIR")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn");
    let until = |secs: u64, mut done: Box<dyn FnMut() -> bool>| {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(secs);
        while !done() && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        done()
    };
    let c = count.clone();
    assert!(until(30, Box::new(move || c.exists())), "the tool never started");
    assert!(!workers_of(env.data()).is_empty(), "a worker runs the tool");
    cli.kill().expect("SIGKILL the CLI");
    cli.wait().expect("reap");
    let data = env.data().to_path_buf();
    assert!(
        until(5, Box::new(move || workers_of(&data).is_empty())),
        "the worker outlived its caller: {:?}",
        workers_of(env.data())
    );
    let before = std::fs::read_to_string(&count).expect("read");
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert_eq!(
        std::fs::read_to_string(&count).expect("read"),
        before,
        "the tool stopped writing"
    );
}

#[test]
fn an_unreadable_file_or_folder_keeps_its_last_version_and_the_chat_stays_usable() {
    use std::os::unix::fs::PermissionsExt;
    let env = Env::new();
    let data = env.data().to_path_buf();
    // Root reads everything: run the CLI as an unprivileged user then, in a
    // data dir that user owns (CI runs as root).
    let root = effective_uid() == 0;
    // As root, a copy of the binary the unprivileged user can run wherever
    // the checkout lives (a clone under a private home would not be).
    let bin = cli_for(&data, root);
    if root {
        std::fs::set_permissions(&data, std::fs::Permissions::from_mode(0o777)).expect("chmod");
    }
    let cli = |args: &[&str]| {
        let mut cmd = if root {
            let mut c = std::process::Command::new("setpriv");
            c.args(["--reuid=65534", "--regid=65534", "--clear-groups"]).arg(&bin);
            c
        } else {
            std::process::Command::new(env!("CARGO_BIN_EXE_atelier"))
        };
        cmd.arg("--data-dir")
            .arg(&data)
            .args(args)
            .env_remove("ATELIER_DATA_DIR");
        cmd.output().expect("run atelier")
    };
    let ok = |args: &[&str]| {
        let out = cli(args);
        assert!(
            out.status.success(),
            "atelier {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        out
    };
    let created = ok(&["--json", "chat", "new"]);
    let chat: serde_json::Value = serde_json::from_slice(&created.stdout).expect("json");
    let chat = chat["id"].as_str().expect("id").to_owned();
    let ws = data.join("chats").join(&chat).join("workspace");
    let put = |rel: &str, text: &str| {
        crate::write(&ws, rel, text);
        std::fs::set_permissions(ws.join(rel), std::fs::Permissions::from_mode(0o666)).expect("chmod");
    };
    put("a.txt", "v1");
    put("secret/b.txt", "b1");
    put("plain.txt", "p1");
    std::fs::set_permissions(ws.join("secret"), std::fs::Permissions::from_mode(0o777)).expect("chmod");
    ok(&["workspace", "snapshot", &chat]);

    // Now a.txt changes and becomes unreadable, secret/ too; plain.txt changes.
    put("a.txt", "v2");
    std::fs::set_permissions(ws.join("a.txt"), std::fs::Permissions::from_mode(0o000)).expect("chmod");
    std::fs::set_permissions(ws.join("secret"), std::fs::Permissions::from_mode(0o000)).expect("chmod");
    put("plain.txt", "p2");
    let out = ok(&["workspace", "snapshot", &chat]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("a.txt: not readable") && err.contains("secret: not readable"),
        "{err}"
    );
    // Recorded: the readable change, and the last versions of the rest.
    assert_eq!(
        String::from_utf8_lossy(&ok(&["workspace", "cat", &chat, "plain.txt"]).stdout),
        "p2"
    );
    assert_eq!(
        String::from_utf8_lossy(&ok(&["workspace", "cat", &chat, "a.txt"]).stdout),
        "v1"
    );
    assert_eq!(
        String::from_utf8_lossy(&ok(&["workspace", "cat", &chat, "secret/b.txt"]).stdout),
        "b1"
    );
    // The chat stays usable: a tool runs.
    ok(&[
        "run",
        "write_file",
        "--chat",
        &chat,
        "--args",
        r#"{"path": "new.txt", "content": "x"}"#,
    ]);
    std::fs::set_permissions(ws.join("secret"), std::fs::Permissions::from_mode(0o777)).expect("chmod back");
}

/// The CLI to run in the unreadable-file test: as root, a copy in the data
/// dir, readable and runnable by everyone.
fn cli_for(data: &std::path::Path, root: bool) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let original = std::path::PathBuf::from(env!("CARGO_BIN_EXE_atelier"));
    if !root {
        return original;
    }
    let copy = data.join("atelier-cli-copy");
    std::fs::copy(&original, &copy).expect("copy the binary");
    std::fs::set_permissions(&copy, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    copy
}

/// The effective user id, read from /proc (no libc in these tests).
fn effective_uid() -> u32 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("Uid:"))
        .and_then(|v| v.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(u32::MAX)
}

/// A data dir Atelier makes is the person's alone: other local users could
/// read every chat's files and blobs (written 0644 inside) through a 0755
/// folder. One that exists (a `--data-dir` chosen to be shared) is left as
/// it is.
#[tokio::test]
async fn a_data_dir_atelier_makes_is_readable_by_its_owner_only() {
    use std::os::unix::fs::PermissionsExt;
    let env = Env::new();
    let fresh = env.data().join("home/.local/share/atelier");
    atelier_core::Atelier::open(atelier_core::DataDir::new(&fresh))
        .await
        .expect("open");
    let mode = |p: &std::path::Path| std::fs::metadata(p).expect("meta").permissions().mode() & 0o777;
    assert_eq!(mode(&fresh), 0o700, "the data dir");
    assert_eq!(
        mode(&env.data().join("home/.local/share")),
        usual_dir_mode(),
        "a folder on the way"
    );
    let shared = env.data().join("shared");
    std::fs::create_dir(&shared).expect("mkdir");
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    atelier_core::Atelier::open(atelier_core::DataDir::new(&shared))
        .await
        .expect("open");
    assert_eq!(mode(&shared), 0o755, "a folder that existed");
}

/// The mode a folder made the usual way gets here (0777 less the umask).
fn usual_dir_mode() -> u32 {
    use std::os::unix::fs::PermissionsExt;
    let probe = tempfile::tempdir().expect("tmp");
    let dir = probe.path().join("probe");
    std::fs::create_dir(&dir).expect("mkdir");
    std::fs::metadata(&dir).expect("meta").permissions().mode() & 0o777
}
