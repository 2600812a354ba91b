import { useState } from "react";
import { api } from "../api";
import type { ReloadStatus, ToolsetRecord } from "../bindings";
import { ConfirmDialog } from "../components/ConfirmDialog";
import { Badge, ErrorBox, Notice } from "../components/feedback";
import { Switch } from "../components/Switch";
import { ToolsetDetailsView } from "./ToolsetDetailsView";

type Busy = null | "toggle" | "export" | "uninstall";

export function ToolsetRow({
  toolset,
  reload,
  onUpdated,
  onRemoved,
}: {
  toolset: ToolsetRecord;
  /** The last hot reload of a local toolset, if any. */
  reload?: ReloadStatus | undefined;
  onUpdated: (t: ToolsetRecord) => void;
  onRemoved: (id: string) => void;
}) {
  const [expanded, setExpanded] = useState(false);
  const [busy, setBusy] = useState<Busy>(null);
  const [error, setError] = useState<{ what: string; error: unknown } | null>(null);
  const [exportedTo, setExportedTo] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  const t = toolset;

  const run = async (what: Busy & string, label: string, fn: () => Promise<void>) => {
    setBusy(what);
    setError(null);
    try {
      await fn();
    } catch (e) {
      setError({ what: label, error: e });
    } finally {
      setBusy(null);
    }
  };

  const toggle = () =>
    run("toggle", t.enabled ? "It was not disabled." : "It was not enabled.", async () => {
      onUpdated(await api.enableToolset(t.id, !t.enabled));
    });

  const exportIt = () =>
    run("export", "The export failed.", async () => {
      setExportedTo(null);
      const path = await api.pickExportPath(`${t.id}-${t.version}.zip`);
      if (path === null) return;
      await api.exportToolset(t.id, path);
      setExportedTo(path);
    });

  const uninstall = () => {
    setConfirming(false);
    void run("uninstall", "It was not uninstalled.", async () => {
      await api.uninstallToolset(t.id);
      onRemoved(t.id);
    });
  };

  return (
    <li className={t.enabled ? "toolset-row" : "toolset-row toolset-disabled"} aria-label={t.name}>
      <div className="toolset-main">
        <Switch
          checked={t.enabled}
          disabled={busy !== null}
          label={`Enable ${t.name}`}
          title={t.enabled ? "Enabled: its tools can be used" : "Disabled"}
          onChange={() => void toggle()}
        />
        <div className="toolset-text">
          <div className="toolset-title">
            <span className="toolset-name">{t.name}</span>
            <span className="muted">{t.version}</span>
            <Badge tone="neutral" title={t.source_ref ?? undefined}>
              {sourceLabel(t)}
            </Badge>
          </div>
          <div className="muted small">
            <code>{t.id}</code>
            {t.description !== "" && ` · ${t.description}`}
          </div>
        </div>
        <div className="row-actions">
          <button
            type="button"
            className="btn btn-small btn-ghost"
            aria-expanded={expanded}
            onClick={() => setExpanded(!expanded)}
          >
            {expanded ? "Hide details" : "Details"}
          </button>
          <button type="button" className="btn btn-small" disabled={busy !== null} onClick={() => void exportIt()}>
            {busy === "export" ? "Exporting…" : "Export"}
          </button>
          <button
            type="button"
            className="btn btn-small btn-danger-ghost"
            disabled={busy !== null}
            onClick={() => setConfirming(true)}
          >
            {busy === "uninstall" ? "Uninstalling…" : "Uninstall"}
          </button>
        </div>
      </div>
      {reload?.error != null && (
        <div className="reload-error" role="alert" aria-label="Last edit refused">
          <strong>Your last edit to {reload.path} was not loaded</strong>; version {t.version} still runs. Fix it and
          save again:
          <pre className="code-block">{reload.error}</pre>
        </div>
      )}
      {error !== null && <ErrorBox error={error.error} title={error.what} onDismiss={() => setError(null)} />}
      {exportedTo !== null && <Notice tone="success">Exported to {exportedTo}</Notice>}
      {expanded && <ToolsetDetailsView id={t.id} />}
      {confirming && (
        <ConfirmDialog
          title={`Uninstall ${t.name}?`}
          confirmLabel="Uninstall"
          danger
          onConfirm={uninstall}
          onCancel={() => setConfirming(false)}
        >
          <p>Its tools disappear from the picker and its files are removed. Past tool calls stay in your chats.</p>
        </ConfirmDialog>
      )}
    </li>
  );
}

/** Where a toolset came from, in words: a bundled example, a ZIP, a folder. */
export function sourceLabel(t: ToolsetRecord): string {
  if (t.source_ref?.startsWith("bundled:") === true) return "example";
  if (t.source_type === "local") return "folder";
  if (t.source_type === "zip") return "ZIP";
  return t.source_type;
}
