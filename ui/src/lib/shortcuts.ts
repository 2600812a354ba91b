import { useEffect, useEffectEvent } from "react";

/** What a shortcut does; views that own the action listen for it. */
export type Action =
  "new-chat" | "run-tool" | "focus-picker" | "prev-sibling" | "next-sibling" | "help" | `tab-${number}`;

export type Shortcut = { keys: string; action: Action; what: string };

const MOD = typeof navigator !== "undefined" && /Mac/.test(navigator.platform) ? "⌘" : "Ctrl";

/** The one list: the keymap below and the help overlay read it. */
export const SHORTCUTS: Shortcut[] = [
  { keys: `${MOD}+N`, action: "new-chat", what: "New chat" },
  { keys: `${MOD}+Enter`, action: "run-tool", what: "Run the chosen tool" },
  { keys: `${MOD}+K`, action: "focus-picker", what: "Search tools" },
  { keys: "Alt+←", action: "prev-sibling", what: "Previous version of the last branch point" },
  { keys: "Alt+→", action: "next-sibling", what: "Next version of the last branch point" },
  { keys: `${MOD}+1 … 4`, action: "tab-1", what: "Toolsets, Chat, Workspace, Settings" },
  { keys: "?", action: "help", what: "Show these shortcuts" },
];

/** Keys of the chat's message box (the composer reads them itself; the help lists them). */
export const COMPOSER_KEYS: Array<{ keys: string; what: string }> = [
  { keys: `Enter or ${MOD}+Enter`, what: "Send the message" },
  { keys: "Shift+Enter", what: "New line" },
  { keys: "/ (first character)", what: "Open the tool picker to run a tool by hand" },
  { keys: "Esc (while the model answers)", what: "Stop the answer" },
  { keys: "Esc (editing a message)", what: "Cancel the edit" },
];

function typing(target: EventTarget | null): boolean {
  return (
    target instanceof HTMLElement &&
    (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName))
  );
}

/** The action of a key press, or null. Modifier shortcuts work while typing; `?` does not. */
export function actionFor(e: KeyboardEvent): Action | null {
  const mod = e.ctrlKey || e.metaKey;
  if (mod && !e.altKey && !e.shiftKey) {
    const k = e.key.toLowerCase();
    if (k === "n") return "new-chat";
    if (k === "enter") return "run-tool";
    if (k === "k") return "focus-picker";
    if (/^[1-4]$/.test(k)) return `tab-${Number(k)}`;
  }
  if (e.altKey && !mod && e.key === "ArrowLeft") return "prev-sibling";
  if (e.altKey && !mod && e.key === "ArrowRight") return "next-sibling";
  if (e.key === "?" && !mod && !e.altKey && !typing(e.target)) return "help";
  return null;
}

const EVENT = "atelier:shortcut";

/** Listens for shortcut keys on the window and announces their actions. */
export function useShortcutKeys() {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const action = actionFor(e);
      if (action === null) return;
      e.preventDefault();
      window.dispatchEvent(new CustomEvent<Action>(EVENT, { detail: action }));
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);
}

/** Runs `handler` when `action` is announced (while `enabled`). */
export function useShortcut(action: Action | ((a: Action) => boolean), handler: (a: Action) => void, enabled = true) {
  // An effect event, so callers may pass fresh functions each render
  // without the listener being removed and added again every time.
  const announced = useEffectEvent((a: Action) => {
    if (typeof action === "function" ? action(a) : a === action) handler(a);
  });
  useEffect(() => {
    if (!enabled) return;
    const on = (e: Event) => announced((e as CustomEvent<Action>).detail);
    window.addEventListener(EVENT, on);
    return () => window.removeEventListener(EVENT, on);
  }, [enabled]);
}
