//! `atelier`: the core's functions from a terminal.
//!
//! This binary is glue: it parses arguments ([`cli`]), opens the data
//! directory, calls one `atelier_core` function per command
//! ([`commands`]) and prints the result ([`output`]), as text or, with
//! `--json`, as the same records the desktop app receives. Errors become one
//! line on stderr and exit code 1 (usage errors: 2, from clap).

mod cli;
mod commands;
mod interrupt;
mod output;
mod waits;

use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches};

fn main() -> ExitCode {
    quiet_on_closed_stdout();
    let matches = cli::Cli::command().get_matches();
    let args = cli::Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    waits::install(&args, &matches);
    init_logging(args.verbose);
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: could not start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(commands::run(args)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if output::is_broken_pipe(&e) => ExitCode::from(CLOSED_PIPE),
        Err(e) => {
            eprintln!("error: {}", output::error_line(&e));
            ExitCode::FAILURE
        }
    }
}

/// What a program killed by SIGPIPE reports (128 + 13), as `git log | head`.
const CLOSED_PIPE: u8 = 141;

/// `atelier … | head` closes our stdout early: that is not an error to
/// print. `println!` panics on a closed pipe; the hook ends the process
/// quietly then, and leaves every other panic to the default hook.
fn quiet_on_closed_stdout() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or_default();
        if message.contains("failed printing to stdout") && message.contains("Broken pipe") {
            std::process::exit(i32::from(CLOSED_PIPE));
        }
        default(info);
    }));
}

fn init_logging(verbose: u8) {
    use tracing_subscriber::EnvFilter;
    // sqlx warns of statements slower than a second (a busy disk, a big
    // import): useful with -v, noise in a terminal otherwise. rmcp stays off
    // unless ATELIER_LOG names it (see atelier_core::logging).
    let default = match verbose {
        0 => "warn,sqlx=error",
        1 => "info",
        _ => "debug",
    };
    let from_env = std::env::var("ATELIER_LOG").ok();
    let filter = EnvFilter::new(atelier_core::logging::filter_directives(from_env.as_deref(), default));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_target(false)
        .init();
}
