import type { RenderPlan, ToolCallRecord } from "../bindings";
import type { JsonObject } from "../lib/json";

export type RendererProps = { call: ToolCallRecord; plan: RenderPlan; config: JsonObject };
