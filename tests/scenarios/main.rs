//! Scenario tests: the core and the `atelier` binary together, with a real
//! SQLite file and real files on disk in a temp data dir.
//!
//! Table of contents:
//! - [`schema`]: migrations on a fresh database, foreign keys, what
//!   cascades and what must survive (tool-call history).
//! - [`round_trips`]: snapshot → materialize round trips: executable bits,
//!   unicode names, deletions, emptied folders, symlinks, big and empty
//!   workspaces, manifest storage cost.
//! - [`integrity`]: missing and corrupt blobs, a crash between durable blobs
//!   and the manifest row, two processes on one chat.
//! - [`half_done`]: work a crash cut half-way: a checkout killed while it
//!   moved the folder finished (not taken for the person's edit), and what
//!   a killed uninstall, export or upload left put right by the next start.
//! - [`half_done_forks`]: a fork another process is copying left alone by
//!   a start, a killed fork gone or put in place, a delete under way in
//!   another process left alone.
//! - [`html_pages`]: an html renderer's page gets all of a big result while
//!   the plan keeps its first part.
//! - [`hostile_host`]: a CLI killed mid-call (its worker and tool go too),
//!   files the person cannot read, a new data dir only its owner reads.
//! - [`branching`]: branches with different files, checkout back and forth,
//!   hand edits never lost on a switch, diffs.
//! - [`private_files`]: files with no group or other permission (keys,
//!   `.env`) stay 0600/0700 through switches, checkouts under any umask,
//!   editor saves, restores and exports; a chmod alone is a change.
//! - [`edits`]: changes made through the app: editor saves (branching at
//!   an older call), restoring a file, files dropped onto the workspace.
//! - [`bundles`]: toolset ZIPs and folders: every rejection rule, bombs,
//!   manifests with many errors.
//! - [`bundle_words`]: symlinks where an import skips anyway skipped, a
//!   manifest misplaced named with the way out, a bundle's text escaped.
//! - [`foreign_bundles`]: ZIPs as Windows, PowerShell, macOS and `zip -r`
//!   write them (code pages, separators, decomposed names, executable
//!   bits, `node_modules`), other methods, headers that contradict.
//! - [`import_refusals`]: an upgrade refused after its secrets were
//!   written (a running call, a failed commit) leaves the installed
//!   version's secrets and no artifact.
//! - [`consent`]: what the step before an install is told: description,
//!   tools that ask first, server env without its plain values, downgrades.
//! - [`toolset_lifecycle`]: upgrades and rollback, concurrent imports, shared
//!   MCP servers, export round trips, local folders.
//! - [`toolset_dev`]: the author's hot reload: once per real change, none
//!   in a quiet minute, the last good version kept.
//! - [`authoring`]: validation's words (did you mean, where YAML breaks),
//!   strict mode, the JSON Schema beside a scaffold, `pack`, export bytes.
//! - [`python_checks`]: a toolset's Python read before anything runs or
//!   installs: syntax errors, missing functions, signatures against
//!   schemas, `tools_from` tools derived from the source.
//! - [`python_reuse`]: Python written to be reused (seed 002) and laid out
//!   as a Python project: tools imported inside the bundle, what only the
//!   import can tell said so, entry points without `input_schema`, a root
//!   `requirements.txt`.
//! - [`requirements_txt`]: a root `requirements.txt` as Python projects
//!   write it: hash pins, dev lines (`-e .`, `-r`) said and skipped.
//! - [`runs`]: the run flow with builtin tools: records, plans, validation,
//!   confirmation, confinement, branching.
//! - [`builtins`]: builtin tools under hostile input: big files capped,
//!   FIFOs refused, planted symlinks never followed, timeouts and Cancel.
//! - [`agent_allowlists`]: allowlists as a person writes them: a toolset
//!   bringing its MCP servers, names that match nothing warned, agent
//!   files' unknown keys refused, sub-agents and the person's confirmation
//!   choices, ids from names with accents.
//! - [`agents`]: agents and tool routing: the default Assistant, empty
//!   allowlists, toolsets, names and globs, the router's refusals, the pool
//!   following installs of other processes and MCP-like sources, exposure.
//! - [`approvals`]: a confirmation waiting for a person's answer, given
//!   through a channel or by call id; denials and cancels; the chat usable
//!   meanwhile (even deleted); recovery of a wait whose process died.
//! - [`providers`]: LLM providers against a loopback server: presets,
//!   keys from the store or the environment (each provider its own), typed
//!   errors, model lists, servers found running on this computer.
//! - [`provider_models`]: which provider and model a message goes to: the
//!   only one unnamed, a second one chosen, a default model given at the
//!   first message, a base URL without `/v1` named as the fix.
//! - [`settings`]: app settings (allowed frame origins) survive a restart
//!   and refuse values wider than one origin.
//! - [`secrets`]: secrets in a real (private) Secret Service, bound to their
//!   owner; the file fallback only with consent; the environment rule.
//! - [`toolset_secrets`]: a toolset's plain-text secrets moved to the
//!   keychain (at import, and by the first start of an old data dir), its
//!   settings, a tool and a server launch receiving them, nothing on disk.
//! - [`secret_origin`]: a value a toolset's ZIP brought is said to be the
//!   bundle's (details, `secrets list`) until the person replaces it; an
//!   upgrade keeps each value's origin right.
//! - [`server_secrets`]: `run-server` with the app's environment, secrets in
//!   an HTTP server's URL kept out of errors, status, database and log.
//! - [`crash_truth`]: after a crash the record tells the truth: a call
//!   killed mid-run is its own `tool` node (not a person's edit) and the
//!   model hears it was interrupted; a fork killed before its commit leaves
//!   no empty chat; an older binary on a newer data dir says so.
//! - [`conversation`]: the chat engine against a loopback model server: a
//!   tool loop, branch isolation, pairing after a stop, hand runs, the step
//!   limit, a stopped or failed stream kept.
//! - [`chat_actions`]: `atelier chat send` streaming, Retry and Edit on a
//!   sibling, a missing model named, new chats named by their first
//!   exchange.
//! - [`chat_engine`]: model settings (agent, chat override) in the request,
//!   a forced first call, a long branch fitted to the context window by
//!   whole exchanges, forks that outlive their source, a turn cut off by a
//!   crash kept on the next start.
//! - [`run_control`]: a run's call events on their way to the front door,
//!   Stop while a tool runs, one run per chat, stopped by its id, an answer
//!   cut at the output limit or stopped by a content filter.
//! - [`run_advice`]: what a run that went wrong is told: a message alone
//!   over the context window to be shortened, not branched.
//! - [`turn_writes`]: a model's turn written while a person edits a file
//!   or switches the branch under it: nothing lost, no half-state.
//! - [`sub_agents`]: `spawn_agents` children in threads of their own, no
//!   deadlock on the chat lock, the depth limit.
//! - [`model_slips`]: a model behaving badly: calls without an id or
//!   repeating one, arguments that are not JSON, near or missing tool
//!   names, an empty or reasoning-only answer.
//! - [`call_places`]: where a call belongs: a spawn cut off by a crash
//!   after a checkout ends under its own turn; a sibling branch's open
//!   call with the same model call id is not this branch's.
//! - [`open_calls`]: a call still open elsewhere (waiting for approval, or
//!   running in another process) is told to the model as not ended, not as
//!   cancelled.
//! - [`model_inputs`]: images to a model that takes them (a note to one
//!   that does not), a history converted for a new provider.
//! - [`mcp`]: MCP servers through the core against real servers
//!   (server-everything, server-filesystem, the Python fixture): the pool,
//!   calls through the run flow, start errors; shared helpers.
//! - [`mcp_calls`]: MCP calls that crash, time out, are cancelled, flood
//!   stderr or grow the tool list; HTTP; a model calling a server's tool.
//! - [`mcp_scopes`]: toolset-declared servers per chat in its workspace,
//!   stopped with the chat, when idle or no longer needed; a root used.
//! - [`mcp_content`]: MCP content of several blocks: every block shown in
//!   order, every image a model takes sent, one it would refuse a note.
//! - [`mcp_model_view`]: what a model is given of an MCP server: content
//!   blocks as words (another tool's look-alike list as its data), a failure
//!   as an error, the server's instructions framed in the system prompt of
//!   runs offering its tools, progress outliving a timeout, odd schemas.
//! - [`mcp_cli`]: `atelier mcp …` and `atelier run SERVER:TOOL` as a person
//!   would type them.
//! - [`mcp_cli_config`]: `atelier mcp` values from stdin never stored,
//!   config import, a missing command, an HTTP server with a header.
//! - [`mcp_signals`]: no server outlives a CLI ended by SIGTERM, SIGHUP or
//!   SIGKILL.
//! - [`mcp_oauth`]: `atelier mcp login`/`logout` against an OAuth-protected
//!   server on loopback, the browser a headless `curl -L`.
//! - [`spec_bundles`]: bundles written from seed 004 by someone else: ids
//!   with `_`, numeric versions, an MCP-only toolset named after its
//!   server, entry points relative to `tools/`, tools turned off.
//! - [`uninstall_cut`]: an uninstall killed before its commit loses
//!   nothing (folder, secrets, sign-ins); one killed after it is finished
//!   by the next start; lock files a crash left alone go at start.
//! - [`cli`]: the `atelier` command as a new user would try it, `--json`
//!   shapes, exit codes.
//! - [`lock_waits`]: a wait for a chat another process or task holds says
//!   what it waits for, in the holder's words; Ctrl+C, a dropped future or
//!   a token end it; a dead holder's description is not believed.
//! - [`read_only`]: a data dir this process cannot write is read, and every
//!   change refused in one line naming it.

