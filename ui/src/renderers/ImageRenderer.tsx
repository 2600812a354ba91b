import { Notice } from "../components/feedback";
import { str, type JsonObject } from "../lib/json";
import { ContentGate } from "./ContentGate";
import { extensionOf } from "./languages";
import { isLoopbackUrl } from "./FrameRenderer";
import type { RendererProps } from "./types";
import { useContent } from "./useContent";

function safeImageUrl(url: string): boolean {
  return /^data:image\/[a-z0-9.+-]+[;,]/i.test(url) || isLoopbackUrl(url);
}

function FileImage({ call, plan, file, alt }: RendererProps & { file: string; alt: string }) {
  const fileOnly: JsonObject = { file };
  const load = useContent(call, fileOnly, plan.manifest_id);
  if (load.data?.kind === "binary") {
    return <Notice>{file} is a binary image; this version of Atelier shows only SVG images from the workspace.</Notice>;
  }
  return (
    <ContentGate load={load}>
      {(text, path) =>
        extensionOf(path ?? file).toLowerCase() === "svg" ? (
          <img className="image-renderer" alt={alt} src={`data:image/svg+xml;charset=utf-8,${encodeURIComponent(text)}`} />
        ) : (
          <Notice>{file} is not an image.</Notice>
        )
      }
    </ContentGate>
  );
}

export function ImageRenderer(props: RendererProps) {
  const { config } = props;
  const alt = str(config, "alt") ?? "Image from the tool";
  const url = str(config, "url") ?? str(config, "src");
  const file = str(config, "file");
  if (file !== null) return <FileImage {...props} file={file} alt={alt} />;
  if (url === null) return <Notice>This tool gave no image to show.</Notice>;
  if (!safeImageUrl(url)) {
    return (
      <Notice tone="warning">
        Images are shown only from data URLs or this computer; this tool asked for <code>{url}</code>.
      </Notice>
    );
  }
  return <img className="image-renderer" alt={alt} src={url} />;
}
