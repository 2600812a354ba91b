import type { ToolRecord } from "../bindings";
import { Badge } from "../components/feedback";

/** Renderer type and the confirmation indicator of a tool. */
export function ToolBadges({ tool }: { tool: ToolRecord }) {
  const renderer = tool.render_config?.renderer ?? "json";
  return (
    <span className="tool-badges">
      <Badge tone={`renderer-${renderer}`} title={`Output is shown with the ${renderer} renderer`}>
        {renderer}
      </Badge>
      {tool.requires_confirmation && (
        <Badge tone="warning" title="Asks you before it runs">
          <span aria-hidden="true">⚠</span>asks first
        </Badge>
      )}
    </span>
  );
}
