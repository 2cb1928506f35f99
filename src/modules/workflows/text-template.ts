/**
 * Values of the execution context in a step's text: `{{trigger.sender_name}}` is replaced by that value
 * (empty when missing; arrays joined with ", "). Only dotted paths that start with a letter are
 * placeholders, so template parameters such as `{{1}}` pass through untouched.
 */
import { readPath } from './filter-engine.js';

const PLACEHOLDER = /\{\{\s*([a-z][a-z0-9_]*(?:\.[a-z0-9_]+)*)\s*\}\}/gi;

/** `text` with its placeholders filled from `context`. */
export function renderText(text: string, context: unknown): string {
  return text.replace(PLACEHOLDER, (_, path: string) => display(readPath(context, path.split('.'))));
}

/** Every string inside `value` rendered (objects and arrays copied). */
export function renderDeep<T>(value: T, context: unknown): T {
  if (typeof value === 'string') return renderText(value, context) as T;
  if (Array.isArray(value)) return value.map((v: unknown) => renderDeep(v, context)) as T;
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, renderDeep(v, context)])) as T;
  return value;
}

function display(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (Array.isArray(v)) return v.map(display).join(', ');
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return v.toString();
  return JSON.stringify(v) ?? '';
}
