// The contract between ui/src/api.ts and the Tauri commands, read from the
// sources so that a renamed command or argument fails here instead of at run
// time in the app:
// - every command registered in src-tauri/src/command_names.rs has a
//   `#[tauri::command]` function and is invoked by api.ts, and api.ts invokes
//   no other;
// - each `invoke("name", { … })` passes exactly the arguments the function
//   takes as the webview sees them: Tauri turns `chat_id` into `chatId`
//   (unless `rename_all = "snake_case"`), injects `State`, `AppHandle`,
//   `Window`, … itself, and a `Channel<…>` comes from JS as a `Channel`;
// - test/ipc.ts's `CommandAnswers` (the types the mocks answer with) names
//   every command, each through the wrapper that invokes it.
/// <reference types="node" />
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { NEUTRAL, SHARED_READS } from "../src/api";
import { ASSISTANT_ID } from "../src/lib/assistant";

import {
  ROOT,
  answersIn,
  commandsIn,
  invokesIn,
  registeredIn,
  rustFiles,
  type Invoke,
  type RustCommand,
} from "./contract";

const RUST_DIR = join(ROOT, "src-tauri", "src");
const NAMES_RS = join(RUST_DIR, "command_names.rs");
const API_TS = join(ROOT, "ui", "src", "api.ts");
const IPC_TS = join(ROOT, "ui", "test", "ipc.ts");

// ------------------------------------------------------------------ checks

/** Every broken term of the contract, one line each: which command, which argument, which side. */
function contractProblems(
  registered: string[],
  commands: RustCommand[],
  invokes: Invoke[],
  answers: Map<string, string | null>,
): string[] {
  const problems: string[] = [];
  const fns = new Map<string, RustCommand>();
  for (const c of commands) {
    const twin = fns.get(c.name);
    if (twin !== undefined) problems.push(`"${c.name}": two #[tauri::command] functions (${twin.at}, ${c.at})`);
    fns.set(c.name, c);
  }
  const invoked = new Set(invokes.map((i) => i.command));

  for (const name of registered) {
    if (!fns.has(name)) problems.push(`"${name}": registered in command_names.rs, but no #[tauri::command] fn ${name}`);
    if (!invoked.has(name)) problems.push(`"${name}": registered in command_names.rs, but api.ts never invokes it`);
  }
  for (const call of invokes) {
    const fn = fns.get(call.command);
    if (fn === undefined) {
      problems.push(`"${call.command}": api.ts invokes it (${call.at}), but no #[tauri::command] has that name`);
      continue;
    }
    if (!registered.includes(call.command)) {
      problems.push(`"${call.command}": api.ts invokes it (${call.at}), but command_names.rs does not register it`);
    }
    const taken = new Map(fn.args.map((a) => [a.name, a]));
    for (const key of call.keys) {
      if (!taken.has(key)) {
        const args = fn.args.map((a) => a.name).join(", ") || "none";
        problems.push(
          `"${call.command}": api.ts passes "${key}" (${call.at}), but the Rust fn takes no such argument ` +
            `(it takes: ${args}; ${fn.at})`,
        );
      }
    }
    for (const arg of fn.args) {
      if (!call.keys.includes(arg.name)) {
        problems.push(
          `"${call.command}": the Rust fn takes "${arg.name}" (${arg.rustName}: ${arg.type}; ${fn.at}), ` +
            `but api.ts does not pass it (${call.at})`,
        );
      } else if (arg.channel !== call.channels.includes(arg.name)) {
        problems.push(
          arg.channel
            ? `"${call.command}": "${arg.name}" is a ${arg.type} in Rust (${fn.at}), but api.ts passes no Channel (${call.at})`
            : `"${call.command}": api.ts passes a Channel as "${arg.name}" (${call.at}), but Rust takes a ${arg.type} (${fn.at})`,
        );
      }
    }
  }

  const wrapperCommand = new Map(invokes.filter((i) => i.wrapper !== null).map((i) => [i.wrapper!, i.command]));
  for (const name of registered) {
    if (!answers.has(name)) problems.push(`"${name}": test/ipc.ts's CommandAnswers has no answer type for it`);
  }
  for (const [name, wrapper] of answers) {
    if (!registered.includes(name)) {
      problems.push(`"${name}": test/ipc.ts's CommandAnswers has it, but command_names.rs does not register it`);
    } else if (wrapper === null || wrapperCommand.get(wrapper) !== name) {
      const real = invokes.find((i) => i.command === name)?.wrapper;
      problems.push(
        `"${name}": test/ipc.ts's CommandAnswers answers as api.${wrapper ?? "?"}, which does not invoke it` +
          (real ? ` (api.${real} does)` : ""),
      );
    }
  }
  return problems;
}

