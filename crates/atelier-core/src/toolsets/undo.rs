//! What an import writes outside its transaction, remembered so that an
//! import that does not commit takes it back: README promises "a refused
//! one leaves nothing".
//!
//! Secrets cannot be written inside the import's transaction (the secret
//! store records each name in a write transaction of its own, and the
//! keychain is no database), so they are written just before it; each
//! value a secret had before (or its absence) is kept here and put back if
//! the import fails after that — a busy toolset, a failed swap or commit —
//! so the installed version keeps the secrets it runs with, each with the
//! origin it had (a value the person typed is not put back as the
//! bundle's, nor the reverse). Artifacts kept
//! by content (`artifacts/`, never cleaned by `gc`) that this import added
//! are removed the same way.

use std::path::PathBuf;

use crate::secrets::{Owner, Secret, SecretOrigin, Source};
use crate::{Atelier, Result};

/// What to put back if the import does not commit.
#[derive(Debug, Default)]
pub(crate) struct Undo {
    /// Each secret written, with the value the store held before and its
    /// origin (none: it held none), in the order written.
    secrets: Vec<(Owner, String, Option<Held>)>,
    /// Artifact files this import created (none of them existed before).
    pub(super) artifacts: Vec<PathBuf>,
}

/// A value the store held before the import wrote over it, and its origin.
#[derive(Debug)]
struct Held {
    value: Secret,
    origin: SecretOrigin,
}

impl Undo {
    /// Stores `value` as `key` of `owner`, with where it came from (a
    /// bundle's plain value, or one the person gave), remembering what it
    /// replaces.
    pub(crate) async fn set_secret(
        &mut self,
        app: &Atelier,
        owner: &Owner,
        key: &str,
        value: Secret,
        origin: SecretOrigin,
    ) -> Result<()> {
        let first = !self.secrets.iter().any(|(o, k, _)| o == owner && k == key);
        let before = if first { stored(app, owner, key).await? } else { None };
        app.secrets().set_from(owner, key, value, origin).await?;
        // Only what was written is put back: a write the store refused (no
        // keychain) changed nothing, and undoing it would fail the same way.
        if first {
            self.secrets.push((owner.clone(), key.to_owned(), before));
        }
        Ok(())
    }

    /// Puts every secret back as it was and removes the artifacts this
    /// import added. What cannot be put back is logged (by name, never by
    /// value): the import's own error is what the caller reports.
    pub(crate) async fn roll_back(self, app: &Atelier) {
        for (owner, key, before) in self.secrets.into_iter().rev() {
            let restored = match before {
                Some(Held { value, origin }) => app.secrets().set_from(&owner, &key, value, origin).await.map(|_| ()),
                None => app.secrets().unset(&owner, &key).await.map(|_| ()),
            };
            if let Err(e) = restored {
                tracing::warn!(%owner, key = %key, error = %e, "could not put a secret back after a refused import");
            }
        }
        for path in self.artifacts {
            if let Err(e) = std::fs::remove_file(&path) {
                tracing::warn!(path = %path.display(), error = %e, "could not remove an artifact of a refused import");
            }
        }
    }
}

/// The value the secret store holds for `key` of `owner` (not one from the
/// environment, which an import never changes), and its origin.
async fn stored(app: &Atelier, owner: &Owner, key: &str) -> Result<Option<Held>> {
    match app.secrets().source(owner, key, &[]).await? {
        Some(Source::Store(_)) => {
            let (value, source) = app.secrets().resolve(owner, key, &[], key).await?;
            let origin = app
                .secrets()
                .list(Some(owner))
                .await?
                .into_iter()
                .find(|n| n.key == key)
                .map_or(SecretOrigin::Person, |n| n.origin);
            Ok(matches!(source, Source::Store(_)).then_some(Held { value, origin }))
        }
        _ => Ok(None),
    }
}
