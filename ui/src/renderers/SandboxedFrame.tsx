import { useRef } from "react";
import { useFrameResize } from "./useFrameResize";

/**
 * The only way tool markup reaches the screen: a URL in an iframe with
 * `sandbox="allow-scripts"` (never allow-same-origin, never srcdoc), so it
 * runs in an opaque origin with no access to the app or its IPC.
 */
export function SandboxedFrame({
  src,
  title,
  initialHeight = 320,
}: {
  src: string;
  title: string;
  initialHeight?: number;
}) {
  const ref = useRef<HTMLIFrameElement>(null);
  const height = useFrameResize(ref, initialHeight);
  return (
    <iframe
      ref={ref}
      className="sandboxed-frame"
      src={src}
      title={title}
      sandbox="allow-scripts"
      referrerPolicy="no-referrer"
      style={{ height: `${height}px` }}
    />
  );
}
