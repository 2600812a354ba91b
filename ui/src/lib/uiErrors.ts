// Where the UI's own errors go (a view that failed to render, an error
// nothing caught): the webview's console, for a developer, and the app's
// log file (`log_ui_error`: `<data dir>/logs/atelier.log`, which Settings
// names), for a person who has no console and wants to say what broke.
// Reporting must never make things worse: it does not throw, a failed
// report is dropped (never reported in turn), each error is reported once,
// and a page throwing in a loop stops being reported after a while.

import { api, errorText } from "../api";

/** The most of a message or stack sent (the core cuts again, to bytes). */
export const MAX_TEXT = 4000;

/** Reports after which a page's errors are no longer sent (one throwing in a loop). */
export const MAX_REPORTS = 50;

let sent = 0;
/** Errors already sent: one thrown object is reported once, whichever path saw it first. */
let seen = new WeakSet<object>();

/** `text`, cut to `MAX_TEXT` characters, saying so. */
function cut(text: string): string {
  return text.length <= MAX_TEXT ? text : `${text.slice(0, MAX_TEXT)}… (${text.length - MAX_TEXT} more characters)`;
}

/** The error's stack (where it was thrown) and the components it was in, if known. */
function stackOf(error: unknown, componentStack: string | null | undefined): string | null {
  const parts = [
    error instanceof Error && typeof error.stack === "string" ? error.stack.trim() : "",
    componentStack?.trim() ? `Components:\n${componentStack.trim()}` : "",
  ].filter((s) => s !== "");
  return parts.length === 0 ? null : cut(parts.join("\n\n"));
}

/**
 * Sends an error to the app's log, with `context` saying where it happened
 * ("the view \"Settings: agents\"", "an uncaught error"). Never throws; an
 * error already reported, or past `MAX_REPORTS`, is not sent again.
 */
export function reportUiError(context: string, error: unknown, componentStack?: string | null): void {
  try {
    if (typeof error === "object" && error !== null) {
      if (seen.has(error)) return;
      seen.add(error);
    }
    if (sent >= MAX_REPORTS) return;
    sent += 1;
    const message =
      sent === MAX_REPORTS ? `${errorText(error)} (further errors of this window are not logged)` : errorText(error);
    // A rejection here is dropped: reporting it would report again.
    api.logUiError(cut(message), cut(context), stackOf(error, componentStack)).catch(() => undefined);
  } catch {
    // The reporter itself failed (a getter that throws, no backend): nothing to do.
  }
}

/** Logs a view's render error once, named by its region (React's own report of it is left out: main.tsx). */
export function logViewError(view: string, error: unknown, componentStack: string | null | undefined): void {
  console.error(
    `Atelier: the view "${view}" failed to render and shows the error in its place.`,
    error,
    componentStack ?? "",
  );
  reportUiError(`the view "${view}"`, error, componentStack);
}

/** Noise browsers send as errors, not faults of the app (a layout that settled a frame later). */
function isNoise(message: string): boolean {
  return message.startsWith("ResizeObserver loop");
}

/**
 * Reports errors nothing caught — thrown in an event handler or a timer
 * (`error`), a promise rejected with no handler (`unhandledrejection`) —
 * to the app's log. The browser still prints them in the console. Returns
 * the function that stops listening.
 */
export function reportUncaughtErrors(target: Window = window): () => void {
  const onError = (e: ErrorEvent) => {
    const error: unknown = e.error ?? e.message;
    if (isNoise(errorText(error))) return;
    const where = e.filename ? ` (${e.filename}:${e.lineno}:${e.colno})` : "";
    reportUiError(`an uncaught error${where}`, error);
  };
  const onRejection = (e: PromiseRejectionEvent) => reportUiError("an unhandled promise rejection", e.reason);
  target.addEventListener("error", onError);
  target.addEventListener("unhandledrejection", onRejection);
  return () => {
    target.removeEventListener("error", onError);
    target.removeEventListener("unhandledrejection", onRejection);
  };
}

/** Forgets what was reported (tests). */
export function resetUiErrorReports(): void {
  sent = 0;
  seen = new WeakSet();
}
