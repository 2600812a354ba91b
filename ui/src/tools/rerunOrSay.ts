// "Run again…": open the call's form, or say why its tool cannot run now
// (its toolset is disabled: with Enable; gone: no fix here).

import { api } from "../api";
import type { ToolCallRecord, ToolRecord } from "../bindings";
import type { RerunBlock } from "../calls/rerun";

export async function rerunOrSay(
  call: ToolCallRecord,
  available: ToolRecord[],
  openForm: (call: ToolCallRecord) => void,
  reloadTools: () => void,
): Promise<RerunBlock | null> {
  if (available.some((t) => t.tool_id === call.tool_id)) {
    openForm(call);
    return null;
  }
  // The core says which toolset the tool belongs to, and whether it is on.
  const [tool, toolsets] = await Promise.all([api.getTool(call.tool_id).catch(() => null), api.listToolsets()]);
  const toolset = tool?.toolset_id == null ? undefined : toolsets.find((t) => t.id === tool.toolset_id);
  if (toolset !== undefined && !toolset.enabled) {
    return {
      message: `${call.tool_id} cannot run again while its toolset ${toolset.name} is disabled.`,
      fix: {
        label: `Enable ${toolset.name}`,
        run: async () => {
          await api.enableToolset(toolset.id, true);
          reloadTools();
          openForm(call);
        },
      },
    };
  }
  return {
    message: `${call.tool_id} is not available any more: its toolset was removed, or upgraded to a version without it.`,
    fix: null,
  };
}