mod agent_allowlists;
mod agents;
mod approvals;
mod authoring;
mod branching;
mod builtins;
mod bundle_words;
mod bundles;
mod call_places;
mod chat_actions;
mod chat_engine;
mod cli;
mod consent;
mod conversation;
mod crash_truth;
mod edits;
mod foreign_bundles;
mod half_done;
mod half_done_forks;
mod hostile_host;
mod html_pages;
mod import_refusals;
mod integrity;
mod lock_waits;
mod mcp;
mod mcp_calls;
mod mcp_cli;
mod mcp_cli_config;
mod mcp_content;
mod mcp_model_view;
mod mcp_oauth;
mod mcp_scopes;
mod mcp_signals;
mod model_inputs;
mod model_slips;
mod open_calls;
mod private_files;
mod provider_models;
mod providers;
mod python_checks;
mod python_reuse;
mod read_only;
mod requirements_txt;
mod round_trips;
mod run_advice;
mod run_control;
mod runs;
mod schema;
mod secret_origin;
mod secrets;
mod server_secrets;
mod settings;
mod spec_bundles;
mod sub_agents;
mod toolset_dev;
mod toolset_lifecycle;
mod toolset_secrets;
mod turn_writes;
mod uninstall_cut;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use atelier_core::{Atelier, DataDir, Observer};

