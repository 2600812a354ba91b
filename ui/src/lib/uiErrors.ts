// Where the UI logs its own errors (a view that failed to render). The
// shell has no command that takes a line from the UI into its log, so
// this is the webview's console (the developer tools; `npm run dev`'s
// terminal shows none of it) — the one place to change when it has.

/** Logs a view's render error once, named by its region (React's own report of it is left out: main.tsx). */
export function logViewError(view: string, error: unknown, componentStack: string | null | undefined): void {
  console.error(
    `Atelier: the view "${view}" failed to render and shows the error in its place.`,
    error,
    componentStack ?? "",
  );
}
