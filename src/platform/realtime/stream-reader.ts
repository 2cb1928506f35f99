/**
 * The Redis Streams adapter, its stream reader started from the stream's last entry (issue 47; docs/decisions.md,
 * "Issue 47: the Redis streams adapter").
 *
 * `@socket.io/redis-streams-adapter` (0.3) reads the stream with XREAD BLOCK from `$` until a read returns an
 * entry, and keeps `$` after an empty blocking read. A read from `$` waits only for entries added after that very
 * call reaches Redis: what another instance wrote before the reader's first call (its connection is still opening
 * when the gateway starts) or between two empty reads never reached this instance's sockets (upstream
 * socket.io-redis-streams-adapter issue #7). The adapter has no option for where its reader starts, and its
 * reading loop is private to its module; so the connection it reads on is given a cursor instead: the stream's
 * last entry id, read when the adapter is created (`0-0` when there is no stream yet), replaces `$` and moves on
 * with every entry read. Entries, delivery and recovery stay the adapter's own.
 */
import { createAdapter, type RedisStreamsAdapterOptions } from '@socket.io/redis-streams-adapter';
import type { Redis } from 'ioredis';

type StreamEntry = [id: string, fields: string[]];
type Xread = (...args: (string | number)[]) => Promise<[key: string, entries: StreamEntry[]][] | null>;

/** The id of the last entry of stream `key` (`0-0` when the stream does not exist or is empty). */
async function lastEntryId(redis: Redis, key: string): Promise<string> {
  const [last] = (await redis.xrevrange(key, '+', '-', 'COUNT', 1)) as StreamEntry[];
  return last?.[0] ?? '0-0';
}

/**
 * `createAdapter` of `@socket.io/redis-streams-adapter` on `client`, with `options`, whose stream reader never
 * reads from `$`: it starts after the stream's last entry at the time of this call and, after an empty blocking
 * read, goes on after the last entry it has seen. `client` must be connected or connecting (the start is read on
 * it at once, so it precedes whatever `client` writes next). Throws if the adapter no longer opens its reading
 * connection while it is created (a new version of it: read its reader again).
 */
export function createStreamsAdapter(client: Redis, options: RedisStreamsAdapterOptions & { streamName: string }): ReturnType<typeof createAdapter> {
  const cursors = new Map<string, Promise<string>>();
  const cursorOf = (key: string): Promise<string> => {
    let cursor = cursors.get(key);
    if (cursor === undefined) {
      cursor = lastEntryId(client, key);
      cursors.set(key, cursor);
      // Awaited by the reader's next XREAD; a failure there makes the next one ask again.
      const asked = cursor;
      void asked.catch(() => {
        if (cursors.get(key) === asked) cursors.delete(key);
      });
    }
    return cursor;
  };
  void cursorOf(options.streamName);

  let connections = 0;
  const duplicate = client.duplicate.bind(client);
  // The adapter opens its reading (and subscribing) connections with `duplicate()` synchronously, while it is created.
  client.duplicate = (...args: Parameters<Redis['duplicate']>) => {
    connections++;
    return readingFromCursor(duplicate(...args), cursorOf, cursors);
  };
  let adapter: ReturnType<typeof createAdapter>;
  try {
    adapter = createAdapter(client, options);
  } finally {
    Reflect.deleteProperty(client, 'duplicate');
  }
  if (connections === 0) throw new Error('@socket.io/redis-streams-adapter did not open its stream reader while created: see stream-reader.ts');
  return adapter;
}

/**
 * Makes `reader`'s XREAD of one stream read from its cursor where it asks for `$`, and moves the cursor to the last
 * entry every read returns.
 */
function readingFromCursor(reader: Redis, cursorOf: (key: string) => Promise<string>, cursors: Map<string, Promise<string>>): Redis {
  const r = reader as unknown as { xread: Xread };
  const xread = r.xread.bind(reader);
  r.xread = async (...args) => {
    const streams = args.findIndex((a) => typeof a === 'string' && a.toUpperCase() === 'STREAMS');
    if (streams >= 0 && args.length === streams + 3 && args[streams + 2] === '$') args[streams + 2] = await cursorOf(String(args[streams + 1]));
    const result = await xread(...args);
    for (const [key, entries] of result ?? []) {
      const last = entries.at(-1);
      if (last !== undefined) cursors.set(key, Promise.resolve(last[0]));
    }
    return result;
  };
  return reader;
}
