import { lazy, Suspense } from "react";
import type { ToolCallRecord } from "../bindings";
import { Badge, Spinner } from "../components/feedback";
import { formatTime } from "../lib/format";
import { pretty } from "../lib/json";

// The renderers (CodeMirror, markdown) are a separate chunk: the first
// screen, the toolset list, does not wait for them.
const CallView = lazy(() => import("../renderers/CallView").then((m) => ({ default: m.CallView })));

const STATUS_TONE: Record<string, string> = {
  success: "success",
  error: "danger",
  cancelled: "warning",
  interrupted: "warning",
  denied: "warning",
  running: "info",
  pending: "info",
  awaiting_approval: "info",
};

export function CallCard({ call, onRerun }: { call: ToolCallRecord; onRerun?: (call: ToolCallRecord) => void }) {
  // A denial is recorded as an error of kind `denied`; people call it denied.
  const status = call.status === "error" && call.error_kind === "denied" ? "denied" : call.status;
  return (
    <article className="call-card" aria-label={`Call of ${call.tool_id}`}>
      <header className="call-header">
        <code className="call-tool">{call.tool_id}</code>
        <Badge tone={STATUS_TONE[status] ?? "neutral"}>{status.replace(/_/g, " ")}</Badge>
        <span className="muted small">{formatTime(call.started_at)}</span>
        {onRerun !== undefined && (
          <button
            type="button"
            className="btn btn-small btn-ghost call-rerun"
            title="Open the form with these arguments to edit and run again"
            onClick={() => onRerun(call)}
          >
            Run again…
          </button>
        )}
      </header>
      <details className="call-args">
        <summary>Arguments</summary>
        <pre className="code-block">{pretty(call.args)}</pre>
      </details>
      <div className="call-body">
        <Suspense fallback={<Spinner label="Loading the view…" />}>
          <CallView call={call} />
        </Suspense>
      </div>
    </article>
  );
}
