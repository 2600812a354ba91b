import { useId } from "react";
import type { JsonValue } from "../../bindings";
import { isObject, pretty, str, type JsonObject } from "../../lib/json";
import { ArrayField } from "./ArrayField";
import { enumOf, fieldType, isMultiline, propertiesOf, requiredOf } from "./schema";

export type FieldProps = {
  name: string;
  schema: JsonObject;
  value: JsonValue | undefined;
  onChange: (v: JsonValue | undefined) => void;
  required: boolean;
  /** Inside a list: no label of its own, and empty text stays "". */
  inList?: boolean;
  label?: string;
};

function Label({ id, text, required }: { id: string; text: string; required: boolean }) {
  return (
    <label className="field-label" htmlFor={id}>
      {text}
      {required && (
        <span className="required" title="Required">
          {" *"}
        </span>
      )}
    </label>
  );
}

function Help({ schema }: { schema: JsonObject }) {
  const d = str(schema, "description");
  return d === null ? null : <p className="field-help">{d}</p>;
}

/** The properties of an object schema, each as a field. */
export function ObjectFields({
  schema,
  value,
  onChange,
}: {
  schema: JsonObject;
  value: JsonValue | undefined;
  onChange: (v: JsonObject) => void;
}) {
  const obj = isObject(value) ? value : {};
  const req = requiredOf(schema);
  const props = propertiesOf(schema);
  if (props.length === 0) return <p className="muted small">No fields: edit this value in the Raw JSON tab.</p>;
  return (
    <>
      {props.map(([key, ps]) => (
        <SchemaField
          key={key}
          name={key}
          schema={ps}
          required={req.has(key)}
          value={obj[key]}
          onChange={(v) => {
            const next: JsonObject = { ...obj };
            if (v === undefined) delete next[key];
            else next[key] = v;
            onChange(next);
          }}
        />
      ))}
    </>
  );
}

export function SchemaField(props: FieldProps) {
  const { name, schema, value, onChange, required, inList = false } = props;
  const id = useId();
  const t = fieldType(schema);
  const e = enumOf(schema);
  const text = props.label ?? str(schema, "title") ?? name;
  const aria = inList ? { "aria-label": text } : {};

  if (t === "object") {
    return (
      <fieldset className="field field-object">
        <legend className="field-label">
          {text}
          {required && <span className="required">{" *"}</span>}
        </legend>
        <Help schema={schema} />
        <ObjectFields schema={schema} value={value} onChange={onChange} />
      </fieldset>
    );
  }
  if (t === "array") {
    return <ArrayField {...props} label={text} />;
  }

  let input;
  if (e !== null) {
    const index = value === undefined ? -1 : e.findIndex((x) => JSON.stringify(x) === JSON.stringify(value));
    input = (
      <select
        id={id}
        className="input"
        value={String(index)}
        aria-required={required}
        {...aria}
        onChange={(ev) => onChange(ev.target.value === "-1" ? undefined : e[Number(ev.target.value)])}
      >
        {(!required || index === -1) && <option value="-1">— choose —</option>}
        {e.map((opt, i) => (
          <option key={i} value={String(i)}>
            {typeof opt === "string" ? opt : JSON.stringify(opt)}
          </option>
        ))}
      </select>
    );
  } else if (t === "boolean") {
    return (
      <div className="field field-checkbox">
        <input
          id={id}
          type="checkbox"
          checked={value === true}
          {...aria}
          onChange={(ev) => onChange(ev.target.checked)}
        />
        {!inList && <Label id={id} text={text} required={required} />}
        <Help schema={schema} />
      </div>
    );
  } else if (t === "number" || t === "integer") {
    input = (
      <input
        id={id}
        className="input"
        type="number"
        step={t === "integer" ? 1 : "any"}
        min={typeof schema.minimum === "number" ? schema.minimum : undefined}
        max={typeof schema.maximum === "number" ? schema.maximum : undefined}
        value={typeof value === "number" ? String(value) : ""}
        aria-required={required}
        {...aria}
        onChange={(ev) => {
          const raw = ev.target.value;
          if (raw === "") onChange(inList ? 0 : undefined);
          else if (Number.isFinite(Number(raw))) onChange(Number(raw));
        }}
      />
    );
  } else if (t === "string") {
    const common = {
      id,
      className: "input",
      value: typeof value === "string" ? value : "",
      placeholder: typeof schema.default === "string" ? schema.default : undefined,
      "aria-required": required,
      ...aria,
      onChange: (ev: { target: { value: string } }) =>
        onChange(ev.target.value === "" && !inList ? undefined : ev.target.value),
    };
    input = isMultiline(name, schema) ? (
      <textarea rows={6} {...common} className="input mono" />
    ) : (
      <input type="text" {...common} />
    );
  } else {
    input = (
      <p className="muted small" id={id}>
        Edit this value in the Raw JSON tab{value !== undefined ? `: ${pretty(value)}` : "."}
      </p>
    );
  }

  if (inList) return input;
  return (
    <div className="field">
      <Label id={id} text={text} required={required} />
      <Help schema={schema} />
      {input}
    </div>
  );
}
