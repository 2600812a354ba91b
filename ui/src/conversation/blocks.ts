// A streaming answer's markdown as top-level blocks (paragraphs, lists,
// code fences, tables…). Appending text can only change the last block, so
// a block is finished once another starts after it: finished blocks are
// parsed and rendered once, and each frame of a stream parses only the
// growing tail (not the whole answer, per token).

import type { Token } from "markdown-it";
import { md, sanitizeMarkdownHtml } from "../renderers/markdown";

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

/** A block's sanitized HTML. */
export function blockHtml(b: Block): string {
  return sanitizeMarkdownHtml(md.renderer.render(b.tokens, md.options, {}));
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
