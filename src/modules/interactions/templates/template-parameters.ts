/**
 * What a template send must carry, derived from the template's definition, and the check of a send's
 * `components` against it (pure). Per component: the header takes one text parameter when its text has a
 * placeholder, or one media parameter of its format; the body one parameter per positional placeholder
 * ({{1}}..{{n}}, text, currency or date_time) or exactly its named ones (`parameter_name`); a URL button
 * with a placeholder one text parameter, a copy-code button one `coupon_code`, a quick reply an optional
 * `payload`.
 */
import type { FieldError } from '../../../platform/errors.js';
import type { TemplateDefinitionComponent } from './template.schemas.js';
import type { TemplateMessageBody } from './template-message.schemas.js';

type SendComponent = NonNullable<TemplateMessageBody['components']>[number];
type Parameter = SendComponent['parameters'][number];

const PLACEHOLDER = /\{\{\s*([a-z0-9_]+)\s*\}\}/g;
const placeholders = (text: string | undefined) => [...(text ?? '').matchAll(PLACEHOLDER)].map((m) => m[1]!);
const TEXTUAL = new Set(['text', 'currency', 'date_time']);

/** The problems of `sent` against `definition` (empty when the send is valid); fields are `/body/components/...`. */
export function checkTemplateParameters(
  definition: TemplateDefinitionComponent[],
  format: 'positional' | 'named',
  sent: SendComponent[] | undefined,
): FieldError[] {
  const errors: FieldError[] = [];
  const components = sent ?? [];
  const find = (type: string, index?: number) => components.findIndex((c) => c.type === type && (index === undefined || Number(c.index) === index));
  const at = (i: number, rest = '') => `/body/components/${i}${rest}`;
  const used = new Set<number>();

  for (const c of definition) {
    if (c.type === 'HEADER') {
      const i = find('header');
      if (i >= 0) used.add(i);
      const params = i >= 0 ? components[i]!.parameters : [];
      if (c.format === 'TEXT') {
        const expected = placeholders(c.text).length;
        if (expected === 0 && params.length > 0) errors.push({ field: at(i, '/parameters'), message: 'the header has no parameters' });
        if (expected > 0) {
          if (params.length !== 1) errors.push({ field: i >= 0 ? at(i, '/parameters') : '/body/components', message: 'the header takes 1 text parameter' });
          else if (params[0]!.type !== 'text') errors.push({ field: at(i, '/parameters/0/type'), message: 'must be text' });
        }
      } else {
        const media = c.format.toLowerCase() as 'image' | 'video' | 'document';
        if (params.length !== 1) errors.push({ field: i >= 0 ? at(i, '/parameters') : '/body/components', message: `the header takes 1 ${media} parameter` });
        else if (params[0]!.type !== media || params[0]![media] === undefined)
          errors.push({ field: at(i, '/parameters/0'), message: `must be a ${media} with id or link` });
        else if (params[0]![media].id === undefined && params[0]![media].link === undefined)
          errors.push({ field: at(i, `/parameters/0/${media}`), message: 'needs id or link' });
      }
    } else if (c.type === 'BODY') {
      const i = find('body');
      if (i >= 0) used.add(i);
      const params = i >= 0 ? components[i]!.parameters : [];
      const names = placeholders(c.text);
      const field = i >= 0 ? at(i, '/parameters') : '/body/components';
      if (format === 'positional') {
        const count = new Set(names).size;
        if (params.length !== count) errors.push({ field, message: `the body takes ${count} parameters, ${params.length} given` });
        params.forEach((p, k) => {
          if (!TEXTUAL.has(p.type)) errors.push({ field: at(i, `/parameters/${k}/type`), message: 'must be text, currency or date_time' });
          else errors.push(...valueOf(p, at(i, `/parameters/${k}`)));
          if (p.parameter_name !== undefined)
            errors.push({ field: at(i, `/parameters/${k}/parameter_name`), message: 'positional templates take no parameter names' });
        });
      } else {
        const expected = new Set(names);
        const given = params.map((p) => p.parameter_name);
        for (const name of expected) if (!given.includes(name)) errors.push({ field, message: `missing parameter ${name}` });
        params.forEach((p, k) => {
          if (p.parameter_name === undefined || !expected.has(p.parameter_name))
            errors.push({ field: at(i, `/parameters/${k}/parameter_name`), message: `must be one of ${[...expected].join(', ') || '(none)'}` });
          else if (given.indexOf(p.parameter_name) !== k) errors.push({ field: at(i, `/parameters/${k}/parameter_name`), message: 'given twice' });
          if (!TEXTUAL.has(p.type)) errors.push({ field: at(i, `/parameters/${k}/type`), message: 'must be text, currency or date_time' });
          else errors.push(...valueOf(p, at(i, `/parameters/${k}`)));
        });
      }
    } else if (c.type === 'BUTTONS') {
      c.buttons.forEach((b, index) => {
        const i = find('button', index);
        if (i >= 0) used.add(i);
        const params = i >= 0 ? components[i]!.parameters : [];
        const field = i >= 0 ? at(i, '/parameters') : '/body/components';
        if (b.type === 'URL' && placeholders(b.url).length > 0) {
          if (i < 0 || components[i]!.sub_type !== 'url' || params.length !== 1 || params[0]!.type !== 'text' || !params[0]!.text)
            errors.push({ field, message: `button ${index} (url) takes 1 text parameter` });
        } else if (b.type === 'COPY_CODE') {
          if (i < 0 || components[i]!.sub_type !== 'copy_code' || params.length !== 1 || params[0]!.type !== 'coupon_code' || !params[0]!.coupon_code)
            errors.push({ field, message: `button ${index} (copy code) takes 1 coupon_code parameter` });
        } else if (b.type === 'QUICK_REPLY') {
          if (i >= 0 && (components[i]!.sub_type !== 'quick_reply' || params.length > 1 || (params[0] !== undefined && params[0].type !== 'payload')))
            errors.push({ field, message: `button ${index} (quick reply) takes at most 1 payload parameter` });
        } else if (i >= 0) {
          errors.push({ field: at(i), message: `button ${index} takes no parameters` });
        }
      });
    }
  }
  components.forEach((_, i) => {
    if (!used.has(i)) errors.push({ field: at(i), message: 'the template has no such component' });
  });
  return errors;
}

