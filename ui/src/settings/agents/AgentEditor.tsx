/**
 * One agent's form, new or existing: name (a new agent's id follows it
 * until typed: the id the core gives that name, shown as it is typed and
 * given by the core on create), description, system prompt, model (a
 * provider set up in Settings and one of its models, or the chat's
 * choice), step limit, toolsets and MCP servers, tool patterns — with the
 * live preview of the tools these give. Saving is one core call; its
 * refusal shows here, its warnings where the agents are listed.
 */
import { useEffect, useState, type FormEvent, type ReactNode } from "react";
import { api } from "../../api";
import type { Agent, ProviderRecord, SavedAgent, ServerDetails, ToolsetRecord } from "../../bindings";
import { ErrorBox } from "../../components/feedback";
import { FormActions } from "../../components/FormActions";
import { AgentToolsPreview } from "./AgentToolsPreview";
import { draftOf, specOf, stepsOf, type AgentDraft } from "./agentForm";
import { ToolChoices } from "./ToolChoices";

/** A labelled field of the form: its label above, its control (and help) below. */
function Field({
  id,
  label,
  className,
  children,
}: {
  id: string;
  label: string;
  className?: string;
  children: ReactNode;
}) {
  return (
    <div className={className === undefined ? "agent-field" : `agent-field ${className}`}>
      <label htmlFor={id}>{label}</label>
      {children}
    </div>
  );
}

export type EditorSources = {
  providers: ProviderRecord[];
  toolsets: ToolsetRecord[];
  servers: ServerDetails[];
};

/** The models a provider lists, asked once per provider when it is chosen. */
function useProviderModels(provider: string): string[] {
  const [models, setModels] = useState<Record<string, string[]>>({});
  const [asked, setAsked] = useState<Set<string>>(new Set());
  if (provider !== "" && !asked.has(provider)) {
    setAsked(new Set(asked).add(provider));
    api.testProvider(provider).then(
      (t) => setModels((m) => ({ ...m, [provider]: t.ok ? t.models : [] })),
      () => setModels((m) => ({ ...m, [provider]: [] })),
    );
  }
  return models[provider] ?? [];
}

/**
 * The id the core gives `name` while `following` (a new agent whose id was
 * not typed): the last answer, for the name it answered (null: none).
 */
function useIdFromName(name: string, following: boolean): { name: string; id: string | null } {
  const [answer, setAnswer] = useState<{ name: string; id: string | null }>({ name: "", id: null });
  useEffect(() => {
    if (!following) return;
    let live = true;
    api.agentIdFromName(name).then(
      (id) => live && setAnswer({ name, id }),
      () => live && setAnswer({ name, id: null }),
    );
    return () => {
      live = false;
    };
  }, [name, following]);
  return answer;
}

