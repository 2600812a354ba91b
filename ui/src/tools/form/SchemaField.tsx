import { useId, type ReactNode } from "react";
import type { JsonValue } from "../../bindings";
import { isObject, pretty, str, type JsonObject } from "../../lib/json";
import { ArrayField } from "./ArrayField";
import { NumberInput, numberProblem } from "./NumberInput";
import { useFieldProblems, type FieldPath } from "./problems";
import { enumOf, fieldType, isMultiline, propertiesOf, requiredOf } from "./schema";

export type FieldProps = {
  name: string;
  schema: JsonObject;
  value: JsonValue | undefined;
  onChange: (v: JsonValue | undefined) => void;
  required: boolean;
  /** Where the field is in the arguments (its problems are found by it). */
  path: FieldPath;
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

/** What is wrong with a field, under it, in words (`id`: what the input is described by). */
export function FieldErrors({ id, messages }: { id: string; messages: string[] }) {
  if (messages.length === 0) return null;
  return (
    <p className="field-error" id={id}>
      {messages.join(". ")}
    </p>
  );
}

/** The default a field left empty gets, said as plainly as a value. */
function DefaultNote({ schema, value }: { schema: JsonObject; value: JsonValue | undefined }) {
  if (value !== undefined || schema.default === undefined) return null;
  const d = schema.default;
  const shown = typeof d === "string" ? `“${d}”` : typeof d === "boolean" ? (d ? "on" : "off") : JSON.stringify(d);
  return <p className="field-default small">Left empty: the tool uses its default, {shown}.</p>;
}

/** The properties of an object schema, each as a field. */
export function ObjectFields({
  schema,
  value,
  onChange,
  path,
}: {
  schema: JsonObject;
  value: JsonValue | undefined;
  onChange: (v: JsonObject) => void;
  path: FieldPath;
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
          path={[...path, key]}
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
  const { name, schema, value, onChange, required, path, inList = false } = props;
  const id = useId();
  const errorId = `${id}-error`;
  const t = fieldType(schema);
  const e = enumOf(schema);
  const text = props.label ?? str(schema, "title") ?? name;
  const aria = inList ? { "aria-label": text } : {};
  const fromCore = useFieldProblems(path);
  // A value the input cannot show as its type ("abc" in a number field) is
  // said at once; the core's words come with the next check.
  const local =
    t === "number" || t === "integer"
      ? numberProblem(value, t)
      : t === "boolean" && value !== undefined && typeof value !== "boolean"
        ? `${JSON.stringify(value)} is not true or false: tick or untick the box to set it`
        : null;
  const messages = local !== null ? [local] : fromCore;
  const invalid = messages.length > 0;
  const errs = invalid ? { "aria-invalid": true, "aria-describedby": errorId } : {};
  const errors = <FieldErrors id={errorId} messages={messages} />;

  if (t === "object") {
    return (
      <fieldset className={invalid ? "field field-object field-invalid" : "field field-object"} {...errs}>
        <legend className="field-label">
          {text}
          {required && <span className="required">{" *"}</span>}
        </legend>
        <Help schema={schema} />
        {errors}
        <ObjectFields schema={schema} value={value} onChange={onChange} path={path} />
      </fieldset>
    );
  }
  if (t === "array") {
    return (
      <ArrayField
        {...props}
        label={text}
        problems={<FieldErrors id={errorId} messages={fromCore} />}
        invalid={fromCore.length > 0 ? { "aria-invalid": true, "aria-describedby": errorId } : {}}
      />
    );
  }

  let input: ReactNode;
  if (e !== null) {
    const index = value === undefined ? -1 : e.findIndex((x) => JSON.stringify(x) === JSON.stringify(value));
    const d = schema.default;
    const shownDefault = value === undefined && d !== undefined ? (typeof d === "string" ? d : pretty(d)) : null;
    input = (
      <select
        id={id}
        className="input"
        value={String(index)}
        aria-required={required}
        {...aria}
        {...errs}
        onChange={(ev) => onChange(ev.target.value === "-1" ? undefined : e[Number(ev.target.value)])}
      >
        {(!required || index === -1) && (
          <option value="-1">{shownDefault !== null ? `— the default: ${shownDefault} —` : "— choose —"}</option>
        )}
        {e.map((opt, i) => (
          <option key={i} value={String(i)}>
            {typeof opt === "string" ? opt : JSON.stringify(opt)}
          </option>
        ))}
      </select>
    );
  } else if (t === "boolean") {
    // Left out, the tool uses its default: the box shows that value.
    const checked = value === undefined ? schema.default === true : value === true;
    return (
      <div className={invalid ? "field field-checkbox field-invalid" : "field field-checkbox"}>
        <input
          id={id}
          type="checkbox"
          checked={checked}
          {...aria}
          {...errs}
          onChange={(ev) => onChange(ev.target.checked)}
        />
        {!inList && <Label id={id} text={text} required={required} />}
        {value === undefined && typeof schema.default === "boolean" && (
          <span className="field-default small">(the default)</span>
        )}
        <Help schema={schema} />
        {errors}
      </div>
    );
  } else if (t === "number" || t === "integer") {
    input = (
      <NumberInput
        id={id}
        integer={t === "integer"}
        schema={schema}
        value={value}
        inList={inList}
        onChange={onChange}
        attrs={{ "aria-required": required, ...aria, ...errs }}
      />
    );
  } else if (t === "string") {
    const common = {
      id,
      className: "input",
      value: typeof value === "string" ? value : "",
      placeholder: typeof schema.default === "string" ? `${schema.default} (the default)` : undefined,
      "aria-required": required,
      ...aria,
      ...errs,
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

  if (inList)
    return (
      <div className="array-item-input">
        {input}
        {errors}
      </div>
    );
  return (
    <div className={invalid ? "field field-invalid" : "field"}>
      <Label id={id} text={text} required={required} />
      <Help schema={schema} />
      {input}
      {errors}
      {e === null && <DefaultNote schema={schema} value={value} />}
    </div>
  );
}
