/**
 * Opportunities on leads and the entity's pipeline. A new entity gets a default pipeline on first use
 * (Prospecto → Calificado → Propuesta → Negociación → Ganada | Perdida). Every state change is recorded
 * with who and when and publishes `opportunity.state_changed` in its transaction.
 * Errors: 400 naming the field, 404 for another entity's opportunity, 409 `invalid_transition` for a move
 * to the current state, `state_in_use` when a pipeline change would archive a state opportunities are in.
 */
import type { Db } from '../../db/client.js';
import type { Principal } from '../../platform/auth/authenticator.js';
import type { EventBus } from '../../platform/events/bus.js';
import { conflict, notFound, validationFailed } from '../../platform/errors.js';
import { transaction } from '../../platform/transactions/transaction.js';
import type { ChangeEvents } from '../../platform/transactions/change-events.js';
import { assertCurrency } from './document-lines.js';
import { fromMinor, toMinor } from './money.js';
import { partiesOf, type PartyLookups } from './commerce-parties.js';
import * as repo from './opportunity.repository.js';
import type { OpportunityCreateBody, OpportunityListQuery, OpportunityResponse, PipelineBody } from './opportunity.schemas.js';

const DEFAULT_PIPELINE: { name: string; outcome: 'open' | 'won' | 'lost' }[] = [
  { name: 'Prospecto', outcome: 'open' },
  { name: 'Calificado', outcome: 'open' },
  { name: 'Propuesta', outcome: 'open' },
  { name: 'Negociación', outcome: 'open' },
  { name: 'Ganada', outcome: 'won' },
  { name: 'Perdida', outcome: 'lost' },
];

