// The start-up benchmark measures until the first screen (the Chat tab, once
// it knows the providers) is drawn: once, after the frame that shows it, the
// shell is told (it prints the time only when ATELIER_STARTUP_PROBE is set).
import { api } from "../api";

let reported = false;
let painted = false;
const waiting: Array<() => void> = [];

export function reportFirstPaint(): void {
  if (reported) return;
  reported = true;
  requestAnimationFrame(() =>
    requestAnimationFrame(() => {
      void api.firstPaint().catch(() => undefined);
      painted = true;
      for (const run of waiting.splice(0)) run();
    }),
  );
}

/**
 * Runs `run` once the first screen is drawn (or after `latest` ms, should
 * it never report; at once when it was drawn before): what the first
 * screen does not show waits for it. Returns a cancel.
 */
export function afterFirstPaint(run: () => void, latest = 2000): () => void {
  if (painted) latest = 0;
  let done = false;
  const once = () => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    run();
  };
  const timer = setTimeout(once, latest);
  waiting.push(once);
  return () => {
    done = true;
    clearTimeout(timer);
  };
}
