import { HighlightStyle } from "@codemirror/language";
import { tags as t } from "@lezer/highlight";

// Colors come from CSS variables, so code reads well in both themes.
export const highlight = HighlightStyle.define([
  {
    tag: [t.keyword, t.controlKeyword, t.moduleKeyword, t.operatorKeyword, t.definitionKeyword],
    color: "var(--hl-keyword)",
  },
  { tag: [t.string, t.special(t.string), t.regexp], color: "var(--hl-string)" },
  { tag: [t.number, t.bool, t.null, t.atom], color: "var(--hl-number)" },
  { tag: [t.comment, t.lineComment, t.blockComment], color: "var(--hl-comment)", fontStyle: "italic" },
  {
    tag: [t.function(t.variableName), t.function(t.propertyName), t.definition(t.function(t.variableName))],
    color: "var(--hl-function)",
  },
  { tag: [t.typeName, t.className, t.namespace], color: "var(--hl-type)" },
  { tag: [t.propertyName, t.attributeName], color: "var(--hl-property)" },
  { tag: [t.tagName, t.angleBracket], color: "var(--hl-tag)" },
  { tag: [t.heading], color: "var(--hl-keyword)", fontWeight: "bold" },
  { tag: [t.emphasis], fontStyle: "italic" },
  { tag: [t.strong], fontWeight: "bold" },
  { tag: [t.link, t.url], color: "var(--hl-string)", textDecoration: "underline" },
  { tag: [t.invalid], color: "var(--danger)" },
]);
