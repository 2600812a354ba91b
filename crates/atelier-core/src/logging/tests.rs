//! The filter, the log file's rotation and modes, and UI texts made safe
//! for one line of the log.

use std::fs;
use std::io::Write;

use super::*;

#[test]
fn rmcp_stays_off_unless_named() {
    assert_eq!(filter_directives(None, "warn"), "warn,rmcp=off");
    assert_eq!(filter_directives(Some("debug"), "warn"), "debug,rmcp=off");
    assert_eq!(filter_directives(Some(""), "info"), "info,rmcp=off");
    assert_eq!(filter_directives(Some("  "), "warn"), "warn,rmcp=off");
    assert_eq!(
        filter_directives(Some("trace,ui=error"), "warn"),
        "trace,ui=error,rmcp=off"
    );
    assert_eq!(filter_directives(Some("debug,rmcp=trace"), "warn"), "debug,rmcp=trace");
}

#[test]
fn a_big_log_is_moved_aside_at_start_and_a_small_one_appended_to() {
    let tmp = tempfile::tempdir().expect("tmp");
    let path = tmp.path().join("atelier.log");
    fs::write(&path, "x".repeat(200)).expect("big");
    let log = LogFile::open_at(&path, 100).expect("open");
    (&log).write_all(b"fresh\n").expect("write");
    assert_eq!(fs::read_to_string(&path).expect("log"), "fresh\n");
    assert_eq!(
        fs::read_to_string(tmp.path().join("atelier.log.1"))
            .expect("previous")
            .len(),
        200
    );
    drop(log);

    let log = LogFile::open_at(&path, 100).expect("open again");
    (&log).write_all(b"more\n").expect("write");
    assert_eq!(fs::read_to_string(&path).expect("log"), "fresh\nmore\n");
    assert_eq!(
        fs::read_to_string(tmp.path().join("atelier.log.1"))
            .expect("previous")
            .len(),
        200,
        "a small log is not rotated"
    );
}

#[test]
fn a_log_that_grows_while_running_starts_over_keeping_one_previous_file() {
    let tmp = tempfile::tempdir().expect("tmp");
    let path = tmp.path().join("atelier.log");
    let log = LogFile::open_at(&path, 10).expect("open");
    for line in ["one 1\n", "two 2\n", "three\n"] {
        (&log).write_all(line.as_bytes()).expect("write");
    }
    assert_eq!(fs::read_to_string(&path).expect("log"), "three\n");
    assert_eq!(
        fs::read_to_string(tmp.path().join("atelier.log.1")).expect("prev"),
        "two 2\n"
    );
    // A line longer than the limit is written whole, in a file of its own.
    (&log).write_all(b"a very long line\n").expect("write");
    assert_eq!(fs::read_to_string(&path).expect("log"), "a very long line\n");
    let names: Vec<_> = fs::read_dir(tmp.path())
        .expect("dir")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert_eq!(names.len(), 2, "one previous file only: {names:?}");
}

#[cfg(unix)]
#[test]
fn the_log_and_its_folder_are_owner_only_and_live_in_the_data_dir() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().expect("tmp");
    let data = DataDir::new(tmp.path().join("data"));
    let log = LogFile::open(&data)
        .expect("open")
        .expect("a writable data dir has a log");
    assert_eq!(log.path(), data.root().join("logs/atelier.log"));
    let mode = |p: &Path| fs::metadata(p).expect("meta").permissions().mode() & 0o777;
    assert_eq!(mode(data.root()), 0o700);
    assert_eq!(mode(&data.logs_dir()), 0o700);
    assert_eq!(mode(log.path()), 0o600);
    let shown = location(&data);
    assert_eq!(shown.file, log.path().display().to_string());
    assert!(shown.written);

    // One an older version left readable by others is narrowed.
    drop(log);
    fs::set_permissions(data.log_path(), fs::Permissions::from_mode(0o644)).expect("chmod");
    let _again = LogFile::open(&data).expect("open").expect("log");
    assert_eq!(mode(&data.log_path()), 0o600);
}

#[cfg(unix)]
#[test]
fn a_read_only_data_dir_gets_no_log_file() {
    let tmp = tempfile::tempdir().expect("tmp");
    let root = tmp.path().join("data");
    fs::create_dir(&root).expect("mkdir");
    // Read-only for this process: as root (who writes through modes)
    // immutable, else without write modes.
    let as_root = rustix::process::geteuid().is_root();
    let lock = |on: bool| {
        let (tool, flag) = match (as_root, on) {
            (true, true) => ("chattr", "+i"),
            (true, false) => ("chattr", "-i"),
            (false, true) => ("chmod", "a-w"),
            (false, false) => ("chmod", "u+w"),
        };
        std::process::Command::new(tool).arg(flag).arg(&root).status()
    };
    assert!(
        lock(true).is_ok_and(|s| s.success()),
        "the folder could not be made read-only"
    );
    let data = DataDir::new(&root);
    let read_only = data.probe_read_only();
    let log = LogFile::open(&data);
    let written = data.logs_dir().exists();
    let _ = lock(false);
    assert!(read_only);
    assert!(log.expect("not an error").is_none());
    assert!(!written, "nothing is written");
}

#[test]
fn ui_texts_are_cut_and_kept_on_one_line() {
    assert_eq!(clip("short", 10), "short");
    let cut = clip(&"é".repeat(10), 5);
    assert_eq!(cut, "éé… (16 more bytes)", "cut at a character's boundary");
    assert_eq!(one_line("a\nb\tc".to_owned()), "a\\nb\\tc");
    assert_eq!(one_line("plain".to_owned()), "plain");
}
