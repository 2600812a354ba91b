import { useEffect, useState, type RefObject } from "react";

export const MIN_FRAME_HEIGHT = 80;
export const MAX_FRAME_HEIGHT = 4000;

/**
 * The height a frame asked for, or null when the message must be ignored:
 * only `{type: 'atelier:resize', height: <finite number>}` sent by that
 * frame's own window counts, clamped to [80, 4000].
 */
export function acceptResize(event: MessageEvent<unknown>, frame: HTMLIFrameElement | null): number | null {
  const own = frame?.contentWindow ?? null;
  if (own === null || event.source !== own) return null;
  const data = event.data;
  if (typeof data !== "object" || data === null) return null;
  const { type, height } = data as { type?: unknown; height?: unknown };
  if (type !== "atelier:resize" || typeof height !== "number" || !Number.isFinite(height)) return null;
  return Math.min(MAX_FRAME_HEIGHT, Math.max(MIN_FRAME_HEIGHT, Math.ceil(height)));
}

/** A frame's height, following its validated resize messages. */
export function useFrameResize(frame: RefObject<HTMLIFrameElement | null>, initial: number): number {
  const [height, setHeight] = useState(initial);
  useEffect(() => {
    const onMessage = (e: MessageEvent<unknown>) => {
      const h = acceptResize(e, frame.current);
      if (h !== null) setHeight(h);
    };
    window.addEventListener("message", onMessage);
    return () => window.removeEventListener("message", onMessage);
  }, [frame]);
  return height;
}
