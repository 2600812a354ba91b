import { useState } from "react";
import { api } from "../api";
import type { ImportReport, ToolsetRecord } from "../bindings";
import { EmptyState, ErrorBox, Notice, Spinner } from "../components/feedback";
import { baseName } from "../lib/format";
import { useLoad } from "../lib/useLoad";
import { ImportFlow } from "./ImportFlow";
import { ToolsetRow } from "./ToolsetRow";
import { useBundleDrop } from "./useBundleDrop";
import { useReloads } from "./useReloads";

type Pending = { path: string; seq: number };

export function ToolsetManager({ active, onChanged }: { active: boolean; onChanged: () => void }) {
  const [load, reload, setToolsets] = useLoad(() => api.listToolsets(), "toolsets");
  const [pending, setPending] = useState<Pending | null>(null);
  const [installing, setInstalling] = useState(false);
  const [pickError, setPickError] = useState<unknown>(null);
  const [note, setNote] = useState<string | null>(null);
  // Read again each time the tab is shown: a toolset may have been enabled
  // elsewhere meanwhile (a call card's Enable).
  const [wasActive, setWasActive] = useState(active);
  if (wasActive !== active) {
    setWasActive(active);
    if (active) reload();
  }
  const toolsets = load.data ?? [];

  const review = (paths: string[]) => {
    const first = paths[0];
    if (first === undefined) return;
    if (installing) {
      setNote("An install is running: drop the bundle again when it has finished.");
      return;
    }
    setNote(
      paths.length > 1
        ? `${paths.length} items were dropped; reviewing ${baseName(first)}. Drop the others one at a time.`
        : null,
    );
    setPending((p) => ({ path: first, seq: (p?.seq ?? 0) + 1 }));
  };

  const over = useBundleDrop(active, review);

  const pick = async (dialog: () => Promise<string | null>) => {
    setPickError(null);
    try {
      const path = await dialog();
      if (path !== null) review([path]);
    } catch (e) {
      setPickError(e);
    }
  };

  const replace = (t: ToolsetRecord) => {
    setToolsets(toolsets.map((x) => (x.id === t.id ? t : x)));
    onChanged();
  };
  const remove = (id: string) => {
    setToolsets(toolsets.filter((x) => x.id !== id));
    onChanged();
  };
  const installed = (_result: ImportReport) => {
    reload();
    onChanged();
  };
  // A local folder reloaded after an edit: the new version, maybe new tools.
  const { reloads, loadError } = useReloads(() => {
    reload();
    onChanged();
  });

  return (
    <div className={over ? "manager drop-over" : "manager"} data-testid="toolset-manager">
      <header className="page-header">
        <div>
          <h1>Toolsets</h1>
          <p className="muted">Bundles of tools. Drop a toolset ZIP or folder anywhere here to install it.</p>
        </div>
        <div className="header-actions">
          <button type="button" className="btn" onClick={() => void pick(api.pickBundleFolder)} disabled={installing}>
            Import folder…
          </button>
          <button
            type="button"
            className="btn btn-primary"
            onClick={() => void pick(api.pickBundle)}
            disabled={installing}
          >
            Import…
          </button>
        </div>
      </header>
      {over && (
        <div className="drop-hint" aria-live="polite">
          Drop to review this toolset before installing it
        </div>
      )}
      {pickError !== null && (
        <ErrorBox error={pickError} title="The file dialog failed." onDismiss={() => setPickError(null)} />
      )}
      {note !== null && <Notice>{note}</Notice>}
      {pending !== null && (
        <ImportFlow
          key={pending.seq}
          path={pending.path}
          installed={toolsets}
          onInstalled={installed}
          onToolsListed={onChanged}
          onBusy={setInstalling}
          onClose={() => setPending(null)}
        />
      )}
      {load.state === "error" && <ErrorBox error={load.error} title="Toolsets could not be loaded." onRetry={reload} />}
      {loadError !== null && load.state !== "error" && (
        <ErrorBox error={loadError} title="Edits to toolset folders are not followed." />
      )}
      {load.data === null && load.state === "loading" && <Spinner label="Loading toolsets…" />}
      {load.data !== null && toolsets.length === 0 && (
        <EmptyState title="No toolsets installed yet">
          Click <strong>Import…</strong> to choose a toolset ZIP (or <strong>Import folder…</strong>), or drop one onto
          this window. You will see what it runs before anything is installed.
        </EmptyState>
      )}
      {toolsets.length > 0 && (
        <ul className="toolset-list" aria-label="Installed toolsets">
          {toolsets.map((t) => (
            <ToolsetRow key={t.id} toolset={t} reload={reloads[t.id]} onUpdated={replace} onRemoved={remove} />
          ))}
        </ul>
      )}
    </div>
  );
}
