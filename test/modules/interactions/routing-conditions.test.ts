/**
 * Routing filter conditions (`matchesConditions`, SPEC routing_filter; fields in docs/decisions.md) as a
 * pure rule: each condition alone, and any set of them as the AND of its members.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { matchesConditions, type RoutingConditions, type RoutingFacts } from '../../../src/modules/interactions/routing/routing.rules.js';

const CHANNEL_TYPES = ['chatapp_api', 'chatapp_business', 'social_messenger', 'social_dm'] as const;
const id = fc.integer({ min: 1, max: 50 });
const ids = fc.uniqueArray(id, { minLength: 1, maxLength: 5 });

const facts: fc.Arbitrary<RoutingFacts> = fc.record({
  channelTypeCode: fc.constantFrom(...CHANNEL_TYPES),
  entityChannelAccountId: id,
  messageText: fc.string({ maxLength: 40 }),
  isFirstMessage: fc.boolean(),
  sellerEmployeeIds: fc.uniqueArray(id, { maxLength: 4 }),
});

const conditions: fc.Arbitrary<RoutingConditions> = fc.record(
  {
    channel_type_codes: fc.uniqueArray(fc.constantFrom(...CHANNEL_TYPES), { minLength: 1 }),
    entity_channel_account_ids: ids,
    message_text_contains: fc.string({ minLength: 1, maxLength: 6 }),
    is_first_message: fc.boolean(),
    lead_has_seller: fc.boolean(),
    lead_seller_employee_ids: ids,
  },
  { requiredKeys: [] },
);

/** Each condition on its own, as docs/decisions.md describes it. */
function holds(key: keyof RoutingConditions, c: RoutingConditions, f: RoutingFacts): boolean {
  switch (key) {
    case 'channel_type_codes':
      return (c.channel_type_codes as string[]).includes(f.channelTypeCode);
    case 'entity_channel_account_ids':
      return c.entity_channel_account_ids!.includes(f.entityChannelAccountId);
    case 'message_text_contains':
      return f.messageText.toLowerCase().includes(c.message_text_contains!.toLowerCase());
    case 'is_first_message':
      return c.is_first_message === f.isFirstMessage;
    case 'lead_has_seller':
      return c.lead_has_seller === f.sellerEmployeeIds.length > 0;
    case 'lead_seller_employee_ids':
      return f.sellerEmployeeIds.some((e) => c.lead_seller_employee_ids!.includes(e));
  }
}

const base: RoutingFacts = {
  channelTypeCode: 'chatapp_api',
  entityChannelAccountId: 7,
  messageText: 'Hola, quiero una COTIZACIÓN',
  isFirstMessage: true,
  sellerEmployeeIds: [3, 9],
};

describe('routing conditions', () => {
  it('match everything when empty', () => {
    fc.assert(
      fc.property(facts, (f) => {
        expect(matchesConditions({}, f)).toBe(true);
      }),
    );
  });

  it.each<[string, RoutingConditions, Partial<RoutingFacts>, boolean]>([
    ['channel type listed', { channel_type_codes: ['chatapp_api', 'social_dm'] }, {}, true],
    ['channel type not listed', { channel_type_codes: ['social_messenger'] }, {}, false],
    ['account listed', { entity_channel_account_ids: [1, 7] }, {}, true],
    ['account not listed', { entity_channel_account_ids: [8] }, {}, false],
    ['text contained, other case', { message_text_contains: 'cotización' }, {}, true],
    ['text contained, upper case condition', { message_text_contains: 'HOLA' }, {}, true],
    ['text across a word boundary', { message_text_contains: 'o una c' }, {}, true],
    ['text absent', { message_text_contains: 'precio' }, {}, false],
    ['text of an empty message', { message_text_contains: 'a' }, { messageText: '' }, false],
    ['first message wanted, is first', { is_first_message: true }, {}, true],
    ['first message wanted, is not', { is_first_message: true }, { isFirstMessage: false }, false],
    ['later message wanted, is later', { is_first_message: false }, { isFirstMessage: false }, true],
    ['seller wanted, lead has sellers', { lead_has_seller: true }, {}, true],
    ['seller wanted, lead has none', { lead_has_seller: true }, { sellerEmployeeIds: [] }, false],
    ['no seller wanted, lead has none', { lead_has_seller: false }, { sellerEmployeeIds: [] }, true],
    ['no seller wanted, lead has sellers', { lead_has_seller: false }, {}, false],
    ['one of the sellers listed', { lead_seller_employee_ids: [9, 40] }, {}, true],
    ['none of the sellers listed', { lead_seller_employee_ids: [4] }, {}, false],
    ['sellers listed, lead has none', { lead_seller_employee_ids: [3] }, { sellerEmployeeIds: [] }, false],
    ['all hold', { channel_type_codes: ['chatapp_api'], message_text_contains: 'hola', is_first_message: true, lead_seller_employee_ids: [3] }, {}, true],
    [
      'all but one hold',
      { channel_type_codes: ['chatapp_api'], message_text_contains: 'hola', is_first_message: false, lead_seller_employee_ids: [3] },
      {},
      false,
    ],
  ])('%s', (_, c, override, expected) => {
    expect(matchesConditions(c, { ...base, ...override })).toBe(expected);
  });

  it('match iff every condition present matches on its own (AND)', () => {
    fc.assert(
      fc.property(conditions, facts, (c, f) => {
        const keys = Object.keys(c) as (keyof RoutingConditions)[];
        expect(matchesConditions(c, f)).toBe(keys.every((key) => matchesConditions({ [key]: c[key] }, f)));
      }),
      { numRuns: 1000 },
    );
  });

  it('each condition alone behaves as documented', () => {
    fc.assert(
      fc.property(conditions, facts, (c, f) => {
        for (const key of Object.keys(c) as (keyof RoutingConditions)[]) {
          expect(matchesConditions({ [key]: c[key] }, f)).toBe(holds(key, c, f));
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('match message text case-insensitively, anywhere in the text', () => {
    const ascii = fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 ñÑáÁ'), maxLength: 12 });
    fc.assert(
      fc.property(
        ascii,
        ascii.filter((s) => s.length > 0),
        ascii,
        fc.boolean(),
        (before, needle, after, upper) => {
          const text = before + (upper ? needle.toUpperCase() : needle.toLowerCase()) + after;
          const condition = upper ? needle.toLowerCase() : needle.toUpperCase();
          expect(matchesConditions({ message_text_contains: condition }, { ...base, messageText: text })).toBe(true);
        },
      ),
    );
  });

  it('test list conditions by membership, whatever the order or the other members', () => {
    fc.assert(
      fc.property(ids, id, fc.constantFrom(...CHANNEL_TYPES), (list, account, channel) => {
        const f = { ...base, entityChannelAccountId: account, channelTypeCode: channel };
        expect(matchesConditions({ entity_channel_account_ids: list }, f)).toBe(list.includes(account));
        expect(matchesConditions({ entity_channel_account_ids: [...list].reverse() }, f)).toBe(list.includes(account));
        expect(matchesConditions({ lead_seller_employee_ids: list }, { ...f, sellerEmployeeIds: [account] })).toBe(list.includes(account));
        expect(matchesConditions({ channel_type_codes: [channel] }, f)).toBe(true);
        expect(matchesConditions({ channel_type_codes: CHANNEL_TYPES.filter((t) => t !== channel) }, f)).toBe(false);
      }),
    );
  });
});
