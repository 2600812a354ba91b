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

// One set of formatters for every view (building one per call is slow):
// the person's locale, with its 12 or 24 hours.
const TIME = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit" });
const TIME_SECONDS = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit", second: "2-digit" });
const DAY = new Intl.DateTimeFormat(undefined, { month: "short", day: "numeric" });
const DAY_YEAR = new Intl.DateTimeFormat(undefined, { year: "numeric", month: "short", day: "numeric" });

/**
 * When something happened, said the same way in every view: the time
 * ("14:03", or "02:03 PM" where the locale says so), with seconds when
 * `seconds`, after the day when it is not today ("Nov 19 14:03") and the
 * year when it is not this year. `when`: an ISO timestamp or epoch ms.
 */
export function formatTime(when: string | number, { seconds = false, now = new Date() } = {}): string {
  const d = new Date(when);
  if (Number.isNaN(d.getTime())) return typeof when === "string" ? when : "";
  const time = (seconds ? TIME_SECONDS : TIME).format(d);
  if (d.toDateString() === now.toDateString()) return time;
  const day = d.getFullYear() === now.getFullYear() ? DAY : DAY_YEAR;
  return `${day.format(d)} ${time}`;
}

/** The last path segment, for either separator. */
export function baseName(path: string): string {
  const parts = path.split(/[\\/]/).filter((p) => p !== "");
  return parts[parts.length - 1] ?? path;
}
