import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AgoraEventStore } from "../../../../protocols/agora/event-stream.js";
import { startStreamServer, testKey, wsExchange, type StreamServer, type TestKey } from "./helpers.js";

const path = (m: string) => `/agora/matches/${m}/events`;
const thinking = (message: string) => JSON.stringify({ type: "thinking", message });

describe("agora event stream plugin", () => {
  let key: TestKey;
  let stream: StreamServer;
  beforeAll(async () => {
    key = await testKey();
    stream = await startStreamServer(key, {
      maxEventBytes: 1_024,
      maxInvalidMessages: 3,
      store: new AgoraEventStore({ maxEventsPerAgent: 5 }),
    });
  });
  afterAll(() => stream.close());

  it("records every valid event type for the token's agent and match, acknowledging each", async () => {
    const token = await key.signer().sign({ agent_id: "11", match_id: "100" });
    stream.store.beginRound("100", "11", 1);
    const events = [
      { type: "thinking", message: "Analyzing problem...", extra: "dropped" },
      { type: "spawn_subagent", name: "Analyzer", role: "analysis" },
      { type: "tool_call", tool: "search", args: { q: "x" } },
      { type: "tool_response", result: "...", duration_ms: 800 },
      { type: "intermediate_result", data: { lean: "YES" } },
    ];
    const out = await wsExchange(
      `${stream.wsUrl}${path("100")}`,
      token,
      events.map((e) => JSON.stringify(e)),
    );
    expect(out.messages).toEqual([1, 2, 3, 4, 5].map((seq) => ({ type: "ack", seq })));
    const stored = stream.store.events("100", "11", 1);
    expect(stored.map((e) => e.event.type)).toEqual([
      "thinking",
      "spawn_subagent",
      "tool_call",
      "tool_response",
      "intermediate_result",
    ]);
    expect(stored[0].event).toEqual({ type: "thinking", message: "Analyzing problem..." });
    expect(stored.every((e) => e.round === 1)).toBe(true);
    expect(stream.store.events("100", "12")).toEqual([]);
  });

  it("caps the events per (match, agent): the next one is rejected, counted and the socket closed", async () => {
    const token = await key.signer().sign({ agent_id: "11", match_id: "100" });
    const out = await wsExchange(`${stream.wsUrl}${path("100")}`, token, [
      JSON.stringify({ type: "answer", final: true, value: "YES" }),
    ]);
    expect(out.messages).toEqual([{ type: "rejected", reason: "event cap reached for this match" }]);
    expect(stream.store.dropped("100", "11")).toBe(1);
    expect(stream.store.events("100", "11")).toHaveLength(5);
  });

  it("rejects wrongly-typed, unknown, non-JSON and binary messages, closing after too many", async () => {
    const token = await key.signer().sign({ agent_id: "12", match_id: "101" });
    const out = await wsExchange(`${stream.wsUrl}${path("101")}`, token, [
      JSON.stringify({ type: "answer", final: "yes", value: "YES" }),
      JSON.stringify({ type: "launch_missiles" }),
      "{not json",
    ]);
    expect(out.messages).toHaveLength(3);
    expect(out.messages.every((m) => (m as { type: string }).type === "rejected")).toBe(true);
    expect(out.closeCode).toBe(1008);
    expect(stream.store.events("101", "12")).toEqual([]);
    const bin = await wsExchange(`${stream.wsUrl}${path("101")}`, token, [Buffer.from(thinking("x"))]);
    expect(bin.messages).toEqual([{ type: "rejected", reason: "binary frames are not accepted" }]);
  });

  it("closes the socket on an oversized event (1009) without storing it", async () => {
    const token = await key.signer().sign({ agent_id: "13", match_id: "102" });
    const out = await wsExchange(`${stream.wsUrl}${path("102")}`, token, [thinking("x".repeat(5_000))], 0);
    expect(out.closeCode).toBe(1009);
    expect(stream.store.events("102", "13")).toEqual([]);
  });

  it("refuses the upgrade without a token, with a bad or expired token, and for another match", async () => {
    expect((await wsExchange(`${stream.wsUrl}${path("100")}`, undefined, [])).refusedStatus).toBe(401);
    expect((await wsExchange(`${stream.wsUrl}${path("100")}`, "abc.def.ghi", [])).refusedStatus).toBe(401);
    const stranger = await testKey();
    expect(
      (
        await wsExchange(
          `${stream.wsUrl}${path("100")}`,
          await stranger.signer().sign({ agent_id: "11", match_id: "100" }),
          [],
        )
      ).refusedStatus,
    ).toBe(401);
    const expired = await key
      .signer({ now: () => 1_000_000, ttlSeconds: 60 })
      .sign({ agent_id: "11", match_id: "100" });
    expect((await wsExchange(`${stream.wsUrl}${path("100")}`, expired, [])).refusedStatus).toBe(401);
    const other = await key.signer().sign({ agent_id: "11", match_id: "999" });
    expect((await wsExchange(`${stream.wsUrl}${path("100")}`, other, [])).refusedStatus).toBe(403);
  });

  it("bounds the store: least recently written (match, agent) pairs are evicted", () => {
    const store = new AgoraEventStore({ maxKeys: 2, maxEventsPerAgent: 1 });
    store.append("m1", "a", { type: "thinking", message: "1" });
    store.append("m2", "a", { type: "thinking", message: "2" });
    store.append("m3", "a", { type: "thinking", message: "3" });
    expect(store.events("m1", "a")).toEqual([]);
    expect(store.events("m3", "a")).toHaveLength(1);
    expect(store.append("m3", "a", { type: "thinking", message: "4" }).stored).toBe(false);
  });
});
