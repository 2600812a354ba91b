// What the messages of the conversation can do (retry, edit, fork, open
// Settings or the chat's Model options) and what they need to know (the providers, for errors), given
// by the view that owns the chat so the branch list stays unaware of it.

import { createContext, useContext } from "react";
import type { Preset, ProviderRecord } from "../bindings";

export type ConversationActions = {
  chatId: string;
  retry: (messageId: string) => void;
  /** Whether the core kept the edit (false: nothing was sent; the editor keeps the text). */
  edit: (messageId: string, text: string) => Promise<boolean>;
  fork: (messageId: string) => Promise<void>;
  /** Settings → Model providers, at the given provider's row (highlighted) when there is one. */
  openSettings: (providerId?: string | null) => void;
  /** This chat's Model options (answer length, context window), docked above the composer, the focus in it. */
  openOptions: () => void;
  providers: ProviderRecord[];
  presets: Preset[];
};

export const ConversationContext = createContext<ConversationActions | null>(null);

export function useConversation(): ConversationActions | null {
  return useContext(ConversationContext);
}
