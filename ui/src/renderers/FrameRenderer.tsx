import { Notice } from "../components/feedback";
import { str } from "../lib/json";
import { SandboxedFrame } from "./SandboxedFrame";
import type { RendererProps } from "./types";

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** Only http(s) pages on this computer are framed. */
export function isLoopbackUrl(raw: string): boolean {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return false;
  }
  return (url.protocol === "http:" || url.protocol === "https:") && LOOPBACK.has(url.hostname);
}

export function FrameRenderer({ call, config }: RendererProps) {
  const url = str(config, "url");
  if (url === null || url === "") return <Notice>This tool gave no URL to show.</Notice>;
  if (!isLoopbackUrl(url)) {
    return (
      <Notice tone="warning">
        Atelier only shows pages served from this computer (localhost, 127.0.0.1 or [::1]) here. This tool asked for{" "}
        <code>{url}</code>.
      </Notice>
    );
  }
  return (
    <div className="frame-renderer">
      <div className="renderer-bar">
        <code className="renderer-path">{url}</code>
      </div>
      <SandboxedFrame src={url} title={`Page from ${call.tool_id}`} initialHeight={480} />
    </div>
  );
}
