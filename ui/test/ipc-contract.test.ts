// The contract between ui/src/api.ts and the Tauri commands: every command
// the shell registers is wrapped once, with the argument names the Rust
// function takes (Tauri turns `chat_id` into `chatId`). Read from the
// sources, so a renamed command or argument fails here instead of at run
// time in the app.
/// <reference types="node" />
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(__dirname, "..", "..");

/** Parameters Tauri injects; the webview does not pass them. */
const INJECTED = /^(?:tauri::)?(?:ipc::)?(State|AppHandle|Window|WebviewWindow|Webview|Request)\b/;

const camel = (s: string) => s.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/** Splits on top-level commas (not inside `<…>`, `(…)`, `[…]`). */
function splitTop(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = "";
  for (const ch of s) {
    if ("<([".includes(ch)) depth++;
    if (">)]".includes(ch)) depth--;
    if (ch === "," && depth === 0) {
      out.push(cur);
      cur = "";
    } else cur += ch;
  }
  if (cur.trim() !== "") out.push(cur);
  return out.map((p) => p.trim()).filter((p) => p !== "");
}

/** Every `#[tauri::command]` of src-tauri/src: name → JS argument names. */
function rustCommands(): Map<string, string[]> {
  const dir = join(root, "src-tauri", "src");
  const out = new Map<string, string[]>();
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".rs"))) {
    const text = readFileSync(join(dir, file), "utf8");
    const re = /#\[tauri::command(\([^)]*\))?\]\s*pub\s+(?:async\s+)?fn\s+(\w+)\s*(?:<[^>]*>)?\s*\(/g;
    for (let m = re.exec(text); m !== null; m = re.exec(text)) {
      const snake = (m[1] ?? "").includes("snake_case");
      let depth = 1;
      let i = re.lastIndex;
      while (depth > 0 && i < text.length) {
        if (text[i] === "(") depth++;
        if (text[i] === ")") depth--;
        i++;
      }
      const params = splitTop(text.slice(re.lastIndex, i - 1))
        .map((p) => {
          const [name, ...ty] = p.split(":");
          return { name: name!.trim().replace(/^mut\s+/, ""), ty: ty.join(":").trim() };
        })
        .filter((p) => !INJECTED.test(p.ty));
      out.set(
        m[2]!,
        params.map((p) => (snake ? p.name : camel(p.name))),
      );
    }
  }
  return out;
}

/** Every `invoke("name", { … })` in api.ts: name → argument keys. */
function apiCalls(): Map<string, string[][]> {
  const text = readFileSync(join(root, "ui", "src", "api.ts"), "utf8");
  const out = new Map<string, string[][]>();
  const re = /invoke<[^>]*(?:<[^>]*>[^>]*)*>\(\s*"(\w+)"\s*(?:,\s*\{([^}]*)\})?\s*\)/g;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    const keys = (m[2] ?? "")
      .split(",")
      .map((k) => k.trim().split(":")[0]!.trim())
      .filter((k) => k !== "");
    out.set(m[1]!, [...(out.get(m[1]!) ?? []), keys]);
  }
  return out;
}

describe("the IPC contract", () => {
  const commands = rustCommands();
  const calls = apiCalls();

  it("finds the commands and the wrappers", () => {
    expect(commands.size).toBeGreaterThan(40);
    expect(calls.size).toBeGreaterThan(40);
  });

  it("wraps every registered command, and invokes no other", () => {
    const registered = readFileSync(join(root, "src-tauri", "src", "command_names.rs"), "utf8");
    const names = [...registered.matchAll(/^\s*"(\w+)",/gm)].map((m) => m[1]!);
    const missing = names.filter((n) => !calls.has(n));
    const unknown = [...calls.keys()].filter((n) => !names.includes(n));
    expect({ missing, unknown }).toEqual({ missing: [], unknown: [] });
    const noFunction = names.filter((n) => !commands.has(n));
    expect(noFunction).toEqual([]);
  });

  it("passes exactly the arguments each command takes", () => {
    const mismatches: string[] = [];
    for (const [name, uses] of calls) {
      const want = [...(commands.get(name) ?? [])].sort();
      for (const keys of uses) {
        const got = [...keys].sort();
        if (JSON.stringify(got) !== JSON.stringify(want)) {
          mismatches.push(`${name}: api.ts passes {${got.join(", ")}}, the command takes (${want.join(", ")})`);
        }
      }
    }
    expect(mismatches).toEqual([]);
  });
});
