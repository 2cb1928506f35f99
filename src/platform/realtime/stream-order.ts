/**
 * Delivery in stream order across instances (docs/decisions.md, "Realtime delivery in stream order").
 *
 * Connection-state recovery resumes a client after the last offset it received, so a client must receive the
 * events of its rooms in the order of the Redis stream: otherwise the last offset it holds can be newer than
 * an event it never got (lost on reconnection), or older than one it already got (sent twice). The Redis Streams
 * adapter delivers its own instance's broadcasts locally as soon as XADD answers, while the broadcasts of the
 * other instances arrive later through the stream reader: out of order. Here every broadcast reaches the
 * local sockets through the stream reader only, so each instance writes to its sockets in stream order.
 */
import type { Redis } from 'ioredis';
import { Adapter, MessageType, type BroadcastOptions, type ClusterMessage } from 'socket.io-adapter';
import type { Packet } from 'socket.io-parser';

/** The parts of the Redis Streams adapter (a `ClusterAdapter`) this file relies on. */
interface StreamsAdapter extends Adapter {
  readonly uid: string;
  onMessage(message: ClusterMessage, offset?: string): void;
  publishAndReturnOffset(message: { type: MessageType; data: unknown }): Promise<string>;
}

/**
 * Makes `adapter` (from `@socket.io/redis-streams-adapter`) deliver its own broadcasts through the stream
 * reader, like everyone else's. A broadcast that cannot be written to the stream (Redis down) is still
 * delivered locally, without an offset (it cannot be recovered anyway); `onPublishError` hears of it.
 */
export function deliverInStreamOrder<A>(adapter: A, onPublishError: (err: unknown) => void): A {
  const a = adapter as unknown as StreamsAdapter;
  const localBroadcast = (packet: Packet, opts: BroadcastOptions) => Adapter.prototype.broadcast.call(a, packet, opts);
  a.broadcast = function (packet: Packet & { data: unknown[] }, opts: BroadcastOptions) {
    if (opts.flags?.local === true) {
      localBroadcast(packet, opts);
      return;
    }
    a.publishAndReturnOffset({
      type: MessageType.BROADCAST,
      data: { packet, opts: { rooms: [...opts.rooms], except: [...(opts.except ?? [])], flags: opts.flags } },
    }).catch((err: unknown) => {
      onPublishError(err);
      localBroadcast(packet, opts);
    });
  };
  const onMessage = a.onMessage.bind(a);
  a.onMessage = (message, offset) => {
    // The adapter skips what it published itself (it delivered that already); here it has not.
    const own = message.uid === a.uid && message.type === MessageType.BROADCAST && (message.data as { requestId?: unknown }).requestId === undefined;
    onMessage(own ? { ...message, uid: `${a.uid}:own` } : message, offset);
  };
  return adapter;
}

/** A stream entry id `ms-seq`, comparable. */
export function compareOffsets(a: string, b: string): number {
  const [am = 0, as = 0] = a.split('-').map(Number);
  const [bm = 0, bs = 0] = b.split('-').map(Number);
  return am - bm || as - bs;
}

const OFFSET_AT_END = /,"(\d+-\d+)"\]$/;

/** The stream offset a pre-encoded event packet carries (its last argument), if any. */
export function offsetOfEncoded(packets: unknown): string | undefined {
  const last = Array.isArray(packets) ? (packets as unknown[]).at(-1) : packets;
  return typeof last === 'string' ? OFFSET_AT_END.exec(last)?.[1] : undefined;
}

/**
 * The broadcasts of namespace `nsp` written to the stream after `offset` (exclusive) for a socket in `rooms`,
 * each as the event's arguments with its offset last (as Socket.IO's recovery replays them), in stream order;
 * and the offset of the last stream entry read (`upTo`), from which on the stream reader delivers.
 */
export async function broadcastsSince(
  redis: Redis,
  streamName: string,
  nsp: string,
  offset: string,
  rooms: ReadonlySet<string>,
): Promise<{ packets: unknown[][]; upTo: string }> {
  const packets: unknown[][] = [];
  let from = offset;
  for (;;) {
    const [ms, seq] = from.split('-');
    const entries = await redis.xrange(streamName, `${ms}-${Number(seq) + 1}`, '+', 'COUNT', 1000);
    for (const [id, fields] of entries) {
      from = id;
      const entry: Record<string, string> = {};
      for (let i = 0; i + 1 < fields.length; i += 2) entry[fields[i]!] = fields[i + 1]!;
      // Our events carry no binary, so the adapter wrote them as JSON (binary would be msgpack in base64).
      if (entry.nsp !== nsp || entry.type !== String(MessageType.BROADCAST) || !entry.data?.startsWith('{')) continue;
      const data = JSON.parse(entry.data) as { requestId?: unknown; packet: { type: number; data: unknown[] }; opts: { rooms: string[]; except: string[] } };
      if (data.requestId !== undefined || data.packet.type !== 2) continue;
      const included = data.opts.rooms.length === 0 || data.opts.rooms.some((room) => rooms.has(room));
      if (included && !data.opts.except.some((room) => rooms.has(room))) packets.push([...data.packet.data, id]);
    }
    if (entries.length < 1000) return { packets, upTo: from };
  }
}
