//! A data dir this process cannot write (a read-only copy, a mount, an
//! immutable folder): reading commands work and change nothing; writing
//! ones fail with one line naming the data dir as read-only.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::{Env, tree_of};

/// Makes a folder read-only for this process until dropped. Root writes
/// through modes, so as root the folder and everything in it are made
/// immutable (`chattr +i`, which ext4, XFS and Btrfs know); anyone else
/// gets modes without write permission.
struct ReadOnly {
    dir: PathBuf,
    root: bool,
}

impl ReadOnly {
    fn make(dir: &Path) -> Self {
        let root = rustix::process::geteuid().is_root();
        let status = if root {
            Command::new("chattr").arg("-R").arg("+i").arg(dir).status()
        } else {
            Command::new("chmod").arg("-R").arg("a-w").arg(dir).status()
        };
        assert!(
            status.as_ref().is_ok_and(|s| s.success()),
            "could not make {} read-only ({status:?}){}",
            dir.display(),
            if root {
                ": as root this needs `chattr +i`, which the temp folder's file system must support"
            } else {
                ""
            }
        );
        Self {
            dir: dir.to_owned(),
            root,
        }
    }
}

impl Drop for ReadOnly {
    fn drop(&mut self) {
        let _ = if self.root {
            Command::new("chattr").arg("-R").arg("-i").arg(&self.dir).status()
        } else {
            Command::new("chmod").arg("-R").arg("u+w").arg(&self.dir).status()
        };
    }
}

#[test]
fn a_read_only_data_dir_is_read_and_every_change_is_refused_naming_it() {
    let env = Env::new();
    let chat = env.json(&["chat", "new", "--title", "Notes"]);
    let chat_id = chat["id"].as_str().expect("id").to_owned();
    let root = chat["root_message_id"].as_str().expect("root").to_owned();
    let said = env.json(&["chat", "say", &chat_id, "hello"]);
    let hello = said["id"].as_str().expect("message id").to_owned();
    let before = tree_of(env.data());

    let read_only = ReadOnly::make(env.data());
    let listed = env.ok(&["chat", "list"]);
    assert!(listed.contains("Notes"), "{listed}");
    let shown = env.ok(&["chat", "show", &chat_id]);
    assert!(shown.contains("hello"), "{shown}");
    env.ok(&["workspace", "ls", &chat_id]);

    let refusal = format!("error: the data dir {} is read-only: ", env.data().display());
    for args in [
        vec!["chat", "new", "--title", "Other"],
        vec!["chat", "say", &chat_id, "more"],
        vec!["chat", "rename", &chat_id, "Renamed"],
        vec!["chat", "checkout", &chat_id, &root],
        vec!["workspace", "snapshot", &chat_id],
    ] {
        let out = env.cli(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "atelier {args:?} did not fail");
        assert!(
            err.starts_with(&refusal) && err.lines().count() == 1,
            "atelier {args:?} said:\n{err}"
        );
    }
    drop(read_only);
    assert_eq!(tree_of(env.data()), before, "nothing in the data dir changed");
    let shown = env.json(&["chat", "show", &chat_id]);
    assert!(
        shown.to_string().contains(&hello),
        "and it still works writable: {shown}"
    );
}
