import { describe, expect, it } from "vitest";
import {
  buildRegistrationFile,
  pickWorkerEndpoint,
  REGISTRATION_V1_TYPE,
  registrationFileSchema,
  type RegistrationFile,
} from "../../../workflow/registration/index.js";
import { expectCode, specExample } from "./fixtures.js";

function fileWith(services: Array<Record<string, unknown>>, extra: Record<string, unknown> = {}): RegistrationFile {
  return registrationFileSchema.parse({ type: REGISTRATION_V1_TYPE, name: "W", services, ...extra });
}

describe("pickWorkerEndpoint", () => {
  it("picks the spec example's A2A entry, skipping the wallet entry", () => {
    const file = registrationFileSchema.parse(specExample());
    expect(pickWorkerEndpoint(file)).toEqual({ url: "https://agent1.example.com", protocol: "cresolver" });
  });

  it("picks what buildRegistrationFile wrote", () => {
    const file = buildRegistrationFile({ name: "W", endpoint: "http://127.0.0.1:8080/worker" });
    expect(pickWorkerEndpoint(file)).toEqual({ url: "http://127.0.0.1:8080/worker", protocol: "cresolver" });
  });

  it("matches the service name case-insensitively", () => {
    for (const name of ["a2a", "A2a", "a2A"]) {
      expect(pickWorkerEndpoint(fileWith([{ name, endpoint: "https://w.example" }])).url).toBe("https://w.example");
    }
    // Not a prefix or substring match.
    expect(() => pickWorkerEndpoint(fileWith([{ name: "A2A-legacy", endpoint: "https://w.example" }]))).toThrow();
  });

  it("defaults a missing protocol to cresolver and lower-cases the one returned", () => {
    expect(pickWorkerEndpoint(fileWith([{ name: "A2A", endpoint: "https://w.example" }]))).toEqual({
      url: "https://w.example",
      protocol: "cresolver",
    });
    expect(
      pickWorkerEndpoint(fileWith([{ name: "A2A", endpoint: "https://w.example", protocol: "CREsolver" }])),
    ).toEqual({
      url: "https://w.example",
      protocol: "cresolver",
    });
  });

  it("compares supported protocols case-insensitively", () => {
    const file = fileWith([{ name: "A2A", endpoint: "https://w.example", protocol: "Google-A2A" }]);
    expect(pickWorkerEndpoint(file, ["GOOGLE-a2a"])).toEqual({ url: "https://w.example", protocol: "google-a2a" });
  });

  it("skips an A2A entry with an unsupported protocol for the next A2A entry", () => {
    const file = fileWith([
      { name: "MCP", endpoint: "https://mcp.example" },
      { name: "A2A", endpoint: "https://card.example/.well-known/agent-card.json", protocol: "a2a-jsonrpc" },
      { name: "A2A", endpoint: "https://second.example", protocol: "cresolver" },
      { name: "A2A", endpoint: "https://third.example" },
    ]);
    expect(pickWorkerEndpoint(file)).toEqual({ url: "https://second.example", protocol: "cresolver" });
    expect(pickWorkerEndpoint(file, ["a2a-jsonrpc", "cresolver"])).toEqual({
      url: "https://card.example/.well-known/agent-card.json",
      protocol: "a2a-jsonrpc",
    });
  });

  it("fails with no-endpoint when no A2A entry speaks a supported protocol", async () => {
    const file = fileWith([{ name: "A2A", endpoint: "https://w.example", protocol: "other" }]);
    const err = await expectCode(() => pickWorkerEndpoint(file), "no-endpoint");
    expect(err.message).toContain("other");
    await expectCode(
      () => pickWorkerEndpoint(fileWith([{ name: "A2A", endpoint: "https://w.example" }]), []),
      "no-endpoint",
    );
  });

  it("fails with no-endpoint when there is no A2A entry at all", async () => {
    await expectCode(() => pickWorkerEndpoint(fileWith([{ name: "wallet", endpoint: "eip155:1:0x1" }])), "no-endpoint");
  });

  it.each([
    ["a CAIP-10 account", "eip155:1:0x0000000000000000000000000000000000000001"],
    ["an ENS name", "worker.eth"],
    ["a relative path", "/a2a"],
    ["a javascript: URL", "javascript:alert(1)"],
    ["a file: URL", "file:///etc/passwd"],
    ["a ws: URL", "wss://w.example/socket"],
    ["an ipfs: URL", "ipfs://bafy/x"],
    ["credentials", "https://user:pass@w.example"],
    ["surrounding whitespace", " https://w.example "],
  ])("refuses the first supported A2A entry whose endpoint is %s", async (_label, endpoint) => {
    const file = fileWith([
      { name: "A2A", endpoint },
      { name: "A2A", endpoint: "https://later.example" },
    ]);
    await expectCode(() => pickWorkerEndpoint(file), "no-endpoint");
  });

  it("does not ask an agent marked inactive, even with a good endpoint", async () => {
    const file = fileWith([{ name: "A2A", endpoint: "https://w.example" }], { active: false });
    const err = await expectCode(() => pickWorkerEndpoint(file), "no-endpoint");
    expect(err.message).toContain("inactive");
    // Absent means active.
    expect(pickWorkerEndpoint(fileWith([{ name: "A2A", endpoint: "https://w.example" }])).url).toBe(
      "https://w.example",
    );
    expect(pickWorkerEndpoint(fileWith([{ name: "A2A", endpoint: "https://w.example" }], { active: true })).url).toBe(
      "https://w.example",
    );
  });
});
