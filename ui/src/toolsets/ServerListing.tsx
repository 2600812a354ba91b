// The MCP servers a toolset just installed declares: each is connected
// once to list its tools (the core's `list_if_idle`: Settings' Restart,
// except that a server already running for another toolset's chats is left
// alone), so the model and the tool picker have them without a trip to
// Settings. The
// install itself never starts a server: a slow or broken one must not hold
// it up, and the list goes on while the person reads the result.

import { api, errorText } from "../api";
import { CodeText } from "../components/CodeText";
import { Spinner } from "../components/feedback";

export type Listing = { state: "listing" } | { state: "listed"; tools: number } | { state: "failed"; error: unknown };

/** Lists each server in turn, saying how each went; resolves when all are done. */
export async function listServers(ids: string[], report: (id: string, listing: Listing) => void): Promise<void> {
  for (const id of ids) {
    try {
      const server = await api.listMcpServer(id);
      report(id, { state: "listed", tools: server.tools?.length ?? 0 });
    } catch (error) {
      report(id, { state: "failed", error });
    }
  }
}

/** How many of the servers could not start. */
export const failedCount = (servers: [string, Listing][]) => servers.filter(([, l]) => l.state === "failed").length;

export function ServerListing({ servers }: { servers: [string, Listing][] }) {
  if (servers.length === 0) return null;
  const failed = servers.some(([, l]) => l.state === "failed");
  return (
    <div className="server-listing">
      <ul className="plain-list small" aria-label="Its MCP servers">
        {servers.map(([id, l]) => (
          <li key={id}>
            {l.state === "listing" && <Spinner label={`MCP server ${id}: listing its tools…`} />}
            {l.state === "listed" && (
              <span>
                MCP server <code>{id}</code>: {l.tools} {l.tools === 1 ? "tool" : "tools"} listed.
              </span>
            )}
            {l.state === "failed" && (
              <span className="field-error">
                MCP server <code>{id}</code> could not start: <CodeText text={errorText(l.error)} />
              </span>
            )}
          </li>
        ))}
      </ul>
      {failed && (
        <p className="muted small">
          Its tools are offered once it starts: Settings → MCP servers shows what it wrote to stderr, and Restart tries
          again.
        </p>
      )}
    </div>
  );
}
