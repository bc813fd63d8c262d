// A real MCP client for the end-to-end tests: the official TypeScript SDK
// driven over stdin/stdout. Each input line is a JSON command, each output
// line the JSON answer to one command, in order:
//
//   {"op":"connect","url":"http://127.0.0.1:8080/mcp",
//    "headers":{"Authorization":"..."},                   (optional: sent with every request)
//    "elicitation":{"action":"accept","content":{...}},   (optional: answer every elicitation so)
//    "sampling":{"text":"..."},                           (optional: answer every sampling request so)
//    "roots":[{"uri":"file:///...","name":"..."}]}        (optional: declare roots, answer roots/list so)
//     -> {"ok":true,"serverInfo":...,"instructions":...,"capabilities":...,"sessionId":"..."}
//   {"op":"listTools"}                                     -> {"ok":true,"result":{tools:[...]}}
//   {"op":"setLevel","level":"info"}                       -> {"ok":true}
//   {"op":"callTool","name":"...","arguments":{...},"progress":true}
//     -> {"ok":true,"result":{...},"progress":[...],"logs":[...],"elicitations":[...],"samplings":[...],"roots":n}
//   {"op":"close"}                                         -> {"ok":true}
//
// "progress" lists the progress notifications of that call; "logs",
// "elicitations" and "samplings" what the client received since the
// previous command, and "roots" how many roots/list requests. A failed
// command answers {"ok":false,"error":"..."} (with "code", the HTTP
// status, when the transport was refused) and the client goes on.
import { createInterface } from "node:readline";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";

let client;
let received = { logs: [], elicitations: [], samplings: [], roots: 0 };
const drain = () => {
  const r = received;
  received = { logs: [], elicitations: [], samplings: [], roots: 0 };
  return r;
};
const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
const send = (obj) => process.stdout.write(JSON.stringify(obj) + "\n");

async function handle(cmd) {
  switch (cmd.op) {
    case "connect": {
      const capabilities = {};
      if (cmd.elicitation) capabilities.elicitation = {};
      if (cmd.sampling) capabilities.sampling = {};
      if (cmd.roots) capabilities.roots = {};
      client = new Client({ name: "e2e-ts-client", version: "1.0.0" }, { capabilities });
      if (cmd.elicitation) {
        client.setRequestHandler(ElicitRequestSchema, async (req) => {
          received.elicitations.push(req.params);
          return cmd.elicitation;
        });
      }
      if (cmd.sampling) {
        client.setRequestHandler(CreateMessageRequestSchema, async (req) => {
          received.samplings.push(req.params);
          return { role: "assistant", content: { type: "text", text: cmd.sampling.text }, model: "e2e-model" };
        });
      }
      if (cmd.roots) {
        client.setRequestHandler(ListRootsRequestSchema, async () => {
          received.roots++;
          return { roots: cmd.roots };
        });
      }
      client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
        received.logs.push(n.params);
      });
      const transport = new StreamableHTTPClientTransport(new URL(cmd.url), {
        requestInit: cmd.headers ? { headers: cmd.headers } : undefined,
      });
      await client.connect(transport);
      return {
        serverInfo: client.getServerVersion(),
        instructions: client.getInstructions(),
        capabilities: client.getServerCapabilities(),
        sessionId: transport.sessionId,
      };
    }
    case "listTools":
      return { result: await client.listTools() };
    case "setLevel":
      await client.setLoggingLevel(cmd.level);
      return {};
    case "callTool": {
      const progress = [];
      const options = cmd.progress ? { onprogress: (p) => progress.push(p) } : {};
      const result = await client.callTool({ name: cmd.name, arguments: cmd.arguments }, undefined, options);
      return { result, progress, ...drain() };
    }
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
      // code: the HTTP status of a transport error (StreamableHTTPError).
      send({ ok: false, error: String(e && e.message ? e.message : e), code: e && e.code });
    }
  });
});
rl.on("close", () => chain.then(() => process.exit(0)));
