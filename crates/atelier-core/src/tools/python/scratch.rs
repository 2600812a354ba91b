//! The worker of an import's looks at a version not installed yet: reading
//! its source ([`super::inspect`]), describing its `tools_from` exports and
//! checking its entrypoints ([`super::check`]) share one interpreter while
//! the venv they need stays the same.
//!
//! An author's dev loop reloads the same local toolset again and again:
//! a scratch that asks to be kept warm leaves a spare worker behind when it
//! stops (started in the background, rooted nowhere), and the next import
//! without requirements moves it to its own folder (`Request::Root`)
//! instead of waiting for a fresh interpreter. At most one spare exists; it
//! has imported nothing, so no code of one version meets another.

use std::path::{Path, PathBuf};

use atelier_protocol::Request;

use super::worker::{Limits, Worker};
use super::{Spawn, to_outcome};
use crate::{Atelier, Error, Result};

/// The scratch worker of one import (see the module docs). Dropped, it
/// stops.
pub(crate) struct Scratch<'a> {
    app: &'a Atelier,
    root: PathBuf,
    venv: Option<PathBuf>,
    worker: Option<(Worker, Limits)>,
    keep_warm: bool,
}

impl std::fmt::Debug for Scratch<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scratch")
            .field("root", &self.root)
            .field("venv", &self.venv)
            .field("keep_warm", &self.keep_warm)
            .finish_non_exhaustive()
    }
}

impl Atelier {
    /// A scratch worker for the files in `root`, started on first use.
    /// `keep_warm`: leave a spare behind for the next import (a dev loop).
    pub(crate) fn scratch(&self, root: &Path, keep_warm: bool) -> Scratch<'_> {
        Scratch {
            app: self,
            root: root.to_path_buf(),
            venv: None,
            worker: None,
            keep_warm,
        }
    }

    fn scratch_limits(&self) -> Limits {
        let settings = &self.python().settings;
        Limits {
            timeout: settings.default_timeout,
            cancel: Default::default(),
            output_cap: settings.output_cap,
            listener: None,
        }
    }

    /// A worker for one look at a version not installed yet (its files in
    /// `root`), in no chat, with the default limits. The caller kills it.
    pub(super) async fn scratch_worker(&self, root: &Path, venv: Option<&Path>) -> Result<(Worker, Limits)> {
        let pycache = self.pycache_root().join(".import");
        let tmp = self.pycache_root().join(".import-tmp");
        let spawn = Spawn {
            toolset_dir: root,
            venv,
            workspace: root,
            pycache: &pycache,
            tmp: &tmp,
        };
        let worker = self.python().start(&spawn).await?;
        Ok((worker, self.scratch_limits()))
    }

    /// The spare, moved to `root`, if there is one and it answers.
    async fn take_spare(&self, root: &Path) -> Option<(Worker, Limits)> {
        // Waits for a spare being started: never slower than a new start.
        let mut worker = self.python().spare.lock().await.take()?;
        let limits = self.scratch_limits();
        let req = Request::Root {
            id: crate::ids::new_id(),
            toolset_dir: root.to_string_lossy().into_owned(),
        };
        match to_outcome(worker.request(&req, &limits).await).result {
            Ok(_) => Some((worker, limits)),
            Err(_) => {
                worker.kill().await;
                None
            }
        }
    }

    /// Starts a spare in the background, unless there is one (or one is
    /// being started). The slot is locked before this returns and until the
    /// worker is up, so the next reload waits for it.
    fn refill_spare(&self) {
        let Ok(mut slot) = self.python().spare.clone().try_lock_owned() else {
            return; // one is being started, or taken right now
        };
        if slot.is_some() {
            return;
        }
        let app = self.clone();
        tokio::spawn(async move {
            let nowhere = app.pycache_root().join(".spare");
            if tokio::fs::create_dir_all(&nowhere).await.is_ok()
                && let Ok((worker, _)) = app.scratch_worker(&nowhere, None).await
            {
                *slot = Some(worker);
            }
        });
    }
}

impl Scratch<'_> {
    /// The worker, with `venv`'s packages on its path.
    pub(super) async fn get(&mut self, venv: Option<&Path>) -> Result<(&mut Worker, &Limits)> {
        if self.worker.is_some() && self.venv.as_deref() != venv {
            self.stop_worker().await;
        }
        if self.worker.is_none() {
            let spare = match venv {
                None if self.keep_warm => self.app.take_spare(&self.root).await,
                _ => None,
            };
            self.worker = Some(match spare {
                Some(w) => w,
                None => self.app.scratch_worker(&self.root, venv).await?,
            });
            self.venv = venv.map(Path::to_path_buf);
        }
        match &mut self.worker {
            Some((w, l)) => Ok((w, &*l)),
            None => Err(Error::Internal("the scratch worker did not start".into())),
        }
    }

    /// What a message of the worker says of a file of the bundle, as the
    /// author knows it: relative to the bundle, not to the staging copy the
    /// worker was rooted at.
    pub(super) fn as_bundle_paths(&self, text: &str) -> String {
        text.replace(&format!("{}/", self.root.display()), "")
    }

    pub(super) async fn stop_worker(&mut self) {
        if let Some((mut w, _)) = self.worker.take() {
            w.kill().await;
        }
    }

    /// Stops the worker now (it would stop when dropped, without waiting);
    /// one kept warm leaves a spare for the next import.
    pub(crate) async fn stop(&mut self) {
        self.stop_worker().await;
        if self.keep_warm {
            self.app.refill_spare();
        }
    }
}
