// Drives `rein --mode rpc` with pi's own RpcClient (from
// @mariozechner/pi-coding-agent, installed under PI_MODULES) through a
// prompt with a tool call and an approval, the state and message queries,
// steering and a follow-up while busy, abort, fork, session naming,
// compaction, a new session, switch_session and bad input. rpc/e2e_test.go
// runs it with the faux script it expects; on success it prints one JSON
// line of facts and exits 0, else it names the failed check and exits 1.
//
// Environment: REIN_BIN (the rein binary), PI_MODULES (node_modules
// holding pi), WORKDIR (the workspace), SCRIPT (the faux script), HOME.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

// The client's own module, not the package's index: the index loads all
// of pi, which takes tens of seconds on a loaded machine.
const { RpcClient } = await import(
	pathToFileURL(join(process.env.PI_MODULES, "@mariozechner/pi-coding-agent/dist/modes/rpc/rpc-client.js")).href
);

const STEP_MS = 30000; // every wait is bounded

function check(ok, what, detail) {
	if (!ok) {
		throw new Error(`${what}${detail === undefined ? "" : ": " + JSON.stringify(detail)}`);
	}
}

// next resolves with the first event (from now) that pred accepts; it
// stops listening once it has one.
function next(client, pred, what) {
	return new Promise((resolve, reject) => {
		const timer = setTimeout(() => {
			stop();
			reject(new Error(`no ${what} within ${STEP_MS} ms`));
		}, STEP_MS);
		const stop = client.onEvent((ev) => {
			if (pred(ev)) {
				clearTimeout(timer);
				// RpcClient calls its listeners in a for-of loop over the
				// array unsubscribing splices: leave it after the loop, or
				// the next listener misses this event.
				queueMicrotask(stop);
				resolve(ev);
			}
		});
	});
}

// release creates the file a held bash command waits for.
async function release(file) {
	await writeFile(file, "go\n");
}

const roles = (ms) => ms.map((m) => m.role).join(",");
const texts = (m) =>
	typeof m.content === "string" ? m.content : m.content.filter((c) => c.type === "text").map((c) => c.text).join("");

const client = new RpcClient({
	cliPath: join(import.meta.dirname, "rein-cli.mjs"),
	cwd: process.env.WORKDIR,
	model: "faux",
	args: ["--script", process.env.SCRIPT, "--permission-mode", "ask"],
	env: { REIN_BIN: process.env.REIN_BIN, HOME: process.env.HOME },
});

