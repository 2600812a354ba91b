//! What interrupts a command: Ctrl-C, and also SIGTERM and SIGHUP — what a
//! service manager, `timeout`, `kill` or a closed terminal send. Each ends
//! the command as Ctrl-C does (a call cancelled and recorded, the MCP
//! servers it started stopped); before, SIGTERM killed the CLI where it
//! stood and left them running. A command that listens for none of them
//! still dies by the default action; its servers' watchdogs stop them.

use tokio::signal::unix::{SignalKind, signal};

/// Resolves on the first Ctrl-C, SIGTERM or SIGHUP. A signal that cannot
/// be listened for is left out (never resolves for it).
pub(crate) async fn interrupted() {
    let listen = |kind| async move {
        match signal(kind) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending().await,
        }
    };
    tokio::select! {
        () = listen(SignalKind::interrupt()) => {}
        () = listen(SignalKind::terminate()) => {}
        () = listen(SignalKind::hangup()) => {}
    }
}
