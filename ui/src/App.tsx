import { useCallback, useEffect, useState } from "react";
import { HelpOverlay } from "./components/HelpOverlay";
import { ViewBoundary } from "./components/ViewBoundary";
import { afterFirstPaint } from "./lib/firstPaint";
import { onTablistKeys } from "./lib/focus";
import { preloadLazyModules } from "./lib/lazy";
import { useShortcut, useShortcutKeys } from "./lib/shortcuts";
import { useEvent } from "./lib/useEvent";
import { ChatSelector } from "./chats/ChatSelector";
import { ConversationMap } from "./chats/ConversationMap";
import { MovedContext } from "./chats/moved";
import { RunsProvider } from "./calls/runs";
import { useChats } from "./chats/useChats";
import type { ProviderFocus } from "./settings/ProvidersSection";
import { SettingsPanel } from "./settings/SettingsPanel";
import { SettingsProvider } from "./settings/useSettings";
import { ToolsetManager } from "./toolsets/ToolsetManager";
import { ToolsView } from "./tools/ToolsView";
import { WorkspaceView } from "./workspace/WorkspaceView";

type Tab = "toolsets" | "tools" | "workspace" | "settings";

const TABS: Array<{ id: Tab; label: string }> = [
  { id: "toolsets", label: "Toolsets" },
  { id: "tools", label: "Chat" },
  { id: "workspace", label: "Workspace" },
  { id: "settings", label: "Settings" },
];