/// A throwaway data directory.
pub(crate) struct Env {
    dir: tempfile::TempDir,
}

impl Env {
    pub(crate) fn new() -> Self {
        Self {
            dir: tempfile::Builder::new()
                .prefix("atelier-test-")
                .tempdir()
                .expect("temp dir"),
        }
    }

    pub(crate) fn data(&self) -> &Path {
        self.dir.path()
    }

    pub(crate) async fn app(&self) -> Atelier {
        Atelier::open(DataDir::new(self.data())).await.expect("open data dir")
    }

    /// Runs `atelier --data-dir <data> args…`.
    pub(crate) fn cli(&self, args: &[&str]) -> Output {
        self.cli_env(args, &[])
    }

    pub(crate) fn cli_env(&self, args: &[&str], env: &[(&str, &str)]) -> Output {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_atelier"));
        cmd.arg("--data-dir")
            .arg(self.data())
            .args(args)
            .env_remove("ATELIER_DATA_DIR");
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd.output().expect("run atelier")
    }

    /// Runs the CLI, asserts success, returns stdout.
    pub(crate) fn ok(&self, args: &[&str]) -> String {
        let out = self.cli(args);
        assert!(
            out.status.success(),
            "atelier {args:?} failed ({}):\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).expect("utf-8 output")
    }

    /// Runs the CLI with `--json`, asserts success, parses stdout.
    pub(crate) fn json(&self, args: &[&str]) -> serde_json::Value {
        let mut a = args.to_vec();
        a.push("--json");
        let s = self.ok(&a);
        serde_json::from_str(&s).unwrap_or_else(|e| panic!("atelier {a:?} printed invalid JSON ({e}):\n{s}"))
    }
}

/// Writes a file (creating folders) under `root`.
/// What a command printed: its standard output, then its standard error.
pub(crate) fn said(out: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

pub(crate) fn write(root: &Path, rel: &str, content: impl AsRef<[u8]>) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
    std::fs::write(&p, content).expect("write");
}

/// Every regular file under `root` as (relative path, content), sorted;
/// folders listed with a trailing `/` so emptied folders show up.
pub(crate) fn tree_of(root: &Path) -> Vec<(String, Vec<u8>)> {
    fn go(root: &Path, dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
        for e in std::fs::read_dir(dir).expect("read_dir") {
            let e = e.expect("entry");
            let p = e.path();
            let rel = p.strip_prefix(root).expect("prefix").to_string_lossy().into_owned();
            let ft = e.file_type().expect("file type");
            if ft.is_dir() {
                out.push((format!("{rel}/"), Vec::new()));
                go(root, &p, out);
            } else if ft.is_symlink() {
                out.push((
                    format!("{rel}@"),
                    std::fs::read_link(&p)
                        .expect("link")
                        .to_string_lossy()
                        .into_owned()
                        .into_bytes(),
                ));
            } else {
                out.push((rel, std::fs::read(&p).expect("read")));
            }
        }
    }
    let mut out = Vec::new();
    go(root, root, &mut out);
    out.sort();
    out
}

pub(crate) fn paths(tree: &[(String, Vec<u8>)]) -> Vec<&str> {
    tree.iter().map(|(p, _)| p.as_str()).collect()
}

pub(crate) async fn snap(app: &Atelier, chat: &str) -> atelier_core::model::SnapshotOutcome {
    app.workspace()
        .snapshot(chat, &Observer::default())
        .await
        .expect("snapshot")
}

pub(crate) fn blob_path(data: &Path, chat: &str, sha: &str) -> PathBuf {
    data.join("chats").join(chat).join("blobs").join(&sha[..2]).join(sha)
}
