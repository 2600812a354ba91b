// Readers for the IPC contract test (ipc-contract.test.ts): the commands
// the Rust sources define and register, the `invoke` calls api.ts makes, and
// the answer types test/ipc.ts's mocks use — read from the sources, with
// where each was found.
/// <reference types="node" />
import { readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";

// The repository, from this file (vitest gives each module its `__dirname`).
export const ROOT = join(__dirname, "..", "..");

const where = (file: string, line: number) => `${relative(ROOT, file)}:${line}`;

// ---------------------------------------------------------------- Rust side

/** Parameter types Tauri fills in itself: the webview does not pass them. */
const INJECTED = new Set([
  "State",
  "AppHandle",
  "Window",
  "Webview",
  "WebviewWindow",
  "Request",
  "CommandScope",
  "GlobalScope",
]);

export type RustArg = { name: string; rustName: string; type: string; channel: boolean };
export type RustCommand = { name: string; args: RustArg[]; at: string };

/**
 * Rust source with its comments blanked (newlines kept, so offsets and lines
 * stay), and with `strings` the insides of string and char literals too.
 */
export function blankRust(src: string, strings: boolean): string {
  let out = "";
  let i = 0;
  const blank = (s: string) => s.replace(/[^\n]/g, " ");
  // A literal's quotes stay; its inside is blanked only when asked.
  const literal = (s: string, open: number, close: number) =>
    strings ? s.slice(0, open) + blank(s.slice(open, s.length - close)) + s.slice(s.length - close) : s;
  while (i < src.length) {
    const rest = src.slice(i, i + 2);
    if (rest === "//") {
      const end = src.indexOf("\n", i);
      const stop = end === -1 ? src.length : end;
      out += blank(src.slice(i, stop));
      i = stop;
    } else if (rest === "/*") {
      // Rust block comments nest.
      let depth = 0;
      let j = i;
      do {
        if (src.startsWith("/*", j)) {
          depth++;
          j += 2;
        } else if (src.startsWith("*/", j)) {
          depth--;
          j += 2;
        } else j++;
      } while (depth > 0 && j < src.length);
      out += blank(src.slice(i, j));
      i = j;
    } else {
      const raw = /^b?r(#*)"/.exec(src.slice(i, i + 260));
      const ch = /^'(?:\\(?:x[0-9a-fA-F]{2}|u\{[0-9a-fA-F]+\}|.)|[^\\'\n])'/u.exec(src.slice(i, i + 16));
      if (raw !== null && !/\w/.test(src[i - 1] ?? "")) {
        const close = `"${raw[1]}`;
        const end = src.indexOf(close, i + raw[0].length);
        const stop = end === -1 ? src.length : end + close.length;
        out += literal(src.slice(i, stop), raw[0].length, close.length);
        i = stop;
      } else if (src[i] === '"') {
        let j = i + 1;
        while (j < src.length && src[j] !== '"') j += src[j] === "\\" ? 2 : 1;
        out += literal(src.slice(i, j + 1), 1, 1);
        i = j + 1;
      } else if (ch !== null) {
        out += literal(ch[0], 1, 1);
        i += ch[0].length;
      } else {
        out += src[i];
        i++;
      }
    }
  }
  return out;
}

/** The index just past the bracket that closes the one at `open` (`(`, `[`, `{` or `<`). */
export function closing(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"') {
      i++;
      while (i < text.length && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
    } else if ("([{<".includes(c)) depth++;
    else if (")]}".includes(c) || (c === ">" && text[i - 1] !== "-")) {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  throw new Error(`unbalanced brackets from: ${text.slice(open, open + 80)}`);
}

/** Splits on the commas outside any bracket (`State<'_, AppState>` stays whole). */
export function splitTopLevel(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = "";
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if ("([{<".includes(c)) depth++;
    else if (")]}".includes(c) || (c === ">" && s[i - 1] !== "-")) depth--;
    if (c === "," && depth === 0) {
      out.push(cur);
      cur = "";
    } else cur += c;
  }
  out.push(cur);
  return out.map((p) => p.trim()).filter((p) => p !== "");
}

/** `chat_id` → `chatId`, as Tauri's default (heck's lowerCamelCase) does. */
export function camelCase(snake: string): string {
  const words = snake.split("_").filter((w) => w !== "");
  return words.map((w, i) => (i === 0 ? w.toLowerCase() : w[0]!.toUpperCase() + w.slice(1).toLowerCase())).join("");
}

