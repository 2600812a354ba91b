import { useState } from "react";
import { Notice } from "../components/feedback";
import { str } from "../lib/json";
import type { RendererProps } from "./types";

/** "audio/wav" of a `data:audio/wav;base64,…` URL. */
function mediaType(url: string): string {
  return url.slice("data:".length).split(/[;,]/, 1)[0] ?? "";
}

/**
 * Audio a tool returned (MCP audio content, or an audio resource), played
 * where it is: the plan carries it as a `data:audio/…` URL, the only kind
 * shown (no address elsewhere is fetched).
 */
export function AudioRenderer({ config }: RendererProps) {
  const url = str(config, "url");
  const label = str(config, "label") ?? "Audio from the tool";
  const [broken, setBroken] = useState<string | null>(null);
  if (url === null || !url.startsWith("data:audio/")) return <Notice>This tool gave no audio to play.</Notice>;
  const type = mediaType(url);
  if (broken === url) {
    return <Notice>The tool’s audio ({type}) is not a format this app can play.</Notice>;
  }
  return (
    <figure className="audio-renderer">
      <audio controls preload="metadata" src={url} aria-label={label} onError={() => setBroken(url)} />
      <figcaption className="muted small">
        {label === "Audio from the tool" ? "" : `${label} · `}
        {type}
      </figcaption>
    </figure>
  );
}
