import { useEffect, useRef, useState, type FormEvent } from "react";
import { useShortcut } from "../lib/shortcuts";
import { api } from "../api";
import type { ArgProblem, ToolCallRecord, ToolRecord } from "../bindings";
import { usePosition } from "../calls/position";
import { useRuns } from "../calls/runs";
import { ErrorBox } from "../components/feedback";
import type { JsonObject } from "../lib/json";
import { initialArgs } from "./form/schema";
import { stillStanding } from "./form/problems";
import { startForm, ToolForm, type FormState } from "./form/ToolForm";
import { ConfirmationPolicy } from "./ConfirmationPolicy";
import { ToolBadges } from "./ToolBadges";

type Stage = "idle" | "validating" | "running";

/**
 * A chosen tool: its form, and Run. The call itself shows as a live card at
 * the end of the branch (approval, elapsed time, output, Cancel).
 */
export function ToolRunner({
  tool,
  chatId,
  ensureChat,
  onCall,
  prefill = null,
}: {
  tool: ToolRecord;
  /** The chat shown now: a run's error and progress are said only in its own chat. */
  chatId: string | null;
  ensureChat: () => Promise<string>;
  onCall: (call: ToolCallRecord) => void;
  /** Arguments of an earlier call to start from ("Run again…"). */
  prefill?: JsonObject | null;
}) {
  const [form, setForm] = useState<FormState>(() =>
    startForm(prefill ?? initialArgs(tool.input_schema), tool.input_schema),
  );
  const [stage, setStage] = useState<Stage>("idle");
  // The core's check of the arguments: shown under the fields, dropped for a
  // field as it changes, and checked again as the person fixes them.
  const [problems, setProblems] = useState<ArgProblem[]>([]);
  const [recheck, setRecheck] = useState(false);
  const [focusSeq, setFocusSeq] = useState(0);
  // The chat a check or run (and so its error) belongs to: another chat's
  // is never said here.
  const [runChat, setRunChat] = useState<string | null>(null);
  const [failure, setError] = useState<{ chat: string | null; error: unknown } | null>(null);
  const error = failure !== null && failure.chat === chatId ? failure.error : null;
  const elsewhere = runChat !== chatId;
  const runs = useRuns();
  // Gone back to an older step: the run starts a new branch there.
  const position = usePosition();
  const behind = position?.behind === true;
  // This form's call, while it is in progress (the newest of its tool).
  const mine =
    stage === "running" ? runs.live.filter((l) => l.toolId === tool.tool_id && l.chatId === runChat).at(-1) : undefined;

  const run = async () => {
    setStage("running");
    let chat = chatId;
    try {
      chat = await ensureChat();
      setRunChat(chat);
      onCall(await runs.start(chat, tool.tool_id, form.args));
    } catch (e) {
      setError({ chat, error: e });
    } finally {
      setStage("idle");
    }
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (form.rawError !== null) return;
    setError(null);
    setRunChat(chatId);
    setStage("validating");
    let found: ArgProblem[];
    try {
      found = await api.validateToolArgs(tool.tool_id, form.args);
    } catch (err) {
      setError({ chat: chatId, error: err });
      setStage("idle");
      return;
    }
    setProblems(found);
    if (found.length > 0) {
      setRecheck(true);
      setFocusSeq((n) => n + 1);
      setStage("idle");
    } else {
      setRecheck(false);
      await run();
    }
  };

  const busy = stage === "validating" || stage === "running";

  // A field changed: its problem goes at once; after a failed Run the core
  // checks again (the newest answer wins), so fixed fields clear and the
  // rest stay.
  const checkSeq = useRef(0);
  const edit = (next: FormState) => {
    setForm(next);
    setProblems((ps) => stillStanding(ps, form.args, next.args));
  };
  useEffect(() => {
    if (!recheck || form.rawError !== null) return;
    const mine = ++checkSeq.current;
    const timer = setTimeout(() => {
      api.validateToolArgs(tool.tool_id, form.args).then(
        (found) => {
          if (checkSeq.current === mine) setProblems(found);
        },
        () => undefined, // Run checks again and says why
      );
    }, 300);
    return () => clearTimeout(timer);
  }, [recheck, form.args, form.rawError, tool.tool_id]);
  // After a failed check: the first field with a problem, outlined, gets the cursor.
  useEffect(() => {
    if (focusSeq === 0) return;
    const root = formRef.current;
    const first = root?.querySelector<HTMLElement>('[aria-invalid="true"]');
    const target =
      first instanceof HTMLFieldSetElement
        ? first.querySelector<HTMLElement>("input, select, textarea, button")
        : (first ?? root?.querySelector<HTMLElement>(".raw-json"));
    if (target == null) return;
    target.focus();
    if (typeof target.scrollIntoView === "function") target.scrollIntoView({ block: "center", behavior: "smooth" });
  }, [focusSeq]);
  const formRef = useRef<HTMLFormElement>(null);
  const prefilled = prefill !== null;
  useEffect(() => {
    // "Run again…" was clicked further down: bring the form into view.
    const form = formRef.current;
    if (prefilled && form !== null && typeof form.scrollIntoView === "function") {
      form.scrollIntoView({ behavior: "smooth", block: "nearest" });
    }
  }, [prefilled]);
  useShortcut("run-tool", () => {
    if (!busy) formRef.current?.requestSubmit();
  });
  return (
    <form
      ref={formRef}
      className="panel tool-runner"
      onSubmit={(e) => void submit(e)}
      noValidate
      aria-label={`Run ${tool.name}`}
    >
      <header className="panel-header">
        <div>
          <h2 className="panel-title">
            {tool.name} <ToolBadges tool={tool} />
          </h2>
          <p className="muted small">
            <code>{tool.tool_id}</code>
            {tool.description !== "" && ` · ${tool.description}`}
          </p>
          <ConfirmationPolicy key={tool.tool_id} tool={tool} />
        </div>
      </header>
      <ToolForm schema={tool.input_schema} state={form} onChange={edit} problems={problems} />
      {error !== null && <ErrorBox error={error} title="The tool did not run." onDismiss={() => setError(null)} />}
      <div className="panel-actions">
        <button type="submit" className="btn btn-primary" disabled={busy || form.rawError !== null}>
          {busy && elsewhere
            ? "Running in another chat…"
            : stage === "validating"
              ? "Checking…"
              : stage === "running"
                ? "Running…"
                : behind
                  ? "Run as a new branch"
                  : "Run"}
        </button>
        {behind && position !== null && stage === "idle" && (
          <span className="muted small run-branch-note">
            from {position.step === 0 ? "the start" : `step ${position.step}`}: steps {position.step + 1}–
            {position.total} stay on the branch you left
          </span>
        )}
      </div>
      {problems.length > 0 && stage === "idle" && (
        <p className="field-error" role="alert">
          {problems.length === 1 ? "One argument needs fixing" : `${problems.length} arguments need fixing`}{" "}
          {form.tab === "form" ? "(marked above)" : "(listed above)"} before the tool can run.
        </p>
      )}
      {stage === "running" && !elsewhere && (
        <p className="muted small" aria-live="polite">
          {mine?.awaiting === true || (mine?.callId == null && tool.requires_confirmation)
            ? "Waiting for your approval in the call below."
            : "Running: follow it in the call below."}
        </p>
      )}
    </form>
  );
}
