/**
 * Fastify's own schema compilers (Ajv for validation, fast-json-stringify for responses), shared by every
 * app of the process instead of built anew per app. Every route is served bare and under `/api` with the
 * same schema objects, and a process that builds several apps (the test suite, a service restarted in
 * place) registers the same routes again: each schema object is compiled once per set of shared schemas
 * (`addSchema`) and compiler options, then reused. Compiling is pure, so sharing changes no behaviour.
 */
import { AjvCompiler, type RouteDefinition } from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type ValidatorFactory = ReturnType<typeof AjvCompiler>;
type Validator = ReturnType<ReturnType<ValidatorFactory>>;
type SerializerFactory = ReturnType<typeof SerializerSelector>;
type Serializer = ReturnType<ReturnType<SerializerFactory>>;

// One Ajv per (shared schemas, options), kept by the pool; Ajv keeps each compiled schema by object identity.
const validatorPool = AjvCompiler();
const serializerFactory = SerializerSelector();
/** Serializers per (shared schemas, options), then per response schema object. */
const serializerPool = new Map<string, WeakMap<object, Serializer>>();

const buildValidator: ValidatorFactory = (externalSchemas, options) => {
  // The package's types call the route definition a schema; at run time Fastify passes the definition.
  const compile = validatorPool(externalSchemas, options) as unknown as (route: RouteDefinition) => Validator;
  const check = (route: RouteDefinition): Validator => {
    // With its own compilers Fastify no longer lowercases header schemas; requests' header names are lowercase.
    if ((route.httpPart as string) === 'headers') {
      const names = Object.keys((route.schema as { properties?: object }).properties ?? {});
      const upper = names.find((name) => name !== name.toLowerCase());
      if (upper !== undefined) throw new Error(`header schema of ${route.method} ${route.url} names "${upper}": write header names in lowercase`);
    }
    return compile(route);
  };
  return check as unknown as ReturnType<ValidatorFactory>;
};

const buildSerializer: SerializerFactory = (externalSchemas, options) => {
  const compile = serializerFactory(externalSchemas, options);
  const key = JSON.stringify([externalSchemas, options ?? {}]);
  let compiled = serializerPool.get(key);
  if (!compiled) serializerPool.set(key, (compiled = new WeakMap()));
  const byObject = compiled;
  return (route) => {
    const schema = route.schema;
    if (typeof schema !== 'object' || schema === null) return compile(route);
    let serialize = byObject.get(schema);
    if (!serialize) byObject.set(schema, (serialize = compile(route)));
    return serialize;
  };
};

/** Fastify's `schemaController` option: the default compilers, shared across the process's apps. */
export const sharedSchemaCompilers = { compilersFactory: { buildValidator, buildSerializer } };
