// A toolset's settings form as typed, and what it asks the core to change.
// The core checks every value (types, ranges, paths, sensitive ones never as
// plain values); this only shapes what the person typed into its arguments.
import { isIpcError } from "../../api";
import type { ConfigField, JsonValue } from "../../bindings";

/** What the person typed or chose for one setting. */
export type FieldDraft =
  /** A string, a number (as typed), or one path. */
  | { kind: "text"; text: string }
  | { kind: "flag"; on: boolean }
  /** Several folders or files (`multiple`). */
  | { kind: "paths"; paths: string[] }
  /** A sensitive value: typed anew (never shown), or the stored one cleared. */
  | { kind: "secret"; text: string; clear: boolean };

export type Draft = Record<string, FieldDraft>;

/** How a field is marked. */
export type FieldState = {
  /** The core refused its value (its key is in the refusal). */
  invalid: boolean;
  /** Required and without a value. */
  missing: boolean;
};

/** What a save or an install sends: plain values, sensitive ones, keys to remove. */
export type ConfigChanges = {
  values: Record<string, JsonValue>;
  secrets: Record<string, string>;
  unset: string[];
};

const isPath = (f: ConfigField) => f.type === "directory" || f.type === "file";

/** The form's first state: the value in use (the person's or the default); sensitive ones empty. */
export function fieldDraft(f: ConfigField): FieldDraft {
  const v = f.value as JsonValue | null | undefined;
  if (f.sensitive === true) return { kind: "secret", text: "", clear: false };
  if (f.type === "boolean") return { kind: "flag", on: v === true };
  if (isPath(f) && f.multiple === true) {
    const paths = Array.isArray(v) ? v.filter((p): p is string => typeof p === "string") : [];
    return { kind: "paths", paths: typeof v === "string" ? [v] : paths };
  }
  return { kind: "text", text: v === null || v === undefined ? "" : typeof v === "string" ? v : JSON.stringify(v) };
}

export function initialDraft(fields: ConfigField[]): Draft {
  return Object.fromEntries(fields.map((f) => [f.key, fieldDraft(f)]));
}

function isEmpty(d: FieldDraft): boolean {
  switch (d.kind) {
    case "text":
    case "secret":
      return d.text.trim() === "";
    case "flag":
      return false;
    case "paths":
      return d.paths.every((p) => p.trim() === "");
  }
}

/** Whether a setting will have a value (a sensitive one kept in the store counts). */
export function hasValue(f: ConfigField, d: FieldDraft | undefined): boolean {
  if (d === undefined) return false;
  if (d.kind === "secret") return !isEmpty(d) || (f.is_set && !d.clear);
  return !isEmpty(d);
}

/** Required settings the form leaves without a value. */
export function unfilled(fields: ConfigField[], draft: Draft): ConfigField[] {
  return fields.filter((f) => f.required === true && !hasValue(f, draft[f.key]));
}

/** A plain value as the core takes it: a typed number as a number (text it cannot read stays text, for the core to name). */
function valueOf(f: ConfigField, d: FieldDraft): JsonValue {
  switch (d.kind) {
    case "flag":
      return d.on;
    case "paths":
      return d.paths.map((p) => p.trim()).filter((p) => p !== "");
    case "secret":
      return d.text;
    case "text": {
      const t = d.text.trim();
      if (f.type === "number") return t !== "" && Number.isFinite(Number(t)) ? Number(t) : t;
      return isPath(f) ? t : d.text;
    }
  }
}

const same = (f: ConfigField, a: FieldDraft, b: FieldDraft) =>
  JSON.stringify(valueOf(f, a)) === JSON.stringify(valueOf(f, b));

/**
 * What the form changes. Values left as they were are not sent (a default
 * stays a default); a required setting with no value yet is sent as shown
 * (an unchecked box is an answer). On an install nothing is removed; in the
 * settings of an installed toolset an emptied value is.
 */
export function changes(
  fields: ConfigField[],
  draft: Draft,
  missing: string[],
  mode: "install" | "edit",
): ConfigChanges {
  const out: ConfigChanges = { values: {}, secrets: {}, unset: [] };
  for (const f of fields) {
    const d = draft[f.key];
    if (d === undefined) continue;
    if (d.kind === "secret") {
      if (!isEmpty(d)) out.secrets[f.key] = d.text;
      else if (mode === "edit" && d.clear && f.is_set) out.unset.push(f.key);
      continue;
    }
    const changed = !same(f, d, fieldDraft(f)) || missing.includes(f.key);
    if (!changed) continue;
    if (!isEmpty(d)) out.values[f.key] = valueOf(f, d);
    else if (mode === "edit" && f.is_set) out.unset.push(f.key);
  }
  return out;
}

export const noChanges = (c: ConfigChanges) =>
  Object.keys(c.values).length === 0 && Object.keys(c.secrets).length === 0 && c.unset.length === 0;

/** The settings a refusal of the core names (`config_invalid`, `config_missing`): each key is quoted in its message. */
export function keysNamedBy(error: unknown, fields: ConfigField[]): string[] {
  if (!isIpcError(error) || (error.kind !== "config_invalid" && error.kind !== "config_missing")) return [];
  return fields.map((f) => f.key).filter((k) => error.message.includes(JSON.stringify(k)));
}
