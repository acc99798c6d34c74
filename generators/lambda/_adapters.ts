/**
 * The adapters that several Lambda files share, and why each was chosen. (Files whose name starts
 * with `_` are not generators: the registry skips them.)
 */

/**
 * The adapter of express, koa and restify. serverless-http rather than @codegenie/serverless-express:
 * one small package without dependencies that lists all three frameworks (restify as experimental)
 * and reads payload 2.0 events on any Node from 12, whereas the current @codegenie/serverless-express
 * (5.0.0) declares Node 24 or later (an EBADENGINE warning on Node 20).
 */
export const SERVERLESS_HTTP = 'serverless-http';

/**
 * The adapter of hapi, deepkit and deepkit-http: @h4ad/serverless-adapter has a documented
 * framework class for each (HapiFramework, HttpDeepkitFramework).
 */
export const H4AD = '@h4ad/serverless-adapter';

/** The modules an @h4ad/serverless-adapter handler is built from, besides the framework's own class. */
export const H4AD_MODULES = [
  ['ServerlessAdapter', '@h4ad/serverless-adapter'],
  ['DefaultHandler', '@h4ad/serverless-adapter/handlers/default'],
  ['PromiseResolver', '@h4ad/serverless-adapter/resolvers/promise'],
  ['ApiGatewayV2Adapter', '@h4ad/serverless-adapter/adapters/aws'],
] as const;

/**
 * The statements that export the handler as @h4ad/serverless-adapter's docs build it (the app, its
 * framework class, the default handler, the promise resolver and the API Gateway v2 event adapter),
 * `export` being `exports.handler =` (JS) or `export const handler =` (TS). The built function
 * declares three parameters (event, context, callback), and AWS's Node.js 24 runtime refuses a
 * handler of three parameters as callback-style at INIT (so does aws-lambda-ric 4), although with
 * the promise resolver it answers through its promise: it is exported behind a two-parameter arrow.
 */
export function h4adHandler(app: string, frameworkClass: string, exportAs: string): string {
  return `const serverlessAdapter = ServerlessAdapter.new(${app})
  .setFramework(new ${frameworkClass}())
  .setHandler(new DefaultHandler())
  .setResolver(new PromiseResolver())
  .addAdapter(new ApiGatewayV2Adapter())
  .build();
${exportAs} (event, context) => serverlessAdapter(event, context);`;
}
