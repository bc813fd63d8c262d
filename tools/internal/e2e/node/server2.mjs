// A real MCP server that speaks only the 2026-07-28 revision, for the
// end-to-end tests: the official TypeScript SDK 2.x (@modelcontextprotocol/server)
// served statelessly over streamable HTTP (createMcpHandler with
// legacy: "reject", so the initialize handshake of earlier revisions is
// refused and there are no sessions), on 127.0.0.1 at /mcp.
//
//   node server2.mjs PORT
//
// It asks its client questions the only way this revision allows, with
// input_required results (multi round-trip requests), and answers with
// what the client answered, so a test can see the answers arrived:
//
//   echo {text}              -> "echo: <text>" (asks nothing)
//   ask_sampling {prompt}    -> one sampling/createMessage question
//                            -> "sampled: <the model's text>"
//   ask_elicitation {message}-> one elicitation/create question (a form with username)
//                            -> "elicited: action=<action> username=<username>"
//   ask_roots                -> one roots/list question
//                            -> "roots: <uri>, <uri>"
//   ask_twice {message}      -> round 1: an elicitation; round 2: a sampling
//                               whose prompt holds round 1's username, with
//                               requestState (HMAC-sealed by the SDK's codec)
//                               carrying it between rounds
//                            -> "twice: username=<u> sampled=<text> rounds=2"
//   client_capabilities      -> the _meta envelope the request carried, as JSON
//
// A retry whose requestState this server did not seal is refused (-32602).
import { createServer } from "node:http";
import {
  McpServer,
  createMcpHandler,
  createRequestStateCodec,
  fromJsonSchema,
  inputRequired,
  inputResponse,
} from "@modelcontextprotocol/server";
import { toNodeHandler } from "@modelcontextprotocol/node";

const port = Number(process.argv[2]);
if (!port) {
  console.error("usage: node server2.mjs PORT");
  process.exit(2);
}

// The state between ask_twice's rounds is sealed so that a client (or a
// gateway) cannot forge it.
const codec = createRequestStateCodec({ key: "e2e server2 request state key, 32+ bytes long" });

const text = (t) => ({ content: [{ type: "text", text: t }] });
const object = (properties, required = []) => fromJsonSchema({ type: "object", properties, required });

function samplingQuestion(prompt) {
  return inputRequired.createMessage({
    messages: [{ role: "user", content: { type: "text", text: prompt } }],
    maxTokens: 100,
  });
}

function elicitationQuestion(message) {
  return inputRequired.elicit({
    message,
    requestedSchema: {
      type: "object",
      properties: { username: { type: "string", description: "Your preferred username" } },
      required: ["username"],
    },
  });
}

function sampledText(view) {
  const c = view.result.content;
  const block = Array.isArray(c) ? c[0] : c;
  return block && block.type === "text" ? block.text : "(non-text response)";
}

function makeServer() {
  const server = new McpServer(
    { name: "e2e-server2", version: "2.0.0" },
    { requestState: { verify: codec.verify } },
  );
  server.registerTool(
    "echo",
    { description: "Return the given text.", inputSchema: object({ text: { type: "string" } }, ["text"]) },
    async ({ text: t }) => text(`echo: ${t}`),
  );
  server.registerTool(
    "ask_sampling",
    { description: "Ask the client's model to complete a prompt, and return its answer.", inputSchema: object({ prompt: { type: "string" } }, ["prompt"]) },
    async ({ prompt }, ctx) => {
      const answer = inputResponse(ctx.mcpReq.inputResponses, "completion");
      if (answer.kind !== "sampling") {
        return inputRequired({ inputRequests: { completion: samplingQuestion(prompt) } });
      }
      return text(`sampled: ${sampledText(answer)}`);
    },
  );
  server.registerTool(
    "ask_elicitation",
    { description: "Ask the user for a username, and return the answer.", inputSchema: object({ message: { type: "string" } }, ["message"]) },
    async ({ message }, ctx) => {
      const answer = inputResponse(ctx.mcpReq.inputResponses, "user");
      if (answer.kind !== "elicit") {
        return inputRequired({ inputRequests: { user: elicitationQuestion(message) } });
      }
      return text(`elicited: action=${answer.action} username=${answer.content?.username ?? ""}`);
    },
  );
  server.registerTool(
    "ask_roots",
    { description: "Ask the client for its roots, and list them." },
    async (ctx) => {
      const answer = inputResponse(ctx.mcpReq.inputResponses, "roots");
      if (answer.kind !== "roots") {
        return inputRequired({ inputRequests: { roots: inputRequired.listRoots() } });
      }
      return text(`roots: ${answer.roots.map((r) => r.uri).join(", ")}`);
    },
  );
  server.registerTool(
    "ask_twice",
    { description: "Ask for a username, then ask the client's model about it: two rounds.", inputSchema: object({ message: { type: "string" } }, ["message"]) },
    async ({ message }, ctx) => {
      const state = ctx.mcpReq.requestState();
      if (!state) {
        return inputRequired({ inputRequests: { user: elicitationQuestion(message) }, requestState: await codec.mint({ round: 1 }) });
      }
      if (state.round === 1) {
        const user = inputResponse(ctx.mcpReq.inputResponses, "user");
        if (user.kind !== "elicit" || user.action !== "accept") {
          return { ...text(`round 1 was not answered: ${JSON.stringify(user)}`), isError: true };
        }
        const username = String(user.content?.username ?? "");
        return inputRequired({
          inputRequests: { completion: samplingQuestion(`Write a greeting for ${username}`) },
          requestState: await codec.mint({ round: 2, username }),
        });
      }
      const completion = inputResponse(ctx.mcpReq.inputResponses, "completion");
      if (completion.kind !== "sampling") {
        return { ...text(`round 2 was not answered: ${JSON.stringify(completion)}`), isError: true };
      }
      return text(`twice: username=${state.username} sampled=${sampledText(completion)} rounds=2`);
    },
  );
  server.registerTool(
    "client_capabilities",
    { description: "Return the per-request _meta envelope (protocol version, client capabilities) this call carried." },
    async (ctx) => text(JSON.stringify(ctx.mcpReq.envelope ?? {})),
  );
  return server;
}

const handler = createMcpHandler(() => makeServer(), {
  legacy: "reject",
  onerror: (e) => console.error("server2:", e && e.message ? e.message : e),
});
const node = toNodeHandler(handler);
createServer((req, res) => {
  if (new URL(req.url, "http://localhost").pathname !== "/mcp") {
    res.writeHead(404).end();
    return;
  }
  node(req, res);
}).listen(port, "127.0.0.1", () => {
  console.log(`server2 listening on http://127.0.0.1:${port}/mcp`);
});
