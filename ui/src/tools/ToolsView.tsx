import { useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import { api } from "../api";
import type { MessageNode, ToolCallRecord } from "../bindings";
import { BranchView } from "../calls/BranchView";
import { stepTitle, type Chats } from "../chats/useChats";
import { ErrorBox, Spinner } from "../components/feedback";
import { ViewBoundary } from "../components/ViewBoundary";
import { useReturnFocus } from "../lib/focus";
import { isObject, type JsonObject } from "../lib/json";
import { useShortcut } from "../lib/shortcuts";
import { useLoad } from "../lib/useLoad";
import { useFocusChosenForm } from "./focusForm";
import { ToolPicker } from "./ToolPicker";
import { rerunOrSay } from "./rerunOrSay";
import { ToolRunner } from "./ToolRunner";
import { RunAnnouncer } from "../conversation/RunAnnouncer";
import { ChatDock, ChatEmpty, useChatPane } from "../conversation/ChatPane";
import { ConversationContext } from "../conversation/context";
import { useStickToBottom } from "../conversation/stickToBottom";

type ChatCalls = { chatId: string | null; calls: ToolCallRecord[] };

const NO_CALLS: ToolCallRecord[] = [];

/** Where the tool list's shown/hidden choice is remembered (this computer, every chat). */
export const TOOL_LIST_KEY = "atelier.toolList";

/** The remembered choice: true shown, false hidden, null never chosen. */
function rememberedList(): boolean | null {
  try {
    const v = localStorage.getItem(TOOL_LIST_KEY);
    return v === "shown" ? true : v === "hidden" ? false : null;
  } catch {
    return null;
  }
}

/**
 * The chat: the tool list (hideable) beside the conversation — the active
 * branch's messages and calls, the run streaming at its end — with the tool
 * form (when a tool is chosen) and the message composer at the bottom.
 */
export function ToolsView({
  chats,
  toolsVersion,
  active = true,
  onOpenSettings = () => undefined,
}: {
  chats: Chats;
  toolsVersion: number;
  /** The tab is shown (dropped files are for this chat). */
  active?: boolean;
  onOpenSettings?: (providerId?: string | null) => void;
}) {
  const [catalog, reloadCatalog] = useLoad(async () => {
    const [tools, toolsets] = await Promise.all([api.getAvailableTools(), api.listToolsets()]);
    return { tools, toolsets };
  }, `tools-${toolsVersion}`);
  const chatId = chats.selectedId;
  const [calls, reloadCalls, setCalls] = useLoad<ChatCalls>(
    async () => ({ chatId, calls: chatId === null ? [] : await api.listToolCalls(chatId) }),
    `calls-${chatId ?? "none"}`,
  );
  const [selectedId, setSelectedId] = useState<string | null>(null);
  // Picking a tool (or Run again…) brings its form into view, the cursor in its first field.
  const [picked, setPicked] = useState(0);
  const runColumn = useRef<HTMLDivElement>(null);
  const toolList = useRef<HTMLDivElement>(null);
  // The list steps aside so the conversation gets the width; Show/Hide is
  // remembered. Never chosen: hidden once a model is set up (a chat is for
  // talking), shown without one (the tools are then the way to work).
  // Ctrl+K and `/` bring it back with the cursor in the search.
  const [listChoice, setListChoice] = useState<boolean | null>(rememberedList);
  const setListShown = useCallback((shown: boolean) => {
    setListChoice(shown);
    try {
      localStorage.setItem(TOOL_LIST_KEY, shown ? "shown" : "hidden");
    } catch {
      // Not remembered (storage refused): this window still follows it.
    }
  }, []);
  // Ctrl+K and `/`: the list, the cursor in its search. The search is
  // focused once the list (and the tab) are drawn — an input still hidden
  // takes no focus, and a timer could run before React showed them (the
  // first Ctrl+K only showed the list, and the typing went nowhere).
  const [searchAsked, setSearchAsked] = useState(0);
  const searchPending = useRef(false);
  const askSearch = useCallback(() => {
    setListShown(true);
    searchPending.current = true;
    setSearchAsked((n) => n + 1);
  }, [setListShown]);
  useShortcut("focus-picker", askSearch);
  const [lastRunId, setLastRunId] = useState<string | null>(null);
  // "Run again…": the tool and the arguments to start its form from.
  const [prefill, setPrefill] = useState<{ toolId: string; args: JsonObject; seq: number } | null>(null);
  const openForm = (call: ToolCallRecord) => {
    setSelectedId(call.tool_id);
    setPicked((n) => n + 1);
    const args = isObject(call.args) ? call.args : {};
    setPrefill((p) => ({ toolId: call.tool_id, args, seq: (p?.seq ?? 0) + 1 }));
  };
  // A tool that cannot run now is said on the call's card, with the fix.
  const rerun = (call: ToolCallRecord) => rerunOrSay(call, tools, openForm, reloadCatalog);

  const tools = catalog.data?.tools ?? [];
  // `/` in the composer, ☰ Tools: the same.
  const openPicker = askSearch;
  const pickerDrawn = catalog.data !== null;
  useEffect(() => {
    if (!searchPending.current) return;
    // Not drawn yet (the tools still loading): once they are.
    const search = toolList.current?.querySelector<HTMLInputElement>("input[type=search]");
    if (search == null) return;
    searchPending.current = false;
    search.focus();
    search.select();
  }, [searchAsked, pickerDrawn]);
  const [branch, setBranch] = useState<MessageNode[]>([]);
  const chatScroll = useRef<HTMLDivElement>(null);
  useStickToBottom(chatScroll, chatId);
  const pane = useChatPane({ chats, active, onOpenSettings, onRunEnd: reloadCalls, branch, openPicker });
  const providersKnown = pane.info.load.data !== null;
  const listShown = listChoice ?? (providersKnown && pane.info.providers.length === 0);
  const title = chats.load.data?.find((c) => c.id === chatId)?.title ?? "New chat";
  // The calls a model run made, until the list is read again.
  const runCalls = pane.records ?? NO_CALLS;
  const shownCalls = useMemo(() => {
    const loaded = calls.data?.calls ?? NO_CALLS;
    const have = new Set(loaded.map((c) => c.id));
    const extra = runCalls.filter((c) => !have.has(c.id));
    return extra.length === 0 ? loaded : [...loaded, ...extra];
  }, [calls.data, runCalls]);
  const selected = tools.find((t) => t.tool_id === selectedId) ?? null;

  const addCall = (call: ToolCallRecord) => {
    setLastRunId(call.id);
    chats.nameAfter(
      call.chat_id,
      stepTitle(tools.find((t) => t.tool_id === call.tool_id)?.name ?? call.tool_id, call.args),
    );
    chats.moved();
    if (calls.data !== null && calls.data.chatId === call.chat_id) {
      setCalls({ chatId: call.chat_id, calls: [...calls.data.calls, call] });
    } else reloadCalls();
  };

  return (
    <div className={listShown ? "tools-view" : "tools-view tools-list-hidden"}>
      {/* The chat's title, the page's h1, comes first for a screen reader's
          outline (before the list's "Tools"); the grid still shows it above
          the conversation, right of the list. */}
      <header className="chat-header">
        {!listShown && (
          <button
            type="button"
            className="btn btn-small tools-show"
            aria-expanded={false}
            aria-controls="tool-list"
            title="Show the tool list (Ctrl+K)"
            onClick={openPicker}
          >
            ☰ Tools
          </button>
        )}
        <h1 title={title}>{title}</h1>
      </header>
      <div className="tools-column" id="tool-list" hidden={!listShown} ref={toolList}>
        <header className="page-header">
          <h2>Tools</h2>
          <button
            type="button"
            className="btn btn-small btn-ghost"
            aria-expanded={true}
            aria-controls="tool-list"
            title="Give the results the whole width; Ctrl+K brings the list back"
            onClick={() => {
              setListShown(false);
              // The button goes with the list: the focus goes to the one that brings it back.
              window.setTimeout(
                () => runColumn.current?.closest(".tools-view")?.querySelector<HTMLElement>(".tools-show")?.focus(),
                0,
              );
            }}
          >
            Hide list
          </button>
        </header>
        {catalog.state === "error" && (
          <ErrorBox error={catalog.error} title="Tools could not be loaded." onRetry={reloadCatalog} />
        )}
        {catalog.data === null && catalog.state === "loading" && <Spinner label="Loading tools…" />}
        {catalog.data !== null && (
          <ViewBoundary name="the tool list">
            <ToolPicker
              tools={tools}
              toolsets={catalog.data.toolsets}
              selectedId={selected?.tool_id ?? null}
              onSelect={(t) => {
                setSelectedId(t.tool_id);
                setPicked((n) => n + 1);
              }}
            />
          </ViewBoundary>
        )}
      </div>
      <ConversationContext.Provider value={pane.runs.actions}>
        <div className="run-column chat-column" ref={runColumn}>
          <ViewBoundary name="the run's announcements">
            <RunAnnouncer chatId={chatId} />
          </ViewBoundary>
          <div className="chat-scroll" ref={chatScroll}>
            <section className="calls conversation" aria-label="Conversation">
              {calls.state === "error" && (
                <ErrorBox error={calls.error} title="Calls could not be loaded." onRetry={reloadCalls} />
              )}
              {chatId !== null && calls.state === "loading" && calls.data?.chatId !== chatId && (
                <Spinner label="Loading the conversation…" />
              )}
              {chatId === null && <ChatEmpty pane={pane} />}
              {chatId !== null && calls.data !== null && calls.data.chatId === chatId && (
                <ViewBoundary name="the conversation">
                  <BranchView
                    chatId={chatId}
                    calls={shownCalls}
                    version={`${shownCalls.length}:${lastRunId ?? ""}:${chats.revision}`}
                    focusId={lastRunId}
                    onSwitched={chats.moved}
                    onRerun={rerun}
                    empty={<ChatEmpty pane={pane} />}
                    onBranch={setBranch}
                    readTree={chats.readTree}
                  />
                </ViewBoundary>
              )}
            </section>
            {pane.setup}
          </div>
          <ChatDock pane={pane}>
            {selected !== null && (
              <RunnerDock picked={picked} onClose={() => setSelectedId(null)}>
                <ViewBoundary name="the tool form">
                  <ToolRunner
                    key={`${selected.tool_id}:${prefill?.toolId === selected.tool_id ? prefill.seq : 0}`}
                    tool={selected}
                    chatId={chatId}
                    ensureChat={chats.ensure}
                    onCall={addCall}
                    prefill={prefill?.toolId === selected.tool_id ? prefill.args : null}
                  />
                </ViewBoundary>
              </RunnerDock>
            )}
          </ChatDock>
        </div>
      </ConversationContext.Provider>
    </div>
  );
}

/**
 * The chosen tool's form, docked above the composer, with × to close it:
 * the focus then goes back to what opened it (the tool in the list, the
 * search, a call's Run again…), not to the page's start. `picked` counts
 * the picks: each brings the form into view, the cursor in it.
 */
function RunnerDock({ picked, onClose, children }: { picked: number; onClose: () => void; children: ReactNode }) {
  const dock = useRef<HTMLDivElement>(null);
  // The opener is taken before the cursor moves into the form (in this
  // order, also when React runs the effects twice in development).
  useReturnFocus(dock);
  useFocusChosenForm(dock, picked);
  return (
    <div className="runner-dock" ref={dock}>
      <button
        type="button"
        className="btn btn-small btn-ghost runner-close"
        aria-label="Close the tool form"
        title="Close the form (the tool stays in the list)"
        onClick={onClose}
      >
        ×
      </button>
      {children}
    </div>
  );
}
