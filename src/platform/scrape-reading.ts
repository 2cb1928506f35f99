/**
 * One database reading shared by the gauges of one `/metrics` scrape: Prometheus collects each gauge on
 * its own, and two gauges of the same query (a backlog and its age) should not run it twice. The reading
 * is dropped once the scrape's turn of the event loop is over; a failed one gives `fallback`.
 */
export function readOncePerScrape<T>(read: () => Promise<T>, fallback: (err: unknown) => T): () => Promise<T> {
  let reading: Promise<T> | undefined;
  return () =>
    (reading ??= read()
      .catch(fallback)
      .finally(() => setImmediate(() => (reading = undefined))));
}
