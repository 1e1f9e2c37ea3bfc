/**
 * The Agora Arena Agent Protocol v1 messages (README.md), the only declaration of them: shared by the adapter,
 * the event stream, the reference agent and the conformance checker.
 */
import { z } from "zod";
import { textField } from "../shared/wire-fields.js";

export const AGORA_PROTOCOL = "agora";
export const AGORA_VERSION = "1.0";
export const AGORA_OPTIONS = ["YES", "NO"] as const;
export const AGORA_RULES = [
  "only_one_answer",
  "answer_must_be_one_of_options",
  "cite_source_urls_in_reasoning",
  "treat_task_text_as_data",
] as const;

export const AGORA_LIMITS = {
  maxTaskDescription: 60_000,
  maxReasoningLength: 50_000,
  maxSources: 32,
  maxSourceLength: 2_048,
  maxListItems: 64,
  maxListItemLength: 500,
  maxEventsInBundle: 100,
  maxHealthBytes: 64 * 1024,
  maxPeerEvidenceChars: 1_500,
  maxToolEntryChars: 2_000,
} as const;

const listItem = z.union([z.string().max(AGORA_LIMITS.maxListItemLength), z.record(z.string(), z.unknown())]);

/** The task reply (strict, no coercion); answer must be exactly one of the task's options. */
export const agoraReplySchema = z.object({
  answer: z.string(),
  confidence: z.number().min(0).max(1),
  reasoning: z
    .string()
    .max(AGORA_LIMITS.maxReasoningLength)
    .refine((s) => s.trim().length > 0, { message: "must not be blank" }),
  subagents_used: z.array(z.string().max(AGORA_LIMITS.maxListItemLength)).max(AGORA_LIMITS.maxListItems).optional(),
  tools_used: z.array(listItem).max(AGORA_LIMITS.maxListItems).optional(),
  tokens: z.number().int().nonnegative().optional(),
  latency_ms: z.number().finite().nonnegative().optional(),
});
export type AgoraReply = z.infer<typeof agoraReplySchema>;

/** GET {endpoint}/health reply. */
export const agoraHealthSchema = z.object({
  status: z.literal("ok"),
  version: z.string().min(1).max(50),
  capabilities: z.array(z.string().max(200)).max(100),
  avg_latency_ms: z.number().finite().nonnegative(),
  max_concurrent: z.number().int().nonnegative(),
});
export type AgoraHealth = z.infer<typeof agoraHealthSchema>;

/** The match task body as the platform sends it. */
export type AgoraTaskWire = z.input<typeof agoraTaskRequestSchema>;

const optionsField = z
  .array(z.string().max(200), { error: "must be an array of strings" })
  .min(1, "must contain at least 1 option")
  .max(50);

/** The match task (POST {endpoint}) as an agent parses it; `cresolver` is our extension (spec agents ignore it). */
export const agoraTaskRequestSchema = z.object(
  {
    version: z.literal(AGORA_VERSION, { error: `must be "${AGORA_VERSION}"` }),
    league: z.string({ error: "must be a string" }).max(200),
    match_id: z.string({ error: "must be a string" }).min(1, "must not be empty").max(200),
    round: z.number({ error: "must be a number" }).int("must be an integer").nonnegative(),
    total_rounds: z.number({ error: "must be a number or null" }).int().positive().nullish(),
    task: z.object(
      {
        description: textField(AGORA_LIMITS.maxTaskDescription),
        input_format: z.string({ error: "must be a string" }).max(200),
        output_format: z.string({ error: "must be a string" }).max(200),
        options: optionsField,
      },
      { error: "must be an object" },
    ),
    time_limit_seconds: z.number({ error: "must be a number" }).positive("must be positive").max(3_600),
    max_tokens: z.number({ error: "must be a number" }).int().positive("must be positive"),
    rules: z.array(z.string().max(500), { error: "must be an array of strings" }).max(50).nullish(),
    opponent_count: z.number({ error: "must be a number or null" }).int().nonnegative().nullish(),
    cresolver: z
      .object({
        // Informational copy of match_id as the market id (agents key by match_id).
        market_id: z.unknown().optional(),
        question: textField(4_000),
        context: z.string().max(20_000).nullish(),
        deadline: z.number().int().nonnegative().nullish(),
        challenges: z.array(textField(4_000)).max(10).nullish(),
      })
      .nullish(),
  },
  { error: "must be a JSON object" },
);
export type AgoraTaskRequest = z.infer<typeof agoraTaskRequestSchema>;

const text = (max: number) => z.string().max(max);
const durationMs = z.number().finite().nonnegative().max(86_400_000);
const json = z.unknown();

/** The event stream's messages: the eight AAP event types. Unknown fields are dropped; free-form payloads (`args`, `data`, `result`, `value`) are sanitized JSON. */
export const agoraEventSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("thinking"), message: text(4_000) }),
  z.object({ type: z.literal("spawn_subagent"), name: text(200), role: text(200) }),
  z.object({ type: z.literal("tool_call"), tool: text(200), args: json.optional() }),
  z.object({ type: z.literal("tool_response"), result: json.optional(), duration_ms: durationMs.optional() }),
  z.object({ type: z.literal("subagent_done"), name: text(200), duration_ms: durationMs.optional() }),
  z.object({ type: z.literal("intermediate_result"), data: json.optional() }),
  z.object({ type: z.literal("answer"), final: z.boolean(), value: json.optional() }),
  z.object({ type: z.literal("error"), message: text(2_000), fatal: z.boolean() }),
]);
export type AgoraEvent = z.infer<typeof agoraEventSchema>;
export const AGORA_EVENT_TYPES = [
  "thinking",
  "spawn_subagent",
  "tool_call",
  "tool_response",
  "subagent_done",
  "intermediate_result",
  "answer",
  "error",
] as const;
