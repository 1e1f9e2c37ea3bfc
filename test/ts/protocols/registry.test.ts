/**
 * The protocol registry (protocols/index.ts) lists exactly the folders under protocols/, and each module speaks
 * with one name on all three sides: the adapter it builds, the reference agent's handler and the conformance
 * report. Adding a protocol = one folder + one registry line; this test fails when either is missing.
 */
import { existsSync, readdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AGENT_HANDLERS,
  CONFORMANCE_CHECKERS,
  defaultAdapters,
  PROTOCOL_NAMES,
  PROTOCOLS,
} from "../../../protocols/index.js";
import { createCredentialStore } from "../../../workflow/adapters/credentials.js";
import { createSafeHttpClient } from "../../../workflow/http/index.js";
import { startServer, type TestServer } from "../workflow/helpers/servers.js";
import { testKey } from "./agora/helpers.js";

const PROTOCOLS_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "../../../protocols");
const FOLDER_FILES = ["README.md", "adapter.ts", "agent.ts", "conformance.ts", "index.ts", "wire.ts"];

const folders = readdirSync(PROTOCOLS_DIR, { withFileTypes: true })
  // protocols/shared/ holds the protocol-neutral types, not a protocol.
  .filter((e) => e.isDirectory() && e.name !== "shared")
  .map((e) => e.name)
  .sort();

describe("protocol registry", () => {
  const http = createSafeHttpClient({ allowLoopback: true });
  let notAnAgent: TestServer;
  beforeAll(async () => {
    // Answers 404 to everything: every checker must still name its protocol and fail the agent.
    notAnAgent = await startServer((_req, res) => {
      res.writeHead(404, { "content-type": "application/json" });
      res.end('{"error":"not found"}');
    });
  });
  afterAll(async () => {
    await notAnAgent.close();
    await http.close();
  });

  it("lists exactly the folders under protocols/, each holding the same set of files", () => {
    expect([...PROTOCOL_NAMES].sort()).toEqual(folders);
    expect(folders).toHaveLength(5);
    for (const folder of folders) {
      for (const file of FOLDER_FILES)
        expect(existsSync(join(PROTOCOLS_DIR, folder, file)), `${folder}/${file}`).toBe(true);
    }
    expect(Object.keys(AGENT_HANDLERS)).toEqual(PROTOCOL_NAMES);
    expect(Object.keys(CONFORMANCE_CHECKERS)).toEqual(PROTOCOL_NAMES);
  });

  it("each module uses its folder's name for the adapter, the agent handler and the conformance report", async () => {
    const key = await testKey();
    const config = { http, credentials: createCredentialStore(), agora: { signer: key.signer() } };
    for (const module of PROTOCOLS) {
      expect(folders).toContain(module.name);
      expect(module.createAdapter(config)?.protocol, module.name).toBe(module.name);
      expect(module.agentHandler.protocol, module.name).toBe(module.name);
      const report = await module.checkConformance({ url: `${notAnAgent.url}/agent`, http, timeoutMs: 5_000 });
      expect(report.protocol, module.name).toBe(module.name);
      expect(report.passed, module.name).toBe(false);
    }
  });

  it("builds the default adapters in registry order; agora only with a signer", async () => {
    expect(defaultAdapters({ http }).map((a) => a.protocol)).toEqual(PROTOCOL_NAMES.filter((p) => p !== "agora"));
    const key = await testKey();
    expect(defaultAdapters({ http, agora: { signer: key.signer() } }).map((a) => a.protocol)).toEqual(PROTOCOL_NAMES);
  });
});
