import { useRef, useState } from "react";
import { api } from "../api";
import type { ToolCallRecord } from "../bindings";
import { BranchView } from "../calls/BranchView";
import { stepTitle, type Chats } from "../chats/useChats";
import { EmptyState, ErrorBox, Spinner } from "../components/feedback";
import { isObject, type JsonObject } from "../lib/json";
import { useShortcut } from "../lib/shortcuts";
import { useLoad } from "../lib/useLoad";
import { useFocusChosenForm } from "./focusForm";
import { ToolPicker } from "./ToolPicker";
import { rerunOrSay } from "./rerunOrSay";
import { ToolRunner } from "./ToolRunner";

type ChatCalls = { chatId: string | null; calls: ToolCallRecord[] };

export function ToolsView({ chats, toolsVersion }: { chats: Chats; toolsVersion: number }) {
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
  // Picking a tool brings its form into view, the cursor in its first field.
  const [picked, setPicked] = useState(0);
  const runColumn = useRef<HTMLDivElement>(null);
  useFocusChosenForm(runColumn, picked);
  // The list can step aside so the results get the whole width (small
  // windows); Ctrl+K brings it back with the cursor in the search.
  const [listShown, setListShown] = useState(true);
  useShortcut("focus-picker", () => setListShown(true));
  const [lastRunId, setLastRunId] = useState<string | null>(null);
  // "Run again…": the tool and the arguments to start its form from.
  const [prefill, setPrefill] = useState<{ toolId: string; args: JsonObject; seq: number } | null>(null);
  const openForm = (call: ToolCallRecord) => {
    setSelectedId(call.tool_id);
    const args = isObject(call.args) ? call.args : {};
    setPrefill((p) => ({ toolId: call.tool_id, args, seq: (p?.seq ?? 0) + 1 }));
  };
  // A tool that cannot run now is said on the call's card, with the fix.
  const rerun = (call: ToolCallRecord) => rerunOrSay(call, tools, openForm, reloadCatalog);

  const tools = catalog.data?.tools ?? [];
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
      <div className="tools-column" id="tool-list" hidden={!listShown}>
        <header className="page-header">
          <h1>Tools</h1>
          <button
            type="button"
            className="btn btn-small btn-ghost"
            aria-expanded={true}
            aria-controls="tool-list"
            title="Give the results the whole width; Ctrl+K brings the list back"
            onClick={() => setListShown(false)}
          >
            Hide list
          </button>
        </header>
        {catalog.state === "error" && (
          <ErrorBox error={catalog.error} title="Tools could not be loaded." onRetry={reloadCatalog} />
        )}
        {catalog.data === null && catalog.state === "loading" && <Spinner label="Loading tools…" />}
        {catalog.data !== null && (
          <ToolPicker
            tools={tools}
            toolsets={catalog.data.toolsets}
            selectedId={selected?.tool_id ?? null}
            onSelect={(t) => {
              setSelectedId(t.tool_id);
              setPicked((n) => n + 1);
            }}
          />
        )}
      </div>
      <div className="run-column" ref={runColumn}>
        {!listShown && (
          <button
            type="button"
            className="btn btn-small tools-show"
            aria-expanded={false}
            aria-controls="tool-list"
            onClick={() => setListShown(true)}
          >
            ☰ Tools
          </button>
        )}
        {selected === null ? (
          <EmptyState title="Choose a tool to run">
            Pick one from the list: a form for its arguments opens here, and each run is added to the current chat.
          </EmptyState>
        ) : (
          <ToolRunner
            key={`${selected.tool_id}:${prefill?.toolId === selected.tool_id ? prefill.seq : 0}`}
            tool={selected}
            chatId={chatId}
            ensureChat={chats.ensure}
            onCall={addCall}
            prefill={prefill?.toolId === selected.tool_id ? prefill.args : null}
          />
        )}
        <section className="calls" aria-label="Tool calls">
          <h2 className="section-title">Calls in this chat</h2>
          {chatId === null && <p className="muted">No chat yet: the first run creates one.</p>}
          {calls.state === "error" && (
            <ErrorBox error={calls.error} title="Calls could not be loaded." onRetry={reloadCalls} />
          )}
          {chatId !== null && calls.state === "loading" && calls.data?.chatId !== chatId && (
            <Spinner label="Loading calls…" />
          )}
          {chatId !== null && calls.data !== null && calls.data.chatId === chatId && (
            <BranchView
              chatId={chatId}
              calls={calls.data.calls}
              version={`${calls.data.calls.length}:${lastRunId ?? ""}:${chats.revision}`}
              focusId={lastRunId}
              onSwitched={chats.moved}
              onRerun={rerun}
            />
          )}
        </section>
      </div>
    </div>
  );
}
