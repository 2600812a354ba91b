// A number field that keeps what the person typed: "1." stays while "1.5"
// is being typed, and "abc" stays too — sent as the text it is (so the Raw
// JSON tab and the core see it) and said under the field, never dropped.

import { useState, type InputHTMLAttributes } from "react";
import type { JsonValue } from "../../bindings";
import type { JsonObject } from "../../lib/json";

const NUMBER = /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/;

/** The value a text stands for: a number when it reads as one, else the text itself ("" → left out). */
function parse(text: string, inList: boolean): JsonValue | undefined {
  if (text.trim() === "") return inList ? 0 : undefined;
  return NUMBER.test(text) ? Number(text) : text;
}

function show(value: JsonValue | undefined): string {
  if (value === undefined || value === null) return "";
  return typeof value === "string" ? value : typeof value === "number" ? String(value) : JSON.stringify(value);
}

/** What is wrong with a number field's value as the form holds it, said at once. */
export function numberProblem(value: JsonValue | undefined, t: "number" | "integer"): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== "number") return `${JSON.stringify(value)} is not a number`;
  if (t === "integer" && !Number.isInteger(value)) return `Must be a whole number, not ${value}`;
  return null;
}

export function NumberInput({
  id,
  integer,
  schema,
  value,
  inList,
  onChange,
  attrs,
}: {
  id: string;
  integer: boolean;
  schema: JsonObject;
  value: JsonValue | undefined;
  inList: boolean;
  onChange: (v: JsonValue | undefined) => void;
  attrs: InputHTMLAttributes<HTMLInputElement> & Record<string, unknown>;
}) {
  const [text, setText] = useState(() => show(value));
  // The value changed elsewhere (the Raw JSON tab, Run again…): show it.
  const same = JSON.stringify(parse(text, inList) ?? null) === JSON.stringify(value ?? null) || (inList && text === "");
  if (!same && text !== show(value)) setText(show(value));
  const d = schema.default;
  return (
    <input
      id={id}
      className="input"
      type="text"
      inputMode={integer ? "numeric" : "decimal"}
      value={text}
      placeholder={typeof d === "number" ? `${d} (the default)` : undefined}
      {...attrs}
      onChange={(ev) => {
        setText(ev.target.value);
        onChange(parse(ev.target.value, inList));
      }}
    />
  );
}
