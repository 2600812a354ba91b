//! A toolset's settings (`user_config`): the typed checks of a value, and
//! where values live — non-sensitive ones in `toolset_config_values`,
//! sensitive ones in the secret store under the toolset's owner and the
//! key `user_config.<KEY>`.

use std::collections::BTreeMap;

use indexmap::IndexMap;
use serde::Serialize;
use serde_json::{Map, Value};
use sqlx::SqliteConnection;

use crate::secrets::{Owner, Secret};
use crate::toolsets::Toolsets;
use crate::toolsets::manifest::UserConfigDecl;

use super::check::{check_exists, expand_value};
pub use super::check::{check_value, expand_home};
use crate::{Error, Result, db, ids};

/// One setting of an installed toolset, as a form shows it.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct ConfigField {
    pub key: String,
    #[serde(flatten)]
    pub decl: UserConfigDecl,
    /// The value in use: the person's, else the default. Never given for a
    /// sensitive setting (see `is_set`).
    #[ts(type = "unknown")]
    pub value: Option<Value>,
    /// Whether the person gave a value (for a sensitive one: whether the
    /// secret store holds it).
    pub is_set: bool,
}

/// A toolset's settings, and which required ones still need a value.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct ToolsetConfig {
    pub toolset_id: String,
    pub fields: Vec<ConfigField>,
    pub missing: Vec<String>,
}

/// The secret store key of a sensitive setting.
pub fn secret_key(key: &str) -> String {
    format!("user_config.{key}")
}

/// What an import or an edit asks to change.
#[derive(Debug, Default)]
pub(crate) struct Planned {
    /// Non-sensitive values to write (checked).
    pub values: Vec<(String, Value)>,
    /// Sensitive values to store.
    pub secrets: Vec<(String, Secret)>,
    /// Keys to remove (values and secrets).
    pub unset: Vec<String>,
}

/// Checks given values against the definitions: every key is declared,
/// every value fits, paths exist; sensitive values come only as `secrets`
/// (asked for, never a command-line argument or a plain field).
pub(crate) fn plan(
    toolset: &str,
    decls: &IndexMap<String, UserConfigDecl>,
    given: &Map<String, Value>,
    secrets: &BTreeMap<String, Secret>,
    unset: &[String],
) -> Result<Planned> {
    let invalid = |key: &str, reason: String| Error::ConfigInvalid {
        toolset: toolset.to_owned(),
        key: key.to_owned(),
        reason,
    };
    let known = || {
        if decls.is_empty() {
            "it has no settings".to_owned()
        } else {
            format!("its settings: {}", decls.keys().cloned().collect::<Vec<_>>().join(", "))
        }
    };
    let mut out = Planned::default();
    for (key, v) in given {
        let decl = decls
            .get(key)
            .ok_or_else(|| invalid(key, format!("no such setting ({})", known())))?;
        if decl.sensitive {
            return Err(invalid(
                key,
                "is sensitive: its value is asked for (or read from stdin), never given as an argument".into(),
            ));
        }
        let v = check_value(decl, v).map_err(|r| invalid(key, r))?;
        check_exists(decl, &v).map_err(|r| invalid(key, r))?;
        out.values.push((key.clone(), v));
    }
    for (key, secret) in secrets {
        match decls.get(key) {
            None => return Err(invalid(key, format!("no such setting ({})", known()))),
            Some(d) if !d.sensitive => {
                return Err(invalid(key, "is not sensitive: give it as a plain value".into()));
            }
            Some(_) if secret.expose().is_empty() => return Err(invalid(key, "is empty".into())),
            Some(_) => out.secrets.push((key.clone(), secret.clone())),
        }
    }
    for key in unset {
        if !decls.contains_key(key) {
            return Err(invalid(key, format!("no such setting ({})", known())));
        }
        if given.contains_key(key) || secrets.contains_key(key) {
            return Err(invalid(key, "given a value and unset at once".into()));
        }
        out.unset.push(key.clone());
    }
    Ok(out)
}