const facts = {};
const approvals = [];
const all = [];
let failed = null;
try {
	await client.start();
	// Approval requests arrive as extension UI select dialogs: allow each.
	client.onEvent((ev) => {
		all.push(ev);
		if (ev.type === "extension_ui_request" && ev.method === "select") {
			approvals.push(ev.title);
			client.process.stdin.write(JSON.stringify({ type: "extension_ui_response", id: ev.id, value: ev.options[0] }) + "\n");
		}
	});

	// 1. A prompt with a tool call, streamed.
	let first = null;
	const t0 = performance.now();
	const firstEvent = next(client, () => true, "first event").then(() => (first = performance.now() - t0));
	const events = await client.promptAndWait("make the file", undefined, STEP_MS);
	await firstEvent;
	facts.firstEventMs = Math.round(first * 10) / 10;
	const types = events.map((e) => e.type);
	for (const t of ["agent_start", "turn_start", "message_start", "message_update", "message_end", "tool_execution_start", "tool_execution_end", "turn_end", "agent_end"]) {
		check(types.includes(t), `no ${t} event`, types);
	}
	const deltas = events.filter((e) => e.type === "message_update").map((e) => e.assistantMessageEvent);
	check(deltas.some((d) => d.type === "toolcall_end" && d.toolCall?.name === "bash"), "no toolcall_end with the bash call", deltas.map((d) => d.type));
	check(deltas.filter((d) => d.type === "text_delta").map((d) => d.delta).join("").includes("Made it."), "text deltas", deltas);
	const toolEnd = events.find((e) => e.type === "tool_execution_end");
	check(toolEnd.toolName === "bash" && toolEnd.isError === false && toolEnd.args.command.includes("made.txt"), "tool_execution_end", toolEnd);
	check(approvals.length >= 1 && approvals[0].includes("made.txt"), "the approval dialog names the command", approvals);
	const end = events.at(-1);
	check(roles(end.messages) === "user,assistant,toolResult,assistant", "agent_end messages", roles(end.messages));
	facts.events = types.length;

	// 2. get_messages, get_state, get_last_assistant_text.
	let msgs = await client.getMessages();
	check(roles(msgs) === "user,assistant,toolResult,assistant", "get_messages roles", roles(msgs));
	check(msgs[1].content.some((c) => c.type === "toolCall" && c.name === "bash"), "the tool call in get_messages", msgs[1]);
	let state = await client.getState();
	check(state.isStreaming === false && state.messageCount === 4 && state.model?.id === "faux" && state.sessionFile, "get_state", state);
	const firstSession = state.sessionFile;
	check((await client.getLastAssistantText()) === "Made it.", "get_last_assistant_text");

	// 3. Busy: a prompt without streamingBehavior is refused; steer and
	// follow_up are queued and delivered.
	await client.setFollowUpMode("one-at-a-time");
	await client.setSteeringMode("one-at-a-time");
	const held = next(client, (e) => e.type === "tool_execution_start", "tool_execution_start of the held call");
	await client.prompt("wait at gate one");
	await held;
	const refused = await client.send({ type: "prompt", message: "ignored" });
	check(refused.success === false && /streamingBehavior/.test(refused.error), "a prompt while busy is refused", refused);
	await client.steer("go left");
	await client.followUp("then stop");
	const queued = await client.send({ type: "prompt", message: "and also this", streamingBehavior: "followUp" });
	check(queued.success === true, "prompt with streamingBehavior followUp", queued);
	state = await client.getState();
	check(state.isStreaming === true && state.pendingMessageCount === 3, "get_state while busy", state);
	const idle = client.waitForIdle(STEP_MS);
	await release(join(process.env.WORKDIR, "open1"));
	await idle;
	msgs = await client.getMessages();
	const users = msgs.filter((m) => m.role === "user").map(texts);
	check(users.join("|") === "make the file|wait at gate one|go left|then stop|and also this", "steered and followed user messages", users);
	check((await client.getLastAssistantText()) === "Followed.", "the last answer after the follow-ups");

	// 4. Abort while a tool runs.
	const held2 = next(client, (e) => e.type === "tool_execution_start", "tool_execution_start of the second held call");
	await client.prompt("wait at gate two");
	await held2;
	const aborted = client.waitForIdle(STEP_MS);
	await client.abort();
	await aborted;
	state = await client.getState();
	check(state.isStreaming === false, "not streaming after abort", state);
	msgs = await client.getMessages();
	const lastAssistant = msgs.filter((m) => m.role === "assistant").at(-1);
	check(msgs.at(-1).role === "toolResult" || lastAssistant.stopReason === "aborted", "the aborted run is closed in the log", msgs.slice(-2));

	// 5. set_model: the same model, then an unknown one.
	const model = await client.setModel("faux", "faux");
	check(model.id === "faux", "set_model", model);
	let err = null;
	try {
		await client.setModel("nowhere", "no-such-model");
	} catch (e) {
		err = e.message;
	}
	check(err !== null, "set_model to an unknown model fails");
	facts.setModelError = err;
	await client.setThinkingLevel("high");
	check((await client.getState()).thinkingLevel === "high", "set_thinking_level");

	// 6. fork from the second prompt: a new session holding the first exchange.
	const forkable = await client.getForkMessages();
	const second = forkable.find((m) => m.text === "wait at gate one");
	check(second, "get_fork_messages", forkable);
	const forked = await client.fork(second.entryId);
	check(forked.text === "wait at gate one" && forked.cancelled === false, "fork", forked);
	state = await client.getState();
	check(state.sessionFile !== firstSession && state.messageCount === 4, "the forked session", state);
	await client.setSessionName("forked work");
	check((await client.getState()).sessionName === "forked work", "set_session_name");

	// 7. compact the forked session.
	const compacted = await client.compact("keep the file name");
	check(typeof compacted.summary === "string" && compacted.summary.includes("Summary of the work") && compacted.tokensBefore > 0, "compact", compacted);
	check(all.some((e) => e.type === "compaction_start") && all.some((e) => e.type === "compaction_end"), "compaction events");
	const stats = await client.getSessionStats();
	check(stats.sessionFile === state.sessionFile && typeof stats.tokens.total === "number", "get_session_stats", stats);

	// 8. new_session, then back with switch_session.
	check((await client.newSession()).cancelled === false, "new_session");
	state = await client.getState();
	check(state.messageCount === 0 && state.sessionFile !== firstSession, "the new session", state);
	check((await client.switchSession(firstSession)).cancelled === false, "switch_session");
	state = await client.getState();
	check(state.sessionFile === firstSession && state.messageCount >= 11, "the switched-to session", state);

	// 9. Bad input: a malformed line and an unknown command are answered,
	// and the agent still answers.
	const parseErr = next(client, (e) => e.type === "response" && e.command === "parse", "the parse error response");
	client.process.stdin.write("{not json\n");
	const pe = await parseErr;
	check(pe.success === false && /Failed to parse command/.test(pe.error), "parse error", pe);
	const unknown = await client.send({ type: "teleport" });
	check(unknown.success === false && unknown.error === "Unknown command: teleport", "unknown command", unknown);
	const after = await client.promptAndWait("still there?", undefined, STEP_MS);
	check(after.at(-1).type === "agent_end", "a prompt after bad input");
	check((await client.getLastAssistantText()) === "Still here.", "the answer after bad input");
	facts.approvals = approvals.length;
} catch (e) {
	failed = e;
	console.error(`pi-client: ${e.message}`);
} finally {
	await client.stop();
}
if (failed) {
	console.error(`rein's stderr:\n${client.getStderr()}`);
	process.exit(1);
}
console.log(JSON.stringify(facts));
