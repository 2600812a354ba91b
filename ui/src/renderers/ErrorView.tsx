import { Badge } from "../components/feedback";
import { CodeText } from "../components/CodeText";

export type ErrorInfo = {
  kind: string | null;
  message: string | null;
  traceback: string | null;
  stdout: string | null;
  stderr: string | null;
};

function lineCount(s: string): string {
  const n = s.replace(/\n$/, "").split("\n").length;
  return n === 1 ? "1 line" : `${n} lines`;
}

function Block({ title, text, open }: { title: string; text: string | null; open: boolean }) {
  if (text === null || text === "") return null;
  return (
    <details className="error-block" open={open}>
      <summary>
        {title} <span className="muted small">({lineCount(text)})</span>
      </summary>
      <pre className="code-block" aria-label={title}>
        {text}
      </pre>
    </details>
  );
}

// A call the person stopped (denied before it ran, cancelled while it ran)
// did not fail: it says what happened in the person's terms, not in red.
const STOPPED: Record<string, string> = {
  denied: "You denied this call: nothing ran, and the workspace did not change.",
  cancelled: "Cancelled while it ran: what it printed and wrote to the workspace until then is kept.",
};

/** What went wrong in a call: kind, message, traceback, what it printed. */
export function ErrorView({ info }: { info: ErrorInfo }) {
  const stopped = info.kind === null ? undefined : STOPPED[info.kind];
  if (stopped !== undefined) {
    return (
      <div className="error-view error-view-stopped" role="group" aria-label="Call stopped">
        <div className="error-view-head">
          <Badge tone="warning">{info.kind}</Badge>
          <span className="error-view-message">{stopped}</span>
        </div>
        <Block title="Output (stdout)" text={info.stdout} open />
        <Block title="Errors (stderr)" text={info.stderr} open={false} />
      </div>
    );
  }
  return (
    <div className="error-view" role="group" aria-label="Tool error">
      <div className="error-view-head">
        <Badge tone="danger">{info.kind ?? "error"}</Badge>
        <span className="error-view-message">
          <CodeText text={info.message ?? "The tool failed without a message."} />
        </span>
      </div>
      <Block title="Traceback" text={info.traceback} open />
      <Block title="Output (stdout)" text={info.stdout} open={false} />
      <Block title="Errors (stderr)" text={info.stderr} open={false} />
    </div>
  );
}
