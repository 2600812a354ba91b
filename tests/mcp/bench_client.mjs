// The reference figure for the MCP client benchmark: the TypeScript SDK's
// Client over stdio to server-everything, N sequential `echo` calls after 50
// warm-up calls. Prints one JSON line: {"calls":N,"seconds":S,"per_call_us":U}.
//
//   node tests/mcp/bench_client.mjs [N]   (N defaults to 2000)
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const calls = Number.parseInt(process.argv[2] ?? "2000", 10);
if (!Number.isInteger(calls) || calls < 1) {
  console.error("usage: node bench_client.mjs [N]  (N: calls to time, a positive integer)");
  process.exit(2);
}
const WARMUP = 50;

const server = fileURLToPath(
  new URL("node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url),
);
const transport = new StdioClientTransport({
  command: process.execPath,
  args: [server, "stdio"],
  stderr: "ignore", // it says "Starting default (STDIO) server..."
});
const client = new Client({ name: "atelier-bench-reference", version: "1.0.0" });
await client.connect(transport);

const echo = async (i) => {
  const result = await client.callTool({ name: "echo", arguments: { message: `call ${i}` } });
  if (result.content?.[0]?.text !== `Echo: call ${i}`) {
    throw new Error(`unexpected echo result: ${JSON.stringify(result)}`);
  }
};

for (let i = 0; i < WARMUP; i++) await echo(i);
const start = process.hrtime.bigint();
for (let i = 0; i < calls; i++) await echo(i);
const seconds = Number(process.hrtime.bigint() - start) / 1e9;
await client.close();

console.log(
  JSON.stringify({
    calls,
    seconds: Number(seconds.toFixed(4)),
    per_call_us: Number(((seconds / calls) * 1e6).toFixed(1)),
  }),
);
