//! Every process a tool started, however it tried to leave.
//!
//! The worker leads its own process group, so one group kill takes a
//! tool's ordinary children. A child that calls `setsid()` (a daemon, a
//! `start_new_session=True` subprocess) leaves the group; and once its
//! parent exits it would be re-parented to init, out of reach. So the
//! worker makes itself the *child subreaper* of its subtree: an orphan below
//! it is re-parented to the worker instead, and the process tree under the
//! worker's pid holds every descendant, whatever their session or group.
//! [`kill_all`] walks that tree from `/proc` and kills it.
//!
//! What stays out of reach: a descendant that is already re-parented above
//! the worker (if the worker itself is SIGKILLed from outside before it can
//! run this), and anything a tool hands to another service (`systemd-run`,
//! `at`, a D-Bus activation).

use std::collections::HashMap;

use rustix::process::{Pid, Signal};

/// Makes orphans below this process its children (see the module docs).
pub(crate) fn adopt_orphans() -> std::io::Result<()> {
    rustix::process::set_child_subreaper(Some(rustix::process::getpid()))?;
    Ok(())
}

/// Stops, then kills, every live descendant of this process, until none is
/// left: stopping first keeps a forking process from outrunning the kills.
pub(crate) fn kill_all() {
    let me = std::process::id();
    // A fork bomb needs rounds; a bounded number, then the group kill.
    for _ in 0..64 {
        let below = descendants_of(me);
        if below.is_empty() {
            return;
        }
        for pid in &below {
            let _ = rustix::process::kill_process(*pid, Signal::STOP);
        }
        for pid in &below {
            let _ = rustix::process::kill_process(*pid, Signal::KILL);
        }
    }
}

/// The live (not yet reaped, not zombie) processes below `root`.
fn descendants_of(root: u32) -> Vec<Pid> {
    let Ok(proc_dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut children: HashMap<u32, Vec<u32>> = HashMap::new();
    for entry in proc_dir.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
            continue;
        };
        if let Some((ppid, zombie)) = std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|s| parse_stat(&s))
            && !zombie
        {
            children.entry(ppid).or_default().push(pid);
        }
    }
    let mut found = Vec::new();
    let mut todo = vec![root];
    while let Some(p) = todo.pop() {
        for &c in children.get(&p).map(Vec::as_slice).unwrap_or_default() {
            todo.push(c);
            if let Some(pid) = Pid::from_raw(c as i32) {
                found.push(pid);
            }
        }
    }
    found
}

/// `(ppid, is a zombie)` from `/proc/<pid>/stat`: `pid (comm) state ppid …`,
/// where `comm` may hold spaces and parentheses, so parse after the last `)`.
fn parse_stat(stat: &str) -> Option<(u32, bool)> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_ascii_whitespace();
    let state = fields.next()?;
    let ppid = fields.next()?.parse().ok()?;
    Some((ppid, state == "Z" || state == "X"))
}

#[cfg(test)]
mod tests {
    use super::parse_stat;

    #[test]
    fn a_command_name_with_spaces_and_parentheses_is_skipped() {
        assert_eq!(parse_stat("42 (a) b (c)) S 7 42 42 0"), Some((7, false)));
        assert_eq!(parse_stat("43 (sleep) Z 1 43 43 0"), Some((1, true)));
        assert_eq!(parse_stat("garbage"), None);
    }
}
