import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  buildRegistrationFile,
  decodeAgentUri,
  DEFAULT_MAX_BYTES,
  DEFAULT_TIMEOUT_MS,
  RegistrationError,
  type UriFetcher,
} from "../../../workflow/registration/index.js";
import { expectCode, specExample } from "./fixtures.js";
import {
  hugeRoute,
  loopbackFetcher,
  startServer,
  staticRoutes,
  type LoopbackServer,
  type StreamStats,
} from "./loopback.js";

const CID = "bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi";
const file = buildRegistrationFile({ name: "Served Worker", endpoint: "https://served.example", version: "1" });
const json = JSON.stringify(file);

let server: LoopbackServer;
beforeAll(async () => {
  server = await startServer(
    staticRoutes({
      "/reg.json": json,
      [`/ipfs/${CID}`]: json,
      [`/ipfs/${CID}/agents/7.json`]: json,
      [`/gw/ipfs/${CID}/a%20b.json`]: json,
      "/not-json": "<html>hello</html>",
      "/array": "[1,2]",
      "/wrong-type": JSON.stringify({ ...specExample(), type: "registration-v1" }),
    }),
  );
});
afterAll(() => server.close());

describe("http(s): through the fetcher", () => {
  it("loads and validates a file from a loopback http server", async () => {
    const f = loopbackFetcher();
    expect(await decodeAgentUri(`${server.origin}/reg.json`, { fetcher: f.fetcher })).toStrictEqual(file);
    expect(f.requested).toEqual([`${server.origin}/reg.json`]);
    expect(f.lastLimits).toEqual({ maxBytes: DEFAULT_MAX_BYTES, timeoutMs: DEFAULT_TIMEOUT_MS });
  });

  it("hands https: URIs to the fetcher unchanged (test fetcher routes the host to loopback)", async () => {
    const f = loopbackFetcher((u) => new URL(`${server.origin}${u.pathname}`));
    const decoded = await decodeAgentUri("https://agent.example/reg.json", {
      fetcher: f.fetcher,
      maxBytes: 5_000,
      timeoutMs: 2_000,
    });
    expect(decoded).toStrictEqual(file);
    expect(f.requested).toEqual(["https://agent.example/reg.json"]);
    expect(f.lastLimits).toEqual({ maxBytes: 5_000, timeoutMs: 2_000 });
    expect(server.paths.at(-1)).toBe("/reg.json");
  });

  it("maps served garbage to not-json / invalid-schema", async () => {
    const { fetcher } = loopbackFetcher();
    await expectCode(decodeAgentUri(`${server.origin}/not-json`, { fetcher }), "not-json");
    await expectCode(decodeAgentUri(`${server.origin}/array`, { fetcher }), "invalid-schema");
    await expectCode(decodeAgentUri(`${server.origin}/wrong-type`, { fetcher }), "invalid-schema");
  });

  it("maps HTTP errors and refused connections to fetch-failed", async () => {
    const { fetcher } = loopbackFetcher();
    const err = await expectCode(decodeAgentUri(`${server.origin}/missing`, { fetcher }), "fetch-failed");
    expect(err.message).toContain("404");
    const closed = await startServer(staticRoutes({}));
    const origin = closed.origin;
    await closed.close();
    await expectCode(decodeAgentUri(`${origin}/reg.json`, { fetcher }), "fetch-failed");
  });

  it("refuses http(s) URIs with credentials, without a host, or absurdly long, as bad-uri", async () => {
    const { fetcher } = loopbackFetcher();
    await expectCode(decodeAgentUri("https://user:pw@agent.example/reg.json", { fetcher }), "bad-uri");
    await expectCode(decodeAgentUri("https://", { fetcher }), "bad-uri");
    await expectCode(decodeAgentUri(`https://agent.example/${"a".repeat(9_000)}`, { fetcher }), "bad-uri");
  });

  it("fails with fetch-failed when no fetcher is configured", async () => {
    const err = await expectCode(decodeAgentUri(`${server.origin}/reg.json`), "fetch-failed");
    expect(err.message).toContain("no fetcher");
  });
});

