/**
 * The workflow's configuration (the JSON file `cre workflow deploy/simulate` hands every node), validated with zod.
 * Addresses are checksummed; limits default to the published DON quotas (workflow/don-limits.ts) and may be raised
 * only as far as the owner's quotas were.
 */
import { getAddress, isAddress, type Address } from "viem";
import { z } from "zod";
import { maxDonPanel } from "../../workflow/don-limits.js";
import { donLimitsInputSchema, donLimitsOf } from "../../workflow/don-limits-input.js";

/** The canonical Multicall3 deployment (same address on nearly every EVM chain). */
export const MULTICALL3_ADDRESS: Address = "0xcA11bde05977b3631167028862bE2a173976CA11";

const address = z
  .string()
  .refine((s) => isAddress(s, { strict: false }), { message: "not an address" })
  .transform((s) => getAddress(s));

const positiveInt = z.number().int().positive();
/** A served document's URL template (track record, answer relay): http(s) only, bounded. */
const httpUrl = z
  .string()
  .min(1)
  .max(512)
  .refine((u) => /^https?:\/\//i.test(u), { message: "http(s) URL expected" });

export const configSchema = z
  .object({
    /** CRE chain selector name of the market's chain, e.g. "ethereum-testnet-sepolia". */
    chainSelectorName: z.string().min(1),
    /** EIP-155 chain id of that chain: it goes into the report, and the receiver refuses another. */
    chainId: positiveInt,
    /** The ResolutionMarket whose ResolutionRequested events trigger the workflow. */
    marketAddress: address,
    /** The CREReceiver that proposes on the market. */
    receiverAddress: address,
    /** Default: the market's `identityRegistry()` (read in the same multicall). */
    identityRegistry: address.optional(),
    /** Multicall3 on that chain. */
    multicall3Address: address.default(MULTICALL3_ADDRESS),
    /** Read at the last finalized block (default) or at the latest one (local simulations). */
    readAt: z.enum(["finalized", "latest"]).default("finalized"),
    /** Log trigger confidence. */
    confidence: z
      .enum(["CONFIDENCE_LEVEL_FINALIZED", "CONFIDENCE_LEVEL_SAFE", "CONFIDENCE_LEVEL_LATEST"])
      .default("CONFIDENCE_LEVEL_FINALIZED"),
    /** The bundle URI put in the report; `{hash}` is replaced by the bundle hash. Default "" (see docs/CRE.md). */
    bundleUriTemplate: z.string().max(256).default(""),
    /** How long the DON's HTTP cache may serve one worker reply to the other nodes, seconds. */
    httpCacheMaxAgeSeconds: z.number().int().min(0).max(600).default(600),
    /**
     * The served track record (docs/TRACK-RECORD.md): the window document for a market's cut-off, fetched in one
     * HTTP call and verified against the cut-off head read on-chain. Without it every agent is unproven.
     */
    trackRecord: z
      .object({
        /** The document's URL; `{chainId}`, `{market}`, `{marketId}` and `{count}` (the cut-off) are filled in. */
        url: httpUrl,
        /** Arbiters whose rulings are known truth (the deployment's allow-list, as the daemon uses it). */
        trustedArbiters: z.array(address).max(64).default([]),
      })
      .strict()
      .optional(),
    /**
     * A relay of agent-signed answers (docs/CRE.md "Signed-answer relay"; the daemon's `GET /answers/{marketId}`):
     * the panel's answers in ONE HTTP call, each checked against the agent's wallet or owner read on-chain.
     * Without it every seat is asked directly (one HTTP call per seat).
     */
    answerRelay: z
      .object({
        /** The document's URL; `{chainId}`, `{market}` and `{marketId}` are filled in. */
        url: httpUrl,
      })
      .strict()
      .optional(),
    limits: donLimitsInputSchema.default({}),
  })
  .strict()
  // Reading at the finalized block after a trigger on a not-yet-final log would find the market still Open.
  .refine((c) => c.readAt === "latest" || c.confidence === "CONFIDENCE_LEVEL_FINALIZED", {
    message: 'readAt "finalized" needs confidence CONFIDENCE_LEVEL_FINALIZED',
    path: ["readAt"],
  })
  .transform((c) => {
    const limits = donLimitsOf(c.limits);
    const recordCalls = c.trackRecord !== undefined ? 1 : 0;
    const relayed = c.answerRelay !== undefined;
    return { ...c, limits, recordCalls, relayed, maxPanel: maxDonPanel(limits, { recordCalls, relayed }) };
  });

export type WorkflowConfig = z.output<typeof configSchema>;
export type WorkflowConfigInput = z.input<typeof configSchema>;
