//! Running tools: the run flow ([`run`]) around one call seam ([`call`]:
//! control, events, outcome, backends), builtin tools ([`builtin`]), Python
//! tools ([`python`]), the calls' rows (`record`, words in [`status`]),
//! render plans ([`plan`]) and who is asked first ([`policy`]).

pub mod approval;
pub mod arg_problems;
pub mod builtin;
pub mod call;
mod coordinated;
pub mod fixtures;
mod mcp;
pub mod plan;
pub mod policy;
pub mod python;
mod record;
pub(crate) mod recover;
mod request;
pub mod run;
pub mod status;
mod target;
pub mod views;

pub use approval::{Approval, ApprovalRequest};
pub use arg_problems::ArgProblem;
pub use call::{CallControl, EventSink, OutputStream, RunEvent};
pub use policy::{Policy, ToolPolicy};
pub use run::{RunRequest, ToolCallRecord};
pub use status::{CallStatus, ErrorKind};
pub(crate) use target::{Known, Target};

use crate::{Result, db};

/// Running tools and what their calls left: the run flow, approvals, cancel, records and renders: `app.tools()`. A view of the [`Atelier`] handle (cheap, `Copy`);
/// every operation of this area is a method here.
#[derive(Debug, Clone, Copy)]
pub struct Tools<'a> {
    pub(crate) app: &'a crate::Atelier,
}

impl Tools<'_> {
    /// Every enabled tool a person can run: builtins, enabled toolsets'
    /// tools, and the tools of active MCP servers (from their listing).
    pub async fn list(&self) -> Result<Vec<crate::toolsets::records::ToolRecord>> {
        let mut tools = self.app.toolsets().tools().await?;
        tools.extend(self.app.mcp().tool_records().await?);
        Ok(tools)
    }

    /// One tool, whatever provides it.
    pub async fn tool(&self, tool_id: &str) -> Result<crate::toolsets::records::ToolRecord> {
        match self.app.mcp().tool_record(tool_id).await? {
            Some(t) => Ok(t),
            None => self.app.toolsets().tool(tool_id).await,
        }
    }
}

/// A builtin's stored row: id, name, description, category, input schema,
/// confirmation, renderer, render config.
type BuiltinRow = (
    String,
    String,
    String,
    Option<String>,
    String,
    bool,
    Option<String>,
    Option<String>,
);

/// Makes the `tools` rows of builtin tools match [`builtin::BUILTINS`].
pub(crate) async fn sync_builtins(pool: &sqlx::SqlitePool) -> Result<()> {
    // Most opens find the rows up to date: compare with one read before
    // taking the write lock.
    let stored: Vec<BuiltinRow> = sqlx::query_as(
        "SELECT t.tool_id, t.name, t.description, t.category, t.input_schema, t.requires_confirmation, \
             r.renderer, r.config FROM tools t LEFT JOIN tool_render_configs r \
             ON r.tool_id = t.tool_id AND r.priority = 0 WHERE t.toolset_id IS NULL ORDER BY t.position",
    )
    .fetch_all(pool)
    .await?;
    let wanted: Vec<_> = builtin::BUILTINS
        .iter()
        .map(|b| {
            let (renderer, config) = (b.render)();
            (
                b.id.to_owned(),
                b.name.to_owned(),
                b.description.to_owned(),
                Some(b.category.to_owned()),
                (b.input_schema)().to_string(),
                b.requires_confirmation,
                Some(renderer.to_owned()),
                Some(config.to_string()),
            )
        })
        .collect();
    if stored == wanted {
        return Ok(());
    }
    let mut tx = db::begin_write(pool).await?;
    let ids: Vec<&str> = builtin::BUILTINS.iter().map(|b| b.id).collect();
    let stale: Vec<String> = sqlx::query_scalar("SELECT tool_id FROM tools WHERE toolset_id IS NULL")
        .fetch_all(&mut *tx)
        .await?
        .into_iter()
        .filter(|id: &String| !ids.contains(&id.as_str()))
        .collect();
    for id in stale {
        sqlx::query("DELETE FROM tools WHERE tool_id = ? AND toolset_id IS NULL")
            .bind(id)
            .execute(&mut *tx)
            .await?;
    }
    for (position, b) in builtin::BUILTINS.iter().enumerate() {
        sqlx::query(
            "INSERT INTO tools (tool_id, toolset_id, name, description, category, input_schema, requires_confirmation, \
             enabled, entrypoint, position) VALUES (?1, NULL, ?2, ?3, ?4, ?5, ?6, 1, NULL, ?7) \
             ON CONFLICT (tool_id) DO UPDATE SET name = ?2, description = ?3, category = ?4, input_schema = ?5, \
             requires_confirmation = ?6, position = ?7",
        )
        .bind(b.id)
        .bind(b.name)
        .bind(b.description)
        .bind(b.category)
        .bind((b.input_schema)().to_string())
        .bind(b.requires_confirmation)
        .bind(i64::try_from(position).unwrap_or(0))
        .execute(&mut *tx)
        .await?;
        let (renderer, config) = (b.render)();
        sqlx::query(
            "INSERT INTO tool_render_configs (tool_id, renderer, config, priority) VALUES (?1, ?2, ?3, 0) \
             ON CONFLICT (tool_id, priority) DO UPDATE SET renderer = ?2, config = ?3",
        )
        .bind(b.id)
        .bind(renderer)
        .bind(config.to_string())
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await?;
    Ok(())
}