// ------------------------------------------------------------------- tests

describe("the IPC contract", () => {
  const parseProblems: string[] = [];
  const registered = registeredIn(readFileSync(NAMES_RS, "utf8"), NAMES_RS);
  const commands = rustFiles(RUST_DIR).flatMap((f) => commandsIn(readFileSync(f, "utf8"), f, parseProblems));
  const invokes = invokesIn(readFileSync(API_TS, "utf8"), API_TS, parseProblems);
  const answers = answersIn(readFileSync(IPC_TS, "utf8"), IPC_TS);

  it("reads every command, invoke and mock answer type", () => {
    expect(parseProblems).toEqual([]);
    expect(registered.length).toBeGreaterThan(40);
    expect(commands.length).toBeGreaterThanOrEqual(registered.length);
    expect(invokes.length).toBeGreaterThanOrEqual(registered.length);
    expect(answers.size).toBe(registered.length);
  });

  it("holds between command_names.rs, the Rust functions, api.ts and test/ipc.ts", () => {
    const problems = contractProblems(registered, commands, invokes, answers);
    expect(problems, `\n${problems.join("\n")}\n`).toEqual([]);
  });

  it("knows the Assistant by the core's id for it", () => {
    const agents = readFileSync(join(ROOT, "crates", "atelier-core", "src", "agents", "mod.rs"), "utf8");
    expect(/pub const ASSISTANT: &str = "([^"]+)";/.exec(agents)?.[1]).toBe(ASSISTANT_ID);
  });

  // api.ts's hand lists of commands that change nothing (NEUTRAL) and of
  // reads shared while under way: a name that is no command (renamed) is
  // a read that silently stopped being shared, or a change that forgets
  // no read; a new list_/get_ read left out is fetched again after it.
  it("names only real commands in api.ts's NEUTRAL and SHARED_READS, and every list_/get_ read in one", () => {
    const known = new Set(registered);
    const stray = [...NEUTRAL, ...SHARED_READS].filter((name) => !known.has(name));
    expect(stray).toEqual([]);
    // Named as reads, but they change what other reads answer.
    const changing = new Set(["list_mcp_server"]); // connects, saves what the server lists
    const unsorted = registered.filter(
      (name) => /^(list|get)_/.test(name) && !NEUTRAL.has(name) && !SHARED_READS.has(name) && !changing.has(name),
    );
    expect(unsorted).toEqual([]);
  });
});

