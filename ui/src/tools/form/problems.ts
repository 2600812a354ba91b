// The core's argument problems (validate_tool_args), placed under the fields
// they are about. The words are the core's; this only finds the field.

import { createContext, useContext } from "react";
import type { ArgProblem, JsonValue } from "../../bindings";
import { isObject, type JsonObject } from "../../lib/json";
import { enumOf, fieldType, isPrimitive, itemsOf, propertiesOf } from "./schema";

/** A field's place in the arguments: property names and list indexes. */
export type FieldPath = readonly string[];

export const pathKey = (path: FieldPath): string => path.join("\u0000");

/** Problems by field (`pathKey`). */
export type ProblemMap = ReadonlyMap<string, string[]>;

export const ProblemsContext = createContext<ProblemMap>(new Map());

/** What is wrong with the field at `path`, if the core said so. */
export function useFieldProblems(path: FieldPath): string[] {
  return useContext(ProblemsContext).get(pathKey(path)) ?? [];
}

/** Whether the generated form shows a field at `path` (else its problem is listed apart). */
export function hasField(schema: JsonValue, path: FieldPath): boolean {
  let s: JsonObject = isObject(schema) ? schema : {};
  for (const seg of path) {
    const t = fieldType(s);
    if (t === "object") {
      const next = propertiesOf(s).find(([k]) => k === seg);
      if (next === undefined) return false;
      s = next[1];
    } else if (t === "array") {
      const items = itemsOf(s);
      if (!/^\d+$/.test(seg) || !(isPrimitive(fieldType(items)) || enumOf(items) !== null)) return false;
      s = items;
    } else {
      return false;
    }
  }
  return path.length > 0;
}

/** The problems grouped by the field they are about, and those no field shows. */
export function placeProblems(schema: JsonValue, problems: ArgProblem[]): { byField: ProblemMap; apart: ArgProblem[] } {
  const byField = new Map<string, string[]>();
  const apart: ArgProblem[] = [];
  for (const p of problems) {
    if (!hasField(schema, p.field)) {
      apart.push(p);
      continue;
    }
    const key = pathKey(p.field);
    byField.set(key, [...(byField.get(key) ?? []), p.message]);
  }
  return { byField, apart };
}

/** The value at `path` of the arguments (undefined: absent). */
export function valueAt(args: JsonValue | undefined, path: FieldPath): JsonValue | undefined {
  let v = args;
  for (const seg of path) {
    if (Array.isArray(v)) v = v[Number(seg)];
    else if (isObject(v)) v = v[seg];
    else return undefined;
  }
  return v;
}

/** The problems still standing after an edit: those of a field that changed are dropped until the next check. */
export function stillStanding(problems: ArgProblem[], before: JsonObject, after: JsonObject): ArgProblem[] {
  return problems.filter(
    (p) => p.field.length === 0 || JSON.stringify(valueAt(before, p.field)) === JSON.stringify(valueAt(after, p.field)),
  );
}

/** "email: Must look like name@host" (the arguments as a whole: the message alone). */
export function problemText(p: ArgProblem): string {
  return p.field.length === 0 ? p.message : `${p.field.join(".")}: ${p.message}`;
}
