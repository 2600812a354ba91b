import { createContext, useContext } from "react";

/**
 * Lets a view deep in the tree (a renderer's Save, a restore) say that the
 * selected chat's tree or workspace moved, so the branch view, the map and
 * the workspace browser read again. The app provides `Chats.moved`.
 */
export const MovedContext = createContext<(activeManifestId?: string) => void>(() => undefined);

export function useMoved(): (activeManifestId?: string) => void {
  return useContext(MovedContext);
}
