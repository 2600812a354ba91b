import { useEffect, useRef, useState } from "react";
import { api } from "../api";
import type { RunEvent } from "../bindings";
import { ErrorBox } from "../components/feedback";
import { formatBytes } from "../lib/format";

/** What a running call has reported so far. */
export type Live = {
  /** The recorded call, once the backend says so (for Cancel). */
  callId: string | null;
  walk: Extract<RunEvent, { kind: "workspace" }> | null;
  /** The output's tail (the whole is in the call record when it ends). */
  output: string;
};

export const NO_LIVE: Live = { callId: null, walk: null, output: "" };
const TAIL = 16_000;

export function addEvent(live: Live, e: RunEvent): Live {
  if (e.kind === "started") return { ...live, callId: e.call_id };
  if (e.kind === "workspace") return { ...live, walk: e };
  const output = live.output + e.text;
  return { ...live, output: output.length > TAIL ? output.slice(output.length - TAIL) : output };
}

/** The running call: the workspace walk's progress and the output so far. */
export function LiveRun({ live, startedAt }: { live: Live; startedAt: number }) {
  const pre = useRef<HTMLPreElement>(null);
  useEffect(() => {
    // Follow the output like a terminal.
    if (pre.current !== null) pre.current.scrollTop = pre.current.scrollHeight;
  }, [live.output]);
  const [cancelling, setCancelling] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const cancel = (id: string) => {
    setCancelling(true);
    api.cancelToolCall(id).catch((e: unknown) => {
      setError(e);
      setCancelling(false);
    });
  };
  const w = live.walk;
  const walking = w !== null && (w.files_total === 0 || w.files_done < w.files_total);
  return (
    <section className="live-run" aria-label="Running" aria-live="polite">
      <p className="muted small">
        Running since {new Date(startedAt).toLocaleTimeString()}
        {walking && (
          <>
            {" · recording the workspace: "}
            {w.files_done.toLocaleString()}
            {w.files_total > 0 && ` of ${w.files_total.toLocaleString()}`} files
            {w.bytes_total > 0 && ` (${formatBytes(w.bytes_done)} of ${formatBytes(w.bytes_total)})`}
          </>
        )}
      </p>
      {walking && w.files_total > 0 && (
        <progress className="live-progress" max={w.files_total} value={w.files_done} aria-label="Workspace recorded" />
      )}
      {live.callId !== null && (
        <button type="button" className="btn btn-small" disabled={cancelling} onClick={() => cancel(live.callId!)}>
          {cancelling ? "Cancelling…" : "Cancel"}
        </button>
      )}
      {error !== null && <ErrorBox error={error} title="Could not cancel." />}
      {live.output !== "" && (
        <pre ref={pre} className="live-output" aria-label="Output so far">
          {live.output}
        </pre>
      )}
    </section>
  );
}
