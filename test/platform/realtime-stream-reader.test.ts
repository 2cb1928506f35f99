/**
 * The Redis Streams adapter's reader (issue 47, src/platform/realtime/stream-reader.ts): an instance hears every
 * broadcast written to the stream after it started, also one written before its reader's first read and one
 * written while its reader, having read nothing yet, was reconnecting to Redis. Runs only when REDIS_URL is set.
 */
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { Server } from 'socket.io';
import { MessageType, type ClusterMessage } from 'socket.io-adapter';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/interactions.js';
import { createStreamsAdapter } from '../../src/platform/realtime/stream-reader.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const NSP = '/interactions';

/** The fields of a stream entry as another instance's adapter writes a broadcast of `text` to every socket. */
function broadcastEntry(text: string): string[] {
  const data = { packet: { type: 2, data: ['interaction.test', text], nsp: NSP }, opts: { rooms: [], except: [], flags: {} } };
  return ['uid', 'another-instance', 'nsp', NSP, 'type', String(MessageType.BROADCAST), 'data', JSON.stringify(data)];
}

describe.runIf(process.env.REDIS_URL)('the realtime stream reader on Redis', () => {
  const connectionName = `crm-test-stream-reader-${process.pid}`;
  let redis: Redis;
  const streams: string[] = [];
  const started: { io: Server; client: Redis }[] = [];

  beforeAll(async () => {
    redis = new Redis(process.env.REDIS_URL!);
    await redis.ping();
  });
  afterEach(async () => {
    for (const { io, client } of started.splice(0)) {
      await io.close();
      await client.quit();
    }
  });
  afterAll(async () => {
    if (streams.length > 0) await redis.del(...streams);
    await redis.quit();
  });

  /** An instance's adapter on `stream` (short blocking reads), and the broadcast texts its namespace receives. */
  async function startInstance(stream: string): Promise<{ client: Redis; heard: string[] }> {
    const client = new Redis(process.env.REDIS_URL!, { connectionName });
    await client.ping();
    const io = new Server(createServer(), {
      adapter: createStreamsAdapter(client, { streamName: stream, sessionKeyPrefix: `${stream}:session:`, blockTimeInMs: 100 }),
    });
    started.push({ io, client });
    const heard: string[] = [];
    const adapter = io.of(NSP).adapter as unknown as { onMessage(message: ClusterMessage, offset?: string): void };
    const onMessage = adapter.onMessage.bind(adapter);
    adapter.onMessage = (message, offset) => {
      if (message.type === MessageType.BROADCAST) heard.push((message.data as { packet: { data: string[] } }).packet.data[1]!);
      onMessage(message, offset);
    };
    return { client, heard };
  }

  const newStream = () => {
    const stream = `crm-test-${process.pid}-${randomUUID()}:realtime`;
    streams.push(stream);
    return stream;
  };

  it("delivers an entry written after the instance started and before its reader's first read, and none written before it started", async () => {
    const stream = newStream();
    await redis.xadd(stream, '*', ...broadcastEntry('before the start'));
    const { client, heard } = await startInstance(stream);
    // On the connection where the start was just read, so after it; the reader's own connection is still opening,
    // so before its first XREAD.
    await client.xadd(stream, '*', ...broadcastEntry('before the first read'));
    await waitFor(() => heard.length > 0 || undefined, 3000).catch(() => undefined);
    await sleep(300); // several empty blocking reads
    await redis.xadd(stream, '*', ...broadcastEntry('after empty reads'));
    await waitFor(() => heard.includes('after empty reads') || undefined, 3000);
    expect(heard).toEqual(['before the first read', 'after empty reads']);
  });

  it('delivers an entry written while its reader, after empty reads only, reconnects to Redis', async () => {
    const stream = newStream();
    const { heard } = await startInstance(stream);
    await sleep(300); // several empty blocking reads
    const reader = await waitFor(async () => {
      const clients = ((await redis.client('LIST')) as string).split('\n');
      return clients.find((line) => line.includes(`name=${connectionName}`) && line.includes('cmd=xread'));
    }, 3000);
    await redis.client('KILL', 'ID', /\bid=(\d+)/.exec(reader)![1]!);
    // ioredis reconnects after 50 ms at the earliest: this entry is written before its next XREAD.
    await redis.xadd(stream, '*', ...broadcastEntry('while reconnecting'));
    await waitFor(() => heard.includes('while reconnecting') || undefined, 3000);
    expect(heard).toEqual(['while reconnecting']);
  });
});
