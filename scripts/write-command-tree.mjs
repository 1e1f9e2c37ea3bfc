// Writes dist/cli/command-tree.json: the description of every command, built from the compiled command modules,
// so the built CLI answers `<command> --help` without importing them (cli/command-tree.ts). Part of `build:cli`.
import { fileURLToPath } from "node:url";

const dist = new URL("../dist/cli/", import.meta.url);
const { COMMANDS } = await import(new URL("registry.js", dist).href);
const { writeCommandTree } = await import(new URL("command-tree.js", dist).href);
const runtime = () => {
  throw new Error("describing the commands runs none of them");
};
const commands = [];
for (const [, load] of COMMANDS) commands.push(await load({ runtime }));
writeCommandTree(fileURLToPath(new URL("command-tree.json", dist)), commands);