export function App() {
  const chats = useChats();
  const [tab, setTab] = useState<Tab>("tools");
  // The other tabs are mounted once the Chat tab is drawn (their reads and
  // their first render are not on the way to it), or each when shown first;
  // then, in idle time, the chunks the first screen did without (CodeMirror,
  // markdown-it) are loaded before a view asks for them.
  const [warm, setWarm] = useState(false);
  const [shown, setShown] = useState<ReadonlySet<Tab>>(() => new Set([tab]));
  useEffect(
    () =>
      afterFirstPaint(() => {
        setWarm(true);
        preloadLazyModules();
      }),
    [],
  );
  if (!shown.has(tab)) setShown(new Set(shown).add(tab));
  const mounted = (t: Tab) => warm || shown.has(t) || tab === t;
  // Bumped whenever toolsets change, so the tool picker reloads.
  const [toolsVersion, setToolsVersion] = useState(0);
  const toolsetsChanged = useCallback(() => setToolsVersion((v) => v + 1), []);
  // The servers never listed, listed once the app has started (the shell's
  // `mcp-tools-listed`): their tools join the picker.
  useEvent<string[]>("mcp-tools-listed", toolsetsChanged);
  const [help, setHelp] = useState(false);
  // Every way from a chat to Settings is about a provider (a key refused, a
  // base URL to fix, none set up): land on that section, not the top.
  // With a provider named (its key was refused), at that provider's row,
  // marked for a moment: ProvidersSection scrolls to it.
  const [providerFocus, setProviderFocus] = useState<ProviderFocus | null>(null);
  const openSettings = useCallback((providerId?: string | null) => {
    setTab("settings");
    if (providerId != null) {
      setProviderFocus((f) => ({ id: providerId, seq: (f?.seq ?? 0) + 1 }));
      return;
    }
    requestAnimationFrame(() => {
      const heading = document.getElementById("providers-title");
      if (heading !== null && typeof heading.scrollIntoView === "function") heading.scrollIntoView({ block: "start" });
    });
  }, []);
  useShortcutKeys();
  useShortcut("help", () => setHelp(true));
  useShortcut("new-chat", () => {
    chats.create().catch(() => undefined); // shown in the sidebar
  });
  useShortcut(
    (a) => a.startsWith("tab-"),
    (a) => {
      const t = TABS[Number(a.slice(4)) - 1];
      if (t !== undefined) setTab(t.id);
    },
  );
  // Run and search live in the Tools tab: bring it forward first.
  useShortcut(
    (a) => a === "focus-picker" || a === "run-tool",
    () => setTab("tools"),
  );

  return (
    <SettingsProvider>
      <MovedContext.Provider value={chats.moved}>
        <RunsProvider>
          <div className="app">
            {/* The first Tab stop: past the sidebar to the open section. */}
            <a
              className="skip-link"
              href="#main"
              onClick={(e) => {
                // Focus, not navigation: the window's URL stays as it is.
                e.preventDefault();
                document.getElementById("main")?.focus();
              }}
            >
              Skip to the {TABS.find((t) => t.id === tab)!.label.toLowerCase()}
            </a>
            <aside className="sidebar" aria-label="Sidebar">
              <div className="brand">
                <span className="brand-mark" aria-hidden="true">
                  ◆
                </span>{" "}
                Atelier
                <button
                  type="button"
                  className="btn btn-small btn-ghost shortcut-hint"
                  aria-label="Keyboard shortcuts"
                  onClick={() => setHelp(true)}
                >
                  Shortcuts <kbd>?</kbd>
                </button>
              </div>
              {/* Fixed above the chats and the map, which scroll in their own regions. */}
              <nav
                className="tabs"
                role="tablist"
                aria-label="Sections"
                aria-orientation="vertical"
                onKeyDown={onTablistKeys}
              >
                {TABS.map((t) => (
                  <button
                    key={t.id}
                    type="button"
                    role="tab"
                    id={`tab-${t.id}`}
                    aria-controls={`panel-${t.id}`}
                    aria-selected={tab === t.id}
                    tabIndex={tab === t.id ? 0 : -1}
                    className={tab === t.id ? "tab tab-active" : "tab"}
                    onClick={() => setTab(t.id)}
                  >
                    {t.label}
                  </button>
                ))}
              </nav>
              <ViewBoundary name="the chat list">
                <ChatSelector chats={chats} />
              </ViewBoundary>
              <ViewBoundary name="the conversation map">
                <ConversationMap chats={chats} />
              </ViewBoundary>
              <p className="sidebar-footnote">
                Toolset code runs with your rights, like any app extension. Install only toolsets you trust.
              </p>
            </aside>
            <main className="main" id="main" tabIndex={-1}>
              {/* Panels stay mounted so a half-filled form survives a tab switch. */}
              <div role="tabpanel" id="panel-toolsets" aria-labelledby="tab-toolsets" hidden={tab !== "toolsets"}>
                {mounted("toolsets") && (
                  <ViewBoundary name="Toolsets">
                    <ToolsetManager active={tab === "toolsets"} onChanged={toolsetsChanged} />
                  </ViewBoundary>
                )}
              </div>
              <div role="tabpanel" id="panel-tools" aria-labelledby="tab-tools" hidden={tab !== "tools"}>
                <ViewBoundary name="Chat">
                  <ToolsView
                    chats={chats}
                    toolsVersion={toolsVersion}
                    active={tab === "tools"}
                    onOpenSettings={openSettings}
                  />
                </ViewBoundary>
              </div>
              <div role="tabpanel" id="panel-workspace" aria-labelledby="tab-workspace" hidden={tab !== "workspace"}>
                {mounted("workspace") && (
                  <ViewBoundary name="Workspace">
                    <WorkspaceView chats={chats} active={tab === "workspace"} />
                  </ViewBoundary>
                )}
              </div>
              <div role="tabpanel" id="panel-settings" aria-labelledby="tab-settings" hidden={tab !== "settings"}>
                {mounted("settings") && (
                  <ViewBoundary name="Settings">
                    <SettingsPanel
                      active={tab === "settings"}
                      onToolsChanged={toolsetsChanged}
                      providerFocus={providerFocus}
                    />
                  </ViewBoundary>
                )}
              </div>
            </main>
            {help && <HelpOverlay onClose={() => setHelp(false)} />}
          </div>
        </RunsProvider>
      </MovedContext.Provider>
    </SettingsProvider>
  );
}
