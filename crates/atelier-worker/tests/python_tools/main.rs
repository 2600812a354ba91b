//! Python tools end to end: real CPython in the real `atelier-worker`
//! binary, driven through `atelier_core::tools::Tools::run` on toolsets installed from a
//! folder (`toolset.yaml` + `tools/*.py` written by [`Env::write_toolset`]).
//!
//! - `calls::a_call_returns_json_renders_args_and_return_and_records_its_files`:
//!   the result JSON, `$args`/`$return` in a document and a code plan,
//!   `print` output in `stdout`, the written file in the post-manifest.
//! - `calls::arguments_are_checked_before_the_function_runs`: schema
//!   violations listed with JSON pointers; an argument the schema allows but
//!   the function lacks; in both the function never runs.
//! - `calls::output_streams_live_is_capped_and_includes_children_and_c`: a
//!   listener sees lines while the call runs; the per-stream cap; output of
//!   child processes and raw `os.write` is captured.
//! - `calls::a_plan_keeps_showing_the_file_as_its_call_left_it`
//! - `failures::an_exception_keeps_its_traceback_output_and_partial_files`
//! - `failures::a_timeout_kills_the_call_and_the_next_call_works`: the
//!   manifest's `timeout_s` and a per-call override.
//! - `failures::a_timeout_kills_even_the_processes_that_left_the_tools_group`:
//!   a `start_new_session` child and a double-forked `setsid` daemon die
//!   with the timed-out call.
//! - `failures::a_daemon_a_tool_left_behind_dies_with_its_idle_worker`
//! - `failures::a_segfault_is_a_crash_that_keeps_output_and_spares_the_next_call`
//! - `failures::os_exit_is_a_crash_with_its_exit_code`
//! - `failures::a_tool_that_closes_its_output_is_still_answered`
//! - `failures::a_running_call_can_be_cancelled_and_the_next_call_works`:
//!   `atelier_core::tools::Tools::cancel` by id; output and partial files are kept.
//! - `returns::returns_json_cannot_hold_are_refused_with_type_and_key_path`:
//!   a list, a nested `datetime`, a NaN.
//! - `returns::python_values_json_cannot_carry_are_bad_returns_not_crashes`
//! - `returns::a_circular_return_and_a_huge_odd_message_are_said_at_once`:
//!   a cycle, ints past 64 bits, colliding keys, deep nesting, a capped message.
//! - `returns::a_bad_return_is_named_where_the_json_first_meets_it_and_sizes_in_words`:
//!   the first bad value in document order, a bad key with its dict, the
//!   cap in KiB/MiB (a deep path is shortened: `a_circular_return…`).
//! - `calls::an_async_tool_and_a_tool_importing_its_sibling_run_like_any_other`
//! - `calls::what_a_call_leaves_that_the_workspace_cannot_keep_is_said_on_the_call`
//! - `examples::csv_report_charts_a_column_as_a_png_the_image_renderer_shows`:
//!   the bundled example's PNG chart, pinned as the app's image URL pins it.
//! - `exports::modules_named_in_tools_from_export_tools_through_tools_then_all`:
//!   explicit exports (`TOOLS`, then `__all__`), schemas from signatures, calls,
//!   export keeps `tools_from:`.
//! - `exports::a_tools_from_module_without_explicit_exports_or_with_clashes_fails_the_import`
//! - `exports::postponed_annotations_give_the_same_schemas`,
//!   `exports::path_and_enum_parameters_arrive_as_a_path_and_a_member`,
//!   `exports::a_path_or_an_enum_handed_back_is_written_as_its_text_and_value`
//! - `reuse::plain_functions_exported_through_an_import_are_tools_returning_any_json`:
//!   seed 002's plain callables (no `workspace`, async, a dataclass in and
//!   out, `None`), exported through imports, read by `validate` as the
//!   import derives them.
//! - `reuse::an_export_that_is_no_function_is_refused_by_name_before_and_at_import`
//! - `reuse::an_entry_point_without_an_input_schema_takes_its_arguments_from_its_signature`:
//!   also in a ZIP's import; an explicit schema is still checked.
//! - `typed::every_array_schema_says_its_items_and_validate_derives_what_the_import_does`:
//!   `tuple[int, str]`, bare `list`/`set`/`tuple`, `Literal[b"r"]`, `Literal[Color.RED]`, a NamedTuple.
//! - `typed::records_in_unions_and_named_tuples_arrive_built_and_a_refusing_constructor_is_invalid_args`
//! - `typed::a_callable_without_a_name_is_named_by_its_entry_and_works_in_a_tools_dict`:
//!   a `functools.partial`, an instance with `__call__`.
//! - `workers::toolsets_with_the_same_module_names_do_not_share_modules`
//! - `workers::chats_run_in_parallel_while_calls_of_one_chat_take_turns`
//! - `workers::module_state_stays_warm_per_chat`
//! - `workers::the_cap_stops_the_least_recently_used_idle_worker`
//! - `workers::idle_workers_stop_after_the_idle_timeout`: stopped by the
//!   periodic reaper, not by the next call.
//! - `workers::disabling_and_enabling_a_toolset_restarts_its_code`
//! - `workers::upgrading_a_toolset_runs_its_new_code_even_edited_within_the_second`:
//!   a same-size edit saved within the same second (stale bytecode).

mod calls;
mod examples;
mod exports;
mod failures;
mod returns;
mod reuse;
mod typed;
mod workers;

use std::path::PathBuf;

