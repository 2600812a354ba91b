//! `atelier workspace …`

use std::io::{IsTerminal, Write};

use atelier_core::{Atelier, Observer};

use crate::cli::WorkspaceCommand;
use crate::output;

pub(crate) async fn run(app: &Atelier, cmd: WorkspaceCommand, json: bool) -> anyhow::Result<()> {
    match cmd {
        WorkspaceCommand::Path { chat } => {
            let c = app.chats().get(&chat).await?;
            let path = app.workspace_dir(&c.id);
            if json {
                output::json(&serde_json::json!({ "chat_id": c.id, "path": path }))?;
            } else {
                writeln!(std::io::stdout(), "{}", path.display())?;
            }
        }
        WorkspaceCommand::Ls { chat, manifest } => {
            let files = app.workspace().list_files(&chat, manifest.as_deref()).await?;
            if json {
                output::json(&files)?
            } else {
                output::files(&files)
            }
        }
        WorkspaceCommand::Cat { chat, path, manifest } => {
            app.workspace()
                .write_file_to(&chat, &path, manifest.as_deref(), Box::new(std::io::stdout()))
                .await?;
        }
        WorkspaceCommand::Snapshot { chat } => {
            let outcome = app.workspace().snapshot(&chat, &progress_observer("snapshot")).await?;
            for w in &outcome.warnings {
                eprintln!("warning: {w}");
            }
            if json {
                output::json(&outcome)?;
            } else if let Some(id) = &outcome.message_id {
                writeln!(
                    std::io::stdout(),
                    "Recorded edit {id}: +{} -{} ~{} (manifest {})",
                    outcome.added,
                    outcome.removed,
                    outcome.modified,
                    outcome.manifest_id
                )?;
            } else {
                writeln!(std::io::stdout(), "Nothing changed (manifest {})", outcome.manifest_id)?;
            }
        }
        WorkspaceCommand::Diff { chat, from, to } => {
            let d = app.workspace().diff(&chat, &from, &to).await?;
            if json { output::json(&d)? } else { output::diff(&d) }
        }
        WorkspaceCommand::Manifest { chat, manifest } => {
            let c = app.chats().get(&chat).await?;
            let id = manifest.unwrap_or_else(|| c.active_manifest_id.clone());
            let m = app.workspace().get_manifest(&c.id, &id).await?;
            if json {
                output::json(&m)?;
            } else {
                writeln!(
                    std::io::stdout(),
                    "{}  {} files, {} bytes, source {:?}, parent {}",
                    m.id,
                    m.file_count,
                    m.total_size,
                    m.source,
                    m.parent_id.as_deref().unwrap_or("-")
                )?;
                for (path, sha) in &m.files {
                    writeln!(std::io::stdout(), "  {sha}  {path}")?;
                }
            }
        }
    }
    Ok(())
}

/// Shows progress on stderr when it is a terminal.
pub(crate) fn progress_observer(label: &'static str) -> Observer {
    if !std::io::stderr().is_terminal() {
        return Observer::default();
    }
    let last = std::sync::Mutex::new(std::time::Instant::now());
    Observer::default().with_progress(move |p| {
        let mut last = last.lock().unwrap_or_else(|e| e.into_inner());
        let done = p.files_total > 0 && p.files_done >= p.files_total;
        if last.elapsed().as_millis() < 100 && !done {
            return;
        }
        *last = std::time::Instant::now();
        eprint!(
            "\r{label}: {}/{} files, {:.1}/{:.1} MiB   ",
            p.files_done,
            p.files_total,
            p.bytes_done as f64 / 1048576.0,
            p.bytes_total as f64 / 1048576.0
        );
        if done {
            eprintln!();
        }
    })
}

/// `atelier gc`
#[allow(clippy::print_stdout)] // its output is the report
pub(crate) async fn gc(app: &Atelier, verify: bool, json: bool) -> anyhow::Result<()> {
    let r = app
        .workspace()
        .gc_with(&atelier_core::Observer::default(), verify)
        .await?;
    if json {
        return output::json(&r);
    }
    println!(
        "{} chats: removed {} unreferenced blobs ({} bytes) and {} temp files; {} blobs kept",
        r.chats, r.blobs_removed, r.bytes_freed, r.temp_files_removed, r.blobs_kept
    );
    if r.venvs_removed > 0 {
        println!(
            "removed {} Python environment(s) no installed toolset uses",
            r.venvs_removed
        );
    }
    if verify {
        match r.blobs_corrupt {
            0 => println!("every kept blob matches its hash"),
            n => println!(
                "{n} damaged blob(s) moved to the chats' blobs/corrupt/: snapshot a good copy of those files to repair them"
            ),
        }
    }
    Ok(())
}
