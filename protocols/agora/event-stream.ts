/**
 * Agora Arena AAP event stream (protocols/agora/README.md, "Event stream"), the platform side: a fastify plugin
 * with one WebSocket route, by default `GET /agora/matches/:matchId/events`, where an agent may stream
 * the events of a match it is playing. Events are validated, capped and kept in a bounded in-memory
 * AgoraEventStore; the agora adapter copies the events of a match/agent/round into the worker's
 * `extras.events` (and so into the bundle).
 *
 * Authentication: the agent presents the match's JWT (the token the adapter sent with the task) as
 * `Authorization: Bearer <JWT>` on the upgrade request. It is verified with the daemon's own public keys;
 * its `match_id` must equal the route's `:matchId`, and its `agent_id` names the agent the events are
 * recorded for. Chosen over the per-agent bearer token because it proves both identity and match, expires
 * on its own, needs no extra secret, and is what every AAP agent already holds. Query-string tokens are not
 * accepted (they end up in logs). A missing/invalid token is refused with 401 before the upgrade; a token for
 * another match with 403. An open connection is closed (4001) when its token expires.
 *
 * Per message: text frames only, at most `maxEventBytes` (default 8 KiB; larger frames close the socket
 * with 1009), JSON, one of the eight event types with its fields typed (unknown fields dropped). The
 * server answers every message with `{"type":"ack","seq":n}` or `{"type":"rejected","reason":...}` (our
 * addition: agents that ignore incoming messages lose nothing; the reference agent waits for the acks
 * before sending its HTTP reply, so its events are recorded before the adapter reads them). After
 * `maxInvalidMessages` (default 10) rejected messages the socket is closed (1008). Per (match, agent) at
 * most `maxEventsPerAgent` (default 200) events are stored; later ones are counted as dropped (and the
 * socket closed with 1008 once the cap is passed). At most `maxConnectionsPerAgent` (default 2) concurrent
 * sockets per (match, agent). The store keeps at most `maxKeys` (default 1,000) (match, agent) pairs,
 * least recently written evicted first.
 */
import fastifyWebsocket from "@fastify/websocket";
import type { FastifyInstance, FastifyPluginAsync, FastifyRequest } from "fastify";
import type { RawData, WebSocket } from "ws";
import { sanitizeJson } from "../../workflow/http/json.js";
import type { VerifiedAgoraClaims } from "./jwt.js";
import { agoraEventSchema, type AgoraEvent } from "./wire.js";

export { AGORA_EVENT_TYPES, agoraEventSchema, type AgoraEvent } from "./wire.js";

export const AGORA_STREAM_PATH = "/agora/matches/:matchId/events";

export interface StoredAgoraEvent {
  /** 1-based order of arrival for this (match, agent). */
  seq: number;
  /** The round that was current for this (match, agent) when the event arrived (0: none begun yet). */
  round: number;
  event: AgoraEvent;
}

export interface AgoraEventStoreOptions {
  maxKeys?: number;
  maxEventsPerAgent?: number;
}

interface Entry {
  round: number;
  events: StoredAgoraEvent[];
  dropped: number;
  seq: number;
}

/** Bounded in-memory store of streamed events, keyed by (match_id, agent_id). */
export class AgoraEventStore {
  readonly maxKeys: number;
  readonly maxEventsPerAgent: number;
  private readonly entries = new Map<string, Entry>();

  constructor(options: AgoraEventStoreOptions = {}) {
    this.maxKeys = options.maxKeys ?? 1_000;
    this.maxEventsPerAgent = options.maxEventsPerAgent ?? 200;
  }

  private key(matchId: string, agentId: string): string {
    return `${matchId}\u0000${agentId}`;
  }

  private entry(matchId: string, agentId: string, create: boolean): Entry | undefined {
    const key = this.key(matchId, agentId);
    let entry = this.entries.get(key);
    if (entry !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, entry);
      return entry;
    }
    if (!create) return undefined;
    entry = { round: 0, events: [], dropped: 0, seq: 0 };
    this.entries.set(key, entry);
    while (this.entries.size > this.maxKeys) this.entries.delete(this.entries.keys().next().value as string);
    return entry;
  }

  /** Called by the adapter before it sends round `round` of a match to an agent. */
  beginRound(matchId: string, agentId: string, round: number): void {
    const entry = this.entry(matchId, agentId, true) as Entry;
    entry.round = round;
  }

  /** Stores one validated event; false when the per-agent cap is reached (the event is counted as dropped). */
  append(matchId: string, agentId: string, event: AgoraEvent): { stored: boolean; seq: number } {
    const entry = this.entry(matchId, agentId, true) as Entry;
    entry.seq += 1;
    if (entry.events.length >= this.maxEventsPerAgent) {
      entry.dropped += 1;
      return { stored: false, seq: entry.seq };
    }
    entry.events.push({ seq: entry.seq, round: entry.round, event });
    return { stored: true, seq: entry.seq };
  }

  /** Events of a (match, agent), optionally only those of one round, in arrival order (copies). */
  events(matchId: string, agentId: string, round?: number): StoredAgoraEvent[] {
    const entry = this.entries.get(this.key(matchId, agentId));
    if (entry === undefined) return [];
    return entry.events.filter((e) => round === undefined || e.round === round).map((e) => ({ ...e }));
  }

  /** Events refused because the per-agent cap was reached. */
  dropped(matchId: string, agentId: string): number {
    return this.entries.get(this.key(matchId, agentId))?.dropped ?? 0;
  }
}

