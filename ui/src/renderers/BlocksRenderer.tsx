import type { ReactNode } from "react";
import type { RenderPlan } from "../bindings";
import { Notice } from "../components/feedback";
import { asObject, str } from "../lib/json";
import type { RendererProps } from "./types";

/** The renderers a part may use: a page or a nested list has no place in a list. */
const PART_RENDERERS = new Set(["code", "document", "image", "audio"]);

/**
 * MCP content of several blocks (the core's `blocks` plan): each part —
 * text, an image, a sound, an embedded resource — shown by its own renderer, in the
 * order the server gave them, so no block is hidden behind another.
 */
export function BlocksRenderer({ plan, config, part }: RendererProps & { part: (plan: RenderPlan) => ReactNode }) {
  const blocks = Array.isArray(config.blocks) ? config.blocks : [];
  if (blocks.length === 0) return <Notice>This tool returned no content.</Notice>;
  return (
    <div className="blocks-renderer">
      {blocks.map((b, i) => {
        const block = asObject(b);
        const renderer = str(block, "renderer") ?? "";
        return (
          // The list never changes for a call: its position is its identity.
          <div className="blocks-part" key={i}>
            {PART_RENDERERS.has(renderer) ? (
              part({ ...plan, renderer, config: asObject(block.config), warnings: [] })
            ) : (
              <Notice>
                Part {i + 1} is shown by “{renderer}”, which a list of parts does not use.
              </Notice>
            )}
          </div>
        );
      })}
    </div>
  );
}
