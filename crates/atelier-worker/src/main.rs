//! `atelier-worker`: runs the Python tools of one toolset for one chat.
//!
//! The core starts it (see `atelier_core::tools::python`) with a Unix socket
//! as stdin and two pipes as stdout and stderr; its settings (with the
//! end-of-output marker) are the first line on the socket, never in the
//! environment tool code can read. Before CPython starts, the socket moves to a
//! private close-on-exec descriptor and `/dev/null` takes fd 0; fd 1 and fd 2
//! stay the pipes, so whatever a tool prints — from Python, a C extension or
//! a child process — is captured and can never corrupt the protocol.
//!
//! This binary is the only one that links libpython: the app, the CLI and the
//! core start without it. The Python half of the work (resolving
//! entrypoints, checking arguments and return values) is `runner.py`.
//!
//! `atelier-worker --probe` prints `{"python_version", "base_prefix"}` and
//! exits: how the core learns which Python to make venvs from.

mod descendants;

use std::ffi::CString;
use std::io::{BufRead, BufReader, Write};
use std::os::fd::OwnedFd;
use std::process::ExitCode;

use atelier_protocol::{Event, Outcome, Request, WorkerConfig};
use pyo3::prelude::*;
use pyo3::types::PyModule;

const RUNNER: &str = include_str!("runner.py");
/// The checks that read a toolset's Python without running it; `runner.py`
/// imports it as `_atelier_static`.
const STATIC: &str = include_str!("inspect_static.py");
/// What a tool's return value may hold; the others import it as
/// `_atelier_values`.
const VALUES: &str = include_str!("values.py");
/// A function's input schema and its arguments' conversion; the others
/// import it as `_atelier_schemas`.
const SCHEMAS: &str = include_str!("schemas.py");

fn main() -> ExitCode {
    let probe = std::env::args().nth(1).as_deref() == Some("--probe");
    if let Err(e) = pin_python_home() {
        let _ = writeln!(
            std::io::stderr(),
            "atelier-worker: could not restart with PYTHONHOME set: {e}"
        );
        return ExitCode::from(2);
    }
    match run(probe) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // fd 2 is the capture (or the terminal): the core shows it when
            // the worker dies before it is ready.
            let _ = writeln!(std::io::stderr(), "atelier-worker: {e}");
            ExitCode::from(2)
        }
    }
}

/// Embedded CPython finds its standard library from the program name, which
/// it looks up on PATH as `python3` — pyenv's or a venv's, not the one this
/// binary links. Pinning `PYTHONHOME` to the linked Python's prefix fixes
/// that; environment changes in a running process are unsafe, so the worker
/// re-executes itself once with it set (descriptors are inherited).
/// `runner.py` removes it again so tools' own subprocesses do not see it.
fn pin_python_home() -> std::io::Result<()> {
    const HOME: &str = env!("ATELIER_PYTHON_HOME");
    if HOME.is_empty() || std::env::var_os("PYTHONHOME").is_some() {
        return Ok(());
    }
    use std::os::unix::process::CommandExt;
    let mut args = std::env::args_os();
    let _program = args.next();
    Err(std::process::Command::new(std::env::current_exe()?)
        .args(args)
        .env("PYTHONHOME", HOME)
        .env("ATELIER_WORKER_PINNED_HOME", "1")
        .exec())
}

type BoxError = Box<dyn std::error::Error>;

