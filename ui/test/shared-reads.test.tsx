// The first screen and the tabs mounted after it ask for some of the same
// things at once (the providers, the toolsets, a chat's calls…): a read
// under way is shared by the views that ask for it, and never past a sign
// that something changed — a command that changes things sent or answered,
// an event of the shell, a message on a run's channel.
/// <reference types="node" />
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { act, render, waitFor } from "@testing-library/react";
import { emit } from "@tauri-apps/api/event";
import { describe, expect, it } from "vitest";
import { api, NEUTRAL, SHARED_READS } from "../src/api";
import { App } from "../src/App";
import type { ProviderRecord } from "../src/bindings";
import { useEvent } from "../src/lib/useEvent";
import { chatBackend, provider } from "./chatBackend";
import { ROOT, invokesIn } from "./contract";
import { argsOf, deferred, feeder, mockCommands } from "./ipc";

const API_TS = join(ROOT, "ui", "src", "api.ts");

describe("reads under way", () => {
  it("are shared by the views asking at the same moment", async () => {
    const answer = deferred<ProviderRecord[]>();
    const calls = mockCommands({ list_providers: () => answer.promise, list_tool_calls: () => [] });
    const one = api.listProviders();
    const two = api.listProviders();
    // Another chat's calls are another read.
    await Promise.all([api.listToolCalls("a"), api.listToolCalls("b")]);
    expect(argsOf(calls, "list_providers")).toHaveLength(1);
    expect(argsOf(calls, "list_tool_calls")).toEqual([{ chatId: "a" }, { chatId: "b" }]);
    answer.resolve([provider()]);
    expect(await one).toEqual([provider()]);
    expect(await two).toEqual([provider()]);
    // Once answered, the next read asks again.
    await api.listProviders();
    expect(argsOf(calls, "list_providers")).toHaveLength(2);
  });

  it("are not shared past a change sent or answered", async () => {
    const before = deferred<ProviderRecord[]>();
    const added = deferred<ProviderRecord>();
    let n = 0;
    const calls = mockCommands({
      list_providers: () => (++n === 1 ? before.promise : [provider(), provider({ id: "openai" })]),
      add_provider: () => added.promise,
    });
    const old = api.listProviders();
    // Sent while a read is under way: the next read is its own.
    const adding = api.addProvider({ preset: "openai" } as never, "sk-1");
    const sent = api.listProviders();
    expect(argsOf(calls, "list_providers")).toHaveLength(2);
    // Answered while another read is under way: the same.
    const during = api.listProviders();
    expect(argsOf(calls, "list_providers")).toHaveLength(2);
    added.resolve(provider({ id: "openai" }));
    await adding;
    const after = api.listProviders();
    expect(argsOf(calls, "list_providers")).toHaveLength(3);
    before.resolve([provider()]);
    expect(await old).toEqual([provider()]);
    expect((await sent).map((p) => p.id)).toEqual(["ollama", "openai"]);
    expect(await during).toBe(await sent);
    expect((await after).map((p) => p.id)).toEqual(["ollama", "openai"]);
  });

  it("are not shared past an event of the shell or a message on a run's channel", async () => {
    let runArgs: Record<string, unknown> | null = null;
    const calls = mockCommands({
      // Never answered: a read stays under way, and only a sign of change makes the next one its own.
      list_providers: () => new Promise<ProviderRecord[]>(() => {}),
      run_tool: (a) => {
        runArgs = a;
        return new Promise(() => {});
      },
    });
    const reads = () => argsOf(calls, "list_providers").length;
    function Listener() {
      useEvent("mcp-tools-listed", () => undefined);
      return null;
    }
    render(<Listener />);
    await act(() => new Promise((r) => setTimeout(r, 0))); // the listener is registered
    void api.listProviders();
    void api.listProviders();
    expect(reads()).toBe(1);
    await act(() => emit("mcp-tools-listed", ["fx"]));
    void api.listProviders();
    expect(reads()).toBe(2);

    const heard: unknown[] = [];
    void api.runTool("chat-1", "t", {}, (e) => heard.push(e));
    await waitFor(() => expect(runArgs).not.toBeNull());
    void api.listProviders();
    void api.listProviders();
    expect(reads()).toBe(3);
    feeder<unknown>(runArgs!.onEvent)({ type: "started" });
    expect(heard).toHaveLength(1);
    void api.listProviders();
    expect(reads()).toBe(4);
  });

  it("name only commands api.ts invokes, each once", () => {
    const invoked = new Set(invokesIn(readFileSync(API_TS, "utf8"), API_TS, []).map((i) => i.command));
    for (const name of [...SHARED_READS, ...NEUTRAL]) expect(invoked).toContain(name);
    expect([...SHARED_READS].filter((n) => NEUTRAL.has(n))).toEqual([]);
  });
});

it("the app's start reads a chat's calls, the toolsets, the providers and the MCP servers no more than once at a time", async () => {
  const b = chatBackend({
    providers: [],
    extra: {
      first_paint: () => null,
      get_settings: () => ({ saved: { frame_origins: [] }, frame_origins_in_effect: [] }),
    },
  });
  render(<App />);
  await waitFor(() => expect(argsOf(b.calls, "first_paint")).toHaveLength(1));
  // The tabs mounted after the first paint have read what they show.
  await waitFor(() => expect(argsOf(b.calls, "secrets_status").length).toBeGreaterThan(0));
  await act(() => new Promise((r) => setTimeout(r, 100)));
  // The chat's calls: the map and the Chat tab, at once. Toolsets, providers:
  // once for the first screen, once for the tabs mounted after it (their
  // several views sharing it). The MCP servers: Settings' two views, at once.
  expect(argsOf(b.calls, "list_tool_calls")).toHaveLength(1);
  expect(argsOf(b.calls, "list_toolsets")).toHaveLength(2);
  expect(argsOf(b.calls, "list_providers")).toHaveLength(2);
  expect(argsOf(b.calls, "list_mcp_servers")).toHaveLength(1);
}, 10_000);