impl Toolsets<'_> {
    /// The definitions of an installed toolset's settings.
    pub(crate) async fn config_decls(&self, id: &str) -> Result<IndexMap<String, UserConfigDecl>> {
        let text: Option<String> = sqlx::query_scalar("SELECT user_config FROM toolsets WHERE id = ?")
            .bind(id)
            .fetch_optional(self.app.db())
            .await?;
        let text = text.ok_or_else(|| Error::ToolsetNotFound(id.to_owned()))?;
        serde_json::from_str(&text).map_err(|e| Error::InvalidData {
            what: "toolset user_config",
            reason: e.to_string(),
        })
    }

    /// Which settings have a value: `(stored non-sensitive values, keys of
    /// stored secrets)`.
    pub(crate) async fn stored(&self, id: &str) -> Result<(Map<String, Value>, Vec<String>)> {
        let rows: Vec<(String, String)> =
            sqlx::query_as("SELECT key, value FROM toolset_config_values WHERE toolset_id = ?")
                .bind(id)
                .fetch_all(self.app.db())
                .await?;
        let mut values = Map::new();
        for (k, v) in rows {
            values.insert(k, serde_json::from_str(&v).unwrap_or(Value::Null));
        }
        let secrets = self
            .app
            .secrets()
            .list(Some(&Owner::Toolset(id.to_owned())))
            .await?
            .into_iter()
            .filter_map(|n| n.key.strip_prefix("user_config.").map(str::to_owned))
            .collect();
        Ok((values, secrets))
    }

    /// A toolset's settings as a form shows them (no sensitive value).
    pub async fn config(&self, id: &str) -> Result<ToolsetConfig> {
        let decls = self.config_decls(id).await?;
        let (values, secrets) = self.stored(id).await?;
        Ok(form(id, &decls, &values, &secrets))
    }

    /// Sets and unsets settings of an installed toolset. A required
    /// setting cannot be unset unless it has a default.
    pub async fn set_config(
        &self,
        id: &str,
        given: &Map<String, Value>,
        secrets: &BTreeMap<String, Secret>,
        unset: &[String],
    ) -> Result<ToolsetConfig> {
        let decls = self.config_decls(id).await?;
        let planned = plan(id, &decls, given, secrets, unset)?;
        if let Some(key) = planned
            .unset
            .iter()
            .find(|k| decls.get(*k).is_some_and(|d| d.required && d.default.is_none()))
        {
            return Err(Error::ConfigInvalid {
                toolset: id.to_owned(),
                key: key.clone(),
                reason: "is required: give it another value instead".into(),
            });
        }
        self.store_planned(id, &decls, planned).await?;
        tracing::info!(toolset = %id, "changed toolset settings");
        self.config(id).await
    }

    /// Writes checked values: secrets first (the store may refuse), then
    /// the rows in one transaction.
    pub(crate) async fn store_planned(
        &self,
        id: &str,
        decls: &IndexMap<String, UserConfigDecl>,
        planned: Planned,
    ) -> Result<()> {
        let owner = Owner::Toolset(id.to_owned());
        for (key, secret) in planned.secrets {
            self.app.secrets().set(&owner, &secret_key(&key), secret).await?;
        }
        for key in &planned.unset {
            if decls.get(key).is_some_and(|d| d.sensitive) {
                self.app.secrets().unset(&owner, &secret_key(key)).await?;
            }
        }
        let mut tx = db::begin_write(self.app.db()).await?;
        write_values(&mut tx, id, &planned.values, &planned.unset).await?;
        tx.commit().await?;
        Ok(())
    }

    /// The values a Python tool receives as `atelier_config`, secrets
    /// included; `None` when the toolset declares no settings.
    pub async fn values_for_tool(&self, id: &str) -> Result<Option<Map<String, Value>>> {
        let decls = self.config_decls(id).await?;
        if decls.is_empty() {
            return Ok(None);
        }
        let (values, _) = self.stored(id).await?;
        let owner = Owner::Toolset(id.to_owned());
        let mut out = Map::new();
        let mut missing = Vec::new();
        for (key, decl) in &decls {
            if decl.sensitive {
                let reference = format!("setting {key:?} of toolset {id:?}");
                match self
                    .app
                    .secrets()
                    .resolve(&owner, &secret_key(key), &[], &reference)
                    .await
                {
                    Ok((s, _)) => {
                        out.insert(key.clone(), Value::String(s.expose().to_owned()));
                    }
                    Err(Error::SecretNotSet { .. }) if !decl.required => {}
                    Err(Error::SecretNotSet { .. }) => missing.push(key.clone()),
                    Err(e) => return Err(e),
                }
            } else if let Some(v) = values.get(key).or(decl.default.as_ref()) {
                out.insert(key.clone(), expand_value(decl, v));
            } else if decl.required {
                missing.push(key.clone());
            }
        }
        if !missing.is_empty() {
            return Err(Error::ConfigMissing {
                toolset: id.to_owned(),
                hint: format!("set them with `atelier toolset config {id} KEY VALUE` or in the toolset's settings"),
                keys: missing,
            });
        }
        Ok(Some(out))
    }

    /// The process environment variables a person allowed this toolset to read.
    pub async fn allowed_env(&self, id: &str) -> Result<Vec<String>> {
        Ok(
            sqlx::query_scalar("SELECT var FROM toolset_env_allowances WHERE toolset_id = ? ORDER BY var")
                .bind(id)
                .fetch_all(self.app.db())
                .await?,
        )
    }

    /// Allows (or forbids again) a toolset to read a process environment
    /// variable for its `${VAR}` references; the list after the change.
    pub async fn allow_env(&self, id: &str, var: &str, yes: bool) -> Result<Vec<String>> {
        self.config_decls(id).await?;
        let mut tx = db::begin_write(self.app.db()).await?;
        set_allowance(&mut tx, id, var, yes).await?;
        tx.commit().await?;
        self.allowed_env(id).await
    }
}

