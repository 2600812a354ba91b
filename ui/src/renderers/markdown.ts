// Markdown for the first screen, without markdown-it: the parser and
// DOMPurify are a chunk of their own (`markdownIt`, markdownIt.ts), and
// the few words a label shows of an answer (`markdownWords`) are read here
// with a small reader of the marks a model writes.
import { lazyModule } from "../lib/lazy";

/** markdown-it and DOMPurify (`md`, `renderMarkdown`, `sanitizeMarkdownHtml`), loaded on demand. */
export const markdownIt = lazyModule(() => import("./markdownIt"));

// Backslash escapes stand aside while the marks are read: each escaped
// character becomes a private-use one, put back at the end.
const ESCAPED = 0xe000;
const PUNCTUATION = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };

function entity(whole: string, name: string): string {
  if (name.startsWith("#x") || name.startsWith("#X")) return codePoint(parseInt(name.slice(2), 16), whole);
  if (name.startsWith("#")) return codePoint(parseInt(name.slice(1), 10), whole);
  return ENTITIES[name] ?? whole;
}

function codePoint(n: number, whole: string): string {
  return Number.isInteger(n) && n > 0 && n <= 0x10ffff ? String.fromCodePoint(n) : whole;
}

/** One line's inline marks taken away: emphasis, code spans, links and images (their words stay). */
function inlineWords(line: string, refs: ReadonlySet<string>): string {
  let s = line.replace(/\\([!-/:-@[-`{-~])/g, (_, c: string) => String.fromCharCode(ESCAPED + PUNCTUATION.indexOf(c)));
  // Code spans first: nothing inside them is a mark.
  const code: string[] = [];
  s = s.replace(/(`+)(?!`)([\s\S]*?[^`])\1(?!`)/g, (_, _ticks: string, body: string) => {
    const inner = /^ .* $/.test(body) && body.trim() !== "" ? body.slice(1, -1) : body;
    code.push(inner);
    return `\ue100${code.length - 1}\ue100`;
  });
  s = s
    .replace(/<([a-zA-Z][a-zA-Z0-9+.-]{1,31}:[^\s<>]*)>/g, "$1")
    .replace(/<([^\s<>@]+@[^\s<>@]+)>/g, "$1")
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/!?\[([^\]]*)\]\[([^\]]*)\]/g, (whole, text: string, ref: string) =>
      refs.has((ref === "" ? text : ref).toLowerCase()) ? text : whole,
    )
    .replace(/!?\[([^\]]+)\](?![[(:])/g, (whole, text: string) => (refs.has(text.toLowerCase()) ? text : whole));
  // Emphasis and strikethrough, innermost last: `***x***` is `x`.
  for (let before = ""; before !== s;) {
    before = s;
    s = s
      .replace(/(\*\*|~~)(?=\S)([\s\S]*?\S)\1/g, "$2")
      .replace(/(?<![\p{L}\p{N}_])__(?=\S)([\s\S]*?\S)__(?![\p{L}\p{N}_])/gu, "$1")
      .replace(/\*(?=[^\s*])([\s\S]*?[^\s*])\*/g, "$1")
      .replace(/(?<![\p{L}\p{N}_])_(?=\S)([\s\S]*?\S)_(?![\p{L}\p{N}_])/gu, "$1");
  }
  s = s.replace(/\ue100(\d+)\ue100/g, (_, i: string) => code[Number(i)]!);
  s = s.replace(/&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[a-zA-Z][a-zA-Z0-9]{1,31});/g, entity);
  return s.replace(/[\ue000-\ue01f]/g, (c) => PUNCTUATION[c.charCodeAt(0) - ESCAPED]!);
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const RULE = /^ {0,3}([-*_])( *\1){2,} *$/;
const SETEXT = /^ {0,3}(=+|-+) *$/;
const TABLE_DELIMITER = /^ *\|? *:?-+:? *(\| *:?-+:? *)*\|? *$/;
const REFERENCE = /^ {0,3}\[([^\]]+)\]: *\S+.*$/;

/**
 * The words of markdown without its marks, on one line ("Done: **13**
 * words" → "Done: 13 words"): for labels that show an answer's start.
 * Reads only the first `chars` characters (a label needs a few words, an
 * answer may be 20,000 tokens). Not markdown-it (which the first screen
 * does not load): the marks models write — headings, lists, quotes,
 * emphasis, code, links, images, tables, rules, escapes — are read as it
 * reads them (markdown-words.test.ts); rarer cases may keep a mark (a
 * named entity other than &amp; and its kind, marks run together, a link
 * written without <> followed by marks).
 */
export function markdownWords(source: string, chars = 400): string {
  const lines = source.slice(0, chars).split("\n");
  const refs = new Set<string>();
  for (const l of lines) {
    const m = REFERENCE.exec(l);
    if (m !== null) refs.add(m[1]!.toLowerCase());
  }
  const out: string[] = [];
  let fence: string | null = null;
  let table = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (fence !== null) {
      const close = FENCE.exec(line);
      if (close !== null && close[1]![0] === fence[0] && close[1]!.length >= fence.length && line.trim() === close[1]) {
        fence = null;
      } else out.push(line);
      continue;
    }
    if (line.trim() === "") {
      table = false;
      continue;
    }
    if (RULE.test(line) || SETEXT.test(line) || REFERENCE.test(line)) continue;
    if (TABLE_DELIMITER.test(line) && line.includes("-") && (line.includes("|") || table)) {
      table = true;
      continue;
    }
    let text = line;
    // Quote marks, then a list item's marker, then a fence or a heading.
    for (let q = /^ {0,3}> ?/.exec(text); q !== null; q = /^ {0,3}> ?/.exec(text)) text = text.slice(q[0].length);
    text = text.replace(/^ *(?:[-+*]|\d{1,9}[.)])(?: +|$)/, "");
    const open = FENCE.exec(text);
    if (open !== null) {
      fence = open[1]!;
      continue;
    }
    const heading = /^ {0,3}#{1,6}(?: +|$)/.exec(text);
    if (heading !== null) text = text.slice(heading[0].length).replace(/ +#+ *$/, "");
    const next = lines[i + 1];
    if (table || (next !== undefined && TABLE_DELIMITER.test(next) && next.includes("-") && text.includes("|"))) {
      text = text
        .replace(/^ *\|/, "")
        .replace(/\| *$/, "")
        .replace(/(?<!\\)\|/g, " ");
    }
    out.push(inlineWords(text.replace(/\\$/, ""), refs));
  }
  return out.join(" ").replace(/\s+/g, " ").trim();
}
