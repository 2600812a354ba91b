import { useState } from "react";
import type { ServerDetails } from "../../bindings";
import { ConfirmDialog } from "../../components/ConfirmDialog";
import { ErrorBox } from "../../components/feedback";
import { Switch } from "../../components/Switch";
import { shellLine } from "./shellWords";
import { CodeText } from "../../components/CodeText";

/** A status as words and a dot: the dot's colour never says it alone. */
export function StatusDot({ status, enabled }: { status: string; enabled: boolean }) {
  // "needs sign-in": an HTTP server that wants the person to sign in (OAuth).
  const known =
    status === "needs sign-in"
      ? "signin"
      : ["connected", "starting", "error", "stopped"].includes(status)
        ? status
        : "stopped";
  const words = !enabled ? "disabled" : status;
  return (
    <span className={`mcp-status mcp-status-${enabled ? known : "disabled"}`}>
      <span className="mcp-dot" aria-hidden="true" />
      {words}
    </span>
  );
}

function toolCount(d: ServerDetails): string {
  const tools = d.server.tools;
  if (tools === null) return "not listed yet";
  return tools.length === 1 ? "1 tool" : `${tools.length} tools`;
}

/** What runs or is reached: the command line, or the URL. */
export function runsText(d: ServerDetails): string {
  const s = d.server;
  return s.command !== null ? shellLine([s.command, ...s.args]) : (s.url ?? "");
}

export type RowBusy = "toggle" | "restart" | "remove" | "signin" | null;

/**
 * One MCP server: its status in words, transport, tool count and who
 * declared it, with its switch, Restart and (the person's servers only)
 * Remove; *Details* shows what it runs, its secrets' names, its tools,
 * its last error and the tail of its stderr; what its last listing found
 * wrong (a tool listed twice) is always shown. An HTTP server that needs a
 * sign-in has *Sign in*: its page opens in the browser, and `signInPage`
 * (its address) is shown while the row waits, in case none opened.
 * `error`: the last action's failure, shown here.
 */
export function McpServerRow({
  details: d,
  busy,
  error,
  expanded,
  onExpand,
  onToggle,
  onRestart,
  onRemove,
  onSignIn,
  onCancelSignIn,
  signInPage,
  onDismiss,
}: {
  details: ServerDetails;
  busy: RowBusy;
  error: unknown;
  expanded: boolean;
  onExpand: (open: boolean) => void;
  onToggle: () => void;
  onRestart: () => void;
  onRemove: () => void;
  onSignIn: () => void;
  onCancelSignIn: () => void;
  signInPage: string | null;
  onDismiss: () => void;
}) {
  const [confirming, setConfirming] = useState(false);
  const s = d.server;
  const problem = error === null ? (d.message ?? (d.status === "stopped" ? s.last_error : null)) : null;
  const shownStatus = busy === "restart" ? "starting" : d.status;
  const wantsSignIn = s.transport === "http" && (d.status === "needs sign-in" || busy === "signin");
  return (
    <li className={s.enabled ? "mcp-row" : "mcp-row mcp-row-disabled"} aria-label={s.id}>
      <div className="mcp-main">
        <Switch
          checked={s.enabled}
          disabled={busy !== null}
          label={`Enable ${s.id}`}
          title={s.enabled ? "Enabled: its tools can be used" : "Disabled"}
          onChange={onToggle}
        />
        <div className="mcp-text">
          <div className="mcp-title">
            <span className="mcp-name">{s.id}</span>
            <StatusDot status={shownStatus} enabled={s.enabled} />
          </div>
          <div className="muted small">
            {s.transport === "stdio" ? "stdio" : "HTTP"} · {toolCount(d)}
            {s.toolsets.length > 0 && ` · declared by toolset ${s.toolsets.join(", ")}`}
            {s.toolsets.length > 0 && s.user_declared && " and by you"}
            {s.enabled && !s.active && " · off while its toolset is disabled"}
            {s.timeout_s !== undefined && ` · calls wait up to ${s.timeout_s} s for news`}
          </div>
        </div>
        <div className="row-actions">
          <button
            type="button"
            className="btn btn-small btn-ghost"
            aria-expanded={expanded}
            onClick={() => onExpand(!expanded)}
          >
            {expanded ? "Hide details" : "Details"}
          </button>
          {wantsSignIn && (
            <button
              type="button"
              className="btn btn-small btn-primary"
              disabled={busy !== null}
              title="Sign in to it in your browser"
              onClick={onSignIn}
            >
              {busy === "signin" ? "Waiting for the browser…" : "Sign in"}
            </button>
          )}
          {busy === "signin" && (
            <button type="button" className="btn btn-small btn-ghost" onClick={onCancelSignIn}>
              Cancel
            </button>
          )}
          <button
            type="button"
            className="btn btn-small"
            disabled={busy !== null || !s.active}
            title={s.active ? "Connect afresh and list its tools" : "Enable it first"}
            onClick={onRestart}
          >
            {busy === "restart" ? "Connecting…" : "Restart"}
          </button>
          {s.user_declared && (
            <button
              type="button"
              className="btn btn-small btn-danger-ghost"
              disabled={busy !== null}
              onClick={() => setConfirming(true)}
            >
              {busy === "remove" ? "Removing…" : "Remove"}
            </button>
          )}
        </div>
      </div>
      {busy === "signin" && signInPage !== null && (
        <p className="small" role="status">
          Approve Atelier in your browser. If no browser opened, go to: <code>{signInPage}</code>
        </p>
      )}
      {error !== null && <ErrorBox error={error} onDismiss={onDismiss} />}
      {problem !== null && (
        <p className="mcp-problem small" role="status">
          <strong>Last error:</strong> <CodeText text={problem} />
        </p>
      )}
      {(s.warnings ?? []).map((w) => (
        <p key={w} className="mcp-problem small" role="status">
          <strong>Warning:</strong> {w}
        </p>
      ))}
      {expanded && <McpServerDetails d={d} />}
      {confirming && (
        <ConfirmDialog
          title={`Remove ${s.id}?`}
          confirmLabel="Remove"
          danger
          onCancel={() => setConfirming(false)}
          onConfirm={() => {
            setConfirming(false);
            onRemove();
          }}
        >
          <p>
            It stops, its tools leave every agent’s list, and the values of its{" "}
            {s.transport === "stdio" ? "environment variables" : "headers"} are deleted from the secret store.
          </p>
        </ConfirmDialog>
      )}
    </li>
  );
}