export interface AgoraStreamOptions {
  store: AgoraEventStore;
  /** Verifies a match token (e.g. `(t) => verifyAgoraToken(t, createLocalJWKSet(daemonJwks))`); rejects when invalid. */
  verify: (token: string) => Promise<VerifiedAgoraClaims>;
  /** Route path; must contain `:matchId`. Default AGORA_STREAM_PATH. */
  path?: string;
  /** Largest accepted message in bytes. Default 8,192. */
  maxEventBytes?: number;
  /** Rejected messages tolerated per connection before it is closed. Default 10. */
  maxInvalidMessages?: number;
  /** Concurrent sockets per (match, agent). Default 2. */
  maxConnectionsPerAgent?: number;
  /** Current time in ms (token expiry timer). Default Date.now. */
  now?: () => number;
}

declare module "fastify" {
  interface FastifyRequest {
    agoraClaims?: VerifiedAgoraClaims;
  }
}

function bearer(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (typeof header !== "string") return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

/** Mount on the daemon's fastify app: `app.register(agoraStreamPlugin, { store, verify })`. */
export const agoraStreamPlugin: FastifyPluginAsync<AgoraStreamOptions> = async (
  app: FastifyInstance,
  options: AgoraStreamOptions,
) => {
  const maxEventBytes = options.maxEventBytes ?? 8_192;
  const maxInvalid = options.maxInvalidMessages ?? 10;
  const maxConnections = options.maxConnectionsPerAgent ?? 2;
  const now = options.now ?? Date.now;
  const path = options.path ?? AGORA_STREAM_PATH;
  if (!path.includes(":matchId")) throw new Error("agora stream path must contain :matchId");
  // Reuse the host's @fastify/websocket when it already has one; otherwise bring our own with the size cap.
  if (!app.hasDecorator("websocketServer")) {
    await app.register(fastifyWebsocket, { options: { maxPayload: maxEventBytes } });
  }
  const open = new Map<string, number>();

  app.decorateRequest("agoraClaims", undefined);
  app.get<{ Params: { matchId: string } }>(
    path,
    {
      websocket: true,
      preValidation: async (request, reply) => {
        const token = bearer(request);
        if (token === undefined)
          return reply.code(401).send({ error: "unauthorized", message: "missing bearer token" });
        let claims: VerifiedAgoraClaims;
        try {
          claims = await options.verify(token);
        } catch {
          return reply.code(401).send({ error: "unauthorized", message: "invalid match token" });
        }
        if (claims.match_id !== request.params.matchId)
          return reply.code(403).send({ error: "forbidden", message: "token is for another match" });
        const key = `${claims.match_id}\u0000${claims.agent_id}`;
        if ((open.get(key) ?? 0) >= maxConnections)
          return reply
            .code(429)
            .send({ error: "too_many_connections", message: "too many open streams for this match" });
        request.agoraClaims = claims;
      },
    },
    (socket: WebSocket, request) => {
      const claims = request.agoraClaims as VerifiedAgoraClaims;
      const key = `${claims.match_id}\u0000${claims.agent_id}`;
      open.set(key, (open.get(key) ?? 0) + 1);
      let invalid = 0;
      const reject = (reason: string): void => {
        invalid += 1;
        safeSend(socket, { type: "rejected", reason });
        if (invalid >= maxInvalid) socket.close(1008, "too many invalid messages");
      };
      const expiresInMs = Math.max(0, claims.expires_at * 1000 - now());
      const expiry = setTimeout(() => socket.close(4001, "token expired"), Math.min(expiresInMs, 2 ** 31 - 1));
      socket.on("close", () => {
        clearTimeout(expiry);
        const n = (open.get(key) ?? 1) - 1;
        if (n <= 0) open.delete(key);
        else open.set(key, n);
      });
      socket.on("error", () => undefined);
      socket.on("message", (data: RawData, isBinary: boolean) => {
        if (isBinary) return reject("binary frames are not accepted");
        const bytes = Array.isArray(data)
          ? data.reduce((n, b) => n + b.length, 0)
          : (data as Buffer | ArrayBuffer).byteLength;
        if (bytes > maxEventBytes) {
          socket.close(1009, "event too large");
          return;
        }
        const raw = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as Buffer);
        let parsed: unknown;
        try {
          parsed = sanitizeJson(JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(raw)), {
            maxStringLength: 4_000,
            maxDepth: 8,
          });
        } catch {
          return reject("not a UTF-8 JSON document (or nested too deep)");
        }
        const event = agoraEventSchema.safeParse(parsed);
        if (!event.success) {
          const issue = event.error.issues[0];
          return reject(
            `invalid event: ${issue ? `${issue.path.join(".") || "(root)"}: ${issue.message}` : "schema"}`.slice(
              0,
              200,
            ),
          );
        }
        const result = options.store.append(claims.match_id, claims.agent_id, event.data);
        if (!result.stored) {
          safeSend(socket, { type: "rejected", reason: "event cap reached for this match" });
          socket.close(1008, "event cap reached");
          return;
        }
        safeSend(socket, { type: "ack", seq: result.seq });
      });
    },
  );
};

function safeSend(socket: WebSocket, message: unknown): void {
  if (socket.readyState !== socket.OPEN) return;
  try {
    socket.send(JSON.stringify(message));
  } catch {
    /* socket closing */
  }
}
