/**
 * Settings → Agents: who answers in chats. Every agent with its model and
 * what it is allowed in a few words; *Edit* opens its form in place, *New
 * agent* an empty one (a new agent has no tools until some are ticked);
 * *Delete* asks first, and what the core refuses is said on the agent's
 * row; the Assistant, which answers in every chat without an agent and
 * which the core never deletes, has no *Delete* but the reason. A
 * save is said below the list with what the core warns of about the saved
 * agent's tools (the form, and its live preview, are closed by then).
 * `active`: the page is shown (the lists are read again each time).
 */
import { useState } from "react";
import { api } from "../../api";
import type { Agent, SavedAgent } from "../../bindings";
import { ConfirmDialog } from "../../components/ConfirmDialog";
import { ErrorBox, Spinner } from "../../components/feedback";
import { ASSISTANT_ID } from "../../lib/assistant";
import { useLoad } from "../../lib/useLoad";
import { AgentEditor, type EditorSources } from "./AgentEditor";
import { FeatureLoss, ToolWarnings } from "./AgentToolsPreview";
import { toolsSummary } from "./agentForm";

/** The agents and what the form offers (providers, toolsets, MCP servers), read together. */
async function readAll(): Promise<{ agents: Agent[]; sources: EditorSources }> {
  const [agents, providers, toolsets, servers] = await Promise.all([
    api.listAgents(),
    api.listProviders().catch(() => []),
    api.listToolsets().catch(() => []),
    api.listMcpServers().catch(() => []),
  ]);
  return { agents, sources: { providers, toolsets, servers } };
}

/** "Saved Analyst." — or with what its tools' rules match nothing with, or lose, now. */
function SavedNote({ saved }: { saved: SavedAgent }) {
  const n = saved.warnings.length;
  return (
    <div className="small" role="status">
      <p>
        Saved {saved.agent.name}
        {n === 0 ? "." : ` — ${n} ${n === 1 ? "warning" : "warnings"} about its tools:`}
      </p>
      <ToolWarnings warnings={saved.warnings} label={`Warnings about ${saved.agent.name}`} />
      <FeatureLoss exposure={saved.exposure} lost={saved.feature_loss} />
    </div>
  );
}

function modelText(a: Agent): string {
  return a.model === null ? "the chat’s model" : `${a.model.provider} · ${a.model.model}`;
}

export function AgentsSection({ active }: { active: boolean }) {
  const [load, reload] = useLoad(readAll, "agents");
  const [shown, setShown] = useState(false);
  if (shown !== active) {
    setShown(active);
    if (active) reload();
  }
  /** The agent whose form is open ("" : a new one). */
  const [editing, setEditing] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<Agent | null>(null);
  const [errors, setErrors] = useState<Record<string, unknown>>({});
  const [saved, setSaved] = useState<SavedAgent | null>(null);
  const agents = load.data?.agents ?? [];
  const sources = load.data?.sources ?? { providers: [], toolsets: [], servers: [] };

  const remove = async (a: Agent) => {
    setDeleting(null);
    setSaved(null);
    try {
      await api.deleteAgent(a.id);
      if (editing === a.id) setEditing(null);
    } catch (e) {
      setErrors((m) => ({ ...m, [a.id]: e }));
    }
    reload();
  };
  const dismiss = (id: string) =>
    setErrors((m) => {
      const { [id]: _, ...rest } = m;
      return rest;
    });
  const done = (s: SavedAgent) => {
    setEditing(null);
    setSaved(s);
    reload();
  };

  return (
    <section className="settings-section" aria-labelledby="agents-title">
      <h2 id="agents-title">Agents</h2>
      <p className="muted">
        Who answers in a chat: a system prompt, a model, and the tools it may call. A chat uses the Assistant unless you
        pick another agent beside its composer.
      </p>
      {load.state === "error" && <ErrorBox error={load.error} title="Agents could not be listed." onRetry={reload} />}
      {load.data === null && load.state === "loading" && <Spinner label="Loading agents…" />}
      {agents.length > 0 && (
        <ul className="agent-list" aria-label="Agents">
          {agents.map((a) => (
            <li key={a.id} className={editing === a.id ? "agent-item agent-item-open" : "agent-item"}>
              <div className="agent-item-row">
                <div className="agent-item-main">
                  <strong>{a.name}</strong> <code className="muted small">{a.id}</code>
                  <div className="small muted">
                    {modelText(a)} · {toolsSummary(a)} · up to {a.max_steps} steps
                  </div>
                  {a.description !== "" && <div className="small agent-item-desc">{a.description}</div>}
                  {a.id === ASSISTANT_ID && (
                    <div className="small muted">
                      Answers in every chat without another agent: it can be edited, not deleted.
                    </div>
                  )}
                </div>
                {editing !== a.id && (
                  <button
                    type="button"
                    className="btn btn-small"
                    aria-label={`Edit ${a.name}`}
                    onClick={() => {
                      setSaved(null);
                      setEditing(a.id);
                    }}
                  >
                    Edit
                  </button>
                )}
                {a.id !== ASSISTANT_ID && (
                  <button
                    type="button"
                    className="btn btn-small btn-ghost"
                    aria-label={`Delete ${a.name}`}
                    onClick={() => {
                      dismiss(a.id);
                      setDeleting(a);
                    }}
                  >
                    Delete
                  </button>
                )}
              </div>
              {errors[a.id] !== undefined && (
                <ErrorBox error={errors[a.id]} title="Not deleted." onDismiss={() => dismiss(a.id)} />
              )}
              {editing === a.id && (
                <AgentEditor agent={a} sources={sources} onSaved={done} onCancel={() => setEditing(null)} />
              )}
            </li>
          ))}
        </ul>
      )}
      {saved !== null && <SavedNote saved={saved} />}
      {editing === "" ? (
        <div className="agent-new">
          <h3 className="settings-subhead">New agent</h3>
          <AgentEditor agent={null} sources={sources} onSaved={done} onCancel={() => setEditing(null)} />
        </div>
      ) : (
        <div className="mcp-form-actions">
          <button
            type="button"
            className="btn"
            disabled={load.data === null}
            onClick={() => {
              setSaved(null);
              setEditing("");
            }}
          >
            New agent
          </button>
        </div>
      )}
      {deleting !== null && (
        <ConfirmDialog
          title={`Delete ${deleting.name}?`}
          confirmLabel="Delete"
          danger
          onConfirm={() => void remove(deleting)}
          onCancel={() => setDeleting(null)}
        >
          Its chats keep their messages and answer with the Assistant from then on.
        </ConfirmDialog>
      )}
    </section>
  );
}
