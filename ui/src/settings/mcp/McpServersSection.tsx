import { useEffect, useRef, useState } from "react";
import { api } from "../../api";
import { ErrorBox, Notice, Spinner } from "../../components/feedback";
import { useEvent } from "../../lib/useEvent";
import { useLoad } from "../../lib/useLoad";
import { McpAddForm } from "./McpAddForm";
import { McpImport } from "./McpImport";
import { McpServerRow, type RowBusy } from "./McpServerRow";

/** How often the list is read again while a server is starting. */
const POLL_MS = 1500;

/**
 * MCP servers in Settings: every server (the person's and those toolsets
 * declare) with its status in words, its switch, Restart, Remove and
 * details; *Add server* and *Import from config…*. Adding or importing
 * connects each new server once to list its tools: one that cannot
 * connect stays, with its error shown on its row. `active`: the page is
 * shown; `onChanged`: the tools on offer may have changed (a server
 * added, removed, switched or listed again).
 */
export function McpServersSection({ active, onChanged }: { active: boolean; onChanged: () => void }) {
  const [load, reload] = useLoad(() => api.listMcpServers(), "mcp-servers");
  const [shown, setShown] = useState(false);
  if (shown !== active) {
    setShown(active);
    if (active) reload();
  }
  const [busy, setBusy] = useState<Record<string, RowBusy>>({});
  const [errors, setErrors] = useState<Record<string, unknown>>({});
  const [expanded, setExpanded] = useState<Set<string>>(new Set());
  const [panel, setPanel] = useState<"add" | "import" | null>(null);
  const [done, setDone] = useState<{ text: string; tone: "info" | "success" | "warning" } | null>(null);
  const servers = load.data ?? [];
  // A sign-in page's address, by server, while its sign-in waits.
  const [pages, setPages] = useState<Record<string, string>>({});
  useEvent<{ id: string; url: string }>("mcp-sign-in-page", (p) => setPages((m) => ({ ...m, [p.id]: p.url })));

  const starting = active && servers.some((d) => d.status === "starting");
  useEffect(() => {
    if (!starting) return;
    const t = setTimeout(reload, POLL_MS);
    return () => clearTimeout(t);
  }, [starting, load, reload]);

  const setRow = (id: string, b: RowBusy, error: unknown = null) => {
    setBusy((m) => ({ ...m, [id]: b }));
    setErrors((m) => {
      const { [id]: _, ...rest } = m;
      return error === null ? rest : { ...rest, [id]: error };
    });
  };

  /** One action on a row: its failure is shown on that row. */
  const act = async (id: string, b: RowBusy, action: () => Promise<unknown>): Promise<boolean> => {
    setRow(id, b);
    setDone(null);
    let failed: unknown = null;
    try {
      await action();
    } catch (e) {
      failed = e ?? "failed";
    }
    setRow(id, null, failed);
    reload();
    onChanged();
    return failed === null;
  };

  const connect = (id: string) => act(id, "restart", () => api.restartMcpServer(id));

  // Sign-ins the person gave up: their "cancelled" is no error to show.
  const givenUp = useRef(new Set<string>());
  const signIn = (id: string) =>
    act(id, "signin", async () => {
      givenUp.current.delete(id);
      try {
        await api.signInMcpServer(id);
      } catch (e) {
        if (!givenUp.current.has(id)) throw e;
      } finally {
        setPages(({ [id]: _, ...rest }) => rest);
      }
    });
  const cancelSignIn = (id: string) => {
    givenUp.current.add(id);
    void api.cancelMcpSignIn(id);
  };

  const toggle = (id: string, enabled: boolean) =>
    act(id, "toggle", async () => {
      const s = await api.setMcpServerEnabled(id, enabled);
      // Enabled again: connect once to list its tools, as adding does.
      if (enabled && s.active) {
        setRow(id, "restart");
        await api.restartMcpServer(id);
      }
    });

  const added = async (ids: string[], off: string[] = []) => {
    setPanel(null);
    reload();
    const offNote = off.length > 0 ? ` Added ${off.join(", ")} turned off, as in the config.` : "";
    const failed: string[] = [];
    for (const id of ids) {
      if (!(await connect(id))) {
        failed.push(id);
        setExpanded((s) => new Set(s).add(id));
      }
    }
    if (ids.length === 0) setDone({ text: off.length > 0 ? offNote.trim() : "Nothing was imported.", tone: "info" });
    else if (failed.length === 0)
      setDone({
        text: `Added ${ids.join(", ")}: connected, ${ids.length === 1 ? "its" : "their"} tools listed.${offNote}`,
        tone: "success",
      });
    else
      setDone({
        text:
          `Added ${ids.join(", ")}. ${failed.join(", ")} could not connect: the error is on ` +
          (failed.length === 1 ? "its row above; it stays" : "their rows above; they stay") +
          `, and Restart tries again.${offNote}`,
        tone: "warning",
      });
  };

  return (
    <section className="settings-section" aria-labelledby="mcp-title">
      <h2 id="mcp-title">MCP servers</h2>
      <p className="muted">
        Programs or web services that give chats more tools over the Model Context Protocol. Servers you add here run
        once for all chats; a toolset’s servers are listed too, and go with their toolset.
      </p>
      {load.state === "error" && (
        <ErrorBox error={load.error} title="MCP servers could not be listed." onRetry={reload} />
      )}
      {load.data === null && load.state === "loading" && <Spinner label="Loading MCP servers…" />}
      {load.data !== null && servers.length === 0 && <p className="empty-inline">No MCP server yet.</p>}
      {servers.length > 0 && (
        <ul className="mcp-list" aria-label="MCP servers">
          {servers.map((d) => {
            const id = d.server.id;
            return (
              <McpServerRow
                key={id}
                details={d}
                busy={busy[id] ?? null}
                error={errors[id] ?? null}
                expanded={expanded.has(id)}
                onExpand={(open) =>
                  setExpanded((s) => {
                    const next = new Set(s);
                    if (open) next.add(id);
                    else next.delete(id);
                    return next;
                  })
                }
                onToggle={() => void toggle(id, !d.server.enabled)}
                onRestart={() => void connect(id)}
                onSignIn={() => void signIn(id)}
                onCancelSignIn={() => cancelSignIn(id)}
                signInPage={pages[id] ?? null}
                onRemove={() => void act(id, "remove", () => api.removeMcpServer(id))}
                onDismiss={() => setRow(id, null)}
              />
            );
          })}
        </ul>
      )}
      {done !== null && (
        <div className="mcp-done">
          <Notice tone={done.tone}>{done.text}</Notice>
        </div>
      )}
      {panel === null && (
        <div className="mcp-form-actions">
          <button
            type="button"
            className="btn"
            onClick={() => {
              setDone(null);
              setPanel("add");
            }}
          >
            Add server
          </button>
          <button
            type="button"
            className="btn btn-ghost"
            onClick={() => {
              setDone(null);
              setPanel("import");
            }}
          >
            Import from config…
          </button>
        </div>
      )}
      {panel === "add" && <McpAddForm onAdded={(id) => void added([id])} onCancel={() => setPanel(null)} />}
      {panel === "import" && (
        <McpImport onImported={(ids, off) => void added(ids, off)} onCancel={() => setPanel(null)} />
      )}
    </section>
  );
}
