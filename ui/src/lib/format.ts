import type { Problem } from "../bindings";

/** `1.4 MB`, `312 B`. */
export function formatBytes(n: number): string {
  if (!Number.isFinite(n) || n < 0) return "?";
  if (n < 1024) return `${n} B`;
  const units = ["KB", "MB", "GB", "TB"];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i += 1;
  }
  return `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[i]}`;
}

/**
 * Where and what, as the core prints a problem (`toolset.yaml:14:7
 * tools[1].entrypoint: message`) but without its severity: the list that
 * shows it says Error or Warning in a badge beside it (the core's form,
 * which the CLI prints, has " warning" after the place instead).
 */
export function formatProblem(p: Problem): string {
  // A Python module's syntax error is located in that module.
  let out = p.file ?? "toolset.yaml";
  if (p.line !== null && p.column !== null) out += `:${p.line}:${p.column}`;
  out += p.path === "" ? `: ${p.message}` : ` ${p.path}: ${p.message}`;
  return out;
}

/** `14:03:22` for today, else a short date and time. */
export function formatTime(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const now = new Date();
  const sameDay = d.toDateString() === now.toDateString();
  return sameDay
    ? d.toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit", second: "2-digit" })
    : d.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

/** The last path segment, for either separator. */
export function baseName(path: string): string {
  const parts = path.split(/[\\/]/).filter((p) => p !== "");
  return parts[parts.length - 1] ?? path;
}
