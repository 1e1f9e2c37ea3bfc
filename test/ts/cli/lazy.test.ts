/**
 * Lazy command loading (cli/registry.ts, cli/command-tree.ts): help answered from the command description is the
 * same text as from the loaded commands; the argv scan finds the command that runs; a hung RPC is reported with
 * the method it waited on within --rpc-timeout.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Command } from "commander";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commandFromShape, describeCommand, type CommandTree } from "../../../cli/command-tree.js";
import { buildProgram, commandWord, run } from "../../../cli/program.js";
import type { Io } from "../../../cli/shared/runtime.js";

const quiet: Io = { stdout: () => undefined, stderr: () => undefined, env: {}, cwd: process.cwd() };

function paths(cmd: Command, prefix: string[] = []): string[][] {
  return cmd.commands.flatMap((sub) => [[...prefix, sub.name()], ...paths(sub, [...prefix, sub.name()])]);
}

function find(cmd: Command, path: string[]): Command {
  let at = cmd;
  for (const name of path) {
    const next = at.commands.find((c) => c.name() === name);
    if (next === undefined) throw new Error(`no command ${path.join(" ")}`);
    at = next;
  }
  return at;
}

async function cli(argv: string[], commandTree: CommandTree | null, env: Io["env"] = {}) {
  let stdout = "";
  let stderr = "";
  const code = await run(
    argv,
    { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s), env, cwd: process.cwd() },
    { commandTree },
  );
  return { code, stdout, stderr };
}

let tree: CommandTree;
let live: Command;

beforeAll(async () => {
  live = await buildProgram(quiet);
  tree = { version: 1, commands: live.commands.map(describeCommand) };
}, 120_000);

describe("help from the command description", { timeout: 120_000 }, () => {
  it("every command's help text equals the loaded command's", async () => {
    const described = await buildProgram(quiet, { commandTree: tree }, ["--help"]);
    const all = paths(live);
    expect(all.length).toBeGreaterThan(40);
    expect(paths(described)).toEqual(all);
    for (const path of [[], ...all])
      expect(find(described, path).helpInformation(), path.join(" ")).toBe(find(live, path).helpInformation());
  });

  it("the description survives JSON (what the build writes)", () => {
    const copy = JSON.parse(JSON.stringify(tree)) as CommandTree;
    for (const shape of copy.commands) {
      const original = live.commands.find((c) => c.name() === shape.name);
      expect(commandFromShape(shape).commands.length).toBe(original?.commands.length);
    }
  });

  it("`<command> --help` and `help <command>` print the same as without a description", async () => {
    for (const argv of [["--help"], ["market", "--help"], ["market", "create", "-h"], ["help", "daemon"]]) {
      const lazy = await cli(argv, tree);
      const full = await cli(argv, null);
      expect(lazy, argv.join(" ")).toEqual(full);
      expect(lazy.code).toBe(0);
      expect(lazy.stdout).toMatch(/^Usage: cresolver/);
    }
  });

  it("a stand-in never runs silently: an unknown command is refused, a known one is loaded", async () => {
    const typo = await cli(["markt", "list"], tree);
    expect(typo).toMatchObject({ code: 2, stdout: "" });
    expect(typo.stderr).toMatch(/^error: unknown command 'markt'/);
    // `market list` runs the real command (it needs an RPC endpoint: a bad URL is its own one-line error).
    const listed = await cli(["--rpc-url", "ftp://x", "market", "list"], tree);
    expect(listed).toMatchObject({ code: 2, stdout: "" });
    expect(listed.stderr).toMatch(/^error: --rpc-url .*must be an http\(s\) URL/);
  });
});

describe("commandWord", () => {
  it("skips the global options and their values, and sees help requests", () => {
    const program = live;
    expect(commandWord(["--rpc-url", "http://x", "--json", "market", "list"], program)).toEqual({
      name: "market",
      helpOnly: false,
      sub: "list",
    });
    expect(commandWord(["--rpc-url=http://x", "bet", "place", "-h"], program)).toEqual({
      name: "bet",
      helpOnly: true,
      sub: "place",
    });
    expect(commandWord(["help", "daemon"], program)).toEqual({ name: "daemon", helpOnly: true });
    expect(commandWord(["market", "create", "--", "--help"], program)).toEqual({
      name: "market",
      helpOnly: false,
      sub: "create",
    });
    expect(commandWord(["market", "--json"], program)).toEqual({ name: "market", helpOnly: false });
    expect(commandWord(["--json"], program)).toBeUndefined();
    expect(commandWord(["help"], program)).toBeUndefined();
  });
});

describe("--rpc-timeout", { timeout: 60_000 }, () => {
  let server: Server;
  let url: string;
  const held: { end(): void }[] = [];

  beforeAll(async () => {
    // An RPC endpoint that accepts every request and never answers.
    server = createServer((_req, res) => held.push(res));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    for (const res of held) res.end();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it("a hung endpoint is reported with the method it waited on, in one line", async () => {
    const r = await cli(["--rpc-timeout", "1", "--market", `0x${"11".repeat(20)}`, "market", "list"], null, {
      RPC_URL: url,
    });
    expect(r).toMatchObject({ code: 1, stdout: "" });
    expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(r.stderr.trimEnd()).toMatch(
      new RegExp(
        `^error: cannot reach the RPC endpoint: no answer from the RPC endpoint ${url}/? to eth_blockNumber within 1 s \\(--rpc-timeout\\)$`,
      ),
    );
  });

  it("a command on the viem clients is reported the same way, with its first method", async () => {
    const r = await cli(["--rpc-timeout", "1", "--market", `0x${"11".repeat(20)}`, "market", "status", "1"], null, {
      RPC_URL: url,
    });
    expect(r).toMatchObject({ code: 1, stdout: "" });
    expect(r.stderr.trimEnd()).toMatch(
      new RegExp(
        `^error: cannot reach the RPC endpoint: no answer from the RPC endpoint ${url}/? to eth_chainId within 1 s \\(--rpc-timeout\\)$`,
      ),
    );
  });

  it("the variable works too, and a bad value is refused before anything is sent", async () => {
    const r = await cli(["--market", `0x${"11".repeat(20)}`, "market", "list"], null, {
      RPC_URL: url,
      CRESOLVER_RPC_TIMEOUT: "1",
    });
    expect(r.stderr).toMatch(/to eth_blockNumber within 1 s/);
    const before = held.length;
    for (const bad of ["0", "1.5", "3601", "ten"]) {
      const refused = await cli(["--rpc-timeout", bad, "market", "list"], null, { RPC_URL: url });
      expect(refused).toMatchObject({ code: 2, stdout: "" });
      expect(refused.stderr).toMatch(/^error: --rpc-timeout must be whole seconds from 1 to 3600/);
    }
    expect(held.length).toBe(before);
  });
});
