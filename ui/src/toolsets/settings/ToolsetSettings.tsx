import { useState, type FormEvent } from "react";
import { api } from "../../api";
import type { ToolsetConfig } from "../../bindings";
import { ErrorBox, Notice, Spinner } from "../../components/feedback";
import { useLoad } from "../../lib/useLoad";
import { changes, initialDraft, noChanges, type Draft } from "./draft";
import { SettingsFields } from "./SettingsFields";

/** The form of loaded settings: the draft starts from them and again from each saved answer. */
function SettingsForm({
  toolsetName,
  config,
  saved,
  onSaved,
  onEdited,
}: {
  toolsetName: string;
  config: ToolsetConfig;
  /** The last save succeeded and nothing was typed since. */
  saved: boolean;
  onSaved: (c: ToolsetConfig) => void;
  onEdited: () => void;
}) {
  const [draft, setDraft] = useState<Draft>(() => initialDraft(config.fields));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const pending = changes(config.fields, draft, config.missing, "edit");

  const save = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    onEdited();
    try {
      onSaved(await api.setToolsetConfig(config.toolset_id, pending.values, pending.secrets, pending.unset));
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  const titles = config.fields.filter((f) => config.missing.includes(f.key)).map((f) => f.title);
  return (
    <form className="toolset-settings-form" aria-label={`Settings of ${toolsetName}`} onSubmit={(e) => void save(e)}>
      {titles.length > 0 && (
        <Notice tone="warning">
          {titles.length === 1 ? "A required setting has" : "Required settings have"} no value: {titles.join(", ")}. Its
          tools cannot run until {titles.length === 1 ? "it is" : "they are"} set.
        </Notice>
      )}
      <SettingsFields
        fields={config.fields}
        draft={draft}
        onChange={(d) => {
          setDraft(d);
          onEdited();
        }}
        edit
        missing={config.missing}
        error={error}
        errorTitle="Not saved:"
        onDismissError={() => setError(null)}
      />
      <div className="settings-actions">
        {saved && (
          <span className="muted small" role="status">
            Saved.
          </span>
        )}
        <button
          type="button"
          className="btn btn-small btn-ghost"
          disabled={busy || noChanges(pending)}
          onClick={() => {
            setDraft(initialDraft(config.fields));
            setError(null);
          }}
        >
          Revert
        </button>
        <button type="submit" className="btn btn-small btn-primary" disabled={busy || noChanges(pending)}>
          {busy ? "Saving…" : "Save"}
        </button>
      </div>
    </form>
  );
}

/** An installed toolset's settings (`user_config`): the form, prefilled; nothing when it has none. */
export function ToolsetSettings({ id, name }: { id: string; name: string }) {
  const [load, reload, set] = useLoad(() => api.toolsetConfig(id), `config:${id}`);
  // A new form for each saved answer: the draft starts again from what is stored.
  const [version, setVersion] = useState(0);
  const [saved, setSaved] = useState(false);
  if (load.state === "error")
    return <ErrorBox error={load.error} title="Its settings could not be loaded." onRetry={reload} />;
  if (load.data === null) return <Spinner label="Loading settings…" />;
  if (load.data.fields.length === 0) return null;
  return (
    <section className="toolset-settings" aria-labelledby={`settings-${id}`}>
      <h4 id={`settings-${id}`}>Settings</h4>
      <SettingsForm
        key={version}
        toolsetName={name}
        config={load.data}
        saved={saved}
        onEdited={() => setSaved(false)}
        onSaved={(c) => {
          set(c);
          setVersion((v) => v + 1);
          setSaved(true);
        }}
      />
    </section>
  );
}
