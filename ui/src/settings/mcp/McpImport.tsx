import { useId, useState } from "react";
import { api } from "../../api";
import type { ImportCandidate } from "../../bindings";
import { ErrorBox, Notice } from "../../components/feedback";

/** A chosen file's text (FileReader: what every webview has). */
function fileText(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(new Error(`${file.name} could not be read`));
    reader.readAsText(file);
  });
}

/** A timeout as read from a config (Claude Code's milliseconds already made seconds): "300 s", "1.5 s". */
function seconds(s: number): string {
  return `${Number.isInteger(s) ? s : Number(s.toFixed(3))} s`;
}

/**
 * "Import from config…": the `mcpServers` JSON of Claude Desktop, Cursor
 * or VS Code, pasted or read from a file, previewed (what each server
 * would run, the names of its secret values, its call timeout, why one cannot be added)
 * before the chosen ones are added. `onImported` gets the added ids to
 * connect, then those added turned off;
 * connecting them is the caller's.
 */
export function McpImport({
  onImported,
  onCancel,
}: {
  onImported: (ids: string[], off: string[]) => void;
  onCancel: () => void;
}) {
  const ids = useId();
  const [text, setText] = useState("");
  const [preview, setPreview] = useState<ImportCandidate[] | null>(null);
  const [chosen, setChosen] = useState<Set<string>>(new Set());
  const [busy, setBusy] = useState<"preview" | "import" | null>(null);
  const [error, setError] = useState<unknown>(null);

  const show = async (t: string) => {
    setBusy("preview");
    setError(null);
    setPreview(null);
    try {
      const p = await api.previewMcpConfig(t);
      setPreview(p);
      setChosen(new Set(p.filter((c) => c.problem === null).map((c) => c.id)));
    } catch (e) {
      setError(e);
    } finally {
      setBusy(null);
    }
  };

  const readFile = async (file: File | undefined) => {
    if (file === undefined) return;
    try {
      const t = await fileText(file);
      setText(t);
      await show(t);
    } catch (e) {
      setError(e);
    }
  };

  const importChosen = async () => {
    setBusy("import");
    setError(null);
    try {
      const added = await api.importMcpConfig(text, [...chosen]);
      // One the config turns off is added turned off: not connected.
      onImported(
        added.filter((s) => s.enabled).map((s) => s.id),
        added.filter((s) => !s.enabled).map((s) => s.id),
      );
    } catch (e) {
      setError(e);
    } finally {
      setBusy(null);
    }
  };

  const toggle = (id: string, on: boolean) =>
    setChosen((c) => {
      const next = new Set(c);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });

  return (
    <div className="mcp-import" role="group" aria-label="Import MCP servers from a config">
      <label htmlFor={`${ids}-text`}>Config to import</label>
      <p className="field-help">
        Paste the <code>mcpServers</code> JSON of Claude Desktop, Cursor or VS Code, or choose the file. Nothing is
        added before you have seen what each server runs.
      </p>
      <textarea
        id={`${ids}-text`}
        className="input mono mcp-config-text"
        rows={6}
        spellCheck={false}
        placeholder={'{ "mcpServers": { "files": { "command": "npx", "args": ["-y", "…"] } } }'}
        value={text}
        onChange={(e) => {
          setText(e.target.value);
          setPreview(null);
        }}
      />
      <div className="mcp-form-actions">
        <button
          type="button"
          className="btn"
          disabled={busy !== null || text.trim() === ""}
          onClick={() => void show(text)}
        >
          {busy === "preview" ? "Reading…" : "Preview"}
        </button>
        <label className="btn btn-ghost mcp-file">
          Choose a file…
          <input
            type="file"
            accept=".json,application/json"
            className="visually-hidden"
            onChange={(e) => {
              void readFile(e.target.files?.[0]);
              e.target.value = "";
            }}
          />
        </label>
        <button type="button" className="btn btn-ghost" disabled={busy !== null} onClick={onCancel}>
          Cancel
        </button>
      </div>
      {error !== null && <ErrorBox error={error} title="Not imported." onDismiss={() => setError(null)} />}
      {preview !== null && preview.length === 0 && <p className="empty-inline">The config names no servers.</p>}
      {preview !== null && preview.length > 0 && (
        <div className="will-run mcp-preview">
          <h3 className="subhead">What each server would run ({preview.length})</h3>
          <Notice tone="warning">
            An MCP server runs on this computer with your rights, or reaches a server on the web with the headers given.
            Import only servers you trust.
          </Notice>
          <ul className="plain-list mcp-candidates" aria-label="Servers in the config">
            {preview.map((c, i) => (
              // Two names of a config can make one id (the second is refused): keyed by place too.
              <li
                key={`${i}:${c.id}`}
                className={c.problem === null ? "mcp-candidate" : "mcp-candidate mcp-candidate-refused"}
              >
                <label>
                  <input
                    type="checkbox"
                    checked={chosen.has(c.id)}
                    disabled={c.problem !== null || busy !== null}
                    onChange={(e) => toggle(c.id, e.target.checked)}
                    aria-label={`Import ${c.id}`}
                  />{" "}
                  <strong>{c.id}</strong>
                </label>
                <div className="mono small mcp-runs">{c.runs}</div>
                {[...c.env_keys.map((k) => ["env", k]), ...c.header_keys.map((k) => ["header", k])].map(([kind, k]) => (
                  <div key={`${kind}:${k}`} className="small launch-values">
                    <span className="muted">{kind}</span> <code>{k}</code>
                    <span className="muted"> — a value is set (goes to the secret store, not shown)</span>
                  </div>
                ))}
                {c.timeout_s !== null && (
                  <div className="small launch-values">
                    <span className="muted">call timeout</span> <code>{seconds(c.timeout_s)}</code>
                  </div>
                )}
                {c.note !== null && <p className="small muted">{c.note}</p>}
                {c.problem !== null && <p className="field-error">Cannot be added: {c.problem}</p>}
              </li>
            ))}
          </ul>
          <button
            type="button"
            className="btn btn-primary"
            disabled={busy !== null || chosen.size === 0}
            onClick={() => void importChosen()}
          >
            {busy === "import" ? "Importing…" : `Import selected (${chosen.size})`}
          </button>
        </div>
      )}
    </div>
  );
}
