import DOMPurify from "dompurify";
import MarkdownIt from "markdown-it";

// Raw HTML in markdown is off; DOMPurify cleans whatever markdown-it makes
// (links with javascript: URLs and the like) before it reaches the DOM.
// Shared by every markdown view, the streaming answer's blocks too.
export const md = new MarkdownIt({ html: false, linkify: true, typographer: false });

/** markdown-it's HTML made safe to put in the DOM (the one rule for every markdown view). */
export function sanitizeMarkdownHtml(html: string): string {
  return DOMPurify.sanitize(html, {
    USE_PROFILES: { html: true },
    FORBID_TAGS: ["style", "form", "input", "button", "textarea", "select"],
  });
}

export function renderMarkdown(source: string): string {
  return sanitizeMarkdownHtml(md.render(source));
}

/**
 * The words of markdown without its marks, on one line ("Done: **13**
 * words" → "Done: 13 words"): for labels that show an answer's start.
 * Reads only the first `chars` characters (a label needs a few words, an
 * answer may be 20,000 tokens).
 */
export function markdownWords(source: string, chars = 400): string {
  const out: string[] = [];
  for (const t of md.parse(source.slice(0, chars), {})) {
    if (t.type === "inline") {
      for (const c of t.children ?? []) {
        if (c.type === "text" || c.type === "code_inline" || c.type === "image") out.push(c.content);
        else if (c.type === "softbreak" || c.type === "hardbreak") out.push(" ");
      }
      out.push(" ");
    } else if (t.type === "fence" || t.type === "code_block") {
      out.push(t.content, " ");
    }
  }
  return out.join("").replace(/\s+/g, " ").trim();
}
