//! How WebKitGTK draws, chosen before the first window exists.
//!
//! WebKitGTK's DMA-BUF renderer draws through OpenGL. On a machine without
//! a GPU render node (a VM, a remote desktop, Xvfb) that OpenGL is Mesa's
//! software rasterizer, and every scrolled frame costs ~50 ms there, against
//! ~17 ms for WebKit's shared-memory path (measured with
//! `scripts/bench-ui.sh`). So without `/dev/dri/renderD*` the app runs with
//! `WEBKIT_DISABLE_DMABUF_RENDERER=1`, unless the person set the variable
//! themselves. The environment of a running process cannot be changed
//! safely (other threads may read it), so the app re-executes itself once
//! with the variable set, before anything else starts.

use std::ffi::OsString;
use std::path::Path;

const VAR: &str = "WEBKIT_DISABLE_DMABUF_RENDERER";

/// Whether `dri` (normally `/dev/dri`) has a GPU render node.
pub fn has_render_node(dri: &Path) -> bool {
    std::fs::read_dir(dri).is_ok_and(|entries| {
        entries
            .filter_map(Result::ok)
            .any(|e| e.file_name().to_string_lossy().starts_with("renderD"))
    })
}

/// The value `VAR` should get, when the app should set it: only when it is
/// unset and there is no GPU to render with.
pub fn renderer_override(current: Option<OsString>, gpu: bool) -> Option<&'static str> {
    (current.is_none() && !gpu).then_some("1")
}

/// On Linux without a GPU, re-executes this program with the shared-memory
/// renderer (see the module docs); returns only when nothing needs doing or
/// the re-execution failed (then the app runs as it is).
pub fn prefer_software_friendly_renderer() {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::process::CommandExt;
        let Some(value) = renderer_override(std::env::var_os(VAR), has_render_node(Path::new("/dev/dri"))) else {
            return;
        };
        let Ok(exe) = std::env::current_exe() else { return };
        let err = std::process::Command::new(exe)
            .args(std::env::args_os().skip(1))
            .env(VAR, value)
            .exec();
        eprintln!("atelier: could not restart with {VAR}={value} ({err}); going on without it");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_machine_without_a_render_node_and_without_a_choice_of_its_own_gets_the_override() {
        let tmp = tempfile::tempdir().expect("tempdir");
        assert!(!has_render_node(&tmp.path().join("missing")));
        std::fs::write(tmp.path().join("card0"), "").expect("card");
        assert!(!has_render_node(tmp.path()), "a display card is not a render node");
        std::fs::write(tmp.path().join("renderD128"), "").expect("render node");
        assert!(has_render_node(tmp.path()));

        assert_eq!(renderer_override(None, false), Some("1"));
        assert_eq!(renderer_override(None, true), None);
        assert_eq!(
            renderer_override(Some("0".into()), false),
            None,
            "the person's own setting wins"
        );
    }
}