/** The last path segment of a type's head: `&tauri::State<'_, S>` → `State`. */
export function typeHead(ty: string): string {
  const t = ty
    .replace(/^&\s*(?:'\w+\s+)?(?:mut\s+)?/, "")
    .replace(/^(?:impl|dyn)\s+/, "")
    .trim();
  const path = /^[\w:]+/.exec(t)?.[0] ?? "";
  return path.split("::").at(-1) ?? "";
}

/** Every `#[tauri::command]` function in `src` (one file's text), with its webview-visible arguments. */
export function commandsIn(src: string, file: string, problems: string[]): RustCommand[] {
  // Everything is read in `text`, with string and char literals blanked (an
  // attribute inside a string is no command), but for the attribute's
  // options, read at the same offsets in `code`.
  const code = blankRust(src, false);
  const text = blankRust(src, true);
  const out: RustCommand[] = [];
  const attr = /#\[\s*(?:tauri\s*::\s*)?command\b\s*(\(([^)]*)\))?\s*\]/g;
  for (let m = attr.exec(text); m !== null; m = attr.exec(text)) {
    const line = text.slice(0, m.index).split("\n").length;
    const at = where(file, line);
    // Other attributes may follow the command's.
    let i = attr.lastIndex;
    for (;;) {
      while (/\s/.test(text[i] ?? "")) i++;
      if (text[i] !== "#") break;
      i = closing(text, text.indexOf("[", i));
    }
    const head =
      /^(?:pub\s*(?:\([^)]*\)\s*)?)?(?:(?:async|unsafe|const|extern\s+"[^"]*")\s+)*fn\s+(?:r#)?(\w+)\s*/.exec(
        text.slice(i),
      );
    if (head === null) {
      problems.push(`${at}: a #[tauri::command] attribute not followed by a function this test can read`);
      continue;
    }
    const name = head[1]!;
    i += head[0].length;
    if (text[i] === "<") i = closing(text, i);
    while (/\s/.test(text[i] ?? "")) i++;
    if (text[i] !== "(") {
      problems.push(`${at}: could not find the parameter list of \`${name}\``);
      continue;
    }
    const end = closing(text, i);
    const options = m[2] === undefined ? "" : code.slice(m.index, attr.lastIndex);
    const renameAll = /rename_all\s*=\s*"(\w+)"/.exec(options)?.[1] ?? "camelCase";
    if (renameAll !== "camelCase" && renameAll !== "snake_case") {
      problems.push(`${at}: \`${name}\` has rename_all = "${renameAll}", which this test does not know`);
    }
    const args: RustArg[] = [];
    for (const param of splitTopLevel(text.slice(i + 1, end - 1))) {
      const colon = /(?<!:):(?!:)/.exec(param);
      const pattern = colon === null ? param : param.slice(0, colon.index).trim();
      const type = colon === null ? "" : param.slice(colon.index + 1).trim();
      const ident = /^(?:mut\s+)?(?:r#)?(\w+)$/.exec(pattern)?.[1];
      if (ident === undefined || type === "") {
        problems.push(`${at}: \`${name}\` has a parameter this test cannot read: \`${param}\``);
        continue;
      }
      const kind = typeHead(type);
      if (INJECTED.has(kind)) continue;
      args.push({
        rustName: ident,
        name: renameAll === "snake_case" ? ident : camelCase(ident),
        type,
        channel: kind === "Channel",
      });
    }
    out.push({ name, args, at });
  }
  return out;
}

export function rustFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return rustFiles(path);
    return entry.endsWith(".rs") ? [path] : [];
  });
}

/** The names in command_names.rs's `COMMANDS` list. */
export function registeredIn(src: string, file: string): string[] {
  const text = blankRust(src, false);
  const list = /COMMANDS\s*:[^=]*=\s*&\s*\[([^\]]*)\]/.exec(text);
  if (list === null) throw new Error(`no \`COMMANDS\` list in ${relative(ROOT, file)}`);
  return [...list[1]!.matchAll(/"(\w+)"/g)].map((m) => m[1]!);
}

// ------------------------------------------------------------ TypeScript side

export type Invoke = {
  command: string;
  /** The `api` member that makes this call, if it is one. */
  wrapper: string | null;
  keys: string[];
  /** The keys whose value is a `Channel` (a `new Channel` or a variable holding one). */
  channels: string[];
  at: string;
};

function enclosingFunction(node: ts.Node): ts.SignatureDeclaration | null {
  for (let n = node.parent; n !== undefined; n = n.parent) if (ts.isFunctionLike(n)) return n;
  return null;
}

function wrapperOf(node: ts.Node): string | null {
  for (let n = node.parent; n !== undefined; n = n.parent) {
    if ((ts.isPropertyAssignment(n) || ts.isMethodDeclaration(n)) && ts.isObjectLiteralExpression(n.parent)) {
      const holder = n.parent.parent;
      if (ts.isVariableDeclaration(holder) && ts.isIdentifier(holder.name) && holder.name.text === "api") {
        return ts.isIdentifier(n.name) || ts.isStringLiteral(n.name) ? n.name.text : null;
      }
    }
  }
  return null;
}