describe("ipfs: through a gateway", () => {
  it("loads ipfs://CID and ipfs://CID/path through a configured gateway", async () => {
    const f = loopbackFetcher();
    const gateway = `${server.origin}/ipfs/`;
    expect(await decodeAgentUri(`ipfs://${CID}`, { fetcher: f.fetcher, ipfsGateway: gateway })).toStrictEqual(file);
    expect(
      await decodeAgentUri(`ipfs://${CID}/agents/7.json`, { fetcher: f.fetcher, ipfsGateway: gateway }),
    ).toStrictEqual(file);
    expect(f.requested).toEqual([`${gateway}${CID}`, `${gateway}${CID}/agents/7.json`]);
  });

  it("accepts the legacy ipfs://ipfs/CID form, a gateway without trailing slash and percent-escapes", async () => {
    const f = loopbackFetcher();
    const gateway = `${server.origin}/gw/ipfs`;
    expect(
      await decodeAgentUri(`ipfs://ipfs/${CID}/a%20b.json`, { fetcher: f.fetcher, ipfsGateway: gateway }),
    ).toStrictEqual(file);
    expect(f.requested).toEqual([`${gateway}/${CID}/a%20b.json`]);
  });

  it("uses https://ipfs.io/ipfs/ by default", async () => {
    const requested: string[] = [];
    const fetcher: UriFetcher = async (url) => {
      requested.push(url);
      return json;
    };
    expect(await decodeAgentUri(`IPFS://${CID}`, { fetcher })).toStrictEqual(file);
    expect(requested).toEqual([`https://ipfs.io/ipfs/${CID}`]);
  });

  it.each([
    ["an empty CID", "ipfs://"],
    ["a dot-dot path", `ipfs://${CID}/../../admin`],
    ["an encoded dot-dot path", `ipfs://${CID}/%2e%2e/%2e%2e/admin`],
    ["a mixed-case encoded dot-dot", `ipfs://${CID}/.%2E/%2E./admin`],
    ["an encoded dot", `ipfs://${CID}/%2e/x`],
    ["an encoded slash", `ipfs://${CID}/a%2F..%2F..%2Fadmin`],
    ["an encoded backslash", `ipfs://${CID}/%5c..%5cadmin`],
    ["a malformed escape", `ipfs://${CID}/%zz`],
    ["an encoded control character", `ipfs://${CID}/a%0ab`],
    ["a dot-dot CID", "ipfs://../admin"],
    ["a query", `ipfs://${CID}?x=1`],
    ["a fragment", `ipfs://${CID}#frag`],
    ["a backslash", `ipfs://${CID}/a\\..\\b`],
    ["a host-looking CID", "ipfs://evil.example:80/x"],
    ["a single slash", `ipfs:/${CID}`],
  ])("refuses %s as bad-uri without fetching", async (_label, uri) => {
    const f = loopbackFetcher();
    await expectCode(decodeAgentUri(uri, { fetcher: f.fetcher, ipfsGateway: `${server.origin}/ipfs/` }), "bad-uri");
    expect(f.requested).toEqual([]);
  });

  it("refuses an unusable gateway as bad-uri", async () => {
    const { fetcher } = loopbackFetcher();
    for (const ipfsGateway of ["ftp://gw.example/ipfs/", "gw.example/ipfs/", "https://gw.example/ipfs/?x="]) {
      await expectCode(decodeAgentUri(`ipfs://${CID}`, { fetcher, ipfsGateway }), "bad-uri");
    }
  });
});

describe("size and time limits on fetched documents", () => {
  const TEN_MB = 10 * 1024 * 1024;

  it.each([
    ["chunked (no content-length)", false],
    ["with content-length", true],
  ])("refuses a 10 MB served document %s as too-large without reading it all", async (_label, withLength) => {
    const stats: StreamStats = { bytesWritten: 0, finished: false, closedEarly: false };
    const big = await startServer(hugeRoute(TEN_MB, withLength, stats));
    try {
      const f = loopbackFetcher();
      await expectCode(decodeAgentUri(`${big.origin}/big.json`, { fetcher: f.fetcher }), "too-large");
      // Read at most the cap plus what was in flight when we stopped.
      expect(f.bytesRead).toBeLessThanOrEqual(DEFAULT_MAX_BYTES + 64 * 1024);
      if (withLength) expect(f.bytesRead).toBe(0);
      await vi.waitFor(() => expect(stats.closedEarly).toBe(true), { timeout: 5_000 });
      expect(stats.finished).toBe(false);
      expect(stats.bytesWritten).toBeLessThan(TEN_MB);
    } finally {
      await big.close();
    }
  });

  it("refuses an oversized body from a fetcher that ignores maxBytes", async () => {
    const sloppy: UriFetcher = async () => `${json}${" ".repeat(2_000)}`;
    await expectCode(
      decodeAgentUri("https://agent.example/reg.json", { fetcher: sloppy, maxBytes: 1_000 }),
      "too-large",
    );
  });

  it("gives up on a fetcher that never settles", async () => {
    const hanging: UriFetcher = () => new Promise<string>(() => {});
    const started = Date.now();
    const err = await expectCode(
      decodeAgentUri("https://agent.example/reg.json", { fetcher: hanging, timeoutMs: 50 }),
      "fetch-failed",
    );
    expect(err.message).toContain("timed out");
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("reports a slow server through the fetcher's own timeout as fetch-failed", async () => {
    const slow = await startServer(() => {
      /* never answers */
    });
    try {
      const { fetcher } = loopbackFetcher();
      await expectCode(decodeAgentUri(`${slow.origin}/reg.json`, { fetcher, timeoutMs: 100 }), "fetch-failed");
    } finally {
      await slow.close();
    }
  });

  it("passes fetcher RegistrationErrors through and types everything else", async () => {
    const own: UriFetcher = async () => {
      throw new RegistrationError("too-large", "refused by the client");
    };
    const err = await expectCode(decodeAgentUri("https://agent.example/x", { fetcher: own }), "too-large");
    expect(err.message).toBe("refused by the client");

    const tagged: UriFetcher = async () => {
      throw Object.assign(new Error("limit"), { code: "too-large" });
    };
    await expectCode(decodeAgentUri("https://agent.example/x", { fetcher: tagged }), "too-large");

    const weird: UriFetcher = async () => {
      // Not an Error, and its toString throws: the decoder must still report one line.
      throw {
        toString() {
          throw new Error("nope");
        },
      };
    };
    await expectCode(decodeAgentUri("https://agent.example/x", { fetcher: weird }), "fetch-failed");

    const nonString = (async () => ({ body: json })) as unknown as UriFetcher;
    await expectCode(decodeAgentUri("https://agent.example/x", { fetcher: nonString }), "fetch-failed");

    const chatty: UriFetcher = async () => {
      throw new Error(`boom ${"z".repeat(100_000)}`);
    };
    const long = await expectCode(decodeAgentUri("https://agent.example/x", { fetcher: chatty }), "fetch-failed");
    expect(long.message).not.toContain("z".repeat(1_000));
  });
});
