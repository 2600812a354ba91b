import { useState } from "react";
import { api } from "../api";
import { ErrorBox, Notice, Spinner } from "../components/feedback";
import { str } from "../lib/json";
import { useLoad } from "../lib/useLoad";
import type { RendererProps } from "./types";

/**
 * A workspace image as it was after the call, loaded through the app's
 * render scheme (a URL pinned to that file version), so any format the
 * webview decodes shows — PNG, JPEG, GIF, WebP, SVG — without copying the
 * bytes through IPC.
 */
function FileImage({ call, plan, file, alt }: RendererProps & { file: string; alt: string }) {
  const key = JSON.stringify([call.chat_id, file, plan.manifest_id]);
  const [load] = useLoad(() => api.workspaceFileUrl(call.chat_id, file, plan.manifest_id), key);
  const [broken, setBroken] = useState<string | null>(null);
  if (load.state === "error") return <ErrorBox error={load.error} title="The image could not be read." />;
  if (load.state === "loading" || load.data === null) return <Spinner label="Loading…" />;
  const src = load.data;
  if (broken === src) {
    return (
      <Notice>
        <code>{file}</code> is not an image this app can show.
      </Notice>
    );
  }
  return <img className="image-renderer" alt={alt} src={src} onError={() => setBroken(src)} />;
}

export function ImageRenderer(props: RendererProps) {
  const { config } = props;
  const alt = str(config, "alt") ?? "Image from the tool";
  const url = str(config, "url") ?? str(config, "src");
  const file = str(config, "file");
  if (file !== null) return <FileImage {...props} file={file} alt={alt} />;
  // The plan keeps only data: and loopback URLs; a dropped one left a warning.
  const dropped = props.plan.warnings.find((w) => w.startsWith("image url"));
  if (url === null && dropped !== undefined) {
    return (
      <Notice tone="warning">
        Images are shown only from data URLs or this computer; this tool asked for another address ({dropped}).
      </Notice>
    );
  }
  if (url === null) return <Notice>This tool gave no image to show.</Notice>;
  return <img className="image-renderer" alt={alt} src={url} />;
}
