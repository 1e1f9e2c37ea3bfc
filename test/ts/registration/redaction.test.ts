/**
 * A credential in an endpoint or agent URI (userinfo, or a token in the query) never appears in an error: those
 * messages go to logs and into the public evidence bundle.
 */
import { describe, expect, it } from "vitest";
import { checkRoundtable } from "../../../protocols/roundtable/conformance.js";
import { describeUrlText } from "../../../workflow/http/errors.js";
import { createSafeHttpClient } from "../../../workflow/http/index.js";
import { buildRegistrationFile, decodeAgentUri, pickWorkerEndpoint } from "../../../workflow/registration/index.js";
import type { RegistrationFile } from "../../../workflow/registration/schema.js";

const SECRET = "hunter2-SECRET-value";

async function messageOf(run: () => unknown): Promise<string> {
  try {
    await run();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error("did not throw");
}

const file = (endpoint: string): RegistrationFile => ({
  type: "https://eips.ethereum.org/EIPS/eip-8004#registration-v1",
  name: "agent",
  services: [{ name: "A2A", endpoint, protocol: "cresolver" }],
  active: true,
});

describe("URLs in messages", () => {
  it.each([
    [`https://user:${SECRET}@agent.example/a2a`, "https://agent.example/a2a"],
    [`https://agent.example/a2a?token=${SECRET}`, "https://agent.example/a2a"],
    [`https://agent.example/a2a#${SECRET}`, "https://agent.example/a2a"],
    [`ftp://u:${SECRET}@agent.example/x?api_key=${SECRET}`, "ftp://agent.example/x"],
    [`https://user:${SECRET}@bad host/x?t=${SECRET}`, "https://bad host/x"],
    [`not a url ?key=${SECRET}`, "not a url "],
  ])("describeUrlText(%s) keeps origin and path only", (raw, shown) => {
    expect(describeUrlText(raw)).toBe(shown);
  });

  it.each([
    ["userinfo", `https://user:${SECRET}@agent.example/a2a`],
    ["a token query on a non-http scheme", `ftp://agent.example/a2a?token=${SECRET}`],
    ["userinfo on an unparsable URL", `https://user:${SECRET}@bad host/a2a`],
  ])("pickWorkerEndpoint refuses an endpoint with %s without echoing it", async (_label, endpoint) => {
    const message = await messageOf(() => pickWorkerEndpoint(file(endpoint)));
    expect(message).toMatch(/endpoint/);
    expect(message).not.toContain(SECRET);
  });

  it("buildRegistrationFile does not echo a credential in the endpoint", async () => {
    const message = await messageOf(() =>
      buildRegistrationFile({ name: "a", endpoint: `https://u:${SECRET}@agent.example/` }),
    );
    expect(message).toMatch(/contains credentials/);
    expect(message).not.toContain(SECRET);
  });

  it("decodeAgentUri does not echo userinfo or a query token of the tokenURI", async () => {
    const refused = await messageOf(() =>
      decodeAgentUri(`https://u:${SECRET}@reg.example/agent.json`, { fetcher: async () => "{}" }),
    );
    expect(refused).toMatch(/credentials/);
    expect(refused).not.toContain(SECRET);
    const failed = await messageOf(() =>
      decodeAgentUri(`https://reg.example/agent.json?access_token=${SECRET}`, {
        fetcher: async () => {
          throw new Error("connection refused");
        },
      }),
    );
    expect(failed).toMatch(/fetching "https:\/\/reg\.example\/agent\.json" failed/);
    expect(failed).not.toContain(SECRET);
  });

  it("a conformance report never shows a token from the checked URL", async () => {
    const http = createSafeHttpClient({});
    try {
      const report = await checkRoundtable({ url: `https://user:${SECRET}@bad host/?token=${SECRET}`, http });
      expect(JSON.stringify(report)).not.toContain(SECRET);
    } finally {
      await http.close();
    }
  });
});
