/**
 * One emit path (issue 47, DESIGN "Channels, publishing, units of work"): every socket event leaves through
 * the publisher (src/platform/realtime/publisher.ts), to agents and to website visitors alike. Checked on the
 * syntax tree of every file under src/:
 * - only the publisher broadcasts (`.emit` on a namespace, a server or a room selection);
 * - a socket is answered directly only at its handshake, by the gateway of its namespace (`interaction.ready`,
 *   `widget.ready`);
 * - no module opens a namespace but the web channel, whose visitors' handshake it owns.
 * The rules are also run on synthetic files, so that the check itself is shown to fail.
 */
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { sourceFiles } from '../helpers/source-tree.js';

const PUBLISHER = 'src/platform/realtime/publisher.ts';
/** Direct answers to one socket at its handshake: (file, event). */
const HANDSHAKE_ANSWERS = new Set([
  'src/platform/realtime/gateway.ts interaction.ready',
  'src/modules/interactions/channels/web/widget/widget-socket.ts widget.ready',
]);
/** `.emit` of something that is no socket (a stream's own event). */
const NOT_SOCKETS = new Set(['src/platform/xlsx/workbook-writer.ts zipped']);
const NAMESPACE_OWNERS = new Set(['src/modules/interactions/channels/web/chat/index.ts']);

/** The broken rules of one file: `path: what`. */
function violations(path: string, text: string): string[] {
  const found: string[] = [];
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      const method = node.expression.name.text;
      const receiver = node.expression.expression;
      const first = node.arguments[0];
      const event = first && ts.isStringLiteralLike(first) ? first.text : '(computed)';
      if (method === 'emit' && path !== PUBLISHER) {
        const direct = ts.isIdentifier(receiver) && receiver.text === 'socket';
        const key = `${path} ${event}`;
        if (!(direct && HANDSHAKE_ANSWERS.has(key)) && !NOT_SOCKETS.has(key)) found.push(`${path}: emits ${event} outside the publisher`);
      }
      if (method === 'namespace' && path.startsWith('src/modules/') && !NAMESPACE_OWNERS.has(path)) found.push(`${path}: opens a namespace`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('one emit path', () => {
  it('sends every socket event through the publisher', () => {
    const files = sourceFiles();
    expect(files.map((f) => f.path)).toContain(PUBLISHER);
    expect(files.flatMap((f) => violations(f.path, f.text))).toEqual([]);
  });

  it('reports a broadcast, a stray socket answer and a namespace outside their places', () => {
    expect(violations('src/modules/interactions/outbound/x.ts', "nsp.to(room).emit('widget.message', {});")).toEqual([
      'src/modules/interactions/outbound/x.ts: emits widget.message outside the publisher',
    ]);
    expect(violations('src/modules/interactions/channels/web/widget/widget-socket.ts', "socket.emit('widget.message', {});")).toHaveLength(1);
    expect(violations('src/modules/interactions/channels/web/widget/widget-socket.ts', "socket.emit('widget.ready', {});")).toEqual([]);
    expect(violations('src/platform/realtime/gateway.ts', 'io.of(name).emit(event, payload);')).toHaveLength(1);
    expect(violations('src/modules/media/x.ts', "realtime.namespace('/other');")).toEqual(['src/modules/media/x.ts: opens a namespace']);
    expect(violations(PUBLISHER, 'agents.to(rooms).emit(event, payload);')).toEqual([]);
  });
});
