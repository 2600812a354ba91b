import { api } from "../api";
import { ErrorBox, Spinner } from "../components/feedback";
import { useLoad } from "../lib/useLoad";
import { SandboxedFrame } from "./SandboxedFrame";
import type { RendererProps } from "./types";

export function HtmlRenderer({ call }: RendererProps) {
  const [load, reload] = useLoad(() => api.renderUrl(call.id), call.id);
  if (load.state === "error")
    return <ErrorBox error={load.error} title="This view could not be prepared." onRetry={reload} />;
  if (load.data === null) return <Spinner label="Preparing the view…" />;
  return <SandboxedFrame src={load.data} title={`Output of ${call.tool_id}`} />;
}
