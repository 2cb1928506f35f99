/** Statements of the entity table. */
import { statement } from '../../db/statement.js';

/** Moves the entity id sequence to the largest id, after rows inserted with explicit ids. */
export const ALIGN_ENTITY_ID_SEQUENCE = statement(
  'identity_align_entity_id_sequence',
  `select setval(pg_get_serial_sequence('entity', 'id'), (select max(id) from entity))`,
);
