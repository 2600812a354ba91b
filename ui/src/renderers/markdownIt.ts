// markdown-it and DOMPurify, a chunk of their own: views reach it through
// markdown.ts (`markdownIt`), loaded when one first needs it or in idle time
// after the first paint. Raw HTML in markdown is off; DOMPurify cleans
// whatever markdown-it makes (links with javascript: URLs and the like)
// before it reaches the DOM. Shared by every markdown view, the streaming
// answer's blocks too.
import DOMPurify from "dompurify";
import MarkdownIt from "markdown-it";

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
