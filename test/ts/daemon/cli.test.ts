/**
 * `cresolver daemon`: --help in-process, and as a subprocess a run against the in-process chain served
 * over HTTP like a `hardhat node`, resolving a market of two CRE reference agents from its event, then stopped
 * with SIGTERM (exit 0). Plus the credentials-file policy, in process.
 */
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { keccak256, stringToBytes } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadCredentialsFile } from "../../../cli/shared/credentials-file.js";
import { CliError } from "../../../cli/shared/errors.js";
import { run as runCli } from "../../../cli/program.js";
import { startAgent, stopAll } from "../../helpers/agents.js";
import { builtBinProblem, NODE, REPO } from "../cli/helpers/processes.js";
import { getJson, waitFor } from "../../helpers/daemon/chain.js";
import { STATUS } from "../../helpers/daemon/job.js";
import { startPanelChain, type PanelChain } from "../../helpers/daemon/panel.js";

const CLI = resolve(REPO, "bin/cresolver.mjs");
const API_TOKEN = "cli-daemon-token-0123456789abcdef";
const BEARER = "factagora-secret-token-0123456789";

function spawnCli(args: string[], env: Record<string, string>) {
  const child = spawn(NODE, [CLI, ...args], {
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const out = { stdout: "", stderr: "" };
  child.stdout.on("data", (d: Buffer) => (out.stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (out.stderr += d.toString()));
  const exited = new Promise<number | null>((r) => child.on("close", (code) => r(code)));
  return { child, out, exited };
}

let chain: PanelChain;
let dir: string;

beforeAll(async () => {
  // The subprocess runs the built bin (dist/): stale JavaScript would test old code.
  const stale = builtBinProblem();
  if (stale !== null) throw new Error(stale);
  chain = await startPanelChain();
  dir = mkdtempSync(join(tmpdir(), "cresolver-daemon-cli-"));
}, 60_000);

afterAll(async () => {
  await stopAll();
  await chain?.close();
});

describe("cresolver daemon", () => {
  it("--help documents the command and exits 0 (in-process)", async () => {
    const out = { stdout: "" };
    const code = await runCli(["daemon", "--help"], {
      stdout: (s) => (out.stdout += s),
      stderr: () => undefined,
      env: {},
      cwd: dir,
    });
    expect(code).toBe(0);
    for (const flag of [
      "--db",
      "--api-host",
      "--api-port",
      "--api-token-env",
      "--confirmations",
      "--poll-interval-ms",
      "--start-block",
      "--max-attempts",
      "--credentials-file",
      "--evaluator",
      "--allow-loopback",
      "--allow-private",
      "--log-level",
      "--public-url",
      "--on-dispute",
      "--reset-db",
    ]) {
      expect(out.stdout).toContain(flag);
    }
  });

  it("resolves a requested market from the chain, then stops gracefully on SIGTERM (exit 0) without printing a secret", async () => {
    const workers = [];
    const urls: string[] = [];
    for (const i of [1, 2]) {
      const agent = await startAgent({ protocol: "cresolver", persona: "analyst" });
      const w = await chain.registerAgent(i);
      await w.setEndpoint(agent.url, "cresolver");
      workers.push(w);
      urls.push(agent.url);
    }
    const credentialsFile = join(dir, "credentials.json");
    // The token is bound to worker 0's origin (a CRE agent accepts an optional platform token).
    writeFileSync(
      credentialsFile,
      JSON.stringify({ [workers[0].agentId.toString()]: { origin: new URL(urls[0]).origin, bearerToken: BEARER } }),
    );
    chmodSync(credentialsFile, 0o600);

    const run = spawnCli(
      [
        "--json",
        "--market",
        chain.market,
        "daemon",
        "--db",
        join(dir, "daemon.sqlite"),
        "--api-port",
        "0",
        "--api-token-env",
        "DAEMON_TOKEN",
        "--confirmations",
        "0",
        "--poll-interval-ms",
        "50",
        "--credentials-file",
        credentialsFile,
        "--allow-loopback",
      ],
      { RPC_URL: chain.rpcUrl, PRIVATE_KEY: chain.resolverKey, DAEMON_TOKEN: API_TOKEN },
    );
    try {
      const api = await waitFor(
        () => {
          for (const line of run.out.stderr.split("\n")) {
            if (!line.includes('"daemon started"')) continue;
            return (JSON.parse(line) as { api: string }).api;
          }
          if (run.child.exitCode !== null) throw new Error(`daemon exited: ${run.out.stderr.slice(-2000)}`);
          return undefined;
        },
        "the daemon to start",
        60_000,
      );

      const id = await chain.openMarket("Will the CLI daemon resolve this market?", workers);
      await chain.requestResolution(id);
      const view = await waitFor(
        async () => {
          const v = await getJson(`${api}/markets/${id}`);
          return v.job?.state === "proposed" ? v : undefined;
        },
        "the daemon to propose",
        60_000,
      );
      const onChain = await chain.getMarket(id);
      expect(onChain.status).toBe(STATUS.Proposed);
      expect(keccak256(stringToBytes(view.bundle.json))).toBe(onChain.bundleHash);

      // The manual trigger takes the token from the named variable.
      const manual = await fetch(`${api}/markets/${id}/resolve`, {
        method: "POST",
        headers: { authorization: `Bearer ${API_TOKEN}` },
      });
      expect(manual.status).toBe(409);
    } finally {
      run.child.kill("SIGTERM");
    }
    expect(await run.exited).toBe(0);
    const result = JSON.parse(run.out.stdout.trim()) as { status: string; signal: string; market: string };
    expect(result).toMatchObject({ status: "stopped", signal: "SIGTERM" });
    expect(result.market.toLowerCase()).toBe(chain.market.toLowerCase());
    const all = run.out.stdout + run.out.stderr;
    expect(run.out.stderr).toContain('"daemon stopped"');
    // After the stop, what this run sent (its proposal, mined) and what is left (the finalization after the window).
    expect(run.out.stderr).toMatch(
      /^daemon stopped \(SIGTERM\): 1 transaction\(s\) sent by this run, 1 pending or not sent$/m,
    );
    expect(run.out.stderr).toMatch(
      /^ {2}confirmed {2}ResolutionMarket\.proposeResolution: 0x[0-9a-f]{64} in block \d+$/m,
    );
    expect(run.out.stderr).toMatch(
      /^ {2}not sent {3}ResolutionMarket\.finalize \(market \d+, after the dispute window\)$/m,
    );
    for (const secret of [chain.resolverKey.slice(2), API_TOKEN, BEARER]) expect(all).not.toContain(secret);
  }, 120_000);
});

describe("--credentials-file policy", () => {
  const write = (name: string, text: string, mode: number) => {
    const p = join(dir, name);
    writeFileSync(p, text);
    chmodSync(p, mode);
    return p;
  };
  const refused = (fn: () => unknown): string => {
    try {
      fn();
    } catch (e) {
      expect(e).toBeInstanceOf(CliError);
      return (e as Error).message;
    }
    throw new Error("not refused");
  };

  it("accepts a 0600 file and validates its shape without echoing a value", () => {
    const warnings: string[] = [];
    const ok = write(
      "ok.json",
      JSON.stringify({
        "7": { origin: "https://a.example/", hmacSecret: "s3cret-value-123" },
        "8": { origin: "http://127.0.0.1:8080", bearerToken: "tok-value-456" },
      }),
      0o600,
    );
    expect(loadCredentialsFile(ok, (m) => warnings.push(m))).toEqual({
      "7": { origin: "https://a.example", hmacSecret: "s3cret-value-123" },
      "8": { origin: "http://127.0.0.1:8080", bearerToken: "tok-value-456" },
    });
    expect(warnings).toEqual([]);
    const bad = write(
      "bad.json",
      JSON.stringify({
        "7": { origin: "https://a.example", hmacSecret: "s3cret-value-123", password: "hunter2-value" },
      }),
      0o600,
    );
    const msg = refused(() => loadCredentialsFile(bad, () => {}));
    expect(msg).toMatch(/is invalid: 7: /);
    expect(msg).not.toContain("hunter2");
    const notId = write(
      "notid.json",
      JSON.stringify({ alice: { origin: "https://a.example", bearerToken: "x-value-123" } }),
      0o600,
    );
    expect(refused(() => loadCredentialsFile(notId, () => {}))).toMatch(/alice: keys must be ERC-8004 agent ids/);
    expect(refused(() => loadCredentialsFile(write("nojson.json", "{ nope", 0o600), () => {}))).toMatch(/not JSON$/);
  });

  it("refuses an entry without an origin (the pre-binding format) and names the fix, never the value", () => {
    const legacy = write("legacy.json", JSON.stringify({ "7": { bearerToken: "legacy-token-789" } }), 0o600);
    const msg = refused(() => loadCredentialsFile(legacy, () => {}));
    expect(msg).toMatch(/is invalid: 7\.origin: missing; every entry names the endpoint origin/);
    expect(msg).not.toContain("legacy-token-789");
    const withPath = write(
      "path.json",
      JSON.stringify({ "7": { origin: "https://a.example/webhook?token=abc123", bearerToken: "legacy-token-789" } }),
      0o600,
    );
    const msg2 = refused(() => loadCredentialsFile(withPath, () => {}));
    expect(msg2).toMatch(/7\.origin: origin must be/);
    expect(msg2).not.toContain("abc123");
  });

  it("refuses files readable by others or writable by the group", () => {
    for (const mode of [0o644, 0o604, 0o620, 0o666]) {
      const p = write(`open-${mode.toString(8)}.json`, "{}", mode);
      expect(refused(() => loadCredentialsFile(p, () => {}))).toMatch(/too open .*chmod 600/);
    }
    expect(loadCredentialsFile(write("group-read.json", "{}", 0o640), () => {})).toEqual({});
  });

  it("warns about a file inside a git work tree", () => {
    const tree = join(dir, "checkout");
    mkdirSync(join(tree, ".git"), { recursive: true });
    mkdirSync(join(tree, "config"));
    const p = join(tree, "config", "credentials.json");
    writeFileSync(p, "{}", { mode: 0o600 });
    const warnings: string[] = [];
    loadCredentialsFile(p, (m) => warnings.push(m));
    expect(warnings.join("\n")).toContain(`inside the git work tree ${tree}`);
  });
});

describe("cresolver daemon: bad input is one line on stderr and exit 2, before any network call", () => {
  const runIn = async (args: string[], env: Record<string, string> = {}) => {
    let stdout = "";
    let stderr = "";
    const code = await runCli(args, {
      stdout: (t) => (stdout += t),
      stderr: (t) => (stderr += t),
      env: { RPC_URL: "http://127.0.0.1:9", ...env },
      cwd: dir,
    });
    return { code, stdout, stderr };
  };

  it.each([
    [["daemon", "--api-port", "70000"], /^error: --api-port must be between 0 and 65535\n$/],
    [["daemon", "--confirmations", "-1"], /^error: --confirmations must be a non-negative integer/],
    [["daemon", "--evaluator", "oracle"], /^error: option '--evaluator <kind>' argument 'oracle' is invalid/],
    [
      ["daemon", "--api-token-env", "NOT_SET_ANYWHERE"],
      /^error: --api-token-env NOT_SET_ANYWHERE: the variable is not set\n$/,
    ],
    [["daemon", "--credentials-file", "missing.json"], /^error: --credentials-file .*missing\.json: file not found\n$/],
    [["daemon"], /^error: this command sends a transaction: pass --private-key or set PRIVATE_KEY\n$/],
  ])("%j", async (args, expected) => {
    const r = await runIn(args);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(expected);
    expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
  });

  it("refuses a public chain without --public-url unless --no-publish is explicit (bundles are published by default)", async () => {
    // A loopback JSON-RPC endpoint that says it is Sepolia; nothing is sent to it.
    const methods: string[] = [];
    const server = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString()));
      req.on("end", () => {
        const { id, method } = JSON.parse(body) as { id: number; method: string };
        methods.push(method);
        res.setHeader("content-type", "application/json");
        res.end(JSON.stringify({ jsonrpc: "2.0", id, result: method === "eth_chainId" ? "0xaa36a7" : "0x0" }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const args = ["--market", chain.market, "daemon", "--db", join(dir, "public.sqlite"), "--start-block", "0"];
      const r = await runIn(args, { RPC_URL: url, PRIVATE_KEY: chain.resolverKey });
      expect(r).toMatchObject({ code: 2, stdout: "" });
      expect(r.stderr).toMatch(
        /^error: chain 11155111: without --public-url the bundles are not published: .*give --public-url https:\/\/<host> \(see docs\/DEPLOY\.md\) or --no-publish\n$/,
      );
      expect(methods).not.toContain("eth_sendRawTransaction");
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("refuses a database bound to another chain in one line naming --reset-db (issue 13.5)", async () => {
    const { Store } = await import("../../../daemon/store.js");
    const p = join(dir, "other-chain.sqlite");
    const s = new Store(p);
    s.bind({ chainId: 1, genesisHash: `0x${"11".repeat(32)}`, markets: [chain.market] }, false);
    s.close();
    const r = await runIn(
      ["--market", chain.market, "daemon", "--db", p, "--api-port", "0", "--confirmations", "0", "--no-publish"],
      {
        RPC_URL: chain.rpcUrl,
        PRIVATE_KEY: chain.resolverKey,
      },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^error: database .*other-chain\.sqlite cannot be used: it belongs to chain id 1, the RPC is on chain id 31337; .*--reset-db\)\n$/,
    );
    expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
  });

  it("refuses a too-open credentials file by name, with the fix", async () => {
    const p = join(dir, "open.json");
    writeFileSync(p, "{}");
    chmodSync(p, 0o644);
    const r = await runIn(["daemon", "--credentials-file", p]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: --credentials-file .*open\.json: permissions 644 are too open .*chmod 600/);
  });
});
