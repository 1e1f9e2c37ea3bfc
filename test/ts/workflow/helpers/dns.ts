/**
 * A minimal authoritative DNS server on loopback (UDP, port 0) for destination-guard tests:
 * answers A queries from a per-name script (a list of answers, one per query, last one repeated),
 * AAAA queries with no records. Enough for c-ares (node:dns Resolver).
 */
import { createSocket, type Socket } from "node:dgram";

export interface TestDns {
  /** "127.0.0.1:<port>" for SafeHttpConfig.dnsServers. */
  server: string;
  /** A queries received, per lower-case name. */
  queries: Map<string, number>;
  close(): Promise<void>;
}

/** `script[name]` = successive answers (each a list of IPv4 addresses). */
export async function startDns(script: Record<string, string[][]>): Promise<TestDns> {
  const queries = new Map<string, number>();
  const socket: Socket = createSocket("udp4");
  socket.on("message", (msg, rinfo) => {
    if (msg.length < 12) return;
    let offset = 12;
    const labels: string[] = [];
    while (offset < msg.length && msg[offset] !== 0) {
      const len = msg[offset];
      labels.push(msg.subarray(offset + 1, offset + 1 + len).toString("ascii"));
      offset += 1 + len;
    }
    offset += 1;
    const qtype = msg.readUInt16BE(offset);
    const questionEnd = offset + 4;
    const name = labels.join(".").toLowerCase();
    let answers: string[] = [];
    if (qtype === 1 && script[name] !== undefined) {
      const n = queries.get(name) ?? 0;
      queries.set(name, n + 1);
      const list = script[name];
      answers = list[Math.min(n, list.length - 1)];
    }
    const known = script[name] !== undefined;
    const header = Buffer.alloc(12);
    msg.copy(header, 0, 0, 2); // id
    header.writeUInt16BE(known ? 0x8580 : 0x8583, 2); // response, authoritative, RD; NXDOMAIN if unknown
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(answers.length, 6);
    const records = answers.map((ip) => {
      const rr = Buffer.alloc(16);
      rr.writeUInt16BE(0xc00c, 0); // pointer to the question name
      rr.writeUInt16BE(1, 2); // A
      rr.writeUInt16BE(1, 4); // IN
      rr.writeUInt32BE(0, 6); // TTL 0
      rr.writeUInt16BE(4, 10);
      for (const [i, o] of ip.split(".").entries()) rr.writeUInt8(Number(o), 12 + i);
      return rr;
    });
    socket.send(Buffer.concat([header, msg.subarray(12, questionEnd), ...records]), rinfo.port, rinfo.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
  return {
    server: `127.0.0.1:${socket.address().port}`,
    queries,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
