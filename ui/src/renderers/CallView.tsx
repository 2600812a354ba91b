import type { JsonValue, RenderPlan, ToolCallRecord } from "../bindings";
import { Notice } from "../components/feedback";
import { asObject, pretty, str, type JsonObject } from "../lib/json";
import { AudioRenderer } from "./AudioRenderer";
import { BlocksRenderer } from "./BlocksRenderer";
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

/** One plan's renderer; a `blocks` plan's parts are plans of their own. */
function PlanBody({ call, plan }: { call: ToolCallRecord; plan: RenderPlan }) {
  const config = asObject(plan.config);
  const props = { call, plan, config };
  switch (plan.renderer) {
    case "code":
      return <CodeRenderer {...props} />;
    case "document":
      return <DocumentRenderer {...props} />;
    case "html":
      return <HtmlRenderer {...props} />;
    case "frame":
      return <FrameRenderer {...props} />;
    case "image":
      return <ImageRenderer {...props} />;
    case "audio":
      return <AudioRenderer {...props} />;
    case "blocks":
      return <BlocksRenderer {...props} part={(p) => <PlanBody call={call} plan={p} />} />;
    case "error":
      return <ErrorView info={errorFromConfig(config)} />;
    default:
      return <JsonView value={call.result} note={`Unknown renderer “${plan.renderer}”: showing the result as JSON.`} />;
  }
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
  const body = <PlanBody call={call} plan={plan} />;
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
