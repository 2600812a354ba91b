import { lazy, Suspense, useLayoutEffect, useRef, type ReactNode } from "react";
import type { ToolCallRecord } from "../bindings";
import { Badge, Spinner } from "../components/feedback";
import { ViewBoundary } from "../components/ViewBoundary";
import { formatTime } from "../lib/format";
import { pretty } from "../lib/json";
import { shownStatus, type ShownStatus } from "../lib/callStatus";
import { useRerun, type Rerun } from "./rerun";

// The renderers (CodeMirror, markdown) are a separate chunk: the first
// screen, the toolset list, does not wait for them.
const CallView = lazy(() => import("../renderers/CallView").then((m) => ({ default: m.CallView })));

const STATUS_TONE: Record<ShownStatus, string> = {
  success: "success",
  error: "danger",
  cancelled: "warning",
  interrupted: "warning",
  denied: "warning",
  running: "info",
  pending: "info",
  awaiting_approval: "info",
};

// How tall each card's body last was, so a body deferred while the list
// scrolls keeps its place (no jump when the view arrives).
const bodyHeights = new Map<string, number>();

/**
 * A finished call: status, arguments, and its renderer. `deferBody` (a
 * long list scrolling past) puts a placeholder of the body's last height
 * where the renderer goes: editors and frames are built once the list
 * stops, so scrolling never waits for them. `footer` goes at the card's
 * foot, part of it (the files the step changed).
 */
export function CallCard({
  call,
  onRerun,
  deferBody = false,
  footer,
}: {
  call: ToolCallRecord;
  onRerun?: Rerun;
  deferBody?: boolean;
  footer?: ReactNode;
}) {
  const body = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    if (deferBody) return;
    const el = body.current;
    return () => {
      if (el !== null && el.offsetHeight > 0) bodyHeights.set(call.id, el.offsetHeight);
    };
  }, [deferBody, call.id]);
  const status = shownStatus(call);
  const rerun = useRerun(call, onRerun);
  return (
    <article className="call-card" aria-label={`Call of ${call.tool_id}`}>
      <header className="call-header">
        <code className="call-tool" title={call.tool_id}>
          {call.tool_id}
        </code>
        <Badge tone={STATUS_TONE[status]}>{status.replace(/_/g, " ")}</Badge>
        <span className="muted small">{formatTime(call.started_at, { seconds: true })}</span>
        {onRerun !== undefined && (
          <button
            type="button"
            className="btn btn-small btn-ghost call-rerun"
            title="Open the form with these arguments to edit and run again"
            onClick={rerun.click}
          >
            Run again…
          </button>
        )}
      </header>
      {rerun.shown}
      <details className="call-args">
        <summary>Arguments</summary>
        <pre className="code-block">{pretty(call.args)}</pre>
      </details>
      {deferBody ? (
        <div className="call-body call-body-deferred" style={{ height: bodyHeights.get(call.id) ?? 160 }} />
      ) : (
        <div className="call-body" ref={body}>
          <ViewBoundary name={`the result of ${call.tool_id}`}>
            <Suspense fallback={<Spinner label="Loading the view…" />}>
              <CallView call={call} />
            </Suspense>
          </ViewBoundary>
        </div>
      )}
      {footer !== undefined && footer !== null && footer !== false && <footer className="call-footer">{footer}</footer>}
    </article>
  );
}
