/**
 * `cresolver agent serve --protocol <p>` and `cresolver agent check <url> --protocol <p>`, in-process
 * through `run(argv, io)` (the serve command stops on io.signal), against loopback agents:
 * - every protocol of the reference agent's registry serves with its auth, refuses unauthenticated
 *   requests where its spec has auth, and passes `agent check` (exit 0);
 * - a protocol whose spec requires auth refuses to start without it (one line, exit 2);
 * - deliberately broken agents fail the check (exit 1) naming the rule;
 * - bad input → exit 2 with one line.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AGENT_HANDLERS } from "../../../protocols/index.js";
import { run } from "../../../cli/program.js";
import { CONFORMANCE_CHECKERS } from "../../../protocols/index.js";
import { SAMPLE_ROUND1 } from "../../../protocols/factagora/conformance.js";
import { startStandIn } from "../agents/llm-standin.js";
import { freePort, REPO } from "./helpers/processes.js";

const TOKEN = "test-bearer-token-0123456789abcdef";
const HMAC = "test-hmac-secret-0123456789abcdef";
const BASE_ENV = { PATH: process.env.PATH ?? "", RPC_URL: "not even a url", MY_TOKEN: TOKEN, MY_HMAC: HMAC };

interface Out {
  code: number;
  stdout: string;
  stderr: string;
}

async function cli(args: string[], env: Record<string, string> = BASE_ENV): Promise<Out> {
  let stdout = "";
  let stderr = "";
  const code = await run(args, { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s), env, cwd: REPO });
  return { code, stdout, stderr };
}

function expectOneLineError(r: Out, pattern: RegExp, code = 2): void {
  expect({ code: r.code, stdout: r.stdout }).toEqual({ code, stdout: "" });
  const lines = r.stderr.trimEnd().split("\n");
  expect(lines, r.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^error: /);
  expect(lines[0]).toMatch(pattern);
}

interface Served {
  info: { url: string; endpoint: string; protocol: string; persona: string; mode: string };
  stop(): Promise<Out>;
}

/** `agent serve` in-process until stop(). */
async function serve(args: string[], env: Record<string, string> = BASE_ENV): Promise<Served> {
  const controller = new AbortController();
  let stdout = "";
  let stderr = "";
  let onLine: (line: string) => void = () => undefined;
  const line = new Promise<string>((resolve) => (onLine = resolve));
  const done = run(["--json", "agent", "serve", "--log-level", "silent", ...args], {
    stdout: (s) => {
      stdout += s;
      if (stdout.includes("\n")) onLine(stdout.split("\n")[0]);
    },
    stderr: (s) => (stderr += s),
    env,
    cwd: REPO,
    signal: controller.signal,
  });
  const first = await Promise.race([
    line,
    done.then((code) => Promise.reject(new Error(`serve exited ${code}: ${stderr}`))),
  ]);
  return {
    info: JSON.parse(first) as Served["info"],
    async stop() {
      controller.abort();
      return { code: await done, stdout, stderr };
    },
  };
}

/** The auth flags each protocol's spec needs, derived from the registry (not a list of names). */
function authFlags(protocol: string, jwksPort: number): { serve: string[]; check: string[] } {
  const required = AGENT_HANDLERS[protocol].requiredAuth;
  const common = ["--agent-id", "7"];
  if (required === "jwksUrl")
    return {
      serve: [...common, "--jwks-url", `http://127.0.0.1:${jwksPort}/.well-known/jwks.json`],
      check: [...common, "--jwks-port", String(jwksPort)],
    };
  // Bearer token and HMAC secret from named variables; protocols without required auth may use them too.
  const secrets = ["--bearer-token-env", "MY_TOKEN", "--hmac-secret-env", "MY_HMAC"];
  return { serve: [...common, ...secrets], check: [...common, ...secrets] };
}

const protocols = Object.keys(AGENT_HANDLERS);

