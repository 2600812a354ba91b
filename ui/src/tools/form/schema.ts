// A small, eval-free reading of JSON Schema for generating forms. Validation
// is the core's (validate_tool_args); this only decides which input to show.

import type { JsonValue } from "../../bindings";
import { isObject, type JsonObject } from "../../lib/json";

export type FieldType = "string" | "number" | "integer" | "boolean" | "array" | "object" | "null";

const TYPES: readonly FieldType[] = ["string", "number", "integer", "boolean", "array", "object", "null"];

function isFieldType(v: JsonValue | undefined): v is FieldType {
  return typeof v === "string" && (TYPES as readonly string[]).includes(v);
}

function jsonType(v: JsonValue): FieldType {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "object") return "object";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  return typeof v === "boolean" ? "boolean" : "string";
}

/** The type a field edits: `type` (first non-null of a list), else guessed. */
export function fieldType(s: JsonObject): FieldType | null {
  const t = s.type;
  if (isFieldType(t)) return t;
  if (Array.isArray(t)) {
    const first = t.find((x) => isFieldType(x) && x !== "null") ?? t.find(isFieldType);
    if (isFieldType(first)) return first;
  }
  const e = s.enum;
  if (Array.isArray(e) && e.length > 0 && e[0] !== undefined) return jsonType(e[0]);
  if (isObject(s.properties)) return "object";
  if (s.items !== undefined) return "array";
  return null;
}

export function enumOf(s: JsonObject): JsonValue[] | null {
  return Array.isArray(s.enum) && s.enum.length > 0 ? s.enum : null;
}

export function propertiesOf(s: JsonObject): Array<[string, JsonObject]> {
  if (!isObject(s.properties)) return [];
  return Object.entries(s.properties).map(([k, v]) => [k, isObject(v) ? v : {}]);
}

export function requiredOf(s: JsonObject): Set<string> {
  return new Set(Array.isArray(s.required) ? s.required.filter((x): x is string => typeof x === "string") : []);
}

export function itemsOf(s: JsonObject): JsonObject {
  return isObject(s.items) ? s.items : {};
}

export function isPrimitive(t: FieldType | null): boolean {
  return t === "string" || t === "number" || t === "integer" || t === "boolean";
}

const MULTILINE_NAMES = /^(content|code|text|body|source|script|markdown|html|css|query|prompt|message|template)$/i;

/** Long text gets a text area. */
export function isMultiline(name: string, s: JsonObject): boolean {
  if (s.format === "textarea" || typeof s.contentMediaType === "string") return true;
  if (typeof s.maxLength === "number" && s.maxLength > 200) return true;
  return MULTILINE_NAMES.test(name);
}

/** A fresh value for a list entry. */
export function blankValue(t: FieldType | null): JsonValue {
  switch (t) {
    case "number":
    case "integer":
      return 0;
    case "boolean":
      return false;
    case "array":
      return [];
    case "object":
      return {};
    case "null":
      return null;
    default:
      return "";
  }
}

/**
 * The starting value of a field: its `default`; for objects, the starting
 * values of their properties; required booleans are false and required enums
 * start at their first value. `undefined` means "leave it out".
 */
export function initialValue(s: JsonObject, required: boolean): JsonValue | undefined {
  if (s.default !== undefined) return s.default;
  const t = fieldType(s);
  const e = enumOf(s);
  if (required && e !== null) return e[0];
  if (t === "boolean" && required) return false;
  if (t === "object") {
    const req = requiredOf(s);
    const out: JsonObject = {};
    for (const [k, ps] of propertiesOf(s)) {
      const v = initialValue(ps, req.has(k));
      if (v !== undefined) out[k] = v;
    }
    return Object.keys(out).length > 0 || required ? out : undefined;
  }
  return undefined;
}

/** The starting arguments of a tool. */
export function initialArgs(schema: JsonValue): JsonObject {
  const v = initialValue(isObject(schema) ? schema : {}, true);
  return isObject(v) ? v : {};
}

/** Whether the generated form can edit this schema at all. */
export function formSupported(schema: JsonValue): boolean {
  return isObject(schema) && fieldType(schema) === "object";
}
