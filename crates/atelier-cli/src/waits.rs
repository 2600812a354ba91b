//! Lock waits said on stderr, and what this command's own locks say.
//!
//! A command that needs a lock another process holds (a chat a tool call
//! or the app is working in, an import under way) used to wait in
//! silence. The process's [`LockContext`] makes a wait that lasts print
//! one line naming what it waits for and who holds it, in the holder's
//! words; and makes this command's locks say what it is doing, for the
//! waits of others.

use atelier_core::lock::LockContext;
use clap::ArgMatches;

use crate::cli::{Cli, Command};

/// Sets the process's lock context for the command `cli` (parsed from
/// `matches`).
pub(crate) fn install(cli: &Cli, matches: &ArgMatches) {
    LockContext::default()
        .doing(doing(cli, matches))
        .on_wait(|waiting| eprintln!("{waiting} (Ctrl+C to stop)…"))
        .set_for_process();
}

/// What this command does, as another process's wait will say it: a tool
/// call by its tool, anything else by its subcommands (never its
/// arguments: a value given on the command line is not for other eyes).
fn doing(cli: &Cli, matches: &ArgMatches) -> String {
    if let Command::Run(args) = &cli.command {
        return format!("a tool call ({})", args.tool);
    }
    let mut words = vec!["atelier"];
    let mut at = matches;
    while let Some((name, sub)) = at.subcommand() {
        words.push(name);
        at = sub;
    }
    format!("`{}`", words.join(" "))
}
