import { useMemo } from "react";
import type { ArgProblem, JsonValue } from "../../bindings";
import { onTablistKeys } from "../../lib/focus";
import { isObject, pretty, type JsonObject } from "../../lib/json";
import { placeProblems, problemText, ProblemsContext } from "./problems";
import { formSupported } from "./schema";
import { ObjectFields } from "./SchemaField";

export type FormTab = "form" | "raw";

export type FormState = {
  tab: FormTab;
  args: JsonObject;
  /** The raw tab's text while it is being edited. */
  rawText: string;
  /** Why rawText is not a JSON object, if it is not. */
  rawError: string | null;
};

export function startForm(args: JsonObject, schema: JsonValue): FormState {
  return { tab: formSupported(schema) ? "form" : "raw", args, rawText: pretty(args), rawError: null };
}

export function parseRaw(text: string): { args: JsonObject } | { error: string } {
  try {
    const v = JSON.parse(text) as JsonValue;
    return isObject(v) ? { args: v } : { error: "The arguments must be a JSON object: { … }." };
  } catch (e) {
    return { error: `Not valid JSON: ${e instanceof Error ? e.message : String(e)}` };
  }
}

/** Problems as a list in words ("email: Must look like name@host"). */
function ProblemList({ problems, label }: { problems: ArgProblem[]; label: string }) {
  if (problems.length === 0) return null;
  return (
    <ul className="form-problems" aria-label={label}>
      {problems.map((p) => (
        <li key={problemText(p)}>{problemText(p)}</li>
      ))}
    </ul>
  );
}

/**
 * The arguments of a tool: a form generated from its schema, or raw JSON.
 * `problems` (the core's check) show under their fields; those no field
 * shows (an argument the schema does not have) are listed under the form.
 */
export function ToolForm({
  schema,
  state,
  onChange,
  problems = [],
}: {
  schema: JsonValue;
  state: FormState;
  onChange: (s: FormState) => void;
  problems?: ArgProblem[];
}) {
  const canForm = formSupported(schema);
  const placed = useMemo(() => placeProblems(schema, problems), [schema, problems]);
  const switchTo = (tab: FormTab) => {
    if (tab === state.tab) return;
    if (tab === "raw") onChange({ ...state, tab, rawText: pretty(state.args), rawError: null });
    else if (state.rawError === null) onChange({ ...state, tab });
  };

  return (
    <div className="tool-form">
      <div className="segmented" role="tablist" aria-label="Arguments editor" onKeyDown={onTablistKeys}>
        <button
          type="button"
          role="tab"
          aria-selected={state.tab === "form"}
          tabIndex={state.tab === "form" ? 0 : -1}
          disabled={!canForm || (state.tab === "raw" && state.rawError !== null)}
          title={!canForm ? "This tool's schema is not an object: use raw JSON" : undefined}
          onClick={() => switchTo("form")}
        >
          Form
        </button>
        <button
          type="button"
          role="tab"
          aria-selected={state.tab === "raw"}
          tabIndex={state.tab === "raw" ? 0 : -1}
          onClick={() => switchTo("raw")}
        >
          Raw JSON
        </button>
      </div>
      {state.tab === "form" && isObject(schema) ? (
        <div className="form-fields">
          <ProblemsContext.Provider value={placed.byField}>
            <ObjectFields
              schema={schema}
              value={state.args}
              path={[]}
              onChange={(args) => onChange({ ...state, args })}
            />
          </ProblemsContext.Provider>
          <ProblemList problems={placed.apart} label="Other argument problems" />
        </div>
      ) : (
        <div className="field">
          <textarea
            className="input mono raw-json"
            aria-label="Arguments as JSON"
            spellCheck={false}
            rows={10}
            value={state.rawText}
            onChange={(e) => {
              const rawText = e.target.value;
              const parsed = parseRaw(rawText);
              onChange(
                "args" in parsed
                  ? { ...state, rawText, rawError: null, args: parsed.args }
                  : { ...state, rawText, rawError: parsed.error },
              );
            }}
          />
          {state.rawError !== null && (
            <p className="field-error" role="alert">
              {state.rawError}
            </p>
          )}
          {state.rawError === null && <ProblemList problems={problems} label="Argument problems" />}
        </div>
      )}
    </div>
  );
}
