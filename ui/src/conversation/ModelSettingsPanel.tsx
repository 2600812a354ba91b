// A chat's own model settings, docked above the composer like a tool's
// form: temperature, the most tokens of one answer, the context window,
// reasoning effort and images. Each field left empty keeps the agent's
// setting (shown as its placeholder), else the model's default. Saved by
// the core, which checks the ranges and says what is wrong.

import { useEffect, useRef, useState } from "react";
import { api, errorText } from "../api";
import { FormActions } from "../components/FormActions";
import { tabbables, usePanelFocus } from "../lib/focus";
import type { Chat, ModelSettings } from "../bindings";
import { draftOf, EMPTY_DRAFT, setCount, settingsOf, type DraftField, type SettingsDraft } from "./modelSettings";

/**
 * The composer bar's button: opens the panel, and counts the chat's own
 * settings. "Model options", not "Settings": the app has a Settings tab.
 */
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
      {count > 0 ? `Model options · ${count} changed` : "Model options"}
    </button>
  );
}

/** The settings typed as numbers, and what an empty one means. */
const NUMBER_FIELDS: {
  field: "temperature" | "maxTokens" | "contextWindow";
  label: string;
  mode: "decimal" | "numeric";
  unset: string;
}[] = [
  { field: "temperature", label: "Temperature", mode: "decimal", unset: "model default" },
  { field: "maxTokens", label: "Max tokens of an answer", mode: "numeric", unset: "provider default" },
  { field: "contextWindow", label: "Context window", mode: "numeric", unset: "as the model reports" },
];

function inheritedText(v: string, what: string): string {
  return v === "" ? what : `agent's: ${v}`;
}

/** The panel: the chat's settings as a small form. */
export function ModelSettingsPanel({
  chat,
  inherited,
  asked = 0,
  onClose,
  onSaved,
}: {
  chat: Chat;
  /** The agent's settings, which empty fields keep. */
  inherited: ModelSettings;
  /** Counts the times it was asked for (a run error's Model options): each puts the focus in it again. */
  asked?: number;
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
  const form = useRef<HTMLFormElement>(null);
  usePanelFocus(form);
  useEffect(() => {
    if (form.current !== null) tabbables(form.current)[0]?.focus();
  }, [asked]);
  return (
    <form
      ref={form}
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
        {NUMBER_FIELDS.map(({ field, label, mode, unset }) => (
          <label key={field}>
            <span className="small">{label}</span>
            <input
              className="input input-small"
              inputMode={mode}
              value={draft[field]}
              placeholder={inheritedText(agent[field], unset)}
              aria-invalid={invalid(field)}
              onChange={(e) => set({ [field]: e.target.value })}
            />
          </label>
        ))}
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
      <FormActions
        small
        submit={saving ? "Saving…" : "Save"}
        busy={saving}
        cancel="Close"
        onCancel={onClose}
        start={
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
            Reset to the agent's defaults
          </button>
        }
      />
    </form>
  );
}
