/**
 * Which enabled workflows of an entity an event starts: the triggers of `(entity, event)` compiled once
 * and kept in memory while their revision (count and latest change of those triggers, one indexed
 * query) stays the same, so a change made on any instance is seen by the next event everywhere.
 */
import { LRUCache } from 'lru-cache';
import type { Db } from '../../db/client.js';
import { compileFilters, type CompiledFilters, type FilterNode } from './filter-engine.js';
import { caseInsensitiveFields, type TriggerEvent } from './field-registry.js';
import * as repo from './workflow.repository.js';

export interface MatchedWorkflow {
  workflowId: number;
  version: number;
}

export interface TriggerMatcher {
  /** Enabled workflows of `entityId` triggered by `event` whose filters hold for `{ trigger: context }`. */
  match(entityId: number, event: TriggerEvent, context: Record<string, unknown>): Promise<MatchedWorkflow[]>;
}

interface Compiled {
  revision: string;
  triggers: (MatchedWorkflow & { holds: CompiledFilters })[];
}

export function createTriggerMatcher(deps: { db: Db; cacheSize?: number }): TriggerMatcher {
  const cache = new LRUCache<string, Compiled>({ max: deps.cacheSize ?? 5000 });
  return {
    async match(entityId, event, context) {
      const key = `${entityId}:${event}`;
      const revision = await repo.triggerRevision(deps.db, entityId, event);
      let compiled = cache.get(key);
      if (compiled?.revision !== revision) {
        const rows = await repo.enabledTriggers(deps.db, entityId, event);
        const caseInsensitive = caseInsensitiveFields(event);
        compiled = { revision, triggers: rows.map((r) => ({ workflowId: r.workflowId, version: r.version, holds: compileFilters(r.filters as FilterNode[], { caseInsensitive }) })) };
        cache.set(key, compiled);
      }
      const scope = { trigger: context };
      return compiled.triggers.filter((t) => t.holds(scope)).map(({ workflowId, version }) => ({ workflowId, version }));
    },
  };
}
