//! Start-up timing for the benchmark (`atelier-bench startup`): with
//! `ATELIER_STARTUP_PROBE=1`, the first paint the UI reports is printed to
//! stderr as `atelier: first paint after N ms` (time since `mark_start`).
//! Without it the command does nothing.

use std::sync::OnceLock;
use std::time::Instant;

static START: OnceLock<Instant> = OnceLock::new();

/// Called first thing in `main`.
pub fn mark_start() {
    let _ = START.set(Instant::now());
}

/// The UI painted what it shows first (the toolset list, loaded).
#[tauri::command]
pub fn first_paint() {
    if std::env::var_os("ATELIER_STARTUP_PROBE").is_none() {
        return;
    }
    if let Some(start) = START.get() {
        use std::io::Write;
        let ms = start.elapsed().as_secs_f64() * 1e3;
        let _ = writeln!(std::io::stderr(), "atelier: first paint after {ms:.1} ms");
    }
}
