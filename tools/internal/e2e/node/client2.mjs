// A real MCP client of the 2026-07-28 revision for the end-to-end tests:
// the official TypeScript SDK 2.x (@modelcontextprotocol/client) driven
// over stdin/stdout with the line protocol of client.mjs. Each input line
// is a JSON command, each output line the JSON answer to one command, in
// order:
//
//   {"op":"connect","url":"http://127.0.0.1:8080/mcp",
//    "headers":{"Authorization":"..."},                   (optional: sent with every request)
//    "negotiation":"auto",                                (optional: "auto" (the default: server/discover,
//                                                          falling back to initialize), "legacy" (initialize
//                                                          only) or a revision to pin, "2026-07-28")
//    "elicitation":{"action":"accept","content":{...}},   (optional: declare elicitation, answer every one so)
//    "sampling":{"text":"..."},                           (optional: declare sampling, answer every one so)
//    "roots":[{"uri":"file:///...","name":"..."}]}        (optional: declare roots, answer roots/list so)
//     -> {"ok":true,"protocolVersion":"2026-07-28","era":"modern","sessionId":null,
//         "serverInfo":...,"instructions":...,"capabilities":...,"http":[...]}
//   {"op":"listTools"}                                     -> {"ok":true,"result":{tools:[...]},"http":[...]}
//   {"op":"callTool","name":"...","arguments":{...},"progress":true}
//     -> {"ok":true,"result":{...},"progress":[...],"logs":[...],
//         "elicitations":[...],"samplings":[...],"roots":n,"http":[...]}
//   {"op":"close"}                                         -> {"ok":true}
//
// On the 2026-07-28 revision the SDK answers a server's input_required
// result itself, with the handlers above, and retries the call with the
// answers (multi round-trip requests); on an earlier one the same handlers
// answer the server's own requests. Either way "elicitations", "samplings"
// and "roots" (a count) say what the client was asked since the previous
// command. "http" lists the HTTP requests the command sent, each with its
// method and the MCP headers it carried (Mcp-Protocol-Version,
// Mcp-Session-Id, Mcp-Method, Mcp-Name), so a test can see which revision
// went over the wire. A failed command answers {"ok":false,"error":"...",
// "code":...,"status":...,"data":...} (the JSON-RPC error code and data, or
// the HTTP status when the transport was refused) and the client goes on.
import { createInterface } from "node:readline";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

let client;
let transport;
let received = { logs: [], elicitations: [], samplings: [], roots: 0, http: [] };
const drain = () => {
  const r = received;
  received = { logs: [], elicitations: [], samplings: [], roots: 0, http: [] };
  return r;
};
const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
const send = (obj) => process.stdout.write(JSON.stringify(obj) + "\n");

// recordingFetch notes each HTTP request's MCP headers.
const recordingFetch = async (url, init) => {
  const h = new Headers(init && init.headers);
  received.http.push({
    method: (init && init.method) || "GET",
    protocolVersion: h.get("mcp-protocol-version"),
    sessionId: h.get("mcp-session-id"),
    mcpMethod: h.get("mcp-method"),
    mcpName: h.get("mcp-name"),
  });
  return fetch(url, init);
};

function negotiation(mode) {
  if (!mode || mode === "auto") return { mode: "auto" };
  if (mode === "legacy") return { mode: "legacy" };
  return { mode: { pin: mode } };
}

async function handle(cmd) {
  switch (cmd.op) {
    case "connect": {
      const capabilities = {};
      if (cmd.elicitation) capabilities.elicitation = { form: {} };
      if (cmd.sampling) capabilities.sampling = {};
      if (cmd.roots) capabilities.roots = {};
      client = new Client(
        { name: "e2e-ts2-client", version: "2.0.0" },
        { capabilities, versionNegotiation: negotiation(cmd.negotiation) },
      );
      if (cmd.elicitation) {
        client.setRequestHandler("elicitation/create", async (req) => {
          received.elicitations.push(req.params);
          return cmd.elicitation;
        });
      }
      if (cmd.sampling) {
        client.setRequestHandler("sampling/createMessage", async (req) => {
          received.samplings.push(req.params);
          return { role: "assistant", content: { type: "text", text: cmd.sampling.text }, model: "e2e-model" };
        });
      }
      if (cmd.roots) {
        client.setRequestHandler("roots/list", async () => {
          received.roots++;
          return { roots: cmd.roots };
        });
      }
      client.setNotificationHandler("notifications/message", (n) => {
        received.logs.push(n.params);
      });
      transport = new StreamableHTTPClientTransport(new URL(cmd.url), {
        requestInit: cmd.headers ? { headers: cmd.headers } : undefined,
        fetch: recordingFetch,
      });
      await client.connect(transport);
      return {
        protocolVersion: client.getNegotiatedProtocolVersion(),
        era: client.getProtocolEra(),
        sessionId: transport.sessionId ?? null,
        serverInfo: client.getServerVersion(),
        instructions: client.getInstructions(),
        capabilities: client.getServerCapabilities(),
        http: drain().http,
      };
    }
    case "listTools":
      return { result: await client.listTools(undefined, { cacheMode: "bypass" }), http: drain().http };
    case "callTool": {
      const progress = [];
      const options = cmd.progress ? { onprogress: (p) => progress.push(p) } : {};
      const result = await client.callTool({ name: cmd.name, arguments: cmd.arguments }, options);
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
      // code: the JSON-RPC error code (or the SDK's own error code);
      // status: the HTTP status when the transport was refused.
      send({ ok: false, error: String(e && e.message ? e.message : e), code: e && e.code, status: e && e.data && e.data.status, data: e && e.data, ...drain() });
    }
  });
});
rl.on("close", () => chain.then(() => process.exit(0)));
