import type { JsonValue, ToolCallRecord } from "../bindings";
import { Notice } from "../components/feedback";
import { asObject, pretty, str, type JsonObject } from "../lib/json";
import { CodeRenderer } from "./CodeRenderer";
import { DocumentRenderer } from "./DocumentRenderer";
import { ErrorView, type ErrorInfo } from "./ErrorView";
import { FrameRenderer } from "./FrameRenderer";
import { HtmlRenderer } from "./HtmlRenderer";
import { ImageRenderer } from "./ImageRenderer";

function JsonView({ value, note }: { value: JsonValue | null; note?: string }) {
  return (
    <div className="json-view">
      {note !== undefined && <p className="muted small">{note}</p>}
      <pre className="code-block">{pretty(value)}</pre>
    </div>
  );
}

function errorFromConfig(c: JsonObject): ErrorInfo {
  return {
    kind: str(c, "kind"),
    message: str(c, "message"),
    traceback: str(c, "traceback"),
    stdout: str(c, "stdout"),
    stderr: str(c, "stderr"),
  };
}

/** A call, shown by its render plan (the file views use the plan's manifest). */
export function CallView({ call }: { call: ToolCallRecord }) {
  const plan = call.render_plan;
  if (plan === null) {
    if (call.error !== null || call.status === "error") {
      return (
        <ErrorView
          info={{
            kind: call.error_kind,
            message: call.error,
            traceback: null,
            stdout: call.stdout,
            stderr: call.stderr,
          }}
        />
      );
    }
    if (call.result === null) return <p className="muted">No result yet ({call.status.replace(/_/g, " ")}).</p>;
    return <JsonView value={call.result} />;
  }
  const config = asObject(plan.config);
  const props = { call, plan, config };
  let body;
  switch (plan.renderer) {
    case "code":
      body = <CodeRenderer {...props} />;
      break;
    case "document":
      body = <DocumentRenderer {...props} />;
      break;
    case "html":
      body = <HtmlRenderer {...props} />;
      break;
    case "frame":
      body = <FrameRenderer {...props} />;
      break;
    case "image":
      body = <ImageRenderer {...props} />;
      break;
    case "error":
      body = <ErrorView info={errorFromConfig(config)} />;
      break;
    default:
      body = <JsonView value={call.result} note={`Unknown renderer “${plan.renderer}”: showing the result as JSON.`} />;
  }
  return (
    <>
      {plan.warnings.length > 0 && (
        <Notice tone="warning">
          {plan.warnings.map((w) => (
            <div key={w}>{w}</div>
          ))}
        </Notice>
      )}
      {body}
    </>
  );
}
