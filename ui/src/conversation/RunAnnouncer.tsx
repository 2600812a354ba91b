// What a screen reader hears of a chat's run, politely: that an answer is
// on its way, that a tool waits for the person's approval, and the answer
// once it is whole — never each token as it streams (the answer's own
// article is aria-busy while it grows). A failure is not said here: its
// box is an alert of its own.

import { useState } from "react";
import type { Message } from "../bindings";
import { useRun, type RunState } from "./runStore";

/** The text of a saved answer, its parts joined. */
function answerText(m: Message): string {
  return m.content
    .flatMap((p) => (p.type === "text" ? [p.text] : []))
    .join("\n")
    .trim();
}

/** The sentence for the run as it stands now; null: nothing new to say. */
export function announcement(run: RunState | null): string | null {
  if (run === null) return null;
  if (run.phase !== "done") {
    const waiting = run.tools.find((t) => t.awaiting);
    if (waiting !== undefined) return `${waiting.name} waits for your approval.`;
    return run.phase === "stopping" ? "Stopping…" : "Answering…";
  }
  if (run.outcome === null) return null;
  const last = run.saved.filter((m) => m.role === "assistant" && answerText(m) !== "").at(-1);
  switch (run.outcome.status) {
    case "complete":
      return last === undefined ? "The answer is done." : `Answer: ${answerText(last)}`;
    case "stopped":
      return "Stopped.";
    case "step_limit":
      return "The run stopped at its step limit.";
    case "failed":
      return null;
  }
}

/** A polite live region for one chat's run; always in the page, so its changes are heard. */
export function RunAnnouncer({ chatId }: { chatId: string | null }) {
  const run = useRun(chatId);
  const now = announcement(run);
  // The last thing said stays (a cleared run takes nothing back); another
  // chat starts silent.
  const [said, setSaid] = useState<{ chatId: string | null; text: string }>({ chatId, text: "" });
  if (said.chatId !== chatId) setSaid({ chatId, text: "" });
  else if (now !== null && now !== said.text) setSaid({ chatId, text: now });
  return (
    <div className="visually-hidden" role="status" aria-live="polite" aria-atomic="true" data-testid="run-announcer">
      {said.text}
    </div>
  );
}