use anyhow::{Context as _, Result, ensure};
use atelier_core::tools::CallControl;
use atelier_core::tools::{RunRequest, ToolCallRecord};
use atelier_core::toolsets::ImportOptions;
use atelier_core::{Atelier, DataDir, PythonSettings};
use serde_json::{Value, json};
use tempfile::TempDir;

/// An app on a fresh data dir, using the worker built with these tests.
#[derive(Debug)]
struct Env {
    app: Atelier,
    tmp: TempDir,
}

impl Env {
    async fn new() -> Result<Self> {
        Self::with(|_| {}).await
    }

    async fn with(tweak: impl FnOnce(&mut PythonSettings)) -> Result<Self> {
        let tmp = tempfile::tempdir()?;
        let mut settings = PythonSettings {
            worker: Some(env!("CARGO_BIN_EXE_atelier-worker").into()),
            ..PythonSettings::from_env()
        };
        tweak(&mut settings);
        let app = Atelier::open_with(DataDir::new(tmp.path().join("data")), settings).await?;
        Ok(Self { app, tmp })
    }

    /// Writes a toolset folder: `toolset.yaml` (its `tools` as JSON, which
    /// is YAML too) and `files` (paths relative to the folder).
    fn write_toolset(&self, id: &str, version: &str, tools: &Value, files: &[(&str, &str)]) -> Result<PathBuf> {
        let dir = self.tmp.path().join("src").join(id);
        for (path, text) in files {
            let file = dir.join(path);
            std::fs::create_dir_all(file.parent().context("a file has a folder")?)?;
            std::fs::write(&file, text)?;
        }
        let yaml = format!(
            "manifest_version: \"1\"\nid: {id}\nname: Test {id}\nversion: \"{version}\"\ntools: {}\n",
            serde_json::to_string_pretty(tools)?
        );
        std::fs::write(dir.join("toolset.yaml"), yaml)?;
        Ok(dir)
    }

    /// Writes and imports a toolset (version 1.0.0).
    async fn install(&self, id: &str, tools: Value, files: &[(&str, &str)]) -> Result<()> {
        let dir = self.write_toolset(id, "1.0.0", &tools, files)?;
        self.app.toolsets().import(&dir, &ImportOptions::default()).await?;
        Ok(())
    }

    async fn chat(&self) -> Result<String> {
        Ok(self.app.chats().create(None).await?.id)
    }

    async fn run(&self, chat: &str, tool: &str, args: Value) -> Result<ToolCallRecord> {
        run_in(&self.app, chat, tool, args, CallControl::default()).await
    }

    /// A file as a manifest holds it.
    async fn file_at(&self, chat: &str, path: &str, manifest: Option<&str>) -> Result<String> {
        Ok(String::from_utf8(
            self.app.workspace().read_file(chat, path, manifest).await?,
        )?)
    }

    /// The paths a manifest holds.
    async fn paths_at(&self, chat: &str, manifest: Option<&str>) -> Result<Vec<String>> {
        let files = self.app.workspace().list_files(chat, manifest).await?;
        Ok(files.into_iter().map(|f| f.path).collect())
    }
}

async fn run_in(app: &Atelier, chat: &str, tool: &str, args: Value, control: CallControl) -> Result<ToolCallRecord> {
    Ok(app
        .tools()
        .run(RunRequest {
            chat_id: chat.to_owned(),
            tool_id: tool.to_owned(),
            args,
            control,
            ..Default::default()
        })
        .await?)
}

/// A tool declaration with an object schema of `props` (no extra keys).
fn tool(id: &str, entrypoint: &str, props: Value) -> Value {
    json!({
        "id": id,
        "name": id,
        "entrypoint": entrypoint,
        "input_schema": {"type": "object", "properties": props, "additionalProperties": false},
    })
}

/// `tool` with more keys (renderer, timeout_s, another schema).
fn tool_with(id: &str, entrypoint: &str, props: Value, extra: Value) -> Value {
    let mut t = tool(id, entrypoint, props);
    if let (Some(t), Some(extra)) = (t.as_object_mut(), extra.as_object()) {
        t.extend(extra.clone());
    }
    t
}

/// Why importing the folder `dir` failed ("" when it did not).
async fn import_error(env: &Env, dir: &std::path::Path) -> String {
    env.app
        .toolsets()
        .import(dir, &ImportOptions::default())
        .await
        .err()
        .map(|e| format!("{e:#}"))
        .unwrap_or_default()
}

/// Each tool `validate` read from the source has the input schema the
/// import of toolset `id` derived.
async fn same_schemas_as_validate(
    env: &Env,
    id: &str,
    report: &atelier_core::toolsets::records::BundleReport,
) -> Result<()> {
    for t in &report.exported {
        let installed = env.app.toolsets().tool(&format!("{id}:{}", t.name)).await?;
        ensure!(
            installed.input_schema == t.input_schema,
            "{}: validate said {}, the import made {}",
            t.name,
            t.input_schema,
            installed.input_schema
        );
    }
    Ok(())
}

fn succeeded(call: &ToolCallRecord) -> Result<&Value> {
    ensure!(
        call.status == atelier_core::tools::CallStatus::Success,
        "the call failed: {call:#?}"
    );
    call.result.as_ref().context("a successful call has a result")
}

fn failed<'a>(call: &'a ToolCallRecord, kind: &str) -> Result<&'a str> {
    ensure!(
        call.status == atelier_core::tools::CallStatus::Error
            && call.error_kind.map(atelier_core::tools::ErrorKind::as_str) == Some(kind),
        "expected a `{kind}` error: {call:#?}"
    );
    call.error.as_deref().context("a failed call says why")
}
