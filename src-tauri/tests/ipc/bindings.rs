//! `ui/src/bindings.ts` is generated from the Rust types the commands take
//! and return (ts-rs). This test fails when the committed file is stale;
//! `UPDATE_BINDINGS=1 cargo test -p atelier-app --test ipc bindings` rewrites it.

use ts_rs::{Config, TS};

fn generate() -> String {
    let cfg = Config::new().with_large_int("number");
    let mut out = String::from(
        "// Generated from the Rust types by src-tauri/tests/ipc/bindings.rs (ts-rs). Do not edit:\n\
         // run `UPDATE_BINDINGS=1 cargo test -p atelier-app --test ipc bindings`.\n\n\
         export type JsonValue = number | string | boolean | Array<JsonValue> | { [key in string]?: JsonValue } | null;\n",
    );
    macro_rules! decl {
        ($($t:ty),* $(,)?) => {
            $(
                out.push_str("\nexport ");
                out.push_str(&<$t as TS>::decl(&cfg));
                out.push('\n');
            )*
        };
    }
    use atelier_core::model::*;
    use atelier_core::toolsets::records::*;
    decl!(
        atelier_app::error::IpcError,
        atelier_core::ErrorCode,
        atelier_app::commands::ImportProgress,
        atelier_core::tools::RunEvent,
        atelier_core::tools::OutputStream,
        atelier_core::tools::ArgProblem,
        Chat,
        ModelSettings,
        ReasoningEffort,
        TurnMeta,
        TokenUsage,
        atelier_core::conversation::ChatEvent,
        atelier_core::conversation::RunStatus,
        atelier_core::conversation::RunOutcome,
        atelier_app::llm_commands::SendRequest,
        atelier_app::llm_commands::RunChoice,
        atelier_core::providers::ProviderRecord,
        atelier_core::providers::ProviderSpec,
        atelier_core::providers::ConnectionTest,
        atelier_core::providers::Detected,
        atelier_core::providers::Preset,
        Role,
        ContentPart,
        Message,
        MessageNode,
        ManifestSource,
        WorkspaceManifest,
        FileListing,
        SnapshotOutcome,
        WorkspaceDiff,
        ModifiedFile,
        atelier_core::tools::views::WorkspaceFile,
        atelier_core::settings::Settings,
        atelier_core::settings::FrameAccess,
        atelier_core::settings::FrameCheck,
        atelier_core::workspace::diff::TextChange,
        atelier_core::Progress,
        atelier_core::workspace::edits::FileChange,
        atelier_core::workspace::export::WorkspaceExport,
        atelier_app::frames::SettingsView,
        ToolsetRecord,
        RenderConfigRecord,
        ToolRecord,
        ToolsetFileRecord,
        ToolsetMcpServerRecord,
        ToolsetDetails,
        WillRun,
        EntryPoint,
        ServerLaunch,
        atelier_core::toolsets::records::LaunchValue,
        atelier_core::toolsets::records::VersionChange,
        BundleReport,
        ExportedTool,
        ImportReport,
        SourceType,
        atelier_core::toolsets::manifest::Scope,
        ImportAction,
        atelier_core::diagnostics::Severity,
        atelier_core::diagnostics::Problem,
        atelier_core::tools::CallStatus,
        atelier_core::tools::ErrorKind,
        atelier_core::tools::Policy,
        atelier_core::toolsets::live::ReloadStatus,
        atelier_core::tools::ToolPolicy,
        atelier_core::tools::ToolCallRecord,
        atelier_core::tools::plan::RenderPlan,
        atelier_core::toolsets::export::PackReport,
        atelier_core::toolsets::config::Consent,
        atelier_core::toolsets::config::SecretValue,
        atelier_core::toolsets::config::EnvReference,
        atelier_core::toolsets::config::ToolsetConfig,
        atelier_core::toolsets::config::ConfigField,
        atelier_core::toolsets::manifest::UserConfigDecl,
        atelier_core::toolsets::manifest::ConfigType,
        atelier_core::secrets::SecretsStatus,
        atelier_core::logging::LogLocation,
        atelier_core::secrets::StoreKind,
        atelier_core::secrets::SecretOrigin,
        atelier_app::mcp_commands::McpServerRequest,
        atelier_core::mcp::ServerRecord,
        atelier_core::mcp::ServerDetails,
        atelier_core::mcp::servers::Instance,
        atelier_core::mcp::McpTool,
        atelier_core::mcp::ServerTransport,
        atelier_core::mcp::ImportCandidate,
        atelier_core::providers::ProviderChanges,
        atelier_core::agents::Agent,
        atelier_core::agents::AgentSpec,
        atelier_core::agents::AgentModel,
        atelier_core::routing::Filter,
        atelier_core::routing::Policy,
        atelier_core::routing::SourceKind,
        atelier_core::routing::Exposure,
        atelier_core::agents::preview::ToolsPreview,
        atelier_core::agents::preview::PreviewTool,
        atelier_core::agents::preview::SavedAgent,
    );
    out
}

#[test]
fn the_committed_typescript_bindings_match_the_rust_types() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../ui/src/bindings.ts");
    let fresh = generate();
    if std::env::var_os("UPDATE_BINDINGS").is_some() {
        std::fs::write(&path, &fresh).expect("write the bindings");
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == fresh,
        "{} is stale: run `UPDATE_BINDINGS=1 cargo test -p atelier-app --test ipc bindings`",
        path.display()
    );
}