describe("agent serve --protocol / agent check against the reference agents", () => {
  it("the registries cover the same protocols", () => {
    expect(protocols.length).toBeGreaterThanOrEqual(4);
    for (const p of protocols) expect(CONFORMANCE_CHECKERS[p], p).toBeTypeOf("function");
  });

  it.each(protocols)(
    "%s: serves with its auth, refuses unauthenticated requests, passes agent check (exit 0)",
    async (protocol) => {
      const jwksPort = await freePort();
      const flags = authFlags(protocol, jwksPort);
      const agent = await serve(["--protocol", protocol, "--persona", "skeptic", ...flags.serve]);
      try {
        const { info } = agent;
        expect(info).toMatchObject({ protocol, persona: "skeptic", mode: "offline" });
        expect(info.url).toMatch(/^http:\/\/127\.0\.0\.1:[0-9]+$/);
        expect(info.endpoint).toBe(`${info.url}${AGENT_HANDLERS[protocol].endpointPath ?? ""}`);
        const health = (await (await fetch(`${info.url}/health`)).json()) as Record<string, unknown>;
        expect(health).toMatchObject({ status: "ok", protocol, persona: "skeptic" });
        if (AGENT_HANDLERS[protocol].requiredAuth !== undefined) {
          const res = await fetch(info.endpoint, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: "{}",
          });
          expect(res.status).toBe(401);
        }

        const r = await cli([
          "--json",
          "agent",
          "check",
          info.endpoint,
          "--protocol",
          protocol,
          "--allow-loopback",
          ...flags.check,
        ]);
        expect({ code: r.code, stderr: r.stderr.split("\n").filter((l) => l.startsWith("error:")) }).toEqual({
          code: 0,
          stderr: [],
        });
        const report = JSON.parse(r.stdout) as {
          passed: boolean;
          protocol: string;
          findings: { rule: string; severity: string }[];
          timings: Record<string, number>;
        };
        expect(report.findings.filter((f) => f.severity === "violation")).toEqual([]);
        expect(report).toMatchObject({ passed: true, protocol });
        expect(Object.keys(report.timings).length).toBeGreaterThan(0);
        if (AGENT_HANDLERS[protocol].requiredAuth === "jwksUrl")
          expect(r.stderr).toContain(`http://127.0.0.1:${jwksPort}/.well-known/jwks.json`);
      } finally {
        expect((await agent.stop()).code).toBe(0);
      }
    },
  );

  it("agora with --signing-key-file: the key is created once (0600) and reused, so repeated checks pass", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cresolver-agentcheck-"));
    const keyFile = join(dir, "check-key.jwk");
    const jwksPort = await freePort();
    const agent = await serve([
      "--protocol",
      "agora",
      "--jwks-url",
      `http://127.0.0.1:${jwksPort}/.well-known/jwks.json`,
    ]);
    try {
      for (let i = 0; i < 2; i++) {
        const r = await cli([
          "--json",
          "agent",
          "check",
          agent.info.endpoint,
          "--protocol",
          "agora",
          "--allow-loopback",
          "--jwks-port",
          String(jwksPort),
          "--signing-key-file",
          keyFile,
        ]);
        expect({ i, code: r.code }, r.stdout + r.stderr).toEqual({ i, code: 0 });
        expect(JSON.parse(r.stdout)).toMatchObject({
          passed: true,
          jwksUrl: `http://127.0.0.1:${jwksPort}/.well-known/jwks.json`,
        });
      }
      expect(statSync(keyFile).mode & 0o777).toBe(0o600);
      expect(JSON.parse(readFileSync(keyFile, "utf8"))).toMatchObject({ kty: "EC", crv: "P-256", alg: "ES256" });
      writeFileSync(join(dir, "bad.jwk"), "{not json");
      expectOneLineError(
        await cli([
          "agent",
          "check",
          agent.info.endpoint,
          "--protocol",
          "agora",
          "--allow-loopback",
          "--signing-key-file",
          join(dir, "bad.jwk"),
        ]),
        /--signing-key-file .* is not a JSON private JWK/,
      );
    } finally {
      await agent.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("--mode llm: the engine uses OPENAI_BASE_URL, OPENAI_API_KEY and CRESOLVER_AGENT_MODEL from the environment", async () => {
    const standIn = await startStandIn();
    standIn.reply = () => ({
      content: JSON.stringify({
        determination: false,
        confidence: 0.64,
        evidence: "No lab has demonstrated general capability; timelines keep slipping.",
        sources: ["https://example.org/agi-survey"],
      }),
    });
    const apiKey = "sk-test-cli-llm-0123456789abcdef";
    const env = {
      ...BASE_ENV,
      OPENAI_BASE_URL: standIn.baseURL,
      OPENAI_API_KEY: apiKey,
      CRESOLVER_AGENT_MODEL: "standin-model",
    };
    const agent = await serve(["--protocol", "factagora", "--mode", "llm", "--bearer-token-env", "MY_TOKEN"], env);
    try {
      expect(agent.info).toMatchObject({ protocol: "factagora", mode: "llm" });
      const res = await fetch(agent.info.endpoint, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${TOKEN}` },
        body: JSON.stringify(SAMPLE_ROUND1),
      });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { position: string }).position).toBe("NO");
      expect(standIn.requests).toHaveLength(1);
      expect(standIn.requests[0]).toMatchObject({
        url: "/v1/chat/completions",
        authorization: `Bearer ${apiKey}`,
        body: { model: "standin-model" },
      });
    } finally {
      const out = await agent.stop();
      expect(out.stdout + out.stderr).not.toContain(apiKey);
      await standIn.close();
    }
  });

  it("human-readable check output lists the response times and PASS", async () => {
    const agent = await serve(["--protocol", "cresolver"]);
    try {
      const r = await cli(["agent", "check", agent.info.endpoint, "--protocol", "cresolver", "--allow-loopback"]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/^cresolver conformance of http:\/\/127\.0\.0\.1:[0-9]+: PASS \(0 violation\(s\)/);
      expect(r.stdout).toMatch(/response times:\n {2}resolve +[0-9]+ ms/);
    } finally {
      await agent.stop();
    }
  });

  it("text-mode serve prints the URL, then the endpoint to register", async () => {
    const controller = new AbortController();
    let stdout = "";
    const done = run(
      ["agent", "serve", "--protocol", "factagora", "--bearer-token-env", "MY_TOKEN", "--log-level", "silent"],
      {
        stdout: (s) => (stdout += s),
        stderr: () => undefined,
        env: BASE_ENV,
        cwd: REPO,
        signal: controller.signal,
      },
    );
    await expect.poll(() => stdout.split("\n").length, { interval: 20 }).toBeGreaterThanOrEqual(3);
    controller.abort();
    expect(await done).toBe(0);
    const [url, endpoint] = stdout.trimEnd().split("\n");
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:[0-9]+$/);
    expect(endpoint).toContain(`endpoint ${url}/webhook (protocol factagora`);
    expect(stdout).not.toContain(TOKEN);
  });
});

describe("agent serve: auth is required where the spec requires it", () => {
  const needing = protocols.filter((p) => AGENT_HANDLERS[p].requiredAuth !== undefined);
  it.each(needing)("%s without its credential → one-line error naming the flag, exit 2", async (protocol) => {
    const flag = { bearerToken: "--bearer-token-env", hmacSecret: "--hmac-secret-env", jwksUrl: "--jwks-url" }[
      AGENT_HANDLERS[protocol].requiredAuth!
    ];
    expectOneLineError(
      await cli(["agent", "serve", "--protocol", protocol]),
      new RegExp(`protocol ${protocol} needs ${flag}`),
    );
  });

  it("the default variables are read when no flag names one", async () => {
    const agent = await serve(["--protocol", "ai-olympics"], { ...BASE_ENV, CRESOLVER_AGENT_HMAC_SECRET: HMAC });
    expect(agent.info.endpoint).toMatch(/\/webhook$/);
    expect((await agent.stop()).code).toBe(0);
  });

  it("bad serve input → exit 2", async () => {
    expectOneLineError(
      await cli(["agent", "serve", "--protocol", "carrier-pigeon"]),
      /option '--protocol <name>' argument 'carrier-pigeon' is invalid/,
    );
    expectOneLineError(
      await cli(["agent", "serve", "--protocol", "factagora", "--bearer-token-env", "UNSET_VAR"]),
      /--bearer-token-env: environment variable UNSET_VAR is not set/,
    );
    expectOneLineError(
      await cli(["agent", "serve", "--protocol", "factagora", "--bearer-token-env", "s3cr3t-value!"]),
      /takes the NAME of an environment variable/,
    );
    expectOneLineError(
      await cli(["agent", "serve", "--protocol", "agora", "--jwks-url", "ftp://x/jwks"]),
      /--jwks-url must be a http or https URL/,
    );
    expectOneLineError(
      await cli([
        "agent",
        "serve",
        "--protocol",
        "agora",
        "--jwks-url",
        "http://127.0.0.1:1/j",
        "--agora-stream-url",
        "http://x",
      ]),
      /--agora-stream-url must be a ws or wss URL/,
    );
    expectOneLineError(await cli(["agent", "serve", "--agent-id", "seven"]), /--agent-id must be a decimal/);
    expectOneLineError(await cli(["agent", "serve", "--mode", "llm"]), /--mode llm needs CRESOLVER_AGENT_MODEL/);
  });
});

describe("agent check fails broken agents, naming the rule", () => {
  let broken: Server;
  let brokenUrl: string;
  let reference: Served;

  beforeAll(async () => {
    reference = await serve(["--protocol", "factagora", "--bearer-token-env", "MY_TOKEN"]);
    // One loopback server, two broken agents:
    //  /cre/a2a/*   CRE A2A with determination "yes" (a string, not a boolean)
    //  /factagora   a Factagora webhook that accepts any bearer token (it forwards to the reference
    //               agent with the right one), so the replies are valid but auth is not enforced
    broken = createServer((req, res) => {
      let body = "";
      req.on("data", (d: Buffer) => (body += d.toString()));
      req.on("end", () => {
        const json = (status: number, value: unknown) =>
          res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(value));
        if (req.url === "/cre/a2a/resolve") {
          const parsed = JSON.parse(body) as { question?: unknown };
          if (typeof parsed.question !== "string") return json(400, { error: "question required" });
          return json(200, {
            determination: "yes",
            confidence: 0.7,
            evidence: "It is so.",
            sources: ["https://example.org/a"],
          });
        }
        if (req.url === "/cre/a2a/challenge") return json(200, { responses: ["one", "two", "three"] });
        if (req.url === "/factagora") {
          void fetch(reference.info.endpoint, {
            method: "POST",
            headers: { "content-type": "application/json", authorization: `Bearer ${TOKEN}` },
            body,
          }).then(async (r) => json(r.status, await r.json()));
          return;
        }
        return json(404, { error: "not found" });
      });
    });
    await new Promise<void>((r) => broken.listen(0, "127.0.0.1", () => r()));
    brokenUrl = `http://127.0.0.1:${(broken.address() as { port: number }).port}`;
  });

  afterAll(async () => {
    await new Promise<void>((r) => broken.close(() => r()));
    await reference.stop();
  });

  it('a CRE worker answering determination "yes" → exit 1, cresolver.response.determination', async () => {
    const r = await cli([
      "--json",
      "agent",
      "check",
      `${brokenUrl}/cre`,
      "--protocol",
      "cresolver",
      "--allow-loopback",
    ]);
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout) as { passed: boolean; findings: { rule: string; severity: string }[] };
    expect(report.passed).toBe(false);
    expect(report.findings).toContainEqual(
      expect.objectContaining({ rule: "cresolver.response.determination", severity: "violation" }),
    );
    expect(r.stderr.trimEnd().split("\n")).toEqual([
      expect.stringMatching(
        /^error: cresolver conformance check failed: 1 rule\(s\) violated: cresolver\.response\.determination$/,
      ),
    ]);
  });

  it("a Factagora webhook that accepts any token → exit 1, factagora.auth.bad-token-accepted (human output)", async () => {
    const r = await cli([
      "agent",
      "check",
      `${brokenUrl}/factagora`,
      "--protocol",
      "factagora",
      "--allow-loopback",
      "--bearer-token-env",
      "MY_TOKEN",
    ]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/: FAIL \(2 violation\(s\)/);
    expect(r.stdout).toMatch(/violations:\n {2}factagora\.auth\.bad-token-accepted +bad-auth: /);
    expect(r.stderr).toMatch(
      /^error: factagora conformance check failed: 2 rule\(s\) violated: factagora\.auth\.bad-token-accepted, factagora\.auth\.missing-token-accepted\n$/,
    );
    expect(r.stdout + r.stderr).not.toContain(TOKEN);
  });

  it("exit code 1 on a violation (the bin exits with run's code)", async () => {
    const r = await cli(["agent", "check", `${brokenUrl}/cre`, "--protocol", "cresolver", "--allow-loopback"]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/cresolver\.response\.determination/);
  });
});

describe("agent check: bad input → exit 2", () => {
  it.each([
    [
      ["agent", "check", "http://127.0.0.1:9/x", "--protocol", "carrier-pigeon", "--allow-loopback"],
      /option '--protocol <name>' argument 'carrier-pigeon' is invalid/,
    ],
    [
      ["agent", "check", "http://127.0.0.1:9/x", "--allow-loopback"],
      /required option '--protocol <name>' not specified/,
    ],
    [["agent", "check", "not a url", "--protocol", "cresolver"], /<url> is not a URL/],
    [["agent", "check", "ftp://example.org/x", "--protocol", "cresolver"], /<url> must be a http or https URL/],
    [
      ["agent", "check", "http://127.0.0.1:9/webhook", "--protocol", "factagora", "--allow-loopback"],
      /protocol factagora needs the agent's credential: --bearer-token-env/,
    ],
    [
      ["agent", "check", "http://127.0.0.1:9/webhook", "--protocol", "ai-olympics", "--allow-loopback"],
      /protocol ai-olympics needs the agent's credential: --hmac-secret-env/,
    ],
    [
      [
        "agent",
        "check",
        "http://127.0.0.1:9/webhook",
        "--protocol",
        "factagora",
        "--allow-loopback",
        "--bearer-token-env",
        "UNSET_VAR",
      ],
      /environment variable UNSET_VAR is not set/,
    ],
    [["agent", "check", "http://127.0.0.1:9/", "--protocol", "cresolver"], /loopback address: pass --allow-loopback/],
    [
      ["agent", "check", "http://10.1.2.3/", "--protocol", "cresolver"],
      /private-network address: pass --allow-private/,
    ],
    [
      ["agent", "check", "http://127.0.0.1:9/", "--protocol", "cresolver", "--allow-loopback", "--timeout-ms", "soon"],
      /--timeout-ms must be an integer/,
    ],
    [
      ["agent", "check", "http://127.0.0.1:9/agora", "--protocol", "agora", "--allow-loopback", "--jwks-port", "99999"],
      /--jwks-port must be an integer in 0..65535/,
    ],
  ] as [string[], RegExp][])("%j", async (args, pattern) => {
    expectOneLineError(await cli(args), pattern);
  });
});
