// A call that has not ended yet, where its card will be: waiting for the
// person's approval (Approve / Deny inline, the backend waits), or running
// with its elapsed time, the workspace walk and the output as it arrives.

import { useEffect, useRef, useState } from "react";
import { api } from "../api";
import { Badge, ErrorBox } from "../components/feedback";
import { formatBytes, formatTime } from "../lib/format";
import { pretty } from "../lib/json";
import { useRuns, type Decision, type LiveCall } from "./runs";

/** "7 s", "2:05", "1:02:05". */
export function formatElapsed(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s} s`;
  const two = (n: number) => String(n).padStart(2, "0");
  const [h, m] = [Math.floor(s / 3600), Math.floor((s % 3600) / 60)];
  return h > 0 ? `${h}:${two(m)}:${two(s % 60)}` : `${m}:${two(s % 60)}`;
}

function useNow(everyMs: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(t);
  }, [everyMs]);
  return now;
}

/** The third answer to a call that asks, in a chat or a hand run alike. */
const ALLOW = "Allow for this chat";

/**
 * `onAnswer`: how a model's call is answered (a hand run's goes through
 * the runs of this window).
 */
export function LiveCallCard({ call, onAnswer }: { call: LiveCall; onAnswer?: (decision: Decision) => Promise<void> }) {
  const runs = useRuns();
  const answer = onAnswer ?? ((d: Decision) => runs.answer(call.key, d));
  const now = useNow(1000);
  const [answering, setAnswering] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const decide = (decision: Decision) => {
    setAnswering(true);
    setError(null);
    answer(decision)
      .catch(setError)
      .finally(() => setAnswering(false));
  };
  const card = useRef<HTMLElement>(null);
  useEffect(() => {
    // A new call or a question for the person: bring it into view.
    const el = card.current;
    if (el !== null && typeof el.scrollIntoView === "function")
      el.scrollIntoView({ behavior: "smooth", block: "nearest" });
  }, [call.awaiting]);

  const status = call.awaiting ? "waiting for approval" : call.callId === null ? "starting" : "running";
  return (
    <article
      ref={card}
      className="call-card call-live"
      aria-label={`Call of ${call.toolId}`}
      data-call-id={call.callId ?? undefined}
    >
      <header className="call-header">
        <code className="call-tool" title={call.toolId}>
          {call.toolId}
        </code>
        <Badge tone={call.awaiting ? "warning" : "info"}>{status}</Badge>
        <span className="muted small" aria-label="Elapsed">
          {call.awaiting ? "asked " : ""}
          {formatElapsed(now - call.startedAt)}
          {call.awaiting ? " ago" : ""}
        </span>
      </header>
      <details className="call-args" open={call.awaiting}>
        <summary>Arguments</summary>
        <pre className="code-block">{pretty(call.args)}</pre>
      </details>
      {call.awaiting ? (
        <div className="approval" role="group" aria-label="Approval">
          <p>
            This tool asks for your approval before it runs. <strong>Approve</strong> runs it with the arguments above;{" "}
            <strong>{ALLOW}</strong> also lets {call.toolId} run without asking in this chat from now on;{" "}
            <strong>Deny</strong> records the call as denied and runs nothing.
          </p>
          <div className="panel-actions">
            <button type="button" className="btn btn-primary" disabled={answering} onClick={() => decide("once")}>
              Approve
            </button>
            <button type="button" className="btn" disabled={answering} onClick={() => decide("chat")}>
              {ALLOW}
            </button>
            <button type="button" className="btn" disabled={answering} onClick={() => decide("deny")}>
              Deny
            </button>
          </div>
        </div>
      ) : (
        <LiveProgress call={call} />
      )}
      {error !== null && (
        <ErrorBox error={error} title="The answer did not reach the call." onDismiss={() => setError(null)} />
      )}
    </article>
  );
}

/** What the tool says of its own progress: its message, and a bar when it gives a total. */
function ToolProgress({ report }: { report: NonNullable<LiveCall["progress"]> }) {
  const { progress, total, message } = report;
  const known = total !== null && total > 0;
  return (
    <div className="tool-progress">
      <p className="muted small">
        {message ?? "Working"}
        {known ? ` · ${Math.round((100 * Math.min(progress, total)) / total)}%` : ` · ${progress.toLocaleString()}`}
      </p>
      {known && (
        <progress className="live-progress" max={total} value={Math.min(progress, total)} aria-label="Tool progress" />
      )}
    </div>
  );
}

/** The running call: the workspace walk's progress, Cancel, and the output so far. */
function LiveProgress({ call }: { call: LiveCall }) {
  const pre = useRef<HTMLPreElement>(null);
  useEffect(() => {
    // Follow the output like a terminal.
    if (pre.current !== null) pre.current.scrollTop = pre.current.scrollHeight;
  }, [call.output]);
  const [cancelling, setCancelling] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const cancel = (id: string) => {
    setCancelling(true);
    api.cancelToolCall(id).catch((e: unknown) => {
      setError(e);
      setCancelling(false);
    });
  };
  const w = call.walk;
  const walking = w !== null && (w.files_total === 0 || w.files_done < w.files_total);
  return (
    <section className="live-run" aria-label="Running" aria-live="polite">
      <div className="live-status">
        <p className="muted small">
          Started {formatTime(call.startedAt, { seconds: true })}
          {walking && (
            <>
              {" · recording the workspace: "}
              {w.files_done.toLocaleString()}
              {w.files_total > 0 && ` of ${w.files_total.toLocaleString()}`} files
              {w.bytes_total > 0 && ` (${formatBytes(w.bytes_done)} of ${formatBytes(w.bytes_total)})`}
            </>
          )}
        </p>
        {call.callId !== null && (
          <button type="button" className="btn btn-small" disabled={cancelling} onClick={() => cancel(call.callId!)}>
            {cancelling ? "Cancelling…" : "Cancel"}
          </button>
        )}
      </div>
      {walking && w.files_total > 0 && (
        <progress className="live-progress" max={w.files_total} value={w.files_done} aria-label="Workspace recorded" />
      )}
      {!walking && call.progress !== null && <ToolProgress report={call.progress} />}
      {error !== null && <ErrorBox error={error} title="Could not cancel." />}
      {call.output !== "" && (
        <pre ref={pre} className="live-output" aria-label="Output so far">
          {call.output}
        </pre>
      )}
    </section>
  );
}

/** The calls still running in one chat, oldest first. */
export function LiveCalls({ chatId }: { chatId: string }) {
  const { live } = useRuns();
  const mine = live.filter((l) => l.chatId === chatId);
  if (mine.length === 0) return null;
  return (
    <ol className="call-list live-calls" aria-label="Calls in progress">
      {mine.map((l) => (
        <li key={l.key}>
          <LiveCallCard call={l} />
        </li>
      ))}
    </ol>
  );
}
