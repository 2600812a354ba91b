import DOMPurify from "dompurify";
import MarkdownIt from "markdown-it";

// Raw HTML in markdown is off; DOMPurify cleans whatever markdown-it makes
// (links with javascript: URLs and the like) before it reaches the DOM.
const md = new MarkdownIt({ html: false, linkify: true, typographer: false });

export function renderMarkdown(source: string): string {
  return DOMPurify.sanitize(md.render(source), {
    USE_PROFILES: { html: true },
    FORBID_TAGS: ["style", "form", "input", "button", "textarea", "select"],
  });
}