function McpServerDetails({ d }: { d: ServerDetails }) {
  const s = d.server;
  const secrets = s.transport === "stdio" ? s.env_keys : s.header_keys;
  return (
    <div className="mcp-details">
      <dl className="mcp-facts">
        <dt>{s.transport === "stdio" ? "Runs" : "Connects to"}</dt>
        <dd>
          <code>{runsText(d)}</code>
        </dd>
        {secrets.length > 0 && (
          <>
            <dt>{s.transport === "stdio" ? "Environment" : "Headers"}</dt>
            <dd>
              <ul className="plain-list" aria-label={s.transport === "stdio" ? "Environment" : "Headers"}>
                {secrets.map((k) => (
                  <li key={k}>
                    <code>{k}</code> <span className="muted">— set (in the secret store, not shown)</span>
                  </li>
                ))}
              </ul>
            </dd>
          </>
        )}
        {s.server_name !== null && (
          <>
            <dt>Server</dt>
            <dd>
              {s.server_name} {s.server_version}
              {s.protocol_version !== null && <span className="muted"> · protocol {s.protocol_version}</span>}
            </dd>
          </>
        )}
        {d.instances.length > 0 && (
          <>
            <dt>Running</dt>
            <dd>
              {d.instances
                .map(
                  (i) =>
                    `${i.chat_id === null ? "shared" : `chat ${i.chat_id}`}: ${i.status}${i.pid !== null ? `, pid ${i.pid}` : ""}`,
                )
                .join("; ")}
            </dd>
          </>
        )}
        {s.last_error !== null && (
          <>
            <dt>Last error</dt>
            <dd className="mcp-error-text">
              <CodeText text={s.last_error} />
            </dd>
          </>
        )}
      </dl>
      <h3 className="subhead">Tools</h3>
      {s.tools === null ? (
        <p className="muted small">Not listed yet: Restart connects to it and lists them.</p>
      ) : s.tools.length === 0 ? (
        <p className="muted small">It offers no tools.</p>
      ) : (
        <ul className="tool-mini-list" aria-label={`Tools of ${s.id}`}>
          {s.tools.map((t) => (
            <li key={t.name}>
              <span className="tool-mini-name">{t.title ?? t.name}</span>
              {t.title !== null && <code className="muted small"> {t.name}</code>}
              {t.read_only && <span className="badge badge-neutral mcp-tool-badge">read-only</span>}
              {t.description !== "" && <div className="muted small">{t.description}</div>}
            </li>
          ))}
        </ul>
      )}
      <h3 className="subhead">Its stderr (last lines)</h3>
      {d.stderr.length === 0 ? (
        <p className="muted small">Nothing written to stderr by a running instance.</p>
      ) : (
        <pre className="mcp-stderr" tabIndex={0} aria-label={`stderr of ${s.id}`}>
          {d.stderr.join("\n")}
        </pre>
      )}
    </div>
  );
}
