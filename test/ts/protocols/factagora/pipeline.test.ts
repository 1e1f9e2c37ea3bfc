/**
 * Factagora workers inside the pipeline's ask → quorum → challenge stages (no chain needed): a mixed panel of a
 * CRE reference agent, a Factagora reference agent and a Factagora agent that abstains (NEUTRAL).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAdapterRegistry, defaultAdapters } from "../../../../protocols/index.js";
import { anyOriginStore } from "../../workflow/helpers/credentials.js";
import type { MarketSnapshot } from "../../../../workflow/core/types.js";
import { createSafeHttpClient, type SafeHttpClient } from "../../../../workflow/http/index.js";
import { askStage } from "../../../../workflow/pipeline/03-ask.js";
import { quorumStage } from "../../../../workflow/pipeline/04-quorum.js";
import { challengeStage } from "../../../../workflow/pipeline/05-challenge.js";
import { startAgent, stopAll } from "../../../helpers/agents.js";
import type { TestServer } from "../../workflow/helpers/servers.js";
import { startFakeAgent, TOKEN, validReply } from "./fixtures.js";
import type { DiscoveredWorkerRecord } from "../../../../workflow/core/types.js";

describe("factagora workers in the pipeline stages", () => {
  let http: SafeHttpClient;
  let neutral: TestServer;
  beforeAll(async () => {
    http = createSafeHttpClient({ allowLoopback: true });
    neutral = await startFakeAgent(validReply({ position: "NEUTRAL", confidence: 0.5 }), { token: "neutral-token" });
  });
  afterAll(async () => {
    await http.close();
    await neutral.close();
    await stopAll();
  });

  it("asks and challenges Factagora agents next to a CRE agent; NEUTRAL abstains and earns no quorum credit", async () => {
    const cre = await startAgent({ protocol: "cresolver", persona: "analyst" });
    const fa = await startAgent({ protocol: "factagora", persona: "skeptic", auth: { bearerToken: TOKEN } });
    const market: MarketSnapshot = {
      chainId: 31337,
      marketAddress: "0x00000000000000000000000000000000000000aa",
      marketId: 9n,
      question: "Will the S&P 500 close above 7,000 on December 31, 2026?",
      deadline: 1_798_761_599,
      context: "",
      workers: [1n, 2n, 3n].map((id) => ({
        address: `0x${id.toString(16).padStart(40, "0")}` as const,
        agentId: id,
        stake: 1n,
      })),
    };
    const endpoints = [
      { url: cre.url, protocol: "cresolver" },
      { url: `${fa.url}/webhook`, protocol: "factagora" },
      { url: `${neutral.url}/webhook`, protocol: "factagora" },
    ];
    const records: DiscoveredWorkerRecord[] = market.workers.map((seat, i) => ({ seat, endpoint: endpoints[i] }));
    const adapters = createAdapterRegistry(
      defaultAdapters({
        http,
        credentials: anyOriginStore({ "2": { bearerToken: TOKEN }, "3": { bearerToken: "neutral-token" } }),
      }),
    );

    const asked = await askStage(market, records, adapters);
    expect(asked[0].answer).toBeDefined();
    expect(asked[1].answer?.extras).toMatchObject({ protocol: "factagora", roundNumber: 1 });
    expect(asked[2].answer).toBeUndefined();
    expect(asked[2].askFailure?.kind).toBe("abstained");
    expect(quorumStage(market, asked)).toMatchObject({ answered: 2 });

    const challenged = await challengeStage(market, asked, adapters);
    expect(challenged[1].challenges).toHaveLength(3);
    expect(challenged[1].challengeReplies).toHaveLength(3);
    expect(challenged[1].challengeFailure).toBeUndefined();
    expect(challenged[2].challenges).toBeUndefined();
    expect(neutral.requests).toHaveLength(1);
  });
});
