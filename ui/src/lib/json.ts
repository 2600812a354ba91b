import type { JsonValue } from "../bindings";

export type JsonObject = { [key: string]: JsonValue };

export function isObject(v: JsonValue | undefined): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export function asObject(v: JsonValue | undefined): JsonObject {
  return isObject(v) ? v : {};
}

export function str(obj: JsonObject, key: string): string | null {
  const v = obj[key];
  return typeof v === "string" ? v : null;
}

export function bool(obj: JsonObject, key: string): boolean {
  return obj[key] === true;
}

export function pretty(v: JsonValue | undefined): string {
  return JSON.stringify(v ?? null, null, 2);
}