describe("the contract's readers", () => {
  const rust = `
use tauri::{ipc::Channel, AppHandle, State};
/// Doc comment: #[tauri::command] pub fn not_me() {}
// #[tauri::command] pub fn commented_out(x: u32) {}
/* #[tauri::command]
   pub fn /* nested */ blocked(y: u32) {} */
#[tauri::command]
pub async fn multi_line<R: Runtime, T: Into<String>>(
    app: tauri::AppHandle<R>,
    state: State<'_, AppState>, // a comment, with, commas
    window: tauri::WebviewWindow<R>,
    request: tauri::ipc::Request<'_>,
    chat_id: String,
    pairs: HashMap<String, (u32, Vec<u8>)>,
    mut on_progress: Channel<Progress>,
    call_back: Box<dyn Fn(u32) -> u32 + Send>,
) -> IpcResult<()> {
    let s = "#[tauri::command] fn in_string(z: u8) {}";
    let c = '"';
    Ok(())
}

#[tauri::command(rename_all = "snake_case")]
#[allow(clippy::too_many_arguments)]
pub(crate) fn kept_snake(state: &State<AppState>, manifest_id: Option<String>) -> bool { true }

#[tauri::command]
fn no_args() {}
`;

  it("reads multi-line signatures, generic commas, comments, injected types, Channels and rename_all", () => {
    const problems: string[] = [];
    const got = commandsIn(rust, join(RUST_DIR, "example.rs"), problems);
    expect(problems).toEqual([]);
    expect(got.map((c) => [c.name, c.args.map((a) => (a.channel ? `${a.name} (channel)` : a.name))])).toEqual([
      ["multi_line", ["chatId", "pairs", "onProgress (channel)", "callBack"]],
      ["kept_snake", ["manifest_id"]],
      ["no_args", []],
    ]);
  });

  it("reads invoke calls with shorthand, renamed, quoted and Channel-valued keys", () => {
    const source = `
import { Channel, invoke as tauriInvoke } from "@tauri-apps/api/core";
function invoke<T>(cmd: string, args?: Record<string, unknown>): Promise<T> { return tauriInvoke<T>(cmd, args); }
export const api = {
  a: (chatId: string) => invoke<Map<string, Array<number>>>("cmd_a", { chatId }),
  b: (id: string) => invoke<null>("cmd_b", { chatId: id, "manifestId": null, nested: { not: "a key" } }),
  c: () => {
    const channel = new Channel<number>();
    return invoke<null>("cmd_c", { onProgress: channel, direct: new Channel() });
  },
  // invoke("commented_out", { x })
  d: () => invoke("cmd_d"),
  e: () => tauriInvoke("cmd_e", { y: 1 }),
};`;
    const problems: string[] = [];
    const got = invokesIn(source, API_TS, problems);
    expect(problems).toEqual([]);
    expect(got.map(({ command, wrapper, keys, channels }) => ({ command, wrapper, keys, channels }))).toEqual([
      { command: "cmd_a", wrapper: "a", keys: ["chatId"], channels: [] },
      { command: "cmd_b", wrapper: "b", keys: ["chatId", "manifestId", "nested"], channels: [] },
      { command: "cmd_c", wrapper: "c", keys: ["onProgress", "direct"], channels: ["onProgress", "direct"] },
      { command: "cmd_d", wrapper: "d", keys: [], channels: [] },
      { command: "cmd_e", wrapper: "e", keys: ["y"], channels: [] },
    ]);
  });

  it("names the command, the argument and the side of each break", () => {
    const problems: string[] = [];
    const commands = commandsIn(rust, join(RUST_DIR, "example.rs"), problems);
    const call = (command: string, keys: string[], channels: string[] = []): Invoke => ({
      command,
      wrapper: command,
      keys,
      channels,
      at: "ui/src/api.ts:1",
    });
    const registered = ["multi_line", "kept_snake", "no_args", "unwrapped"];
    const answers = new Map<string, string | null>(registered.map((n) => [n, n]));
    const got = contractProblems(
      registered,
      commands,
      [
        call("multi_line", ["chatID", "pairs", "onProgress", "callBack"]),
        call("kept_snake", ["manifest_id"]),
        call("no_args", []),
        call("missing_fn", []),
      ],
      answers,
    );
    expect(got).toEqual([
      `"unwrapped": registered in command_names.rs, but no #[tauri::command] fn unwrapped`,
      `"unwrapped": registered in command_names.rs, but api.ts never invokes it`,
      `"multi_line": api.ts passes "chatID" (ui/src/api.ts:1), but the Rust fn takes no such argument (it takes: chatId, pairs, onProgress, callBack; src-tauri/src/example.rs:7)`,
      `"multi_line": the Rust fn takes "chatId" (chat_id: String; src-tauri/src/example.rs:7), but api.ts does not pass it (ui/src/api.ts:1)`,
      `"multi_line": "onProgress" is a Channel<Progress> in Rust (src-tauri/src/example.rs:7), but api.ts passes no Channel (ui/src/api.ts:1)`,
      `"missing_fn": api.ts invokes it (ui/src/api.ts:1), but no #[tauri::command] has that name`,
      `"unwrapped": test/ipc.ts's CommandAnswers answers as api.unwrapped, which does not invoke it`,
    ]);
  });
});
