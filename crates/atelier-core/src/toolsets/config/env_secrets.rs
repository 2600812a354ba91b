//! The `${NAME}`s an installed toolset's MCP servers read that its bundle
//! does not bring, and their values set by the person: what the install
//! screen and the toolset's details offer as password fields, so that a
//! desktop user needs no terminal. A ZIP's plain-text values, moved to the
//! secret store at import, are listed too, their `origin` saying so (one
//! removed comes back only by installing the toolset again); a value set
//! here is the person's. A value goes where `atelier secrets set
//! toolset:<id> NAME` puts it (the secret store, owner `toolset:<id>`, key
//! `NAME`: [`crate::secrets::Secrets::set`]), so the server's next start
//! resolves it ([`super::launch`]). Only a name its servers read can be set
//! this way: a typo, or a sensitive setting's `user_config.<KEY>`, is
//! refused rather than stored where nothing reads it.

use crate::Result;
use crate::secrets::{Owner, Secret, SecretOrigin};
use crate::toolsets::Toolsets;
use crate::toolsets::manifest::{McpServerDecl, ToolsetManifest};
use crate::toolsets::validate::MANIFEST_FILE;
use crate::{Error, toolsets::config::EnvReference};

use super::import::{env_references, reference};
use super::literals;

impl Toolsets<'_> {
    /// The `${NAME}`s the MCP servers of installed toolset `id` read, each
    /// saying whether the secret store holds it for this toolset, whether
    /// the person let it read the variable from the environment, and
    /// whether the environment has it. A local folder's plain-text values
    /// (read from the folder at each start) are not among them.
    pub async fn env_references(&self, id: &str) -> Result<Vec<EnvReference>> {
        let row: Option<(String, Option<String>)> =
            sqlx::query_as("SELECT source_type, source_ref FROM toolsets WHERE id = ?")
                .bind(id)
                .fetch_optional(self.app.db())
                .await?;
        let (source, source_ref) = row.ok_or_else(|| Error::ToolsetNotFound(id.to_owned()))?;
        let configs: Vec<String> =
            sqlx::query_scalar("SELECT config FROM toolset_mcp_servers WHERE toolset_id = ? ORDER BY position")
                .bind(id)
                .fetch_all(self.app.db())
                .await?;
        let servers = configs
            .iter()
            .map(|c| {
                serde_json::from_str::<McpServerDecl>(c).map_err(|e| Error::InvalidData {
                    what: "MCP server declaration",
                    reason: e.to_string(),
                })
            })
            .collect::<Result<Vec<_>>>()?;
        // A local folder keeps its plain values: its rows name them by the
        // keys an import would have given them, and the folder gives them.
        let mut plain = Vec::new();
        if let (Some(dir), "local") = (&source_ref, source.as_str())
            && let Some(mut m) = crate::toolsets::validate::text::read_parsed::<ToolsetManifest>(
                &std::path::Path::new(dir).join(MANIFEST_FILE),
            )
            .await
        {
            plain = literals::extract(&mut m.mcp_servers)
                .into_iter()
                .map(|l| l.key)
                .collect();
        }
        let allowed = self.allowed_env(id).await?;
        let stored = self.app.secrets().list(Some(&Owner::Toolset(id.to_owned()))).await?;
        Ok(env_references(&servers)
            .into_iter()
            .filter(|(name, _)| !plain.contains(name))
            .map(|(name, server_ids)| reference(name, server_ids, &allowed, &stored))
            .collect())
    }

    /// The references of toolset `id`; fails unless its servers read `${name}`.
    async fn check_reference(&self, id: &str, name: &str) -> Result<Vec<EnvReference>> {
        let refs = self.env_references(id).await?;
        if refs.iter().any(|r| r.name == name) {
            return Ok(refs);
        }
        let read: Vec<String> = refs.iter().map(|r| format!("${{{}}}", r.name)).collect();
        Err(Error::InvalidData {
            what: "toolset secret",
            reason: format!(
                "the MCP servers of toolset {id:?} read no ${{{name}}}{}",
                if read.is_empty() {
                    String::new()
                } else {
                    format!(" (they read {})", read.join(", "))
                }
            ),
        })
    }

    /// Stores the value of `${name}` for toolset `id`, where `atelier
    /// secrets set toolset:<id> NAME` does; the references afterwards. A
    /// server already running keeps the value it started with until it
    /// starts again. The value is the person's from then on, even where it
    /// replaced one the bundle brought.
    pub async fn set_env_secret(&self, id: &str, name: &str, value: Secret) -> Result<Vec<EnvReference>> {
        let refs = self.check_reference(id, name).await?;
        if value.expose().is_empty() {
            return Err(Error::InvalidData {
                what: "toolset secret",
                reason: format!("${{{name}}} of toolset {id:?} was given an empty value: type it, or remove it"),
            });
        }
        self.app
            .secrets()
            .set(&Owner::Toolset(id.to_owned()), name, value)
            .await?;
        tracing::info!(toolset = %id, key = %name, "stored a value its servers read");
        Ok(with_stored(refs, name, Some(SecretOrigin::Person)))
    }

    /// Removes the stored value of `${name}` for toolset `id`; the
    /// references afterwards.
    pub async fn unset_env_secret(&self, id: &str, name: &str) -> Result<Vec<EnvReference>> {
        let refs = self.check_reference(id, name).await?;
        self.app.secrets().unset(&Owner::Toolset(id.to_owned()), name).await?;
        tracing::info!(toolset = %id, key = %name, "removed a value its servers read");
        Ok(with_stored(refs, name, None))
    }
}

