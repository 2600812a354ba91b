// A chat's own model settings, docked above the composer like a tool's
// form: temperature, the most tokens of one answer, the context window,
// reasoning effort and images. Each field left empty keeps the agent's
// setting (shown as its placeholder), else the model's default. Saved by
// the core, which checks the ranges and says what is wrong.

import { useState } from "react";
import { api, errorText } from "../api";
import type { Chat, ModelSettings } from "../bindings";
import { draftOf, EMPTY_DRAFT, setCount, settingsOf, type DraftField, type SettingsDraft } from "./modelSettings";

/** The composer bar's button: opens the panel, and counts the chat's own settings. */
export function ModelSettingsButton({
  chat,
  open,
  onToggle,
  disabled,
}: {
  chat: Chat | null;
  open: boolean;
  onToggle: () => void;
  disabled: boolean;
}) {
  const count = chat === null ? 0 : setCount(draftOf(chat.model_settings));
  return (
    <button
      type="button"
      className={`btn btn-small btn-ghost${count > 0 ? " model-settings-set" : ""}`}
      aria-expanded={open}
      aria-controls="model-settings"
      disabled={disabled || chat === null}
      title={
        chat === null
          ? "Send a first message, then set this chat's temperature, answer length and context"
          : "This chat's temperature, answer length, context window and reasoning effort"
      }
      onClick={onToggle}
    >
      {count > 0 ? `Settings · ${count}` : "Settings"}
    </button>
  );
}

function inheritedText(v: string, what: string): string {
  return v === "" ? what : `agent's: ${v}`;
}

/** The panel: the chat's settings as a small form. */
export function ModelSettingsPanel({
  chat,
  inherited,
  onClose,
  onSaved,
}: {
  chat: Chat;
  /** The agent's settings, which empty fields keep. */
  inherited: ModelSettings;
  onClose: () => void;
  onSaved: (chat: Chat) => void;
}) {
  const [draft, setDraft] = useState<SettingsDraft>(() => draftOf(chat.model_settings));
  const [problem, setProblem] = useState<{ field: DraftField | null; error: string } | null>(null);
  const [saving, setSaving] = useState(false);
  const agent = draftOf(inherited);
  const set = (patch: Partial<SettingsDraft>) => {
    setDraft((d) => ({ ...d, ...patch }));
    setProblem(null);
  };
  const save = (next: SettingsDraft) => {
    const parsed = settingsOf(next);
    if ("error" in parsed) {
      setProblem(parsed);
      return;
    }
    setSaving(true);
    api.setChatModelSettings(chat.id, parsed.settings).then(
      (saved) => {
        setSaving(false);
        onSaved(saved);
      },
      (e: unknown) => {
        setSaving(false);
        setProblem({ field: null, error: errorText(e) });
      },
    );
  };
  const invalid = (f: DraftField) => problem?.field === f;
  return (
    <form
      id="model-settings"
      className="panel model-settings"
      aria-label="This chat's model settings"
      onSubmit={(e) => {
        e.preventDefault();
        save(draft);
      }}
      onKeyDown={(e) => {
        if (e.key === "Escape") onClose();
      }}
    >
      <div className="model-settings-grid">
        <label>
          <span className="small">Temperature</span>
          <input
            className="input input-small"
            inputMode="decimal"
            value={draft.temperature}
            placeholder={inheritedText(agent.temperature, "model default")}
            aria-invalid={invalid("temperature")}
            onChange={(e) => set({ temperature: e.target.value })}
          />
        </label>
        <label>
          <span className="small">Max tokens of an answer</span>
          <input
            className="input input-small"
            inputMode="numeric"
            value={draft.maxTokens}
            placeholder={inheritedText(agent.maxTokens, "provider default")}
            aria-invalid={invalid("maxTokens")}
            onChange={(e) => set({ maxTokens: e.target.value })}
          />
        </label>
        <label>
          <span className="small">Context window</span>
          <input
            className="input input-small"
            inputMode="numeric"
            value={draft.contextWindow}
            placeholder={inheritedText(agent.contextWindow, "as the model reports")}
            aria-invalid={invalid("contextWindow")}
            onChange={(e) => set({ contextWindow: e.target.value })}
          />
        </label>
        <label>
          <span className="small">Reasoning effort</span>
          <select
            className="input input-small"
            value={draft.effort}
            onChange={(e) => set({ effort: e.target.value as SettingsDraft["effort"] })}
          >
            <option value="">{agent.effort === "" ? "Model default" : `Agent's (${agent.effort})`}</option>
            <option value="low">Low</option>
            <option value="medium">Medium</option>
            <option value="high">High</option>
          </select>
        </label>
        <label>
          <span className="small">Images</span>
          <select
            className="input input-small"
            value={draft.images}
            onChange={(e) => set({ images: e.target.value as SettingsDraft["images"] })}
          >
            <option value="">
              {agent.images === ""
                ? "By the model's name"
                : `Agent's (${agent.images === "yes" ? "takes them" : "none"})`}
            </option>
            <option value="yes">Takes images</option>
            <option value="no">Takes none</option>
          </select>
        </label>
      </div>
      {problem !== null && (
        <p className="field-error small" role="alert">
          {problem.error}
        </p>
      )}
      <div className="panel-actions">
        <button
          type="button"
          className="btn btn-small btn-ghost"
          disabled={saving || setCount(draft) === 0}
          title="Empty every field: the agent's settings apply again"
          onClick={() => {
            setDraft(EMPTY_DRAFT);
            save(EMPTY_DRAFT);
          }}
        >
          Use the agent's
        </button>
        <button type="button" className="btn btn-small" onClick={onClose}>
          Close
        </button>
        <button type="submit" className="btn btn-small btn-primary" disabled={saving}>
          {saving ? "Saving…" : "Save"}
        </button>
      </div>
    </form>
  );
}
