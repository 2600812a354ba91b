//! A fresh data dir's start: the bundled example toolsets installed and put
//! on the Assistant's allowlist, as importing a toolset with "Let the
//! Assistant use its tools" ticked does (PRODUCT.md: checked for the
//! Assistant) — else the tool list shows tools the Assistant cannot call.
//! Only on that first start: a data dir someone has used keeps its
//! allowlists, so an example removed from the Assistant stays removed.

use super::{ASSISTANT, Agents};
use crate::Result;
use crate::toolsets::records::ImportReport;

impl Agents<'_> {
    /// Gives a fresh data dir (no toolset, no chat) the bundled examples,
    /// each on the Assistant's allowlist, as the desktop app does when it
    /// opens one; a data dir someone has used is left as it is. Returns
    /// what was installed.
    pub async fn seed_if_fresh(&self) -> Result<Vec<ImportReport>> {
        let installed = self.app.toolsets().seed_if_fresh().await?;
        for report in &installed {
            self.allow_toolset(ASSISTANT, &report.toolset.id).await?;
        }
        Ok(installed)
    }
}

#[cfg(test)]
mod tests {
    use crate::agents::ASSISTANT;
    use crate::{Atelier, DataDir};

    /// A fresh data dir's Assistant is given the examples' tools; a second
    /// start does not put back an example the person took off it.
    #[tokio::test]
    async fn a_fresh_data_dirs_assistant_can_call_the_example_tools() {
        let dir = tempfile::tempdir().expect("temp dir");
        let app = Atelier::open(DataDir::new(dir.path().join("data"))).await.expect("app");
        let installed = app.agents().seed_if_fresh().await.expect("seed");
        let ids: Vec<&str> = installed.iter().map(|r| r.toolset.id.as_str()).collect();
        assert_eq!(ids, ["app-builder", "csv-report"]);

        let tools = app.agents().resolve(ASSISTANT, 0).await.expect("resolve");
        let names: Vec<&str> = tools.tools.iter().map(|t| t.canonical_id.as_str()).collect();
        for tool in ["app-builder:run_command", "csv-report:analyze_csv"] {
            assert!(names.contains(&tool), "the Assistant cannot call {tool}: {names:?}");
        }

        let mut spec = app.agents().get(ASSISTANT).await.expect("assistant").spec();
        spec.toolsets.retain(|t| t != "app-builder");
        app.agents().update(&spec).await.expect("take app-builder off");
        assert!(app.agents().seed_if_fresh().await.expect("second start").is_empty());
        let toolsets = app.agents().get(ASSISTANT).await.expect("assistant").toolsets;
        assert!(!toolsets.contains(&"app-builder".to_owned()), "{toolsets:?}");
        assert!(toolsets.contains(&"csv-report".to_owned()), "{toolsets:?}");
    }

    /// An empty data dir opened read-only (a copy, a mount) is shown empty:
    /// installing the examples into it failed, and the app did not start.
    #[tokio::test]
    async fn an_empty_read_only_data_dir_is_not_seeded() {
        let dir = tempfile::tempdir().expect("temp dir");
        let data = dir.path().join("data");
        Atelier::open(DataDir::new(data.clone()))
            .await
            .expect("made")
            .close()
            .await;
        let locked = ReadOnly::make(&data);
        let app = Atelier::open(DataDir::new(data.clone()))
            .await
            .expect("opened read-only");
        assert!(app.data_dir().is_read_only());
        assert!(app.agents().seed_if_fresh().await.expect("seed").is_empty());
        assert!(app.toolsets().list().await.expect("list").is_empty());
        app.close().await;
        drop(locked);
    }

    /// Makes a folder read-only for this process until dropped: as root
    /// (who writes through modes) immutable, else without write modes.
    struct ReadOnly(std::path::PathBuf, bool);

    impl ReadOnly {
        fn make(dir: &std::path::Path) -> Self {
            let root = rustix::process::geteuid().is_root();
            let (tool, flag) = if root { ("chattr", "+i") } else { ("chmod", "a-w") };
            let status = std::process::Command::new(tool).args(["-R", flag]).arg(dir).status();
            // As root this needs `chattr +i`, which the temp folder's file
            // system must support (tmpfs does not).
            assert!(
                status.is_ok_and(|s| s.success()),
                "{tool} -R {flag} {} failed",
                dir.display()
            );
            Self(dir.to_owned(), root)
        }
    }

    impl Drop for ReadOnly {
        fn drop(&mut self) {
            let (tool, flag) = if self.1 { ("chattr", "-i") } else { ("chmod", "u+w") };
            let _ = std::process::Command::new(tool)
                .args(["-R", flag])
                .arg(&self.0)
                .status();
        }
    }
}
