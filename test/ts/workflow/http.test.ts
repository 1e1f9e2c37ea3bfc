import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  classifyAddress,
  createSafeHttpClient,
  HttpError,
  sanitizeJson,
  stringifyJson,
  type SafeHttpClient,
} from "../../../workflow/http/index.js";
import { startDns } from "./helpers/dns.js";
import { sendJson, sleep, startServer, TEST_TLS, type TestServer } from "./helpers/servers.js";

async function failure(p: Promise<unknown>): Promise<HttpError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof HttpError) return e;
    throw e;
  }
  throw new Error("expected a failure");
}

describe("destination guard: address classification", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["127.255.1.2", "loopback"],
    ["::1", "loopback"],
    ["10.1.2.3", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["100.64.0.1", "private"],
    ["100.127.255.254", "private"],
    ["fc00::1", "private"],
    ["fd12:3456::1", "private"],
    ["169.254.169.254", "link-local"],
    ["fe80::1", "link-local"],
    ["fe80::1%eth0", "link-local"],
    ["224.0.0.1", "multicast"],
    ["239.255.255.250", "multicast"],
    ["ff02::1", "multicast"],
    ["0.0.0.0", "unspecified"],
    ["0.1.2.3", "unspecified"],
    ["::", "unspecified"],
    ["255.255.255.255", "broadcast"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["::ffff:169.254.169.254", "link-local"],
    ["::ffff:a9fe:a9fe", "link-local"],
    ["::ffff:10.0.0.1", "private"],
    ["::127.0.0.1", "loopback"],
    ["::a9fe:a9fe", "link-local"],
    ["64:ff9b::a9fe:a9fe", "link-local"],
    ["2002:7f00:1::", "loopback"],
    ["2001::1", "reserved"], // Teredo 2001::/32
    ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "reserved"], // Teredo, RFC 4380's example
    ["2001:10::1", "reserved"], // ORCHID 2001:10::/28
    ["2001:1f:ffff::1", "reserved"],
    ["2001:20::1", "reserved"], // ORCHIDv2 2001:20::/28
    ["2001:2f::1", "reserved"],
    ["2001:2::1", "reserved"], // benchmarking 2001:2::/48
    ["2001:4860:4860::8888", "public"],
    ["2001:1::1", "public"],
    ["8.8.8.8", "public"],
    ["172.32.0.1", "public"],
    ["100.128.0.1", "public"],
    ["2606:4700::1111", "public"],
    ["::ffff:8.8.8.8", "public"],
  ])("%s is %s", (address, cls) => {
    expect(classifyAddress(address)).toBe(cls);
  });

  it("is not fooled by host names", () => {
    expect(classifyAddress("localhost")).toBeUndefined();
  });
});

