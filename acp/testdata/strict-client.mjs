// A strict ACP client: it drives `rein acp` over stdio and checks every
// message rein sends against the zod schemas of @agentclientprotocol/sdk.
//
//   node strict-client.mjs REIN WORKSPACE SCRIPT1 SCRIPT2
//
// SCRIPT1 serves the first process (two prompts with an edit and a
// command); SCRIPT2 the second, which loads the session and prompts once.
// It prints one JSON summary line and exits 1 when any message failed.
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { createInterface } from "node:readline";
import * as z from "./npm/node_modules/@agentclientprotocol/sdk/dist/v1/schema/zod.gen.js";

const [rein, dir, script1, script2] = process.argv.slice(2);
const failures = [];
let checked = 0;

const responseSchema = {
	initialize: z.zInitializeResponse,
	"session/new": z.zNewSessionResponse,
	"session/load": z.zLoadSessionResponse,
	"session/list": z.zListSessionsResponse,
	"session/prompt": z.zPromptResponse,
	"session/set_mode": z.zSetSessionModeResponse,
	"session/set_config_option": z.zSetSessionConfigOptionResponse,
	"session/close": z.zCloseSessionResponse,
};
const requestSchema = {
	"session/request_permission": z.zRequestPermissionRequest,
	"fs/read_text_file": z.zReadTextFileRequest,
	"fs/write_text_file": z.zWriteTextFileRequest,
};

function check(what, schema, value) {
	checked++;
	if (!schema) {
		failures.push({ what, error: "no schema for this message" });
		return;
	}
	const r = schema.safeParse(value);
	if (!r.success) failures.push({ what, value, error: r.error.issues });
}

function start(script) {
	const child = spawn(rein, ["acp", "--model", "faux", "--script", script], { cwd: dir, stdio: ["pipe", "pipe", "inherit"] });
	const pending = new Map();
	const updates = [];
	let nextId = 1;
	const lines = createInterface({ input: child.stdout });
	lines.on("line", (line) => {
		let m;
		try {
			m = JSON.parse(line);
		} catch (e) {
			failures.push({ what: "stdout line", value: line, error: String(e) });
			return;
		}
		if (m.jsonrpc !== "2.0") failures.push({ what: "jsonrpc version", value: m });
		if (m.method && m.id !== undefined) {
			check(m.method, requestSchema[m.method], m.params);
			answer(m);
		} else if (m.method) {
			check(m.method, m.method === "session/update" ? z.zSessionNotification : undefined, m.params);
			updates.push(m.params.update);
		} else {
			const p = pending.get(m.id);
			pending.delete(m.id);
			if (!p) return failures.push({ what: "response to an unknown id", value: m });
			if (m.error) {
				check(p.method + " error", z.zError, m.error);
				p.reject(Object.assign(new Error(m.error.message), { data: m.error }));
			} else {
				check(p.method, responseSchema[p.method], m.result);
				p.resolve(m.result);
			}
		}
	});
	function send(obj) {
		child.stdin.write(JSON.stringify({ jsonrpc: "2.0", ...obj }) + "\n");
	}
	function answer(m) {
		let result;
		switch (m.method) {
			case "session/request_permission":
				result = { outcome: { outcome: "selected", optionId: m.params.options.find((o) => o.kind === "allow_once").optionId } };
				break;
			case "fs/read_text_file":
				result = { content: readFileSync(m.params.path, "utf8") };
				break;
			case "fs/write_text_file":
				writeFileSync(m.params.path, m.params.content);
				result = {};
				break;
		}
		send({ id: m.id, result });
	}
	function request(method, params) {
		const id = nextId++;
		return new Promise((resolve, reject) => {
			pending.set(id, { method, resolve, reject });
			send({ id, method, params });
		});
	}
	const exited = new Promise((resolve) => child.on("exit", resolve));
	return { request, updates, close: () => (child.stdin.end(), exited) };
}

const clientCapabilities = { fs: { readTextFile: true, writeTextFile: true } };
const deadline = setTimeout(() => {
	console.log(JSON.stringify({ checked, failures: [...failures, { what: "timeout" }] }));
	process.exit(1);
}, 60_000);

const a = start(script1);
await a.request("initialize", { protocolVersion: 1, clientCapabilities, clientInfo: { name: "strict-client", version: "1" } });
const { sessionId } = await a.request("session/new", { cwd: dir, mcpServers: [] });
await a.request("session/set_mode", { sessionId, modeId: "ask" });
await a.request("session/set_config_option", { sessionId, configId: "thinking", value: "low" });
const first = await a.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "fix the greeting" }] });
const second = await a.request("session/prompt", {
	sessionId,
	prompt: [
		{ type: "text", text: "and check it" },
		{ type: "resource", resource: { uri: "file://" + dir + "/hello.txt", text: "hello world\n" } },
	],
});
const listed = await a.request("session/list", { cwd: dir });
await a.close();

const b = start(script2);
await b.request("initialize", { protocolVersion: 1, clientCapabilities });
await b.request("session/load", { sessionId, cwd: dir, mcpServers: [] });
const replay = b.updates
	.filter((u) => u.sessionUpdate !== "available_commands_update")
	.map((u) => {
		switch (u.sessionUpdate) {
			case "user_message_chunk":
			case "agent_message_chunk":
			case "agent_thought_chunk":
				return u.sessionUpdate + ":" + (u.content.text ?? u.content.type);
			case "tool_call":
				return "tool_call:" + u.kind + ":" + u.title;
			case "tool_call_update":
				return "tool_call_update:" + u.status + ":" + (u.content ?? []).map((c) => c.type).join(",");
			default:
				return u.sessionUpdate;
		}
	});
const third = await b.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "thanks" }] });
let unknown;
try {
	await b.request("session/prompt", { sessionId: "no-such-session", prompt: [{ type: "text", text: "x" }] });
} catch (e) {
	unknown = e.data.code;
}
await b.close();
clearTimeout(deadline);

const summary = {
	checked,
	failures,
	stops: [first.stopReason, second.stopReason, third.stopReason],
	listed: listed.sessions.map((s) => s.sessionId === sessionId),
	replay,
	unknownSessionError: unknown,
	file: readFileSync(dir + "/hello.txt", "utf8"),
};
console.log(JSON.stringify(summary));
process.exit(failures.length ? 1 : 0);
