// The calls this window is running, per chat, and what each has reported so
// far. The form that starts a call and the card that shows it live in
// different places (the runner above, the branch below), so the live state
// is shared here; the card answers approvals and cancels from it.

import { createContext, useCallback, useContext, useMemo, useRef, useState, type ReactNode } from "react";
import { api, type RunEvent } from "../api";
import type { JsonValue, ToolCallRecord } from "../bindings";
import { PositionProvider } from "./position";

export type LiveCall = {
  /** This window's handle, stable from the click on Run. */
  key: number;
  chatId: string;
  toolId: string;
  args: JsonValue;
  startedAt: number;
  /** The recorded call, once the backend says so (for Cancel and answers). */
  callId: string | null;
  /** Waiting for the person's Approve or Deny. */
  awaiting: boolean;
  walk: Extract<RunEvent, { kind: "workspace" }> | null;
  /** The tool's own progress report (MCP servers send them). */
  progress: Extract<RunEvent, { kind: "progress" }> | null;
  /** The output's tail (the whole is in the call record when it ends). */
  output: string;
};

const TAIL = 16_000;

/** A live call after one event from the backend. */
export function addEvent(live: LiveCall, e: RunEvent): LiveCall {
  switch (e.kind) {
    case "started":
      return { ...live, callId: e.call_id };
    case "awaiting_approval":
      return { ...live, callId: e.call_id, awaiting: true };
    case "workspace":
      return { ...live, walk: e };
    case "progress":
      return { ...live, progress: e };
    case "output": {
      const output = live.output + e.text;
      return { ...live, output: output.length > TAIL ? output.slice(output.length - TAIL) : output };
    }
  }
}

/** A person's answer to a call waiting for approval. */
export type Decision = "deny" | "once" | "chat";

type Runs = {
  live: LiveCall[];
  /** Runs a tool; resolves with the recorded call when it ends. */
  start: (chatId: string, toolId: string, args: JsonValue) => Promise<ToolCallRecord>;
  /** Answer a waiting call: deny it, approve it once, or allow its tool in this chat from now on. */
  answer: (key: number, decision: Decision) => Promise<void>;
};

// Outside a provider (a view rendered on its own) nothing is running, and
// nothing can be started.
const NO_RUNS: Runs = {
  live: [],
  start: () => Promise.reject(new Error("no RunsProvider: calls cannot be started here")),
  answer: () => Promise.resolve(),
};

const RunsContext = createContext<Runs>(NO_RUNS);

export function RunsProvider({ children }: { children: ReactNode }) {
  const [live, setLive] = useState<LiveCall[]>([]);
  const next = useRef(1);
  const byKey = useRef(new Map<number, LiveCall>());
  const update = useCallback((key: number, f: (l: LiveCall) => LiveCall) => {
    setLive((all) =>
      all.map((l) => {
        if (l.key !== key) return l;
        const changed = f(l);
        byKey.current.set(key, changed);
        return changed;
      }),
    );
  }, []);

  const start = useCallback(
    async (chatId: string, toolId: string, args: JsonValue) => {
      const key = next.current++;
      const call: LiveCall = {
        key,
        chatId,
        toolId,
        args,
        startedAt: Date.now(),
        callId: null,
        awaiting: false,
        walk: null,
        progress: null,
        output: "",
      };
      byKey.current.set(key, call);
      setLive((all) => [...all, call]);
      try {
        return await api.runTool(chatId, toolId, args, (e) => update(key, (l) => addEvent(l, e)));
      } finally {
        byKey.current.delete(key);
        setLive((all) => all.filter((l) => l.key !== key));
      }
    },
    [update],
  );

  const answer = useCallback(
    async (key: number, decision: Decision) => {
      const id = byKey.current.get(key)?.callId ?? null;
      if (id === null) return;
      const waited =
        decision === "chat" ? await api.answerApprovalForChat(id) : await api.answerApproval(id, decision === "once");
      // Not waiting any more (cancelled meanwhile): the call ends on its own.
      if (waited) update(key, (l) => ({ ...l, awaiting: false }));
    },
    [update],
  );

  const value = useMemo(() => ({ live, start, answer }), [live, start, answer]);
  return (
    <RunsContext.Provider value={value}>
      <PositionProvider>{children}</PositionProvider>
    </RunsContext.Provider>
  );
}

export function useRuns(): Runs {
  return useContext(RunsContext);
}