export function createOpportunityService(deps: { db: Db; events: EventBus; lookups: PartyLookups }) {
  const { db } = deps;

  /** The pipeline, created with the defaults the first time an entity needs it. */
  async function pipeline(entityId: number, via: Db = db): Promise<repo.StateRow[]> {
    const current = await repo.states(via, entityId);
    if (current.length > 0) return current;
    for (const [i, s] of DEFAULT_PIPELINE.entries()) await repo.insertState(via, { entityId, name: s.name, outcome: s.outcome, position: i + 1 });
    return repo.states(via, entityId);
  }

  async function respond(p: Principal, o: repo.OpportunityRow, withHistory = false): Promise<OpportunityResponse> {
    const all = await repo.states(db, p.entityId, true);
    return toOpportunityResponse(o, all, withHistory ? await repo.history(db, o.id) : undefined);
  }

  return {
    async pipeline(p: Principal) {
      return { states: (await pipeline(p.entityId)).map(toStateResponse) };
    },

    /** Replaces the ordered pipeline; states left out are archived unless opportunities are in them. */
    async setPipeline(p: Principal, body: PipelineBody) {
      const names = body.states.map((s) => s.name.trim().toLowerCase());
      const dup = names.findIndex((n, i) => names.indexOf(n) !== i);
      if (dup >= 0) throw validationFailed([{ field: `/body/states/${dup}/name`, message: 'state names are unique' }]);
      if (!body.states.some((s) => s.outcome === 'open')) throw validationFailed([{ field: '/body/states', message: 'a pipeline needs an open state' }]);
      await transaction(
        db,
        async ({ tx }) => {
          const current = await pipeline(p.entityId, tx);
          const known = new Map(current.map((s) => [s.id, s]));
          body.states.forEach((s, i) => {
            if (s.id !== undefined && !known.has(s.id))
              throw validationFailed([{ field: `/body/states/${i}/id`, message: `state ${s.id} is not in the pipeline` }]);
          });
          const kept = new Set(body.states.flatMap((s) => (s.id !== undefined ? [s.id] : [])));
          for (const s of current) {
            if (kept.has(s.id)) continue;
            const { total } = await repo.listOpportunities(tx, p.entityId, { limit: 1, offset: 0, stateId: s.id });
            if (total > 0) throw conflict('state_in_use', `${total} opportunities are in ${s.name}: move them first`, { state_id: s.id });
            await repo.updateState(tx, p.entityId, s.id, { archived: true, position: 0 });
          }
          for (const [i, s] of body.states.entries()) {
            if (s.id !== undefined) await repo.updateState(tx, p.entityId, s.id, { name: s.name.trim(), outcome: s.outcome, position: i + 1 });
            else await repo.insertState(tx, { entityId: p.entityId, name: s.name.trim(), outcome: s.outcome, position: i + 1 });
          }
        },
        { events: deps.events },
      );
      return { states: (await pipeline(p.entityId)).map(toStateResponse) };
    },

    async create(p: Principal, body: OpportunityCreateBody): Promise<OpportunityResponse> {
      assertCurrency(body.currency);
      const valueMinor = toMinor(body.value, body.currency);
      if (valueMinor === undefined) throw validationFailed([{ field: '/body/value', message: `must be an amount in ${body.currency}` }]);
      const { groupId } = await partiesOf(p.entityId, body.lead_id, null, deps.lookups);
      if (body.owner_employee_id !== undefined) await deps.lookups.assertActiveMember(p.entityId, body.owner_employee_id, '/body/owner_employee_id');
      const states = await pipeline(p.entityId);
      const state = body.state_id === undefined ? states[0]! : states.find((s) => s.id === body.state_id);
      if (!state) throw validationFailed([{ field: '/body/state_id', message: `state ${body.state_id} is not in the pipeline` }]);
      const row = await transaction(
        db,
        async ({ tx, events }) => {
          const o = await repo.insertOpportunity(tx, {
            entityId: p.entityId,
            leadId: body.lead_id,
            name: body.name.trim(),
            stateId: state.id,
            valueMinor,
            currency: body.currency,
            expectedCloseDate: body.expected_close_date ?? null,
            ownerEmployeeId: body.owner_employee_id ?? p.employeeId,
          });
          await repo.recordChange(tx, { entityId: p.entityId, opportunityId: o.id, fromStateId: null, toStateId: state.id, changedByEmployeeId: p.employeeId });
          publish(events, p, o, groupId, null, state);
          return o;
        },
        { events: deps.events },
      );
      return respond(p, row, true);
    },

    async get(p: Principal, id: number): Promise<OpportunityResponse> {
      const o = await repo.findOpportunity(db, p.entityId, id);
      if (!o) throw notFound('opportunity', id);
      return respond(p, o, true);
    },

    async list(p: Principal, q: OpportunityListQuery) {
      const { rows, total } = await repo.listOpportunities(db, p.entityId, { limit: q.limit, offset: q.offset, leadId: q.lead_id, stateId: q.state_id });
      const all = await repo.states(db, p.entityId, true);
      return { data: rows.map((o) => toOpportunityResponse(o, all)), pagination: { limit: q.limit, offset: q.offset, total } };
    },

    /** Moves to `stateId` (any state of the pipeline but the current one), recorded and published. */
    async move(p: Principal, id: number, stateId: number): Promise<OpportunityResponse> {
      const before = await repo.findOpportunity(db, p.entityId, id);
      if (!before) throw notFound('opportunity', id);
      const { groupId } = await partiesOf(p.entityId, before.leadId, null, deps.lookups);
      const states = await pipeline(p.entityId);
      const to = states.find((s) => s.id === stateId);
      if (!to) throw validationFailed([{ field: '/body/state_id', message: `state ${stateId} is not in the pipeline` }]);
      const row = await transaction(
        db,
        async ({ tx, events }) => {
          const o = await repo.findOpportunity(tx, p.entityId, id, true);
          if (!o) throw notFound('opportunity', id);
          if (o.stateId === stateId) throw conflict('invalid_transition', `The opportunity is already in ${to.name}`, { state_id: stateId });
          await repo.setState(tx, id, stateId);
          await repo.recordChange(tx, {
            entityId: p.entityId,
            opportunityId: id,
            fromStateId: o.stateId,
            toStateId: stateId,
            changedByEmployeeId: p.employeeId,
          });
          const all = await repo.states(tx, p.entityId, true);
          publish(events, p, o, groupId, all.find((s) => s.id === o.stateId) ?? null, to);
          return { ...o, stateId };
        },
        { events: deps.events },
      );
      return respond(p, row, true);
    },
  };

  function publish(events: ChangeEvents, p: Principal, o: repo.OpportunityRow, groupId: number, from: repo.StateRow | null, to: repo.StateRow): void {
    events.domainEvent('opportunity.state_changed', {
      entityId: p.entityId,
      opportunityId: o.id,
      leadId: o.leadId,
      groupId,
      fromStateId: from?.id ?? null,
      fromState: from?.name ?? null,
      toStateId: to.id,
      toState: to.name,
      outcome: to.outcome,
      changedByEmployeeId: p.employeeId,
      occurredAt: new Date().toISOString(),
    });
  }
}

export type OpportunityService = ReturnType<typeof createOpportunityService>;

const toStateResponse = (s: repo.StateRow) => ({ id: s.id, name: s.name, position: s.position, outcome: s.outcome });

function toOpportunityResponse(o: repo.OpportunityRow, states: repo.StateRow[], history?: repo.StateChangeRow[]): OpportunityResponse {
  const state = states.find((s) => s.id === o.stateId)!;
  return {
    id: o.id,
    lead_id: o.leadId,
    name: o.name,
    state: toStateResponse(state),
    value: fromMinor(o.valueMinor, o.currency),
    value_minor: o.valueMinor,
    currency: o.currency,
    expected_close_date: o.expectedCloseDate,
    owner_employee_id: o.ownerEmployeeId,
    ...(history
      ? {
          history: history.map((h) => ({
            from_state_id: h.fromStateId,
            to_state_id: h.toStateId,
            changed_by_employee_id: h.changedByEmployeeId,
            changed_at: h.changedAt.toISOString(),
          })),
        }
      : {}),
    created_at: o.createdAt.toISOString(),
    updated_at: o.updatedAt.toISOString(),
  };
}
