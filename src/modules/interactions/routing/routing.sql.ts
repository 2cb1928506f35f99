/** Statements of routing.repository.ts: queue members with their load, and the entity's routing setup. */
import { sql } from 'drizzle-orm';
import { shapedStatement } from '../../../db/statement.js';

/** Whose members `CANDIDATES` lists: one queue's (placeholder `queueId`) or one employee's memberships (`employeeId`). */
export type CandidatesShape = 'queue' | 'employee';

/**
 * Queue members of active employees of entity `entityId` with their capacity and current open (assigned)
 * conversations: of queue `queueId` in round-robin order, or of employee `employeeId` by membership id.
 */
export const CANDIDATES = shapedStatement('interactions_routing_candidates', {
  shapes: ['queue', 'employee'],
  build: (shape: CandidatesShape) => sql`select m.id as member_id, m.employee_id, m.position, m.is_available,
               coalesce(m.capacity, q.default_capacity) as capacity,
               (select count(*)::int from conversation c
                 where c.entity_id = ${sql.placeholder('entityId')} and c.assigned_employee_id = m.employee_id and c.assignment_status = 'assigned') as open_count
          from routing_queue_member m
          join routing_queue q on q.id = m.queue_id
          join active_employee e on e.id = m.employee_id
         ${
           shape === 'queue'
             ? sql`where m.queue_id = ${sql.placeholder('queueId')} and m.entity_id = ${sql.placeholder('entityId')} order by m.position, m.id`
             : sql`where m.entity_id = ${sql.placeholder('entityId')} and m.employee_id = ${sql.placeholder('employeeId')} order by m.id`
         }`,
});

/** Whether entity `entityId` has queues, its default queue and its active filters (priority order, as JSON). */
export const ROUTING_SETUP = shapedStatement('interactions_routing_setup', {
  build: () => sql`select exists(select 1 from routing_queue q where q.entity_id = ${sql.placeholder('entityId')}) as has_queues,
               (select q.id from routing_queue q where q.entity_id = ${sql.placeholder('entityId')} and q.is_default order by q.id limit 1) as default_queue_id,
               (select json_agg(json_build_object('id', f.id, 'queue_id', f.queue_id, 'conditions', f.conditions) order by f.priority, f.id)
                  from routing_filter f where f.entity_id = ${sql.placeholder('entityId')} and f.is_active) as filters`,
});
