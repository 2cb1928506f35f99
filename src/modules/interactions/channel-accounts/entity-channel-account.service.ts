/**
 * The entity's own messaging accounts (WhatsApp numbers, Messenger pages, Instagram accounts). A
 * platform account id belongs to one entity only, since inbound events are routed by it: a duplicate is
 * 409 `already_exists` without saying which entity holds it.
 */
import { toPage } from '../../../platform/http/pagination.js';
import type { Db } from '../../../db/client.js';
import type { Principal } from '../../../platform/auth/authenticator.js';
import { conflict, notFound, unprocessable, validationFailed } from '../../../platform/errors.js';
import type { Page } from '../../../platform/http/pagination.js';
import { normalizePhone } from '../../records/index.js';
import { isUniqueViolation } from '../../../db/db-errors.js';
import { CHANNEL_TYPE_CODES, type ChannelTypeCode } from '../model/index.js';
import {
  findAccount,
  findAccountByExternalId,
  insertAccount,
  listAccounts,
  updateAccount,
  type EntityChannelAccountRow,
} from './entity-channel-account.repository.js';
import type {
  CreateEntityChannelAccountBody,
  EntityChannelAccountListQuery,
  EntityChannelAccountResponse,
  UpdateEntityChannelAccountBody,
} from './entity-channel-account.schemas.js';
import { channelOfCode } from '../channels/index.js';

function toEntityChannelAccountResponse(r: EntityChannelAccountRow): EntityChannelAccountResponse {
  return {
    id: r.id,
    channel_type_code: r.channelTypeCode,
    external_account_id: r.externalAccountId,
    display_name: r.displayName,
    phone_number: r.phoneNumber,
    is_active: r.isActive,
    created_at: r.createdAt.toISOString(),
    updated_at: r.updatedAt.toISOString(),
  };
}

function phoneOf(raw: string | null | undefined): string | null | undefined {
  if (raw === undefined || raw === null) return raw;
  if (raw.trim() === '') return null;
  const phone = normalizePhone(raw);
  if (!phone) throw validationFailed([{ field: '/body/phone_number', message: 'is not a valid phone number' }]);
  return phone;
}

/**
 * The external id of a new account: named by this service for a channel that names its own (the website
 * chat's public token, unguessable, never chosen by a client), else the platform account id the body gives.
 */
function externalAccountIdOf(code: ChannelTypeCode, given: string | undefined): string {
  const { newAccountId } = channelOfCode(code);
  if (newAccountId !== undefined) {
    if (given !== undefined)
      throw validationFailed([{ field: '/body/external_account_id', message: 'is generated for web accounts (the website token): leave it out' }]);
    return newAccountId();
  }
  if (given === undefined) throw validationFailed([{ field: '/body/external_account_id', message: 'is required' }]);
  return given.trim();
}

function isChannelTypeCode(code: string): code is ChannelTypeCode {
  return (CHANNEL_TYPE_CODES as readonly string[]).includes(code);
}

export function createEntityChannelAccountService(deps: { db: Db }) {
  const { db } = deps;
  const taken = () => conflict('already_exists', 'This platform account is already registered');
  return {
    async list(caller: Principal, q: EntityChannelAccountListQuery): Promise<Page<EntityChannelAccountResponse>> {
      const { rows, total } = await listAccounts(db, caller.entityId, { ...q, channelTypeCode: q.channel_type_code });
      return toPage(q, rows, total, toEntityChannelAccountResponse);
    },
    async get(caller: Principal, id: number): Promise<EntityChannelAccountResponse> {
      const row = await findAccount(db, caller.entityId, id);
      if (!row) throw notFound('entity_channel_account', id);
      return toEntityChannelAccountResponse(row);
    },
    async create(caller: Principal, body: CreateEntityChannelAccountBody): Promise<EntityChannelAccountResponse> {
      const code = body.channel_type_code;
      if (!isChannelTypeCode(code)) {
        throw unprocessable('channel_planned', `The ${code} channel is planned: it takes no channel accounts yet (GET /interactions/channels)`, {
          channel: code,
        });
      }
      const phoneNumber = phoneOf(body.phone_number) ?? null;
      const externalAccountId = externalAccountIdOf(code, body.external_account_id);
      if (await findAccountByExternalId(db, code, externalAccountId)) throw taken();
      try {
        const row = await insertAccount(db, caller.entityId, {
          channelTypeCode: code,
          externalAccountId,
          displayName: body.display_name.trim(),
          phoneNumber,
          ...(body.is_active !== undefined ? { isActive: body.is_active } : {}),
        });
        return toEntityChannelAccountResponse(row);
      } catch (err) {
        if (isUniqueViolation(err)) throw taken();
        throw err;
      }
    },
    async update(caller: Principal, id: number, body: UpdateEntityChannelAccountBody): Promise<EntityChannelAccountResponse> {
      const phoneNumber = phoneOf(body.phone_number);
      const row = await updateAccount(db, caller.entityId, id, {
        ...(body.display_name !== undefined ? { displayName: body.display_name.trim() } : {}),
        ...(phoneNumber !== undefined ? { phoneNumber } : {}),
        ...(body.is_active !== undefined ? { isActive: body.is_active } : {}),
      });
      if (!row) throw notFound('entity_channel_account', id);
      return toEntityChannelAccountResponse(row);
    },
  };
}
export type EntityChannelAccountService = ReturnType<typeof createEntityChannelAccountService>;
