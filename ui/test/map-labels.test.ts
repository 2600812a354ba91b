// The conversation map's words for each node (mapLabels, pure).
import { describe, expect, it } from "vitest";
import type { MessageNode } from "../src/bindings";
import { call, node } from "./fixtures";

describe("map labels", () => {
  it("cut the drawn words after a whole word, so they start the node's name", async () => {
    const { fit } = await import("../src/chats/mapLabels");
    expect(fit("Summarize sales.csv per region", 26)).toBe("Summarize sales.csv per …");
    expect(fit("Summarize sales.csv per region", 40)).toBe("Summarize sales.csv per region");
    // A tool id is cut after one of its parts; one long word inside it, rather than show nothing.
    expect(fit("data-pipeline-toolkit:normalize_records", 30)).toBe("data-pipeline-toolkit:…");
    expect(fit("datapipelinetoolkitnormalize", 20)).toBe("datapipelinetoolkit…");
    expect(fit("abc", 3)).toBe("");
  });

  it("tell a failed call from one the person denied or cancelled", async () => {
    const { nodeLabel, outcome } = await import("../src/chats/mapLabels");
    const n = node("s", "root", { content: [{ type: "tool_call", tool_call_id: "c1" }] });
    const ended = (over: Parameters<typeof call>[0]) => call({ id: "c1", tool_id: "app-builder:run_command", ...over });
    expect(outcome(ended({ status: "error", error_kind: "denied" }))).toBe("denied");
    expect(outcome(ended({ status: "cancelled", error_kind: "cancelled" }))).toBe("cancelled");
    expect(outcome(ended({ status: "error", error_kind: "exception" }))).toBe("failed");
    expect(outcome(ended({}))).toBeNull();
    expect(nodeLabel(n, 3, ended({ status: "error", error_kind: "denied" }))).toMatch(
      /^Step 3: app-builder:run_command \(denied\)/,
    );
  });

  it("says how a turn ended when it did not end well", async () => {
    const { nodeLabel, shortLabel, turnOutcome } = await import("../src/chats/mapLabels");
    const turn = (status: string, content: MessageNode["content"] = []) =>
      node("t", "q", {
        role: "assistant",
        content,
        meta: { provider_id: "p", model: "m", usage: null, status, error: null, error_kind: null },
      });
    expect(turnOutcome(turn("stopped"))).toBe("stopped");
    expect(turnOutcome(turn("step_limit"))).toBe("stopped");
    expect(turnOutcome(turn("interrupted"))).toBe("stopped");
    expect(turnOutcome(turn("complete"))).toBeNull();
    const cut = turn("stopped", [{ type: "text", text: "Half an answer" }]);
    expect(nodeLabel(cut, 2, null)).toMatch(/^Step 2: Answer: Half an answer \(stopped\), /);
    expect(shortLabel(turn("complete", [{ type: "reasoning", text: "hm" }]), null)).toBe("thought, no answer");
    expect(shortLabel(turn("complete"), null)).toBe("answer");
    // An answer is markdown: the map shows its words, not its marks; a
    // person's message is shown as typed.
    const marked = turn("complete", [{ type: "text", text: "Done: **13** words, see `note.txt`\n\n# Next" }]);
    expect(shortLabel(marked, null)).toBe("Done: 13 words, see note.txt Next");
    const typed = node("m", "t", { role: "user", content: [{ type: "text", text: "why **bold**?" }] });
    expect(shortLabel(typed, null)).toBe("why **bold**?");
  });
});
