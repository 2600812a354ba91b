import type { ReactNode } from "react";
import type { JsonValue } from "../../bindings";
import { pretty } from "../../lib/json";
import { blankValue, enumOf, fieldType, isPrimitive, itemsOf } from "./schema";
import { SchemaField, type FieldProps } from "./SchemaField";

/** A list of primitive values; lists of objects are edited as raw JSON. */
export function ArrayField({
  name,
  schema,
  value,
  onChange,
  required,
  label,
  path,
  problems,
  invalid,
}: FieldProps & { problems: ReactNode; invalid: Record<string, unknown> }) {
  const items = itemsOf(schema);
  const itemType = fieldType(items);
  const list: JsonValue[] = Array.isArray(value) ? value : [];
  const text = label ?? name;
  const editable = isPrimitive(itemType) || enumOf(items) !== null;
  const set = (next: JsonValue[]) => onChange(next.length === 0 && !required ? undefined : next);

  return (
    <fieldset
      className={"aria-invalid" in invalid ? "field field-array field-invalid" : "field field-array"}
      {...invalid}
    >
      <legend className="field-label">
        {text}
        {required && <span className="required">{" *"}</span>}
      </legend>
      {typeof schema.description === "string" && <p className="field-help">{schema.description}</p>}
      {problems}
      {!editable ? (
        <p className="muted small">Edit this list in the Raw JSON tab{list.length > 0 ? `: ${pretty(list)}` : "."}</p>
      ) : (
        <>
          {list.length === 0 && <p className="muted small">Empty list.</p>}
          <ol className="array-items">
            {list.map((item, i) => (
              <li key={i} className="array-item">
                <SchemaField
                  name={name}
                  path={[...path, String(i)]}
                  label={`${text} item ${i + 1}`}
                  schema={items}
                  required
                  inList
                  value={item}
                  onChange={(v) => set(list.map((x, j) => (j === i ? (v ?? blankValue(itemType)) : x)))}
                />
                <button
                  type="button"
                  className="btn btn-small btn-ghost"
                  aria-label={`Remove ${text} item ${i + 1}`}
                  onClick={() => set(list.filter((_, j) => j !== i))}
                >
                  ✕
                </button>
              </li>
            ))}
          </ol>
          <button type="button" className="btn btn-small" onClick={() => set([...list, blankValue(itemType)])}>
            Add {text} item
          </button>
        </>
      )}
    </fieldset>
  );
}