export function AgentEditor({
  agent,
  sources,
  onSaved,
  onCancel,
}: {
  /** Null: a new agent. */
  agent: Agent | null;
  sources: EditorSources;
  onSaved: (saved: SavedAgent) => void;
  onCancel: () => void;
}) {
  const [draft, setDraft] = useState<AgentDraft>(() => draftOf(agent));
  const [idTyped, setIdTyped] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const models = useProviderModels(draft.provider);
  const isNew = agent === null;
  // A new agent's id follows its name until one is typed; then the core
  // gives it on create (the id shown is the core's answer for the name).
  const following = isNew && !idTyped;
  const derived = useIdFromName(draft.name, following);
  const noId = following && derived.name === draft.name && derived.id === null && draft.name.trim() !== "";
  const set = (patch: Partial<AgentDraft>) => setDraft((d) => ({ ...d, ...patch }));
  const spec = specOf(following ? { ...draft, id: "" } : draft, agent);
  const chosenProvider = sources.providers.find((p) => p.id === draft.provider) ?? null;
  const steps = stepsOf(draft.maxSteps);
  const field = (id: string) => `agent-${agent?.id ?? "new"}-${id}`;

  const save = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      onSaved(isNew ? await api.createAgent(spec) : await api.updateAgent(spec));
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  const modelChoices = [
    ...new Set([chosenProvider?.default_model, ...models].filter((m): m is string => m != null && m !== "")),
  ];

  return (
    <form className="agent-form" aria-label={isNew ? "New agent" : `Edit ${agent.name}`} onSubmit={(e) => void save(e)}>
      <div className="agent-row">
        <Field id={field("name")} label="Name">
          <input
            id={field("name")}
            className="input"
            value={draft.name}
            required
            autoComplete="off"
            onChange={(e) => set({ name: e.target.value })}
          />
        </Field>
        <Field id={field("id")} label="Id">
          <input
            id={field("id")}
            className="input mono"
            value={following ? (derived.id ?? "") : draft.id}
            required={!following}
            readOnly={!isNew}
            aria-invalid={noId}
            spellCheck={false}
            autoComplete="off"
            aria-describedby={field("id-help")}
            onChange={(e) => {
              setIdTyped(true);
              set({ id: e.target.value });
            }}
          />
          <p id={field("id-help")} className={noId ? "field-error small" : "field-help muted small"}>
            {!isNew
              ? "Fixed once created."
              : noId
                ? "No id comes from this name: type one (a-z, 0-9 and -)."
                : "What other agents call it by: a-z, 0-9 and -."}
          </p>
        </Field>
      </div>
      <Field id={field("description")} label="Description">
        <input
          id={field("description")}
          className="input"
          value={draft.description}
          placeholder="What it is good at (other agents read this before handing it a task)"
          onChange={(e) => set({ description: e.target.value })}
        />
      </Field>
      <Field id={field("prompt")} label="System prompt">
        <textarea
          id={field("prompt")}
          className="input agent-prompt"
          rows={5}
          value={draft.systemPrompt}
          placeholder="How it should work and answer"
          onChange={(e) => set({ systemPrompt: e.target.value })}
        />
      </Field>
      <div className="agent-row">
        <Field id={field("provider")} label="Provider">
          <select
            id={field("provider")}
            className="input"
            value={draft.provider}
            onChange={(e) => set({ provider: e.target.value })}
          >
            <option value="">The chat’s model</option>
            {sources.providers.map((p) => (
              <option key={p.id} value={p.id}>
                {p.id}
              </option>
            ))}
            {draft.provider !== "" && chosenProvider === null && (
              <option value={draft.provider}>{draft.provider} (not set up)</option>
            )}
          </select>
        </Field>
        <Field id={field("model")} label="Model">
          <input
            id={field("model")}
            className="input"
            value={draft.model}
            disabled={draft.provider === ""}
            placeholder={
              draft.provider === "" ? "chosen in each chat" : (chosenProvider?.default_model ?? "model name")
            }
            list={field("models")}
            autoComplete="off"
            spellCheck={false}
            onChange={(e) => set({ model: e.target.value })}
          />
          <datalist id={field("models")}>
            {modelChoices.map((m) => (
              <option key={m} value={m} />
            ))}
          </datalist>
          {draft.provider !== "" && draft.model.trim() === "" && (
            <p className="field-help muted small">Give a model, or the chat’s model is used.</p>
          )}
        </Field>
        <Field id={field("steps")} label="Max steps" className="agent-steps">
          <input
            id={field("steps")}
            className="input"
            type="number"
            min={1}
            max={10000}
            value={draft.maxSteps}
            aria-invalid={steps === null}
            aria-describedby={field("steps-help")}
            onChange={(e) => set({ maxSteps: e.target.value })}
          />
          <p id={field("steps-help")} className={steps === null ? "field-error small" : "field-help muted small"}>
            {steps === null ? "A whole number from 1." : "Model turns in one run."}
          </p>
        </Field>
      </div>
      <ToolChoices
        toolsets={sources.toolsets}
        servers={sources.servers}
        chosen={draft.toolsets}
        onChange={(toolsets) => set({ toolsets })}
      />
      <Field id={field("patterns")} label="Tool patterns">
        <textarea
          id={field("patterns")}
          className="input mono agent-patterns"
          rows={3}
          value={draft.patterns}
          spellCheck={false}
          placeholder={"read_file\ncsv-report.*"}
          aria-describedby={field("patterns-help")}
          onChange={(e) => set({ patterns: e.target.value })}
        />
        <p id={field("patterns-help")} className="field-help muted small">
          One per line: a tool’s name (<code>read_file</code>, <code>csv-report.summarize</code>) or a pattern with{" "}
          <code>*</code> (<code>csv-report.*</code>, <code>*</code> for every tool).
        </p>
      </Field>
      <AgentToolsPreview spec={spec} />
      {error !== null && <ErrorBox error={error} title="Not saved." onDismiss={() => setError(null)} />}
      <FormActions submit={isNew ? "Create agent" : "Save"} busy={busy} disabled={steps === null} onCancel={onCancel} />
    </form>
  );
}
