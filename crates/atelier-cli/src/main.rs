//! `atelier`: the core's functions from a terminal.
//!
//! This binary is glue: it parses arguments ([`cli`]), opens the data
//! directory, calls one `atelier_core` function per command
//! ([`commands`]) and prints the result ([`output`]), as text or, with
//! `--json`, as the same records the desktop app receives. Errors become one
//! line on stderr and exit code 1 (usage errors: 2, from clap).

mod cli;
mod commands;
mod output;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
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
        Err(e) => {
            eprintln!("error: {}", output::error_line(&e));
            ExitCode::FAILURE
        }
    }
}

fn init_logging(verbose: u8) {
    use tracing_subscriber::EnvFilter;
    let default = match verbose {
        0 => "warn",
        1 => "info",
        _ => "debug",
    };
    let filter = EnvFilter::try_from_env("ATELIER_LOG").unwrap_or_else(|_| EnvFilter::new(default));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_target(false)
        .init();
}