pub(crate) async fn set_allowance(conn: &mut SqliteConnection, id: &str, var: &str, yes: bool) -> Result<()> {
    if !super::refs::is_key(var) {
        return Err(Error::InvalidData {
            what: "environment variable name",
            reason: format!("{var:?}: use letters, digits and `_`"),
        });
    }
    if yes {
        sqlx::query("INSERT OR IGNORE INTO toolset_env_allowances (toolset_id, var, allowed_at) VALUES (?, ?, ?)")
            .bind(id)
            .bind(var)
            .bind(ids::now())
            .execute(&mut *conn)
            .await?;
    } else {
        sqlx::query("DELETE FROM toolset_env_allowances WHERE toolset_id = ? AND var = ?")
            .bind(id)
            .bind(var)
            .execute(&mut *conn)
            .await?;
    }
    Ok(())
}

pub(crate) async fn write_values(
    conn: &mut SqliteConnection,
    id: &str,
    values: &[(String, Value)],
    unset: &[String],
) -> Result<()> {
    let now = ids::now();
    for (key, v) in values {
        sqlx::query(
            "INSERT INTO toolset_config_values (toolset_id, key, value, updated_at) VALUES (?, ?, ?, ?) \
             ON CONFLICT (toolset_id, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
        )
        .bind(id)
        .bind(key)
        .bind(v.to_string())
        .bind(&now)
        .execute(&mut *conn)
        .await?;
    }
    for key in unset {
        sqlx::query("DELETE FROM toolset_config_values WHERE toolset_id = ? AND key = ?")
            .bind(id)
            .bind(key)
            .execute(&mut *conn)
            .await?;
    }
    Ok(())
}

