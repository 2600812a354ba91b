import { useRef, useState, type FormEvent } from "react";
import { ErrorBox, Notice, Spinner } from "../components/feedback";
import { ViewBoundary } from "../components/ViewBoundary";
import { RestartButton } from "../renderers/FrameRenderer";
import { AgentsSection } from "./agents/AgentsSection";
import { LogsSection } from "./LogsSection";
import { McpServersSection } from "./mcp/McpServersSection";
import { ProvidersSection, type ProviderFocus } from "./ProvidersSection";
import { SecretsSection } from "./SecretsSection";
import { SettingsNav } from "./SettingsNav";
import { useSettings } from "./useSettings";

/**
 * App settings: model providers first (what a chat needs), agents, MCP
 * servers, the web origins frame renderers may show, where secrets are
 * kept and where the log is, with links to each beside them
 * (`SettingsNav`). `active`: the page is shown; `onToolsChanged`: MCP
 * servers changed the tools on offer.
 */
export function SettingsPanel({
  active = true,
  onToolsChanged,
  providerFocus = null,
}: {
  active?: boolean;
  onToolsChanged?: () => void;
  /** A provider to bring into view and mark (a chat's error about it). */
  providerFocus?: ProviderFocus | null;
}) {
  const { load, allowFrameOrigin, forbidFrameOrigin, reload } = useSettings();
  const [draft, setDraft] = useState("");
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const end = useRef<HTMLDivElement>(null);

  const change = async (action: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    try {
      await action();
      return true;
    } catch (e) {
      setError(e);
      return false;
    } finally {
      setBusy(false);
    }
  };

  const add = async (e: FormEvent) => {
    e.preventDefault();
    if (draft.trim() === "") return;
    if (await change(() => allowFrameOrigin(draft))) setDraft("");
  };

  const view = load.data;
  const saved = view?.saved.frame_origins ?? [];
  const inEffect = new Set(view?.frame_origins_in_effect ?? []);
  const pending =
    view !== null && (saved.some((o) => !inEffect.has(o)) || [...inEffect].some((o) => !saved.includes(o)));

  return (
    <div className="settings">
      <header className="page-header">
        <div>
          <h1>Settings</h1>
          <p className="muted">
            Saved in Atelier’s data folder and shared with the <code>atelier</code> command.
          </p>
        </div>
      </header>
      <div className="settings-layout">
        <SettingsNav active={active} end={end} />
        <div className="settings-body">
          <ViewBoundary name="Settings: model providers">
            <ProvidersSection active={active} focus={providerFocus} />
          </ViewBoundary>
          <ViewBoundary name="Settings: agents">
            <AgentsSection active={active} />
          </ViewBoundary>
          <ViewBoundary name="Settings: MCP servers">
            <McpServersSection active={active} onChanged={onToolsChanged ?? (() => {})} />
          </ViewBoundary>
          <section className="settings-section" aria-labelledby="frame-origins-title">
            <h2 id="frame-origins-title">Pages tools may show</h2>
            <p className="muted">
              Frame renderers always show pages served from this computer (localhost, 127.0.0.1, [::1]). Add a web
              origin here to let them show its pages too, in a sandbox with no access to Atelier.
            </p>
            {load.state === "error" && (
              <ErrorBox error={load.error} title="Settings could not be loaded." onRetry={reload} />
            )}
            {view === null && load.state === "loading" && <Spinner label="Loading settings…" />}
            {view !== null && saved.length === 0 && <p className="empty-inline">No other origins are allowed.</p>}
            {saved.length > 0 && (
              <ul className="origin-list" aria-label="Allowed origins">
                {saved.map((o) => (
                  <li key={o} className="origin-row">
                    <code>{o}</code>
                    {!inEffect.has(o) && <span className="badge">after restart</span>}
                    <button
                      type="button"
                      className="btn btn-small btn-ghost"
                      disabled={busy}
                      aria-label={`Remove ${o}`}
                      onClick={() => void change(() => forbidFrameOrigin(o))}
                    >
                      Remove
                    </button>
                  </li>
                ))}
              </ul>
            )}
            <form className="origin-form" onSubmit={(e) => void add(e)}>
              <label htmlFor="origin-input">Allow another origin</label>
              <input
                id="origin-input"
                className="input"
                type="text"
                placeholder="https://example.com"
                value={draft}
                spellCheck={false}
                autoComplete="off"
                onChange={(e) => setDraft(e.target.value)}
              />
              <button type="submit" className="btn" disabled={busy || draft.trim() === ""}>
                Allow
              </button>
            </form>
            {error !== null && <ErrorBox error={error} title="Not saved." onDismiss={() => setError(null)} />}
            {pending && (
              <div className="restart-note">
                <Notice>Changes to this list apply when Atelier starts again.</Notice>
                <RestartButton />
              </div>
            )}
          </section>
          <ViewBoundary name="Settings: secrets">
            <SecretsSection active={active} />
          </ViewBoundary>
          <ViewBoundary name="Settings: logs">
            <LogsSection />
          </ViewBoundary>
          <div ref={end} />
        </div>
      </div>
    </div>
  );
}
