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

interface MatchedWorkflow {
  workflowId: number;
  version: number;
}

export interface TriggerMatcher {
  /**
   * Enabled workflows of `entityId` triggered by `event` whose filters hold for `{ ...extra, trigger: context }`;
   * `extra` (the `erp` fields, an ERP read; `labels`, a database read) is asked for only when some trigger's filters
   * name them, with what they name.
   */
  match(
    entityId: number,
    event: TriggerEvent,
    context: Record<string, unknown>,
    extra?: (reads: ContextReads) => Promise<Record<string, unknown>>,
  ): Promise<MatchedWorkflow[]>;
}

/** What filters read besides the trigger: the `erp.*` fields, the `labels` field. */
export interface ContextReads {
  erp: boolean;
  labels: boolean;
}

interface Compiled {
  revision: string;
  triggers: (MatchedWorkflow & { holds: CompiledFilters })[];
  reads: ContextReads;
}

/** Whether a filter tree or step list names an `erp.*` field. */
export function namesErpField(tree: unknown): boolean {
  return JSON.stringify(tree ?? null).includes('"field":"erp.');
}

/** Whether a filter tree or step list names the `labels` field. */
export function namesLabelsField(tree: unknown): boolean {
  return JSON.stringify(tree ?? null).includes('"field":"labels"');
}

export function createTriggerMatcher(deps: { db: Db; cacheSize?: number }): TriggerMatcher {
  const cache = new LRUCache<string, Compiled>({ max: deps.cacheSize ?? 5000 });
  return {
    async match(entityId, event, context, extra) {
      const key = `${entityId}:${event}`;
      const revision = await repo.triggerRevision(deps.db, entityId, event);
      let compiled = cache.get(key);
      if (compiled?.revision !== revision) {
        const rows = await repo.enabledTriggers(deps.db, entityId, event);
        const caseInsensitive = caseInsensitiveFields(event);
        compiled = {
          revision,
          triggers: rows.map((r) => ({ workflowId: r.workflowId, version: r.version, holds: compileFilters(r.filters as FilterNode[], { caseInsensitive }) })),
          reads: { erp: rows.some((r) => namesErpField(r.filters)), labels: rows.some((r) => namesLabelsField(r.filters)) },
        };
        cache.set(key, compiled);
      }
      const { reads } = compiled;
      const scope = { ...((reads.erp || reads.labels) && extra ? await extra(reads) : {}), trigger: context };
      return compiled.triggers.filter((t) => t.holds(scope)).map(({ workflowId, version }) => ({ workflowId, version }));
    },
  };
}
