/** Statements of workflow.repository.ts. */
import { statement } from '../../db/statement.js';

/** Which of the entities `$2` (int array) have an enabled trigger of type `$1`. */
export const ENTITIES_WITH_TRIGGERS = statement(
  'workflows_entities_with_triggers',
  `
select distinct entity_id from workflow_step_triggers
 where trigger_type = $1 and enabled and entity_id = any($2::int[])`,
);