/// `refs` after `${name}`'s value was stored (from `origin`) or removed
/// (none), not read again.
fn with_stored(mut refs: Vec<EnvReference>, name: &str, origin: Option<SecretOrigin>) -> Vec<EnvReference> {
    for r in refs.iter_mut().filter(|r| r.name == name) {
        r.stored = origin.is_some();
        r.origin = origin;
    }
    refs
}

#[cfg(test)]
mod tests {
    use crate::secrets::Secret;
    use crate::toolsets::install::ImportOptions;
    use crate::{Atelier, DataDir, Error};

    const MANIFEST: &str = "manifest_version: \"1\"\nid: weather\nname: Weather\nversion: \"1.0.0\"\n\
        mcp_servers:\n  - id: forecast\n    command: forecast-server\n    \
        env: {TOKEN: \"${WEATHER_TOKEN}\", PLAIN: \"sk-in-the-folder\", HOME_DIR: \"${HOME}\"}\n";

    /// A value set for a `${NAME}` is what the server's launch reads, is
    /// never said back, and goes again when removed; a name its servers do
    /// not read is refused, and a local folder's plain value is not asked for.
    #[tokio::test]
    async fn a_value_its_servers_read_is_set_used_by_the_launch_and_removed() {
        let dir = tempfile::tempdir().expect("tmp");
        let src = dir.path().join("weather");
        std::fs::create_dir_all(&src).expect("mkdir");
        std::fs::write(src.join("toolset.yaml"), MANIFEST).expect("write");
        let app = Atelier::open(DataDir::new(dir.path().join("data"))).await.expect("app");
        // The file store (no keychain on a test machine), as the person allows it.
        app.secrets().allow_file_fallback(true).await.expect("allow the file");
        app.toolsets()
            .import(&src, &ImportOptions::default())
            .await
            .expect("import");
        let ts = app.toolsets();

        let refs = ts.env_references("weather").await.expect("references");
        let names: Vec<(&str, bool)> = refs.iter().map(|r| (r.name.as_str(), r.stored)).collect();
        assert_eq!(names, [("WEATHER_TOKEN", false)], "{refs:?}");
        assert_eq!(refs[0].server_ids, ["forecast"]);
        let unset = ts.launch_spec("weather", "forecast").await.expect_err("no value yet");
        assert!(matches!(unset, Error::SecretNotSet { .. }), "{unset}");

        let typo = ts
            .set_env_secret("weather", "WEATHER_TOKNE", Secret::new("tok-typo-1"))
            .await
            .expect_err("a name nothing reads");
        let said = typo.to_string();
        assert!(
            said.contains("${WEATHER_TOKNE}") && said.contains("${WEATHER_TOKEN}"),
            "{said}"
        );
        assert!(!said.contains("tok-typo-1"), "{said}");
        let setting = ts
            .set_env_secret("weather", "user_config.key", Secret::new("tok-typo-2"))
            .await
            .expect_err("a setting's key");
        assert!(matches!(setting, Error::InvalidData { .. }), "{setting}");

        let refs = ts
            .set_env_secret("weather", "WEATHER_TOKEN", Secret::new("tok-weather-42"))
            .await
            .expect("set");
        assert!(refs[0].stored, "{refs:?}");
        assert!(!format!("{refs:?}").contains("tok-weather-42"));
        let spec = ts.launch_spec("weather", "forecast").await.expect("resolved");
        assert_eq!(spec.env["TOKEN"].expose(), "tok-weather-42");
        assert_eq!(spec.env["PLAIN"].expose(), "sk-in-the-folder");
        // Where the CLI's `secrets set toolset:weather WEATHER_TOKEN` puts it.
        let names = app.secrets().list(None).await.expect("names");
        assert_eq!(
            names
                .iter()
                .map(|n| (n.owner.as_str(), n.key.as_str()))
                .collect::<Vec<_>>(),
            [("toolset:weather", "WEATHER_TOKEN")]
        );

        let refs = ts.unset_env_secret("weather", "WEATHER_TOKEN").await.expect("unset");
        assert!(!refs[0].stored, "{refs:?}");
        assert!(
            ts.launch_spec("weather", "forecast").await.is_err(),
            "the value is gone"
        );
        let missing = ts.env_references("nope").await.expect_err("no such toolset");
        assert!(matches!(missing, Error::ToolsetNotFound(_)), "{missing}");
    }
}