/** Whether `value` is a Channel: `new Channel(…)`, or a variable of the same function set to one. */
function isChannel(value: ts.Expression, scope: ts.Node | null): boolean {
  if (ts.isNewExpression(value)) return ts.isIdentifier(value.expression) && value.expression.text === "Channel";
  if (!ts.isIdentifier(value) || scope === null) return false;
  let found = false;
  const visit = (n: ts.Node) => {
    if (
      ts.isVariableDeclaration(n) &&
      ts.isIdentifier(n.name) &&
      n.name.text === value.text &&
      n.initializer !== undefined &&
      isChannel(n.initializer, null)
    ) {
      found = true;
    }
    ts.forEachChild(n, visit);
  };
  visit(scope);
  return found;
}

/**
 * Every `invoke(…)` in `src`: its command and argument keys. Calls it cannot
 * read (a command name that is not a literal, arguments that are not an
 * object literal, a spread or computed key) are problems.
 */
export function invokesIn(src: string, file: string, problems: string[]): Invoke[] {
  const sf = ts.createSourceFile(file, src, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  // `invoke` is api.ts's own wrapper; Tauri's may also be imported under another name.
  const callees = new Set(["invoke"]);
  for (const st of sf.statements) {
    const named = ts.isImportDeclaration(st) ? st.importClause?.namedBindings : undefined;
    if (named !== undefined && ts.isNamedImports(named)) {
      for (const el of named.elements) if ((el.propertyName ?? el.name).text === "invoke") callees.add(el.name.text);
    }
  }
  const out: Invoke[] = [];
  const visit = (node: ts.Node) => {
    ts.forEachChild(node, visit);
    if (!ts.isCallExpression(node) || !ts.isIdentifier(node.expression) || !callees.has(node.expression.text)) return;
    const at = where(file, sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1);
    const fn = enclosingFunction(node);
    const [cmd, args] = node.arguments;
    if (cmd === undefined || !(ts.isStringLiteral(cmd) || ts.isNoSubstitutionTemplateLiteral(cmd))) {
      // The wrapper itself passes its `cmd` parameter on.
      const inWrapper = fn !== null && ts.isFunctionDeclaration(fn) && fn.name?.text === "invoke";
      if (!inWrapper) problems.push(`${at}: an invoke whose command is not a string literal`);
      return;
    }
    const keys: string[] = [];
    const channels: string[] = [];
    if (args !== undefined) {
      if (!ts.isObjectLiteralExpression(args)) {
        problems.push(`${at}: invoke("${cmd.text}", …) passes something other than an object literal`);
        return;
      }
      for (const p of args.properties) {
        const key =
          (ts.isPropertyAssignment(p) || ts.isShorthandPropertyAssignment(p)) &&
          (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name))
            ? p.name.text
            : null;
        if (key === null) {
          problems.push(`${at}: invoke("${cmd.text}", …) has a property this test cannot read: ${p.getText(sf)}`);
          continue;
        }
        keys.push(key);
        const value = ts.isPropertyAssignment(p) ? p.initializer : (p as ts.ShorthandPropertyAssignment).name;
        // The variable may be declared in an enclosing function (an
        // invoke inside a callback, as a send that first waits for moves).
        let channel = false;
        for (let scope: ts.Node | null = fn; scope !== null && !channel; scope = enclosingFunction(scope)) {
          channel = isChannel(value, scope);
        }
        if (channel) channels.push(key);
      }
    }
    out.push({ command: cmd.text, wrapper: wrapperOf(node), keys, channels, at });
  };
  visit(sf);
  return out;
}

/** test/ipc.ts's `CommandAnswers`: command → the `api` wrapper named in `Answer<"wrapper">`. */
export function answersIn(src: string, file: string): Map<string, string | null> {
  const sf = ts.createSourceFile(file, src, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const alias = sf.statements.find(
    (st): st is ts.TypeAliasDeclaration => ts.isTypeAliasDeclaration(st) && st.name.text === "CommandAnswers",
  );
  if (alias === undefined || !ts.isTypeLiteralNode(alias.type)) {
    throw new Error(`${relative(ROOT, file)} has no \`type CommandAnswers = { … }\``);
  }
  const out = new Map<string, string | null>();
  for (const member of alias.type.members) {
    if (!ts.isPropertySignature(member) || member.name === undefined) continue;
    const name = ts.isIdentifier(member.name) || ts.isStringLiteral(member.name) ? member.name.text : null;
    if (name === null) continue;
    const ty = member.type;
    const arg = ty !== undefined && ts.isTypeReferenceNode(ty) ? ty.typeArguments?.[0] : undefined;
    const wrapper =
      arg !== undefined && ts.isLiteralTypeNode(arg) && ts.isStringLiteral(arg.literal) ? arg.literal.text : null;
    out.set(name, wrapper);
  }
  return out;
}
