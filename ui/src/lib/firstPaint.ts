// The start-up benchmark measures until the first screen (the Chat tab, once
// it knows the providers) is drawn: once, after the frame that shows it, the
// shell is told (it prints the time only when ATELIER_STARTUP_PROBE is set).
import { api } from "../api";

let reported = false;

export function reportFirstPaint(): void {
  if (reported) return;
  reported = true;
  requestAnimationFrame(() => requestAnimationFrame(() => void api.firstPaint().catch(() => undefined)));
}
