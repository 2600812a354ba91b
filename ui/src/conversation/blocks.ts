// A streaming answer's markdown as top-level blocks (paragraphs, lists,
// code fences, tables…). Appending text can only change the last block, so
// a block is finished once another starts after it: finished blocks are
// parsed and rendered once, and each frame of a stream parses only the
// growing tail (not the whole answer, per token). With markdown-it,
// DOMPurify and the fences' highlighter, a chunk of its own: Markdown.tsx
// loads it (and shows the plain text until it is there).

import type { LanguageSupport } from "@codemirror/language";
import { classHighlighter, highlightCode } from "@lezer/highlight";
import type { Token } from "markdown-it";
import { md, sanitizeMarkdownHtml } from "../renderers/markdownIt";

export type Block = {
  /** Its place in the message: stable, a React key. */
  key: number;
  source: string;
  /** A top-level code fence: drawn by CodeBlock (highlighting, Copy code). */
  fence: { lang: string; code: string } | null;
  tokens: Token[];
};

/** The source's top-level blocks, each with its tokens. */
export function splitBlocks(source: string, firstKey = 0): Block[] {
  const tokens = md.parse(source, {});
  const lines = source.split("\n");
  const starts: number[] = [];
  tokens.forEach((t, i) => {
    if (t.level === 0 && t.nesting !== -1 && t.map !== null) starts.push(i);
  });
  return starts.map((at, n) => {
    const end = starts[n + 1] ?? tokens.length;
    const own = tokens.slice(at, end);
    const from = n === 0 ? 0 : tokens[at]!.map![0];
    const to = n + 1 < starts.length ? tokens[starts[n + 1]!]!.map![0] : lines.length;
    const first = own[0]!;
    return {
      key: firstKey + n,
      source: lines.slice(from, to).join("\n"),
      fence: first.type === "fence" ? { lang: first.info.trim().split(/\s+/)[0] ?? "", code: first.content } : null,
      tokens: own,
    };
  });
}

/**
 * A small least-recently-used map: a message drawn again (a branch switched
 * back to, a long list scrolled past and back) skips the work done for it
 * before. Its keys hold at most `budget` characters in all (what is kept
 * for a key grows with it), and a key over `largest` is not kept.
 */
class Recent<V> {
  private map = new Map<string, V>();
  private chars = 0;
  constructor(
    private readonly budget: number,
    private readonly largest: number,
  ) {}

  get(key: string, make: () => V): V {
    const kept = this.map.get(key);
    if (kept !== undefined) {
      this.map.delete(key);
      this.map.set(key, kept);
      return kept;
    }
    const made = make();
    if (key.length <= this.largest) {
      this.map.set(key, made);
      this.chars += key.length;
      for (const oldest of this.map.keys()) {
        if (this.chars <= this.budget) break;
        this.map.delete(oldest);
        this.chars -= oldest.length;
      }
    }
    return made;
  }
}

// Keyed by the HTML markdown-it made, not the block's source: a block's
// links may come from a reference defined elsewhere in its message.
const sanitized = new Recent<string>(2_000_000, 20_000);

/** A block's sanitized HTML (DOMPurify is the costly half: it is done once per HTML). */
export function blockHtml(b: Block): string {
  const html = md.renderer.render(b.tokens, md.options, {});
  return sanitized.get(html, () => sanitizeMarkdownHtml(html));
}

/** The longest message text whose parse is kept (longer ones keep their own `BlockStream`'s). */
const PARSED_LARGEST = 50_000;

// Tokens take several times their text: about a megabyte of messages.
const parsed = new Recent<{ done: Block[]; tail: Block | null }>(1_000_000, PARSED_LARGEST);

/** Whether `finishedBlocks` keeps `text`'s parse. */
export function keepsParsed(text: string): boolean {
  return text.length <= PARSED_LARGEST;
}

/** A finished message's blocks, as `BlockStream` would give them, parsed once per text. */
export function finishedBlocks(text: string): { done: Block[]; tail: Block | null } {
  return parsed.get(text, () => {
    const blocks = splitBlocks(text);
    return { done: blocks.slice(0, -1), tail: blocks.at(-1) ?? null };
  });
}

/**
 * Follows one growing text: `update` with the text so far gives the
 * finished blocks (the same objects as before, plus new ones) and the tail.
 */
export class BlockStream {
  private done: Block[] = [];
  /** Characters of the text the finished blocks hold (with their newlines). */
  private used = 0;
  private last: string | null = null;
  private tail: Block | null = null;

  update(text: string): { done: Block[]; tail: Block | null } {
    if (text === this.last) return { done: this.done, tail: this.tail };
    // Not a continuation (another message, an edit): start again.
    if (this.last === null || !text.startsWith(this.last.slice(0, this.used))) {
      this.done = [];
      this.used = 0;
    }
    this.last = text;
    const blocks = splitBlocks(text.slice(this.used), this.done.length);
    const finished = blocks.slice(0, -1);
    if (finished.length > 0) {
      this.done = [...this.done, ...finished];
      for (const b of finished) this.used += b.source.length + 1;
    }
    this.tail = blocks.at(-1) ?? null;
    return { done: this.done, tail: this.tail };
  }
}

export type Piece = [text: string, classes: string];

/** A code fence's text as pieces with the highlighter's classes ("" between tokens). */
export function highlightedPieces(code: string, support: LanguageSupport): Piece[] {
  const out: Piece[] = [];
  highlightCode(
    code,
    support.language.parser.parse(code),
    classHighlighter,
    (text, classes) => out.push([text, classes]),
    () => out.push(["\n", ""]),
  );
  return out;
}
