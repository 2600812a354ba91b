//! The commands of the conversation and its providers: send, retry, edit,
//! stop and fork; a chat's model settings; providers (presets, add, key,
//! test, detect, remove). Like [`crate::commands`]: typed arguments, one
//! core call, `{kind, message}`. A run's [`ChatEvent`]s go over a typed
//! `ipc::Channel` as they happen; confirmations are answered with
//! `answer_approval` (the run waits, as a hand run does).

use std::path::PathBuf;

use atelier_core::conversation::{ChatEvent, RunOutcome, SendOptions};
use atelier_core::model::{Chat, ModelSettings};
use atelier_core::providers::{
    ConnectionTest, Detected, PRESETS, Preset, ProviderChanges, ProviderRecord, ProviderSpec,
};
use atelier_core::secrets::Secret;
use atelier_core::tools::Approval;
use serde::Deserialize;
use tauri::State;
use tauri::ipc::Channel;

use crate::AppState;
use crate::error::IpcResult;

/// The switchers' choice: it goes with a message, a retry or an edit and
/// becomes the chat's (a retry can ask another model for the same answer).
#[derive(Debug, Default, Deserialize, ts_rs::TS)]
pub struct RunChoice {
    pub agent_id: Option<String>,
    pub provider_id: Option<String>,
    pub model: Option<String>,
}

/// What the composer sends besides the text.
#[derive(Debug, Default, Deserialize, ts_rs::TS)]
pub struct SendRequest {
    /// Answer under this message instead of the active leaf (a branch).
    pub parent_id: Option<String>,
    #[serde(flatten)]
    #[ts(flatten)]
    pub choice: RunChoice,
    /// Image files (dropped or pasted) to send with the message.
    #[serde(default)]
    #[ts(type = "string[]")]
    pub images: Vec<PathBuf>,
}

/// A run as the app makes one: confirmations wait for the person's answer.
fn options(r: SendRequest) -> SendOptions {
    SendOptions {
        parent_id: r.parent_id,
        agent_id: r.choice.agent_id,
        provider_id: r.choice.provider_id,
        model: r.choice.model,
        images: r.images,
        approval: Approval::Wait,
        ..Default::default()
    }
}

fn forward(channel: Channel<ChatEvent>) -> impl FnMut(&ChatEvent) + Send {
    move |e: &ChatEvent| {
        let _ = channel.send(e.clone());
    }
}

/// Sends the person's message and has the chat's agent answer.
#[tauri::command]
pub async fn send_message(
    state: State<'_, AppState>,
    chat_id: String,
    text: String,
    options: SendRequest,
    on_event: Channel<ChatEvent>,
) -> IpcResult<RunOutcome> {
    let mut on = forward(on_event);
    Ok(state
        .app
        .conversation()
        .send(&chat_id, &text, self::options(options), &mut on)
        .await?)
}

/// Answers again from where a model's message started (a sibling).
#[tauri::command]
pub async fn retry_message(
    state: State<'_, AppState>,
    chat_id: String,
    message_id: String,
    choice: RunChoice,
    on_event: Channel<ChatEvent>,
) -> IpcResult<RunOutcome> {
    let mut on = forward(on_event);
    let opts = options(SendRequest {
        choice,
        ..Default::default()
    });
    Ok(state
        .app
        .conversation()
        .retry(&chat_id, &message_id, opts, &mut on)
        .await?)
}

/// The person's message rewritten, as a sibling, and answered.
#[tauri::command]
pub async fn edit_message(
    state: State<'_, AppState>,
    chat_id: String,
    message_id: String,
    text: String,
    choice: RunChoice,
    on_event: Channel<ChatEvent>,
) -> IpcResult<RunOutcome> {
    let mut on = forward(on_event);
    let opts = options(SendRequest {
        choice,
        ..Default::default()
    });
    Ok(state
        .app
        .conversation()
        .edit(&chat_id, &message_id, &text, opts, &mut on)
        .await?)
}

/// An image pasted into the composer (the webview gives its bytes, no
/// file), kept as a file the next message can attach; its path.
#[tauri::command]
pub async fn stage_pasted_image(
    state: State<'_, AppState>,
    base64_data: String,
    media_type: String,
) -> IpcResult<PathBuf> {
    Ok(state.app.stage_pasted_image(&base64_data, &media_type).await?)
}

/// The Stop button: false when nothing was running in the chat.
#[tauri::command]
pub fn stop_run(state: State<'_, AppState>, chat_id: String) -> bool {
    state.app.conversation().stop(&chat_id)
}

/// "Fork to new chat" from a message.
#[tauri::command]
pub async fn fork_chat(state: State<'_, AppState>, chat_id: String, message_id: String) -> IpcResult<Chat> {
    Ok(state.app.conversation().fork(&chat_id, &message_id, None).await?)
}

#[tauri::command]
pub async fn set_chat_model_settings(
    state: State<'_, AppState>,
    chat_id: String,
    settings: ModelSettings,
) -> IpcResult<Chat> {
    Ok(state.app.chats().set_model_settings(&chat_id, &settings).await?)
}

#[tauri::command]
pub fn provider_presets() -> Vec<Preset> {
    PRESETS.to_vec()
}

#[tauri::command]
pub async fn list_providers(state: State<'_, AppState>) -> IpcResult<Vec<ProviderRecord>> {
    Ok(state.app.providers().list().await?)
}

/// Adds a provider, and its API key (to the secret store) in the same step.
#[tauri::command]
pub async fn add_provider(
    state: State<'_, AppState>,
    spec: ProviderSpec,
    key: Option<String>,
) -> IpcResult<ProviderRecord> {
    Ok(state.app.providers().add_with_key(&spec, key.map(Secret::new)).await?)
}

/// Changes a provider's base URL, default model and plain headers, and its
/// key when one is typed.
#[tauri::command]
pub async fn update_provider(
    state: State<'_, AppState>,
    provider_id: String,
    changes: ProviderChanges,
    key: Option<String>,
) -> IpcResult<ProviderRecord> {
    Ok(state
        .app
        .providers()
        .update(&provider_id, &changes, key.map(Secret::new))
        .await?)
}

#[tauri::command]
pub async fn remove_provider(state: State<'_, AppState>, provider_id: String) -> IpcResult<()> {
    Ok(state.app.providers().remove(&provider_id).await?)
}

/// *Test connection*: the models it offers, or the error in words.
#[tauri::command]
pub async fn test_provider(state: State<'_, AppState>, provider_id: String) -> IpcResult<ConnectionTest> {
    Ok(state.app.providers().test(&provider_id).await?)
}

/// Model servers running on this computer (Ollama, LM Studio, llama.cpp, vLLM).
#[tauri::command]
pub async fn detect_providers(state: State<'_, AppState>) -> IpcResult<Vec<Detected>> {
    Ok(state.app.providers().detect().await)
}