fn run(probe: bool) -> Result<(), BoxError> {
    if probe {
        let config = WorkerConfig {
            toolset_dir: String::new(),
            site_packages: Vec::new(),
            venv: None,
            marker: String::new(),
            return_cap: 0,
        };
        let (runner, python_version, base_prefix) = start_python(&config)?;
        drop(runner);
        let line = serde_json::json!({"python_version": python_version, "base_prefix": base_prefix});
        let mut out = std::io::stdout().lock();
        writeln!(out, "{line}")?;
        out.flush()?;
        return Ok(());
    }
    // The protocol socket leaves fd 0 before any Python code can see it.
    let socket: OwnedFd = rustix::io::fcntl_dupfd_cloexec(std::io::stdin(), 3)?;
    rustix::stdio::dup2_stdin(std::fs::File::open("/dev/null")?)?;
    let mut events = std::fs::File::from(socket.try_clone()?);
    // Dies with its caller: a killed `atelier run` must not leave a tool
    // running on (its timeout unenforced, still writing the workspace) —
    // nor any process the tool started, even one that left the group.
    descendants::adopt_orphans()?;
    let watched = socket.try_clone()?;
    std::thread::spawn(move || die_with_caller(&watched));
    let mut requests = BufReader::new(std::fs::File::from(socket));
    // The settings come first on the channel, not in the environment: the
    // end-of-output marker must not be readable by tool code or its children.
    let mut first = String::new();
    requests.read_line(&mut first)?;
    let config: WorkerConfig =
        serde_json::from_str(&first).map_err(|e| format!("the first line on the channel is not the settings ({e})"))?;

    let (runner, python_version, base_prefix) = start_python(&config)?;
    send(
        &mut events,
        &Event::Ready {
            protocol: atelier_protocol::VERSION,
            python_version,
            base_prefix,
        },
    )?;
    for line in requests.lines() {
        let line = line?;
        let id = match serde_json::from_str::<Request>(&line)? {
            Request::Call { id, .. }
            | Request::Describe { id, .. }
            | Request::Check { id, .. }
            | Request::Inspect { id, .. }
            | Request::Root { id, .. } => id,
        };
        let outcome_json: String =
            Python::attach(|py| runner.bind(py).call_method1("handle", (line.as_str(),))?.extract())?;
        // Python's JSON is wider than JSON: 10**400 or a lone surrogate
        // pass json.dumps but no JSON reader. The tool's fault, not a crash.
        let outcome: Outcome = serde_json::from_str(&outcome_json).unwrap_or_else(|e| {
            Outcome::Error(atelier_protocol::CallError {
                kind: atelier_protocol::ErrorKind::BadReturn,
                message: format!("the return value cannot be read as JSON ({e}): numbers must fit a 64-bit float and text must be valid Unicode"),
                exception_type: None,
                traceback: None,
            })
        });
        // A tool that closed fd 1 or 2 only costs the core a short wait for
        // the marker; the worker carries on.
        let _ = mark_end_of_output(&config.marker);
        send(&mut events, &Event::Done { id, outcome })?;
    }
    // The core closed the socket: it wants us gone, and all we started.
    descendants::kill_all();
    Ok(())
}

/// Waits, without reading, until the other end of the protocol socket
/// closes — the core stopped this worker (a timeout, a cancel, an idle
/// worker let go), or the process that started it died — then kills every
/// descendant (see [`descendants`]) and this worker's whole process group.
/// Runs on its own thread, so it fires in the middle of a call too.
fn die_with_caller(socket: &OwnedFd) {
    use rustix::event::{PollFd, PollFlags, poll};
    loop {
        let mut fds = [PollFd::new(socket, PollFlags::RDHUP)];
        match poll(&mut fds, None) {
            Ok(_)
                if fds[0]
                    .revents()
                    .intersects(PollFlags::RDHUP | PollFlags::HUP | PollFlags::ERR) =>
            {
                descendants::kill_all();
                let _ = rustix::process::kill_current_process_group(rustix::process::Signal::KILL);
                std::process::exit(3);
            }
            Ok(_) if fds[0].revents().contains(PollFlags::NVAL) => return,
            Ok(_) | Err(rustix::io::Errno::INTR) => continue,
            Err(_) => return,
        }
    }
}

/// Starts CPython and loads `runner.py`; returns it with the version and
/// `sys.base_prefix`.
fn start_python(config: &WorkerConfig) -> Result<(Py<PyModule>, String, String), BoxError> {
    Python::initialize();
    let code = CString::new(RUNNER)?;
    let static_code = CString::new(STATIC)?;
    let values_code = CString::new(VALUES)?;
    let schemas_code = CString::new(SCHEMAS)?;
    let config_json = serde_json::to_string(config)?;
    Ok(Python::attach(|py| -> PyResult<_> {
        // Registered in sys.modules by its name, where runner.py imports it.
        // File names in angle brackets: a traceback never looks for their
        // source lines on disk, where a bundle's folder (on sys.path, the
        // current directory) could supply a file of that name.
        // In the order they import each other.
        PyModule::from_code(py, &values_code, c"<atelier-values>", c"_atelier_values")?;
        PyModule::from_code(py, &schemas_code, c"<atelier-schemas>", c"_atelier_schemas")?;
        PyModule::from_code(py, &static_code, c"<atelier-inspect-static>", c"_atelier_static")?;
        let module = PyModule::from_code(py, &code, c"<atelier-runner>", c"_atelier_runner")?;
        let (version, prefix): (String, String) = module.call_method1("setup", (config_json,))?.extract()?;
        Ok((module.unbind(), version, prefix))
    })?)
}

/// Writes the marker to fd 1 and fd 2: everything before it belongs to the
/// request that just ended.
fn mark_end_of_output(marker: &str) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(marker.as_bytes())?;
    out.flush()?;
    std::io::stderr().lock().write_all(marker.as_bytes())
}

fn send(to: &mut std::fs::File, event: &Event) -> std::io::Result<()> {
    to.write_all(atelier_protocol::to_line(event).as_bytes())
}