/// The form of a toolset's settings from its definitions and what is stored.
pub(crate) fn form(
    id: &str,
    decls: &IndexMap<String, UserConfigDecl>,
    values: &Map<String, Value>,
    secrets: &[String],
) -> ToolsetConfig {
    let mut fields = Vec::new();
    let mut missing = Vec::new();
    for (key, decl) in decls {
        let (value, is_set) = if decl.sensitive {
            (None, secrets.contains(key))
        } else {
            let stored = values.get(key).filter(|v| check_value(decl, v).is_ok());
            (stored.or(decl.default.as_ref()).cloned(), stored.is_some())
        };
        if decl.required && !is_set && (decl.sensitive || decl.default.is_none()) {
            missing.push(key.clone());
        }
        fields.push(ConfigField {
            key: key.clone(),
            decl: decl.clone(),
            value,
            is_set,
        });
    }
    ToolsetConfig {
        toolset_id: id.to_owned(),
        fields,
        missing,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::toolsets::manifest::ConfigType;

    fn decl(kind: ConfigType) -> UserConfigDecl {
        UserConfigDecl {
            kind,
            title: "t".into(),
            description: String::new(),
            required: false,
            default: None,
            sensitive: false,
            min: None,
            max: None,
            multiple: false,
        }
    }

    #[test]
    fn values_are_checked_against_their_type_and_range() {
        let mut n = decl(ConfigType::Number);
        n.min = Some(1.0);
        n.max = Some(10.0);
        // Typed as an integer, it stays one (Python's `range()` refuses 3.0).
        for (typed, kept) in [
            (serde_json::json!("3"), serde_json::json!(3)),
            (serde_json::json!(" -2 "), serde_json::json!(-2)),
            (serde_json::json!("2.5"), serde_json::json!(2.5)),
            (serde_json::json!("3.0"), serde_json::json!(3.0)),
            (serde_json::json!("1e1"), serde_json::json!(10.0)),
            (serde_json::json!(7), serde_json::json!(7)),
        ] {
            n.min = (typed != serde_json::json!(" -2 ")).then_some(1.0);
            let v = check_value(&n, &typed).expect("a number");
            assert_eq!(
                (&v, v.is_i64() || v.is_u64()),
                (&kept, kept.is_i64() || kept.is_u64()),
                "{typed}"
            );
        }
        n.min = Some(1.0);
        assert_eq!(check_value(&n, &serde_json::json!(4)).expect("4"), serde_json::json!(4));
        let e = check_value(&n, &serde_json::json!("11")).expect_err("range");
        assert!(e.contains("from 1 to 10"), "{e}");
        assert!(check_value(&n, &serde_json::json!("many")).is_err());
        let b = decl(ConfigType::Boolean);
        assert_eq!(
            check_value(&b, &serde_json::json!("yes")).expect("b"),
            Value::Bool(true)
        );
        assert!(check_value(&b, &serde_json::json!("maybe")).is_err());
        let mut d = decl(ConfigType::Directory);
        d.multiple = true;
        assert_eq!(
            check_value(&d, &serde_json::json!("/tmp")).expect("one"),
            serde_json::json!(["/tmp"])
        );
        assert!(check_exists(&d, &serde_json::json!(["/definitely/not/here"])).is_err());
        assert!(check_exists(&d, &serde_json::json!(["relative"])).is_err());
        assert!(check_exists(&d, &serde_json::json!(["/tmp"])).is_ok());
    }

    #[test]
    fn a_form_lists_missing_required_settings_and_hides_secrets() {
        let mut decls = IndexMap::new();
        let mut key = decl(ConfigType::String);
        key.sensitive = true;
        key.required = true;
        decls.insert("api_key".to_owned(), key);
        let mut region = decl(ConfigType::String);
        region.required = true;
        region.default = Some(serde_json::json!("eu"));
        decls.insert("region".to_owned(), region);
        let f = form("t", &decls, &Map::new(), &[]);
        assert_eq!(f.missing, vec!["api_key".to_owned()]);
        assert_eq!(f.fields[1].value, Some(serde_json::json!("eu")));
        let f = form("t", &decls, &Map::new(), &["api_key".to_owned()]);
        assert!(f.missing.is_empty() && f.fields[0].value.is_none() && f.fields[0].is_set);
    }
}
