import AjvCompiler from '@fastify/ajv-compiler';
import SerializerSelector from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

type CompilersFactory = NonNullable<
  NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']
>;
type ValidatorFactory = NonNullable<CompilersFactory['buildValidator']>;
type SerializerFactory = NonNullable<CompilersFactory['buildSerializer']>;
type Validate = ReturnType<ReturnType<ValidatorFactory>>;

/** Calls `make` once, on first use. */
function once<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}

/**
 * fastify's own validators (Ajv, fastify's options), each compiled on the first request that needs
 * it. fastify reads `errors` and `schemaEnv` from a validator, as Ajv sets them: they are passed
 * through. A factory given here is "custom" to fastify, which then hands header schemas over as
 * written instead of lowercasing their names: none is declared, and one that is is refused.
 */
const lazyValidators: ValidatorFactory = (externalSchemas, options) => {
  const compile = AjvCompiler()(externalSchemas, options);
  return (route) => {
    if (route.httpPart === 'headers') {
      throw new Error('header schemas are not supported: their names would not be lowercased');
    }
    const compiled = once(() => compile(route));
    const validate = ((data: unknown, context: unknown) =>
      (compiled() as (data: unknown, context: unknown) => unknown)(data, context)) as Validate;
    Object.defineProperties(validate, {
      errors: { get: () => compiled().errors },
      schemaEnv: { get: () => compiled().schemaEnv },
    });
    return validate;
  };
};

/** fastify's own response serializers (fast-json-stringify), each built on its first use. */
const lazySerializers: SerializerFactory = (externalSchemas, options) => {
  const build = SerializerSelector()(externalSchemas, options);
  return (route) => {
    const serializer = once(() => build(route));
    return (document: unknown) => serializer()(document);
  };
};

/**
 * Compiling every route's validators and response serializers took a fifth of `serve`'s start-up;
 * a process needs a few of them for its first requests. A schema is compiled when first used
 * instead: the same compilers, the same options, the same answers.
 */
export const lazySchemaCompilers: CompilersFactory = {
  buildValidator: lazyValidators,
  buildSerializer: lazySerializers,
};
