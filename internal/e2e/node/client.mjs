// A real MCP client for the end-to-end tests: the official TypeScript SDK
// driven over stdin/stdout. Each input line is a JSON command, each output
// line the JSON answer to one command, in order:
//
//   {"op":"connect","url":"http://127.0.0.1:8080/mcp"}
//     -> {"ok":true,"serverInfo":...,"instructions":...,"capabilities":...}
//   {"op":"listTools"}                      -> {"ok":true,"result":{tools:[...]}}
//   {"op":"callTool","name":"...","arguments":{...}} -> {"ok":true,"result":{...}}
//   {"op":"close"}                          -> {"ok":true}
//
// A failed command answers {"ok":false,"error":"..."} and the client goes on.
import { createInterface } from "node:readline";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

let client;
const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
const send = (obj) => process.stdout.write(JSON.stringify(obj) + "\n");

async function handle(cmd) {
  switch (cmd.op) {
    case "connect": {
      client = new Client({ name: "e2e-ts-client", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(cmd.url)));
      return {
        serverInfo: client.getServerVersion(),
        instructions: client.getInstructions(),
        capabilities: client.getServerCapabilities(),
      };
    }
    case "listTools":
      return { result: await client.listTools() };
    case "callTool":
      return { result: await client.callTool({ name: cmd.name, arguments: cmd.arguments }) };
    case "close":
      await client.close();
      return {};
    default:
      throw new Error(`unknown op ${cmd.op}`);
  }
}

// Commands run one at a time, in order.
let chain = Promise.resolve();
rl.on("line", (line) => {
  if (!line.trim()) return;
  chain = chain.then(async () => {
    try {
      send({ ok: true, ...(await handle(JSON.parse(line))) });
    } catch (e) {
      send({ ok: false, error: String(e && e.message ? e.message : e) });
    }
  });
});
rl.on("close", () => chain.then(() => process.exit(0)));
