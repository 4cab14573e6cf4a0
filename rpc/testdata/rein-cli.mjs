// pi's RpcClient starts `node <cliPath> --mode rpc …`: this file is that
// cliPath for rein. It runs the rein binary named by REIN_BIN with the same
// arguments and standard streams, passes on the signals RpcClient sends,
// and exits as rein exits.
import { spawn } from "node:child_process";

const rein = spawn(process.env.REIN_BIN, process.argv.slice(2), { stdio: "inherit" });
for (const sig of ["SIGTERM", "SIGINT"]) {
	process.on(sig, () => rein.kill(sig));
}
rein.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
rein.on("error", (err) => {
	console.error(`rein-cli: cannot start ${process.env.REIN_BIN}: ${err.message}`);
	process.exit(127);
});
