/** The search query language (issue 51): each operator, their combination, and every refusal, as the parser sees them. */
import { describe, expect, it } from 'vitest';
import { parseSearchQuery, QueryProblem, substringTerms, tsqueryText } from '../../../src/modules/search/search-query.js';

const refusal = (q: string) => {
  try {
    parseSearchQuery(q);
  } catch (err) {
    if (err instanceof QueryProblem) return err.code;
    throw err;
  }
  return undefined;
};

describe('the search query language', () => {
  it('ANDs words, the last one as a prefix unless a space follows it', () => {
    const p = parseSearchQuery('Factura  Pend');
    expect(p).toMatchObject({ words: ['factura', 'pend'], prefixLast: true, phrases: [], excluded: [] });
    expect(tsqueryText(p)).toBe("'factura' & 'pend':*");
    expect(parseSearchQuery('factura pend ').prefixLast).toBe(false);
  });

  it('keeps phrases in order, excludes words and phrases, and never passes tsquery syntax through', () => {
    const p = parseSearchQuery(`"factura de noviembre" pedido -cancelado -"ya pagué" a&b|c:*!`);
    expect(p.phrases).toEqual(['factura de noviembre']);
    expect(p.excluded).toEqual(['cancelado', 'ya pagué']);
    expect(tsqueryText(p)).toBe("'pedido' & ('a' <-> 'b' <-> 'c':*) & ('factura' <-> 'de' <-> 'noviembre') & !('cancelado') & !('ya' <-> 'pagué')");
  });

  it('reads the filters, with channel names people say, inclusive dates and quoted label names', () => {
    const p = parseSearchQuery('channel:whatsapp from:AGENT after:2026-01-31 before:2026-02-01 label:"Cliente VIP" label:7 envío');
    expect(p.words).toEqual(['envío']);
    expect(p.filters).toEqual({
      channels: ['chatapp_api', 'chatapp_business'],
      from: 'agent',
      after: new Date('2026-01-31T00:00:00Z'),
      before: new Date('2026-02-02T00:00:00Z'),
      labels: ['Cliente VIP', '7'],
    });
    // An unknown key is a word ("hora:10" is text a customer wrote).
    expect(parseSearchQuery('hora:10').words).toEqual(['hora:10']);
  });

  it('matches records by substrings only when one has three characters or is a phone', () => {
    expect(substringTerms(parseSearchQuery('jo nu'))).toBeUndefined();
    expect(substringTerms(parseSearchQuery('jo núñez'))).toEqual(['jo', 'núñez']);
    expect(substringTerms(parseSearchQuery('5551-0009'))).toEqual(['5551-0009']);
  });

  it.each([
    ['', 'query_too_short'],
    ['a', 'query_too_short'],
    ['  b  ', 'query_too_short'],
    ['x'.repeat(501), 'query_too_long'],
    ['"factura de', 'unbalanced_quotes'],
    ['fac"tura', 'unbalanced_quotes'],
    ['-factura', 'no_search_terms'],
    ['channel:whatsapp from:agent', 'no_search_terms'],
    ['?? !!', 'no_search_terms'],
    ['after:yesterday factura', 'invalid_filter'],
    ['after:2026-02-30 factura', 'invalid_filter'],
    ['after:2026-03-01 before:2026-02-01 factura', 'invalid_filter'],
    ['from:robot factura', 'invalid_filter'],
    ['channel:fax factura', 'invalid_filter'],
    ['label: factura', 'invalid_filter'],
  ])('refuses %j as %s', (q, code) => {
    expect(refusal(q)).toBe(code);
  });

  it('accepts 500 characters', () => {
    expect(refusal(`${'palabra '.repeat(62)}fin1`.slice(0, 500))).toBeUndefined();
  });
});