function valueOf(p: Parameter, field: string): FieldError[] {
  if (p.type === 'text' && (p.text === undefined || p.text === '')) return [{ field: `${field}/text`, message: 'required' }];
  if (p.type === 'currency' && p.currency === undefined) return [{ field: `${field}/currency`, message: 'required' }];
  if (p.type === 'date_time' && p.date_time === undefined) return [{ field: `${field}/date_time`, message: 'required' }];
  return [];
}

/** The problems of a definition itself: placeholders in order (positional) and examples for each (Meta refuses templates without them). */
export function checkTemplateDefinition(components: TemplateDefinitionComponent[], format: 'positional' | 'named'): FieldError[] {
  const errors: FieldError[] = [];
  const count = (type: string) => components.filter((c) => c.type === type).length;
  for (const type of ['HEADER', 'BODY', 'FOOTER', 'BUTTONS']) if (count(type) > 1) errors.push({ field: '/body/components', message: `at most one ${type}` });
  if (count('BODY') !== 1) errors.push({ field: '/body/components', message: 'a template needs one BODY' });
  components.forEach((c, i) => {
    const field = `/body/components/${i}`;
    if (c.type === 'HEADER' && c.format === 'TEXT' && c.text === undefined) errors.push({ field: `${field}/text`, message: 'a TEXT header needs text' });
    if (c.type !== 'BODY') return;
    const names = placeholders(c.text);
    if (format === 'positional') {
      const numbers = names.map(Number);
      if (names.some((n) => !/^[0-9]+$/.test(n))) errors.push({ field: `${field}/text`, message: 'positional placeholders are {{1}}, {{2}}, ...' });
      else if (numbers.some((n, k) => n !== k + 1)) errors.push({ field: `${field}/text`, message: 'placeholders must run {{1}}, {{2}}, ... in order' });
      else if (names.length > 0 && c.example?.body_text?.[0]?.length !== names.length)
        errors.push({ field: `${field}/example/body_text`, message: `needs ${names.length} examples` });
    } else {
      if (names.some((n) => /^[0-9]+$/.test(n))) errors.push({ field: `${field}/text`, message: 'named placeholders are {{first_name}}, not numbers' });
      const examples = new Set((c.example?.body_text_named_params ?? []).map((e) => e.param_name));
      for (const n of names) if (!examples.has(n)) errors.push({ field: `${field}/example/body_text_named_params`, message: `needs an example of ${n}` });
    }
  });
  return errors;
}
