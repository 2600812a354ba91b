//! `mcp login` and `mcp logout`: a server's OAuth sign-in, the page opened
//! in the person's browser (or `$ATELIER_BROWSER`, a test hook).
#![allow(clippy::print_stdout)] // printing is this command's job

use anyhow::Context;
use atelier_core::Atelier;

use crate::output;

/// `mcp login`: the sign-in page printed and opened, the wait for the
/// browser cut short by Ctrl+C or the timeout.
pub(super) async fn login(app: &Atelier, id: &str, timeout: u64, json: bool) -> anyhow::Result<()> {
    let cancel = tokio_util::sync::CancellationToken::new();
    let stop = cancel.clone();
    let ctrl_c = tokio::spawn(async move {
        crate::interrupt::interrupted().await;
        stop.cancel();
    });
    let signed = app
        .mcp()
        .login(
            id,
            Box::new(open_browser),
            std::time::Duration::from_secs(timeout),
            cancel,
        )
        .await;
    ctrl_c.abort();
    let s = signed.with_context(|| format!("could not sign in to MCP server {id:?}"))?;
    if json {
        output::json(&s)?;
    } else if s.active {
        println!("Signed in to {id}: {}", super::mcp_show::connected(&s));
    } else {
        println!("Signed in to {id} (it is disabled: enable it to use its tools).");
    }
    Ok(())
}

/// Shows the sign-in page: printed, and opened with `$ATELIER_BROWSER`
/// (a test hook: a command the address is appended to) or `xdg-open`.
fn open_browser(url: &str) {
    // The address comes from a server's authorization metadata: only a web
    // page goes to an opener (a `file:` or custom-scheme address would
    // launch whatever handles it). The core checks too; this is the last
    // door.
    if !is_web_address(url) {
        eprintln!("(not opening the sign-in address: it is not an http or https page)");
        return;
    }
    eprintln!("Sign in at:\n  {url}");
    let (program, mut args) = match std::env::var("ATELIER_BROWSER") {
        Ok(cmd) if !cmd.trim().is_empty() => {
            let mut words = cmd.split_whitespace().map(str::to_owned);
            let program = words.next().unwrap_or_default();
            (program, words.collect::<Vec<_>>())
        }
        _ if std::env::var_os("DISPLAY").is_some() || std::env::var_os("WAYLAND_DISPLAY").is_some() => {
            ("xdg-open".to_owned(), Vec::new())
        }
        _ => {
            eprintln!("(no display: open it in a browser on this computer)");
            return;
        }
    };
    args.push(url.to_owned());
    match std::process::Command::new(&program)
        .args(&args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
    {
        // Reaped in the background: the wait is for the redirect, not it.
        Ok(mut child) => {
            std::thread::spawn(move || child.wait());
            eprintln!("Waiting for the browser to come back (Ctrl+C to give up)…");
        }
        Err(e) => eprintln!("(could not run {program}: {e}; open the address yourself)"),
    }
}

/// `mcp logout`: the kept sign-in forgotten.
pub(super) async fn logout(app: &Atelier, id: &str, json: bool) -> anyhow::Result<()> {
    let had = app.mcp().logout(id).await?;
    if json {
        output::json(&serde_json::json!({ "id": id, "signed_out": had }))?;
    } else if had {
        println!("Signed out of {id}: its tokens are gone from your secret store.");
    } else {
        println!("{id} had no sign-in.");
    }
    Ok(())
}

/// Whether `url` is an http or https address (the scheme in any case).
fn is_web_address(url: &str) -> bool {
    let lower = |n: usize| url.get(..n).map(str::to_ascii_lowercase);
    lower(8).as_deref() == Some("https://") || lower(7).as_deref() == Some("http://")
}

#[cfg(test)]
mod tests {
    use super::is_web_address;

    #[test]
    fn only_web_addresses_are_opened() {
        for ok in ["https://a.example/authorize?x=1", "HTTP://127.0.0.1:9/a"] {
            assert!(is_web_address(ok), "{ok}");
        }
        for bad in [
            "file:///etc/passwd",
            "vscode://x",
            "javascript:alert(1)",
            "-x",
            "",
            "http:/x",
            "ftp://a",
        ] {
            assert!(!is_web_address(bad), "{bad}");
        }
    }
}
