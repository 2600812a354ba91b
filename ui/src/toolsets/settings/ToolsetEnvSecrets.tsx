import { useState } from "react";
import { api } from "../../api";
import type { EnvReference } from "../../bindings";
import { ConfirmDialog } from "../../components/ConfirmDialog";
import { ErrorBox, Notice } from "../../components/feedback";
import { useLoad } from "../../lib/useLoad";
import { listServers, ServerListing, type Listing } from "../ServerListing";
import { servers } from "./EnvReferences";
import { EnvSecretField } from "./EnvSecretField";
import { NoKeychain, storeWords } from "./SecretsNotice";

/**
 * The values an installed toolset's MCP servers read (`${NAME}`), each set
 * or not, typed here instead of with `atelier secrets set`; a value its ZIP
 * brought (moved to the secret store at import) is "from the bundle", and
 * removing it says that only installing the toolset again brings it back. Once one is saved, the servers that read it are
 * listed again (a server that failed for want of it starts; one already
 * running is left alone and keeps the value it started with). `onListed`:
 * the install screen shows those outcomes in its own list; otherwise they
 * are shown here.
 */
export function ToolsetEnvSecrets({
  id,
  enabled,
  onListed,
}: {
  id: string;
  /** A disabled toolset's servers do not run: nothing is listed. */
  enabled: boolean;
  onListed?: (serverId: string, listing: Listing) => void;
}) {
  const [load, reload, set] = useLoad(() => api.toolsetEnvReferences(id), `env-references:${id}`);
  const [status, reloadStatus] = useLoad(() => api.secretsStatus(), "secrets-status");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<{ title: string; error: unknown } | null>(null);
  const [listing, setListing] = useState<[string, Listing][]>([]);
  const [replaced, setReplaced] = useState<string | null>(null);
  // A Remove waiting for its confirmation.
  const [removing, setRemoving] = useState<EnvReference | null>(null);

  if (load.state === "error")
    return <ErrorBox error={load.error} title="The values its servers read could not be loaded." onRetry={reload} />;
  const refs = load.data ?? [];
  if (refs.length === 0) return null;

  const relist = async (all: string[]) => {
    if (!enabled) return;
    // A server the person turned off stays off (listing it would fail,
    // "is disabled", right after a value was saved).
    const off = await api.listMcpServers().then(
      (servers) => new Set(servers.filter((d) => !d.server.enabled || !d.server.active).map((d) => d.server.id)),
      () => new Set<string>(),
    );
    const serverIds = all.filter((s) => !off.has(s));
    if (onListed === undefined) setListing(serverIds.map((s) => [s, { state: "listing" }]));
    else for (const s of serverIds) onListed(s, { state: "listing" });
    await listServers(serverIds, (sid, l) => {
      if (onListed !== undefined) onListed(sid, l);
      else setListing((prev) => prev.map((e) => (e[0] === sid ? [sid, l] : e)));
    });
  };

  const save = async (r: EnvReference, value: string) => {
    setBusy(true);
    setError(null);
    try {
      set(await api.setToolsetEnvSecret(id, r.name, value));
      setReplaced(r.stored ? r.name : null);
      void relist(r.server_ids);
      return true;
    } catch (e) {
      setError({ title: `$${r.name} not saved:`, error: e });
      reloadStatus();
      return false;
    } finally {
      setBusy(false);
    }
  };

  const remove = async (r: EnvReference) => {
    setBusy(true);
    setError(null);
    setReplaced(null);
    try {
      set(await api.unsetToolsetEnvSecret(id, r.name));
    } catch (e) {
      setError({ title: `$${r.name} not removed:`, error: e });
    } finally {
      setBusy(false);
    }
  };

  const store = status.data?.store;
  const unset = refs.filter((r) => !r.stored).length;
  return (
    <section className="toolset-env-secrets" aria-labelledby={`env-secrets-${id}`}>
      <h4 id={`env-secrets-${id}`}>Values its servers read</h4>
      <p className="muted small">
        Each is kept {store === null || store === undefined ? "" : `in ${storeWords(store)} `}for this toolset only,
        never shown again{enabled ? "; once one is saved, the servers that read it start again" : ""}.
      </p>
      {unset > 0 && store === null && <NoKeychain onAllowed={reloadStatus} />}
      <ul className="plain-list env-secret-list">
        {refs.map((r) => (
          <EnvSecretField
            key={r.name}
            reference={r}
            busy={busy}
            onSave={(value) => save(r, value)}
            onRemove={() => setRemoving(r)}
          />
        ))}
      </ul>
      {error !== null && <ErrorBox error={error.error} title={error.title} onDismiss={() => setError(null)} />}
      {replaced !== null && enabled && (
        <Notice>
          <code>${replaced}</code> was replaced. A server already running keeps the value it started with until it
          restarts: Settings → MCP servers → Restart.
        </Notice>
      )}
      {onListed === undefined && <ServerListing servers={listing} />}
      {removing !== null && (
        <ConfirmDialog
          title={`Remove $${removing.name}?`}
          confirmLabel="Remove"
          danger
          onCancel={() => setRemoving(null)}
          onConfirm={() => {
            const r = removing;
            setRemoving(null);
            void remove(r);
          }}
        >
          <p>Its servers ({servers(removing)}) will not start until it is set again.</p>
          {removing.origin === "bundle" && (
            <p>
              This value came with the toolset’s bundle: once removed, only installing the toolset again brings it back.
            </p>
          )}
        </ConfirmDialog>
      )}
    </section>
  );
}
