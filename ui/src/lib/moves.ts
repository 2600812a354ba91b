// The moves of each chat's workspace (switches, checkouts) under way, for
// api.ts: the branch view draws a switch before the core has made it, so
// what goes "wherever the chat is" (a message with no parent, a tool run by
// hand) waits for them and lands where the screen said the chat is, or is
// refused when Stop was pressed meanwhile or a move failed.

import type { IpcError } from "../bindings";

/** Per chat, the moves under way: whether all of them went through. */
const moves = new Map<string, Promise<boolean>>();

/** Counts `move` among `chatId`'s moves under way; returns it. */
export function moving<T>(chatId: string, move: Promise<T>): Promise<T> {
  const before = moves.get(chatId) ?? Promise.resolve(true);
  // Whether every move so far went through.
  const after = before.then((ok) =>
    move.then(
      () => ok,
      () => false,
    ),
  );
  moves.set(chatId, after);
  const forget = () => {
    if (moves.get(chatId) === after) moves.delete(chatId);
  };
  after.then(forget, forget);
  return move;
}

/** Per chat, how many times Stop was pressed: a send still waiting for a move sees it. */
const stops = new Map<string, number>();

/** Stop was pressed in `chatId`. */
export function stopped(chatId: string): void {
  stops.set(chatId, (stops.get(chatId) ?? 0) + 1);
}

/**
 * Once the chat's moves under way have ended: nothing, or why what waited
 * for them must not go ahead (Stop was pressed meanwhile, a move failed:
 * the screen showed a branch the chat is not on).
 */
export async function afterMoves(chatId: string, what: string): Promise<void> {
  const pending = moves.get(chatId);
  if (pending === undefined) return;
  const stopped = stops.get(chatId) ?? 0;
  const ok = await pending;
  const refuse = (message: string): never => {
    const refused: IpcError = { kind: "cancelled", message };
    throw refused;
  };
  if ((stops.get(chatId) ?? 0) !== stopped) {
    refuse(`Stopped before it was sent (the chat was still switching branches): ${what}`);
  }
  if (!ok) refuse(`The branch switch failed, so it was not sent where you were looking: ${what}`);
}
