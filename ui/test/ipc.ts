// Test doubles for the Tauri commands, through @tauri-apps/api's mockIPC.
import type { Channel } from "@tauri-apps/api/core";
import { mockIPC, mockWindows } from "@tauri-apps/api/mocks";
import { vi } from "vitest";

export type Args = Record<string, unknown>;
export type Handler = (args: Args) => unknown;

/**
 * Routes each command to its handler; an unmocked command rejects like the
 * backend does, with `{kind, message}`. Returns a spy of every call.
 */
export function mockCommands(handlers: Record<string, Handler>) {
  const calls = vi.fn<(cmd: string, args: Args) => void>();
  mockWindows("main");
  mockIPC(
    (cmd, payload) => {
      const args = (payload ?? {}) as Args;
      calls(cmd, args);
      const h = handlers[cmd];
      if (h === undefined) throw { kind: "not_mocked", message: `no mock for ${cmd}` };
      return h(args);
    },
    { shouldMockEvents: true },
  );
  return calls;
}

/** The args of every call of one command. */
export function argsOf(calls: ReturnType<typeof mockCommands>, cmd: string): Args[] {
  return calls.mock.calls.filter(([c]) => c === cmd).map(([, a]) => a);
}

type Internals = { runCallback: (id: number, data: unknown) => void };

/**
 * Sends messages the way the Rust side does: raw `{index, message}` frames
 * through the callback the channel registered (so ordering is exercised too).
 */
export function sendOnChannel<T>(channel: Channel<T>, messages: T[], firstIndex = 0): void {
  const internals = (window as unknown as { __TAURI_INTERNALS__: Internals }).__TAURI_INTERNALS__;
  messages.forEach((message, i) => internals.runCallback(channel.id, { index: firstIndex + i, message }));
}

/** A promise with its resolve and reject exposed. */
export function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
