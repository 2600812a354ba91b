//! The two places a secret can live: the OS keychain ([`Keychain`]), and,
//! only with the person's consent where no keychain is reachable, a 0600
//! file in the data dir ([`FileStore`]). Both are blocking (D-Bus calls,
//! file I/O): callers run them on `spawn_blocking`.

use std::collections::BTreeMap;
use std::fs::OpenOptions;
use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use super::owner::{Owner, Secret, StoreKind};
use crate::{Error, Result};

/// Where secrets are kept, behind one small interface.
pub trait SecretStore: Send + Sync {
    fn kind(&self) -> StoreKind;
    fn get(&self, owner: &Owner, key: &str) -> Result<Option<Secret>>;
    fn set(&self, owner: &Owner, key: &str, value: &Secret) -> Result<()>;
    /// Whether there was a value.
    fn delete(&self, owner: &Owner, key: &str) -> Result<bool>;
}

/// The service every Atelier entry is stored under.
pub const SERVICE: &str = "atelier";

/// The OS keychain. Each entry is the service `atelier` with the account
/// `<owner>/<key>` (`toolset:csv-report/API_KEY`).
#[derive(Debug, Default)]
pub struct Keychain;

impl Keychain {
    fn entry(owner: &Owner, key: &str) -> Result<keyring::Entry> {
        keyring::Entry::new(SERVICE, &format!("{owner}/{key}")).map_err(|e| unavailable(&e))
    }

    /// Whether a keychain answers here: `Err` says why not, in one line.
    pub fn probe() -> std::result::Result<(), String> {
        let entry = keyring::Entry::new(SERVICE, "atelier:probe/-").map_err(|e| e.to_string())?;
        match entry.get_password() {
            Ok(_) | Err(keyring::Error::NoEntry) => Ok(()),
            Err(e) => Err(one_line(&e)),
        }
    }
}

fn one_line(e: &keyring::Error) -> String {
    e.to_string().lines().next().unwrap_or_default().to_owned()
}

fn unavailable(e: &keyring::Error) -> Error {
    Error::SecretsUnavailable(format!("the keychain failed: {}", one_line(e)))
}

impl SecretStore for Keychain {
    fn kind(&self) -> StoreKind {
        StoreKind::Keychain
    }

    fn get(&self, owner: &Owner, key: &str) -> Result<Option<Secret>> {
        match Self::entry(owner, key)?.get_password() {
            Ok(v) => Ok(Some(Secret::new(v))),
            Err(keyring::Error::NoEntry) => Ok(None),
            Err(e) => Err(unavailable(&e)),
        }
    }

    fn set(&self, owner: &Owner, key: &str, value: &Secret) -> Result<()> {
        Self::entry(owner, key)?
            .set_password(value.expose())
            .map_err(|e| unavailable(&e))
    }

    fn delete(&self, owner: &Owner, key: &str) -> Result<bool> {
        match Self::entry(owner, key)?.delete_credential() {
            Ok(()) => Ok(true),
            Err(keyring::Error::NoEntry) => Ok(false),
            Err(e) => Err(unavailable(&e)),
        }
    }
}

/// `secrets.json` in the data dir, readable by its owner only (0600): the
/// fallback a person agreed to. `{ "toolset:x": { "KEY": "value" } }`.
#[derive(Debug)]
pub struct FileStore {
    path: PathBuf,
}

type FileData = BTreeMap<String, BTreeMap<String, String>>;

impl FileStore {
    pub fn new(path: PathBuf) -> Self {
        Self { path }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn read(&self) -> Result<FileData> {
        let text = match std::fs::read_to_string(&self.path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(FileData::new()),
            Err(e) => return Err(Error::io("read", &self.path)(e)),
        };
        // Never echo the content: it is all secrets.
        serde_json::from_str(&text).map_err(|e| Error::InvalidData {
            what: "secrets file",
            reason: format!(
                "{} is not valid (line {}): fix or remove it",
                self.path.display(),
                e.line()
            ),
        })
    }

    fn write(&self, data: &FileData) -> Result<()> {
        let tmp = self.path.with_extension("json.tmp");
        let _ = std::fs::remove_file(&tmp);
        let mut f = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&tmp)
            .map_err(Error::io("create", &tmp))?;
        let text = serde_json::to_string_pretty(data).map_err(|e| Error::Internal(e.to_string()))?;
        f.write_all(text.as_bytes()).map_err(Error::io("write", &tmp))?;
        f.sync_all().map_err(Error::io("sync", &tmp))?;
        // The umask may have cleared bits; never more than 0600.
        f.set_permissions(std::fs::Permissions::from_mode(0o600))
            .map_err(Error::io("set permissions of", &tmp))?;
        std::fs::rename(&tmp, &self.path).map_err(Error::io("write", &self.path))
    }
}

impl SecretStore for FileStore {
    fn kind(&self) -> StoreKind {
        StoreKind::File
    }

    fn get(&self, owner: &Owner, key: &str) -> Result<Option<Secret>> {
        Ok(self
            .read()?
            .get(&owner.to_string())
            .and_then(|m| m.get(key))
            .map(|v| Secret::new(v.clone())))
    }

    fn set(&self, owner: &Owner, key: &str, value: &Secret) -> Result<()> {
        let mut data = self.read()?;
        data.entry(owner.to_string())
            .or_default()
            .insert(key.to_owned(), value.expose().to_owned());
        self.write(&data)
    }

    fn delete(&self, owner: &Owner, key: &str) -> Result<bool> {
        let mut data = self.read()?;
        let owner = owner.to_string();
        let had = data.get_mut(&owner).and_then(|m| m.remove(key)).is_some();
        if data.get(&owner).is_some_and(BTreeMap::is_empty) {
            data.remove(&owner);
        }
        if had {
            self.write(&data)?;
        }
        Ok(had)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_store_keeps_values_per_owner_in_a_0600_file() {
        let dir = tempfile::tempdir().expect("tmp");
        let store = FileStore::new(dir.path().join("secrets.json"));
        let (a, b) = (Owner::Toolset("a".into()), Owner::Toolset("b".into()));
        store.set(&a, "KEY", &Secret::new("one")).expect("set");
        assert_eq!(store.get(&a, "KEY").expect("get"), Some(Secret::new("one")));
        assert_eq!(store.get(&b, "KEY").expect("get"), None, "another owner gets nothing");
        let mode = std::fs::metadata(store.path()).expect("stat").permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        assert!(store.delete(&a, "KEY").expect("delete"));
        assert!(!store.delete(&a, "KEY").expect("again"));
        assert_eq!(std::fs::read_to_string(store.path()).expect("read").trim(), "{}");
    }
}