describe("safe HTTP client", () => {
  let loopbackClient: SafeHttpClient;
  let strictClient: SafeHttpClient;
  let server: TestServer;

  beforeAll(async () => {
    loopbackClient = createSafeHttpClient({ allowLoopback: true });
    strictClient = createSafeHttpClient({});
    server = await startServer(async (req, res) => {
      switch ((req.url ?? "").split("?")[0]) {
        case "/ok":
          return sendJson(res, 200, {
            hello: "wor\u0000ld",
            long: "x".repeat(60_000),
            nested: { "k\u0000ey": ["a\u0000"] },
          });
        case "/echo":
          return sendJson(res, 200, { raw: req.bodyText });
        case "/redirect-metadata":
          res.writeHead(302, { location: "http://169.254.169.254/latest/meta-data/" });
          return res.end();
        case "/redirect-json":
          res.writeHead(307, { location: "/ok", "content-type": "application/json" });
          return res.end("{}");
        case "/not-json":
          return sendJson(res, 200, "{ determination: yes", "application/json");
        case "/html":
          return sendJson(res, 200, "<html></html>", "text/html");
        case "/huge-declared": {
          const chunk = Buffer.alloc(1024 * 1024, 0x61);
          res.writeHead(200, { "content-type": "application/json", "content-length": 10 * 1024 * 1024 });
          for (let i = 0; i < 10; i++) if (!res.write(chunk)) await new Promise((r) => res.once("drain", r));
          return res.end();
        }
        case "/huge-chunked": {
          // No Content-Length: the cap must be enforced while streaming.
          const chunk = Buffer.from(`"${"a".repeat(1024 * 1024 - 2)}"`);
          res.writeHead(200, { "content-type": "application/json" });
          res.write("[");
          for (let i = 0; i < 10; i++) {
            if (res.destroyed) return;
            const more = res.write(i === 0 ? chunk : Buffer.concat([Buffer.from(","), chunk]));
            if (!more)
              await new Promise((r) => {
                res.once("drain", r);
                res.once("close", r);
              });
          }
          res.write("]");
          return res.end();
        }
        case "/never":
          return; // holds the connection open, never answers
        case "/slow-body":
          res.writeHead(200, { "content-type": "application/json" });
          res.write('{"a":');
          return; // never finishes
        case "/500":
          return sendJson(res, 500, { error: "boom" });
        case "/401":
          return sendJson(res, 401, { error: "no" });
        case "/gzip":
          res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
          return res.end("\x1f\x8b");
        case "/deep":
          return sendJson(res, 200, "[".repeat(100) + "]".repeat(100));
        case "/latin1":
          return sendJson(res, 200, '{"a":1}', "application/json; charset=iso-8859-1");
        case "/text":
          res.writeHead(200, { "content-type": "text/plain" });
          return res.end('{"name":"agent"}');
        default:
          return sendJson(res, 404, {});
      }
    });
  });

  afterAll(async () => {
    await loopbackClient.close();
    await strictClient.close();
    await server.close();
  });

  it("parses JSON and strips NUL bytes and over-long strings recursively", async () => {
    const res = await loopbackClient.postJson(`${server.url}/ok`, {}, { timeoutMs: 5_000 });
    const body = res.body as { hello: string; long: string; nested: Record<string, string[]> };
    expect(body.hello).toBe("world");
    expect(body.long.length).toBe(50_000);
    expect(body.nested).toEqual({ key: ["a"] });
  });

  it("writes bigints as exact JSON integers", async () => {
    const id = 123456789012345678901234567890n;
    const res = await loopbackClient.postJson(
      `${server.url}/echo`,
      { market_id: id, small: 42n },
      { timeoutMs: 5_000 },
    );
    expect((res.body as { raw: string }).raw).toBe('{"market_id":123456789012345678901234567890,"small":42}');
    expect(stringifyJson({ s: "__bigint_x_1" })).toBe('{"s":"__bigint_x_1"}');
  });

  it("refuses a redirect (to cloud metadata) without following it", async () => {
    const e = await failure(loopbackClient.postJson(`${server.url}/redirect-metadata`, {}, { timeoutMs: 5_000 }));
    expect(e.kind).toBe("http-status");
    expect(e.status).toBe(302);
    expect(e.message).toMatch(/redirect/);
    expect(e.message).not.toContain("169.254");
    const e2 = await failure(
      loopbackClient.getText(`${server.url}/redirect-json`, { timeoutMs: 5_000, maxBytes: 1000 }),
    );
    expect(e2.kind).toBe("http-status");
  });

  it("rejects malformed JSON, wrong content types, compressed and non-UTF-8 bodies as invalid-response", async () => {
    for (const path of ["/not-json", "/html", "/gzip", "/latin1", "/deep"]) {
      const e = await failure(loopbackClient.postJson(`${server.url}${path}`, {}, { timeoutMs: 5_000 }));
      expect(e.kind, path).toBe("invalid-response");
    }
  });

  it("caps response size (declared and streamed) at 5 MB by default", async () => {
    for (const path of ["/huge-declared", "/huge-chunked"]) {
      const e = await failure(loopbackClient.postJson(`${server.url}${path}`, {}, { timeoutMs: 10_000 }));
      expect(e.kind, path).toBe("too-large");
    }
    const e = await failure(
      loopbackClient.getText(`${server.url}/huge-chunked`, { timeoutMs: 10_000, maxBytes: 64 * 1024 }),
    );
    expect(e.kind).toBe("too-large");
  });

  it("enforces the overall deadline for a server that never answers or stalls mid-body", async () => {
    const e = await failure(loopbackClient.postJson(`${server.url}/never`, {}, { timeoutMs: 300 }));
    expect(e.kind).toBe("timeout");
    expect(e.retryable).toBe(false);
    const e2 = await failure(loopbackClient.postJson(`${server.url}/slow-body`, {}, { timeoutMs: 300 }));
    expect(e2.kind).toBe("timeout");
  });

  it("honours the caller's abort signal", async () => {
    const controller = new AbortController();
    const pending = failure(
      loopbackClient.postJson(`${server.url}/never`, {}, { timeoutMs: 10_000, signal: controller.signal }),
    );
    await sleep(50);
    controller.abort();
    expect((await pending).kind).toBe("timeout");
  });

  it("maps statuses: 5xx retryable, 401 auth; never echoes request headers", async () => {
    const e = await failure(
      loopbackClient.postJson(
        `${server.url}/500?token=SECRET_Q`,
        {},
        { timeoutMs: 5_000, headers: { authorization: "Bearer SECRET_H" } },
      ),
    );
    expect(e.kind).toBe("http-status");
    expect(e.retryable).toBe(true);
    expect(`${e.message} ${String(e.stack)}`).not.toMatch(/SECRET/);
    const e2 = await failure(loopbackClient.postJson(`${server.url}/401`, {}, { timeoutMs: 5_000 }));
    expect(e2.kind).toBe("auth");
    expect(e2.retryable).toBe(false);
  });

  it("reports connection refused as a retryable network failure", async () => {
    const gone = await startServer(() => undefined);
    const url = gone.url;
    await gone.close();
    const e = await failure(loopbackClient.postJson(`${url}/x`, {}, { timeoutMs: 5_000 }));
    expect(e.kind).toBe("network");
    expect(e.retryable).toBe(true);
  });

  it("getText returns any UTF-8 text and serves as a UriFetcher", async () => {
    expect(await loopbackClient.fetcher(`${server.url}/text`, { maxBytes: 1024, timeoutMs: 5_000 })).toBe(
      '{"name":"agent"}',
    );
  });

  it("refuses loopback unless allowed, for literal IPs and for names resolving to loopback", async () => {
    const before = server.requests.length;
    const e = await failure(strictClient.postJson(`${server.url}/ok`, {}, { timeoutMs: 5_000 }));
    expect(e.kind).toBe("destination-refused");
    const e2 = await failure(strictClient.postJson(`http://localhost:${server.port}/ok`, {}, { timeoutMs: 5_000 }));
    expect(e2.kind).toBe("destination-refused");
    expect(e2.message).toMatch(/loopback/);
    const e3 = await failure(
      strictClient.getText(`http://localhost:${server.port}/text`, { timeoutMs: 5_000, maxBytes: 100 }),
    );
    expect(e3.kind).toBe("destination-refused");
    expect(server.requests.length).toBe(before);
    // with loopback allowed the same name works
    const ok = await loopbackClient.postJson(`http://localhost:${server.port}/ok`, {}, { timeoutMs: 5_000 });
    expect(ok.status).toBe(200);
  });

  it.each([
    "http://169.254.169.254/latest/meta-data/",
    "http://[::ffff:169.254.169.254]/",
    "http://[::ffff:a9fe:a9fe]/",
    "http://[64:ff9b::a9fe:a9fe]/",
    "http://2852039166/", // 169.254.169.254 as one decimal number
    "http://0xa9.0xfe.0xa9.0xfe/",
    "http://0251.0376.0251.0376/", // octal
    "http://169.254.43518/",
    "http://10.0.0.1/",
    "http://172.16.5.4/",
    "http://192.168.0.1/",
    "http://100.64.1.1/",
    "http://[fd00::1]/",
    "http://[fe80::1]/",
    "http://0.0.0.0/",
    "http://0/",
    "http://[::]/",
    "http://224.0.0.1/",
    "http://255.255.255.255/",
    "http://[ff02::1]/",
  ])("refuses %s even with loopback allowed", async (url) => {
    const e = await failure(loopbackClient.postJson(url, {}, { timeoutMs: 2_000 }));
    expect(e.kind).toBe("destination-refused");
  });

  it.each([
    "http://127.0.0.1/",
    "http://2130706433/",
    "http://0x7f.1/",
    "http://127.1/",
    "http://[::1]/",
    "http://[::ffff:127.0.0.1]/",
    "http://[::127.0.0.1]/",
    "http://[0:0:0:0:0:ffff:7f00:1]/",
  ])("refuses loopback literal %s when loopback is not allowed", async (url) => {
    const e = await failure(strictClient.postJson(url, {}, { timeoutMs: 2_000 }));
    expect(e.kind).toBe("destination-refused");
  });

  it("allows private ranges only with allowPrivate", async () => {
    const e = await failure(loopbackClient.postJson("http://10.255.255.1/", {}, { timeoutMs: 200 }));
    expect(e.kind).toBe("destination-refused");
    const privateClient = createSafeHttpClient({ allowPrivate: true });
    try {
      const e2 = await failure(privateClient.postJson("http://10.255.255.1/", {}, { timeoutMs: 200 }));
      expect(e2.kind).not.toBe("destination-refused");
      const e3 = await failure(privateClient.postJson("http://169.254.169.254/", {}, { timeoutMs: 200 }));
      expect(e3.kind).toBe("destination-refused");
    } finally {
      await privateClient.close();
    }
  });

  it("pins the connection to the address it checked: a rebinding DNS answer is never used", async () => {
    // The name first resolves to loopback (allowed here), then to cloud metadata. The guard checks
    // and connects with one and the same answer; the next fresh connection sees the new answer and
    // is refused before any packet is sent.
    const dns = await startDns({
      "rebind.test": [["127.0.0.1"], ["169.254.169.254"]],
      "mixed.test": [["127.0.0.1", "10.0.0.7"]],
    });
    const client = createSafeHttpClient({ allowLoopback: true, dnsServers: [dns.server] });
    try {
      const ok = await client.postJson(`http://rebind.test:${server.port}/ok`, {}, { timeoutMs: 5_000 });
      expect(ok.status).toBe(200);
      expect(dns.queries.get("rebind.test")).toBe(1);
      await client.close();
      const fresh = createSafeHttpClient({ allowLoopback: true, dnsServers: [dns.server] });
      try {
        const e = await failure(fresh.postJson(`http://rebind.test:${server.port}/ok`, {}, { timeoutMs: 5_000 }));
        expect(e.kind).toBe("destination-refused");
        expect(e.message).toMatch(/link-local/);
        // A name with one allowed and one private address is refused as a whole.
        const e2 = await failure(fresh.postJson(`http://mixed.test:${server.port}/ok`, {}, { timeoutMs: 5_000 }));
        expect(e2.kind).toBe("destination-refused");
        const e3 = await failure(fresh.postJson(`http://unknown.test:${server.port}/ok`, {}, { timeoutMs: 5_000 }));
        expect(e3.kind).toBe("network");
      } finally {
        await fresh.close();
      }
    } finally {
      await client.close().catch(() => undefined);
      await dns.close();
    }
  });

  it("speaks https with an extra trusted CA and refuses an untrusted certificate", async () => {
    const tls = await startServer((req, res) => sendJson(res, 200, { path: req.url }), { tls: true });
    const trusting = createSafeHttpClient({ allowLoopback: true, ca: TEST_TLS.cert });
    try {
      expect((await trusting.postJson(`${tls.url}/a`, {}, { timeoutMs: 5_000 })).body).toEqual({ path: "/a" });
      expect(await trusting.getText(`https://localhost:${tls.port}/b`, { timeoutMs: 5_000, maxBytes: 1_000 })).toBe(
        '{"path":"/b"}',
      );
      const e = await failure(loopbackClient.postJson(`${tls.url}/a`, {}, { timeoutMs: 5_000 }));
      expect(e.kind).toBe("network");
      expect(e.retryable).toBe(false);
    } finally {
      await trusting.close();
      await tls.close();
    }
  });

  it("refuses other schemes and URLs with credentials", async () => {
    for (const url of [
      "file:///etc/passwd",
      "ftp://example.com/",
      "data:application/json,{}",
      `http://u:p@127.0.0.1:${server.port}/ok`,
    ]) {
      const e = await failure(loopbackClient.postJson(url, {}, { timeoutMs: 1_000 }));
      expect(e.kind, url).toBe("destination-refused");
    }
  });
});

describe("sanitizeJson", () => {
  it("keeps __proto__ as a plain key", () => {
    const parsed = JSON.parse('{"__proto__":{"polluted":true},"a":"b"}') as unknown;
    const clean = sanitizeJson(parsed) as Record<string, unknown>;
    expect(Object.getPrototypeOf(clean)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.keys(clean)).toContain("__proto__");
  });
  it("never leaves half a surrogate pair", () => {
    const s = sanitizeJson(`a${"😀".repeat(10)}`, { maxStringLength: 4, maxDepth: 8 }) as string;
    expect(s).toBe("a😀");
  });
});
